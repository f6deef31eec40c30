//! The GPU backend: every per-joint operation (keyframe search, interpolation, layer blending,
//! hierarchy propagation, skin matrices, animated AABBs) for all instances of all rigs in one
//! WGSL compute dispatch per frame.
//!
//! [`GpuContext`] holds the device; [`GpuBackend`] uploads rigs and masks once
//! ([`library`](GpuBackend::new)), owns the palette and AABB buffers, and evaluates a frame of
//! [`crate::InstanceRecord`]s. The kernel is `wgsl/evaluate.wgsl`, assembled from one file per
//! stage by [`evaluate_shader_source`].

mod async_read;
mod backend;
mod bounds_read;
mod clip_format;
mod compressed;
mod context;
pub mod layout;
mod library;
mod lod_compact;
mod lost;
mod palette;
mod palette_segment;
mod pipeline;
mod previous_palette;
mod readback;
mod resident;
mod retarget;
mod scope;
mod shader;
mod shape;
mod timer;
mod traffic;
mod worlds;

pub use backend::{FrameStats, GpuBackend, GpuOptions, SlotList};
pub use bounds_read::BoundsRead;
pub use clip_format::ClipFormat;
pub use compressed::{CLIP_DESC_WORDS, clip_words};
pub use context::GpuContext;
pub use library::{GpuLibrary, RigSummary};
pub use lost::DeviceLoss;
pub(crate) use lost::refused_work;
pub use palette::{BoundsBuffer, Palette};
pub use palette_segment::{PaletteSegment, locate_block};
pub use pipeline::{EvaluatePipeline, PREVIOUS_PALETTE_STORAGE_BUFFERS};
pub use previous_palette::{PreviousPalette, STAMP_BYTES};
pub use readback::{InstanceReadback, ReadRange, model_from_palette, read_ranges};
pub use retarget::{
    RETARGET_ENTRY_VEC4S, RETARGET_NO_SOURCE, RETARGET_REFLECT, RETARGET_SOURCE_SCALE,
    RETARGET_SOURCE_TRANSLATION, RetargetBinding, encode_entry, encode_table,
};
pub use scope::capture;
pub use shader::{
    DECODE_SOURCE, EVALUATE_ENTRY_POINT, EVALUATE_SOURCES, EVALUATE_WORKGROUP_SIZE,
    LOD_COMPACT_SOURCES, LOD_COMPACT_WORKGROUP_SIZE, compressed_shader_source,
    evaluate_shader_source, lod_compact_shader_source, previous_palette_shader_source,
};
pub use shape::EvaluateShape;
pub use timer::PassTimer;
pub use traffic::RigReads;
pub use worlds::WorldsRead;
