//! GPU culling against the CPU frustum test.

use glam::{Affine3A, Quat, Vec3};
use sinew::render::PaletteSegment;
use sinew::render::{
    Camera, CullFrusta, DirectionalLight, RenderTarget, Renderer, Scene, ShadowSettings,
    SkinnedBatch, SkinnedBatchDesc, SkinnedInstance, StaticMesh, aabb_in_frustum,
};
use sinew::{Aabb, Mat3x4Rows};

use super::common::Rng;
use super::common::rigs::humanoid;
use super::fixtures::{
    Gpu, PIXEL_THRESHOLD, SAME_SCENE_TOLERANCE, batch, box_around, differing_fraction, gpu,
    offscreen_caster_ground, offscreen_caster_view, pose, render, screen_rect, triangle_mesh,
    union,
};

#[test]
fn gpu_culling_keeps_exactly_the_boxes_the_cpu_frustum_test_keeps() {
    let Some(gpu) = gpu() else { return };
    let pages = check_culling(gpu, &gpu.renderer, 1);
    assert_eq!(pages, 1);
}

/// The same with 3,000 instances of 57 joints each over [`fixtures::PAGED_BINDING`]-byte windows: the
/// palette (8 MB) and the boxes (96 KB) both span several windows, and instance `i` reads box
/// `count - 1 - i`, so pages end at palette and at AABB window boundaries.
#[test]
fn paged_culling_keeps_exactly_the_boxes_the_cpu_frustum_test_keeps() {
    let Some(gpu) = gpu() else { return };
    let pages = check_culling(gpu, &gpu.paged, 57);
    assert!(pages > 100, "{pages} pages");
}

/// The light and shadow-map bounds of [`check_culling`]: a frustum that overlaps the camera's
/// and reaches far beside it.
fn culling_test_light() -> (DirectionalLight, ShadowSettings) {
    let light = DirectionalLight {
        direction: Vec3::new(0.5, -1.0, 0.3),
        ..DirectionalLight::default()
    };
    let bounds = Aabb {
        min: [0.0, -4.0, -30.0, 0.0],
        max: [24.0, 4.0, -6.0, 0.0],
    };
    (light, ShadowSettings::covering(bounds))
}

/// Whether all eight corners of `aabb` lie more than 1e-3 outside one of `planes`.
fn surely_outside(planes: &[glam::Vec4; 6], aabb: &Aabb) -> bool {
    planes.iter().any(|p| {
        (0..8).all(|k| {
            let c = Vec3::new(
                if k & 1 == 0 { aabb.min[0] } else { aabb.max[0] },
                if k & 2 == 0 { aabb.min[1] } else { aabb.max[1] },
                if k & 4 == 0 { aabb.min[2] } else { aabb.max[2] },
            );
            p.truncate().dot(c) + p.w < -1e-3
        })
    })
}

/// Culls 3,000 random boxes (instance `i` has palette block `i * joints`, `joints` entries,
/// and box `count - 1 - i`) with `renderer` for the camera and for a light
/// ([`culling_test_light`]), and checks both visible lists and their indirect draws against
/// [`aabb_in_frustum`] with the camera's and the light's matrix; then checks that without a
/// shadow map the light's list is empty, and that culling off lists every instance in order in
/// both. Returns the batch's page count.
fn check_culling(gpu: &Gpu, renderer: &Renderer, joints: u32) -> usize {
    let count = 3000;
    let mut rng = Rng(7);
    let camera = Camera::look_at(
        Vec3::new(0.0, 2.0, 12.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::Y,
        0.9,
        1.5,
        0.5,
        40.0,
    );
    let (light, shadow) = culling_test_light();
    let lit = Scene {
        light,
        shadow: Some(shadow),
        ..Scene::new(camera)
    };
    let light_view_proj = lit.light_view_projection().unwrap();
    let frusta = [camera.view_projection(), light_view_proj];
    let planes = frusta.map(|m| sinew::render::frustum_planes(&m));
    let mut aabbs = Vec::with_capacity(count);
    let mut must_keep = [Vec::new(), Vec::new()];
    let mut must_cull = [Vec::new(), Vec::new()];
    for i in 0..count {
        let half = Vec3::new(
            rng.range(0.05, 1.5),
            rng.range(0.05, 1.5),
            rng.range(0.05, 1.5),
        );
        let center = match i % 3 {
            // Around a point strictly inside the camera's (0) or the light's (1) frustum: must
            // be kept in that list.
            f @ (0 | 1) => {
                let ndc = Vec3::new(
                    rng.range(-0.95, 0.95),
                    rng.range(-0.95, 0.95),
                    rng.range(0.05, 0.98),
                );
                must_keep[f].push(i);
                frusta[f].inverse().project_point3(ndc)
            }
            // Anywhere in a large region around both frusta.
            _ => Vec3::new(
                rng.range(-60.0, 60.0),
                rng.range(-40.0, 40.0),
                rng.range(-60.0, 30.0),
            ),
        };
        let aabb = box_around(center, half);
        for (f, planes) in planes.iter().enumerate() {
            if surely_outside(planes, &aabb) {
                must_cull[f].push(i);
            }
        }
        aabbs.push(aabb);
    }
    // Empty and NaN boxes are culled.
    aabbs[1] = Aabb::EMPTY;
    aabbs[2].min[0] = f32::NAN;
    for list in &mut must_cull {
        list.extend([1, 2]);
    }
    must_keep[1].retain(|&b| b != 1);

    let aabb_buffer = sinew::render::create_aabb_buffer(gpu.device(), count).unwrap();
    sinew::render::write_aabbs(gpu.device(), gpu.queue(), &aabb_buffer, 0, &aabbs).unwrap();
    let entries = count * joints as usize;
    let palette_buffer = sinew::render::create_palette_buffer(gpu.device(), entries).unwrap();
    let identity = vec![Mat3x4Rows::IDENTITY; entries];
    sinew::render::write_palette(gpu.device(), gpu.queue(), &palette_buffer, 0, &identity).unwrap();
    // Instance i reads box count-1-i: the kernel must follow `aabb_index`.
    let instances: Vec<SkinnedInstance> = (0..count)
        .map(|i| {
            let offset = i as u32 * joints;
            SkinnedInstance::new(offset, joints, (count - 1 - i) as u32, [1.0; 3])
        })
        .collect();
    let meshes = [triangle_mesh(), triangle_mesh()];
    let mut batch = SkinnedBatch::new(
        gpu.device(),
        renderer,
        &SkinnedBatchDesc {
            label: "cull test",
            meshes: &meshes,
            mesh_colors: &[],
            capacity: count as u32,
            palette: &[PaletteSegment::whole(&palette_buffer)],
            aabbs: &aabb_buffer,
            preskin: false,
        },
    )
    .unwrap();
    batch.write_instances(gpu.queue(), &instances).unwrap();
    let batches = [&batch];
    let scene = Scene {
        skinned: &batches,
        ..lit
    };
    let target = RenderTarget::new(gpu.device(), renderer, 32, 32, 16).unwrap();
    renderer
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap();

    let box_of = |instance: u32| count - 1 - instance as usize;
    let mut kept_lists = Vec::new();
    for (f, name) in ["camera", "light"].into_iter().enumerate() {
        let (visible, args) = match f {
            0 => (
                batch.read_visible(gpu.device(), gpu.queue()).unwrap(),
                batch.read_draw_args(gpu.device(), gpu.queue()).unwrap(),
            ),
            _ => (
                batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
                batch
                    .read_light_draw_args(gpu.device(), gpu.queue())
                    .unwrap(),
            ),
        };
        let kept = check_list(
            name,
            &visible,
            &args,
            &planes[f],
            |i| &aabbs[box_of(i)],
            count,
        );
        for &b in &must_keep[f] {
            assert!(
                kept[count - 1 - b],
                "{name}: box {b} holds a point inside the frustum but was culled"
            );
        }
        for &b in &must_cull[f] {
            assert!(
                !kept[count - 1 - b],
                "{name}: box {b} lies outside the frustum but was kept"
            );
        }
        kept_lists.push(kept);
    }
    assert_ne!(
        kept_lists[0], kept_lists[1],
        "the camera's and the light's lists are the same"
    );

    // No shadow map: the light's list is empty.
    let unlit = Scene {
        shadow: None,
        ..scene
    };
    renderer
        .render(gpu.device(), gpu.queue(), &target, &unlit)
        .unwrap();
    let light_list = batch.read_light_visible(gpu.device(), gpu.queue()).unwrap();
    assert!(
        light_list.is_empty(),
        "{} in the light's list",
        light_list.len()
    );
    for a in batch
        .read_light_draw_args(gpu.device(), gpu.queue())
        .unwrap()
    {
        assert_eq!(a.instance_count, 0);
    }
    let camera_list = batch.read_visible(gpu.device(), gpu.queue()).unwrap();
    assert_eq!(
        camera_list.len(),
        kept_lists[0].iter().filter(|&&k| k).count()
    );

    // Culling off: every instance, in order, in both lists.
    let scene = Scene {
        cull: false,
        ..scene
    };
    renderer
        .render(gpu.device(), gpu.queue(), &target, &scene)
        .unwrap();
    let every: Vec<u32> = (0..count as u32).collect();
    assert_eq!(
        batch.read_visible(gpu.device(), gpu.queue()).unwrap(),
        every
    );
    assert_eq!(
        batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
        every
    );
    let args = [
        batch.read_draw_args(gpu.device(), gpu.queue()).unwrap(),
        batch
            .read_light_draw_args(gpu.device(), gpu.queue())
            .unwrap(),
    ];
    for a in args.iter().flatten() {
        assert_eq!(a.instance_count as usize, count);
    }
    batch.page_count()
}

/// Checks one visible list read back from the GPU (`visible`, with its per-mesh draws `args`)
/// against [`aabb_in_frustum`] with `planes` on each instance's box (`box_of`): listed once
/// each, counted by every draw, and kept exactly when the CPU test keeps it (but for boxes
/// within rounding of a plane); at least a quarter of `count` kept and a quarter culled.
/// Returns which instances were kept.
fn check_list<'a>(
    name: &str,
    visible: &[u32],
    args: &[sinew::render::DrawIndexedArgs],
    planes: &[glam::Vec4; 6],
    box_of: impl Fn(u32) -> &'a Aabb,
    count: usize,
) -> Vec<bool> {
    for (k, a) in args.iter().enumerate() {
        assert_eq!(
            a.instance_count as usize,
            visible.len(),
            "{name}: draw {k} counts {} instances, the visible list has {}",
            a.instance_count,
            visible.len()
        );
        assert_eq!(a.index_count, 3);
    }
    let mut sorted = visible.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        visible.len(),
        "{name}: an instance was listed twice"
    );
    let mut kept = vec![false; count];
    for &i in &sorted {
        kept[i as usize] = true;
    }
    let mut disagreements = Vec::new();
    for (instance, &gpu_keeps) in kept.iter().enumerate() {
        let aabb = box_of(instance as u32);
        let cpu = aabb_in_frustum(planes, aabb);
        if cpu != gpu_keeps {
            // Only a box within rounding of a plane may go either way.
            let margin = planes
                .iter()
                .map(|p| {
                    let n = p.truncate();
                    let corner = Vec3::select(
                        n.cmpge(Vec3::ZERO),
                        Vec3::from(aabb.max3()),
                        Vec3::from(aabb.min3()),
                    );
                    (n.dot(corner) + p.w).abs()
                })
                .fold(f32::INFINITY, f32::min);
            disagreements.push((instance, cpu, margin));
        }
    }
    assert!(
        disagreements.iter().all(|d| d.2 < 1e-4),
        "{name}: GPU and CPU culling disagree on {} instances; the first (instance, cpu keeps, \
         distance to the nearest plane): {:?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(10)]
    );
    let culled = count - visible.len();
    assert!(
        culled > count / 4 && visible.len() > count / 4,
        "{name}: {} of {count} kept",
        visible.len()
    );
    kept
}

#[test]
fn culled_crowd_renders_like_the_unculled_crowd() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let clips = rig.clips.clip_count() as u32;
    let mut poses = Vec::new();
    for row in 0..6 {
        for col in 0..8 {
            let world = Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.3 * (row * 8 + col) as f32),
                Vec3::new(col as f32 * 1.2 - 4.2, 0.0, -(row as f32) * 1.5),
            );
            poses.push(((row * 8 + col) as u32 % clips, 0.13 * col as f32, world));
        }
    }
    let posed = pose(gpu, &rig, &poses);
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let camera = Camera::look_at(
        Vec3::new(0.0, 2.5, 5.0),
        Vec3::new(0.0, 0.8, -2.0),
        Vec3::Y,
        0.9,
        1.0,
        0.1,
        60.0,
    );
    let batches = [&batch];
    let mut scene = Scene {
        skinned: &batches,
        shadow: Some(ShadowSettings::covering(union(&posed.aabbs))),
        ..Scene::new(camera)
    };
    let culled = render(gpu, "crowd_culled", 256, &scene);
    let kept = batch.read_visible(gpu.device(), gpu.queue()).unwrap().len();
    scene.cull = false;
    scene.shadow = None;
    let unculled_unshadowed = render(gpu, "crowd_unculled_unshadowed", 256, &scene);
    scene.shadow = Some(ShadowSettings::covering(union(&posed.aabbs)));
    let unculled = render(gpu, "crowd_unculled", 256, &scene);
    assert!(
        kept < poses.len() && kept > 4,
        "culling kept {kept} of {}",
        poses.len()
    );
    // The shadow pass draws the characters in the light's frustum, culled or not in view, so
    // the frames are equal.
    let fraction = differing_fraction(&culled, &unculled, PIXEL_THRESHOLD);
    assert!(
        fraction <= SAME_SCENE_TOLERANCE,
        "{:.3}% of pixels differ",
        fraction * 100.0
    );
    // Shadows darken some pixels.
    let shadowed = differing_fraction(&unculled, &unculled_unshadowed, PIXEL_THRESHOLD);
    assert!(
        shadowed > 0.01,
        "shadows changed only {:.3}% of pixels",
        shadowed * 100.0
    );
}

/// A character outside the camera's frustum but inside the light's casts its shadow into the
/// view: the shadow pass draws the light's list, not the camera's. Rendered with and without
/// the character, the frames differ exactly where its shadow falls on the ground (darker
/// there, nowhere else), and the culled frame equals the unculled one.
#[test]
fn a_character_outside_the_view_casts_its_shadow_into_it() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let clips = rig.clips.clip_count() as u32;
    // Turned broadside to the light.
    let world = Affine3A::from_rotation_translation(
        Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        Vec3::new(3.0, 0.0, 0.0),
    );
    let posed = pose(gpu, &rig, &[(1 % clips, 0.3, world)]);
    let caster = posed.aabbs[0];
    let batch = batch(gpu, &rig.meshes, &posed, false);
    let (camera, light) = offscreen_caster_view();
    let floor = caster.min[1];
    let ground_box = offscreen_caster_ground(floor);
    let ground = StaticMesh::ground_plane(
        gpu.device(),
        gpu.queue(),
        &gpu.renderer,
        Vec3::new(0.5, floor, 0.0),
        4.0,
        [0.6, 0.6, 0.58],
    )
    .unwrap();
    let statics = [&ground];
    let batches = [&batch];
    let with = Scene {
        light,
        shadow: Some(ShadowSettings::covering(union(&[caster, ground_box]))),
        skinned: &batches,
        statics: &statics,
        ..Scene::new(camera)
    };
    let frusta = CullFrusta::of(&with);
    assert!(!aabb_in_frustum(&frusta.camera, &caster));
    assert!(aabb_in_frustum(&frusta.light.unwrap(), &caster));

    let size = 256;
    let shadowed = render(gpu, "offscreen_caster", size, &with);
    assert!(
        batch
            .read_visible(gpu.device(), gpu.queue())
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        batch.read_light_visible(gpu.device(), gpu.queue()).unwrap(),
        [0]
    );
    let bare = render(
        gpu,
        "offscreen_caster_absent",
        size,
        &Scene {
            skinned: &[],
            ..with
        },
    );
    let unculled = render(
        gpu,
        "offscreen_caster_unculled",
        size,
        &Scene {
            cull: false,
            ..with
        },
    );

    // Where the shadow falls: the box's corners cast along the light onto the ground.
    let d = light.direction;
    let mut footprint = Aabb::EMPTY;
    for k in 0..8 {
        let c = Vec3::new(
            if k & 1 == 0 {
                caster.min[0]
            } else {
                caster.max[0]
            },
            if k & 2 == 0 {
                caster.min[1]
            } else {
                caster.max[1]
            },
            if k & 4 == 0 {
                caster.min[2]
            } else {
                caster.max[2]
            },
        );
        let on_ground = c + d * ((c.y - floor) / -d.y);
        footprint.merge(&box_around(on_ground, Vec3::ZERO));
    }
    let (x0, y0, x1, y1) = screen_rect(&camera, &footprint, size);
    let margin = 3.0;
    let mut darker = 0;
    for (k, (a, b)) in shadowed
        .pixels
        .chunks_exact(4)
        .zip(bare.pixels.chunks_exact(4))
        .enumerate()
    {
        if !a
            .iter()
            .zip(b)
            .any(|(x, y)| x.abs_diff(*y) > PIXEL_THRESHOLD)
        {
            continue;
        }
        let (x, y) = (
            (k as u32 % size) as f32 + 0.5,
            (k as u32 / size) as f32 + 0.5,
        );
        assert!(
            x >= x0 - margin && x <= x1 + margin && y >= y0 - margin && y <= y1 + margin,
            "pixel ({x}, {y}) changed outside the shadow's footprint ({x0}, {y0})..({x1}, {y1})"
        );
        assert!(
            a.iter().zip(b).take(3).all(|(x, y)| x <= y),
            "pixel ({x}, {y}) is lighter with the caster: {a:?} against {b:?}"
        );
        darker += 1;
    }
    let fraction = f64::from(darker) / f64::from(size * size);
    assert!(
        fraction > 0.005,
        "the off-screen character's shadow darkened only {:.3}% of pixels",
        fraction * 100.0
    );
    let fraction = differing_fraction(&shadowed, &unculled, PIXEL_THRESHOLD);
    assert!(
        fraction <= SAME_SCENE_TOLERANCE,
        "{:.3}% of pixels differ between the culled and the unculled frame",
        fraction * 100.0
    );
}
