//! The compressed-clip kernel (`wgsl/decode.wgsl`): a hand-built compressed rig decodes to the
//! hand-computed pose, every rotation layout decodes as on the CPU, and the bytes read per joint
//! are the hand count. Against the CPU twin on whole assets: `compressed_twin.rs`.

use glam::{Affine3A, Quat, Vec3, Vec4};
use sinew::gpu::{ClipFormat, EvaluateShape, GpuOptions};
use sinew::{
    Aabb, ChannelCode, CompressedClip, CompressedClips, CpuBackend, GpuBackend, GpuContext,
    InstanceRecord, JointMask, Layer, Mat3x4Rows, Rig,
};

use super::common;

use super::fixtures::{chain_rig, every_shape, gpu};
use super::oracle::{assert_bounds_match, assert_transform_close, pack, palette_len};

/// Options of a backend that samples compressed clips.
pub(crate) fn compressed_options() -> GpuOptions {
    GpuOptions {
        clips: ClipFormat::Compressed {
            budget: sinew::DEFAULT_ERROR_BUDGET,
        },
        ..GpuOptions::default()
    }
}

pub(crate) fn compressed_backend(ctx: &GpuContext, rigs: &[Rig]) -> GpuBackend {
    GpuBackend::with_options(ctx, rigs, &[], compressed_options()).unwrap()
}

/// [`compressed_backend`] counting the kernel's reads of every frame.
pub(crate) fn counting_backend(ctx: &GpuContext, rigs: &[Rig]) -> GpuBackend {
    let mut backend = compressed_backend(ctx, rigs);
    backend.set_read_counting(true);
    backend
}

/// Frame records written bit by bit, as the format lays them out.
struct Bits {
    words: Vec<u32>,
}

impl Bits {
    fn new(words: usize) -> Self {
        Self {
            words: vec![0; words],
        }
    }

    fn put(&mut self, bit: usize, bits: u32, value: u32) {
        for b in 0..bits as usize {
            if (value >> b) & 1 == 1 {
                let at = bit + b;
                self.words[at / 32] |= 1 << (at % 32);
            }
        }
    }
}

/// f16 bits of `min` and `extent` as one range word (both exact in f16).
fn range(min: f32, extent: f32) -> u32 {
    let half = |v: f32| half::f16::from_f32(v).to_bits() as u32;
    half(min) | half(extent) << 16
}

/// Bit layout of one frame record of the hand-built clip: joint 0 translation (8 bits x 3) at
/// 0, joint 1 rotation (raw x 3, STEP) at 24, joint 1 scale (12 bits x 3) at 120: the 12-bit
/// x straddles words 3 and 4.
const T0_BIT: u32 = 0;
const R1_BIT: u32 = 24;
const S1_BIT: u32 = 120;
const FRAME_WORDS: u32 = 5;

fn r1_frame(f: usize) -> Quat {
    [Quat::from_rotation_x(0.4), Quat::from_rotation_x(-0.6)][f]
}

/// A 2-joint chain whose clip 0 is built by hand: two frames at 10 fps. Joint 0: translation
/// quantized in [0, 1] at 8 bits (frames (0, 255, 51) and (255, 0, 102), so (0, 1, 0.2) and
/// (1, 0, 0.4)), constant rotation, REST scale. Joint 1: REST translation, raw STEP rotation
/// (x 0.4 then x -0.6), scale quantized in [1, 2] at 12 bits (frames 0 and 4095 on every
/// component: 1 then 2). Clips 1 and 2: one frame, every channel REST.
pub(crate) fn hand_built() -> (Rig, Quat) {
    let mut rig = chain_rig(2);
    let r0 = Quat::from_rotation_z(0.5);
    let mut data = vec![range(0.0, 1.0); 3];
    data.extend(r0.to_array().map(f32::to_bits));
    let s1_range = data.len() as u32;
    data.extend([range(1.0, 1.0); 3]);
    let t0_range = 0;
    let r0_index = 3;
    let frame_offset = data.len() as u32;
    for f in 0..2 {
        let mut bits = Bits::new(FRAME_WORDS as usize);
        let t = [[0, 255, 51], [255, 0, 102]][f];
        let r = r1_frame(f).to_array();
        for (c, (t, r)) in t.into_iter().zip(r).enumerate() {
            bits.put(T0_BIT as usize + c * 8, 8, t);
            let q = r.to_bits();
            bits.put(R1_BIT as usize + c * 32, 32, q);
            bits.put(S1_BIT as usize + c * 12, 12, [0, 4095][f]);
        }
        data.extend(bits.words);
    }
    let mut channels = vec![
        ChannelCode::animated(8, false, t0_range, T0_BIT),
        ChannelCode::constant(r0_index),
        ChannelCode::rest(),
        ChannelCode::rest(),
        ChannelCode::animated(ChannelCode::RAW_BITS, true, 0, R1_BIT),
        ChannelCode::animated(12, false, s1_range, S1_BIT),
    ];
    let mut clips = vec![CompressedClip {
        rate: 10.0,
        duration: 0.1,
        frame_count: 2,
        channel_offset: 0,
        frame_offset,
        frame_words: FRAME_WORDS,
        segment_offset: 0,
        segment_count: 0,
    }];
    for c in 1..3 {
        clips.push(CompressedClip {
            rate: 10.0,
            duration: 0.0,
            frame_count: 1,
            channel_offset: 6 * c,
            frame_offset,
            frame_words: FRAME_WORDS,
            segment_offset: 0,
            segment_count: 0,
        });
        channels.extend([ChannelCode::rest(); 6]);
    }
    rig.compressed =
        Some(CompressedClips::from_parts(2, 0, clips, channels, data, 1e-4, 0.0).unwrap());
    (rig, r0)
}

#[test]
fn a_hand_built_compressed_rig_decodes_to_the_hand_computed_pose() {
    let Some(ctx) = gpu() else { return };
    let (rig, r0) = hand_built();
    let rest = rig.skeleton.rest_pose().to_vec();
    let world = Affine3A::from_translation(Vec3::new(3.0, 0.0, -1.0));
    // (clip time, joint 0 translation, joint 1 rotation, joint 1 scale): u = 0.5, and u = 1 at
    // the end (the STEP rotation takes frame 1 there), and a clip of REST channels.
    let cases = [
        (0.05, Vec3::new(0.5, 0.5, 0.3), r1_frame(0), 1.5),
        (0.1, Vec3::new(1.0, 0.0, 0.4), r1_frame(1), 2.0),
        (-1.0, Vec3::new(0.0, 1.0, 0.2), r1_frame(0), 1.0),
    ];
    let mut records = Vec::new();
    let mut expected = Vec::new();
    for (k, (time, t0, r1, s1)) in cases.into_iter().enumerate() {
        let offset = (k * rig.palette_entries()) as u32;
        records.push(InstanceRecord::new(0, offset, &world, &[Layer::clip(0, time)]).unwrap());
        let m0 = world * Affine3A::from_scale_rotation_translation(rest[0].scale, r0, t0);
        let m1 = m0
            * Affine3A::from_scale_rotation_translation(Vec3::splat(s1), r1, rest[1].translation);
        expected.push([m0, m1]);
    }
    // Clip 1: every channel REST, the rest pose.
    let offset = (cases.len() * rig.palette_entries()) as u32;
    records.push(InstanceRecord::new(0, offset, &world, &[Layer::clip(1, 0.3)]).unwrap());
    let m0 = world * rest[0].to_affine();
    expected.push([m0, m0 * rest[1].to_affine()]);

    let mut backend = compressed_backend(ctx, std::slice::from_ref(&rig));
    backend
        .reserve_palette((records.len() * rig.palette_entries()) as u32)
        .unwrap();
    backend.evaluate(&records).unwrap();
    let entries = (records.len() * rig.palette_entries()) as u32;
    let palette = backend.read_palette(0..entries).unwrap();
    for (k, (rec, models)) in records.iter().zip(&expected).enumerate() {
        for (j, model) in models.iter().enumerate() {
            let bind = rig.skeleton.inverse_binds()[j];
            let want = Mat3x4Rows::from_affine(&(*model * bind)).to_cols_array();
            let got = palette[rec.palette_offset as usize + j].to_cols_array();
            assert_transform_close(&got, &want, &format!("case {k} joint {j}"));
        }
    }
}

/// A 5-joint chain whose clip 0 (two frames at 10 fps) stores joint `j`'s rotation raw in
/// layout `j` (drop w, x, y, z, then all four), each turning near half a turn about the axis
/// of the component it drops (a full spin's quarter for the last); every other channel REST.
/// Returns the rig and each joint's two frame rotations.
fn hand_built_layouts() -> (Rig, Vec<[Quat; 2]>) {
    use std::f32::consts::PI;
    let mut rig = chain_rig(5);
    let turns: Vec<[Quat; 2]> = vec![
        [Quat::from_rotation_y(0.3), Quat::from_rotation_y(-0.2)],
        [
            Quat::from_rotation_x(0.9 * PI),
            Quat::from_rotation_x(1.1 * PI),
        ],
        [
            Quat::from_rotation_y(0.95 * PI),
            Quat::from_rotation_y(1.05 * PI),
        ],
        [
            Quat::from_rotation_z(0.9 * PI),
            Quat::from_rotation_z(1.2 * PI),
        ],
        [
            Quat::from_rotation_z(0.25 * PI),
            Quat::from_rotation_z(0.75 * PI),
        ],
    ];
    // Stored components per layout: the three kept in xyzw order (the dropped one made
    // >= 0), or all four.
    let stored = |layout: u32, q: Quat| -> Vec<f32> {
        let v = Vec4::from(q);
        let drop = [3, 0, 1, 2].get(layout as usize).copied();
        match drop {
            Some(d) => {
                let v = if v[d] < 0.0 { -v } else { v };
                (0..4).filter(|&c| c != d).map(|c| v[c]).collect()
            }
            None => v.to_array().to_vec(),
        }
    };
    let frame_words = 3 * 4 + 4;
    let mut data = Vec::new();
    let mut codes = Vec::new();
    let mut bit = 0;
    for (j, _) in turns.iter().enumerate() {
        let layout = j as u32;
        codes.extend([
            ChannelCode::rest(),
            ChannelCode::animated(ChannelCode::RAW_BITS, false, 0, bit).with_layout(layout),
            ChannelCode::rest(),
        ]);
        bit += 32
            * if layout == ChannelCode::FULL_ROTATION {
                4
            } else {
                3
            };
    }
    for f in 0..2 {
        let mut bits = Bits::new(frame_words);
        for (j, turn) in turns.iter().enumerate() {
            let at = codes[j * 3 + 1].first_bit() as usize;
            for (c, v) in stored(j as u32, turn[f]).into_iter().enumerate() {
                bits.put(at + c * 32, 32, v.to_bits());
            }
        }
        data.extend(bits.words);
    }
    let mut clips = vec![CompressedClip {
        rate: 10.0,
        duration: 0.1,
        frame_count: 2,
        channel_offset: 0,
        frame_offset: 0,
        frame_words: frame_words as u32,
        segment_offset: 0,
        segment_count: 0,
    }];
    for c in 1..rig.clips.clip_count() {
        clips.push(CompressedClip {
            rate: 10.0,
            duration: 0.0,
            frame_count: 1,
            channel_offset: 15 * c as u32,
            frame_offset: 0,
            frame_words: frame_words as u32,
            segment_offset: 0,
            segment_count: 0,
        });
        codes.extend([ChannelCode::rest(); 15]);
    }
    rig.compressed =
        Some(CompressedClips::from_parts(5, 0, clips, codes, data, 1e-4, 0.0).unwrap());
    (rig, turns)
}

#[test]
fn every_rotation_layout_decodes_on_the_gpu_as_on_the_cpu() {
    let (rig, turns) = hand_built_layouts();
    let clips = rig.compressed.as_ref().unwrap();
    // The CPU twin rebuilds each frame's rotation (either sign).
    for (j, turn) in turns.iter().enumerate() {
        for (f, q) in turn.iter().enumerate() {
            let got = sinew::cpu::sample_channel(clips, 0, j * 3 + 1, Vec4::W, f as f32 * 0.1);
            let q = Vec4::from(*q);
            let diff = (got - q)
                .abs()
                .max_element()
                .min((got + q).abs().max_element());
            assert!(diff < 1e-6, "joint {j} frame {f}: {got} for {q}");
        }
    }
    let Some(ctx) = gpu() else { return };
    let rigs = vec![rig];
    let items: Vec<_> = [0.0, 0.025, 0.05, 0.08, 0.1]
        .into_iter()
        .map(|t| (0u32, 0, Affine3A::IDENTITY, vec![Layer::clip(0, t)]))
        .collect();
    let records = pack(&rigs, &items);
    assert_compressed_matches_cpu(ctx, &rigs, &[], &records, &|i| {
        format!("layers {:?}", items[i].3)
    });
}

#[test]
fn bytes_read_per_joint_is_the_hand_count_of_the_compressed_kernel_loads() {
    let Some(ctx) = gpu() else { return };
    let (rig, _) = hand_built();
    let record = |t| InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(0, t)]).unwrap();
    let mut backend = counting_backend(ctx, std::slice::from_ref(&rig));
    // Per pass: rig descriptor 64, the starts of level 1 (8); per joint rest pose with parent
    // and has_bounds 48, inverse bind 48, bounds 24 (both joints have a vertex).
    let pass = 64 + 8 + 2 * (48 + 48) + 2 * 24;
    // Per instance: record header 16, world 48, rig descriptor 64 (propagation reads the
    // parents the pass keeps in workgroup memory).
    let instance = 16 + 48 + 64;
    // The layer: its record 48 and clip descriptor 28 (no segments).
    let layer = 48 + 28;
    // Per joint its rest mask (4), then each channel that is not REST (code 4), each frame's
    // words read once: joint 0 translation, 8 bits from bit 0: bit offset 4, 3 ranges 12, 2
    // frames x 1 word (24 bits); rotation constant 16; scale REST. Joint 1 translation REST;
    // rotation raw STEP from bit 24: bit offset 4, 2 frames x 4 words (bits 24..120); scale 12
    // bits from bit 120: bit offset 4, ranges 12, 2 frames x 2 words (bits 120..156).
    let channels =
        4 + (4 + 4 + 12 + 2 * 4) + (4 + 16) + 4 + (4 + 4 + 2 * 4 * 4) + (4 + 4 + 12 + 2 * 2 * 4);
    // Clip 1, every channel REST: the two rest masks only.
    let rest_clip = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(1, 0.0)]).unwrap();
    backend.evaluate(&[rest_clip]).unwrap();
    assert_eq!(
        backend.last_frame().bytes_read.unwrap(),
        (pass + instance + layer + 2 * 4) as u64
    );
    backend.evaluate(&[record(0.05)]).unwrap();
    let one = (pass + instance + layer + channels) as f64;
    assert_eq!(backend.bytes_read_per_joint(), Some(one / 2.0));
    assert_eq!(backend.last_frame().bytes_read, Some(one as u64));
    // Two instances of the rig in one workgroup share one pass: its rig data is read once.
    let mut pair = [record(0.05), record(0.05)];
    pair[1].palette_offset = rig.palette_entries() as u32;
    backend
        .reserve_palette(2 * rig.palette_entries() as u32)
        .unwrap();
    backend.evaluate(&pair).unwrap();
    let two = (pass + 2 * (instance + layer + channels)) as f64;
    assert_eq!(backend.bytes_read_per_joint(), Some(two / 4.0));
    // Not counted unless asked: the count walks every record on the CPU.
    backend.set_read_counting(false);
    backend.evaluate(&pair).unwrap();
    assert_eq!(backend.bytes_read_per_joint(), None);
    // Six instances: one workgroup and one pass in the wide shape; two workgroups of the
    // narrow one (four slots and two), a pass each.
    for ctx in every_shape() {
        let mut backend = counting_backend(ctx, std::slice::from_ref(&rig));
        let shape = backend.evaluate_shape();
        let n = rig.palette_entries() as u32;
        backend.reserve_palette(6 * n).unwrap();
        let six: Vec<InstanceRecord> = (0..6)
            .map(|i| InstanceRecord {
                palette_offset: i * n,
                ..record(0.05)
            })
            .collect();
        backend.evaluate(&six).unwrap();
        let passes = if shape == EvaluateShape::WIDE { 1 } else { 2 };
        assert_eq!(
            backend.last_frame().bytes_read.unwrap(),
            (passes * pass + 6 * (instance + layer + channels)) as u64,
            "{shape:?}"
        );
    }
}

/// Asserts column-major `a` is within [`common::COMPRESSED_MATRIX_TOLERANCE`] of `b`, relative
/// to the largest magnitude in each column (as the exact comparison).
pub(crate) fn assert_rebuilt_close(a: &[f32; 16], b: &[f32; 16], what: &str) {
    for i in 0..16 {
        let column = &b[i / 4 * 4..i / 4 * 4 + 3];
        let scale = column.iter().fold(1.0f32, |m, v| m.max(v.abs()));
        let tol = common::COMPRESSED_MATRIX_TOLERANCE * scale;
        assert!(
            (a[i] - b[i]).abs() <= tol,
            "{what}: element {i} differs by {} (tolerance {tol})\n  got      {a:?}\n  expected {b:?}",
            (a[i] - b[i]).abs()
        );
    }
}

/// Evaluates `records` on a compressed backend over `rigs` (their stored compressed clips) and
/// compares every palette entry, morph weight and AABB with the CPU twin.
pub(crate) fn assert_compressed_matches_cpu(
    ctx: &GpuContext,
    rigs: &[Rig],
    masks: &[JointMask],
    records: &[InstanceRecord],
    describe: &dyn Fn(usize) -> String,
) {
    let mut backend = GpuBackend::with_options(ctx, rigs, masks, compressed_options()).unwrap();
    let len = palette_len(rigs, records);
    backend.reserve_palette(len as u32).unwrap();
    backend.evaluate(records).unwrap();
    assert_eq!(backend.dispatches_last_frame(), 1);
    let gpu_palette = backend.read_palette(0..len as u32).unwrap();
    let gpu_bounds = backend.read_bounds(0..records.len()).unwrap();
    // The CPU twin: the exact evaluator's stages with the compressed sample stage.
    let mut cpu = CpuBackend::with_compressed(rigs.to_vec(), masks.to_vec()).unwrap();
    let mut cpu_palette = vec![Mat3x4Rows::IDENTITY; len];
    let mut cpu_bounds = vec![Aabb::EMPTY; records.len()];
    cpu.evaluate(records, &mut cpu_palette, &mut cpu_bounds)
        .unwrap();
    for (i, rec) in records.iter().enumerate() {
        let rig = &rigs[rec.rig as usize];
        let start = rec.palette_offset as usize;
        let block = &cpu_palette[start..start + rig.palette_entries()];
        let aabb = cpu_bounds[i];
        for j in 0..rig.joint_count() {
            let g = gpu_palette[start + j].to_cols_array();
            let c = block[j].to_cols_array();
            assert_rebuilt_close(&g, &c, &format!("{} joint {j}", describe(i)));
        }
        common::assert_vec_close(
            &sinew::cpu::morph_weights(rig, &gpu_palette[start..start + rig.palette_entries()]),
            &sinew::cpu::morph_weights(rig, block),
            common::WEIGHT_TOLERANCE,
            &format!("{} morph weights", describe(i)),
        );
        assert_bounds_match(&gpu_bounds[i], &aabb, &describe(i));
    }
}
