//! Stage 2c, morph weights: each instance's mesh-node weights, sampled per layer with the same
//! clocks as its joints and blended like joint translations, then written after the instance's
//! joint entries in its palette block (12 weights per entry). Twin of `wgsl/morph.wgsl`.

use glam::Vec4;

use super::clip_source::{ClipSource, sample_weight_chunk_from};
use crate::baked::{Rig, WEIGHTS_PER_CHUNK, WEIGHTS_PER_ENTRY};
use crate::instance::{BlendMode, Layer};
use crate::mask::JointMask;
use crate::math::Mat3x4Rows;

/// Weight chunks (rows of 4 weights) per palette entry.
const CHUNKS_PER_ENTRY: usize = WEIGHTS_PER_ENTRY / WEIGHTS_PER_CHUNK;

/// The blended weights of chunk `chunk` (4 consecutive weights of the rig's weight vector):
/// start from the defaults, then apply each layer, bottom first, with weight `layer.weight ×
/// mask[joint]` (the joint of the chunk's mesh node): an override layer lerps toward its
/// sample (taking it at weight ≥ 1), an additive one adds `(sample − default) × weight`.
/// Layers must be valid ([`super::validate_layers`]).
#[inline]
pub fn blend_weight_chunk(rig: &Rig, masks: &[JointMask], layers: &[Layer], chunk: usize) -> Vec4 {
    blend_weight_chunk_from(rig, ClipSource::Exact, masks, layers, chunk)
}

/// [`blend_weight_chunk`] with the clips sampled from `source`.
#[inline]
pub fn blend_weight_chunk_from(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    chunk: usize,
) -> Vec4 {
    let lib = &rig.clips;
    let rest = lib.value(lib.weight_default_offset() + chunk);
    let joint = rig.morph.chunk_joint(chunk);
    let mut pose = rest;
    for layer in layers {
        let mask = layer.mask.map_or(1.0, |m| masks[m as usize].weights[joint]);
        let w = layer.weight * mask;
        if w <= 0.0 {
            continue;
        }
        let Some(sample) =
            sample_weight_chunk_from(rig, source, layer.clip as usize, chunk, layer.time)
        else {
            continue;
        };
        pose = match layer.mode {
            BlendMode::Override if w >= 1.0 => sample,
            BlendMode::Override => pose.lerp(sample, w),
            BlendMode::Additive => pose + (sample - rest) * w,
        };
    }
    pose
}

/// Writes the instance's morph weights into `entries`, the palette entries after its joint
/// entries: chunk `k` is row `k % 3` of entry `k / 3`; the rows of the last entry past the
/// weights are zero. Entries past the slice's end are not written.
pub fn write_morph_weights(
    rig: &Rig,
    masks: &[JointMask],
    layers: &[Layer],
    entries: &mut [Mat3x4Rows],
) {
    write_morph_weights_from(rig, ClipSource::Exact, masks, layers, entries);
}

/// [`write_morph_weights`] with the clips sampled from `source`.
pub fn write_morph_weights_from(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    entries: &mut [Mat3x4Rows],
) {
    let chunks = rig.clips.weight_chunk_count();
    let rows = rig.morph.palette_entries() * CHUNKS_PER_ENTRY;
    for k in 0..rows {
        let Some(entry) = entries.get_mut(k / CHUNKS_PER_ENTRY) else {
            return;
        };
        entry.rows[k % CHUNKS_PER_ENTRY] = if k < chunks {
            blend_weight_chunk_from(rig, source, masks, layers, k).to_array()
        } else {
            [0.0; 4]
        };
    }
}

/// The weight vector held by an instance's palette block `block` (joint entries, then morph
/// entries, as the evaluators write it): [`crate::RigMorph::weight_count`] weights, or fewer
/// when the block is short.
pub fn morph_weights(rig: &Rig, block: &[Mat3x4Rows]) -> Vec<f32> {
    let entries = block.get(rig.joint_count()..).unwrap_or(&[]);
    entries
        .iter()
        .flat_map(|e| e.rows.iter().flatten().copied())
        .take(rig.morph.weight_count())
        .collect()
}
