//! Motion vectors: the kernel's previous palette (`GpuOptions::previous_palette`) against its
//! CPU twin (`sinew::cpu::PreviousPalette`) under update-rate LOD, the velocity a renderer gets
//! from it (zero for a still character, evaluated or skipped; the finite difference of the
//! skinned positions for a moving one), and the host WGSL helpers
//! (`sinew_previous_skinned_position` and its dual-quaternion sibling) run on the GPU against
//! their CPU twins.

use glam::{Affine3A, Vec3};
use sinew::cpu::PreviousPalette;
use sinew::gpu::GpuOptions;
use sinew::gpu::{ReadRange, read_ranges};
use sinew::lod::{UpdateRate, evaluation};
use sinew::render::{
    SkinningMode, previous_block, previous_skinned_position, previous_skinned_position_dual_quat,
    previous_skinning_wgsl, skinning_wgsl,
};
use sinew::{GpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig, TimeWrap};

use super::common::rigs::{humanoid, influences_rig};
use super::fixtures::gpu;
use super::oracle::{assert_transform_close, cpu_evaluate_at, palette_len};

/// A record of `rig` in slot `slot` at `x` along X playing clip 0 at `rate` (0: a constant
/// pose), looping, with LOD flags `flags`.
fn playing(rig: &Rig, slot: u32, x: f32, rate: f32, flags: u32) -> InstanceRecord {
    let block = rig.palette_entries() as u32;
    let world = Affine3A::from_translation(Vec3::new(x, 0.0, 0.0));
    let mut rec = InstanceRecord::new(0, slot * block, &world, &[Layer::clip(0, 0.3)]).unwrap();
    let period = rig.clips.clips()[0].duration.max(0.1);
    rec.layers[0] = rec.layers[0].with_clock(0.3, 0.0, rate, TimeWrap::Loop, period);
    rec.flags = flags;
    rec
}

fn every(interval: u32, phase: u32) -> u32 {
    UpdateRate::Every { interval, phase }.bits()
}

/// A backend keeping the previous palette with room for `records`' blocks, and their length.
fn keeping_previous(
    ctx: &sinew::GpuContext,
    rigs: &[Rig],
    records: &[InstanceRecord],
) -> (GpuBackend, usize) {
    let options = GpuOptions {
        previous_palette: true,
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, rigs, &[], options).unwrap();
    let len = palette_len(rigs, records);
    backend.reserve_palette(len as u32).unwrap();
    (backend, len)
}

fn assert_blocks_close(got: &[Mat3x4Rows], want: &[Mat3x4Rows], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: block lengths");
    for (j, (g, w)) in got.iter().zip(want).enumerate() {
        assert_transform_close(
            &g.to_cols_array(),
            &w.to_cols_array(),
            &format!("{what}, entry {j}"),
        );
    }
}

/// Skinned positions of `rig`'s first mesh by the joint entries `block`.
fn skinned(rig: &Rig, block: &[Mat3x4Rows]) -> Vec<Vec3> {
    let mesh = &rig.meshes[0];
    let joints = &block[..rig.joint_count()];
    (0..mesh.vertex_count())
        .map(|v| {
            let p = Vec3::from(mesh.positions[v]);
            previous_skinned_position(joints, mesh.joints[v], mesh.weights[v], p)
        })
        .collect()
}

/// Largest distance between matching points.
fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f32::max)
}

/// Frames of a crowd under update rates: moving every frame, moving every third frame, still
/// (rate 0) every second frame, frozen. After each GPU evaluation the stamps equal the twin's,
/// the previous blocks of the slots evaluated equal the twin's (the pose shown before), and the
/// velocity a renderer derives (previous block chosen by the stamp, skinned, against the
/// current skinned positions) is zero for the still, frozen and skipped characters and the
/// finite difference between the pose shown now and the one shown before for moving ones.
#[test]
fn previous_palette_matches_its_twin_and_gives_zero_velocity_when_still() {
    let Some(ctx) = gpu() else { return };
    let rig = humanoid();
    let rigs = [rig.clone()];
    let records = vec![
        playing(&rig, 0, 0.0, 1.0, 0),
        playing(&rig, 1, 2.0, 1.0, every(3, 1)),
        playing(&rig, 2, 4.0, 0.0, every(2, 0)),
        playing(&rig, 3, 6.0, 1.0, UpdateRate::Frozen.bits()),
    ];
    let (mut backend, len) = keeping_previous(ctx, &rigs, &records);
    let block_len = rig.ik_entry_offset();
    let mut twin = PreviousPalette::new();
    let mut shown = vec![Mat3x4Rows::default(); len];
    let mut last_shown: Vec<Option<Vec<Vec3>>> = vec![None; records.len()];
    for frame in 0..8u32 {
        let now = 0.1 + frame as f32 * 0.05;
        // The twin: which slots the kernel evaluates, their blocks kept, then overwritten.
        let due: Vec<u32> = (0..records.len() as u32)
            .filter(|&s| {
                let rec = &records[s as usize];
                let position = Vec3::from(rec.world.to_affine().translation);
                evaluation(rec.flags, s, position, frame, false, frame == 0, None).is_some()
            })
            .collect();
        twin.keep(&rigs, &records, &due, frame, &shown).unwrap();
        let (cpu, _) = cpu_evaluate_at(&rigs, &[], &records, now);
        for &s in &due {
            let start = records[s as usize].palette_offset as usize;
            shown[start..start + block_len].copy_from_slice(&cpu[start..start + block_len]);
        }

        backend.evaluate_at(now, &records).unwrap();
        let stamp = backend.evaluated_stamp();
        assert_eq!(stamp, frame + 1);
        let stamps = backend.read_evaluated_at(0..records.len() as u32).unwrap();
        assert_eq!(stamps, twin.stamps(), "frame {frame}: evaluated-at stamps");
        let palette = backend.read_palette(0..len as u32).unwrap();
        for (s, rec) in records.iter().enumerate() {
            let what = format!("frame {frame}, slot {s}");
            let start = rec.palette_offset as usize;
            let current = &palette[start..start + block_len];
            assert_blocks_close(current, &shown[start..start + block_len], &what);
            let previous = backend
                .read_previous_palette(rec.palette_offset, block_len as u32)
                .unwrap();
            if frame > 0 && stamps[s] == stamp {
                let kept = &twin.entries()[start..start + block_len];
                assert_blocks_close(&previous, kept, &format!("{what}: previous palette"));
            }
            // What a renderer draws: positions now, and where they were last frame.
            let now_positions = skinned(&rig, current);
            let before = skinned(&rig, previous_block(stamps[s], stamp, &previous, current));
            let moved = max_distance(&now_positions, &before);
            let Some(last) = &last_shown[s] else {
                last_shown[s] = Some(now_positions);
                continue;
            };
            // Finite difference: the previous positions are those shown last frame.
            let off = max_distance(&before, last);
            assert!(
                off < 1e-4,
                "{what}: previous positions {off} off last frame's"
            );
            match s {
                0 => assert!(moved > 1e-3, "{what}: a moving character moves ({moved})"),
                1 if stamps[s] == stamp => assert!(moved > 1e-3, "{what}: moved ({moved})"),
                _ => assert!(moved < 1e-5, "{what}: velocity {moved}, expected zero"),
            }
            last_shown[s] = Some(now_positions);
        }
    }
}

/// The host's compute twin of a vertex stage: for each query (slot, palette offset, joint
/// count, stamp, influences, bind-space position) the position `PREVIOUS_POSITION`
/// (`sinew_previous_skinned_position` or its dual-quaternion sibling) gives, reading the
/// backend's palette, previous palette and stamps through the host bindings.
const QUERY_WGSL: &str = r#"
struct Query {
    slot: u32,
    offset: u32,
    joint_count: u32,
    stamp: u32,
    joints0: vec4<u32>,
    joints1: vec4<u32>,
    weights0: vec4<f32>,
    weights1: vec4<f32>,
    position: vec4<f32>,
}
@group(0) @binding(3) var<storage, read> queries: array<Query>;
@group(0) @binding(4) var<storage, read_write> answers: array<vec4<f32>>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i >= arrayLength(&queries) {
        return;
    }
    let q = queries[i];
    let influences = SinewInfluences(q.joints0, q.joints1, q.weights0, q.weights1);
    let p = PREVIOUS_POSITION(
        q.slot, q.stamp, q.offset, q.joint_count, influences, q.position.xyz);
    answers[i] = vec4<f32>(p, 1.0);
}
"#;

/// Runs [`QUERY_WGSL`] with `mode`'s helper over `queries` (24 words each) on `backend`'s
/// buffers.
fn previous_positions_on_gpu(
    backend: &GpuBackend,
    mode: SkinningMode,
    queries: &[u32],
) -> Vec<Vec3> {
    let ctx = gpu().unwrap();
    let device = &ctx.device;
    let helper = match mode {
        SkinningMode::Linear => "sinew_previous_skinned_position",
        SkinningMode::DualQuaternion => "sinew_previous_skinned_position_dual_quat",
    };
    let source = format!(
        "{}\n{}\n{}",
        skinning_wgsl(0, 0),
        previous_skinning_wgsl(0, 1, 2),
        QUERY_WGSL.replace("PREVIOUS_POSITION", helper)
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("previous position queries"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("previous position queries"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let count = queries.len() / 24;
    let query_buffer = wgpu::util::DeviceExt::create_buffer_init(
        device,
        &wgpu::util::BufferInitDescriptor {
            label: Some("queries"),
            contents: bytemuck::cast_slice(queries),
            usage: wgpu::BufferUsages::STORAGE,
        },
    );
    let answers = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("answers"),
        size: count as u64 * 16,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let previous = backend.previous_palette_segments().unwrap();
    let buffers = [
        &backend.palette_segments()[0].buffer,
        &previous[0].buffer,
        backend.evaluated_at_buffer().unwrap(),
        &query_buffer,
        &answers,
    ];
    let entries: Vec<wgpu::BindGroupEntry<'_>> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| wgpu::BindGroupEntry {
            binding: i as u32,
            resource: b.as_entire_binding(),
        })
        .collect();
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("previous position queries"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups((count as u32).div_ceil(64), 1, 1);
    }
    ctx.queue.submit([encoder.finish()]);
    let bytes = read_ranges(
        device,
        &ctx.queue,
        &[ReadRange {
            buffer: &answers,
            offset: 0,
            size: count as u64 * 16,
        }],
    )
    .unwrap();
    let values: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes[0]);
    values.iter().map(|v| Vec3::new(v[0], v[1], v[2])).collect()
}

/// The host helpers on the GPU: for a character evaluated every frame and one evaluated every
/// other frame, `sinew_previous_skinned_position` (linear blend) and
/// `sinew_previous_skinned_position_dual_quat` give, vertex for vertex, their CPU twins'
/// previous position (the stamp choosing previous or current entries), which is the position
/// shown last frame; on the humanoid and the many-influence chain, where the two skinnings
/// differ.
#[test]
fn host_helper_skins_the_pose_shown_last_frame() {
    let Some(ctx) = gpu() else { return };
    let mut apart = 0.0f32;
    for rig in [humanoid(), influences_rig()] {
        let rig_apart = host_helper_on(ctx, &rig);
        eprintln!(
            "{}: linear and dual-quaternion positions up to {rig_apart} apart",
            rig.name
        );
        apart = apart.max(rig_apart);
    }
    // The comparison tells the two skinnings apart.
    assert!(
        apart > 1e-3,
        "linear and dual-quaternion positions within {apart}"
    );
}

/// [`host_helper_skins_the_pose_shown_last_frame`] on `rig`; how far apart the two skinnings'
/// previous positions are.
fn host_helper_on(ctx: &sinew::GpuContext, rig: &Rig) -> f32 {
    let rigs = [rig.clone()];
    let records = vec![
        playing(rig, 0, 0.0, 1.0, 0),
        playing(rig, 1, 2.0, 1.0, every(2, 0)),
    ];
    let mesh = &rig.meshes[0];
    let vertices: Vec<usize> = (0..mesh.vertex_count()).step_by(7).take(200).collect();
    let twin = |mode, block: &[Mat3x4Rows], v: usize| {
        let (j, w, p) = (
            mesh.joints[v],
            mesh.weights[v],
            Vec3::from(mesh.positions[v]),
        );
        match mode {
            SkinningMode::Linear => previous_skinned_position(block, j, w, p),
            SkinningMode::DualQuaternion => previous_skinned_position_dual_quat(block, j, w, p),
        }
    };
    let mut apart = 0.0f32;
    for mode in [SkinningMode::Linear, SkinningMode::DualQuaternion] {
        let (mut backend, len) = keeping_previous(ctx, &rigs, &records);
        let mut shown: Vec<Vec<Vec3>> = Vec::new();
        for frame in 0..4u32 {
            backend
                .evaluate_at(0.2 + frame as f32 * 0.1, &records)
                .unwrap();
            let stamp = backend.evaluated_stamp();
            let stamps = backend.read_evaluated_at(0..2).unwrap();
            let palette = backend.read_palette(0..len as u32).unwrap();
            let mut queries = Vec::new();
            let mut want = Vec::new();
            let mut now_positions = Vec::new();
            for (s, rec) in records.iter().enumerate() {
                let start = rec.palette_offset as usize;
                let current = &palette[start..start + rig.joint_count()];
                let previous = backend
                    .read_previous_palette(rec.palette_offset, rig.joint_count() as u32)
                    .unwrap();
                let block = previous_block(stamps[s], stamp, &previous, current);
                for &v in &vertices {
                    let (j, w, p) = (mesh.joints[v], mesh.weights[v], mesh.positions[v]);
                    queries.extend([
                        s as u32,
                        rec.palette_offset,
                        rig.joint_count() as u32,
                        stamp,
                    ]);
                    queries.extend(j.iter().map(|&j| u32::from(j)));
                    queries.extend(w.iter().map(|w| w.to_bits()));
                    queries.extend(p.iter().map(|c| c.to_bits()));
                    queries.push(1f32.to_bits());
                    want.push(twin(mode, block, v));
                    now_positions.push(twin(mode, current, v));
                    let other = match mode {
                        SkinningMode::Linear => SkinningMode::DualQuaternion,
                        SkinningMode::DualQuaternion => SkinningMode::Linear,
                    };
                    apart = apart.max(twin(mode, block, v).distance(twin(other, block, v)));
                }
            }
            let got = previous_positions_on_gpu(&backend, mode, &queries);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    g.distance(*w) < 1e-4,
                    "{mode:?}, frame {frame}, query {i}: GPU {g} against CPU twin {w}"
                );
            }
            if frame > 0 {
                let off = max_distance(&got, &shown[frame as usize - 1]);
                assert!(
                    off < 1e-4,
                    "{mode:?}, frame {frame}: previous positions {off} off last frame's"
                );
                assert!(
                    max_distance(&got, &now_positions) > 1e-3,
                    "{mode:?}, frame {frame}: nothing moved"
                );
            }
            shown.push(now_positions);
        }
    }
    apart
}

/// `CpuBackend::keep_previous_palette`: every record is evaluated every frame, so after each
/// evaluation the previous palette holds the blocks of the one before and every slot the
/// evaluation's stamp; off by default.
#[test]
fn cpu_backend_keeps_the_previous_palette_when_asked() {
    let rig = humanoid();
    let rigs = vec![rig.clone()];
    let records = vec![playing(&rig, 0, 0.0, 1.0, 0), playing(&rig, 1, 2.0, 0.5, 0)];
    let len = palette_len(&rigs, &records);
    let mut cpu = sinew::CpuBackend::new(rigs, Vec::new()).unwrap();
    assert!(cpu.previous_palette().is_none());
    cpu.keep_previous_palette(true);
    let mut palette = vec![Mat3x4Rows::default(); len];
    let mut boxes = vec![sinew::Aabb::EMPTY; records.len()];
    let mut before = palette.clone();
    for frame in 0..3u32 {
        cpu.evaluate_at(0.2 + frame as f32 * 0.1, &records, &mut palette, &mut boxes)
            .unwrap();
        assert_eq!(cpu.evaluated_stamp(), frame + 1);
        let previous = cpu.previous_palette().unwrap();
        assert_eq!(previous.stamps(), [frame + 1, frame + 1]);
        for rec in &records {
            let start = rec.palette_offset as usize;
            let kept = start..start + rig.ik_entry_offset();
            assert_eq!(previous.entries()[kept.clone()], before[kept.clone()]);
            assert_ne!(
                palette[kept.clone()],
                before[kept],
                "frame {frame}: the pose moved"
            );
        }
        before = palette.clone();
    }
    cpu.keep_previous_palette(false);
    assert!(cpu.previous_palette().is_none());
}

/// The previous palette follows the palette's growth and its split into one buffer per window:
/// blocks kept before the palette grew are copied with it, and after each frame every block's
/// previous entries are the palette the frame before left, across a dozen buffers.
#[test]
fn previous_palette_follows_growth_into_windows() {
    let Some(ctx) = gpu() else { return };
    let rig = humanoid();
    let rigs = [rig.clone()];
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        previous_palette: true,
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let all: Vec<InstanceRecord> = (0..200)
        .map(|s| playing(&rig, s, s as f32 * 0.5, 1.0, 0))
        .collect();
    let block_len = rig.ik_entry_offset() as u32;
    let mut before: Option<(Vec<Mat3x4Rows>, usize)> = None;
    for (frame, count) in [(0u32, 20usize), (1, 200), (2, 200)] {
        let records = &all[..count];
        let len = palette_len(&rigs, records);
        backend.reserve_palette(len as u32).unwrap();
        backend
            .evaluate_at(0.1 + frame as f32 * 0.1, records)
            .unwrap();
        let segments = backend.previous_palette_segments().unwrap();
        let sizes = |s: &[sinew::gpu::PaletteSegment]| {
            s.iter()
                .map(|s| (s.first_entry, s.entries()))
                .collect::<Vec<_>>()
        };
        assert_eq!(sizes(segments), sizes(backend.palette_segments()));
        if let Some((palette, kept)) = &before {
            for rec in &records[..*kept] {
                let start = rec.palette_offset as usize;
                let previous = backend
                    .read_previous_palette(rec.palette_offset, block_len)
                    .unwrap();
                let what = format!("frame {frame}, block at {start}");
                assert_blocks_close(
                    &previous,
                    &palette[start..start + block_len as usize],
                    &what,
                );
            }
        }
        before = Some((backend.read_palette(0..len as u32).unwrap(), count));
    }
    assert!(
        backend.palette_segments().len() >= 8,
        "the palette spans several windows"
    );
}
