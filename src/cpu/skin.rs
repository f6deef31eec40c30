//! Stage 4, skin: model matrices × inverse binds → the palette. Twin of `skin` in
//! `wgsl/evaluate.wgsl`.

use glam::Affine3A;

use crate::bake::Skeleton;
use crate::math::Mat3x4Rows;

/// `palette[j] = models[j] × inverse_bind[j]`, packed as 3x4 rows.
pub fn skin_palette(skeleton: &Skeleton, models: &[Affine3A], palette: &mut [Mat3x4Rows]) {
    for ((out, model), ibm) in palette.iter_mut().zip(models).zip(skeleton.inverse_binds()) {
        *out = Mat3x4Rows::from_affine(&(*model * *ibm));
    }
}
