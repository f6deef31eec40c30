//! Struct-of-arrays transform math for the fast evaluator: lane `i` of every value belongs to
//! instance `i` of a group of [`LANES`] instances of one rig, so a joint's whole chain (blend,
//! SQT to matrix, propagation, skinning, bounds) runs for all of them in the same instructions.

use glam::{Quat, Vec3};

use super::lanes::{F4, F8, Isa, LANES, gather};
use crate::math::{Mat3x4Rows, Sqt};

/// [`LANES`] SQT transforms, one per lane. The rotation need not be unit length: every consumer
/// normalizes (see [`Sqt8::to_affine`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sqt8 {
    /// Translation x, y, z.
    pub t: [F8; 3],
    /// Rotation x, y, z, w.
    pub r: [F8; 4],
    /// Scale x, y, z.
    pub s: [F8; 3],
}

impl Sqt8 {
    /// The same transform in every lane, from `[translation, rotation, scale]` (xyz_, xyzw, xyz_).
    pub fn splat(trs: &[[f32; 4]; 3]) -> Self {
        let [t, r, s] = trs;
        Self {
            t: [F8::splat(t[0]), F8::splat(t[1]), F8::splat(t[2])],
            r: [
                F8::splat(r[0]),
                F8::splat(r[1]),
                F8::splat(r[2]),
                F8::splat(r[3]),
            ],
            s: [F8::splat(s[0]), F8::splat(s[1]), F8::splat(s[2])],
        }
    }

    /// Lanes of `self` where `keep`'s lanes are set (a lane mask), of `other` elsewhere.
    #[inline(always)]
    pub(crate) fn select(&self, keep: &F8, other: &Sqt8) -> Sqt8 {
        Sqt8 {
            t: std::array::from_fn(|i| keep.select(self.t[i], other.t[i])),
            r: std::array::from_fn(|i| keep.select(self.r[i], other.r[i])),
            s: std::array::from_fn(|i| keep.select(self.s[i], other.s[i])),
        }
    }

    /// Override blend toward `target` by `w` (each lane in `[0, 1]`): translation and scale
    /// `self (1 - w) + target w`; rotation the same between the two rotations brought to unit
    /// length, on the shorter arc, left unnormalized (normalized lerp). `w = 0` keeps `self`'s
    /// translation and scale exactly and `w = 1` gives `target`'s.
    ///
    /// `target`'s rotation must be within a few degrees of unit length (an interpolated
    /// sample: one Newton step normalizes it); so must `self`'s unless `self_far` (the result
    /// of an earlier blend), which then takes a full normalization.
    #[inline(always)]
    pub(crate) fn blend_toward<M: Isa>(&self, target: &Sqt8, w: F8, self_far: bool) -> Sqt8 {
        let keep = F8::ONE - w;
        let (a, b) = (self, target);
        // Both rotations at unit length, as the exact operator's are (an interpolated sample is
        // a little shorter, which would shift the weight toward the other), folded into the
        // weights: `a (1 - w) / |a| ± b w / |b|`, the sign giving the shorter arc.
        let inv_a = if self_far {
            dot4::<M>(&a.r, &a.r).rsqrt_or_zero().0
        } else {
            near_unit_inverse_length::<M>(&a.r)
        };
        let ka = keep * inv_a;
        let kb = (w * near_unit_inverse_length::<M>(&b.r)).flip_sign_of(dot4::<M>(&a.r, &b.r));
        Sqt8 {
            t: [
                a.t[0] * keep + b.t[0] * w,
                a.t[1] * keep + b.t[1] * w,
                a.t[2] * keep + b.t[2] * w,
            ],
            r: [
                a.r[0] * ka + b.r[0] * kb,
                a.r[1] * ka + b.r[1] * kb,
                a.r[2] * ka + b.r[2] * kb,
                a.r[3] * ka + b.r[3] * kb,
            ],
            s: [
                a.s[0] * keep + b.s[0] * w,
                a.s[1] * keep + b.s[1] * w,
                a.s[2] * keep + b.s[2] * w,
            ],
        }
    }

    /// Additive blend of `sample`'s difference from `rest` scaled by `w` (each lane `>= 0`):
    /// `T + w (Ts - Tr)`, `R * nlerp(I, Rr⁻¹ Rs, w)` (normalized), `S * lerp(1, Ss / Sr, w)`.
    /// `rest_inv_s` is `1 / Sr`. Lanes with `w = 0` come out unchanged, bit for bit.
    #[inline(always)]
    pub(crate) fn add_delta<M: Isa>(
        &self,
        sample: &Sqt8,
        rest: &Sqt8,
        rest_inv_s: &[F8; 3],
        w: F8,
    ) -> Sqt8 {
        let conj = [-rest.r[0], -rest.r[1], -rest.r[2], rest.r[3]];
        let d = normalize4::<M>(quat_mul(&conj, &sample.r));
        // nlerp(I, d, w) on the shorter arc: dot(I, d) = d.w.
        let wd = w.flip_sign_of(d[3]);
        let keep = F8::ONE - w;
        let step = [d[0] * wd, d[1] * wd, d[2] * wd, d[3].mul_add::<M>(wd, keep)];
        let r = normalize4::<M>(quat_mul(&self.r, &step));
        let on = w.is_positive();
        let (a, b) = (self, sample);
        Sqt8 {
            t: [
                (b.t[0] - rest.t[0]).mul_add::<M>(w, a.t[0]),
                (b.t[1] - rest.t[1]).mul_add::<M>(w, a.t[1]),
                (b.t[2] - rest.t[2]).mul_add::<M>(w, a.t[2]),
            ],
            r: [
                on.select(r[0], a.r[0]),
                on.select(r[1], a.r[1]),
                on.select(r[2], a.r[2]),
                on.select(r[3], a.r[3]),
            ],
            s: [
                a.s[0] * (b.s[0] * rest_inv_s[0]).mul_add::<M>(w, keep),
                a.s[1] * (b.s[1] * rest_inv_s[1]).mul_add::<M>(w, keep),
                a.s[2] * (b.s[2] * rest_inv_s[2]).mul_add::<M>(w, keep),
            ],
        }
    }

    /// `T * R * S` as one affine matrix per lane, normalizing the rotation on the way (a rotation of
    /// no length gives identity, like [`crate::math::normalize_or_identity`]).
    #[inline(always)]
    pub(crate) fn to_affine<M: Isa>(self) -> Affine8 {
        let [x, y, z, w] = self.r;
        let k = dot4::<M>(&self.r, &self.r).two_over_or_zero();
        let (xk, yk, zk) = (x * k, y * k, z * k);
        let (xx, yy, zz) = (x * xk, y * yk, z * zk);
        let (xy, xz, yz) = (x * yk, x * zk, y * zk);
        let (wx, wy, wz) = (w * xk, w * yk, w * zk);
        let [sx, sy, sz] = self.s;
        let one = F8::ONE;
        Affine8 {
            m: [
                [
                    (one - (yy + zz)) * sx,
                    (xy - wz) * sy,
                    (xz + wy) * sz,
                    self.t[0],
                ],
                [
                    (xy + wz) * sx,
                    (one - (xx + zz)) * sy,
                    (yz - wx) * sz,
                    self.t[1],
                ],
                [
                    (xz - wy) * sx,
                    (yz + wx) * sy,
                    (one - (xx + yy)) * sz,
                    self.t[2],
                ],
            ],
        }
    }

    /// Lane `lane` as `[translation, rotation, scale]`.
    pub fn lane(&self, lane: usize) -> [[f32; 4]; 3] {
        let l = |v: &[F8]| {
            let mut out = [0.0; 4];
            for (o, x) in out.iter_mut().zip(v) {
                *o = x.lane(lane);
            }
            out
        };
        [l(&self.t), l(&self.r), l(&self.s)]
    }

    /// Replaces lane `lane` with `[translation, rotation, scale]`.
    pub fn set_lane(&mut self, lane: usize, trs: &[[f32; 4]; 3]) {
        let set = |v: &mut F8, x: f32| {
            let mut a = v.to_array();
            a[lane] = x;
            *v = F8::new(a);
        };
        for (v, &x) in self.t.iter_mut().zip(&trs[0]) {
            set(v, x);
        }
        for (v, &x) in self.r.iter_mut().zip(&trs[1]) {
            set(v, x);
        }
        for (v, &x) in self.s.iter_mut().zip(&trs[2]) {
            set(v, x);
        }
    }
}

#[inline(always)]
fn dot4<M: Isa>(a: &[F8; 4], b: &[F8; 4]) -> F8 {
    a[3].mul_add::<M>(
        b[3],
        a[2].mul_add::<M>(b[2], a[1].mul_add::<M>(b[1], a[0] * b[0])),
    )
}

#[inline(always)]
fn normalize4<M: Isa>(q: [F8; 4]) -> [F8; 4] {
    // A rotation of no length becomes identity.
    let (inv, w_fix) = dot4::<M>(&q, &q).rsqrt_or_zero();
    [
        q[0] * inv,
        q[1] * inv,
        q[2] * inv,
        q[3].mul_add::<M>(inv, w_fix),
    ]
}

/// `1 / |q|` by one Newton step from 1, `(3 - |q|²) / 2`: for `|q|² = 1 - e` it scales `q` to
/// within `3 e² / 8` of unit length (2e-5 for two frames 20° apart).
#[inline(always)]
fn near_unit_inverse_length<M: Isa>(q: &[F8; 4]) -> F8 {
    (F8::splat(3.0) - dot4::<M>(q, q)) * F8::splat(0.5)
}

/// Hamilton product `a * b` of one quaternion pair per lane (xyzw).
#[inline(always)]
fn quat_mul(a: &[F8; 4], b: &[F8; 4]) -> [F8; 4] {
    let [ax, ay, az, aw] = *a;
    let [bx, by, bz, bw] = *b;
    [
        aw * bx + ax * bw + (ay * bz - az * by),
        aw * by + ay * bw + (az * bx - ax * bz),
        aw * bz + az * bw + (ax * by - ay * bx),
        aw * bw - ax * bx - (ay * by + az * bz),
    ]
}

/// One affine 3x4 matrix per lane: `m[row][col]`, column 3 the translation (the layout of
/// [`Mat3x4Rows`], one matrix per lane).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Affine8 {
    /// Rows of the upper 3x4 block.
    pub m: [[F8; 4]; 3],
}

impl Affine8 {
    /// The same matrix in every lane.
    pub fn splat(a: &Mat3x4Rows) -> Self {
        Self {
            m: a.rows.map(|row| row.map(F8::splat)),
        }
    }

    /// Lane `i` taken from `mats[i]`.
    #[inline(always)]
    pub(crate) fn from_lanes<M: Isa>(mats: [&Mat3x4Rows; LANES]) -> Self {
        let row = |r: usize| gather::<M>(mats.map(|m| F4::new(m.rows[r])));
        Self {
            m: [row(0), row(1), row(2)],
        }
    }

    /// Replaces lane `lane` with palette rows `m`.
    pub fn set_lane(&mut self, lane: usize, m: &Mat3x4Rows) {
        for (row, values) in self.m.iter_mut().zip(&m.rows) {
            for (v, &x) in row.iter_mut().zip(values) {
                let mut a = v.to_array();
                a[lane] = x;
                *v = F8::new(a);
            }
        }
    }

    /// Lane `lane` as palette rows.
    pub fn lane(&self, lane: usize) -> Mat3x4Rows {
        Mat3x4Rows {
            rows: self.m.map(|row| row.map(|v| v.lane(lane))),
        }
    }

    /// Writes the affine product `self * b` (apply `b`, then `self`) into `out` element by
    /// element (a whole-matrix move would go through a `memcpy` call).
    #[inline(always)]
    pub(crate) fn mul_into<M: Isa>(&self, b: &Affine8, out: &mut Affine8) {
        for (row, a) in out.m.iter_mut().zip(&self.m) {
            let [r0, r1, r2, r3] = mul_row::<M>(a, &b.m);
            row[0] = r0;
            row[1] = r1;
            row[2] = r2;
            row[3] = r3;
        }
    }

    /// Grows the boxes `lo`..`hi` (one per lane) by the box `center ± extent` moved by each
    /// lane's matrix: centre transformed, extent by the absolute matrix.
    #[inline(always)]
    pub(crate) fn grow_aabb<M: Isa>(
        &self,
        center: &[F8; 3],
        extent: &[F8; 3],
        lo: &mut [F8; 3],
        hi: &mut [F8; 3],
    ) {
        for r in 0..3 {
            let [a0, a1, a2, a3] = self.m[r];
            let c = a2.mul_add::<M>(
                center[2],
                a1.mul_add::<M>(center[1], a0.mul_add::<M>(center[0], a3)),
            );
            let e = a2.abs().mul_add::<M>(
                extent[2],
                a1.abs().mul_add::<M>(extent[1], a0.abs() * extent[0]),
            );
            lo[r] = lo[r].min(c - e);
            hi[r] = hi[r].max(c + e);
        }
    }
}

/// Row `a` of an affine matrix times the affine matrix `b`.
#[inline(always)]
fn mul_row<M: Isa>(a: &[F8; 4], b: &[[F8; 4]; 3]) -> [F8; 4] {
    let [a0, a1, a2, a3] = *a;
    [
        a2.mul_add::<M>(b[2][0], a1.mul_add::<M>(b[1][0], a0 * b[0][0])),
        a2.mul_add::<M>(b[2][1], a1.mul_add::<M>(b[1][1], a0 * b[0][1])),
        a2.mul_add::<M>(b[2][2], a1.mul_add::<M>(b[1][2], a0 * b[0][2])),
        a2.mul_add::<M>(
            b[2][3],
            a1.mul_add::<M>(b[1][3], a0.mul_add::<M>(b[0][3], a3)),
        ),
    ]
}

/// `s` as `[translation, rotation, scale]` (xyz_, xyzw, xyz_), the lane layout of [`Sqt8`].
pub(crate) fn sqt_to_arrays(s: &Sqt) -> [[f32; 4]; 3] {
    [
        s.translation.extend(0.0).to_array(),
        s.rotation.to_array(),
        s.scale.extend(0.0).to_array(),
    ]
}

/// The inverse of [`sqt_to_arrays`].
pub(crate) fn arrays_to_sqt(trs: &[[f32; 4]; 3]) -> Sqt {
    Sqt {
        translation: Vec3::new(trs[0][0], trs[0][1], trs[0][2]),
        rotation: Quat::from_array(trs[1]),
        scale: Vec3::new(trs[2][0], trs[2][1], trs[2][2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::fast::lanes::Separate;
    use crate::math::Sqt;
    use glam::{Affine3A, Quat, Vec3};

    fn sqt(i: f32) -> Sqt {
        Sqt {
            translation: Vec3::new(1.0 + i, -2.0, 0.5 * i),
            rotation: Quat::from_euler(glam::EulerRot::XYZ, 0.3 * i, -0.7, 1.1 + i),
            scale: Vec3::new(1.0, 2.0 + i, 0.5),
        }
    }

    fn lanes(s: [Sqt; LANES]) -> Sqt8 {
        let mut out = Sqt8::default();
        for (i, s) in s.iter().enumerate() {
            out.set_lane(
                i,
                &[
                    s.translation.extend(0.0).to_array(),
                    s.rotation.to_array(),
                    s.scale.extend(0.0).to_array(),
                ],
            );
        }
        out
    }

    fn close(a: &Mat3x4Rows, b: &Affine3A) {
        let b = Mat3x4Rows::from_affine(b);
        for r in 0..3 {
            for c in 0..4 {
                assert!((a.rows[r][c] - b.rows[r][c]).abs() < 1e-5, "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn sqt_to_affine_matches_glam_even_for_unnormalized_rotations() {
        let s: [Sqt; LANES] = std::array::from_fn(|i| sqt(i as f32));
        let mut l = lanes(s);
        for q in &mut l.r {
            *q = *q * F8::new([1.0, 0.5, 2.0, 0.9, 1.5, 0.7, 1.2, 3.0]);
        }
        let m = l.to_affine::<Separate>();
        for (i, s) in s.iter().enumerate() {
            close(&m.lane(i), &s.to_affine());
        }
    }

    #[test]
    fn affine_product_matches_glam() {
        let s: [Sqt; LANES] = std::array::from_fn(|i| sqt(i as f32));
        let a = lanes(s).to_affine::<Separate>();
        let b = lanes(std::array::from_fn(|i| s[LANES - 1 - i])).to_affine::<Separate>();
        let mut p = Affine8::default();
        a.mul_into::<Separate>(&b, &mut p);
        for i in 0..LANES {
            close(
                &p.lane(i),
                &(s[i].to_affine() * s[LANES - 1 - i].to_affine()),
            );
        }
    }

    #[test]
    fn blends_match_the_scalar_operators() {
        let a: [Sqt; LANES] = std::array::from_fn(|i| sqt(i as f32));
        let b: [Sqt; LANES] = std::array::from_fn(|i| sqt([0.5, -1.0, 2.5, 7.0][i % 4] + i as f32));
        let rest = sqt(0.25);
        let w = F8::new([0.0, 0.3, 1.0, 0.7, 0.5, 0.0, 1.0, 0.1]);
        let blended = lanes(a).blend_toward::<Separate>(&lanes(b), w, true);
        let r4 = lanes([rest; LANES]);
        let inv = [0, 1, 2].map(|i| F8::splat(1.0 / rest.scale[i]));
        let added = lanes(a).add_delta::<Separate>(&lanes(b), &r4, &inv, w);
        for i in 0..LANES {
            let expect = a[i].blend_toward(&b[i], w.lane(i)).to_affine();
            close(&blended.to_affine::<Separate>().lane(i), &expect);
            let expect = a[i]
                .add_delta(&b[i].delta_from(&rest), w.lane(i))
                .to_affine();
            close(&added.to_affine::<Separate>().lane(i), &expect);
        }
    }
}
