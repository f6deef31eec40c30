//! Animated bounds

use glam::{Affine3A, Vec3};
use sinew::cpu::{animated_aabb, evaluate_pose};
use sinew::{Aabb, Layer, Mat3x4Rows, Rig};

use super::common::assert_vec_close;
use super::fixtures::{axis_angle, joint, rz, skin_by_hand, skinned_fixture};

#[test]
fn animated_aabb_contains_every_skinned_vertex() {
    let f = skinned_fixture();
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let n = rig.joint_count();
    let poses = [
        (0.0, Affine3A::IDENTITY),
        (0.3, Affine3A::IDENTITY),
        (0.77, Affine3A::IDENTITY),
        (1.5, Affine3A::IDENTITY),
        (2.0, Affine3A::IDENTITY),
        (
            1.2,
            Affine3A::from_scale_rotation_translation(
                Vec3::new(1.0, 2.0, 0.5),
                axis_angle([0.0, 1.0, 0.0], 33.0),
                Vec3::new(-5.0, 3.0, 1.0),
            ),
        ),
    ];
    for (t, world) in poses {
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        let aabb = evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(0, t)],
            &world,
            &mut models,
            &mut palette,
        );
        assert!(!aabb.is_empty(), "t = {t}: empty box");
        for (v, p) in skin_by_hand(&f, &rig, &palette).iter().enumerate() {
            assert!(
                aabb.contains(*p, 1e-4),
                "t = {t}: vertex {v} at {p} lies outside {:?}..{:?}",
                aabb.min,
                aabb.max
            );
        }
    }
}

#[test]
fn a_joint_without_vertices_does_not_grow_the_animated_aabb() {
    // C has no vertices; the clip puts it 1000 units away, but the box stays near the mesh.
    let f = skinned_fixture();
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    assert!(
        rig.joint_bounds[joint(&rig, "C")].is_empty(),
        "C has no bounds: {:?}",
        rig.joint_bounds[joint(&rig, "C")]
    );
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let aabb = evaluate_pose(
        &rig,
        &[],
        &[Layer::clip(0, 0.5)],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    assert!(
        aabb.max[0] < 100.0,
        "box reaches x = {} (C sits at x = {})",
        aabb.max[0],
        models[joint(&rig, "C")].translation.x
    );
}

#[test]
fn animated_aabb_moves_each_joint_box_and_skips_empty_ones() {
    // Box [0,1]×[0,2]×[0,3] under p ↦ Rz(90°) p + (2, 0, 0) = (2 - y, x, z) spans
    // [0,2]×[0,1]×[0,3]; the empty box is 1000 units away and adds nothing.
    let boxes = [
        Aabb {
            min: [0.0, 0.0, 0.0, 0.0],
            max: [1.0, 2.0, 3.0, 0.0],
        },
        Aabb::EMPTY,
    ];
    let models = [
        Affine3A::from_rotation_translation(rz(90.0), Vec3::new(2.0, 0.0, 0.0)),
        Affine3A::from_translation(Vec3::new(1000.0, 0.0, 0.0)),
    ];
    let aabb = animated_aabb(&boxes, &models);
    assert_vec_close(&aabb.min[..3], &[0.0, 0.0, 0.0], 1e-6, "min");
    assert_vec_close(&aabb.max[..3], &[2.0, 1.0, 3.0], 1e-6, "max");
}
