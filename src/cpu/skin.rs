//! Stage 4, skin: model matrices × inverse binds → the palette. Twin of `wgsl/skin.wgsl`.

use glam::Affine3A;

use crate::baked::Skeleton;
use crate::math::Mat3x4Rows;

/// One palette entry: `model × inverse_bind`, packed as 3x4 rows.
#[inline]
pub fn skin_joint(model: &Affine3A, inverse_bind: &Affine3A) -> Mat3x4Rows {
    Mat3x4Rows::from_affine(&(*model * *inverse_bind))
}

/// `palette[j] = models[j] × inverse_bind[j]`.
pub fn skin_palette(skeleton: &Skeleton, models: &[Affine3A], palette: &mut [Mat3x4Rows]) {
    for ((out, model), ibm) in palette.iter_mut().zip(models).zip(skeleton.inverse_binds()) {
        *out = skin_joint(model, ibm);
    }
}
