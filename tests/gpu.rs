//! The GPU pipeline against the CPU evaluator (its oracle), on every real asset, blends with
//! masks and additive layers, synthetic extremes (a 256-joint chain, a 256-joint fan), random
//! crowds, AABBs against skinned vertices, dispatch counts, palette growth and the `pose` command.
//!
//! One device and one pipeline serve the whole file: some drivers compile a pipeline only at its
//! first dispatch, and slowly. Without an adapter the tests print why and pass, except under
//! `REQUIRE_GPU=1`, where a missing adapter fails them. `WGPU_BACKEND` picks the backend.

mod common;
#[path = "gpu/compressed.rs"]
mod compressed;
#[path = "gpu/ik.rs"]
mod ik;
#[path = "gpu/lod.rs"]
mod lod;

use common::Rng;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};
use sinew::gpu::{EvaluateShape, GpuOptions};
use sinew::import::{RawClip, RawMesh, RawNode, RawSkin, RawTrack};
use sinew::report::PoseReport;
use sinew::{
    Aabb, BlendMode, Channel, CpuBackend, EvalError, GpuBackend, GpuContext, GpuError,
    InstanceRecord, Interpolation, JointMask, Layer, Mat3x4Rows, PaletteBlock, RawAsset, Rig, Sqt,
    TimeWrap,
};

// ---------------------------------------------------------------------------------------------
// The shared device.

struct Gpu {
    context: GpuContext,
}

static GPU: LazyLock<Option<Gpu>> = LazyLock::new(|| {
    let context = common::headless_gpu("GPU tests")?;
    // Creating the pipeline and running it once: drivers that compile lazily do it here.
    let start = Instant::now();
    let rig = chain_rig(4);
    let mut backend = GpuBackend::new(&context, &[rig], &[]).unwrap();
    let record = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(0, 0.5)]).unwrap();
    backend.evaluate(&[record]).unwrap();
    backend.read_bounds(0..1).unwrap();
    let first: Duration = start.elapsed();
    eprintln!(
        "GPU tests on {}: first dispatch (pipeline creation and compile) took {first:.2?}",
        context.adapter_summary()
    );
    Some(Gpu { context })
});

/// A second context with the evaluate shape the shared one does not have, where the device
/// allows it (the wide shape needs 32 KiB of workgroup memory).
static OTHER_SHAPE: LazyLock<Option<GpuContext>> = LazyLock::new(|| {
    let shape = gpu()?.evaluate_shape();
    let other = if shape == EvaluateShape::WIDE {
        EvaluateShape::NARROW
    } else {
        EvaluateShape::WIDE
    };
    let mut context = common::headless_gpu("GPU tests of the other evaluate shape")?;
    match context.set_evaluate_shape(other) {
        Ok(()) => Some(context),
        Err(e) => {
            eprintln!("only the {shape:?} evaluate shape runs here: {e}");
            None
        }
    }
});

/// The shared context, then one of the other evaluate shape where the device runs it.
fn every_shape() -> Vec<&'static GpuContext> {
    gpu().into_iter().chain(OTHER_SHAPE.as_ref()).collect()
}

/// The shared context, or `None` (after printing why) when no adapter exists.
fn gpu() -> Option<&'static GpuContext> {
    GPU.as_ref().map(|g| &g.context)
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness.

impl Rng {
    fn world(&mut self) -> Affine3A {
        let axis = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), 1.0).normalize();
        Affine3A::from_scale_rotation_translation(
            Vec3::new(
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
                self.range(0.5, 2.0),
            ),
            Quat::from_axis_angle(axis, self.range(-3.0, 3.0)),
            Vec3::new(
                self.range(-50.0, 50.0),
                self.range(-5.0, 5.0),
                self.range(-50.0, 50.0),
            ),
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Assets.

fn load(path: &Path) -> Vec<Rig> {
    let asset = sinew::import_file(path).unwrap_or_else(|e| panic!("{e}"));
    sinew::bake_rigs(&asset).unwrap_or_else(|e| panic!("{e}"))
}

fn shared_file(name: &str) -> Option<PathBuf> {
    common::shared().map(|s| s.join("gltf").join(name))
}

fn repo_file(name: &str) -> Option<PathBuf> {
    let path = common::repo().join("assets").join(name);
    path.is_file().then_some(path)
}

/// A rig read from `assets/` when the file is there, else `fallback`.
fn repo_rig_or(name: &str, fallback: impl FnOnce() -> Rig) -> Rig {
    match repo_file(name) {
        Some(path) => load(&path).remove(0),
        None => {
            eprintln!("assets/{name} not found: using an equivalent rig built in the test");
            fallback()
        }
    }
}

/// An in-memory skinned rig over `parents` (each before its children), with a clip of every
/// interpolation mode and one vertex per joint.
fn synthetic_rig(name: &str, parents: &[Option<usize>], offset: Vec3) -> Rig {
    Rig::from_skin(&synthetic_asset(name, parents, offset), 0).unwrap()
}

/// The raw data of [`synthetic_rig`].
fn synthetic_asset(name: &str, parents: &[Option<usize>], offset: Vec3) -> RawAsset {
    let n = parents.len();
    let mut asset = RawAsset {
        file: format!("<{name}>"),
        ..Default::default()
    };
    for (j, &parent) in parents.iter().enumerate() {
        asset.nodes.push(RawNode {
            name: format!("{name}{j}"),
            parent,
            rest: Sqt {
                translation: if parent.is_some() { offset } else { Vec3::ZERO },
                rotation: Quat::from_rotation_z(0.02 * (j % 7) as f32),
                scale: Vec3::ONE,
            },
        });
    }
    let mut globals: Vec<Affine3A> = Vec::with_capacity(n);
    for (j, node) in asset.nodes.iter().enumerate() {
        let local = node.rest.to_affine();
        let g = parents[j].map_or(local, |p| globals[p] * local);
        globals.push(g);
    }
    asset.skins.push(RawSkin {
        name: Some(name.to_string()),
        joints: (0..n).collect(),
        inverse_binds: globals.iter().map(|g| Mat4::from(g.inverse())).collect(),
        skeleton_root: Some(0),
        mesh_nodes: Vec::new(),
    });
    let times = [0.0, 0.4, 1.0, 1.5];
    let rot = |j: usize, k: usize| {
        Quat::from_euler(
            glam::EulerRot::XYZ,
            0.3 * ((j + k) % 5) as f32 - 0.6,
            0.2 * k as f32,
            0.1 * (j % 3) as f32,
        )
    };
    let track = |target, channel, interpolation, values: Vec<Vec4>| RawTrack {
        target,
        channel,
        interpolation,
        times: times.to_vec(),
        values,
    };
    let linear = (0..n)
        .map(|j| {
            track(
                j,
                Channel::Rotation,
                Interpolation::Linear,
                (0..4).map(|k| Vec4::from(rot(j, k))).collect(),
            )
        })
        .collect();
    let step = (0..n)
        .step_by(3)
        .map(|j| {
            track(
                j,
                Channel::Translation,
                Interpolation::Step,
                (0..4)
                    .map(|k| (offset * (1.0 + 0.1 * k as f32)).extend(0.0))
                    .collect(),
            )
        })
        .collect();
    let cubic = (0..n)
        .map(|j| {
            track(
                j,
                Channel::Scale,
                Interpolation::CubicSpline,
                (0..4)
                    .flat_map(|k| {
                        let v = Vec4::new(1.0 + 0.05 * k as f32, 1.0, 1.0 - 0.03 * k as f32, 0.0);
                        [Vec4::splat(0.1), v, Vec4::splat(-0.2)]
                    })
                    .collect(),
            )
        })
        .collect();
    asset.clips = vec![
        RawClip {
            name: "linear".into(),
            tracks: linear,
            weights: Vec::new(),
        },
        RawClip {
            name: "step".into(),
            tracks: step,
            weights: Vec::new(),
        },
        RawClip {
            name: "cubic".into(),
            tracks: cubic,
            weights: Vec::new(),
        },
    ];
    let positions: Vec<[f32; 3]> = globals
        .iter()
        .map(|g| (g.translation + glam::Vec3A::new(0.01, 0.02, 0.0)).to_array())
        .collect();
    asset.meshes.push(RawMesh {
        name: format!("{name} mesh"),
        node: 0,
        skin: Some(0),
        normals: vec![[0.0, 1.0, 0.0]; n],
        uvs: vec![[0.0; 2]; n],
        tangents: None,
        uvs1: None,
        colors: None,
        material: None,
        joints: (0..n).map(|j| common::eight([j as u16, 0, 0, 0])).collect(),
        weights: vec![common::eight([1.0, 0.0, 0.0, 0.0]); n],
        indices: Vec::new(),
        positions,
        targets: Vec::new(),
        influences_cut: 0,
    });
    asset
}

fn chain_rig(n: usize) -> Rig {
    let parents: Vec<Option<usize>> = (0..n).map(|j| j.checked_sub(1)).collect();
    synthetic_rig("chain", &parents, Vec3::new(0.0, 0.1, 0.0))
}

fn fan_rig(n: usize) -> Rig {
    let parents: Vec<Option<usize>> = (0..n).map(|j| (j > 0).then_some(0)).collect();
    synthetic_rig("fan", &parents, Vec3::new(0.3, 0.0, 0.1))
}

// ---------------------------------------------------------------------------------------------
// GPU == CPU.

/// Times worth sampling in a clip of length `d`: before the first key, on and between keys,
/// after the last.
fn sample_times(rig: &Rig, clip: usize) -> Vec<f32> {
    let d = rig.clips.clips()[clip].duration;
    let mut times = vec![
        -0.25 * d,
        0.0,
        0.07 * d,
        0.25 * d,
        d / 3.0,
        0.5 * d,
        0.61 * d,
        0.75 * d,
        0.93 * d,
        d,
        1.3 * d,
    ];
    // Exact key times of the first animated track.
    if let Some(desc) = rig.clips.tracks()[clip * rig.joint_count() * 3..]
        .iter()
        .take(rig.joint_count() * 3)
        .find(|t| t.time_offset != 0 && t.key_count > 2)
    {
        let t0 = desc.time_offset as usize;
        times.push(rig.clips.times()[t0 + 1]);
        times.push(rig.clips.times()[t0 + desc.key_count as usize - 2]);
    }
    times
}

/// Palette length covering every record.
fn palette_len(backend_rigs: &[Rig], records: &[InstanceRecord]) -> usize {
    records
        .iter()
        .map(|r| r.palette_offset as usize + backend_rigs[r.rig as usize].palette_entries())
        .max()
        .unwrap_or(0)
}

/// Records laid out one after the other in the palette.
fn pack(rigs: &[Rig], items: &[(u32, u32, Affine3A, Vec<Layer>)]) -> Vec<InstanceRecord> {
    let mut offset = 0;
    items
        .iter()
        .map(|(rig, flags, world, layers)| {
            let mut rec = InstanceRecord::new(*rig, offset, world, layers).unwrap();
            rec.flags = *flags;
            offset += rigs[*rig as usize].palette_entries() as u32;
            rec
        })
        .collect()
}

/// Tolerance of element `i` of column-major `b`: [`common::MATRIX_TOLERANCE`] relative to the
/// largest magnitude in its column (a scaled axis, or the translation), at least 1.
///
/// GPU and CPU round differently (fused multiply-adds, quaternion product order), and a few ULP
/// in a local rotation move a joint 20 to 100 units down the chain by about 1e-5 of that
/// distance. An element that cancels to near zero beside entries of 50 cannot be held to 1e-4 of
/// its own size; it can be held to 1e-4 of its column's.
fn element_tolerance(b: &[f32; 16], i: usize) -> f32 {
    let column = &b[i / 4 * 4..i / 4 * 4 + 3];
    let scale = column.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    common::MATRIX_TOLERANCE * scale
}

fn matrix_close(a: &[f32; 16], b: &[f32; 16]) -> bool {
    (0..16).all(|i| (a[i] - b[i]).abs() <= element_tolerance(b, i))
}

/// Asserts [`matrix_close`], printing both matrices and the offending element on failure.
fn assert_transform_close(a: &[f32; 16], b: &[f32; 16], what: &str) {
    for i in 0..16 {
        let tol = element_tolerance(b, i);
        assert!(
            (a[i] - b[i]).abs() <= tol,
            "{what}: element {i} differs by {} (tolerance {tol})\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// Asserts that `gpu` contains `cpu` within the AABB tolerance and is close to it.
fn assert_bounds_match(gpu: &Aabb, cpu: &Aabb, what: &str) {
    if cpu.is_empty() {
        assert!(gpu.is_empty(), "{what}: CPU box is empty, GPU box {gpu:?}");
        return;
    }
    for i in 0..3 {
        let tol = |v: f32| common::AABB_TOLERANCE * v.abs().max(1.0);
        let ok = gpu.min[i] <= cpu.min[i] + tol(cpu.min[i])
            && gpu.max[i] >= cpu.max[i] - tol(cpu.max[i])
            && (gpu.min[i] - cpu.min[i]).abs() <= tol(cpu.min[i])
            && (gpu.max[i] - cpu.max[i]).abs() <= tol(cpu.max[i]);
        assert!(
            ok,
            "{what}: axis {i}\n  GPU {gpu:?}\n  CPU {cpu:?}\n  min diff {} max diff {}",
            gpu.min[i] - cpu.min[i],
            gpu.max[i] - cpu.max[i]
        );
    }
}

/// CPU palette and AABBs of `records` (in record order).
fn cpu_evaluate(
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
) -> (Vec<Mat3x4Rows>, Vec<Aabb>) {
    cpu_evaluate_at(rigs, masks, records, 0.0)
}

fn cpu_evaluate_at(
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    now: f32,
) -> (Vec<Mat3x4Rows>, Vec<Aabb>) {
    // The CPU backend wants ascending palette offsets: evaluate a sorted copy.
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| records[i].palette_offset);
    let sorted: Vec<InstanceRecord> = order.iter().map(|&i| records[i]).collect();
    let mut palette = vec![Mat3x4Rows::IDENTITY; palette_len(rigs, records)];
    let mut sorted_bounds = vec![Aabb::EMPTY; records.len()];
    CpuBackend::new(rigs.to_vec(), masks.to_vec())
        .unwrap()
        .evaluate_at(now, &sorted, &mut palette, &mut sorted_bounds)
        .unwrap();
    let mut bounds = vec![Aabb::EMPTY; records.len()];
    for (k, &i) in order.iter().enumerate() {
        bounds[i] = sorted_bounds[k];
    }
    (palette, bounds)
}

/// Evaluates `records` on `backend` and on the CPU and asserts that every palette entry and
/// every AABB agree. `describe(i)` names record `i` in failures.
fn assert_backend_matches_cpu(
    backend: &mut GpuBackend,
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    describe: &dyn Fn(usize) -> String,
) {
    let len = palette_len(rigs, records);
    backend.reserve_palette(len as u32).unwrap();
    backend.evaluate(records).unwrap();
    assert_evaluated_matches_cpu(backend, rigs, masks, records, 0.0, describe);
}

/// Compares what the backend evaluated last (the records `records`, slot `i` = record `i`, at
/// frame time `now`) with the CPU evaluator.
fn assert_evaluated_matches_cpu(
    backend: &mut GpuBackend,
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    now: f32,
    describe: &dyn Fn(usize) -> String,
) {
    let len = palette_len(rigs, records);
    let gpu_palette = backend.read_palette(0..len as u32).unwrap();
    let gpu_bounds = backend.read_bounds(0..records.len()).unwrap();
    let (cpu_palette, cpu_bounds) = cpu_evaluate_at(rigs, masks, records, now);
    for (i, rec) in records.iter().enumerate() {
        let rig = &rigs[rec.rig as usize];
        let n = rig.joint_count();
        let start = rec.palette_offset as usize;
        for j in 0..n {
            let g = gpu_palette[start + j].to_cols_array();
            let c = cpu_palette[start + j].to_cols_array();
            if !matrix_close(&g, &c) {
                assert_transform_close(&g, &c, &format!("{} joint {j}", describe(i)));
            }
        }
        let block = start..start + rig.palette_entries();
        common::assert_vec_close(
            &sinew::cpu::morph_weights(rig, &gpu_palette[block.clone()]),
            &sinew::cpu::morph_weights(rig, &cpu_palette[block]),
            common::WEIGHT_TOLERANCE,
            &format!("{} morph weights", describe(i)),
        );
        assert_bounds_match(&gpu_bounds[i], &cpu_bounds[i], &describe(i));
    }
}

fn all_assets() -> Vec<PathBuf> {
    let mut files = common::shared_assets();
    files.extend(common::repo_assets());
    files.extend(common::fbx_assets());
    files
}

/// One record per rig at rest, then one per clip and sample time of each rig (every other one
/// under a random world): the items every-asset comparisons pack.
fn every_clip_items(rigs: &[Rig], rng: &mut Rng) -> Vec<(u32, u32, Affine3A, Vec<Layer>)> {
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        items.push((r as u32, 0, Affine3A::IDENTITY, Vec::new()));
        for clip in 0..rig.clips.clip_count() {
            for (k, t) in sample_times(rig, clip).into_iter().enumerate() {
                let world = if k % 2 == 0 {
                    Affine3A::IDENTITY
                } else {
                    rng.world()
                };
                items.push((r as u32, 0, world, vec![Layer::clip(clip as u32, t)]));
            }
        }
    }
    items
}

#[test]
fn every_asset_matches_cpu_on_every_clip_and_time() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(1);
    let files = all_assets();
    assert!(!files.is_empty());
    for path in files {
        let rigs = load(&path);
        let items = every_clip_items(&rigs, &mut rng);
        let records = pack(&rigs, &items);
        let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
            let (r, _, _, layers) = &items[i];
            format!("{name} rig {r} layers {layers:?}")
        });
        // Model matrices recovered by readback agree with the CPU's.
        let chosen: Vec<usize> = (0..records.len()).step_by(7).collect();
        for read in backend.read_instances(&records, &chosen).unwrap() {
            let rec = &records[read.record];
            let rig = &rigs[rec.rig as usize];
            let n = rig.joint_count();
            let mut models = vec![Affine3A::IDENTITY; n];
            let mut palette = vec![Mat3x4Rows::IDENTITY; n];
            let layers: Vec<Layer> = rec.layers_at(0.0).collect();
            sinew::cpu::evaluate_pose(
                rig,
                &[],
                &layers,
                &rec.world.to_affine(),
                &mut models,
                &mut palette,
            );
            assert_eq!(read.models.len(), n);
            for (j, (got, expected)) in read.models.iter().zip(&models).enumerate() {
                assert_transform_close(
                    &Mat4::from(*got).to_cols_array(),
                    &Mat4::from(*expected).to_cols_array(),
                    &format!("{name} record {} joint {j} model", read.record),
                );
            }
        }
    }
}

/// A few masks of `rig`: a subtree, its inverse, a uniform half and a random one.
fn masks_for(rig: &Rig, rng: &mut Rng) -> Vec<JointMask> {
    let sk = &rig.skeleton;
    let mid = sk.names()[sk.joint_count() / 3].clone();
    let subtree = JointMask::from_subtrees(sk, &[&mid]).unwrap();
    let inverted = subtree.inverted();
    let random = JointMask {
        weights: (0..sk.joint_count()).map(|_| rng.range(0.0, 1.0)).collect(),
    };
    vec![subtree, inverted, JointMask::uniform(sk, 0.5), random]
}

/// 1 to 4 random layers of `rig` (masks `mask_base..mask_base + mask_count`).
fn random_layers(
    rig: &Rig,
    rng: &mut Rng,
    mask_base: u32,
    mask_count: u32,
    layers: usize,
) -> Vec<Layer> {
    let clips = rig.clips.clip_count();
    (0..layers)
        .map(|k| {
            let clip = rng.below(clips) as u32;
            let d = rig.clips.clips()[clip as usize].duration;
            let weight = match rng.below(6) {
                0 => 1.0,
                1 => 0.0,
                2 => 1.25,
                _ => rng.range(0.05, 0.95),
            };
            Layer {
                clip,
                time: rng.range(-0.1 * d, 1.1 * d),
                weight: if k == 0 { 1.0 } else { weight },
                mask: (k > 0 && mask_count > 0 && rng.below(2) == 0)
                    .then(|| mask_base + rng.below(mask_count as usize) as u32),
                mode: if k > 0 && rng.below(3) == 0 {
                    BlendMode::Additive
                } else {
                    BlendMode::Override
                },
            }
        })
        .collect()
}

/// Random root-motion flags for a rig of `n` joints (0 half the time).
fn random_flags(rng: &mut Rng, n: usize) -> u32 {
    if rng.below(2) == 0 {
        return 0;
    }
    let joint = rng.below(n.min(256)) as u32;
    let holds = [
        InstanceRecord::HOLD_ROOT_XZ,
        InstanceRecord::HOLD_ROOT_XYZ,
        InstanceRecord::HOLD_ROOT_YAW,
        InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW,
    ];
    joint | holds[rng.below(holds.len())]
}

fn blend_rigs() -> Vec<Rig> {
    let mut rigs = Vec::new();
    for name in ["Fox.glb", "RobotExpressive.glb", "CesiumMan.glb"] {
        if let Some(path) = shared_file(name) {
            rigs.extend(load(&path));
        }
    }
    for name in ["humanoid.glb", "synthetic/morph.glb"] {
        if let Some(path) = repo_file(name) {
            rigs.extend(load(&path));
        }
    }
    rigs.push(chain_rig(40));
    rigs
}

/// Random masks for every rig, concatenated, and each rig's `(first, count)` in them.
fn masks_for_all(rigs: &[Rig], rng: &mut Rng) -> (Vec<JointMask>, Vec<(u32, u32)>) {
    let mut masks = Vec::new();
    let mut ranges = Vec::new();
    for rig in rigs {
        let m = masks_for(rig, rng);
        ranges.push((masks.len() as u32, m.len() as u32));
        masks.extend(m);
    }
    (masks, ranges)
}

#[test]
fn layered_blends_with_masks_additive_layers_and_root_holds_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(2);
    let rigs = blend_rigs();
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..120 {
            let layers = random_layers(rig, &mut rng, base, count, 2 + k % 3);
            let flags = random_flags(&mut rng, rig.joint_count());
            items.push((r as u32, flags, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &masks, &records, &|i| {
        let (r, flags, _, layers) = &items[i];
        format!(
            "rig {} flags {flags:#x} layers {layers:?}",
            rigs[*r as usize].name
        )
    });
}

#[test]
fn the_same_records_give_bitwise_identical_palettes_and_bounds_on_fresh_backends() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(45);
    let rigs = blend_rigs();
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..40 {
            let layers = random_layers(rig, &mut rng, base, count, 1 + k % 4);
            let flags = random_flags(&mut rng, rig.joint_count());
            items.push((r as u32, flags, rng.world(), layers));
        }
    }
    let mut records = pack(&rigs, &items);
    shuffle(&mut records, &mut rng);
    let len = palette_len(&rigs, &records) as u32;
    let run = || {
        let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
        backend.reserve_palette(len).unwrap();
        backend.evaluate_at(0.7, &records).unwrap();
        let palette: Vec<[[u32; 4]; 3]> = backend
            .read_palette(0..len)
            .unwrap()
            .iter()
            .map(|m| m.rows.map(|row| row.map(f32::to_bits)))
            .collect();
        let bounds: Vec<[[u32; 4]; 2]> = backend
            .read_bounds(0..records.len())
            .unwrap()
            .iter()
            .map(|b| [b.min.map(f32::to_bits), b.max.map(f32::to_bits)])
            .collect();
        (palette, bounds)
    };
    let (first_palette, first_bounds) = run();
    let (second_palette, second_bounds) = run();
    assert_eq!(first_palette.len(), len as usize);
    let entry = first_palette
        .iter()
        .zip(&second_palette)
        .position(|(a, b)| a != b);
    assert_eq!(entry, None, "palette entry differs between runs");
    let aabb = first_bounds
        .iter()
        .zip(&second_bounds)
        .position(|(a, b)| a != b);
    assert_eq!(aabb, None, "AABB differs between runs");
}

#[test]
fn synthetic_chain_and_fan_of_256_joints_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(3);
    let rigs = vec![
        repo_rig_or("synthetic/chain256.glb", || chain_rig(256)),
        repo_rig_or("synthetic/fan.glb", || fan_rig(256)),
    ];
    assert_eq!(rigs[0].joint_count(), 256);
    assert_eq!(rigs[0].skeleton.level_count(), 256);
    assert_eq!(rigs[1].joint_count(), 256);
    assert_eq!(rigs[1].skeleton.level_count(), 2);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        for clip in 0..rig.clips.clip_count() {
            for t in sample_times(rig, clip) {
                items.push((r as u32, 0, rng.world(), vec![Layer::clip(clip as u32, t)]));
            }
        }
        for _ in 0..8 {
            let layers = random_layers(rig, &mut rng, 0, 0, 2);
            items.push((r as u32, 0, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        let (r, _, _, layers) = &items[i];
        format!("rig {} layers {layers:?}", rigs[*r as usize].name)
    });
}

fn crowd_rigs() -> Vec<Rig> {
    let mut rigs = Vec::new();
    for name in [
        "Fox.glb",
        "CesiumMan.glb",
        "RiggedFigure.glb",
        "RiggedSimple.glb",
    ] {
        if let Some(path) = shared_file(name) {
            rigs.extend(load(&path));
        }
    }
    if common::shared().is_some() {
        assert!(
            rigs.len() >= 4,
            "the shared rigs of the mixed crowd did not load"
        );
    }
    rigs.push(repo_rig_or("synthetic/rig64.glb", || chain_rig(64)));
    rigs.push(repo_rig_or("humanoid.glb", || fan_rig(57)));
    rigs.push(repo_rig_or("synthetic/morph.glb", || chain_rig(3)));
    rigs
}

#[test]
fn random_crowd_of_mixed_rigs_in_any_order_matches_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(4);
    let rigs = crowd_rigs();
    let masks: Vec<JointMask> = rigs
        .iter()
        .map(|r| masks_for(r, &mut rng).remove(0))
        .collect();
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    // Churn the allocator so blocks land in holes, out of record order.
    let mut blocks: Vec<(u32, PaletteBlock)> = Vec::new();
    let mut records = Vec::new();
    let mut described = Vec::new();
    while records.len() < 1200 {
        let r = rng.below(rigs.len()) as u32;
        let block = backend.allocate(r).unwrap();
        if rng.below(5) == 0 {
            blocks.push((r, block));
            continue;
        }
        let rig = &rigs[r as usize];
        let count = 1 + rng.below(3);
        let layers = random_layers(rig, &mut rng, r, 1, count);
        let mut rec = InstanceRecord::new(r, block.offset, &rng.world(), &layers).unwrap();
        rec.flags = random_flags(&mut rng, rig.joint_count());
        described.push(format!("rig {} layers {layers:?}", rig.name));
        records.push(rec);
        if rng.below(4) == 0
            && let Some((_, b)) = blocks.pop()
        {
            backend.free(b).unwrap();
        }
    }
    assert!(
        records
            .windows(2)
            .any(|w| w[0].palette_offset > w[1].palette_offset),
        "the crowd should not be in palette order"
    );
    assert_backend_matches_cpu(&mut backend, &rigs, &masks, &records, &|i| {
        format!("crowd record {i}: {}", described[i])
    });
    assert_eq!(backend.dispatches_last_frame(), 1);
}

#[test]
fn runs_of_one_rig_evaluated_together_in_a_workgroup_match_cpu() {
    let contexts = every_shape();
    if contexts.is_empty() {
        return;
    }
    // Every device runs the narrow shape.
    assert!(
        contexts
            .iter()
            .any(|c| c.evaluate_shape() == EvaluateShape::NARROW)
    );
    let mut rng = Rng(21);
    // 3 joints: a whole workgroup's slots in one pass; 64: exactly four (narrow shape) or
    // eight (wide) fit; 100: two or five per pass; 256: one or two per pass.
    let rigs = vec![
        chain_rig(3),
        repo_rig_or("synthetic/rig64.glb", || chain_rig(64)),
        fan_rig(100),
        repo_rig_or("synthetic/chain256.glb", || chain_rig(256)),
    ];
    assert_eq!(rigs[1].joint_count(), 64);
    assert_eq!(rigs[3].joint_count(), 256);
    let mut items = Vec::new();
    // Runs of every length from 1 to 9 of each rig, so passes start and end at every place in
    // a workgroup and break where the rig changes or its joints no longer fit.
    for len in 1..=9 {
        for (r, rig) in rigs.iter().enumerate() {
            for _ in 0..len {
                let count = 1 + rng.below(3);
                let layers = random_layers(rig, &mut rng, 0, 0, count);
                let flags = random_flags(&mut rng, rig.joint_count());
                items.push((r as u32, flags, rng.world(), layers));
            }
        }
    }
    let records = pack(&rigs, &items);
    // Every shape the device runs (both on Mesa's lavapipe and llvmpipe).
    for ctx in contexts {
        let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
        let shape = backend.evaluate_shape();
        assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
            let (r, _, _, layers) = &items[i];
            format!(
                "{shape:?}, record {i}: rig {} layers {layers:?}",
                rigs[*r as usize].name
            )
        });
    }
}

#[test]
fn gpu_aabb_contains_every_skinned_vertex() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(5);
    for path in all_assets() {
        let rigs = load(&path);
        if rigs.iter().all(|r| r.meshes.is_empty()) {
            continue;
        }
        let mut items = Vec::new();
        for (r, rig) in rigs.iter().enumerate() {
            if rig.meshes.is_empty() {
                continue;
            }
            items.push((r as u32, 0, rng.world(), Vec::new()));
            for clip in 0..rig.clips.clip_count() {
                let d = rig.clips.clips()[clip].duration;
                for t in [0.0, 0.37 * d, 0.8 * d] {
                    items.push((r as u32, 0, rng.world(), vec![Layer::clip(clip as u32, t)]));
                }
            }
        }
        let records = pack(&rigs, &items);
        let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
        let len = palette_len(&rigs, &records);
        backend.reserve_palette(len as u32).unwrap();
        backend.evaluate(&records).unwrap();
        // The vertices are skinned on the CPU, with the CPU evaluator's palette: the GPU box
        // must hold the oracle's mesh, not just its own.
        let (palette, _) = cpu_evaluate(&rigs, &[], &records);
        let bounds = backend.read_bounds(0..records.len()).unwrap();
        for (i, rec) in records.iter().enumerate() {
            let rig = &rigs[rec.rig as usize];
            let skin: Vec<Affine3A> = palette[rec.palette_offset as usize..][..rig.joint_count()]
                .iter()
                .map(Mat3x4Rows::to_affine)
                .collect();
            let b = bounds[i];
            for mesh in &rig.meshes {
                for (v, p) in mesh.positions.iter().enumerate() {
                    let p = Vec3::from(*p);
                    let mut q = Vec3::ZERO;
                    for k in 0..sinew::MAX_INFLUENCES {
                        let w = mesh.weights[v][k];
                        if w > 0.0 {
                            q += skin[mesh.joints[v][k] as usize].transform_point3(p) * w;
                        }
                    }
                    let tol = common::AABB_TOLERANCE * q.abs().max_element().max(1.0);
                    assert!(
                        b.contains(q, tol),
                        "{} record {i} mesh {} vertex {v} at {q} outside {b:?}",
                        path.display(),
                        mesh.name
                    );
                }
            }
        }
    }
}

#[test]
fn dispatch_count_does_not_grow_with_instance_count() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(6);
    let rigs = vec![chain_rig(3)];
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    let mut counts = Vec::new();
    for n in [1_000usize, 100_000] {
        let items: Vec<_> = (0..n)
            .map(|_| {
                let count = 1 + rng.below(2);
                let layers = random_layers(&rigs[0], &mut rng, 0, 0, count);
                (0u32, 0u32, rng.world(), layers)
            })
            .collect();
        let records = pack(&rigs, &items);
        backend.reserve_palette((3 * n) as u32).unwrap();
        let start = Instant::now();
        backend.evaluate(&records).unwrap();
        backend.wait().unwrap();
        eprintln!(
            "{n} instances of a 3-joint rig: {:.2?} (upload + dispatch + wait), {} dispatch(es), {:.1} bytes written per joint",
            start.elapsed(),
            backend.dispatches_last_frame(),
            backend.bytes_written_per_joint()
        );
        counts.push(backend.dispatches_last_frame());
        assert_eq!(backend.last_frame().joints, 3 * n as u64);
        let per_joint = backend.bytes_written_per_joint();
        assert!(
            (per_joint - (48.0 + 32.0 / 3.0)).abs() < 1e-9,
            "{per_joint}"
        );
        // Spot-check records spread over the whole grid (both grid dimensions at 100k).
        let chosen: Vec<usize> = (0..40).map(|k| k * (n - 1) / 39).collect();
        let read = backend.read_instances(&records, &chosen).unwrap();
        for got in read {
            let rec = &records[got.record];
            let mut models = vec![Affine3A::IDENTITY; 3];
            let mut palette = vec![Mat3x4Rows::IDENTITY; 3];
            let layers: Vec<Layer> = rec.layers_at(0.0).collect();
            let aabb = sinew::cpu::evaluate_pose(
                &rigs[0],
                &[],
                &layers,
                &rec.world.to_affine(),
                &mut models,
                &mut palette,
            );
            for (j, (g, c)) in got.palette.iter().zip(&palette).enumerate() {
                assert_transform_close(
                    &g.to_cols_array(),
                    &c.to_cols_array(),
                    &format!("{n} instances, record {} joint {j}", got.record),
                );
            }
            assert_bounds_match(
                &got.bounds,
                &aabb,
                &format!("{n} instances, record {}", got.record),
            );
        }
    }
    assert_eq!(
        counts[0], counts[1],
        "dispatches at 1,000 vs 100,000 instances"
    );
    assert_eq!(counts[0], 1);
}

#[test]
fn palette_growth_and_reuse_keep_existing_blocks() {
    let Some(ctx) = gpu() else { return };
    let rigs = vec![chain_rig(24)];
    let options = GpuOptions {
        initial_palette_entries: 64,
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let a = backend.allocate(0).unwrap();
    let b = backend.allocate(0).unwrap();
    assert_eq!((a.offset, b.offset), (0, 24));
    let world = Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let records = [
        InstanceRecord::new(0, a.offset, &world, &[Layer::clip(0, 0.3)]).unwrap(),
        InstanceRecord::new(0, b.offset, &world, &[Layer::clip(2, 0.9)]).unwrap(),
    ];
    backend.evaluate(&records).unwrap();
    let before = backend.read_palette(0..48).unwrap();
    // Twenty more blocks: the palette grows (several times) by copying on the GPU.
    let more: Vec<PaletteBlock> = (0..20).map(|_| backend.allocate(0).unwrap()).collect();
    assert!(backend.palette_capacity() >= 22 * 24);
    assert_eq!(backend.read_palette(0..48).unwrap(), before);
    // Free A and a middle block; first fit reuses A's entries; B is untouched by a frame that
    // does not include it.
    backend.free(a).unwrap();
    assert!(matches!(backend.free(a), Err(GpuError::BadBlock { .. })));
    backend.free(more[5]).unwrap();
    let c = backend.allocate(0).unwrap();
    assert_eq!(c.offset, a.offset);
    let frame = [InstanceRecord::new(0, c.offset, &world, &[Layer::clip(1, 1.2)]).unwrap()];
    backend.evaluate(&frame).unwrap();
    assert_eq!(backend.read_palette(24..48).unwrap(), before[24..48]);
    let (cpu, _) = cpu_evaluate(&rigs, &[], &frame);
    let gpu = backend.read_palette(0..24).unwrap();
    for j in 0..24 {
        assert_transform_close(
            &gpu[j].to_cols_array(),
            &cpu[j].to_cols_array(),
            &format!("reused block joint {j}"),
        );
    }
    for blk in more
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 5)
        .map(|(_, b)| *b)
    {
        backend.free(blk).unwrap();
    }
    backend.free(b).unwrap();
    backend.free(c).unwrap();
}

#[test]
fn palette_allocator_churn_never_overlaps_or_leaks() {
    // No device needed: the bookkeeping behind `GpuBackend::allocate` and `free`.
    let mut rng = Rng(8);
    let mut a = sinew::PaletteAllocator::with_capacity(1024);
    let mut live: Vec<PaletteBlock> = Vec::new();
    for step in 0..20_000 {
        if live.len() < 60 && rng.below(3) != 0 {
            live.push(a.allocate(1 + rng.below(67) as u32).unwrap());
        } else if !live.is_empty() {
            let i = rng.below(live.len());
            assert!(a.free(live.swap_remove(i)));
        }
        if step % 500 == 0 {
            let mut sorted = live.clone();
            sorted.sort_by_key(|b| b.offset);
            for w in sorted.windows(2) {
                assert!(w[0].end() <= w[1].offset, "{w:?} overlap");
            }
            assert!(sorted.last().is_none_or(|b| b.end() <= a.capacity()));
            assert_eq!(a.used(), live.iter().map(|b| b.len).sum::<u32>());
        }
    }
    for b in live.drain(..) {
        assert!(a.free(b));
    }
    assert_eq!((a.used(), a.free_ranges()), (0, 1));
    assert!(
        a.capacity() <= 4 * 60 * 67,
        "capacity grew to {}",
        a.capacity()
    );
}

/// Layers with running clocks (every wrap mode, both directions) and fades (ramps, blend-space
/// shares) evaluate on the GPU as on the CPU at frame times across wraps and fade ends.
#[test]
fn clocks_and_fades_in_records_match_cpu_at_every_frame_time() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(11);
    let rigs = blend_rigs();
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let wraps = [
        TimeWrap::None,
        TimeWrap::Loop,
        TimeWrap::Clamp,
        TimeWrap::PingPong,
    ];
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..24 {
            let layers = random_layers(rig, &mut rng, base, count, 1 + k % 4);
            items.push((r as u32, 0, rng.world(), layers));
        }
    }
    let mut records = pack(&rigs, &items);
    for rec in &mut records {
        let count = rec.layer_count as usize;
        for layer in &mut rec.layers[..count] {
            let d = rigs[rec.rig as usize].clips.clips()[layer.clip as usize]
                .duration
                .max(0.1);
            let wrap = wraps[rng.below(4)];
            let rate = rng.range(-2.0, 2.0);
            *layer = layer.with_clock(rng.range(0.0, 2.0 * d), rng.range(0.0, 3.0), rate, wrap, d);
            if rng.below(2) == 0 {
                let share = rng.range(0.1, 1.0);
                *layer = layer.with_fade(
                    rng.range(0.0, 1.0),
                    rng.range(0.0, 4.0),
                    rng.range(0.2, 4.0),
                    share.max(layer.weight.min(1.0)),
                );
            }
        }
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    let len = palette_len(&rigs, &records);
    backend.reserve_palette(len as u32).unwrap();
    for now in [0.0, 0.37, 1.9, 4.25, 9.6] {
        backend.evaluate_at(now, &records).unwrap();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &masks, &records, now, &|i| {
            format!("t = {now}: record {i} {:?}", records[i].used_layers())
        });
    }
}

/// A clip of duration 0 (each track one key: a pose) under running clocks of every wrap, with
/// its duration as the period, alone and over a moving clip: the GPU holds it at time 0 as the
/// CPU does, at every frame time.
#[test]
fn pose_clips_under_running_clocks_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let parents: Vec<Option<usize>> = (0..6usize).map(|j| j.checked_sub(1)).collect();
    let mut asset = synthetic_asset("posed", &parents, Vec3::new(0.0, 0.1, 0.0));
    let mut pose = asset.clips[0].clone();
    pose.name = "pose".into();
    for track in &mut pose.tracks {
        track.times.truncate(1);
        track.values.truncate(1);
    }
    asset.clips.push(pose);
    let rig = Rig::from_skin(&asset, 0).unwrap();
    let pose = rig.clips.clips().len() as u32 - 1;
    assert_eq!(rig.clips.clips()[pose as usize].duration, 0.0);
    let rigs = vec![rig];
    let wraps = [
        TimeWrap::None,
        TimeWrap::Loop,
        TimeWrap::Clamp,
        TimeWrap::PingPong,
    ];
    let mut items = Vec::new();
    for _ in &wraps {
        for _ in 0..2 {
            let under = Layer {
                weight: 0.5,
                ..Layer::clip(pose, 0.0)
            };
            items.push((0, 0, Affine3A::IDENTITY, vec![Layer::clip(0, 0.3), under]));
            items.push((0, 0, Affine3A::IDENTITY, vec![Layer::clip(pose, 0.0)]));
        }
    }
    let mut records = pack(&rigs, &items);
    for (i, rec) in records.iter_mut().enumerate() {
        let wrap = wraps[i / 4];
        let rate = if i % 4 < 2 { 1.25 } else { -2.0 };
        let last = rec.layer_count as usize - 1;
        rec.layers[last] = rec.layers[last].with_clock(0.0, 0.2, rate, wrap, 0.0);
        if last > 0 {
            rec.layers[0] = rec.layers[0].with_clock(0.3, 0.0, 1.0, TimeWrap::Loop, 1.5);
        }
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    for now in [0.0, 0.37, 1.9, 4.25] {
        backend.evaluate_at(now, &records).unwrap();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, now, &|i| {
            format!("t = {now}: pose record {i} {:?}", records[i].used_layers())
        });
    }
}

/// Resident slots: only records that differ from what a slot holds go up, in one upload; the
/// GPU's copy equals the records written, and evaluating it equals the CPU at the frame time.
#[test]
fn resident_uploads_write_exactly_the_changed_records() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(5);
    let rigs = crowd_rigs();
    let mut items = Vec::new();
    for _ in 0..90 {
        let r = rng.below(rigs.len());
        let count = 1 + rng.below(2);
        let layers = random_layers(&rigs[r], &mut rng, 0, 0, count);
        items.push((r as u32, 0, rng.world(), layers));
    }
    let mut records = pack(&rigs, &items);
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.evaluate_at(0.5, &records).unwrap();
    let first = backend.last_frame();
    assert_eq!(first.records_uploaded, records.len() as u64);
    let header_bytes = first.upload_bytes - records.len() as u64 * 256;
    assert!(first.dispatches > 1, "the palette spans several windows");

    // Nothing changed: only the dispatch headers (the frame time) go up.
    backend.evaluate_resident(1.0).unwrap();
    assert_eq!(backend.last_frame().records_uploaded, 0);
    assert_eq!(backend.last_frame().upload_bytes, header_bytes);
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, 1.0, &|i| {
        format!("unchanged record {i}")
    });

    // Three slots get new layers, one is written with what it holds: three records go up.
    for &slot in &[3usize, 4, 60] {
        let rec = &mut records[slot];
        rec.layers[0] = rec.layers[0].with_clock(0.1, 1.0, 1.5, TimeWrap::Loop, 0.8);
        assert!(backend.set_record(slot as u32, rec).unwrap());
    }
    assert!(!backend.set_record(10, &records[10]).unwrap());
    backend.evaluate_resident(1.75).unwrap();
    assert_eq!(backend.last_frame().records_uploaded, 3);
    assert_eq!(backend.last_frame().upload_bytes, 3 * 256 + header_bytes);
    let resident = backend.read_resident(0..records.len() as u32).unwrap();
    assert!(
        resident == records,
        "the GPU holds exactly the records written"
    );
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, 1.75, &|i| {
        format!("after the update, record {i}")
    });

    // An emptied slot is skipped; the others are still evaluated.
    backend.clear_record(7);
    backend.evaluate_resident(2.0).unwrap();
    assert_eq!(backend.last_frame().records_uploaded, 1);
}

#[test]
fn palettes_and_records_larger_than_one_binding_are_evaluated_in_windows() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(7);
    let rigs = crowd_rigs();
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let mut items = Vec::new();
    for _ in 0..300 {
        let r = rng.below(rigs.len());
        let count = 1 + rng.below(2);
        let layers = random_layers(&rigs[r], &mut rng, 0, 0, count);
        items.push((r as u32, 0, rng.world(), layers));
    }
    let mut records = pack(&rigs, &items);
    let len = palette_len(&rigs, &records);
    assert!(len * 48 > 4 * (64 << 10), "palette of {len} entries");
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("windowed record {i}")
    });
    let windows = backend.dispatches_last_frame();
    assert!(windows >= 4, "{windows} dispatches");
    // Out of palette order: more dispatches, same results.
    records.swap(0, 150);
    records.swap(10, 290);
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("windowed, shuffled record {i}")
    });
    assert!(backend.dispatches_last_frame() > windows);

    // Records past one binding too (16 KiB: 64 records per binding), with running clocks.
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        max_record_binding: Some(16 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let mut records = pack(&rigs, &items);
    for rec in &mut records {
        let d = rigs[rec.rig as usize].clips.clips()[rec.layers[0].clip as usize]
            .duration
            .max(0.1);
        rec.layers[0] = rec.layers[0].with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, d);
    }
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    backend.evaluate_at(1.3, &records).unwrap();
    assert!(
        backend.dispatches_last_frame() >= records.len() as u32 / 64,
        "{} dispatches for {} records",
        backend.dispatches_last_frame(),
        records.len()
    );
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, 1.3, &|i| {
        format!("record {i} past one record binding")
    });
}

/// Shuffles `items` in place.
fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

#[test]
fn windowed_frames_whose_plans_change_every_frame_match_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(43);
    let rigs = crowd_rigs();
    // 64 KiB palette windows and 16 records per record binding: a shuffled frame splits into a
    // dispatch almost per record, and the split moves from frame to frame.
    let options = GpuOptions {
        initial_palette_entries: 256,
        max_palette_binding: Some(64 << 10),
        max_record_binding: Some(4 << 10),
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    let mut dispatches = 0;
    for frame in 0..12 {
        let count = 60 + rng.below(240);
        let items: Vec<_> = (0..count)
            .map(|_| {
                let r = rng.below(rigs.len());
                let count = 1 + rng.below(2);
                let layers = random_layers(&rigs[r], &mut rng, 0, 0, count);
                (r as u32, 0, rng.world(), layers)
            })
            .collect();
        let mut records = pack(&rigs, &items);
        if frame % 4 != 3 {
            shuffle(&mut records, &mut rng);
        }
        let now = 0.1 * frame as f32;
        backend
            .reserve_palette(palette_len(&rigs, &records) as u32)
            .unwrap();
        backend.evaluate_at(now, &records).unwrap();
        dispatches += backend.dispatches_last_frame();
        assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &records, now, &|i| {
            format!("frame {frame} of {count} records: record {i}")
        });
    }
    // Hundreds of bind groups made and dropped as the plans change.
    assert!(dispatches > 800, "{dispatches} dispatches in 12 frames");
}

#[test]
fn bad_records_are_typed_errors() {
    let Some(ctx) = gpu() else { return };
    let rigs = vec![chain_rig(5)];
    let masks = vec![
        JointMask::uniform(&rigs[0].skeleton, 0.5),
        JointMask {
            weights: vec![1.0; 3],
        },
    ];
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    let world = Affine3A::IDENTITY;
    let ok = InstanceRecord::new(0, 0, &world, &[Layer::clip(0, 0.1)]).unwrap();
    backend.evaluate(&[ok]).unwrap();
    let eval_err = |backend: &mut GpuBackend, rec: InstanceRecord| match backend.evaluate(&[rec]) {
        Err(GpuError::Eval(e)) => e,
        other => panic!("expected an evaluation error, got {other:?}"),
    };
    let bad_rig = InstanceRecord { rig: 3, ..ok };
    assert!(matches!(
        eval_err(&mut backend, bad_rig),
        EvalError::NoSuchRig { rig: 3, .. }
    ));
    let bad_clip = InstanceRecord::new(0, 0, &world, &[Layer::clip(9, 0.1)]).unwrap();
    assert!(matches!(
        eval_err(&mut backend, bad_clip),
        EvalError::NoSuchClip { clip: 9, .. }
    ));
    let mut masked = Layer::clip(0, 0.1);
    masked.mask = Some(1);
    let wrong_mask = InstanceRecord::new(0, 0, &world, &[masked]).unwrap();
    assert!(matches!(
        eval_err(&mut backend, wrong_mask),
        EvalError::NoSuchMask { mask: 1, .. }
    ));
    let nan = InstanceRecord::new(0, 0, &world, &[Layer::clip(0, f32::NAN)]).unwrap();
    assert!(matches!(
        eval_err(&mut backend, nan),
        EvalError::BadLayer { .. }
    ));
    let beyond = InstanceRecord {
        palette_offset: backend.palette_capacity() - 2,
        ..ok
    };
    assert!(matches!(
        eval_err(&mut backend, beyond),
        EvalError::OutputSize { .. }
    ));
    assert!(
        backend
            .read_palette(0..backend.palette_capacity() + 1)
            .is_err()
    );
    // An empty frame is fine and dispatches nothing.
    backend.evaluate(&[]).unwrap();
    assert_eq!(backend.dispatches_last_frame(), 0);
}

#[test]
fn wgpu_validation_errors_come_back_as_gpu_errors() {
    let Some(ctx) = gpu() else { return };
    let device = &ctx.device;
    let result = sinew::gpu::capture(device, || {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("invalid: map-read storage"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    });
    assert!(matches!(result, Err(GpuError::Validation(_))), "{result:?}");
}

#[test]
fn a_host_device_is_used_as_given() {
    let Some(ctx) = gpu() else { return };
    let host = GpuContext::from_device(&ctx.device, &ctx.queue);
    let rigs = vec![fan_rig(9)];
    let mut backend = GpuBackend::new(&host, &rigs, &[]).unwrap();
    let records = pack(
        &rigs,
        &[(
            0,
            0,
            Affine3A::from_rotation_y(0.7),
            vec![Layer::clip(0, 0.8)],
        )],
    );
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|_| {
        "host device".into()
    });
}

/// A host device asked for wgpu's default limits only (16 KiB of workgroup memory) runs the
/// narrow evaluate shape, refuses the wide one with a typed error, and evaluates as the CPU does.
#[test]
fn a_host_device_at_the_default_limits_runs_the_narrow_shape() {
    let Some(_) = gpu() else { return };
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .unwrap();
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let mut host = GpuContext::from_device(&device, &queue);
    assert_eq!(host.evaluate_shape(), EvaluateShape::NARROW);
    let refused = host.set_evaluate_shape(EvaluateShape::WIDE);
    assert_eq!(host.evaluate_shape(), EvaluateShape::NARROW);
    assert!(
        matches!(
            refused,
            Err(GpuError::LimitExceeded {
                limit: "max_compute_workgroup_storage_size",
                needed: 32768,
                available: 16384,
            })
        ),
        "{refused:?}"
    );
    // Six 64-joint instances: a pass of four and one of two.
    let rigs = vec![repo_rig_or("synthetic/rig64.glb", || chain_rig(64))];
    let mut rng = Rng(33);
    let items: Vec<_> = (0..6)
        .map(|_| {
            let layers = random_layers(&rigs[0], &mut rng, 0, 0, 2);
            (0, 0, rng.world(), layers)
        })
        .collect();
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(&host, &rigs, &[]).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("default-limits device, record {i}: layers {:?}", items[i].3)
    });
}

// ---------------------------------------------------------------------------------------------
// The command line.

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

// ---------------------------------------------------------------------------------------------
// Root motion accumulated on the GPU.

/// Nodes: 0 Armature (rotated and scaled, so the root's parent space is not model space),
/// 1 Root, 2 Hips, 3 Leg. `walk` moves the root 1 m along +Z per 1 s cycle (swaying in X,
/// bobbing in Y), `run` 1.8 m per 0.6 s, `turn` yaws it 0.5 rad while moving 1 m, `wave` moves
/// only the leg.
fn walker_rig() -> Rig {
    let node = |name: &str, parent, translation, rotation, scale| RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation,
            rotation,
            scale,
        },
    };
    let nodes = vec![
        node(
            "Armature",
            None,
            Vec3::new(0.3, 0.0, -0.2),
            Quat::from_rotation_y(0.4) * Quat::from_rotation_x(0.1),
            Vec3::new(1.2, 1.0, 0.8),
        ),
        node("Root", Some(0), Vec3::ZERO, Quat::IDENTITY, Vec3::ONE),
        node("Hips", Some(1), Vec3::Y, Quat::IDENTITY, Vec3::ONE),
        node(
            "Leg",
            Some(2),
            Vec3::new(0.1, -0.5, 0.0),
            Quat::IDENTITY,
            Vec3::ONE,
        ),
    ];
    let translation = |times: &[f32], values: &[Vec3]| RawTrack {
        target: 1,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: values.iter().map(|v| v.extend(0.0)).collect(),
    };
    let rotation = |target, times: &[f32], axis: Vec3, angles: &[f32]| RawTrack {
        target,
        channel: Channel::Rotation,
        interpolation: Interpolation::Linear,
        times: times.to_vec(),
        values: angles
            .iter()
            .map(|&a| Vec4::from(Quat::from_axis_angle(axis, a)))
            .collect(),
    };
    let clip = |name: &str, tracks| RawClip {
        name: name.to_string(),
        tracks,
        weights: Vec::new(),
    };
    let clips = vec![
        clip(
            "walk",
            vec![
                translation(
                    &[0.0, 0.5, 1.0],
                    &[Vec3::ZERO, Vec3::new(0.1, 0.05, 0.5), Vec3::Z],
                ),
                rotation(3, &[0.0, 0.5, 1.0], Vec3::X, &[0.5, -0.5, 0.5]),
            ],
        ),
        clip(
            "run",
            vec![
                translation(
                    &[0.0, 0.3, 0.6],
                    &[
                        Vec3::ZERO,
                        Vec3::new(0.0, 0.1, 0.9),
                        Vec3::new(0.2, 0.0, 1.8),
                    ],
                ),
                rotation(3, &[0.0, 0.3, 0.6], Vec3::X, &[0.9, -0.9, 0.9]),
            ],
        ),
        clip(
            "turn",
            vec![
                rotation(1, &[0.0, 1.0], Vec3::Y, &[0.0, 0.5]),
                translation(&[0.0, 1.0], &[Vec3::ZERO, Vec3::Z]),
            ],
        ),
        clip(
            "wave",
            vec![rotation(3, &[0.0, 1.0, 2.0], Vec3::Z, &[0.0, 1.2, 0.0])],
        ),
    ];
    let asset = RawAsset {
        file: "<walker>".to_string(),
        skins: vec![RawSkin {
            name: Some("walker".to_string()),
            joints: (0..nodes.len()).collect(),
            inverse_binds: vec![Mat4::IDENTITY; nodes.len()],
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        }],
        nodes,
        clips,
        meshes: Vec::new(),
        morph_nodes: Vec::new(),
        extensions: Vec::new(),
    };
    Rig::from_skin(&asset, 0).unwrap()
}

/// Frame times of `frames` frames of uneven length from 0.
fn frame_times(frames: usize) -> Vec<f32> {
    let steps = [1.0 / 60.0, 1.0 / 30.0, 1.0 / 45.0];
    let mut t = 0.0f64;
    (0..frames)
        .map(|i| {
            let now = t as f32;
            t += steps[i % 3];
            now
        })
        .collect()
}

/// Asserts that two worlds agree: translations within 1e-4 of their size (at least 1), axes
/// within 1e-4.
fn assert_world_close(gpu: &Affine3A, cpu: &Affine3A, what: &str) {
    let (g, c) = (Vec3::from(gpu.translation), Vec3::from(cpu.translation));
    let tol = 1e-4 * c.abs().max_element().max(1.0);
    assert!(
        (g - c).abs().max_element() <= tol,
        "{what}: translation {g} vs {c} (difference {})",
        (g - c).abs().max_element()
    );
    let (gm, cm) = (
        Mat4::from(*gpu).to_cols_array(),
        Mat4::from(*cpu).to_cols_array(),
    );
    for i in 0..12 {
        assert!(
            (gm[i] - cm[i]).abs() <= 1e-4,
            "{what}: axis element {i}: {} vs {}",
            gm[i],
            cm[i]
        );
    }
}

/// Root-motion records of the walker: a looping walk, a ping-pong turn with yaw, a reversed
/// turn, a cross-fade from walk into run (under an extra layer that carries no root motion),
/// all three axes, and a record without the flag.
fn root_motion_records(rig: &Rig) -> Vec<InstanceRecord> {
    let root = rig.skeleton.find_joint("Root").unwrap() as u32;
    let clip = |name| rig.clips.find_clip(name).unwrap() as u32;
    let layer = |name, time| Layer::clip(clip(name), time).to_record();
    let xz = root | InstanceRecord::HOLD_ROOT_XZ;
    let yaw = InstanceRecord::HOLD_ROOT_YAW;
    let turned = Affine3A::from_scale_rotation_translation(
        Vec3::splat(1.5),
        Quat::from_rotation_y(1.0),
        Vec3::new(3.0, 0.5, -2.0),
    );
    let mut records = Vec::new();
    let mut push = |flags: u32, world: Affine3A, layers: &[sinew::LayerRecord]| {
        let n = rig.joint_count() as u32;
        let mut rec = InstanceRecord::new(0, records.len() as u32 * n, &world, &[]).unwrap();
        rec.flags = flags;
        rec.layer_count = layers.len() as u32;
        rec.layers[..layers.len()].copy_from_slice(layers);
        records.push(rec);
    };
    let base = InstanceRecord::gpu_root_motion;
    push(
        xz | base(1),
        Affine3A::IDENTITY,
        &[layer("walk", 0.2).with_clock(0.2, 0.0, 1.0, TimeWrap::Loop, 1.0)],
    );
    push(
        xz | yaw | base(1),
        turned,
        &[layer("turn", 0.7).with_clock(0.7, 0.1, 1.3, TimeWrap::PingPong, 1.0)],
    );
    push(
        xz | yaw | base(1),
        Affine3A::from_translation(Vec3::new(-4.0, 0.0, 7.0)),
        &[layer("turn", 0.4).with_clock(0.4, 0.0, -0.8, TimeWrap::Loop, 1.0)],
    );
    let mut wave = layer("wave", 0.0).with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 2.0);
    wave.weight = 0.6;
    push(
        xz | base(2),
        turned,
        &[
            layer("walk", 0.0).with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 1.0),
            layer("run", 0.1)
                .with_clock(0.1, 0.0, 1.0, TimeWrap::Loop, 0.6)
                .with_fade(0.0, 0.5, 1.25, 1.0),
            wave,
        ],
    );
    push(
        root | InstanceRecord::HOLD_ROOT_XYZ | base(1),
        Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0)),
        &[layer("run", 0.0).with_clock(0.0, 0.0, 0.9, TimeWrap::Clamp, 0.6)],
    );
    push(
        xz,
        turned,
        &[layer("walk", 0.0).with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 1.0)],
    );
    records
}

/// Over 120 uneven frames, worlds moved by the kernel equal the CPU twin's
/// ([`sinew::cpu::advance_root_motion`]) on the same records and frame times, the pose is
/// evaluated under the moved world, and unchanged records upload nothing.
#[test]
fn gpu_root_motion_matches_the_cpu_twin_over_many_frames() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    let records = root_motion_records(&rig);
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut cpu = records.clone();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let times = frame_times(120);
    let mut prev = None;
    for (frame, &now) in times.iter().enumerate() {
        backend.evaluate_at(now, &records).unwrap();
        for rec in &mut cpu {
            sinew::cpu::advance_root_motion(&rig, rec, prev.unwrap_or(now), now);
        }
        prev = Some(now);
        if frame > 0 {
            assert_eq!(backend.last_frame().records_uploaded, 0, "frame {frame}");
        }
        if frame % 30 == 29 || frame + 1 == times.len() {
            let worlds = backend.read_worlds(&slots).unwrap();
            for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
                assert_world_close(
                    g,
                    &c.world.to_affine(),
                    &format!("frame {frame}, record {i}"),
                );
            }
        }
    }
    let end = cpu[0].world.to_affine().translation;
    assert!(
        end.length() > 2.0,
        "the walk moved ({end}); the rest of the records move as the CPU says"
    );
    assert_eq!(cpu[5].world, records[5].world, "no flag: the world stays");
    let now = *times.last().unwrap();
    assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &cpu, now, &|i| {
        format!("pose under the moved world, record {i}")
    });
}

/// What [`run_root_motion_paths`] ends with: per entity, the runtime's transform, the GPU's
/// world and the CPU twin's record; and the last frame time.
struct RootMotionPaths {
    transforms: Vec<sinew::runtime::Transform>,
    gpu: Vec<Affine3A>,
    twin: Vec<InstanceRecord>,
    now: f32,
}

/// Plays `spawns` (a playback, and whether yaw is extracted) on entities of `rig` from `start`
/// with XZ root motion of joint `root` for `frames` uneven updates, three ways: the runtime's
/// CPU `RootMotion` moving each `Transform`, the GPU moving the resident records' worlds
/// (placed at the first update, any later world ignored), and the CPU twin of the GPU path
/// ([`sinew::cpu::advance_root_motion`]) on the same records. Asserts that the three agree at
/// the end; the GPU last evaluated the returned twin records at `now`.
fn run_root_motion_paths(
    ctx: &GpuContext,
    rig: &Rig,
    root: &str,
    spawns: &[(sinew::runtime::Playback, bool)],
    start: sinew::runtime::Transform,
    frames: usize,
) -> (GpuBackend, RootMotionPaths) {
    use sinew::runtime::{Animated, Animator, RootTranslation, Transform};
    let mut animator = Animator::new(vec![rig.clone()]).unwrap();
    let mut world = hecs::World::new();
    let entities: Vec<hecs::Entity> = spawns
        .iter()
        .map(|&(playback, yaw)| {
            let motion = animator
                .root_motion(0, root, RootTranslation::Xz, yaw)
                .unwrap();
            world.spawn((Animated::new(0), start, playback, motion))
        })
        .collect();
    let mut backend = GpuBackend::new(ctx, std::slice::from_ref(rig), &[]).unwrap();
    let slots: Vec<u32> = (0..entities.len() as u32).collect();
    let dts = [1.0 / 60.0, 1.0 / 30.0, 1.0 / 45.0];
    let mut twin: Vec<InstanceRecord> = Vec::new();
    let mut prev = 0.0;
    for frame in 0..frames {
        animator.update(&mut world, dts[frame % 3]).unwrap();
        let now = animator.frame_time();
        backend
            .reserve_palette(animator.palette().capacity())
            .unwrap();
        for (slot, &e) in entities.iter().enumerate() {
            let mut rec = *animator.record_of(&world, e).unwrap();
            rec.flags |= InstanceRecord::gpu_root_motion(1);
            if frame == 0 {
                // Placed where the runtime's first update left the entity.
                backend.set_record_world(slot as u32, &rec).unwrap();
                twin.push(rec);
            } else {
                let moved = twin[slot].world;
                twin[slot] = InstanceRecord {
                    world: moved,
                    ..rec
                };
                sinew::cpu::advance_root_motion(rig, &mut twin[slot], prev, now);
                // Any other world is the GPU's own.
                rec.world = Mat3x4Rows::IDENTITY;
                backend.set_record(slot as u32, &rec).unwrap();
            }
        }
        backend.evaluate_resident(now).unwrap();
        prev = now;
    }
    let gpu = backend.read_worlds(&slots).unwrap();
    let transforms: Vec<Transform> = entities
        .iter()
        .map(|&e| *world.get::<&Transform>(e).unwrap())
        .collect();
    for (i, ((transform, g), t)) in transforms.iter().zip(&gpu).zip(&twin).enumerate() {
        let what = format!("{}: entity {i} after {frames} updates", rig.name);
        assert_world_close(
            g,
            &transform.to_affine(),
            &format!("{what}, GPU vs runtime"),
        );
        assert_world_close(g, &t.world.to_affine(), &format!("{what}, GPU vs CPU twin"));
    }
    let now = prev;
    (
        backend,
        RootMotionPaths {
            transforms,
            gpu,
            twin,
            now,
        },
    )
}

/// The runtime's CPU `RootMotion` moving a `Transform` and the GPU moving the record's world
/// from the same records agree: a looping walk, a ping-pong turn with yaw, a reversed walk.
#[test]
fn gpu_root_motion_matches_the_runtime_transform() {
    use sinew::runtime::{Animator, LoopMode, Transform};
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let animator = Animator::new(vec![rig.clone()]).unwrap();
    let start = Transform {
        translation: Vec3::new(1.0, 0.0, -2.0),
        rotation: Quat::from_rotation_y(0.7),
        scale: Vec3::ONE,
    };
    let walk = animator.playback(0, "walk").unwrap();
    let turn = animator.playback(0, "turn").unwrap();
    let spawns = [
        (walk, false),
        (turn.with_mode(LoopMode::PingPong).with_speed(1.3), true),
        (walk.with_speed(-0.8), true),
    ];
    let (_, paths) = run_root_motion_paths(ctx, &rig, "Root", &spawns, start, 90);
    for (i, transform) in paths.transforms.iter().enumerate() {
        let moved = (transform.translation - start.translation).length();
        assert!(moved > 0.3, "entity {i} moved {moved}");
    }
}

/// A rig exported Z-up: non-joint `Z_UP` (a quarter turn about -X: the parent's +Z is model
/// +Y) and `Armature` (0.7 rad about its +Z, scale 2) above `Root`. `walk` moves the root 1 m
/// along its parent's -Y per 1 s cycle, bobbing along its parent's +Z; `turn` turns it 0.5 rad
/// about its parent's +Z (model +Y) while it walks.
fn z_up_rig() -> Rig {
    use std::f32::consts::FRAC_PI_2;
    let node = |name: &str, parent, translation, rotation, scale| RawNode {
        name: name.to_string(),
        parent,
        rest: Sqt {
            translation,
            rotation,
            scale: Vec3::splat(scale),
        },
    };
    let rest = Vec3::new(0.1, 0.2, 0.5);
    let nodes = vec![
        node(
            "Z_UP",
            None,
            Vec3::ZERO,
            Quat::from_rotation_x(-FRAC_PI_2),
            1.0,
        ),
        node(
            "Armature",
            Some(0),
            Vec3::new(0.3, -0.4, 0.1),
            Quat::from_rotation_z(0.7),
            2.0,
        ),
        node("Root", Some(1), rest, Quat::from_rotation_z(0.2), 1.0),
        node(
            "Hips",
            Some(2),
            Vec3::new(0.0, 0.0, 0.4),
            Quat::IDENTITY,
            1.0,
        ),
    ];
    let walk = RawTrack {
        target: 2,
        channel: Channel::Translation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 0.5, 1.0],
        values: [
            Vec3::ZERO,
            Vec3::new(0.0, -0.5, 0.05),
            Vec3::new(0.0, -1.0, 0.0),
        ]
        .map(|v| (rest + v).extend(0.0))
        .to_vec(),
    };
    let turn = RawTrack {
        target: 2,
        channel: Channel::Rotation,
        interpolation: Interpolation::Linear,
        times: vec![0.0, 1.0],
        values: [0.2, 0.7]
            .map(|a| Vec4::from(Quat::from_rotation_z(a)))
            .to_vec(),
    };
    let clip = |name: &str, tracks| RawClip {
        name: name.to_string(),
        tracks,
        ..RawClip::default()
    };
    let asset = RawAsset {
        file: "<z-up rig>".to_string(),
        skins: vec![RawSkin {
            name: Some("z_up".to_string()),
            joints: vec![2, 3],
            inverse_binds: vec![Mat4::IDENTITY; 2],
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        }],
        nodes,
        clips: vec![
            clip("walk", vec![walk.clone()]),
            clip("turn", vec![walk, turn]),
        ],
        meshes: Vec::new(),
        ..RawAsset::default()
    };
    Rig::from_skin(&asset, 0).unwrap()
}

/// On rigs with rotated nodes above the root (a generated Z-up rig; CesiumMan when
/// `../shared` is there), root motion is in model space on every path: the runtime, the GPU
/// and its CPU twin agree; every world stays at its height, upright (yaw turns about world
/// +Y), and the GPU's held pose keeps the root's model-space X and Z at rest.
#[test]
fn gpu_root_motion_is_in_model_space_on_z_up_rigs() {
    use sinew::runtime::{Animator, LoopMode, Transform};
    let Some(ctx) = gpu() else { return };
    let mut cases = vec![(z_up_rig(), "walk", "turn")];
    if let Some(path) = shared_file("CesiumMan.glb") {
        let rig = load(&path).remove(0);
        cases.push((rig, "", ""));
    }
    let start = Transform {
        translation: Vec3::new(-1.0, 0.75, 3.0),
        rotation: Quat::from_rotation_y(-0.4),
        scale: Vec3::ONE,
    };
    for (rig, walk, turn) in cases {
        let animator = Animator::new(vec![rig.clone()]).unwrap();
        let root = animator.root_joint(0).unwrap() as usize;
        assert_ne!(
            rig.skeleton.parents()[root],
            sinew::NO_PARENT,
            "{}",
            rig.name
        );
        let first = rig.clips.clips()[0].name.as_str();
        let pick = |name: &'static str| if name.is_empty() { first } else { name };
        let walk = animator.playback(0, pick(walk)).unwrap();
        let turn = animator.playback(0, pick(turn)).unwrap();
        let spawns = [
            (walk, false),
            (walk.with_speed(-0.8), true),
            (turn.with_speed(1.3), true),
            (turn.with_mode(LoopMode::PingPong), true),
        ];
        let name = rig.skeleton.names()[root].clone();
        let (mut backend, paths) = run_root_motion_paths(ctx, &rig, &name, &spawns, start, 75);
        for (i, g) in paths.gpu.iter().enumerate() {
            let what = format!("{}: entity {i}", rig.name);
            assert!(
                (g.translation.y - start.translation.y).abs() <= common::EXACT_TOLERANCE,
                "{what}: the world left the ground plane: {} to {}",
                start.translation.y,
                g.translation.y
            );
            let up = Vec3::from(g.matrix3.y_axis);
            assert!(
                up.abs_diff_eq(Vec3::Y, common::EXACT_TOLERANCE),
                "{what}: up is {up}"
            );
        }
        if rig.name == "z_up" {
            let moved = (Vec3::from(paths.gpu[0].translation) - start.translation).length();
            assert!(moved > 1.0, "the walk moved {moved}");
            let x = Vec3::from(paths.gpu[2].matrix3.x_axis);
            let turned = x.angle_between(start.rotation * Vec3::X);
            assert!(turned > 0.5, "the turn turned the world {turned} rad");
        }
        // The held pose, as the GPU evaluated it under its worlds.
        let rigs = [rig.clone()];
        assert_evaluated_matches_cpu(&mut backend, &rigs, &[], &paths.twin, paths.now, &|i| {
            format!("{}: held pose of entity {i}", rig.name)
        });
        let palette = backend
            .read_palette(0..palette_len(&rigs, &paths.twin) as u32)
            .unwrap();
        let mut rest = vec![Affine3A::IDENTITY; rig.joint_count()];
        sinew::cpu::local_to_model(
            &rig.skeleton,
            &Affine3A::IDENTITY,
            rig.skeleton.rest_pose(),
            &mut rest,
        );
        let bind = rig.skeleton.inverse_binds()[root].inverse();
        for (i, (rec, g)) in paths.twin.iter().zip(&paths.gpu).enumerate() {
            let model = palette[rec.palette_offset as usize + root].to_affine() * bind;
            let held = g.inverse().transform_point3(model.translation.into());
            let r = rest[root].translation;
            common::assert_vec_close(
                &[held.x, held.z],
                &[r.x, r.z],
                common::MATRIX_TOLERANCE,
                &format!("{}: entity {i}, GPU root model X/Z", rig.name),
            );
        }
    }
}

/// A root-motion record written again for a transition keeps the GPU's world (uploaded around
/// it, 208 bytes); `set_record_world` places it (256 bytes, no motion that frame); the
/// asynchronous read hands back earlier frames' worlds.
#[test]
fn transitions_keep_the_gpu_world_and_placing_teleports() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    let records = root_motion_records(&rig);
    let mut cpu = records.clone();
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend
        .reserve_palette(palette_len(&rigs, &records) as u32)
        .unwrap();
    let times = frame_times(40);
    backend.evaluate_at(times[0], &records).unwrap();
    let whole = backend.last_frame();
    assert_eq!(whole.records_uploaded, records.len() as u64);
    let headers = whole.upload_bytes - records.len() as u64 * 256;
    let mut async_reads = Vec::new();
    let mut blocking = Vec::new();
    let teleport = Affine3A::from_rotation_translation(
        Quat::from_rotation_y(-0.3),
        Vec3::new(10.0, 0.0, 10.0),
    );
    for k in 1..times.len() {
        let (prev, now) = (times[k - 1], times[k]);
        let mut expected_bytes = headers;
        let mut expected_records = 0;
        if k == 10 {
            // A transition of record 0 (the walk restarts) with a stale world: 208 bytes.
            let mut rec = cpu[0];
            rec.layers[0] = rec.layers[0].with_clock(0.0, now, 1.2, TimeWrap::Loop, 1.0);
            cpu[0].layers = rec.layers;
            rec.world = Mat3x4Rows::from_affine(&Affine3A::from_translation(Vec3::splat(99.0)));
            assert!(backend.set_record(0, &rec).unwrap());
            expected_bytes += 208;
            expected_records += 1;
        }
        if k == 20 {
            // A teleport of record 1: the whole record, placed.
            cpu[1].world = Mat3x4Rows::from_affine(&teleport);
            backend.set_record_world(1, &cpu[1]).unwrap();
            expected_bytes += 256;
            expected_records += 1;
        }
        backend.evaluate_resident(now).unwrap();
        assert_eq!(
            backend.last_frame().upload_bytes,
            expected_bytes,
            "frame {k}"
        );
        assert_eq!(
            backend.last_frame().records_uploaded,
            expected_records,
            "frame {k}"
        );
        for (i, rec) in cpu.iter_mut().enumerate() {
            if !(k == 20 && i == 1) {
                sinew::cpu::advance_root_motion(&rig, rec, prev, now);
            }
        }
        if k == 20 {
            let placed = backend.read_worlds(&[1]).unwrap()[0];
            assert_eq!(
                Mat3x4Rows::from_affine(&placed),
                Mat3x4Rows::from_affine(&teleport),
                "placed exactly, not moved that frame"
            );
        }
        if (10..14).contains(&k) || (20..24).contains(&k) || k + 1 == times.len() {
            let worlds = backend.read_worlds(&slots).unwrap();
            for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
                assert_world_close(g, &c.world.to_affine(), &format!("frame {k}, record {i}"));
            }
        }
        if k >= 30 {
            blocking.push((now, backend.read_worlds(&slots).unwrap()));
            async_reads.extend(backend.read_worlds_async(&slots).unwrap());
        }
    }
    backend.wait().unwrap();
    async_reads.extend(backend.read_worlds_async(&[]).unwrap());
    assert!(!async_reads.is_empty(), "asynchronous reads arrive");
    let last = *times.last().unwrap();
    for read in &async_reads {
        assert_eq!(read.slots, slots);
        let (_, expected) = blocking
            .iter()
            .find(|(t, _)| *t == read.time)
            .expect("an asynchronous read belongs to an evaluated frame");
        assert_eq!(&read.worlds, expected, "frame time {}", read.time);
    }
    assert!(
        async_reads.windows(2).all(|w| w[0].time < w[1].time),
        "newer reads come later"
    );
    assert!(
        async_reads[..async_reads.len() - 1]
            .iter()
            .all(|r| r.time < last)
    );
    // The GPU holds the records written, around the worlds it owns.
    let resident = backend.read_resident(0..records.len() as u32).unwrap();
    for (i, (r, c)) in resident.iter().zip(&cpu).enumerate() {
        let mut expected = *c;
        expected.world = r.world;
        assert_eq!(*r, expected, "record {i}");
    }
}

/// A rig assembled by hand whose clips cover another skeleton is refused before any upload.
#[test]
fn backend_refuses_a_rig_whose_parts_disagree() {
    let Some(context) = gpu() else { return };
    let mut rig = chain_rig(4);
    rig.clips = chain_rig(2).clips;
    let err = GpuBackend::new(context, &[chain_rig(4), rig], &[]).unwrap_err();
    assert!(
        matches!(
            &err,
            sinew::GpuError::Eval(sinew::EvalError::InvalidRig { rig: 1, reason, .. })
                if reason.contains("the clips cover")
        ),
        "expected InvalidRig for rig 1, got {err:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Morph weights.

/// The rigs with morph targets: the generated asset's and RobotExpressive's (when present).
fn morph_rigs() -> Vec<Rig> {
    let mut rigs = Vec::new();
    if let Some(path) = repo_file("synthetic/morph.glb") {
        rigs.extend(load(&path));
    }
    if let Some(path) = shared_file("RobotExpressive.glb") {
        rigs.extend(load(&path));
    }
    rigs
}

#[test]
fn morph_weights_match_cpu_on_every_clip_layer_mask_and_fade() {
    let Some(ctx) = gpu() else { return };
    let rigs = morph_rigs();
    assert!(!rigs.is_empty(), "assets/synthetic/morph.glb is missing");
    let mut rng = Rng(7);
    let (masks, mask_ranges) = masks_for_all(&rigs, &mut rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        for clip in 0..rig.clips.clip_count() {
            for t in sample_times(rig, clip) {
                items.push((
                    r as u32,
                    0,
                    Affine3A::IDENTITY,
                    vec![Layer::clip(clip as u32, t)],
                ));
            }
        }
        let (base, count) = mask_ranges[r];
        for k in 0..40 {
            let layers = random_layers(rig, &mut rng, base, count, 2 + k % 3);
            items.push((r as u32, 0, rng.world(), layers));
        }
    }
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &masks, &records, &|i| {
        let (r, _, _, layers) = &items[i];
        format!("rig {} layers {layers:?}", rigs[*r as usize].name)
    });
    // The comparison is not of zeros only: many records' weights are not.
    let (cpu_palette, _) = cpu_evaluate(&rigs, &masks, &records);
    let moving = records
        .iter()
        .filter(|rec| {
            let rig = &rigs[rec.rig as usize];
            let at = rec.palette_offset as usize;
            let w = sinew::cpu::morph_weights(rig, &cpu_palette[at..at + rig.palette_entries()]);
            w.iter().any(|&x| x != 0.0)
        })
        .count();
    assert!(
        moving * 10 > records.len(),
        "{moving} of {} records",
        records.len()
    );

    // Records evaluated at frame times: clocks, rates and fades drive the weights too.
    let rig = &rigs[0];
    let fading: Vec<InstanceRecord> = (0..6u32)
        .map(|i| {
            let layers = [
                Layer::clip(1, 0.0)
                    .to_record()
                    .with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, 0.8),
                Layer::clip(2, 0.0)
                    .to_record()
                    .with_clock(0.1 * i as f32, 0.0, 0.5, TimeWrap::Clamp, 1.2)
                    .with_fade(0.0, 0.0, 2.0, 1.0),
            ];
            let mut rec = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
            rec.layer_count = 2;
            rec.layers[..2].copy_from_slice(&layers);
            rec.palette_offset = i * rig.palette_entries() as u32;
            rec
        })
        .collect();
    let one = std::slice::from_ref(rig);
    let mut backend = GpuBackend::new(ctx, one, &[]).unwrap();
    backend
        .reserve_palette(palette_len(one, &fading) as u32)
        .unwrap();
    for now in [0.1, 0.3, 0.9] {
        backend.evaluate_at(now, &fading).unwrap();
        assert_eq!(
            backend.last_frame().morph_entries,
            6 * rig.morph.palette_entries() as u64,
            "morph entries written"
        );
        assert_evaluated_matches_cpu(&mut backend, one, &[], &fading, now, &|i| {
            format!("fading record {i} at {now}")
        });
    }
}

#[test]
fn pose_command_prints_the_same_morph_weights_on_both_backends() {
    let Some(_) = gpu() else { return };
    let mut runs = vec![(
        common::repo().join("assets/synthetic/morph.glb"),
        "2",
        "0,0.3,0.6,0.95",
    )];
    if let Some(path) = shared_file("RobotExpressive.glb") {
        runs.push((path, "0", "0.2,1.1,2.5"));
    }
    for (file, anim, times) in runs {
        let run = |backend: &str| -> serde_json::Value {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
                .arg("pose")
                .arg(&file)
                .args(["--anim", anim, "--times", times, "--backend", backend])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{} --backend {backend}: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        };
        let (gpu_json, cpu_json) = (run("gpu"), run("cpu"));
        let weights = |json: &serde_json::Value| -> Vec<Vec<Vec<f32>>> {
            json["morph_weights"]["frames"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| serde_json::from_value(f["weights"].clone()).unwrap())
                .collect()
        };
        assert_eq!(
            gpu_json["morph_weights"]["nodes"],
            cpu_json["morph_weights"]["nodes"]
        );
        let (g, c) = (weights(&gpu_json), weights(&cpu_json));
        assert_eq!(g.len(), times.split(',').count());
        for (k, (gf, cf)) in g.iter().zip(&c).enumerate() {
            for (n, (gw, cw)) in gf.iter().zip(cf).enumerate() {
                common::assert_vec_close(
                    gw,
                    cw,
                    common::WEIGHT_TOLERANCE,
                    &format!("{} frame {k} node {n}", file.display()),
                );
            }
        }
    }
}

/// Content added while records are resident: a clip appended to a playing rig and a new rig,
/// uploaded with `update_rigs`, evaluate like the CPU; the records from before keep playing;
/// rigs that would change the uploaded ones are refused.
#[test]
fn rigs_and_clips_added_at_run_time_evaluate_like_the_cpu() {
    use sinew::runtime::{Animated, Animator, Playback, Transform};
    let Some(ctx) = gpu() else { return };
    let mut animator = Animator::new(vec![chain_rig(8)]).unwrap();
    let mut world = hecs::World::new();
    for clip in 0..3 {
        world.spawn((Animated::new(0), Transform::IDENTITY, Playback::new(clip)));
    }
    let mut backend = GpuBackend::new(ctx, animator.rigs(), animator.masks()).unwrap();
    let step = |animator: &mut Animator, world: &mut hecs::World, backend: &mut GpuBackend| {
        animator.update(world, 1.0 / 30.0).unwrap();
        backend
            .reserve_palette(animator.palette().capacity())
            .unwrap();
        for &slot in animator.changed_slots() {
            backend
                .set_record(slot, &animator.slot_records()[slot as usize])
                .unwrap();
        }
        let now = animator.frame_time();
        backend.evaluate_resident(now).unwrap();
        let records = animator.slot_records().to_vec();
        assert_evaluated_matches_cpu(
            backend,
            animator.rigs(),
            animator.masks(),
            &records,
            now,
            &|i| format!("slot {i} at {now}"),
        );
    };
    for _ in 0..5 {
        step(&mut animator, &mut world, &mut backend);
    }
    // Content streams in: a clip with half of the linear clip's tracks, and another rig.
    let mut half = animator.rigs()[0].clips.to_raw_clips()[0].clone();
    half.name = "half".to_string();
    half.tracks = half.tracks.into_iter().step_by(2).collect();
    let added = animator.add_clips(0, &[half]).unwrap();
    let fan = animator.add_rig(fan_rig(5)).unwrap();
    backend
        .update_rigs(animator.rigs(), animator.masks())
        .unwrap();
    world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        Playback::new(added.start),
    ));
    world.spawn((Animated::new(fan), Transform::IDENTITY, Playback::new(2)));
    for _ in 0..6 {
        step(&mut animator, &mut world, &mut backend);
    }
    assert_eq!(animator.slot_records().len(), 5);
    // Fewer rigs, or another rig in place of an uploaded one, are refused.
    let e = backend.update_rigs(&animator.rigs()[..1], &[]).unwrap_err();
    assert!(
        matches!(e, sinew::GpuError::IncompatibleRig { rig: 1, .. }),
        "{e}"
    );
    let swapped = [fan_rig(5), chain_rig(8)];
    let e = backend.update_rigs(&swapped, &[]).unwrap_err();
    assert!(
        matches!(e, sinew::GpuError::IncompatibleRig { rig: 0, .. }),
        "{e}"
    );
    // Still evaluating what was uploaded.
    step(&mut animator, &mut world, &mut backend);
}
