//! Skinning for hosts and tests: the palette's binding, and CPU twins of the WGSL skinning
//! functions in `wgsl/render/skinning.wgsl` (same operations, same order), used as the oracle
//! of the pre-skinning kernel.

use std::num::NonZeroU64;

use glam::{Quat, Vec3, Vec4};

use super::error::{RenderError, capture};
use super::palette_windows::PaletteWindow;
use crate::baked::MAX_INFLUENCES;
use crate::gpu::{PaletteSegment, locate_block};
use crate::math::Mat3x4Rows;

/// Bytes of one palette entry (a [`Mat3x4Rows`]): the `min_binding_size` of the palette.
pub const PALETTE_ENTRY_SIZE: u64 = std::mem::size_of::<Mat3x4Rows>() as u64;

/// Vertices whose (in-range) weights sum to less than this keep their bind-space position
/// (`SINEW_MIN_WEIGHT_SUM` in WGSL).
pub const MIN_WEIGHT_SUM: f32 = 1e-6;

/// Which skinning the vertex stage (or the pre-skinning kernel) applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SkinningMode {
    /// Linear blend skinning: the weighted sum of palette matrices.
    #[default]
    Linear,
    /// Dual-quaternion skinning: each palette matrix converted to a dual quaternion (plus a
    /// per-axis scale) in the shader, blended and normalized.
    DualQuaternion,
}

impl SkinningMode {
    /// The value of the `DUAL_QUATERNION` override constant of the skinned pipelines.
    pub(crate) fn override_value(self) -> f64 {
        match self {
            Self::Linear => 0.0,
            Self::DualQuaternion => 1.0,
        }
    }
}

/// The bind group layout entry of a palette at `binding`: a read-only storage buffer of
/// [`Mat3x4Rows`] (`array<SinewBone>` in WGSL).
pub fn palette_layout_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(PALETTE_ENTRY_SIZE),
        },
        count: None,
    }
}

/// A bind group layout holding only the palette, at binding 0: what a host binds at the group
/// it passed to [`skinning_wgsl`](crate::render::skinning_wgsl). Errors when wgpu rejects the
/// layout, e.g. for stages that cannot read storage buffers on the device
/// ([`RenderError::Validation`]).
pub fn create_palette_bind_group_layout(
    device: &wgpu::Device,
    visibility: wgpu::ShaderStages,
) -> Result<wgpu::BindGroupLayout, RenderError> {
    capture(device, || {
        Ok(
            device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("sinew palette layout"),
                entries: &[palette_layout_entry(0, visibility)],
            }),
        )
    })
}

/// A bind group of `layout` (from [`create_palette_bind_group_layout`]) over the whole of
/// `palette`. A palette larger than the device's `max_storage_buffer_binding_size` is refused
/// ([`RenderError::LimitExceeded`]): bind it in [`palette_windows`](super::palette_windows)
/// with [`create_palette_window_bind_group`].
pub fn create_palette_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    palette: &wgpu::Buffer,
) -> Result<wgpu::BindGroup, RenderError> {
    let entries = palette.size() / PALETTE_ENTRY_SIZE;
    let window = PaletteWindow {
        first_entry: 0,
        entries: u32::try_from(entries).unwrap_or(u32::MAX),
    };
    create_palette_window_bind_group(device, layout, &[PaletteSegment::whole(palette)], &window)
}

/// A bind group of `layout` (from [`create_palette_bind_group_layout`]) over `window` (from
/// [`palette_windows`](super::palette_windows)) of `palette`: the GPU evaluator's buffers
/// ([`GpuBackend::palette_segments`](crate::GpuBackend::palette_segments)), or one buffer
/// ([`PaletteSegment::whole`]). The shader's palette offsets are then relative to
/// `window.first_entry`: pass `palette_offset - window.first_entry` to `sinew_skin_linear` /
/// `sinew_skin_dual_quat`. Errors when no buffer holds the whole window or it starts unaligned
/// in it ([`RenderError::InvalidInput`]), or exceeds the device's
/// `max_storage_buffer_binding_size` ([`RenderError::LimitExceeded`]).
pub fn create_palette_window_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    palette: &[PaletteSegment],
    window: &PaletteWindow,
) -> Result<wgpu::BindGroup, RenderError> {
    let limits = device.limits();
    let object = format!("palette window {}..{}", window.first_entry, window.end());
    if window.entries == 0 {
        return Err(RenderError::invalid(object, "holds no entries"));
    }
    let (segment, at) = locate_block(palette, window.first_entry, u64::from(window.entries))
        .map_err(|reason| RenderError::invalid(object.clone(), reason))?;
    let palette = &palette[segment].buffer;
    let offset = at * PALETTE_ENTRY_SIZE;
    let size = u64::from(window.entries) * PALETTE_ENTRY_SIZE;
    let alignment = u64::from(limits.min_storage_buffer_offset_alignment);
    if !offset.is_multiple_of(alignment.max(1)) {
        return Err(RenderError::invalid(
            object,
            format!(
                "starts at byte {offset} of its buffer, not a multiple of \
                 min_storage_buffer_offset_alignment ({alignment})"
            ),
        ));
    }
    let available = limits.max_storage_buffer_binding_size;
    if size > available {
        return Err(RenderError::LimitExceeded {
            limit: "max_storage_buffer_binding_size",
            needed: size,
            available,
        });
    }
    capture(device, || {
        Ok(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("sinew palette bind group"),
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: palette,
                    offset,
                    size: NonZeroU64::new(size),
                }),
            }],
        }))
    })
}

/// A skinned position and unit normal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skinned {
    /// Position (world space when the palette includes the world transform).
    pub position: Vec3,
    /// Unit normal.
    pub normal: Vec3,
}

/// The weights with every joint at or past `joint_count` zeroed: the bounds guard on joints.
/// Any number of influences up to [`MAX_INFLUENCES`] (the GPU's eight slots).
fn guard_weights<const N: usize>(
    joint_count: usize,
    joints: &[u16; N],
    weights: &[f32; N],
) -> [f32; N] {
    const {
        assert!(
            N <= MAX_INFLUENCES,
            "more influences than the GPU vertex holds"
        )
    };
    std::array::from_fn(|k| {
        if (joints[k] as usize) < joint_count {
            weights[k]
        } else {
            0.0
        }
    })
}

fn bone(palette: &[Mat3x4Rows], joint: u16) -> Mat3x4Rows {
    let last = palette.len().saturating_sub(1);
    palette
        .get((joint as usize).min(last))
        .copied()
        .unwrap_or(Mat3x4Rows::IDENTITY)
}

fn normalize_or(v: Vec3, fallback: Vec3) -> Vec3 {
    let len2 = v.length_squared();
    if len2 > 1e-20 {
        v * len2.sqrt().recip()
    } else {
        fallback
    }
}

fn unchanged(position: Vec3, normal: Vec3) -> Skinned {
    Skinned {
        position,
        normal: normalize_or(normal, Vec3::Y),
    }
}

fn row(m: &Mat3x4Rows, i: usize) -> Vec4 {
    Vec4::from(m.rows[i])
}

/// Linear blend skinning of one vertex by the instance's palette block `palette` (one entry per
/// joint): `Σ w·palette[j]` over its influences (up to [`MAX_INFLUENCES`]; zero weights skipped)
/// applied to the position and, through its 3x3 part, to the normal (renormalized). Influences
/// naming a joint past the block are ignored; when the weights sum to zero the vertex is returned
/// unchanged. Twin of `sinew_skin_linear`.
pub fn skin_vertex_linear<const N: usize>(
    palette: &[Mat3x4Rows],
    joints: [u16; N],
    weights: [f32; N],
    position: Vec3,
    normal: Vec3,
) -> Skinned {
    let w = guard_weights(palette.len(), &joints, &weights);
    let total: f32 = w.iter().sum();
    if total.abs() < MIN_WEIGHT_SUM {
        return unchanged(position, normal);
    }
    let mut rows = [Vec4::ZERO; 3];
    for (&j, &wk) in joints.iter().zip(&w) {
        if wk != 0.0 {
            let b = bone(palette, j);
            for (i, r) in rows.iter_mut().enumerate() {
                *r += row(&b, i) * wk;
            }
        }
    }
    let h = position.extend(1.0);
    let p = Vec3::new(rows[0].dot(h), rows[1].dot(h), rows[2].dot(h));
    let n = Vec3::new(
        rows[0].truncate().dot(normal),
        rows[1].truncate().dot(normal),
        rows[2].truncate().dot(normal),
    );
    Skinned {
        position: p,
        normal: normalize_or(n, normal),
    }
}

/// A palette entry as dual-quaternion skinning blends it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DualQuat {
    /// Unit rotation quaternion.
    pub real: Quat,
    /// Dual part: `0.5 · t · real` for translation `t`.
    pub dual: Vec4,
    /// Per-axis scale applied before the rotation (the first axis negated for a mirroring
    /// matrix).
    pub scale: Vec3,
}

fn quat_from_columns(c0: Vec3, c1: Vec3, c2: Vec3) -> Vec4 {
    let trace = c0.x + c1.y + c2.z;
    let q = if trace > 0.0 {
        let s = (trace + 1.0).sqrt() * 2.0;
        Vec4::new(
            (c1.z - c2.y) / s,
            (c2.x - c0.z) / s,
            (c0.y - c1.x) / s,
            0.25 * s,
        )
    } else if c0.x > c1.y && c0.x > c2.z {
        let s = (1.0 + c0.x - c1.y - c2.z).sqrt() * 2.0;
        Vec4::new(
            0.25 * s,
            (c1.x + c0.y) / s,
            (c2.x + c0.z) / s,
            (c1.z - c2.y) / s,
        )
    } else if c1.y > c2.z {
        let s = (1.0 + c1.y - c0.x - c2.z).sqrt() * 2.0;
        Vec4::new(
            (c1.x + c0.y) / s,
            0.25 * s,
            (c2.y + c1.z) / s,
            (c2.x - c0.z) / s,
        )
    } else {
        let s = (1.0 + c2.z - c0.x - c1.y).sqrt() * 2.0;
        Vec4::new(
            (c2.x + c0.z) / s,
            (c2.y + c1.z) / s,
            0.25 * s,
            (c0.y - c1.x) / s,
        )
    };
    q.normalize()
}

fn quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    let (av, bv) = (a.truncate(), b.truncate());
    (b.w * av + a.w * bv + av.cross(bv)).extend(a.w * b.w - av.dot(bv))
}

fn quat_rotate(q: Vec4, v: Vec3) -> Vec3 {
    let u = q.truncate();
    v + 2.0 * u.cross(u.cross(v) + q.w * v)
}

impl DualQuat {
    /// Splits a palette entry into scale (column lengths), rotation and translation. Exact for
    /// rotation × scale + translation; shear is lost. Twin of `sinew_bone_to_dual_quat`.
    pub fn from_palette_entry(m: &Mat3x4Rows) -> Self {
        let r = &m.rows;
        let c0 = Vec3::new(r[0][0], r[1][0], r[2][0]);
        let c1 = Vec3::new(r[0][1], r[1][1], r[2][1]);
        let c2 = Vec3::new(r[0][2], r[1][2], r[2][2]);
        let t = Vec3::new(r[0][3], r[1][3], r[2][3]);
        let mut s = Vec3::new(c0.length(), c1.length(), c2.length()).max(Vec3::splat(1e-12));
        if c0.dot(c1.cross(c2)) < 0.0 {
            s.x = -s.x;
        }
        let real = quat_from_columns(c0 / s.x, c1 / s.y, c2 / s.z);
        let dual = 0.5 * quat_mul(t.extend(0.0), real);
        Self {
            real: Quat::from_vec4(real),
            dual,
            scale: s,
        }
    }
}

/// Dual-quaternion skinning of one vertex (Kavan et al.): palette entries converted with
/// [`DualQuat::from_palette_entry`], blended along the shortest arc relative to the heaviest
/// influence (the first of equals), normalized; scale blended linearly and applied before the
/// rotation. Influences with zero weight are skipped. Same guards as [`skin_vertex_linear`].
/// Twin of `sinew_skin_dual_quat`.
pub fn skin_vertex_dual_quat<const N: usize>(
    palette: &[Mat3x4Rows],
    joints: [u16; N],
    weights: [f32; N],
    position: Vec3,
    normal: Vec3,
) -> Skinned {
    let w = guard_weights(palette.len(), &joints, &weights);
    let total: f32 = w.iter().sum();
    if total.abs() < MIN_WEIGHT_SUM {
        return unchanged(position, normal);
    }
    let mut heaviest = 0;
    for (k, &wk) in w.iter().enumerate().skip(1) {
        if wk > w[heaviest] {
            heaviest = k;
        }
    }
    let pivot = Vec4::from(DualQuat::from_palette_entry(&bone(palette, joints[heaviest])).real);
    let (mut real, mut dual, mut scale) = (Vec4::ZERO, Vec4::ZERO, Vec3::ZERO);
    for (&j, &wk) in joints.iter().zip(&w) {
        if wk == 0.0 {
            continue;
        }
        let d = DualQuat::from_palette_entry(&bone(palette, j));
        let q = Vec4::from(d.real);
        let k = if pivot.dot(q) < 0.0 { -wk } else { wk };
        real += q * k;
        dual += d.dual * k;
        scale += d.scale * wk;
    }
    let scale = scale / total;
    let len = real.length();
    if len < 1e-12 {
        return unchanged(position, normal);
    }
    let r = real / len;
    let dd = dual / len;
    let (rv, dv) = (r.truncate(), dd.truncate());
    let t = 2.0 * (r.w * dv - dd.w * rv + rv.cross(dv));
    let p = quat_rotate(r, position * scale) + t;
    let n = quat_rotate(r, normal / scale);
    Skinned {
        position: p,
        normal: normalize_or(n, normal),
    }
}

/// Skins one vertex with `mode` (up to [`MAX_INFLUENCES`] influences).
pub fn skin_vertex<const N: usize>(
    mode: SkinningMode,
    palette: &[Mat3x4Rows],
    joints: [u16; N],
    weights: [f32; N],
    position: Vec3,
    normal: Vec3,
) -> Skinned {
    match mode {
        SkinningMode::Linear => skin_vertex_linear(palette, joints, weights, position, normal),
        SkinningMode::DualQuaternion => {
            skin_vertex_dual_quat(palette, joints, weights, position, normal)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Sqt;

    fn entry(rotation: Quat, translation: Vec3, scale: Vec3) -> Mat3x4Rows {
        Mat3x4Rows::from_affine(
            &Sqt {
                translation,
                rotation,
                scale,
            }
            .to_affine(),
        )
    }

    #[test]
    fn dual_quat_round_trips_rigid_and_scaled_entries() {
        let cases = [
            (
                Quat::from_rotation_y(2.9),
                Vec3::new(1.0, -2.0, 0.5),
                Vec3::ONE,
            ),
            (
                Quat::from_rotation_x(-3.1),
                Vec3::ZERO,
                Vec3::new(2.0, 0.5, 1.5),
            ),
            (
                Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0),
                Vec3::splat(3.0),
                Vec3::splat(0.01),
            ),
        ];
        for (rotation, translation, scale) in cases {
            let m = entry(rotation, translation, scale);
            let p = Vec3::new(0.3, -0.7, 1.1);
            let n = Vec3::new(0.0, 0.6, 0.8);
            let lbs = skin_vertex_linear(&[m], [0; 4], [1.0, 0.0, 0.0, 0.0], p, n);
            let dq = skin_vertex_dual_quat(&[m], [0; 4], [1.0, 0.0, 0.0, 0.0], p, n);
            assert!(
                lbs.position.abs_diff_eq(dq.position, 1e-4),
                "{lbs:?} {dq:?}"
            );
            if scale == Vec3::ONE {
                assert!(lbs.normal.abs_diff_eq(dq.normal, 1e-4), "{lbs:?} {dq:?}");
            }
        }
    }

    #[test]
    fn zero_weights_and_out_of_range_joints_leave_the_vertex_alone() {
        let m = entry(Quat::from_rotation_z(1.0), Vec3::X, Vec3::ONE);
        let p = Vec3::new(1.0, 2.0, 3.0);
        for skin in [skin_vertex_linear, skin_vertex_dual_quat] {
            let s = skin(&[m], [0; 4], [0.0; 4], p, Vec3::Z * 2.0);
            assert_eq!(s.position, p);
            assert_eq!(s.normal, Vec3::Z);
            let s = skin(&[m], [5, 6, 7, 8], [0.25; 4], p, Vec3::Z);
            assert_eq!(s.position, p);
        }
    }

    #[test]
    fn dual_quat_keeps_the_length_of_a_half_twisted_limb() {
        let a = entry(Quat::IDENTITY, Vec3::ZERO, Vec3::ONE);
        let b = entry(Quat::from_rotation_x(3.0), Vec3::ZERO, Vec3::ONE);
        let p = Vec3::new(0.0, 1.0, 0.0);
        let lbs = skin_vertex_linear(&[a, b], [0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0], p, Vec3::Y);
        let dq = skin_vertex_dual_quat(&[a, b], [0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0], p, Vec3::Y);
        assert!(
            lbs.position.length() < 0.1,
            "linear blend collapses: {lbs:?}"
        );
        assert!((dq.position.length() - 1.0).abs() < 1e-5, "{dq:?}");
    }
}
