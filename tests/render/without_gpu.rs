//! Without a GPU.

use glam::{Affine3A, Quat, Vec3};
use sinew::render::{CullFrusta, Scene, ShadowSettings, aabb_in_frustum, bounding_sphere};
use sinew::{Aabb, Layer, Mat3x4Rows};

use super::common::rigs::humanoid;
use super::fixtures::{box_around, fox, offscreen_caster_ground, offscreen_caster_view, union};

#[test]
fn render_shaders_validate_with_naga() {
    for (name, source) in sinew::render::render_sources() {
        let module = naga::front::wgsl::parse_str(&source)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}

/// On the CPU, [`CullFrusta`] keeps a box in view, and a box outside the view but inside the
/// shadow map's frustum (it may cast a shadow into the view), but neither one outside both, nor
/// the second without a shadow map.
#[test]
fn cull_frusta_keep_what_is_seen_or_casts_a_shadow_into_the_view() {
    let (camera, light) = offscreen_caster_view();
    let half = Vec3::new(0.3, 0.9, 0.3);
    let beside = box_around(Vec3::new(3.0, 0.9, 0.0), half);
    let seen = box_around(Vec3::new(-0.5, 0.9, 0.0), half);
    let away = box_around(Vec3::new(-30.0, 0.9, 0.0), half);
    let lit = Scene {
        light,
        shadow: Some(ShadowSettings::covering(union(&[
            beside,
            offscreen_caster_ground(0.0),
        ]))),
        ..Scene::new(camera)
    };
    let frusta = CullFrusta::of(&lit);
    assert_eq!(frusta.camera, camera.frustum_planes());
    let light_planes = sinew::render::frustum_planes(&lit.light_view_projection().unwrap());
    assert_eq!(frusta.light, Some(light_planes));
    assert!(!aabb_in_frustum(&frusta.camera, &beside));
    assert!(frusta.keeps(&seen), "the box in view was culled");
    assert!(
        frusta.keeps(&beside),
        "the shadow caster beside the view was culled"
    );
    assert!(!frusta.keeps(&away), "the box outside both frusta was kept");
    assert!(!frusta.keeps(&Aabb::EMPTY));
    let unlit = CullFrusta::of(&Scene {
        shadow: None,
        ..lit
    });
    assert_eq!(unlit.light, None);
    assert!(unlit.keeps(&seen) && !unlit.keeps(&beside));
}

#[test]
fn bone_overlay_joint_origins_are_the_model_matrices_origins() {
    let mut rigs = vec![humanoid()];
    rigs.extend(fox());
    for rig in rigs {
        let origins = sinew::render::bind_space_origins(&rig.skeleton);
        let n = rig.joint_count();
        let world = Affine3A::from_rotation_translation(Quat::from_rotation_y(0.7), Vec3::X);
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        sinew::cpu::evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(0, 0.3)],
            &world,
            &mut models,
            &mut palette,
        );
        let scale = bounding_sphere(&rig.joint_bounds.iter().fold(Aabb::EMPTY, |mut a, b| {
            a.merge(b);
            a
        }))
        .1
        .max(1.0);
        for (j, ((entry, origin), model)) in palette.iter().zip(&origins).zip(&models).enumerate() {
            let got = entry.to_affine().transform_point3(*origin);
            let expected = Vec3::from(model.translation);
            assert!(
                got.abs_diff_eq(expected, 1e-4 * scale.max(expected.abs().max_element())),
                "{}: joint {j}: palette x bind origin = {got}, model origin = {expected}",
                rig.name
            );
        }
    }
}
