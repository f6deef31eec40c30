//! FBX texture UV transforms (translation, rotation, scale about their pivots) as glTF's
//! `KHR_texture_transform` ([`UvTransform`]): ufbx's UV-to-texture matrix, moved into glTF's UV
//! space (V runs down the image, FBX's up) and split into offset, rotation and scale.

use crate::import::UvTransform;

/// How far a transform may be from offset × rotation × scale (a shear) and still be one.
const SHEAR_TOLERANCE: f64 = 1e-5;

/// `texture`'s UV transform in glTF's UV space, or why it is not one sinew can apply.
pub(super) fn uv_transform(texture: &ufbx::Texture) -> Result<UvTransform, String> {
    if !texture.has_uv_transform {
        return Ok(UvTransform::IDENTITY);
    }
    let m = &texture.uv_to_texture;
    if [m.m02, m.m12, m.m20, m.m21]
        .iter()
        .any(|v| v.abs() > SHEAR_TOLERANCE)
    {
        return Err("it turns the texture out of the UV plane".into());
    }
    // With V flipped on both sides (v ↦ 1 - v), u' = a u + b v + e, v' = c u + d v + f
    // becomes u' = a u - b v + (b + e), v' = -c u + d v + (1 - d - f).
    let (a, b, c, d) = (m.m00, -m.m01, -m.m10, m.m11);
    let offset = [m.m01 + m.m03, 1.0 - m.m11 - m.m13];
    // glTF's rows: [cos sx, sin sy], [-sin sx, cos sy].
    let sx = a.hypot(c);
    if sx <= SHEAR_TOLERANCE || !sx.is_finite() {
        return Err("it scales the texture to nothing".into());
    }
    let rotation = (-c).atan2(a);
    let (sin, cos) = rotation.sin_cos();
    let sy = b * sin + d * cos;
    let shear = (b - sin * sy).abs() + (d - cos * sy).abs();
    if shear > SHEAR_TOLERANCE * sy.abs().max(1.0) || !sy.is_finite() {
        return Err("it shears the texture".into());
    }
    Ok(UvTransform {
        offset: offset.map(|v| v as f32),
        rotation: rotation as f32,
        scale: [sx as f32, sy as f32],
    })
}
