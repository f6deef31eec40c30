//! `#[repr(C)]` structs the evaluate kernel reads, byte for byte. Each one has a WGSL twin of the
//! same name in `wgsl/common/layout.wgsl`; `tests/shaders.rs` checks every member offset against
//! the parsed shader. The instance, layer, track, palette and box structs are the crate's own
//! ([`crate::InstanceRecord`], [`crate::LayerRecord`], [`crate::TrackDesc`],
//! [`crate::Mat3x4Rows`], [`crate::Aabb`]).

use std::mem::{offset_of, size_of};

use crate::cpu::RootFrame;
use crate::math::Mat3x4Rows;

/// What one dispatch evaluates, and when. Keep in sync with `FrameHeader` in
/// `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FrameHeader {
    /// Records in this dispatch.
    pub instance_count: u32,
    /// Workgroups per row of the dispatch grid (instance = `y * grid_width + x`).
    pub grid_width: u32,
    /// Palette entry at the start of the bound palette window.
    pub palette_base: u32,
    /// Index of this dispatch's first record (where its AABBs go).
    pub first_instance: u32,
    /// Frame time the records' clocks and fades are read at.
    pub time: f32,
    /// Frame time of the previous evaluation: [`crate::InstanceRecord::GPU_ROOT_MOTION`]
    /// records move by the root motion from it to `time` (equal: no motion).
    pub prev_time: f32,
    /// Frame counter ([`crate::GpuBackend::frame_index`]): update rates are due on it.
    pub frame: u32,
    /// [`FrameHeader::EVALUATE_ALL`], [`FrameHeader::LOD_POLICY`],
    /// [`FrameHeader::POLICY_SKIPS_CULLED`], [`FrameHeader::INDIRECT`].
    pub lod_flags: u32,
    /// Resident slot of this dispatch's first record (a policy's phase is the slot).
    pub slot_base: u32,
    /// On an indirect frame ([`FrameHeader::INDIRECT`]), the box of the bounds binding where
    /// the slot list starts (eight f32 entries per box: the count, then the slots).
    pub list_base: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
    /// The [`crate::LodPolicy`]'s eye in xyz (w unused).
    pub lod_eye: [f32; 4],
    /// Squares of the policy's distances for LOD levels 1 to 3 (w unused).
    pub lod_distances: [f32; 4],
    /// The policy's update interval per LOD level.
    pub lod_every: [u32; 4],
}

impl FrameHeader {
    /// `lod_flags` bit: every slot is evaluated, whatever its rate or visibility.
    pub const EVALUATE_ALL: u32 = 1;
    /// `lod_flags` bit: records without LOD bits take them from the policy.
    pub const LOD_POLICY: u32 = 2;
    /// `lod_flags` bit: the policy skips culled instances.
    pub const POLICY_SKIPS_CULLED: u32 = 4;
    /// `lod_flags` bit: an indirect frame, whose workgroups evaluate the slots of the list at
    /// `list_base` (wgsl/lod_compact.wgsl) instead of the slot of their grid index.
    pub const INDIRECT: u32 = 8;
}

const _: () = assert!(size_of::<FrameHeader>() == 96);
const _: () = assert!(offset_of!(FrameHeader, instance_count) == 0);
const _: () = assert!(offset_of!(FrameHeader, grid_width) == 4);
const _: () = assert!(offset_of!(FrameHeader, palette_base) == 8);
const _: () = assert!(offset_of!(FrameHeader, first_instance) == 12);
const _: () = assert!(offset_of!(FrameHeader, time) == 16);
const _: () = assert!(offset_of!(FrameHeader, prev_time) == 20);
const _: () = assert!(offset_of!(FrameHeader, lod_eye) == 48);
const _: () = assert!(offset_of!(FrameHeader, lod_every) == 80);

/// Where one rig lives in the concatenated library arrays. Keep in sync with `RigDesc` in
/// `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RigDesc {
    /// First joint in the joint table.
    pub joint_offset: u32,
    /// Number of joints.
    pub joint_count: u32,
    /// Number of depth levels.
    pub level_count: u32,
    /// Number of clips.
    pub clip_count: u32,
    /// First track descriptor in the track table.
    pub track_offset: u32,
    /// Added to the rig's [`crate::TrackDesc::time_offset`]s: its first key time.
    pub time_offset: u32,
    /// Added to the rig's [`crate::TrackDesc::value_offset`]s: its first key value.
    pub value_offset: u32,
    /// Index in the key value table of the rig's root frames: one [`RootFrameDesc`]
    /// ([`ROOT_FRAME_VEC4S`] values) per joint, that of the joint as the root of root motion.
    pub frame_offset: u32,
    /// Morph weight chunks (4 weights each; 0 without morph targets).
    pub weight_chunks: u32,
    /// First weight track (clip × chunk) in the track table.
    pub weight_track_offset: u32,
    /// Index in the scalar array of chunk 0's mask joint (as a float; chunk `k` at `+ k`).
    pub morph_joint_offset: u32,
    /// Key value (relative to `value_offset`) of chunk 0's default weights.
    pub morph_default_offset: u32,
    /// Index in the key value table of the rig's IK constraints, [`crate::baked::ik::IK_VEC4S`]
    /// values each ([`crate::IkConstraint::encode`]).
    pub ik_offset: u32,
    /// Number of IK constraints (0: the IK stage does nothing).
    pub ik_count: u32,
    /// Joints sampled at joint LOD levels 1, 2 and 3
    /// ([`crate::Skeleton::lod_sampled_joints`]), 10 bits each from bit 0.
    pub lod_sampled: u32,
    /// Padding to 16 bytes.
    pub pad1: u32,
}

const _: () = assert!(size_of::<RigDesc>() == 64);
const _: () = assert!(offset_of!(RigDesc, joint_offset) == 0);
const _: () = assert!(offset_of!(RigDesc, joint_count) == 4);
const _: () = assert!(offset_of!(RigDesc, level_count) == 8);
const _: () = assert!(offset_of!(RigDesc, clip_count) == 12);
const _: () = assert!(offset_of!(RigDesc, track_offset) == 16);
const _: () = assert!(offset_of!(RigDesc, time_offset) == 20);
const _: () = assert!(offset_of!(RigDesc, value_offset) == 24);
const _: () = assert!(offset_of!(RigDesc, frame_offset) == 28);
const _: () = assert!(offset_of!(RigDesc, weight_chunks) == 32);
const _: () = assert!(offset_of!(RigDesc, weight_track_offset) == 36);
const _: () = assert!(offset_of!(RigDesc, morph_joint_offset) == 40);
const _: () = assert!(offset_of!(RigDesc, morph_default_offset) == 44);
const _: () = assert!(offset_of!(RigDesc, ik_offset) == 48);
const _: () = assert!(offset_of!(RigDesc, ik_count) == 52);

/// The model-space frame of root motion for one joint as the root ([`RootFrame`]), stored in
/// the key value table as [`ROOT_FRAME_VEC4S`] `vec4`s. Keep in sync with `RootFrame` in
/// `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RootFrameDesc {
    /// [`RootFrame::to_model`], column by column (`w` unused).
    pub to_model: [[f32; 4]; 3],
    /// [`RootFrame::from_model`], column by column (`w` unused).
    pub from_model: [[f32; 4]; 3],
    /// [`RootFrame::rotation`], `xyzw`.
    pub rotation: [f32; 4],
}

/// `vec4`s of one [`RootFrameDesc`] in the key value table.
pub const ROOT_FRAME_VEC4S: usize = size_of::<RootFrameDesc>() / 16;

const _: () = assert!(size_of::<RootFrameDesc>() == 112);
const _: () = assert!(offset_of!(RootFrameDesc, to_model) == 0);
const _: () = assert!(offset_of!(RootFrameDesc, from_model) == 48);
const _: () = assert!(offset_of!(RootFrameDesc, rotation) == 96);

impl From<&RootFrame> for RootFrameDesc {
    fn from(frame: &RootFrame) -> Self {
        let columns =
            |m: &glam::Mat3| [m.x_axis, m.y_axis, m.z_axis].map(|c| c.extend(0.0).to_array());
        Self {
            to_model: columns(&frame.to_model),
            from_model: columns(&frame.from_model),
            rotation: frame.rotation.to_array(),
        }
    }
}

/// One joint of one rig. Keep in sync with `JointDesc` in `wgsl/common/layout.wgsl`. The
/// kernel reads the first three rows (rest pose, parent and `has_bounds`) once per pass in
/// stage 1, the inverse bind and, for a joint with vertices, the bounds in stages 4 and 5:
/// the words a joint needs beside each `vec3` share its 16-byte row.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct JointDesc {
    /// Rest translation.
    pub rest_translation: [f32; 3],
    /// Parent joint in the rig ([`crate::NO_PARENT`] for roots).
    pub parent: u32,
    /// Rest rotation, `xyzw`.
    pub rest_rotation: [f32; 4],
    /// Rest scale.
    pub rest_scale: [f32; 3],
    /// 1 when vertices follow the joint (`bounds_*` are valid), else 0.
    pub has_bounds: u32,
    /// Inverse bind matrix.
    pub inverse_bind: Mat3x4Rows,
    /// Joint-space vertex bounds, minimum corner.
    pub bounds_min: [f32; 3],
    /// For joint `k < level_count` of a rig: the first joint of depth level `k`.
    pub level_start: u32,
    /// Joint-space vertex bounds, maximum corner.
    pub bounds_max: [f32; 3],
    /// Padding to 16 bytes.
    pub pad: u32,
}

const _: () = assert!(size_of::<JointDesc>() == 128);
const _: () = assert!(offset_of!(JointDesc, rest_translation) == 0);
const _: () = assert!(offset_of!(JointDesc, parent) == 12);
const _: () = assert!(offset_of!(JointDesc, rest_rotation) == 16);
const _: () = assert!(offset_of!(JointDesc, rest_scale) == 32);
const _: () = assert!(offset_of!(JointDesc, has_bounds) == 44);
const _: () = assert!(offset_of!(JointDesc, inverse_bind) == 48);
const _: () = assert!(offset_of!(JointDesc, bounds_min) == 96);
const _: () = assert!(offset_of!(JointDesc, level_start) == 108);
const _: () = assert!(offset_of!(JointDesc, bounds_max) == 112);
const _: () = assert!(offset_of!(JointDesc, pad) == 124);

/// Library-wide numbers. Keep in sync with `LibraryParams` in `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LibraryParams {
    /// Number of rigs.
    pub rig_count: u32,
    /// Number of masks.
    pub mask_count: u32,
    /// Index in the scalar array of mask 0's weights; mask `m` starts
    /// [`crate::MAX_JOINTS`]` * m` later.
    pub mask_offset: u32,
    /// Index in the key values of the retarget table (`src/gpu/retarget.rs`): its row count,
    /// then the rows, then the entries.
    pub retarget_offset: u32,
}

const _: () = assert!(size_of::<LibraryParams>() == 16);
const _: () = assert!(offset_of!(LibraryParams, rig_count) == 0);
const _: () = assert!(offset_of!(LibraryParams, mask_count) == 4);
const _: () = assert!(offset_of!(LibraryParams, mask_offset) == 8);
const _: () = assert!(offset_of!(LibraryParams, retarget_offset) == 12);

/// Bytes of one palette entry ([`Mat3x4Rows`]).
pub const PALETTE_ENTRY_BYTES: u64 = size_of::<Mat3x4Rows>() as u64;
/// Bytes of one instance record ([`crate::InstanceRecord`]).
pub const INSTANCE_RECORD_BYTES: u64 = size_of::<crate::InstanceRecord>() as u64;
/// Bytes of one AABB ([`crate::Aabb`]).
pub const AABB_BYTES: u64 = size_of::<crate::Aabb>() as u64;
/// Bytes of a [`FrameHeader`].
pub const FRAME_HEADER_BYTES: u64 = size_of::<FrameHeader>() as u64;
