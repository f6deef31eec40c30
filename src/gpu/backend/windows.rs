//! Where the windows a dispatch binds start: binding offsets must be multiples of the device's
//! offset alignment, so a palette too large for one binding is kept in one buffer per window
//! (windows overlapping by the longest palette block, [`PalettePaging`]), and a dispatch's
//! bounds are bound from the aligned slot at or before its first.

use crate::baked::Rig;
use crate::error::GpuError;
use crate::gpu::layout::AABB_BYTES;
use crate::render::{BindingLimits, PalettePaging, paging_of};

/// `x` rounded up to a multiple of `alignment`.
pub(super) fn align_up(x: u64, alignment: u64) -> u64 {
    x.div_ceil(alignment) * alignment
}

/// The slot at or before `first` whose AABB starts at a binding-offset-aligned byte.
pub(super) fn bounds_base(first: u32, alignment: u64) -> u32 {
    ((u64::from(first) * AABB_BYTES) / alignment * alignment / AABB_BYTES) as u32
}

/// The paging of the palette on a device with `limits` whose palette bindings hold at most
/// `binding` bytes; an error when one binding cannot hold the largest palette block.
pub(super) fn palette_paging(
    limits: &wgpu::Limits,
    binding: u64,
) -> Result<PalettePaging, GpuError> {
    let limits = BindingLimits::from_limits(limits, Some(binding));
    let needed = limits.smallest_palette_binding();
    if limits.max_binding < needed {
        return Err(GpuError::LimitExceeded {
            limit: "max_storage_buffer_binding_size",
            needed,
            available: limits.max_binding,
        });
    }
    Ok(paging_of(&limits))
}

/// Refuses a rig whose palette block (joints, morph weights and IK targets) is longer than the
/// overlap of consecutive windows, which could then not hold it whole.
pub(super) fn check_blocks(rigs: &[Rig], paging: PalettePaging) -> Result<(), GpuError> {
    let overlap = u64::from(paging.window_entries - paging.stride);
    match rigs
        .iter()
        .position(|r| r.palette_entries() as u64 > overlap)
    {
        Some(i) => Err(GpuError::IncompatibleRig {
            rig: i,
            reason: format!(
                "its palette block of {} entries exceeds the {overlap} entries palette windows \
                 share",
                rigs[i].palette_entries()
            ),
        }),
        None => Ok(()),
    }
}

/// Refuses a device whose compute stages cannot bind the storage buffers of the pipeline
/// keeping the previous palette ([`crate::gpu::PREVIOUS_PALETTE_STORAGE_BUFFERS`]).
pub(super) fn check_storage_buffers(device: &wgpu::Device) -> Result<(), GpuError> {
    let available = device.limits().max_storage_buffers_per_shader_stage;
    let needed = crate::gpu::PREVIOUS_PALETTE_STORAGE_BUFFERS;
    if available < needed {
        return Err(GpuError::LimitExceeded {
            limit: "max_storage_buffers_per_shader_stage",
            needed: u64::from(needed),
            available: u64::from(available),
        });
    }
    Ok(())
}
