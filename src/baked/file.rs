//! The `.sinew` baked file format: rigs stored so that loading them needs no glTF parsing and
//! is mostly a copy of flat arrays.
//!
//! # Layout (version 9)
//!
//! All numbers are little-endian.
//!
//! ```text
//! offset  size  field
//! 0       8     magic  89 'S' 'I' 'N' 'E' 'W' 0D 0A
//! 8       4     format version (u32, FORMAT_VERSION)
//! 12      8     checksum (u64) of every byte from offset 20 to the end of the file
//! 20      8     file length in bytes (u64)
//! 28      4     section count (u32)
//! 32      32×n  section table, one entry per section:
//!                 kind u32, rig u32, index u32, reserved u32 (0), offset u64, length u64
//! ...           section bodies, each starting at a multiple of 16, zero padding between
//! ```
//!
//! The first 20 bytes are the header; the checksum (see [`checksum`]) covers everything after
//! it. Each rig `r` has one section of each of these kinds (index 0), plus one mesh section per
//! mesh (index = mesh number):
//!
//! | kind | section  | body                                                                  |
//! |------|----------|-----------------------------------------------------------------------|
//! | 1    | rig      | mesh, skin, skin joint and joint bound counts; name; skin names; skin glTF indices (u32); joints per skin (u32); skin joints of every skin back to back (u16); joint bounds |
//! | 2    | skeleton | joint count, level start count; names; parents (u16); level starts (u16); rest SQT (10 × f32: translation, rotation xyzw, scale); inverse binds (12 × f32, column-major 3×4); source nodes (u32) |
//! | 3    | clips    | joint count, clip, track, time and value counts; clip names; durations (f32); track descriptors (4 × u32); key times (f32); key values (4 × f32) |
//! | 4    | mesh     | has tangents (0 or 1), then the counts of positions, normals, uvs, tangents, joints, weights, indices, joint bounds; glTF node and skin (u32, `u32::MAX`: none, a rigid mesh's skin); name; bind AABB; positions, normals, uvs (3, 3, 2 × f32), tangents (4 × f32, if any), joints (4 × u16), weights (4 × f32), indices (u32), joint bounds |
//! | 5    | morph    | only for a rig with morph targets: node, weight chunk, default key offset, weight track and default weight counts; nodes (4 × u32: glTF node, mask joint, first weight, target count); node names; default weights (f32, node after node); weight track descriptors (4 × u32, clip × chunk) |
//! | 6    | mesh morph | only for a mesh with morph targets (index = mesh number): target count, first weight, position and normal delta counts; position deltas, normal deltas (3 × f32, target-major) |
//! | 7    | mesh influences | only for a mesh with a nonzero weight past the fourth or vertices cut to eight influences (index = mesh number): cut vertex count, joint and weight counts; joints 5-8 (4 × u16), weights 5-8 (4 × f32) |
//! | 8    | compressed clips | only for a rig with compressed clips: joint count, weight chunk count, clip, channel and data word counts, budget and max error (f32 bits); clip records (8 × u32: rate, duration as f32, frame count, channel offset, frame offset, frame words, segment offset, segment count); channel codes (2 × u32: code, bit offset with the rotation layout in its top 3 bits); data words (u32), as [`crate::baked::compressed`] describes |
//!
//! | 9    | materials | only for a rig whose meshes have a material: image, material, pixel byte and warning counts; image names; image sizes (4 × u32: width, height, 0, 0); pixels (u8: each image's `width × height` RGBA8 texels, rows top to bottom, image after image); material names; base colour factors (4 × f32); parameters (4 × f32: normal scale, alpha cutoff, 0, 0); flags (4 × u32: alpha mode 0 opaque / 1 mask / 2 blend, double-sided 0 or 1, warning count, 0); base colour and normal textures (4 × u32 each: image, `u32::MAX` none; sampler bits: linear magnification, linear minification, wrap u and v in two bits each (0 repeat, 1 mirrored, 2 clamp); UV set; 0); metallic-roughness factors (4 × f32: metallic, roughness, occlusion strength, 0; each in [0, 1]); emissive factors (4 × f32: rgb in [0, 1], 0); metallic-roughness, occlusion and emissive textures (4 × u32 each, as the base colour's); warnings (strings, material after material) |
//! | 11   | markers  | only for a rig with clip sync markers: marker count; each marker's clip (u32), time (f32) and name (strings), clip after clip, each clip's in time order |
//! | 10   | mesh surface | only for a mesh with a material, vertex colours or `TEXCOORD_1` (index = mesh number): material (index into section 9, `u32::MAX`: none), flags (bit 0: colours, bit 1: `TEXCOORD_1`), colour and uv1 counts; colours (4 × f32), uvs1 (2 × f32) |
//!
//! Images are stored as the decoded RGBA8 texels sinew draws, not the PNG or JPEG bytes of the
//! source: a file is self-contained and loads without an image decoder, at the price of size
//! (a 1024² texture is 4 MiB). A rig stores each distinct material and image once.
//!
//! Version 2 added sections 5 and 6 (the weight keys live in the clips section's key tables);
//! version 3 stores each skin's palette map in the rig section (one rig per skeleton), each
//! mesh's node and skin, and adds section 7 (a mesh without it has four influences); version 4
//! adds section 8; version 5 gives its clip records' last two words, zero before, to segment
//! tables, and its encoder measures rotations with the decoder's slerp-corrected interpolation
//! (version 4 clips decode with it too, nearer the exact slerp than the plain normalized lerp
//! their stored max error was measured with); version 6 adds sections 9 and 10 (meshes of older
//! files load without material, colours or `TEXCOORD_1`, and draw in their batch's mesh
//! colours); version 7 stores each material's metallic-roughness factors and textures, occlusion
//! and emissive in section 9 (version 6 materials load with glTF's defaults: metallic 1,
//! roughness 1, no occlusion, no emission); version 8 lets a compressed channel store each
//! component in fewer bits than its rate (bits 17..=28 of a channel code's bit offset, zero in
//! older files); version 9 adds section 11 (clips of older files have no markers). Version 1 to 8
//! files still load (see below).
//!
//! Inside a body, counts are u32s at the start; every array, and every string table, starts at
//! the next multiple of 16 from the section start. A string table is `count` u32 byte lengths
//! followed by the UTF-8 bytes of all strings back to back. An AABB is 8 × f32 (min, max, each
//! padded to 4). A change to any of this is a new [`FORMAT_VERSION`].
//!
//! In version 1 and 2 files the rig body is mesh count, skin joint count, joint bound count;
//! name; skin joints (u16); joint bounds: one skin per rig, which was glTF skin `r` of rig `r`
//! (a rig without skin joints has no skin); their mesh bodies have no node and skin (the
//! meshes load with the rig's one skin and an unknown node).
//!
//! Loading checks the envelope (magic, version, length, checksum), then decodes every section
//! and checks the baked invariants again (see `file/validate.rs`), so a file with a recomputed
//! checksum but inconsistent data is rejected as [`FormatErrorKind::Corrupt`], never trusted.

mod checksum;
mod compressed;
mod container;
mod decode;
mod encode;
mod influences;
mod markers;
mod materials;
mod morph;
mod section;
mod surface;
pub(super) mod validate;

pub use checksum::checksum;

use std::path::Path;

use super::Rig;
use crate::error::{FormatError, FormatErrorKind};

/// The first eight bytes of every `.sinew` file.
pub const MAGIC: [u8; 8] = *b"\x89SINEW\r\n";

/// The format version this build writes (and the newest it reads).
pub const FORMAT_VERSION: u32 = 9;

/// The oldest format version this build reads.
pub const OLDEST_FORMAT_VERSION: u32 = 1;

/// The last format version with one skin per rig (its rig section has no skin table, its mesh
/// sections no node and skin).
pub(super) const LAST_ONE_SKIN_VERSION: u32 = 2;

/// A node or skin index that is absent (u32::MAX).
pub(super) const NO_INDEX: u32 = u32::MAX;

/// Encodes `rigs` as the bytes of a `.sinew` file.
pub fn to_bytes(rigs: &[Rig]) -> Vec<u8> {
    container::assemble(&encode::sections(rigs))
}

/// Decodes the bytes of a `.sinew` file. `name` names the file in errors.
pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Vec<Rig>, FormatError> {
    container::open(bytes)
        .and_then(|mut table| decode::rigs(&mut table))
        .map_err(|kind| FormatError {
            file: name.to_string(),
            kind,
        })
}

/// Writes `rigs` to `path`. The file is written under a temporary name next to `path` and then
/// renamed, so a failed write never leaves a partial file at `path`.
pub fn write_file(path: impl AsRef<Path>, rigs: &[Rig]) -> Result<(), FormatError> {
    let path = path.as_ref();
    let io_error = |e: std::io::Error| FormatError {
        file: path.display().to_string(),
        kind: FormatErrorKind::Io(e.to_string()),
    };
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    std::fs::write(&partial, to_bytes(rigs)).map_err(io_error)?;
    std::fs::rename(&partial, path).map_err(|e| {
        // Best effort: the rename error is the one worth reporting.
        let _ = std::fs::remove_file(&partial);
        io_error(e)
    })
}

/// Reads rigs from `path`.
pub fn read_file(path: impl AsRef<Path>) -> Result<Vec<Rig>, FormatError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => from_bytes(&bytes, &name),
        Err(e) => Err(FormatError {
            file: name,
            kind: FormatErrorKind::Io(e.to_string()),
        }),
    }
}
