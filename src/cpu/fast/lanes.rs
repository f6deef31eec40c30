//! SIMD value types of the fast evaluator: [`F4`], one `[f32; 4]` value (a channel's xyzw, a
//! matrix row) of one instance, and [`F8`], one scalar of each of the [`LANES`] instances of a
//! group. [`gather`] and [`scatter`] turn one kind into the other.
//!
//! Both wrap `wide` vectors (`f32x4`, `f32x8`), which map each operation to SSE instructions on
//! the baseline x86-64 target (an `f32x8` is two SSE registers there), to one AVX instruction
//! when the crate is built for AVX (`-C target-cpu=x86-64-v3`), and to NEON or scalar code
//! elsewhere, without `unsafe` here. Plain `[f32; 4]` arithmetic was tried first: LLVM's SLP
//! vectorizer left per-lane branches and shuffles in the quaternion code and cost three times
//! the instructions.

use std::ops::{Add, Mul, Neg, Sub};

use wide::{f32x4, f32x8};

use crate::math::QUAT_EPSILON;

/// Instances evaluated together, one per lane of an `F8` (eight `f32` lanes).
pub const LANES: usize = 8;

/// One `[f32; 4]` value: a channel of one instance (xyzw) or a matrix row.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F4(f32x4);

impl F4 {
    /// All components 0.
    pub const ZERO: Self = Self(f32x4::ZERO);

    /// `x` in every component.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        Self(f32x4::splat(x))
    }

    /// Components from an array.
    #[inline(always)]
    pub fn new(v: [f32; 4]) -> Self {
        Self(f32x4::new(v))
    }

    /// The components as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0.to_array()
    }
}

impl F4 {
    /// Component-wise `self * a + b` (fused where the target has FMA, like [`F8::mul_add`]).
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        Self(self.0.mul_add(a.0, b.0))
    }
}

impl Add for F4 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(self.0 + o.0)
    }
}

impl Mul for F4 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(self.0 * o.0)
    }
}

/// [`LANES`] `f32` lanes, one per instance of a group.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F8(f32x8);

impl F8 {
    /// All lanes 0.
    pub const ZERO: Self = Self(f32x8::ZERO);
    /// All lanes 1.
    pub const ONE: Self = Self(f32x8::ONE);

    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        Self(f32x8::splat(x))
    }

    /// Lanes from an array.
    #[inline(always)]
    pub fn new(lanes: [f32; LANES]) -> Self {
        Self(f32x8::new(lanes))
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f32; LANES] {
        self.0.to_array()
    }

    /// Lanes 0..4 from `lo`, 4..8 from `hi`.
    #[inline(always)]
    fn from_halves(lo: f32x4, hi: f32x4) -> Self {
        let (lo, hi) = (lo.to_array(), hi.to_array());
        Self(f32x8::new([
            lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3],
        ]))
    }

    /// Lanes 0..4 and 4..8.
    #[inline(always)]
    fn halves(self) -> (f32x4, f32x4) {
        let a = self.0.to_array();
        (
            f32x4::new([a[0], a[1], a[2], a[3]]),
            f32x4::new([a[4], a[5], a[6], a[7]]),
        )
    }

    /// Lane `i`.
    #[inline(always)]
    pub fn lane(self, i: usize) -> f32 {
        self.0.as_array()[i]
    }

    /// Lane-wise minimum (`o` where the lanes compare unordered).
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        Self(self.0.fast_min(o.0))
    }

    /// Lane-wise maximum (`o` where the lanes compare unordered).
    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        Self(self.0.fast_max(o.0))
    }

    /// Lane-wise absolute value.
    #[inline(always)]
    pub fn abs(self) -> Self {
        Self(self.0.abs())
    }

    /// Lane-wise `self * a + b`: one fused instruction (one rounding) in builds for a target
    /// with FMA, a multiply and an add (two roundings) otherwise.
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        Self(self.0.mul_add(a.0, b.0))
    }

    /// `self` with each lane's sign flipped where `sign`'s lane is negative (or -0).
    #[inline(always)]
    pub fn flip_sign_of(self, sign: Self) -> Self {
        Self(self.0 ^ (sign.0 & f32x8::splat(-0.0)))
    }

    /// Lanes clamped to `[0, 1]`.
    #[inline(always)]
    pub fn clamp01(self) -> Self {
        self.max(F8::ZERO).min(F8::ONE)
    }

    /// `2 / x` where `x > QUAT_EPSILON`, else 0 (the quaternion-to-matrix scale).
    #[inline(always)]
    pub fn two_over_or_zero(self) -> Self {
        let ok = self.0.simd_gt(f32x8::splat(QUAT_EPSILON));
        Self((f32x8::splat(2.0) / self.0) & ok)
    }

    /// `1 / sqrt(x)` where `x > QUAT_EPSILON`, else 0; and a mask of the zero lanes as 1.0.
    #[inline(always)]
    pub fn rsqrt_or_zero(self) -> (Self, Self) {
        let ok = self.0.simd_gt(f32x8::splat(QUAT_EPSILON));
        (
            Self((f32x8::ONE / self.0.sqrt()) & ok),
            Self(f32x8::ONE & !ok),
        )
    }

    /// A lane mask: all bits set where the lane is `> 0`.
    #[inline(always)]
    pub fn is_positive(self) -> Self {
        Self(self.0.simd_gt(f32x8::ZERO))
    }

    /// Lanes of `if_true` where this mask's lanes are set, of `if_false` elsewhere.
    #[inline(always)]
    pub fn select(self, if_true: Self, if_false: Self) -> Self {
        Self(self.0.bitselect(if_true.0, if_false.0))
    }

    /// Whether every lane is `<= 0`.
    #[inline(always)]
    pub fn all_le_zero(self) -> bool {
        !self.0.simd_gt(f32x8::ZERO).any()
    }
}

impl Add for F8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Self(self.0 + o.0)
    }
}

impl Sub for F8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Self(self.0 - o.0)
    }
}

impl Mul for F8 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Self(self.0 * o.0)
    }
}

impl Neg for F8 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(-self.0)
    }
}

/// One `[f32; 4]` value per instance to its four components across the lanes: `out[c]` lane
/// `i` is `values[i]` component `c`.
#[inline(always)]
pub fn gather(values: [F4; LANES]) -> [F8; 4] {
    let lo = f32x4::transpose([values[0].0, values[1].0, values[2].0, values[3].0]);
    let hi = f32x4::transpose([values[4].0, values[5].0, values[6].0, values[7].0]);
    [0, 1, 2, 3].map(|c| F8::from_halves(lo[c], hi[c]))
}

/// The inverse of [`gather`]: `out[i]` component `c` is `components[c]` lane `i`.
#[inline(always)]
pub fn scatter(components: [F8; 4]) -> [F4; LANES] {
    let h = components.map(F8::halves);
    let lo = f32x4::transpose([h[0].0, h[1].0, h[2].0, h[3].0]);
    let hi = f32x4::transpose([h[0].1, h[1].1, h[2].1, h[3].1]);
    [
        F4(lo[0]),
        F4(lo[1]),
        F4(lo[2]),
        F4(lo[3]),
        F4(hi[0]),
        F4(hi[1]),
        F4(hi[2]),
        F4(hi[3]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_and_scatter_are_inverse_transposes() {
        let values: [F4; LANES] =
            std::array::from_fn(|i| F4::new([0, 1, 2, 3].map(|c| (10 * i + c) as f32)));
        let g = gather(values);
        for (c, comp) in g.iter().enumerate() {
            for i in 0..LANES {
                assert_eq!(comp.lane(i), (10 * i + c) as f32);
            }
        }
        assert_eq!(scatter(g), values);
    }
}
