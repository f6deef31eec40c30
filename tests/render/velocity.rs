//! The velocity pass (`VelocityPass`): a character whose pose does not change (rate 0, or
//! skipped by its update rate) under an unchanged camera leaves zero velocity everywhere while
//! covering the target (the same frame under a moved previous camera shows where); a moving
//! character's velocity at the texels its vertices land on matches the CPU finite difference
//! (a CPU rasterization of `velocity_of_vertex`'s skinning: the vertex skinned with the current
//! and the previous palette, each projected, interpolated as the GPU interpolates), with linear
//! blend and with dual-quaternion skinning (on a many-influence chain where the two differ); so
//! does a crowd's in ten pages whose box windows start past slot 0.

use glam::{Affine3A, Mat4, Vec2, Vec3, Vec4};
use sinew::gpu::GpuOptions;
use sinew::lod::UpdateRate;
use sinew::render::{
    Camera, RenderTarget, STAGE_FOV_Y, STAGE_VIEW_DIRECTION, Scene, SkinnedBatch, SkinnedBatchDesc,
    SkinnedInstance, SkinningMode, Stage, StageCharacter, StageDesc, StageView, VelocityBatch,
    VelocityPass, VelocityTarget, previous_block, previous_skinned_position,
    previous_skinned_position_dual_quat, skin_vertex, velocity_ndc, velocity_of_vertex,
};
use sinew::{Aabb, GpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig, TimeWrap};

use super::common::rigs::{humanoid, influences_rig};
use super::fixtures::{Gpu, PAGED_BINDING, gpu, records, render, render_on, tinted_instances};
use super::paged::{PAGED_CROWD, crowd_camera, crowd_poses};

const SIZE: u32 = 320;

/// A record of `rig` in slot 0 playing clip 0 at `rate`, looping, with LOD flags `flags`.
fn playing(rig: &Rig, rate: f32, flags: u32) -> InstanceRecord {
    let world = Affine3A::IDENTITY;
    let mut rec = InstanceRecord::new(0, 0, &world, &[Layer::clip(0, 0.3)]).unwrap();
    let period = rig.clips.clips()[0].duration.max(0.1);
    rec.layers[0] = rec.layers[0].with_clock(0.3, 0.0, rate, TimeWrap::Loop, period);
    rec.flags = flags;
    rec
}

/// What one velocity frame gave: the texels, the camera's view-projection, the instance's
/// current joint entries and those it showed last frame, and whether the last evaluation ran
/// its slot.
struct Drawn {
    texels: Vec<Vec2>,
    view_proj: Mat4,
    current: Vec<Mat3x4Rows>,
    previous: Vec<Mat3x4Rows>,
    evaluated: bool,
}

/// Evaluates `record` at each of `times` on a backend keeping the previous palette, draws the
/// frame after the last skinned by `mode`, then the velocity pass with the frame's camera and
/// mode and, as last frame's, the camera moved by `camera_shift` (world units).
fn draw(
    gpu: &Gpu,
    rig: &Rig,
    record: &InstanceRecord,
    times: &[f32],
    camera_shift: Vec3,
    via_stage: bool,
    mode: SkinningMode,
) -> Drawn {
    let options = GpuOptions {
        previous_palette: true,
        ..GpuOptions::default()
    };
    let mut backend =
        GpuBackend::with_options(&gpu.context, std::slice::from_ref(rig), &[], options).unwrap();
    backend
        .reserve_palette(rig.palette_entries() as u32)
        .unwrap();
    let records = [*record];
    for &t in times {
        backend.evaluate_at(t, &records).unwrap();
    }
    let stamp = backend.evaluated_stamp();
    let evaluated = backend.read_evaluated_at(0..1).unwrap()[0] == stamp;
    let joints = rig.joint_count();
    let current = backend.read_palette(0..joints as u32).unwrap();
    let kept = backend.read_previous_palette(0, joints as u32).unwrap();
    let slot_stamp = backend.read_evaluated_at(0..1).unwrap()[0];
    let previous = previous_block(slot_stamp, stamp, &kept, &current).to_vec();

    let mesh = &rig.meshes[0];
    let mut bounds = Aabb::EMPTY;
    for v in 0..mesh.vertex_count() {
        let p = Vec3::from(mesh.positions[v]);
        bounds.grow(previous_skinned_position(
            &current,
            mesh.joints[v],
            mesh.weights[v],
            p,
        ));
    }
    let camera = Camera::frame_aabb(&bounds, STAGE_VIEW_DIRECTION, STAGE_FOV_Y, 1.0);
    let view_proj = camera.view_projection();
    let previous_view_proj = view_proj * Mat4::from_translation(camera_shift);

    let batch = {
        let mut batch = SkinnedBatch::new(
            gpu.device(),
            &gpu.renderer,
            &SkinnedBatchDesc {
                label: "velocity",
                meshes: &rig.meshes,
                mesh_colors: &[],
                capacity: 1,
                palette: backend.palette_segments(),
                aabbs: backend.bounds_buffer(),
                preskin: false,
            },
        )
        .unwrap();
        let instance = SkinnedInstance::new(0, joints as u32, 0, [0.8, 0.6, 0.4]);
        batch.write_instances(gpu.queue(), &[instance]).unwrap();
        batch
    };
    let batches = [&batch];
    let mut scene = Scene::new(camera);
    scene.skinned = &batches;
    scene.skinning = mode;
    render(gpu, "velocity_frame", SIZE, &scene);

    let pass = VelocityPass::new(gpu.device(), &gpu.renderer);
    let target = VelocityTarget::new(gpu.device(), SIZE, SIZE).unwrap();
    let previous_segments = backend.previous_palette_segments().unwrap();
    let stamps = backend.evaluated_at_buffer().unwrap();
    let encode = |batches: &[VelocityBatch<'_>]| {
        let mut encoder = gpu.device().create_command_encoder(&Default::default());
        let matrices = (view_proj, previous_view_proj);
        pass.encode(
            gpu.device(),
            &mut encoder,
            &target,
            mode,
            matrices.0,
            matrices.1,
            batches,
        )
        .unwrap();
        gpu.queue().submit([encoder.finish()]);
    };
    match via_stage {
        false => encode(&[VelocityBatch {
            batch: &batch,
            previous: previous_segments,
            stamps,
            stamp,
        }]),
        true => {
            // The same character on a stage, drawn as `sinew render` draws it.
            let character = StageCharacter {
                rig: 0,
                palette_offset: 0,
                aabb_index: 0,
                tint: [1.0; 3],
            };
            let stage = Stage::new(
                gpu.device(),
                gpu.queue(),
                &gpu.renderer,
                &StageDesc {
                    rigs: std::slice::from_ref(rig),
                    characters: &[character],
                    palette: backend.palette_segments(),
                    aabbs: backend.bounds_buffer(),
                    max_bone_overlays: 0,
                    materials: false,
                },
            )
            .unwrap();
            let frame = RenderTarget::new(gpu.device(), &gpu.renderer, SIZE, SIZE, 512).unwrap();
            let view = StageView {
                camera,
                bones: false,
                skinning: mode,
                wireframe: false,
            };
            stage
                .render(
                    gpu.device(),
                    gpu.queue(),
                    &gpu.renderer,
                    &frame,
                    &view,
                    None,
                )
                .unwrap();
            encode(&stage.velocity_batches(previous_segments, stamps, stamp));
        }
    }
    Drawn {
        texels: target.read(gpu.device(), gpu.queue()).unwrap(),
        view_proj,
        current,
        previous,
        evaluated,
    }
}

fn largest(texels: &[Vec2]) -> f32 {
    texels.iter().map(|v| v.length()).fold(0.0, f32::max)
}

fn covered(texels: &[Vec2]) -> usize {
    texels.iter().filter(|v| v.length() > 1e-3).count()
}

#[test]
fn a_pose_that_does_not_change_leaves_zero_velocity() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let shift = Vec3::new(0.05, 0.0, 0.0);
    // Rate 0: evaluated every frame, the same pose.
    let still = playing(&rig, 0.0, 0);
    let drawn = draw(
        gpu,
        &rig,
        &still,
        &[0.2, 0.4],
        Vec3::ZERO,
        false,
        SkinningMode::Linear,
    );
    assert!(drawn.evaluated);
    let max = largest(&drawn.texels);
    assert!(max < 1e-4, "a still character's velocity reaches {max}");
    let moved = draw(
        gpu,
        &rig,
        &still,
        &[0.2, 0.4],
        shift,
        false,
        SkinningMode::Linear,
    );
    let count = covered(&moved.texels);
    assert!(count > 200, "the character covers {count} texels");

    // Playing, but skipped by its update rate on the last frame: it still shows last frame's
    // pose, so its velocity is zero too.
    let skipped = (0..2)
        .map(|phase| {
            let flags = UpdateRate::Every { interval: 2, phase }.bits();
            (playing(&rig, 1.0, flags), phase)
        })
        .find_map(|(rec, _)| {
            let drawn = draw(
                gpu,
                &rig,
                &rec,
                &[0.2, 0.5],
                Vec3::ZERO,
                false,
                SkinningMode::Linear,
            );
            (!drawn.evaluated).then_some((rec, drawn))
        });
    let (rec, drawn) = skipped.expect("one phase skips the second frame");
    let max = largest(&drawn.texels);
    assert!(max < 1e-4, "a skipped character's velocity reaches {max}");
    let moved = draw(
        gpu,
        &rig,
        &rec,
        &[0.2, 0.5],
        shift,
        false,
        SkinningMode::Linear,
    );
    let count = covered(&moved.texels);
    assert!(count > 200, "the skipped character covers {count} texels");
}

/// The CPU twin of the velocity target: every mesh's triangles rasterized at texel centres
/// (nearest depth wins), each covered texel's velocity from the clip positions of its
/// triangle's vertices (current and previous, `velocity_of_vertex`'s skinning by `mode`), interpolated
/// perspective-correctly as the GPU interpolates them, then divided. A texel is `None` where
/// nothing covers it, or where the nearest triangle's centre is within `EDGE` (barycentric) of
/// an edge or another triangle lies within `DEPTH_TIE` of its depth: there, which surface the
/// GPU picks depends on rounding.
fn cpu_velocity(
    mode: SkinningMode,
    rig: &Rig,
    characters: &[(&[Mat3x4Rows], &[Mat3x4Rows])],
    view_proj: Mat4,
    previous_view_proj: Mat4,
) -> Vec<Option<Vec2>> {
    const EDGE: f32 = 0.02;
    const DEPTH_TIE: f32 = 1e-4;
    let size = SIZE as usize;
    // Per texel: depth, velocity (None on an edge), the runner-up depth.
    let mut texels: Vec<(f32, Option<Vec2>, f32)> =
        vec![(f32::INFINITY, None, f32::INFINITY); size * size];
    for (mesh, (current, previous)) in characters
        .iter()
        .flat_map(|c| rig.meshes.iter().map(move |m| (m, c)))
    {
        let clips: Vec<(Vec4, Vec4)> = (0..mesh.vertex_count())
            .map(|v| {
                let (j, w, p) = (
                    mesh.joints[v],
                    mesh.weights[v],
                    Vec3::from(mesh.positions[v]),
                );
                let now = skin_vertex(mode, current, j, w, p, Vec3::Y).position;
                let then = match mode {
                    SkinningMode::Linear => previous_skinned_position(previous, j, w, p),
                    SkinningMode::DualQuaternion => {
                        previous_skinned_position_dual_quat(previous, j, w, p)
                    }
                };
                (
                    view_proj * now.extend(1.0),
                    previous_view_proj * then.extend(1.0),
                )
            })
            .collect();
        for tri in mesh.indices.chunks_exact(3) {
            let c = [0, 1, 2].map(|k| clips[tri[k] as usize]);
            if c.iter().any(|(now, _)| now.w <= 1e-4) {
                continue;
            }
            // Texel coordinates (x right, y down) and NDC depth of each corner.
            let screen = c.map(|(now, _)| {
                Vec3::new(
                    (now.x / now.w + 1.0) * 0.5 * SIZE as f32,
                    (1.0 - now.y / now.w) * 0.5 * SIZE as f32,
                    now.z / now.w,
                )
            });
            let area = (screen[1].x - screen[0].x) * (screen[2].y - screen[0].y)
                - (screen[2].x - screen[0].x) * (screen[1].y - screen[0].y);
            if area.abs() < 1e-9 {
                continue;
            }
            let lo = screen
                .iter()
                .fold(Vec2::splat(f32::INFINITY), |m, p| m.min(p.truncate()));
            let hi = screen
                .iter()
                .fold(Vec2::splat(f32::NEG_INFINITY), |m, p| m.max(p.truncate()));
            let (x0, y0) = (
                lo.x.floor().max(0.0) as usize,
                lo.y.floor().max(0.0) as usize,
            );
            let (x1, y1) = (
                (hi.x.ceil() as usize).min(size),
                (hi.y.ceil() as usize).min(size),
            );
            for y in y0..y1 {
                for x in x0..x1 {
                    let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                    let edge = |a: Vec3, b: Vec3| {
                        ((b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)) / area
                    };
                    let b = [
                        edge(screen[1], screen[2]),
                        edge(screen[2], screen[0]),
                        edge(screen[0], screen[1]),
                    ];
                    if b.iter().any(|&b| b < 0.0) {
                        continue;
                    }
                    let depth = b[0] * screen[0].z + b[1] * screen[1].z + b[2] * screen[2].z;
                    if !(0.0..=1.0).contains(&depth) {
                        continue;
                    }
                    let texel = &mut texels[y * size + x];
                    if depth >= texel.0 {
                        texel.2 = texel.2.min(depth);
                        continue;
                    }
                    texel.2 = texel.0;
                    texel.0 = depth;
                    texel.1 = None;
                    if b.iter().any(|&b| b < EDGE) {
                        continue;
                    }
                    // Perspective-correct weights.
                    let pw = [0, 1, 2].map(|k| b[k] / c[k].0.w);
                    let sum = pw[0] + pw[1] + pw[2];
                    let mix = |f: fn(&(Vec4, Vec4)) -> Vec4| {
                        (f(&c[0]) * pw[0] + f(&c[1]) * pw[1] + f(&c[2]) * pw[2]) / sum
                    };
                    texel.1 = Some(velocity_ndc(mix(|c| c.0), mix(|c| c.1)));
                }
            }
        }
    }
    texels
        .into_iter()
        .map(|(depth, v, runner_up)| v.filter(|_| runner_up - depth > DEPTH_TIE))
        .collect()
}

/// Texels where `want` decides (`Some`), those where `got` matches it (within 2% + 2e-4 NDC),
/// the worst mismatch (distance, got, want) and the mean speed wanted.
fn compare(got: &[Vec2], want: &[Option<Vec2>]) -> (usize, usize, (f32, Vec2, Vec2), f32) {
    let (mut compared, mut matched, mut speed) = (0, 0, 0.0f32);
    let mut worst = (0.0f32, Vec2::ZERO, Vec2::ZERO);
    for (got, want) in got.iter().zip(want) {
        let Some(want) = want else { continue };
        compared += 1;
        speed += want.length();
        let off = (*got - *want).length();
        if off <= 0.02 * want.length() + 2e-4 {
            matched += 1;
        } else if off > worst.0 {
            worst = (off, *got, *want);
        }
    }
    (compared, matched, worst, speed / compared.max(1) as f32)
}

#[test]
fn a_moving_pose_gives_the_cpu_finite_difference() {
    let Some(gpu) = gpu() else { return };
    let (humanoid, chain) = (humanoid(), influences_rig());
    // A batch of sinew's renderer, and a stage; linear blend skinning, and dual quaternions on
    // the humanoid and on the many-influence chain, where they bend differently.
    // The last: its velocity differs from linear blend skinning's where the comparison looks.
    let cases = [
        (false, SkinningMode::Linear, &humanoid, false),
        (true, SkinningMode::Linear, &humanoid, false),
        (true, SkinningMode::DualQuaternion, &humanoid, false),
        (false, SkinningMode::DualQuaternion, &chain, true),
    ];
    for (via_stage, mode, rig, unlike_linear) in cases {
        let what = format!("{}, stage: {via_stage}, {mode:?}", rig.name);
        let drawn = draw(
            gpu,
            rig,
            &playing(rig, 1.0, 0),
            &[0.2, 0.6],
            Vec3::ZERO,
            via_stage,
            mode,
        );
        assert!(drawn.evaluated);
        let character = (&drawn.current[..], &drawn.previous[..]);
        let vp = drawn.view_proj;
        let want = cpu_velocity(mode, rig, &[character], vp, vp);
        let (compared, matched, worst, mean_speed) = compare(&drawn.texels, &want);
        // The vertex twin: the character moves.
        let mesh = &rig.meshes[0];
        let vertex_speed = (0..mesh.vertex_count())
            .map(|v| {
                let p = Vec3::from(mesh.positions[v]);
                let (j, w) = (mesh.joints[v], mesh.weights[v]);
                let (now, then) = (&drawn.current, &drawn.previous);
                velocity_of_vertex(mode, now, then, j, w, p, vp, vp).length()
            })
            .sum::<f32>()
            / mesh.vertex_count() as f32;
        assert!(
            vertex_speed > 5e-3,
            "{what}: the vertices move ({vertex_speed} NDC per frame)"
        );
        eprintln!(
            "velocity ({what}): {matched} of {compared} texels match, mean speed {mean_speed}, worst {worst:?}"
        );
        assert!(compared > 2000, "{what}: {compared} texels compared");
        assert!(
            mean_speed > 5e-3,
            "{what}: the character moves ({mean_speed} NDC per frame)"
        );
        assert!(
            matched * 1000 >= compared * 999,
            "{what}: {matched} of {compared} texels match the CPU velocity; worst (off, got, want) {worst:?}"
        );
        if unlike_linear {
            // A pass that skinned linearly would fail this case.
            let linear = cpu_velocity(SkinningMode::Linear, rig, &[character], vp, vp);
            let (_, agree, _, _) = compare(&drawn.texels, &linear);
            eprintln!("velocity ({what}): {agree} of {compared} texels match the linear twin");
            assert!(
                agree * 1000 < compared * 999,
                "{what}: linear blend skinning's velocity matches as well ({agree} of {compared})"
            );
        }
    }
}

/// Resident slots before the crowd's in [`paged_velocity_matches_the_cpu_twin`]: more boxes than
/// one [`PAGED_BINDING`] window holds, so the crowd's pages bind box windows that start past 0.
const IDLE_SLOTS: usize = 2100;

/// The crowd of the paged tests playing, half of it every other frame, evaluated twice by a GPU
/// evaluator whose palette and previous palette are in [`PAGED_BINDING`] windows, in slots
/// after [`IDLE_SLOTS`] idle ones, seen by a camera that moved: the velocity pass of a batch in
/// ten pages (each binding its windows, its instances' boxes relative to its first) matches the
/// CPU twin, skipped characters (the current palette, moved by the camera only) and evaluated
/// ones (the previous palette) alike.
#[test]
fn paged_velocity_matches_the_cpu_twin() {
    let Some(gpu) = gpu() else { return };
    let rig = humanoid();
    let joints = rig.joint_count();
    let block = rig.palette_entries();
    let options = GpuOptions {
        max_palette_binding: Some(PAGED_BINDING),
        previous_palette: true,
        ..GpuOptions::default()
    };
    let mut backend =
        GpuBackend::with_options(&gpu.context, std::slice::from_ref(&rig), &[], options).unwrap();
    let entries = ((IDLE_SLOTS + PAGED_CROWD) * block) as u32;
    backend.reserve_palette(entries).unwrap();
    let period = rig.clips.clips()[0].duration.max(0.1);
    let idle = (
        0,
        0.0,
        Affine3A::from_translation(Vec3::new(0.0, 0.0, 500.0)),
    );
    let mut poses = vec![idle; IDLE_SLOTS];
    poses.extend(crowd_poses(&rig));
    let mut records = records(&rig, &poses);
    for (i, rec) in records.iter_mut().skip(IDLE_SLOTS).enumerate() {
        let start = rec.layers[0].time;
        rec.layers[0] = rec.layers[0].with_clock(start, 0.0, 1.0, TimeWrap::Loop, period);
        if i % 2 == 1 {
            rec.flags = UpdateRate::Every {
                interval: 2,
                phase: 0,
            }
            .bits();
        }
    }
    backend.evaluate_at(0.2, &records).unwrap();
    backend.evaluate_at(0.5, &records).unwrap();
    let stamp = backend.evaluated_stamp();
    let slots = IDLE_SLOTS as u32..(IDLE_SLOTS + PAGED_CROWD) as u32;
    let stamps = backend.read_evaluated_at(slots).unwrap();
    let evaluated = stamps.iter().filter(|&&s| s == stamp).count();
    assert!(
        evaluated > PAGED_CROWD / 3 && evaluated < PAGED_CROWD,
        "{evaluated} of {PAGED_CROWD} evaluated on the second frame"
    );
    let previous = backend.previous_palette_segments().unwrap();
    assert!(previous.len() > 1, "the previous palette is not windowed");

    // Each character's current block and the one it showed last frame.
    let current = backend.read_palette(0..entries).unwrap();
    let shown: Vec<(Vec<Mat3x4Rows>, Vec<Mat3x4Rows>)> = (0..PAGED_CROWD)
        .map(|i| {
            let offset = (IDLE_SLOTS + i) * block;
            let now = current[offset..offset + joints].to_vec();
            let kept = backend
                .read_previous_palette(offset as u32, joints as u32)
                .unwrap();
            let before = previous_block(stamps[i], stamp, &kept, &now).to_vec();
            (now, before)
        })
        .collect();

    let camera = crowd_camera();
    let view_proj = camera.view_projection();
    let previous_view_proj = view_proj * Mat4::from_translation(Vec3::new(0.02, 0.0, 0.0));
    let mut instances = tinted_instances(PAGED_CROWD, block, joints);
    for inst in &mut instances {
        inst.palette_offset += (IDLE_SLOTS * block) as u32;
        inst.aabb_index += IDLE_SLOTS as u32;
    }
    let pass = VelocityPass::new(gpu.device(), &gpu.paged);
    let mut batch = SkinnedBatch::new(
        gpu.device(),
        &gpu.paged,
        &SkinnedBatchDesc {
            label: "velocity crowd",
            meshes: &rig.meshes,
            mesh_colors: &[],
            capacity: PAGED_CROWD as u32,
            palette: backend.palette_segments(),
            aabbs: backend.bounds_buffer(),
            preskin: false,
        },
    )
    .unwrap();
    batch.write_instances(gpu.queue(), &instances).unwrap();
    let pages = batch.page_count();
    assert!(pages >= 10, "{pages} pages");
    let batches = [&batch];
    let scene = Scene {
        skinned: &batches,
        ..Scene::new(camera)
    };
    render_on(gpu, &gpu.paged, "velocity_crowd", SIZE, &scene);
    let target = VelocityTarget::new(gpu.device(), SIZE, SIZE).unwrap();
    let mut encoder = gpu.device().create_command_encoder(&Default::default());
    let drawn = VelocityBatch {
        batch: &batch,
        previous,
        stamps: backend.evaluated_at_buffer().unwrap(),
        stamp,
    };
    pass.encode(
        gpu.device(),
        &mut encoder,
        &target,
        SkinningMode::Linear,
        view_proj,
        previous_view_proj,
        &[drawn],
    )
    .unwrap();
    gpu.queue().submit([encoder.finish()]);
    let got = target.read(gpu.device(), gpu.queue()).unwrap();
    let characters: Vec<(&[Mat3x4Rows], &[Mat3x4Rows])> = shown
        .iter()
        .map(|(now, before)| (&now[..], &before[..]))
        .collect();
    let want = cpu_velocity(
        SkinningMode::Linear,
        &rig,
        &characters,
        view_proj,
        previous_view_proj,
    );
    let (compared, matched, worst, mean_speed) = compare(&got, &want);
    eprintln!("crowd velocity: {matched} of {compared} texels match, mean speed {mean_speed}");
    assert!(compared > 2000, "{compared} texels compared");
    assert!(
        matched * 1000 >= compared * 999,
        "{matched} of {compared} texels match the CPU velocity; worst (off, got, want) {worst:?}"
    );
}
