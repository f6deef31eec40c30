//! FBX files as clip sources: the Blender FBX copy of the humanoid's clips, retargeted by joint
//! name onto the rig baked from the glTF humanoid, pose its joints where the glTF's own clips
//! do.

use glam::Affine3A;
use sinew::bake::{retarget_clips, retarget_clips_by_rest};
use sinew::{Layer, Mat3x4Rows, Rig};

use super::common;
use super::fbx::{asset_size, import, key_times};

/// Model-space joint positions of `rig` playing `clip` at `t`.
fn joint_positions(rig: &Rig, clip: usize, t: f32) -> Vec<glam::Vec3> {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    sinew::cpu::evaluate_pose(
        rig,
        &[],
        &[Layer::clip(clip as u32, t)],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    models.iter().map(|m| m.translation.into()).collect()
}

#[test]
fn fbx_clips_retargeted_onto_the_gltf_rig_pose_like_its_own_clips() {
    let repo = common::repo();
    let gltf = import(&repo.join("assets/humanoid.glb"));
    let fbx = import(&repo.join("assets/fbx/humanoid.fbx"));
    let rig = sinew::bake_rigs(&gltf)
        .unwrap()
        .into_iter()
        .find(|r| !r.meshes.is_empty())
        .expect("a skinned rig");
    let own = rig.clips.clip_count();
    let (out, report) = retarget_clips_by_rest(&rig, &fbx).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.clips.clip_count(), own + fbx.clips.len());
    // Only the FBX's extra nodes (its armature and scene roots) go unmatched.
    let joints: Vec<&str> = fbx.skins[0]
        .joints
        .iter()
        .map(|&j| fbx.nodes[j].name.as_str())
        .collect();
    for u in &report.unmatched {
        assert!(
            !joints.contains(&u.node.as_str()),
            "joint {} unmatched",
            u.node
        );
    }
    let tol = common::fbx_tolerance(asset_size(&gltf));
    let mut compared = 0;
    for (c, clip) in gltf.clips.iter().enumerate() {
        let f = fbx
            .clips
            .iter()
            .position(|k| k.name.ends_with(&format!("|{}", clip.name)))
            .unwrap_or_else(|| panic!("no FBX stack for clip {:?}", clip.name));
        for t in key_times(clip) {
            let want = joint_positions(&out, c, t);
            let got = joint_positions(&out, own + f, t);
            for (j, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    g.distance(*w) <= tol,
                    "clip {:?} t={t}: joint {} at {g}, its own clip puts it at {w}",
                    clip.name,
                    out.skeleton.names()[j]
                );
            }
            compared += 1;
        }
    }
    assert!(compared > 0, "nothing compared");
    // Copying the FBX's local keys as they are misplaces joints: its bone frames differ.
    let (plain, _) = retarget_clips(&rig, &fbx).unwrap_or_else(|e| panic!("{e}"));
    let off = gltf.clips.iter().enumerate().any(|(c, clip)| {
        let f = fbx
            .clips
            .iter()
            .position(|k| k.name.ends_with(&format!("|{}", clip.name)))
            .unwrap();
        let (got, want) = (
            joint_positions(&plain, own + f, 0.0),
            joint_positions(&plain, c, 0.0),
        );
        got.iter().zip(&want).any(|(g, w)| g.distance(*w) > tol)
    });
    assert!(off, "plain retargeting of the FBX clips matched too");
}

#[test]
fn rest_aligned_retargeting_of_a_rig_onto_itself_changes_no_key() {
    let gltf = import(&common::repo().join("assets/humanoid.glb"));
    let rig = sinew::bake_rigs(&gltf).unwrap().remove(0);
    let (plain, _) = retarget_clips(&rig, &gltf).unwrap();
    let (aligned, _) = retarget_clips_by_rest(&rig, &gltf).unwrap();
    let own = rig.clips.clip_count();
    let tol = common::fbx_tolerance(1.0);
    for c in own..plain.clips.clip_count() {
        let duration = plain.clips.clips()[c].duration;
        for t in [0.0, duration * 0.3, duration] {
            let (g, w) = (
                joint_positions(&aligned, c, t),
                joint_positions(&plain, c, t),
            );
            for (j, (g, w)) in g.iter().zip(&w).enumerate() {
                assert!(
                    g.distance(*w) <= tol,
                    "clip {c} t={t} joint {j}: {g} vs {w}"
                );
            }
        }
    }
}
