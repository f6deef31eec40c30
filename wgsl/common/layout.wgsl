// Structs shared with Rust and the bindings of the evaluate pipeline.
//
// Keep in sync with the Rust twins: `InstanceRecord` and `LayerRecord` (src/instance.rs),
// `TrackDesc` (src/baked/clip_library.rs), `Mat3x4Rows` (src/math/mod.rs), `Aabb`
// (src/math/aabb.rs) and `FrameHeader`, `RigDesc`, `RootFrame` (`RootFrameDesc`),
// `JointDesc`, `LibraryParams` (src/gpu/layout.rs). tests/shaders.rs compares every member
// offset and struct size.

const MAX_JOINTS: u32 = 256u;
const MAX_LAYERS: u32 = 4u;
// GROUP_INSTANCES (instance slots one evaluate workgroup takes) and PASS_JOINTS (joints of a
// pass in workgroup memory) come first in the assembled module, from `EvaluateShape`.
const NO_PARENT: u32 = 0xffffu;
const LAYER_ADDITIVE: u32 = 0x80000000u;
const LAYER_MASK: u32 = 0x00ffffffu;
const LAYER_MIRROR: u32 = 0x40000000u;
const LAYER_CLIP: u32 = 0xffffu;
const LAYER_MAP_SHIFT: u32 = 16u;
const LAYER_WRAP: u32 = 0x03000000u;
const LAYER_WRAP_SHIFT: u32 = 24u;
const TIME_WRAP_NONE: u32 = 0u;
const TIME_WRAP_LOOP: u32 = 1u;
const TIME_WRAP_CLAMP: u32 = 2u;
const TIME_WRAP_PING_PONG: u32 = 3u;
const ROOT_JOINT: u32 = 0xffu;
const HOLD_ROOT_XZ: u32 = 0x100u;
const HOLD_ROOT_XYZ: u32 = 0x200u;
const HOLD_ROOT_YAW: u32 = 0x400u;
const GPU_ROOT_MOTION: u32 = 0x800u;
const BASE_LAYERS: u32 = 0x7000u;
const BASE_LAYERS_SHIFT: u32 = 12u;
const WORLD_PLACED: u32 = 0x8000u;
const UPDATE_EVERY: u32 = 0x1f0000u;
const UPDATE_EVERY_SHIFT: u32 = 16u;
const UPDATE_PHASE: u32 = 0x3e00000u;
const UPDATE_PHASE_SHIFT: u32 = 21u;
const LOD_LEVEL: u32 = 0xc000000u;
const LOD_LEVEL_SHIFT: u32 = 26u;
const FROZEN: u32 = 0x10000000u;
const SKIP_CULLED: u32 = 0x20000000u;
const LOD_BITS: u32 = 0x3fff0000u;
const CULLED_REFRESH: u32 = 8u;
const HEADER_EVALUATE_ALL: u32 = 1u;
const HEADER_LOD_POLICY: u32 = 2u;
const HEADER_POLICY_SKIPS_CULLED: u32 = 4u;
const HEADER_INDIRECT: u32 = 8u;
const INTERPOLATION_STEP: u32 = 0u;
const INTERPOLATION_LINEAR: u32 = 1u;
const INTERPOLATION_CUBIC: u32 = 2u;
const CHANNEL_TRANSLATION: u32 = 0u;
const CHANNEL_ROTATION: u32 = 1u;
const CHANNEL_SCALE: u32 = 2u;
const ROOT_FRAME_VEC4S: u32 = 7u;
const IK_VEC4S: u32 = 4u;
const IK_KIND_TWO_BONE: u32 = 0u;
const IK_KIND_AIM: u32 = 1u;

// A 3x4 affine matrix as three rows; row i is (m[0][i], m[1][i], m[2][i], m[3][i]).
struct Mat3x4Rows {
    rows: array<vec4<f32>, 3>,
}

// A layer as a function of the frame time (see `LayerRecord` in src/instance.rs).
struct LayerRecord {
    // Bits 0..=15: clip index; bits 16..=31: retarget map index + 1 (0: the rig's own clip).
    clip: u32,
    // Unwrapped clip time at `anchor`.
    time: f32,
    // Weight once faded in.
    weight: f32,
    // Bits 0..=23: mask index + 1 (0 = no mask); bits 24..=25: TIME_WRAP_*; bit 30: mirror;
    // bit 31: additive.
    flags: u32,
    anchor: f32,
    // Clip seconds per second of frame time.
    rate: f32,
    period: f32,
    weight_from: f32,
    fade_start: f32,
    // 0: no fade.
    fade_rate: f32,
    share_sum: f32,
    // Clock rate gained as the fade completes (0: a steady clock).
    rate_gain: f32,
}

struct InstanceRecord {
    rig: u32,
    palette_offset: u32,
    layer_count: u32,
    // Root motion: bits 0..=7 name a joint, HOLD_ROOT_* bits say what to hold at rest;
    // GPU_ROOT_MOTION moves `world` by it (from the BASE_LAYERS bottom layers) and writes it back.
    flags: u32,
    world: Mat3x4Rows,
    layers: array<LayerRecord, 4>,
}

struct TrackDesc {
    time_offset: u32,
    value_offset: u32,
    key_count: u32,
    interpolation: u32,
}

struct Aabb {
    min: vec4<f32>,
    max: vec4<f32>,
}

// One dispatch: `records[i]` is evaluated by workgroup i (2D grid, `grid_width` workgroups per
// row) at frame time `time`, and writes palette entries from `palette_offset - palette_base`
// and `bounds[first_instance + i]`. Root motion moves worlds over `prev_time` to `time`.
// wgsl/lod.wgsl decides from `frame`, `lod_flags` and the policy whether a record is evaluated.
struct FrameHeader {
    instance_count: u32,
    grid_width: u32,
    palette_base: u32,
    first_instance: u32,
    time: f32,
    prev_time: f32,
    // Frame counter (update rates), HEADER_* bits, resident slot of records[0], first box of
    // an indirect frame's slot list (wgsl/lod.wgsl).
    frame: u32,
    lod_flags: u32,
    slot_base: u32,
    list_base: u32,
    pad1: u32,
    pad2: u32,
    // LOD policy: eye (xyz), squared distances of levels 1..3, update interval per level.
    lod_eye: vec4<f32>,
    lod_distances: vec4<f32>,
    lod_every: vec4<u32>,
}

// Where one rig lives in the concatenated library arrays.
struct RigDesc {
    joint_offset: u32,
    joint_count: u32,
    level_count: u32,
    clip_count: u32,
    track_offset: u32,
    time_offset: u32,
    value_offset: u32,
    // First of the rig's root frames in key_values: ROOT_FRAME_VEC4S per joint.
    frame_offset: u32,
    // Morph weights: 4-weight chunks, the first weight track (clip x chunk) in `tracks`, chunk
    // 0's mask joint in `scalars` (as a float) and its default weights in `key_values`
    // (relative to `value_offset`); chunk k follows each at + k.
    weight_chunks: u32,
    weight_track_offset: u32,
    morph_joint_offset: u32,
    morph_default_offset: u32,
    // IK: IK_VEC4S key values per constraint from `ik_offset` (kind and joints as u32 bits,
    // aim axis + limit cosine, up axis + limit sine, world up); 0 constraints: no IK stage.
    ik_offset: u32,
    ik_count: u32,
    // Joints sampled at joint LOD levels 1..3, 10 bits each from bit 0.
    lod_sampled: u32,
    pad1: u32,
}

// The model-space frame of root motion for one joint as the root: the linear part of its
// parent's rest model matrix, its inverse and its rotation (identity without a parent).
struct RootFrame {
    to_model: mat3x3<f32>,
    from_model: mat3x3<f32>,
    rotation: vec4<f32>,
}

// One joint of one rig. `level_start` of joint k is the first joint of depth level k
// (for k < level_count).
struct JointDesc {
    rest_translation: vec3<f32>,
    parent: u32,
    rest_rotation: vec4<f32>,
    rest_scale: vec3<f32>,
    has_bounds: u32,
    inverse_bind: Mat3x4Rows,
    bounds_min: vec3<f32>,
    level_start: u32,
    bounds_max: vec3<f32>,
    pad: u32,
}

// Library-wide numbers. Mask m's weights start at `scalars[mask_offset + m * MAX_JOINTS]`;
// the retarget table (wgsl/retarget.wgsl) at `key_values[retarget_offset]`.
struct LibraryParams {
    rig_count: u32,
    mask_count: u32,
    mask_offset: u32,
    retarget_offset: u32,
}

// Group 0: the library, uploaded once.
@group(0) @binding(0) var<uniform> library: LibraryParams;
@group(0) @binding(1) var<storage, read> rigs: array<RigDesc>;
@group(0) @binding(2) var<storage, read> joints: array<JointDesc>;
// Binding 3 is the sample stage's own: the track table of exact clips (wgsl/sample.wgsl) or
// the words of compressed clips (wgsl/decode.wgsl).
// Key times of every rig, then the mask weights.
@group(0) @binding(4) var<storage, read> scalars: array<f32>;
// Per rig: its key values, then its root frames.
@group(0) @binding(5) var<storage, read> key_values: array<vec4<f32>>;

// Group 1: one dispatch's header, its window of the instance records (read_write: root motion
// writes worlds back), and the outputs.
@group(1) @binding(0) var<uniform> header: FrameHeader;
@group(1) @binding(1) var<storage, read_write> records: array<InstanceRecord>;
@group(1) @binding(2) var<storage, read_write> palette: array<Mat3x4Rows>;
// One box per slot; the evaluation writes the joint LOD level it ran at to min.w, the
// renderer's culling writes max.w (1.0: culled, see wgsl/lod.wgsl).
@group(1) @binding(3) var<storage, read_write> bounds: array<Aabb>;
