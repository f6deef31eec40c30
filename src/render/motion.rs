//! Motion vectors for hosts: the previous palette's bindings and the WGSL that reads them
//! (`wgsl/render/previous_skinning.wgsl`: each vertex's skinned position as last shown, and
//! screen-space velocity), with CPU twins of its functions. The GPU backend keeps the previous
//! palette when asked ([`crate::GpuOptions::previous_palette`]).

use std::num::NonZeroU64;

use glam::{Vec2, Vec3, Vec4};

use super::skinning::{PALETTE_ENTRY_SIZE, skin_vertex_dual_quat, skin_vertex_linear};
use crate::math::Mat3x4Rows;

/// The motion-vector snippet (`wgsl/render/previous_skinning.wgsl`): include it after
/// [`SKINNING_WGSL`](super::SKINNING_WGSL) with its two bindings declared, or take all of it
/// from [`previous_skinning_wgsl`].
pub const PREVIOUS_SKINNING_WGSL: &str = include_str!("../../wgsl/render/previous_skinning.wgsl");

/// [`PREVIOUS_SKINNING_WGSL`] preceded by its bindings in group `group`: the previous palette
/// (`array<SinewBone>`) at `previous_binding`, the evaluated-at stamps (`array<u32>`) at
/// `stamps_binding`. Include it after [`skinning_wgsl`](super::skinning_wgsl); the layout
/// entries are [`previous_palette_layout_entries`].
pub fn previous_skinning_wgsl(group: u32, previous_binding: u32, stamps_binding: u32) -> String {
    format!(
        "// ---- sinew previous palette bindings ----\n\
         @group({group}) @binding({previous_binding}) var<storage, read> sinew_previous_palette: \
         array<SinewBone>;\n\
         @group({group}) @binding({stamps_binding}) var<storage, read> sinew_evaluated_at: \
         array<u32>;\n\
         // ---- wgsl/render/previous_skinning.wgsl ----\n{PREVIOUS_SKINNING_WGSL}"
    )
}

/// The layout entries of [`previous_skinning_wgsl`]'s bindings: read-only storage, the
/// previous palette ([`crate::GpuBackend::previous_palette_segments`], bound in the palette's
/// windows) at `previous_binding` and the stamps ([`crate::GpuBackend::evaluated_at_buffer`],
/// whole) at `stamps_binding`.
pub fn previous_palette_layout_entries(
    previous_binding: u32,
    stamps_binding: u32,
    visibility: wgpu::ShaderStages,
) -> [wgpu::BindGroupLayoutEntry; 2] {
    let entry = |binding, min| wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min),
        },
        count: None,
    };
    [
        entry(previous_binding, PALETTE_ENTRY_SIZE),
        entry(stamps_binding, crate::gpu::STAMP_BYTES),
    ]
}

/// The palette block an instance showed last frame, entry by entry as
/// `sinew_previous_bone` reads it: `previous` (its block in the previous palette) when its
/// slot's stamp `slot_stamp` is the last evaluation's `stamp`, else `current` (its block in the
/// palette).
pub fn previous_block<'a>(
    slot_stamp: u32,
    stamp: u32,
    previous: &'a [Mat3x4Rows],
    current: &'a [Mat3x4Rows],
) -> &'a [Mat3x4Rows] {
    if slot_stamp == stamp {
        previous
    } else {
        current
    }
}

/// Twin of `sinew_previous_skinned_position`: linear blend skinning of `position` by the
/// block [`previous_block`] chose (the joint entries of the instance's block).
pub fn previous_skinned_position<const N: usize>(
    block: &[Mat3x4Rows],
    joints: [u16; N],
    weights: [f32; N],
    position: Vec3,
) -> Vec3 {
    skin_vertex_linear(block, joints, weights, position, Vec3::Y).position
}

/// Twin of `sinew_previous_skinned_position_dual_quat`: dual-quaternion skinning of `position`
/// by the block [`previous_block`] chose.
pub fn previous_skinned_position_dual_quat<const N: usize>(
    block: &[Mat3x4Rows],
    joints: [u16; N],
    weights: [f32; N],
    position: Vec3,
) -> Vec3 {
    skin_vertex_dual_quat(block, joints, weights, position, Vec3::Y).position
}

/// Twin of `sinew_velocity_ndc`: the NDC position of clip position `current` minus that of
/// `previous` (x right, y up).
pub fn velocity_ndc(current: Vec4, previous: Vec4) -> Vec2 {
    current.truncate().truncate() / current.w - previous.truncate().truncate() / previous.w
}
