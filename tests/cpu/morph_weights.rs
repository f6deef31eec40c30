//! Morph weights

use glam::{Affine3A, Vec3};
use sinew::bake::retarget_clips;
use sinew::cpu::evaluate_pose;
use sinew::import::RawClip;
use sinew::{
    Aabb, BlendMode, CpuBackend, EvalError, InstanceRecord, Interpolation, JointMask, Layer,
    Mat3x4Rows, Rig, Sqt, bake_rigs,
};

use super::common::rigs::morph_rig;
use super::common::{self, assert_vec_close};
use super::fixtures::Fixture;

/// The weight vector `evaluate_pose` writes after the joints for `layers`.
fn morph_weights_of(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> Vec<f32> {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    evaluate_pose(
        rig,
        masks,
        layers,
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    sinew::cpu::morph_weights(rig, &palette)
}

/// Node 2's three weights, then node 3's, for `layers` (the padding weights must be zero).
fn node_weights(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> ([f32; 3], [f32; 3]) {
    let w = morph_weights_of(rig, masks, layers);
    assert_eq!(
        w.len(),
        8,
        "two nodes of three targets, each padded to four"
    );
    assert_eq!((w[3], w[7]), (0.0, 0.0), "padding weights");
    ([w[0], w[1], w[2]], [w[4], w[5], w[6]])
}

fn assert_weights(got: [f32; 3], expected: [f32; 3], what: &str) {
    assert_vec_close(&got, &expected, common::WEIGHT_TOLERANCE, what);
}

#[test]
fn morph_rig_lays_out_each_nodes_weights_in_its_own_chunk() {
    let rig = morph_rig();
    let nodes: Vec<(u32, u32, u32)> = rig
        .morph
        .nodes()
        .iter()
        .map(|n| (n.node, n.first_weight, n.target_count))
        .collect();
    assert_eq!(nodes, [(2, 0, 3), (3, 4, 3)]);
    assert_eq!(rig.morph.weight_count(), 8);
    assert_eq!(rig.palette_entries(), rig.joint_count() + 1);
    assert_eq!(rig.clips.weight_chunk_count(), 2);
    assert_eq!(rig.clips.weight_tracks().len(), 4 * 2, "clips × chunks");
    // Every primitive of both nodes carries its node's weights.
    let firsts: Vec<u32> = rig.meshes.iter().map(|m| m.morph.first_weight).collect();
    assert_eq!(firsts, [0, 0, 4, 4]);
}

#[test]
fn morph_weights_follow_linear_keys_at_and_between_keys() {
    let rig = morph_rig();
    // Keys at 0, 0.5, 1: (0, 0, 0), (1, 0.5, 0), (0, 1, 0.25); clamped outside.
    for (t, expected) in [
        (-1.0, [0.0, 0.0, 0.0]),
        (0.0, [0.0, 0.0, 0.0]),
        (0.25, [0.5, 0.25, 0.0]),
        (0.5, [1.0, 0.5, 0.0]),
        (0.75, [0.5, 0.75, 0.125]),
        (1.0, [0.0, 1.0, 0.25]),
        (3.0, [0.0, 1.0, 0.25]),
    ] {
        let (first, second) = node_weights(&rig, &[], &[Layer::clip(0, t)]);
        assert_weights(first, expected, &format!("linear t={t}"));
        assert_weights(second, [0.0, 0.5, 1.0], &format!("node 3 at t={t}"));
    }
}

#[test]
fn morph_weights_hold_step_keys() {
    let rig = morph_rig();
    // Keys at 0, 0.4, 0.8: (0.2, 0.4, 0.6), (1, 0, 0), (0, 0, 1).
    for (t, expected) in [
        (0.0, [0.2, 0.4, 0.6]),
        (0.39, [0.2, 0.4, 0.6]),
        (0.4, [1.0, 0.0, 0.0]),
        (0.7, [1.0, 0.0, 0.0]),
        (0.8, [0.0, 0.0, 1.0]),
    ] {
        let (first, _) = node_weights(&rig, &[], &[Layer::clip(1, t)]);
        assert_weights(first, expected, &format!("step t={t}"));
    }
}

#[test]
fn morph_weights_follow_the_cubic_spline() {
    let rig = morph_rig();
    // Keys at 0, 0.6, 1.2 (dt 0.6): values v0 = 0, v1 = (1, 0.5, 0.2), v2 = (0.3, 0.3, 0.3);
    // out tangent of key 0 (1, -1, 0.5), in tangent of key 1 (0.5, 0, 0), out tangent of key 1
    // (-0.5, 0.25, 0), in tangent of key 2 zero. Half way (u = 0.5) the Hermite basis is
    // (0.5, 0.125, 0.5, -0.125): p = 0.5 v_k + 0.125 dt m_k + 0.5 v_k+1 - 0.125 dt m_k+1.
    let half = |v0: [f32; 3], m0: [f32; 3], v1: [f32; 3], m1: [f32; 3]| -> [f32; 3] {
        std::array::from_fn(|i| {
            0.5 * v0[i] + 0.125 * 0.6 * m0[i] + 0.5 * v1[i] - 0.125 * 0.6 * m1[i]
        })
    };
    let v0 = [0.0; 3];
    let v1 = [1.0, 0.5, 0.2];
    let v2 = [0.3; 3];
    for (t, expected) in [
        (0.0, v0),
        (0.3, half(v0, [1.0, -1.0, 0.5], v1, [0.5, 0.0, 0.0])),
        (0.6, v1),
        (0.9, half(v1, [-0.5, 0.25, 0.0], v2, [0.0; 3])),
        (1.2, v2),
    ] {
        let (first, _) = node_weights(&rig, &[], &[Layer::clip(2, t)]);
        assert_weights(first, expected, &format!("cubic t={t}"));
    }
    // Worked out by hand: 0.5 + 0.075 - 0.0375 = 0.5375 at t = 0.3.
    let (first, _) = node_weights(&rig, &[], &[Layer::clip(2, 0.3)]);
    assert!(
        (first[0] - 0.5375).abs() < common::WEIGHT_TOLERANCE,
        "{first:?}"
    );
}

#[test]
fn morph_weights_of_a_clip_that_does_not_animate_them_are_the_defaults() {
    let rig = morph_rig();
    for layers in [vec![], vec![Layer::clip(3, 0.4)]] {
        let (first, second) = node_weights(&rig, &[], &layers);
        assert_weights(first, [0.25, 0.0, 0.5], "mesh defaults");
        assert_weights(second, [0.0, 0.5, 1.0], "node's own defaults");
    }
}

#[test]
fn morph_weights_blend_across_layers_like_translations() {
    let rig = morph_rig();
    let defaults = [0.25, 0.0, 0.5];
    let sample = [1.0, 0.5, 0.0]; // `linear` at t = 0.5
    let lerp =
        |w: f32| -> [f32; 3] { std::array::from_fn(|i| defaults[i] * (1.0 - w) + sample[i] * w) };
    let partial = |weight: f32, mask: Option<u32>, mode: BlendMode| Layer {
        weight,
        mask,
        mode,
        ..Layer::clip(0, 0.5)
    };
    let base = Layer::clip(3, 0.0);
    // Override at 30 %: lerp from the layer below.
    let (first, second) = node_weights(&rig, &[], &[base, partial(0.3, None, BlendMode::Override)]);
    assert_weights(first, lerp(0.3), "override 30 %");
    assert_weights(
        second,
        [0.0, 0.5, 1.0],
        "an unanimated node keeps its weights",
    );
    // Full weight takes the sample.
    let (first, _) = node_weights(&rig, &[], &[base, partial(1.0, None, BlendMode::Override)]);
    assert_weights(first, sample, "override 100 %");
    // The mask value of the node's joint scales the layer: node 2 is a skinned mesh node at
    // the scene root, so it follows joint 0.
    assert_eq!(rig.morph.nodes()[0].joint, 0);
    let mut weights = vec![1.0; rig.joint_count()];
    weights[0] = 0.5;
    let masks = [JointMask { weights }];
    let (first, _) = node_weights(
        &rig,
        &masks,
        &[base, partial(0.3, Some(0), BlendMode::Override)],
    );
    assert_weights(first, lerp(0.15), "override 30 % under a 50 % mask");
    // Additive: adds (sample - default) × weight to the layer below.
    let (first, second) = node_weights(&rig, &[], &[base, partial(0.5, None, BlendMode::Additive)]);
    assert_weights(first, [0.625, 0.25, 0.25], "additive 50 %");
    assert_weights(
        second,
        [0.0, 0.5, 1.0],
        "additive of an unanimated node adds nothing",
    );
}

#[test]
fn cpu_backend_writes_morph_weights_after_each_instances_joints() {
    let rig = morph_rig();
    let block = rig.palette_entries() as u32;
    let records: Vec<InstanceRecord> = [0.25f32, 0.75]
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            InstanceRecord::new(
                0,
                i as u32 * block,
                &Affine3A::IDENTITY,
                &[Layer::clip(0, t)],
            )
            .unwrap()
        })
        .collect();
    let mut palette = vec![Mat3x4Rows::IDENTITY; 2 * block as usize];
    let mut aabbs = [Aabb::EMPTY; 2];
    CpuBackend::new(vec![rig.clone()], Vec::new())
        .unwrap()
        .evaluate(&records, &mut palette, &mut aabbs)
        .unwrap();
    for (i, expected) in [[0.5, 0.25, 0.0], [0.5, 0.75, 0.125]].iter().enumerate() {
        let at = i * block as usize;
        let w = sinew::cpu::morph_weights(&rig, &palette[at..at + block as usize]);
        assert_weights([w[0], w[1], w[2]], *expected, &format!("instance {i}"));
    }
    // A palette one entry short of the second block is refused.
    let mut short = vec![Mat3x4Rows::IDENTITY; 2 * block as usize - 1];
    let err = CpuBackend::new(vec![rig], Vec::new())
        .unwrap()
        .evaluate(&records, &mut short, &mut aabbs)
        .unwrap_err();
    assert!(matches!(err, EvalError::OutputSize { .. }), "{err}");
}

#[test]
fn retargeted_clips_keep_and_bring_morph_weight_tracks() {
    let rig = morph_rig();
    let asset = sinew::import_file(common::repo().join("assets/synthetic/morph.glb")).unwrap();
    let (out, _) = retarget_clips(&rig, &asset).unwrap();
    assert_eq!(out.clips.clip_count(), 8);
    // The rig's own `linear` (clip 0) and the one brought in again by node name (clip 4).
    for clip in [0, 4] {
        let (first, second) = node_weights(&out, &[], &[Layer::clip(clip, 0.25)]);
        assert_weights(first, [0.5, 0.25, 0.0], &format!("clip {clip}"));
        assert_weights(second, [0.0, 0.5, 1.0], &format!("clip {clip} node 3"));
    }
    let (first, _) = node_weights(&out, &[], &[Layer::clip(6, 0.3)]);
    assert!(
        (first[0] - 0.5375).abs() < common::WEIGHT_TOLERANCE,
        "{first:?}"
    );
}

#[test]
fn animated_bounds_hold_every_morphed_vertex() {
    let rig = morph_rig();
    let block = rig.palette_entries();
    for (clip, t) in [(0, 0.5), (0, 1.0), (1, 0.9), (2, 0.6), (3, 0.2)] {
        let world = Affine3A::from_rotation_y(0.4);
        let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
        let mut palette = vec![Mat3x4Rows::IDENTITY; block];
        let aabb = evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(clip, t)],
            &world,
            &mut models,
            &mut palette,
        );
        let mut outside = 0.0f32;
        for mesh in &rig.meshes {
            for v in 0..mesh.vertex_count() {
                let (p, n) = sinew::render::morph_vertex(
                    mesh,
                    v,
                    &palette,
                    rig.joint_count(),
                    Vec3::from(mesh.positions[v]),
                    Vec3::from(mesh.normals[v]),
                );
                let skinned = sinew::render::skin_vertex_linear(
                    &palette[..rig.joint_count()],
                    mesh.joints[v],
                    mesh.weights[v],
                    p,
                    n,
                );
                for i in 0..3 {
                    let q = skinned.position[i];
                    outside = outside.max(aabb.min[i] - q).max(q - aabb.max[i]);
                }
            }
        }
        assert!(
            outside <= common::AABB_TOLERANCE,
            "clip {clip} t={t}: a morphed vertex lies {outside} outside {aabb:?}"
        );
    }
}

#[test]
fn a_file_that_animates_only_morph_weights_bakes_a_node_rig_that_evaluates_them() {
    let mut f = Fixture::new();
    let face = f.node("Face", None, Sqt::IDENTITY);
    f.asset.morph_nodes.push(sinew::import::RawMorphNode {
        node: face,
        mesh: 0,
        weights: vec![0.2, 0.4],
    });
    f.asset.clips.push(RawClip {
        name: "blink".into(),
        tracks: Vec::new(),
        weights: vec![sinew::import::RawWeightTrack {
            target: face,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0],
            target_count: 2,
            values: vec![0.0, 0.0, 1.0, 0.5],
        }],
        markers: Vec::new(),
    });
    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 1, "one node rig over the animated node");
    let rig = &rigs[0];
    assert_eq!(
        rig.clips.clips()[0].duration,
        1.0,
        "the weight keys set the duration"
    );
    let node = rig.morph.node_of(face).unwrap();
    assert_eq!(
        rig.skeleton.source_nodes()[node.joint as usize],
        face as u32
    );
    let w = morph_weights_of(rig, &[], &[Layer::clip(0, 0.5)]);
    assert_vec_close(
        &w,
        &[0.5, 0.25, 0.0, 0.0],
        common::WEIGHT_TOLERANCE,
        "t = 0.5",
    );
    let w = morph_weights_of(rig, &[], &[]);
    assert_vec_close(
        &w,
        &[0.2, 0.4, 0.0, 0.0],
        common::WEIGHT_TOLERANCE,
        "defaults",
    );
    // The pose report lists the node's weights though the file has no skin.
    let request = sinew::report::PoseRequest {
        clip: Some((0, vec![0.5])),
        nodes: sinew::report::NodeSelection::None,
    };
    let report =
        sinew::report::pose_report(&f.asset, &request, &mut sinew::report::CpuPose).unwrap();
    let morph = report.morph_weights.unwrap();
    assert_eq!(morph.nodes, vec![face]);
    assert_vec_close(
        &morph.frames[0].weights[0],
        &[0.5, 0.25],
        common::WEIGHT_TOLERANCE,
        "reported",
    );
}

/// A looping layer over a zero-length clip (a one-key pose, period 0) has no cycles to count:
/// GPU-style root motion moves nothing instead of turning the world into NaN.
#[test]
fn root_motion_over_a_zero_length_loop_moves_nothing() {
    let asset = sinew::import_file(common::repo().join("assets/humanoid.glb")).unwrap();
    let rig = sinew::bake_rigs(&asset).unwrap().remove(0);
    let hips = rig.skeleton.find_joint("Hips").unwrap() as u32;
    let layer = sinew::Layer::clip(1, 0.0).to_record().with_clock(
        0.0,
        0.0,
        1.0,
        sinew::TimeWrap::Loop,
        0.0,
    );
    let mut record = sinew::InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
    record.layer_count = 1;
    record.layers[0] = layer;
    record.flags =
        hips | sinew::InstanceRecord::HOLD_ROOT_XZ | sinew::InstanceRecord::gpu_root_motion(1);
    let before = record.world;
    sinew::cpu::advance_root_motion(&rig, &mut record, 0.25, 1.75);
    assert!(
        record.world.rows.iter().flatten().all(|v| v.is_finite()),
        "world {:?}",
        record.world
    );
    assert_eq!(record.world, before, "a pose does not move");
}
