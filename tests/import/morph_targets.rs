//! Morph targets.

use std::path::Path;

use super::common;

fn morph_asset() -> sinew::RawAsset {
    sinew::import_file(common::repo().join("assets/synthetic/morph.glb")).unwrap()
}

#[test]
fn morph_targets_default_weights_and_weight_channels_are_imported() {
    let asset = morph_asset();
    // Node 2 takes the mesh's weights; node 3 overrides them with its own.
    let defaults: Vec<(usize, Vec<f32>)> = asset
        .morph_nodes
        .iter()
        .map(|n| (n.node, n.weights.clone()))
        .collect();
    assert_eq!(
        defaults,
        vec![(2, vec![0.25, 0.0, 0.5]), (3, vec![0.0, 0.5, 1.0])]
    );
    // Two skinned nodes of one two-primitive mesh; target 2 is stored sparse.
    assert_eq!(asset.meshes.len(), 4);
    for mesh in &asset.meshes {
        assert_eq!(mesh.targets.len(), 3, "{}", mesh.name);
        for (v, p) in mesh.positions.iter().enumerate() {
            let above = if p[1] > 1.0 { 1.0 } else { 0.0 };
            let expected = [
                ([p[0] * 0.5, 0.0, p[2] * 0.5], [0.0, 0.2, 0.0]),
                ([0.3 * p[1], 0.0, 0.0], [-0.2, 0.0, 0.0]),
                (
                    [0.0, above * 0.25 * (p[1] - 1.0), 0.0],
                    [0.0, 0.0, above * 0.1],
                ),
            ];
            for (t, (dp, dn)) in expected.iter().enumerate() {
                let what = format!("{} vertex {v} target {t}", mesh.name);
                common::assert_vec_close(
                    &mesh.targets[t].positions[v],
                    dp,
                    common::EXACT_TOLERANCE,
                    &format!("{what} position"),
                );
                common::assert_vec_close(
                    &mesh.targets[t].normals[v],
                    dn,
                    common::EXACT_TOLERANCE,
                    &format!("{what} normal"),
                );
            }
        }
    }
    // One weights channel per clip but `still`, on node 2.
    let names: Vec<&str> = asset.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["linear", "step", "cubic", "still"]);
    let modes = [
        sinew::Interpolation::Linear,
        sinew::Interpolation::Step,
        sinew::Interpolation::CubicSpline,
    ];
    for (clip, mode) in asset.clips.iter().zip(modes) {
        assert_eq!(clip.weights.len(), 1, "{}", clip.name);
        let track = &clip.weights[0];
        assert_eq!((track.target, track.interpolation), (2, mode));
        assert_eq!(track.target_count, 3);
        let per_key = if mode == sinew::Interpolation::CubicSpline {
            3
        } else {
            1
        };
        assert_eq!(track.values.len(), track.times.len() * per_key * 3);
    }
    assert_eq!(
        asset.clips[0].weights[0].values,
        [0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 0.25]
    );
    assert!(asset.clips[3].weights.is_empty());
    // The weight keys count toward a clip's duration like joint keys.
    assert_eq!(asset.clips[2].duration(), 1.2);
}

#[test]
fn robot_expressive_morph_weights_are_imported_and_drawn_on_its_rigid_head() {
    let Some(shared) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(shared.join("gltf/RobotExpressive.glb")).unwrap();
    assert_eq!(asset.morph_nodes.len(), 1);
    let head = &asset.morph_nodes[0];
    assert_eq!((head.node, head.weights.clone()), (13, vec![0.0; 3]));
    for clip in &asset.clips {
        assert_eq!(clip.weights.len(), 1, "{}", clip.name);
        let track = &clip.weights[0];
        assert_eq!((track.target, track.target_count), (13, 3), "{}", clip.name);
        assert_eq!(track.values.len(), track.times.len() * 3, "{}", clip.name);
    }
    // The head is not skinned: a rigid part on a joint both skins share, in their one rig,
    // where its node is a joint of its own.
    let rigs = sinew::bake_rigs(&asset).unwrap();
    assert_eq!(rigs.len(), 1);
    let rig = &rigs[0];
    let node = rig.morph.node_of(13).unwrap();
    assert_eq!((node.first_weight, node.target_count), (0, 3));
    assert_eq!(rig.skeleton.source_nodes()[node.joint as usize], 13);
    assert_eq!(rig.palette_entries(), rig.joint_count() + 1);
    let heads: Vec<_> = rig.meshes.iter().filter(|m| m.node == Some(13)).collect();
    assert_eq!(heads.len(), 3, "the head's three primitives");
    assert!(
        heads.iter().all(|m| m.morph.target_count == 3),
        "each carries the head's three targets"
    );
}

/// `sinew pose` on `file` with `args`, as JSON.
fn pose_json(file: &Path, args: &[&str]) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .arg("pose")
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn pose_command_reports_the_morph_weights_applied_at_each_time() {
    let file = common::repo().join("assets/synthetic/morph.glb");
    let json = pose_json(&file, &["--anim", "0", "--times", "0,0.25,0.5"]);
    let morph = &json["morph_weights"];
    assert_eq!(morph["nodes"], serde_json::json!([2, 3]));
    let frames = morph["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 3);
    // Node 2 follows the `linear` clip; node 3 keeps its own weights.
    let expected = [
        (0.0, [0.0, 0.0, 0.0]),
        (0.25, [0.5, 0.25, 0.0]),
        (0.5, [1.0, 0.5, 0.0]),
    ];
    for (frame, (t, first)) in frames.iter().zip(expected) {
        assert_eq!(frame["t"].as_f64(), Some(t));
        let weights: Vec<Vec<f32>> = serde_json::from_value(frame["weights"].clone()).unwrap();
        assert_eq!(weights.len(), 2, "one list per node");
        common::assert_vec_close(&weights[0], &first, common::WEIGHT_TOLERANCE, "node 2");
        common::assert_vec_close(
            &weights[1],
            &[0.0, 0.5, 1.0],
            common::WEIGHT_TOLERANCE,
            "node 3",
        );
    }
    // The rest pose shows the defaults.
    let rest = pose_json(&file, &["--rest"]);
    assert_eq!(
        rest["morph_weights"]["frames"],
        serde_json::json!([{"t": null, "weights": [[0.25, 0.0, 0.5], [0.0, 0.5, 1.0]]}])
    );
    // A file without morph targets has no such key.
    let plain = pose_json(&common::repo().join("assets/humanoid.glb"), &["--rest"]);
    assert!(plain.get("morph_weights").is_none(), "{plain}");
}
