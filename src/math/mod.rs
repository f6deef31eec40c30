//! The animation math every stage shares: SQT transforms, quaternion interpolation and blending,
//! cubic Hermite splines and affine 3x4 matrices.
//!
//! Keep in sync with `wgsl/common/math.wgsl`: each function here has a WGSL twin of the same name
//! and the same operation order, so CPU and GPU results agree to float rounding.

mod aabb;
mod axis;
mod mirror;

pub use aabb::Aabb;
pub use axis::Axis;
pub use mirror::MirrorPlane;

use glam::{Affine3A, Mat3A, Mat4, Quat, Vec3, Vec3A, Vec4};

/// Threshold under which a quaternion is treated as having no length.
pub const QUAT_EPSILON: f32 = 1e-12;

/// A joint's local transform as scale, rotation (unit quaternion) and translation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sqt {
    /// Translation relative to the parent joint.
    pub translation: Vec3,
    /// Rotation, a unit quaternion.
    pub rotation: Quat,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Sqt {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Sqt {
    /// The transform that changes nothing.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `T * R * S` as an affine matrix (the glTF node transform).
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes a matrix into SQT. Shear is lost; glTF requires joint matrices to be decomposable.
    pub fn from_mat4(m: &Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation: normalize_or_identity(rotation),
            scale,
        }
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }

    /// Override blend: moves `self` toward `target` by `weight` (0 keeps `self`, 1 gives `target`).
    /// Translation and scale lerp; rotation is a shortest-arc normalized lerp.
    #[inline]
    pub fn blend_toward(&self, target: &Sqt, weight: f32) -> Sqt {
        Sqt {
            translation: self.translation.lerp(target.translation, weight),
            rotation: nlerp_shortest(self.rotation, target.rotation, weight),
            scale: self.scale.lerp(target.scale, weight),
        }
    }

    /// Additive blend: applies `delta` (a pose relative to the rest pose) scaled by `weight` on
    /// top of `self`: `T + w * dT`, `R * nlerp(I, dR, w)`, `S * lerp(1, dS, w)`.
    #[inline]
    pub fn add_delta(&self, delta: &Sqt, weight: f32) -> Sqt {
        Sqt {
            translation: self.translation + delta.translation * weight,
            rotation: (self.rotation * nlerp_shortest(Quat::IDENTITY, delta.rotation, weight))
                .normalize(),
            scale: self.scale * Vec3::ONE.lerp(delta.scale, weight),
        }
    }

    /// The delta that [`Sqt::add_delta`] applies to turn `reference` into `self` at weight 1.
    /// A zero reference scale component (a part scaled away) gives a delta scale of 1 there.
    #[inline]
    pub fn delta_from(&self, reference: &Sqt) -> Sqt {
        let safe = Vec3::select(
            reference.scale.cmpeq(Vec3::ZERO),
            Vec3::ONE,
            reference.scale,
        );
        let ratio = self.scale / safe;
        Sqt {
            translation: self.translation - reference.translation,
            rotation: (reference.rotation.conjugate() * self.rotation).normalize(),
            scale: Vec3::select(reference.scale.cmpeq(Vec3::ZERO), Vec3::ONE, ratio),
        }
    }
}

/// Normalizes a quaternion, falling back to identity when it has no length.
#[inline]
pub fn normalize_or_identity(q: Quat) -> Quat {
    let len2 = q.length_squared();
    if len2 > QUAT_EPSILON && len2.is_finite() {
        q * len2.sqrt().recip()
    } else {
        Quat::IDENTITY
    }
}

/// Below this cosine between two quaternions, [`slerp_shortest`] evaluates `sin` and `acos`
/// instead of its series (the series needs more terms as the angle grows).
pub const SLERP_SERIES_MIN_COS: f32 = 0.7;

/// Terms of the series in [`slerp_weight`].
const SLERP_SERIES_TERMS: usize = 8;

/// Series coefficients `(u_i, v_i) = (1 / (i (2i + 1)), i / (2i + 1))` for `i = 1..=8`.
const SLERP_SERIES: [(f32, f32); SLERP_SERIES_TERMS] = {
    let mut c = [(0.0, 0.0); SLERP_SERIES_TERMS];
    let mut i = 0;
    while i < SLERP_SERIES_TERMS {
        let fi = (i + 1) as f32;
        c[i] = (1.0 / (fi * (2.0 * fi + 1.0)), fi / (2.0 * fi + 1.0));
        i += 1;
    }
    c
};

/// `sin(t θ) / sin(θ)` for `cos θ = x`, as the series `Σ c_i(t) (x − 1)^i` with `c_0 = t` and
/// `c_i = c_{i−1} (u_i t² − v_i)` (that is `(t² − i²) / (i (2i + 1))`). For
/// `x ≥ SLERP_SERIES_MIN_COS` eight terms are within 5e-7 of the exact weight, at the cost of a
/// few multiply-adds instead of three sines and an arc cosine.
#[inline]
pub fn slerp_weight(t: f32, x: f32) -> f32 {
    let d = x - 1.0;
    let t2 = t * t;
    let mut c = t;
    let mut sum = t;
    let mut power = 1.0;
    for &(u, v) in &SLERP_SERIES {
        c *= u * t2 - v;
        power *= d;
        sum += c * power;
    }
    sum
}

/// Spherical linear interpolation along the shorter arc (the glTF LINEAR rotation rule). Keys
/// closer than [`SLERP_SERIES_MIN_COS`] use the series weights of [`slerp_weight`], others the
/// closed form.
#[inline]
pub fn slerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let mut cos = a.dot(b);
    let mut b = Vec4::from(b);
    if cos < 0.0 {
        cos = -cos;
        b = -b;
    }
    let a = Vec4::from(a);
    let (wa, wb) = if cos >= SLERP_SERIES_MIN_COS {
        (slerp_weight(1.0 - t, cos), slerp_weight(t, cos))
    } else {
        let theta = cos.acos();
        let inv_sin = 1.0 / theta.sin();
        (
            ((1.0 - t) * theta).sin() * inv_sin,
            (t * theta).sin() * inv_sin,
        )
    };
    normalize_or_identity(Quat::from_vec4(a * wa + b * wb))
}

/// Normalized lerp along the shorter arc; the blend operator for layers and cross-fades.
#[inline]
pub fn nlerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let b = if a.dot(b) < 0.0 {
        -Vec4::from(b)
    } else {
        Vec4::from(b)
    };
    normalize_or_identity(Quat::from_vec4(Vec4::from(a).lerp(b, t)))
}

/// Cubic Hermite spline between keys `v0` and `v1` (glTF CUBICSPLINE): `out0` is key 0's out
/// tangent, `in1` key 1's in tangent, `dt` the key interval and `t` the normalized position.
#[inline]
pub fn hermite(v0: Vec4, out0: Vec4, in1: Vec4, v1: Vec4, dt: f32, t: f32) -> Vec4 {
    let t2 = t * t;
    let t3 = t2 * t;
    let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
    let h10 = t3 - 2.0 * t2 + t;
    let h01 = -2.0 * t3 + 3.0 * t2;
    let h11 = t3 - t2;
    v0 * h00 + out0 * (h10 * dt) + v1 * h01 + in1 * (h11 * dt)
}

/// A 3x4 affine matrix stored as three rows: the 48-byte palette entry the GPU writes.
/// Row `i` holds `(m[0][i], m[1][i], m[2][i], m[3][i])` of the column-major 4x4.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Mat3x4Rows {
    /// The three rows of the upper 3x4 block.
    pub rows: [[f32; 4]; 3],
}

impl Mat3x4Rows {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        rows: [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ],
    };

    /// Packs an affine transform.
    #[inline]
    pub fn from_affine(a: &Affine3A) -> Self {
        let m = a.matrix3;
        let t = a.translation;
        Self {
            rows: [
                [m.x_axis.x, m.y_axis.x, m.z_axis.x, t.x],
                [m.x_axis.y, m.y_axis.y, m.z_axis.y, t.y],
                [m.x_axis.z, m.y_axis.z, m.z_axis.z, t.z],
            ],
        }
    }

    /// Unpacks into an affine transform.
    #[inline]
    pub fn to_affine(&self) -> Affine3A {
        let r = &self.rows;
        Affine3A {
            matrix3: Mat3A::from_cols(
                Vec3A::new(r[0][0], r[1][0], r[2][0]),
                Vec3A::new(r[0][1], r[1][1], r[2][1]),
                Vec3A::new(r[0][2], r[1][2], r[2][2]),
            ),
            translation: Vec3A::new(r[0][3], r[1][3], r[2][3]),
        }
    }

    /// The 16 column-major numbers of the equivalent 4x4 matrix.
    pub fn to_cols_array(&self) -> [f32; 16] {
        Mat4::from(self.to_affine()).to_cols_array()
    }
}

/// Axis-aligned box after transforming the box `[min, max]` by `m`: centre moves by `m`, extent
/// by `|m|`. Conservative for any affine `m`.
#[inline]
pub fn transform_aabb(m: &Affine3A, min: Vec3A, max: Vec3A) -> (Vec3A, Vec3A) {
    let center = (min + max) * 0.5;
    let extent = (max - min) * 0.5;
    let c = m.transform_point3a(center);
    let a = m.matrix3;
    let e = a.x_axis.abs() * extent.x + a.y_axis.abs() * extent.y + a.z_axis.abs() * extent.z;
    (c - e, c + e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slerp_takes_the_short_way_across_the_double_cover() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3);
        let mid = slerp_shortest(a, b, 0.5);
        let expected = Quat::from_rotation_y(0.2);
        assert!(1.0 - mid.dot(expected).abs() < 1e-6, "{mid:?}");
    }

    #[test]
    fn slerp_series_matches_the_closed_form() {
        let mut worst = 0.0f64;
        for xi in 0..=300 {
            let x = SLERP_SERIES_MIN_COS + (1.0 - SLERP_SERIES_MIN_COS) * xi as f32 / 300.0;
            let theta = (x as f64).acos();
            for ti in 0..=50 {
                let t = ti as f32 / 50.0;
                let exact = if theta < 1e-9 {
                    t as f64
                } else {
                    (t as f64 * theta).sin() / theta.sin()
                };
                worst = worst.max((slerp_weight(t, x) as f64 - exact).abs());
            }
        }
        assert!(worst < 5e-7, "worst series error {worst}");
    }

    #[test]
    fn hermite_hits_its_end_points() {
        let v0 = Vec4::splat(1.0);
        let v1 = Vec4::splat(3.0);
        let tan = Vec4::splat(7.0);
        assert_eq!(hermite(v0, tan, tan, v1, 2.0, 0.0), v0);
        assert_eq!(hermite(v0, tan, tan, v1, 2.0, 1.0), v1);
    }

    #[test]
    fn delta_round_trips_through_add_delta() {
        let reference = Sqt {
            translation: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_rotation_x(0.4),
            scale: Vec3::new(1.0, 2.0, 0.5),
        };
        let pose = Sqt {
            translation: Vec3::new(-1.0, 0.5, 3.0),
            rotation: Quat::from_rotation_z(1.1),
            scale: Vec3::new(2.0, 2.0, 1.0),
        };
        let back = reference.add_delta(&pose.delta_from(&reference), 1.0);
        assert!(back.translation.abs_diff_eq(pose.translation, 1e-6));
        assert!(back.scale.abs_diff_eq(pose.scale, 1e-6));
        assert!(1.0 - back.rotation.dot(pose.rotation).abs() < 1e-6);
    }

    #[test]
    fn palette_rows_round_trip() {
        let a = Sqt {
            translation: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_rotation_x(0.4),
            scale: Vec3::new(1.0, 2.0, 0.5),
        }
        .to_affine();
        let back = Mat3x4Rows::from_affine(&a).to_affine();
        assert!(Mat4::from(back).abs_diff_eq(Mat4::from(a), 1e-7));
    }
}
