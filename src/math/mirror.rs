//! Reflection across one of the model's coordinate planes through the origin, applied to
//! rotations and translations. Twin of `reflect_rotation` and `reflect_vector` in
//! `wgsl/retarget.wgsl`.

use glam::{Quat, Vec3};

/// A mirror plane: the coordinate plane whose normal is the model axis `0` (X: left and right
/// swap), `1` (Y) or `2` (Z).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MirrorPlane(pub u8);

impl MirrorPlane {
    /// The plane x = 0 (a biped facing ±Z).
    pub const X: Self = Self(0);
    /// The plane y = 0.
    pub const Y: Self = Self(1);
    /// The plane z = 0 (a biped facing ±X).
    pub const Z: Self = Self(2);

    /// `v` with its component along the plane's normal negated.
    #[inline]
    pub fn reflect_vector(self, v: Vec3) -> Vec3 {
        let mut out = v;
        out[self.axis()] = -out[self.axis()];
        out
    }

    /// The rotation a mirror image turns by: `M q M` for the reflection `M` (the vector part is
    /// negated except along the normal).
    #[inline]
    pub fn reflect_rotation(self, q: Quat) -> Quat {
        let mut v = -Vec3::new(q.x, q.y, q.z);
        v[self.axis()] = -v[self.axis()];
        Quat::from_xyzw(v.x, v.y, v.z, q.w)
    }

    fn axis(self) -> usize {
        usize::from(self.0.min(2))
    }
}
