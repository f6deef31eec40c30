//! SIMD value types of the fast evaluator: [`F4`], one `[f32; 4]` value (a channel's xyzw, a
//! matrix row) of one instance, and [`F8`], one scalar of each of the [`LANES`] instances of a
//! group. [`gather`] and [`scatter`] turn one kind into the other.
//!
//! An `F8` is a plain array whose operations are `#[inline(always)]` loops over the lanes, with
//! no branches and no calls: LLVM turns each loop into vector instructions for the target
//! features of the function it is inlined into. The kernel is compiled twice
//! (`super::dispatch`): once for the crate's target (SSE2 on baseline x86-64, an `F8` in two
//! registers) and, on x86, once inside a function built for AVX2 and FMA (an `F8` in one
//! register), chosen at run time. A `wide` vector would fix its instructions at compile time, by
//! the crate's target features alone. An `F4` is a `wide` vector all the same: four lanes are
//! one SSE register on every x86-64 target, and per-component loops over four-element arrays
//! came out partly scalar.
//!
//! `F8` multiply-adds take a [`MulAdd`] flavour as a type parameter: fused (`f32::mul_add`, one
//! instruction where the kernel is built for FMA) or a multiply and an add (on the portable
//! path, where `f32::mul_add` would be a library call per lane).

use std::ops::{Add, Mul, Neg, Sub};

use wide::f32x4;

use crate::math::QUAT_EPSILON;

/// Instances evaluated together, one per lane of an `F8` (eight `f32` lanes).
pub const LANES: usize = 8;

/// How the kernel computes `a * b + c`: the type parameter that compiles it once per
/// instruction set.
pub(crate) trait MulAdd: Copy {
    /// One fused operation (one rounding) rather than a multiply and an add.
    const FUSED: bool;

    /// `a * b + c`, fused or not.
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        if Self::FUSED {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }
}

/// A multiply, then an add: the portable kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Separate;

impl MulAdd for Separate {
    const FUSED: bool = false;
}

/// Fused multiply-add: only for code built with the `fma` target feature (on x86, the AVX2
/// kernel; other targets have none).
#[cfg_attr(
    not(any(target_arch = "x86", target_arch = "x86_64")),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fused;

impl MulAdd for Fused {
    const FUSED: bool = true;
}

/// One `[f32; 4]` value: a channel of one instance (xyzw) or a matrix row. A `wide` vector:
/// four lanes are one SSE register on every x86-64 target, and LLVM's vectorizer leaves
/// per-component code of plain four-element arrays partly scalar.
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

    /// Component-wise `self * a + b`: a multiply and an add on every kernel (`wide` picks the
    /// instruction by the crate's compile target, where FMA is not assumed).
    #[inline(always)]
    pub fn mul_add(self, a: Self, b: Self) -> Self {
        Self(self.0 * a.0 + b.0)
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
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F8([f32; LANES]);

/// Lane-wise `out[i] = f(a[i])`, written as a loop LLVM vectorizes.
#[inline(always)]
fn map1(a: F8, f: impl Fn(f32) -> f32) -> F8 {
    let mut out = [0.0; LANES];
    for (o, &x) in out.iter_mut().zip(&a.0) {
        *o = f(x);
    }
    F8(out)
}

/// Lane-wise `out[i] = f(a[i], b[i])`.
#[inline(always)]
fn map2(a: F8, b: F8, f: impl Fn(f32, f32) -> f32) -> F8 {
    let mut out = [0.0; LANES];
    for (o, (&x, &y)) in out.iter_mut().zip(a.0.iter().zip(&b.0)) {
        *o = f(x, y);
    }
    F8(out)
}

/// All bits set (as an `f32`) where `c`, else 0.
#[inline(always)]
fn mask(c: bool) -> f32 {
    f32::from_bits(if c { u32::MAX } else { 0 })
}

impl F8 {
    /// All lanes 0.
    pub const ZERO: Self = Self([0.0; LANES]);
    /// All lanes 1.
    pub const ONE: Self = Self([1.0; LANES]);

    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        Self([x; LANES])
    }

    /// Lanes from an array.
    #[inline(always)]
    pub fn new(lanes: [f32; LANES]) -> Self {
        Self(lanes)
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f32; LANES] {
        self.0
    }

    /// Lane `i`.
    #[inline(always)]
    pub fn lane(self, i: usize) -> f32 {
        self.0[i]
    }

    /// Lane-wise minimum (`o` where the lanes compare unordered).
    #[inline(always)]
    pub fn min(self, o: Self) -> Self {
        map2(self, o, |a, b| if a < b { a } else { b })
    }

    /// Lane-wise maximum (`o` where the lanes compare unordered).
    #[inline(always)]
    pub fn max(self, o: Self) -> Self {
        map2(self, o, |a, b| if a > b { a } else { b })
    }

    /// Lane-wise absolute value.
    #[inline(always)]
    pub fn abs(self) -> Self {
        map1(self, |a| f32::from_bits(a.to_bits() & 0x7fff_ffff))
    }

    /// Lane-wise `self * a + b`, fused (one rounding) or a multiply and an add, by `M`.
    #[inline(always)]
    pub(crate) fn mul_add<M: MulAdd>(self, a: Self, b: Self) -> Self {
        let mut out = [0.0; LANES];
        for (i, o) in out.iter_mut().enumerate() {
            *o = M::mul_add(self.0[i], a.0[i], b.0[i]);
        }
        Self(out)
    }

    /// `self` with each lane's sign flipped where `sign`'s lane is negative (or -0).
    #[inline(always)]
    pub fn flip_sign_of(self, sign: Self) -> Self {
        map2(self, sign, |a, s| {
            f32::from_bits(a.to_bits() ^ (s.to_bits() & 0x8000_0000))
        })
    }

    /// Lanes clamped to `[0, 1]`.
    #[inline(always)]
    pub fn clamp01(self) -> Self {
        self.max(F8::ZERO).min(F8::ONE)
    }

    /// `2 / x` where `x > QUAT_EPSILON`, else 0 (the quaternion-to-matrix scale).
    #[inline(always)]
    pub fn two_over_or_zero(self) -> Self {
        map1(self, |x| {
            let q = 2.0 / x;
            if x > QUAT_EPSILON { q } else { 0.0 }
        })
    }

    /// `1 / sqrt(x)` where `x > QUAT_EPSILON`, else 0; and a mask of the zero lanes as 1.0.
    #[inline(always)]
    pub fn rsqrt_or_zero(self) -> (Self, Self) {
        (
            map1(self, |x| {
                let r = 1.0 / x.sqrt();
                if x > QUAT_EPSILON { r } else { 0.0 }
            }),
            map1(self, |x| if x > QUAT_EPSILON { 0.0 } else { 1.0 }),
        )
    }

    /// A lane mask: all bits set where the lane is `> 0`.
    #[inline(always)]
    pub fn is_positive(self) -> Self {
        map1(self, |x| mask(x > 0.0))
    }

    /// Lanes of `if_true` where this mask's lanes are set, of `if_false` elsewhere (bit by bit).
    #[inline(always)]
    pub fn select(self, if_true: Self, if_false: Self) -> Self {
        let mut out = [0.0; LANES];
        for (i, o) in out.iter_mut().enumerate() {
            let m = self.0[i].to_bits();
            *o = f32::from_bits((m & if_true.0[i].to_bits()) | (!m & if_false.0[i].to_bits()));
        }
        Self(out)
    }

    /// Whether every lane is `<= 0`.
    #[inline(always)]
    pub fn all_le_zero(self) -> bool {
        let mut any = false;
        for &x in &self.0 {
            any |= x > 0.0;
        }
        !any
    }
}

impl Add for F8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        map2(self, o, |a, b| a + b)
    }
}

impl Sub for F8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        map2(self, o, |a, b| a - b)
    }
}

impl Mul for F8 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        map2(self, o, |a, b| a * b)
    }
}

impl Neg for F8 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        map1(self, |a| -a)
    }
}

impl F8 {
    /// Lanes 0..4 from `lo`, 4..8 from `hi`.
    #[inline(always)]
    fn from_halves(lo: f32x4, hi: f32x4) -> Self {
        let (lo, hi) = (lo.to_array(), hi.to_array());
        Self([lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]])
    }

    /// Lanes 0..4 and 4..8.
    #[inline(always)]
    fn halves(self) -> (f32x4, f32x4) {
        let a = self.0;
        (
            f32x4::new([a[0], a[1], a[2], a[3]]),
            f32x4::new([a[4], a[5], a[6], a[7]]),
        )
    }
}

/// One `[f32; 4]` value per instance to its four components across the lanes: `out[c]` lane
/// `i` is `values[i]` component `c`.
#[inline(always)]
pub fn gather(values: [F4; LANES]) -> [F8; 4] {
    let lo = f32x4::transpose([values[0].0, values[1].0, values[2].0, values[3].0]);
    let hi = f32x4::transpose([values[4].0, values[5].0, values[6].0, values[7].0]);
    // Written out: `array::map` is not always inlined, and a call leaves the AVX2 kernel.
    [
        F8::from_halves(lo[0], hi[0]),
        F8::from_halves(lo[1], hi[1]),
        F8::from_halves(lo[2], hi[2]),
        F8::from_halves(lo[3], hi[3]),
    ]
}

/// The inverse of [`gather`]: `out[i]` component `c` is `components[c]` lane `i`.
#[inline(always)]
pub fn scatter(components: [F8; 4]) -> [F4; LANES] {
    let [c0, c1, c2, c3] = components;
    let h = [c0.halves(), c1.halves(), c2.halves(), c3.halves()];
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
