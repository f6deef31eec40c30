//! Attachments

use glam::{Affine3A, Quat, Vec3};
use hecs::World;
use sinew::runtime::{Attachment, ClipLayer, Layers, Transform};

use super::common;
use super::fixtures::{animator, clip_id, joint, models, palette, spawn_walker};

#[test]
fn attachment_follows_the_joint_in_the_same_frame() {
    let mut a = animator();
    let mut world = World::new();
    let walker = spawn_walker(&a, &mut world, "walk", Transform::from_translation(Vec3::X));
    world
        .insert_one(
            walker,
            Layers::from_layers(&[ClipLayer::new(clip_id(&a, "wave"))]).unwrap(),
        )
        .unwrap();
    let offset =
        Affine3A::from_rotation_translation(Quat::from_rotation_z(0.3), Vec3::new(0.1, 0.0, 0.0));
    let sword = world.spawn((
        Transform::IDENTITY,
        Attachment::new(walker, "Arm")
            .with_offset(Vec3::new(0.1, 0.0, 0.0), Quat::from_rotation_z(0.3)),
    ));
    for _ in 0..7 {
        a.update(&mut world, 0.05).unwrap();
        let arm = joint(&a, "Arm");
        let expected = models(&a, &world, walker)[arm] * offset;
        let got = world.get::<&Attachment>(sword).unwrap().world();
        common::assert_matrix_close(
            &glam::Mat4::from(got).to_cols_array(),
            &glam::Mat4::from(expected).to_cols_array(),
            "attachment vs the CPU model matrix",
        );
        // And against the CPU backend's palette (identity inverse binds: palette = model).
        let p = palette(&mut a, &world, walker)[arm];
        let backend = sinew::Mat3x4Rows {
            rows: bytemuck::cast(p),
        }
        .to_affine()
            * offset;
        common::assert_matrix_close(
            &glam::Mat4::from(got).to_cols_array(),
            &glam::Mat4::from(backend).to_cols_array(),
            "attachment vs CpuBackend",
        );
        let t = world.get::<&Transform>(sword).unwrap().translation;
        common::assert_vec_close(
            &t.to_array(),
            &expected.translation.to_array(),
            1e-4,
            "attachment transform",
        );
    }
}
