//! The WGSL of the evaluate pipeline, assembled from one file per stage (`wgsl/`) in pipeline
//! order after the shared layout and math. The compressed-clip pipeline is the same module with
//! `wgsl/decode.wgsl` in place of the sample stage `wgsl/sample.wgsl`.

use super::shape::EvaluateShape;

/// The WGSL files of the evaluate module, in the order they are concatenated.
pub const EVALUATE_SOURCES: [(&str, &str); 15] = [
    (
        "common/layout.wgsl",
        include_str!("../../wgsl/common/layout.wgsl"),
    ),
    (
        "common/math.wgsl",
        include_str!("../../wgsl/common/math.wgsl"),
    ),
    ("clock.wgsl", include_str!("../../wgsl/clock.wgsl")),
    ("retarget.wgsl", include_str!("../../wgsl/retarget.wgsl")),
    ("sample.wgsl", include_str!("../../wgsl/sample.wgsl")),
    ("blend.wgsl", include_str!("../../wgsl/blend.wgsl")),
    ("inertial.wgsl", include_str!("../../wgsl/inertial.wgsl")),
    ("morph.wgsl", include_str!("../../wgsl/morph.wgsl")),
    (
        "root_motion.wgsl",
        include_str!("../../wgsl/root_motion.wgsl"),
    ),
    ("propagate.wgsl", include_str!("../../wgsl/propagate.wgsl")),
    ("ik.wgsl", include_str!("../../wgsl/ik.wgsl")),
    ("skin.wgsl", include_str!("../../wgsl/skin.wgsl")),
    ("aabb.wgsl", include_str!("../../wgsl/aabb.wgsl")),
    ("lod.wgsl", include_str!("../../wgsl/lod.wgsl")),
    ("evaluate.wgsl", include_str!("../../wgsl/evaluate.wgsl")),
];

/// The previous palette of motion vectors (the pipelines of
/// [`GpuOptions::previous_palette`](crate::GpuOptions::previous_palette)), before
/// `evaluate.wgsl`.
pub const PREVIOUS_PALETTE_SOURCE: (&str, &str) = (
    "previous_palette.wgsl",
    include_str!("../../wgsl/previous_palette.wgsl"),
);

/// What the other pipelines have in place of [`PREVIOUS_PALETTE_SOURCE`]: nothing kept.
pub const NO_PREVIOUS_PALETTE: &str =
    "fn keep_previous(rig: RigDesc, first: u32, count: u32, lane: u32) {}\n";

/// The sample stage of the compressed-clip pipeline, in place of `sample.wgsl`.
pub const DECODE_SOURCE: (&str, &str) = ("decode.wgsl", include_str!("../../wgsl/decode.wgsl"));

/// The WGSL files of the slot-list compaction module of indirect frames
/// ([`crate::GpuBackend`]'s animation LOD), in the order they are concatenated.
pub const LOD_COMPACT_SOURCES: [(&str, &str); 3] = [
    (
        "common/layout.wgsl",
        include_str!("../../wgsl/common/layout.wgsl"),
    ),
    ("lod.wgsl", include_str!("../../wgsl/lod.wgsl")),
    (
        "lod_compact.wgsl",
        include_str!("../../wgsl/lod_compact.wgsl"),
    ),
];

/// Invocations per workgroup of the compaction kernel (`COMPACT_WORKGROUP_SIZE` in
/// `wgsl/lod_compact.wgsl`).
pub const LOD_COMPACT_WORKGROUP_SIZE: u32 = 64;

/// The whole compaction module of `shape` (the evaluation's, whose workgroups it lists
/// slots for): its constants, then every file of [`LOD_COMPACT_SOURCES`], each preceded by a
/// comment naming it.
pub fn lod_compact_shader_source(shape: EvaluateShape) -> String {
    assemble(&LOD_COMPACT_SOURCES, shape, false, None)
}

/// Name of the evaluation entry point.
pub const EVALUATE_ENTRY_POINT: &str = "evaluate";

/// Invocations per workgroup of the evaluate kernel (`WORKGROUP_SIZE` in `wgsl/evaluate.wgsl`).
pub const EVALUATE_WORKGROUP_SIZE: u32 = 16;

/// The whole evaluate module of `shape`: its constants, then every file of
/// [`EVALUATE_SOURCES`], each preceded by a comment naming it.
pub fn evaluate_shader_source(shape: EvaluateShape) -> String {
    assemble(&EVALUATE_SOURCES, shape, false, Some(false))
}

/// The evaluate module of compressed clips: [`evaluate_shader_source`] with [`DECODE_SOURCE`]
/// as its sample stage.
pub fn compressed_shader_source(shape: EvaluateShape) -> String {
    assemble(&EVALUATE_SOURCES, shape, true, Some(false))
}

/// The evaluate module of `shape` (of compressed clips with `compressed`) that keeps the
/// previous palette: `PREVIOUS_PALETTE_SOURCE` before `evaluate.wgsl`.
pub fn previous_palette_shader_source(shape: EvaluateShape, compressed: bool) -> String {
    assemble(&EVALUATE_SOURCES, shape, compressed, Some(true))
}

/// `shape`'s constants, then `sources` concatenated, each preceded by a comment naming it;
/// with `compressed`, [`DECODE_SOURCE`] stands in for `sample.wgsl`. `previous` (evaluate
/// modules only): whether [`PREVIOUS_PALETTE_SOURCE`] or [`NO_PREVIOUS_PALETTE`] goes before
/// `evaluate.wgsl`.
fn assemble(
    sources: &[(&str, &str)],
    shape: EvaluateShape,
    compressed: bool,
    previous: Option<bool>,
) -> String {
    let mut source = String::from("// ---- EvaluateShape (src/gpu/shape.rs) ----\n");
    source.push_str(&shape.wgsl());
    for &(name, text) in sources {
        if name == "evaluate.wgsl" {
            match previous {
                Some(true) => {
                    source.push_str("// ---- wgsl/previous_palette.wgsl ----\n");
                    source.push_str(PREVIOUS_PALETTE_SOURCE.1);
                    source.push('\n');
                }
                Some(false) => source.push_str(NO_PREVIOUS_PALETTE),
                None => {}
            }
        }
        let (name, text) = if compressed && name == "sample.wgsl" {
            DECODE_SOURCE
        } else {
            (name, text)
        };
        source.push_str("// ---- wgsl/");
        source.push_str(name);
        source.push_str(" ----\n");
        source.push_str(text);
        source.push('\n');
    }
    source
}
