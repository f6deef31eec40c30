//! The command line.

use glam::{Affine3A, Quat, Vec3};
use sinew::GpuBackend;
use sinew::report::PoseReport;

use super::common;
use super::fixtures::{gpu, load};

#[test]
fn pose_command_on_gpu_matches_every_reference_pose() {
    let Some(_) = gpu() else { return };
    let Some(shared) = common::shared() else {
        return;
    };
    #[derive(serde::Deserialize)]
    struct Entry {
        asset: String,
        animation: Option<usize>,
        #[serde(default)]
        times: Vec<f32>,
        expected: String,
    }
    let index = std::fs::read_to_string(shared.join("reference-poses/index.json")).unwrap();
    let entries: Vec<Entry> = serde_json::from_str(&index).unwrap();
    assert!(!entries.is_empty());
    for entry in entries {
        let text =
            std::fs::read_to_string(shared.join("reference-poses").join(&entry.expected)).unwrap();
        let reference: PoseReport = serde_json::from_str(&text).unwrap();
        let run = |backend: &str| -> PoseReport {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"));
            cmd.arg("pose").arg(shared.join("gltf").join(&entry.asset));
            match entry.animation {
                None => {
                    cmd.arg("--rest");
                }
                Some(a) => {
                    let times: Vec<String> = entry.times.iter().map(|t| t.to_string()).collect();
                    cmd.args(["--anim", &a.to_string(), "--times", &times.join(",")]);
                }
            }
            let out = cmd.args(["--backend", backend]).output().unwrap();
            assert!(
                out.status.success(),
                "{} --backend {backend}: {}",
                entry.expected,
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let gpu_report = run("gpu");
        let cpu_report = run("cpu");
        for (name, expected) in [("reference", &reference), ("CPU backend", &cpu_report)] {
            assert_eq!(gpu_report.skins.len(), expected.skins.len());
            for (gs, es) in gpu_report.skins.iter().zip(&expected.skins) {
                assert_eq!(gs.joints, es.joints);
                assert_eq!(gs.frames.len(), es.frames.len());
                for (gf, ef) in gs.frames.iter().zip(&es.frames) {
                    for j in 0..gs.joints.len() {
                        let at = format!(
                            "{}: GPU vs {name}: t={:?} joint {}",
                            entry.expected, ef.t, gs.joints[j]
                        );
                        common::assert_matrix_close(
                            &gf.world[j],
                            &ef.world[j],
                            &format!("{at} world"),
                        );
                        common::assert_matrix_close(
                            &gf.skin[j],
                            &ef.skin[j],
                            &format!("{at} skin"),
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn attachment_matches_the_gpu_model_matrix_in_the_same_frame() {
    use sinew::runtime::{Animated, Animator, Attachment, ClipLayer, Layers, Transform};
    let Some(ctx) = gpu() else { return };
    let rig = load(&common::repo().join("assets/humanoid.glb")).remove(0);
    let mut animator = Animator::new(vec![rig.clone()]).unwrap();
    let mut world = hecs::World::new();
    let walk = animator.playback(0, "walk").unwrap();
    let wave = rig.clips.find_clip("wave").unwrap() as u32;
    let walker = world.spawn((
        Animated::new(0),
        Transform::from_translation(Vec3::new(2.0, 0.0, -1.0)),
        walk,
        Layers::from_layers(&[ClipLayer::new(wave).with_weight(0.7)]).unwrap(),
    ));
    let offset =
        Affine3A::from_rotation_translation(Quat::from_rotation_z(0.3), Vec3::new(0.1, 0.0, 0.0));
    let prop = world.spawn((
        Transform::IDENTITY,
        Attachment::new(walker, "RightHand")
            .with_offset(Vec3::new(0.1, 0.0, 0.0), Quat::from_rotation_z(0.3)),
    ));
    let hand = rig.skeleton.find_joint("RightHand").unwrap();
    let mut backend = GpuBackend::new(ctx, std::slice::from_ref(&rig), animator.masks()).unwrap();
    for frame in 0..5 {
        animator.update(&mut world, 0.07).unwrap();
        backend
            .reserve_palette(animator.palette().capacity())
            .unwrap();
        let records = animator.records().to_vec();
        backend
            .evaluate_at(animator.frame_time(), &records)
            .unwrap();
        let index = animator
            .record_entities()
            .iter()
            .position(|&e| e == walker)
            .unwrap();
        let readback = backend.read_instances(&records, &[index]).unwrap();
        let expected = readback[0].models[hand] * offset;
        let got = world.get::<&Attachment>(prop).unwrap().world();
        common::assert_matrix_close(
            &glam::Mat4::from(got).to_cols_array(),
            &glam::Mat4::from(expected).to_cols_array(),
            &format!("frame {frame}: attachment vs the GPU model matrix"),
        );
    }
}
