//! The compressed clip encoder: every clip of a rig framed (one grid or uniform segments of its
//! own keys, `framing.rs`, `segments.rs`), sampled with constant and rest channels stripped
//! (`sample.rs`), a bit rate searched per channel against an error budget (`bit_rates.rs`,
//! `levers.rs`) under ACL's error metric (`error.rs`; `figures.rs` the figures that compare with ACL's), quantized (`quantize.rs`) and packed into
//! words (`pack.rs`); `encode.rs` refines the frames until they suffice. The format itself is
//! [`crate::baked::compressed`].

mod bit_rates;
mod encode;
mod error;
mod figures;
mod framing;
mod levers;
mod pack;
mod quantize;
mod sample;
mod segments;

pub use crate::baked::compressed::{
    ChannelCode, ChannelKind, ClipSegment, CompressedClip, CompressedClips, DEFAULT_ERROR_BUDGET,
    MAX_ERROR_BUDGET, MAX_SEGMENTS, MIN_ERROR_BUDGET, SEGMENT_WORDS, channel_kind,
};
pub use error::{
    MAX_MEASURED_POSES, VIRTUAL_VERTEX_DISTANCE, WEIGHT_ERROR_BUDGET, dense_times, vertex_error,
    vertex_offsets,
};
pub use figures::{ACL_RAW_JOINT_BYTES, AclFigures, acl_joints, sample_times};
