//! What the GPU tests share: one device and pipeline for the whole binary, deterministic
//! randomness, the assets, and the random layers, masks and crowds the comparisons pose.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};
use sinew::gpu::EvaluateShape;
use sinew::import::{RawClip, RawMesh, RawNode, RawSkin, RawTrack};
use sinew::{
    BlendMode, Channel, GpuBackend, GpuContext, InstanceRecord, Interpolation, JointMask, Layer,
    RawAsset, Rig, Sqt, TimeWrap,
};

use super::common::{self, Rng};
use super::oracle::sample_times;

pub(crate) struct Gpu {
    pub(crate) context: GpuContext,
}

pub(crate) static GPU: LazyLock<Option<Gpu>> = LazyLock::new(|| {
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
pub(crate) static OTHER_SHAPE: LazyLock<Option<GpuContext>> = LazyLock::new(|| {
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
pub(crate) fn every_shape() -> Vec<&'static GpuContext> {
    gpu().into_iter().chain(OTHER_SHAPE.as_ref()).collect()
}

/// The shared context, or `None` (after printing why) when no adapter exists.
pub(crate) fn gpu() -> Option<&'static GpuContext> {
    GPU.as_ref().map(|g| &g.context)
}

impl Rng {
    pub(crate) fn world(&mut self) -> Affine3A {
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

pub(crate) fn load(path: &Path) -> Vec<Rig> {
    let asset = sinew::import_file(path).unwrap_or_else(|e| panic!("{e}"));
    sinew::bake_rigs(&asset).unwrap_or_else(|e| panic!("{e}"))
}

pub(crate) fn shared_file(name: &str) -> Option<PathBuf> {
    common::shared().map(|s| s.join("gltf").join(name))
}

pub(crate) fn repo_file(name: &str) -> Option<PathBuf> {
    let path = common::repo().join("assets").join(name);
    path.is_file().then_some(path)
}

/// A rig read from `assets/` when the file is there, else `fallback`.
pub(crate) fn repo_rig_or(name: &str, fallback: impl FnOnce() -> Rig) -> Rig {
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
pub(crate) fn synthetic_rig(name: &str, parents: &[Option<usize>], offset: Vec3) -> Rig {
    Rig::from_skin(&synthetic_asset(name, parents, offset), 0).unwrap()
}

/// The raw data of [`synthetic_rig`].
pub(crate) fn synthetic_asset(name: &str, parents: &[Option<usize>], offset: Vec3) -> RawAsset {
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
            markers: Vec::new(),
        },
        RawClip {
            name: "step".into(),
            tracks: step,
            weights: Vec::new(),
            markers: Vec::new(),
        },
        RawClip {
            name: "cubic".into(),
            tracks: cubic,
            weights: Vec::new(),
            markers: Vec::new(),
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

pub(crate) fn chain_rig(n: usize) -> Rig {
    let parents: Vec<Option<usize>> = (0..n).map(|j| j.checked_sub(1)).collect();
    synthetic_rig("chain", &parents, Vec3::new(0.0, 0.1, 0.0))
}

pub(crate) fn fan_rig(n: usize) -> Rig {
    let parents: Vec<Option<usize>> = (0..n).map(|j| (j > 0).then_some(0)).collect();
    synthetic_rig("fan", &parents, Vec3::new(0.3, 0.0, 0.1))
}

pub(crate) fn all_assets() -> Vec<PathBuf> {
    let mut files = common::shared_assets();
    files.extend(common::repo_assets());
    files.extend(common::fbx_assets());
    files
}

/// One record per rig at rest, then one per clip and sample time of each rig (every other one
/// under a random world): the items every-asset comparisons pack.
pub(crate) fn every_clip_items(
    rigs: &[Rig],
    rng: &mut Rng,
) -> Vec<(u32, u32, Affine3A, Vec<Layer>)> {
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

/// A few masks of `rig`: a subtree, its inverse, a uniform half and a random one.
pub(crate) fn masks_for(rig: &Rig, rng: &mut Rng) -> Vec<JointMask> {
    let sk = &rig.skeleton;
    let mid = sk.names()[sk.joint_count() / 3].clone();
    let subtree = JointMask::from_subtrees(sk, &[&mid]).unwrap();
    let inverted = subtree.inverted();
    let random = JointMask {
        weights: (0..sk.joint_count()).map(|_| rng.range(0.0, 1.0)).collect(),
    };
    vec![subtree, inverted, JointMask::uniform(sk, 0.5), random]
}

/// `count` instances of random `rigs` at random worlds, each with one random layer, or one or
/// two when `two_layers`, unmasked: items for [`super::oracle::pack`].
pub(crate) fn random_items(
    rigs: &[Rig],
    rng: &mut Rng,
    count: usize,
    two_layers: bool,
) -> Vec<(u32, u32, Affine3A, Vec<sinew::Layer>)> {
    (0..count)
        .map(|_| {
            let r = rng.below(rigs.len());
            let layers = if two_layers { 1 + rng.below(2) } else { 1 };
            let layers = random_layers(&rigs[r], rng, 0, 0, layers);
            (r as u32, 0, rng.world(), layers)
        })
        .collect()
}

/// 1 to 4 random layers of `rig` (masks `mask_base..mask_base + mask_count`).
pub(crate) fn random_layers(
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
pub(crate) fn random_flags(rng: &mut Rng, n: usize) -> u32 {
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

pub(crate) fn blend_rigs() -> Vec<Rig> {
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
pub(crate) fn masks_for_all(rigs: &[Rig], rng: &mut Rng) -> (Vec<JointMask>, Vec<(u32, u32)>) {
    let mut masks = Vec::new();
    let mut ranges = Vec::new();
    for rig in rigs {
        let m = masks_for(rig, rng);
        ranges.push((masks.len() as u32, m.len() as u32));
        masks.extend(m);
    }
    (masks, ranges)
}

pub(crate) fn crowd_rigs() -> Vec<Rig> {
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

/// The rigs with morph targets: the generated asset's and RobotExpressive's (when present).
pub(crate) fn morph_rigs() -> Vec<Rig> {
    let mut rigs = Vec::new();
    if let Some(path) = repo_file("synthetic/morph.glb") {
        rigs.extend(load(&path));
    }
    if let Some(path) = shared_file("RobotExpressive.glb") {
        rigs.extend(load(&path));
    }
    rigs
}

/// Shuffles `items` in place.
pub(crate) fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.below(i + 1));
    }
}

/// Every wrap mode a layer clock has.
pub(crate) const WRAPS: [TimeWrap; 4] = [
    TimeWrap::None,
    TimeWrap::Loop,
    TimeWrap::Clamp,
    TimeWrap::PingPong,
];

/// `per_rig` instances of each of `rigs` with 1 to 4 random masked layers: the masks and the
/// packed records.
pub(crate) fn random_layered_records(
    rigs: &[Rig],
    rng: &mut Rng,
    per_rig: usize,
) -> (Vec<JointMask>, Vec<sinew::InstanceRecord>) {
    let (masks, mask_ranges) = masks_for_all(rigs, rng);
    let mut items = Vec::new();
    for (r, rig) in rigs.iter().enumerate() {
        let (base, count) = mask_ranges[r];
        for k in 0..per_rig {
            let layers = random_layers(rig, rng, base, count, 1 + k % 4);
            items.push((r as u32, 0, rng.world(), layers));
        }
    }
    (masks, super::oracle::pack(rigs, &items))
}
