//! The glam boundary: sinew holds glam 0.34, Bevy 0.19 glam 0.32. Values cross as plain arrays.

use bevy::math::{Mat4, Quat, Vec3};
use bevy::prelude::Transform;

/// A Bevy transform as sinew's runtime transform.
pub(crate) fn to_sinew(t: &Transform) -> sinew::runtime::Transform {
    sinew::runtime::Transform {
        translation: glam::Vec3::from_array(t.translation.to_array()),
        rotation: glam::Quat::from_array(t.rotation.to_array()),
        scale: glam::Vec3::from_array(t.scale.to_array()),
    }
}

/// sinew's runtime transform as a Bevy transform.
pub(crate) fn to_bevy(t: &sinew::runtime::Transform) -> Transform {
    Transform {
        translation: Vec3::from_array(t.translation.to_array()),
        rotation: Quat::from_array(t.rotation.to_array()),
        scale: Vec3::from_array(t.scale.to_array()),
    }
}

/// A sinew affine transform as a Bevy matrix.
pub(crate) fn affine_to_bevy(m: &glam::Affine3A) -> Mat4 {
    Mat4::from_cols_array(&glam::Mat4::from(*m).to_cols_array())
}
