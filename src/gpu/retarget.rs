//! Retarget maps in the GPU library: per map, a plain and a mirrored row of per-target-joint
//! entries that `wgsl/retarget.wgsl` reads from the key values (the table starts at
//! `LibraryParams::retarget_offset`).

pub use crate::baked::retarget_map::RetargetBinding;
use crate::baked::retarget_map::{RetargetEntry, Translation};
use crate::error::GpuError;

/// Vec4s of one entry.
pub const RETARGET_ENTRY_VEC4S: usize = 4;
/// Entry flag: the sample is mirrored first.
pub const RETARGET_REFLECT: u32 = 1;
/// Entry flag: the translation is the source's, turned and scaled.
pub const RETARGET_SOURCE_TRANSLATION: u32 = 2;
/// Entry flag: the scale is the source's.
pub const RETARGET_SOURCE_SCALE: u32 = 4;
/// Source joint of an entry without one.
pub const RETARGET_NO_SOURCE: u32 = 0xffff;

fn bits(u: u32) -> f32 {
    f32::from_bits(u)
}

/// One entry as four vec4s: `pre`, `post`, (translation or 0, translation scale), (source joint
/// | flags << 16, constant scale).
pub fn encode_entry(e: &RetargetEntry) -> [[f32; 4]; RETARGET_ENTRY_VEC4S] {
    let mut flags = if e.reflect { RETARGET_REFLECT } else { 0 };
    let translation = match e.translation {
        Translation::Constant(c) => [c.x, c.y, c.z, 0.0],
        Translation::Source { scale } => {
            flags |= RETARGET_SOURCE_TRANSLATION;
            [0.0, 0.0, 0.0, scale]
        }
    };
    if e.scale.is_none() {
        flags |= RETARGET_SOURCE_SCALE;
    }
    let scale = e.scale.unwrap_or(glam::Vec3::ONE);
    let source = e.source.map_or(RETARGET_NO_SOURCE, u32::from);
    [
        e.pre.to_array(),
        e.post.to_array(),
        translation,
        [bits(source | (flags << 16)), scale.x, scale.y, scale.z],
    ]
}

/// The table appended to the key values at `offset`: (row count) then one vec4 per row (2 per
/// binding: plain, mirrored) of (source rig, first entry, joint count, plane) as bits, then the
/// entries.
pub fn encode_table(
    bindings: &[RetargetBinding],
    offset: usize,
) -> Result<Vec<[f32; 4]>, GpuError> {
    let rows = bindings.len() * 2;
    let to_u32 = |n: usize| {
        u32::try_from(n).map_err(|_| GpuError::LimitExceeded {
            limit: "key value table length",
            needed: n as u64,
            available: u64::from(u32::MAX),
        })
    };
    let mut out = vec![[bits(to_u32(rows)?), 0.0, 0.0, 0.0]];
    let mut entry = offset + 1 + rows;
    for b in bindings {
        for map in [&b.map, &b.mirrored] {
            let count = map.entries().len();
            out.push([
                bits(b.source),
                bits(to_u32(entry)?),
                bits(to_u32(count)?),
                bits(u32::from(map.plane().0)),
            ]);
            entry += count * RETARGET_ENTRY_VEC4S;
        }
    }
    for b in bindings {
        for map in [&b.map, &b.mirrored] {
            out.extend(map.entries().iter().flat_map(encode_entry));
        }
    }
    Ok(out)
}
