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
//! `F8` multiply-adds take a [`Isa`] flavour as a type parameter: fused (`f32::mul_add`, one
//! instruction where the kernel is built for FMA) or a multiply and an add (on the portable
//! path, where `f32::mul_add` would be a library call per lane).

use std::ops::{Add, Mul, Neg, Sub};

use wide::f32x4;

use crate::math::{Mat3x4Rows, QUAT_EPSILON};

/// Instances evaluated together, one per lane of an `F8` (eight `f32` lanes).
pub const LANES: usize = 8;

/// The instruction set a copy of the kernel is built for: the type parameter that compiles it
/// once per set. It decides how `a * b + c` is computed and how lanes are transposed.
pub(crate) trait Isa: Copy {
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

    /// The 4x4 transpose of each half of four vectors: half `h` of `out[m]` component `n` is
    /// half `h` of `v[n]` component `m` (see [`gather`] and [`scatter`]).
    #[inline(always)]
    fn transpose_halves(v: [F8; 4]) -> [F8; 4] {
        let h = [v[0].halves(), v[1].halves(), v[2].halves(), v[3].halves()];
        let lo = f32x4::transpose([h[0].0.0, h[1].0.0, h[2].0.0, h[3].0.0]);
        let hi = f32x4::transpose([h[0].1.0, h[1].1.0, h[2].1.0, h[3].1.0]);
        [
            F8::from_halves(F4(lo[0]), F4(hi[0])),
            F8::from_halves(F4(lo[1]), F4(hi[1])),
            F8::from_halves(F4(lo[2]), F4(hi[2])),
            F8::from_halves(F4(lo[3]), F4(hi[3])),
        ]
    }

    /// Writes lane `i` of the matrices `m` (rows of lanes, as in `soa::Affine8`) to entry `j` of
    /// `out[i]`, for the lanes `out` holds.
    #[inline(always)]
    fn write_lanes(m: &[[F8; 4]; 3], out: &mut [&mut [Mat3x4Rows]], j: usize) {
        let rows = [
            scatter::<Self>(m[0]),
            scatter::<Self>(m[1]),
            scatter::<Self>(m[2]),
        ];
        for (lane, palette) in out.iter_mut().enumerate() {
            palette[j] = Mat3x4Rows {
                rows: [
                    rows[0][lane].to_array(),
                    rows[1][lane].to_array(),
                    rows[2][lane].to_array(),
                ],
            };
        }
    }
}

/// A multiply, then an add: the portable kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Separate;

impl Isa for Separate {
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

impl Isa for Fused {
    const FUSED: bool = true;

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[inline(always)]
    fn transpose_halves(v: [F8; 4]) -> [F8; 4] {
        // SAFETY: `transpose_halves_avx` is safe Rust whose only requirement is a CPU with AVX.
        // `Fused` is crate-private and instantiated only by the kernel built for AVX2 and FMA
        // (`super::dispatch::evaluate_group_avx2`), which runs only where both were detected,
        // and by this module's tests after the same detection.
        unsafe { transpose_halves_avx(v) }
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[inline(always)]
    fn write_lanes(m: &[[F8; 4]; 3], out: &mut [&mut [Mat3x4Rows]], j: usize) {
        // SAFETY: as in `transpose_halves` above: safe Rust that needs AVX, reached only from
        // the kernel that runs where AVX2 was detected (and from tests after detection).
        unsafe { write_lanes_avx(m, out, j) }
    }
}

/// [`Isa::write_lanes`] with AVX: an 8x8 transpose of the first two rows gives each lane's
/// first 32 bytes in one register, the third row's transpose two lanes per register. Built
/// from the whole-register shuffles, so the compiler keeps them (per-lane rows cut from a
/// transpose came out as element inserts, four per row).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[target_feature(enable = "avx")]
#[inline]
fn write_lanes_avx(m: &[[F8; 4]; 3], out: &mut [&mut [Mat3x4Rows]], j: usize) {
    #[cfg(target_arch = "x86")]
    use std::arch::x86::_mm256_permute2f128_ps as permute;
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::_mm256_permute2f128_ps as permute;
    // Half `h` of `a[k]`: lane `k + 4h`'s row 0; of `b[k]`: its row 1; of `c[k]`: its row 2.
    let a = transpose_halves_avx(m[0]);
    let b = transpose_halves_avx(m[1]);
    let c = transpose_halves_avx(m[2]);
    // Lane `i`'s rows 0 and 1: the low halves (`0x20`) or the high halves (`0x31`).
    let front = [
        permute::<0x20>(a[0].0, b[0].0),
        permute::<0x20>(a[1].0, b[1].0),
        permute::<0x20>(a[2].0, b[2].0),
        permute::<0x20>(a[3].0, b[3].0),
        permute::<0x31>(a[0].0, b[0].0),
        permute::<0x31>(a[1].0, b[1].0),
        permute::<0x31>(a[2].0, b[2].0),
        permute::<0x31>(a[3].0, b[3].0),
    ];
    for (lane, palette) in out.iter_mut().enumerate().take(LANES) {
        let [r0, r1]: [[f32; 4]; 2] = bytemuck::cast(front[lane]);
        let back: [[f32; 4]; 2] = bytemuck::cast(c[lane % 4].0);
        palette[j] = Mat3x4Rows {
            rows: [r0, r1, back[lane / 4]],
        };
    }
}

/// [`Isa::transpose_halves`] in eight AVX shuffles (an array formulation of the same
/// shuffles came out as scalar moves wherever the vectors had been stored).
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[target_feature(enable = "avx")]
#[inline]
fn transpose_halves_avx(v: [F8; 4]) -> [F8; 4] {
    #[cfg(target_arch = "x86")]
    use std::arch::x86::{_mm256_shuffle_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps};
    #[cfg(target_arch = "x86_64")]
    use std::arch::x86_64::{_mm256_shuffle_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps};
    let [a, b, c, d] = v;
    // Per half: `t0 = a0 b0 a1 b1`, `t1 = c0 d0 c1 d1`, `t2 = a2 b2 a3 b3`, `t3 = c2 d2 c3 d3`.
    let t0 = _mm256_unpacklo_ps(a.0, b.0);
    let t1 = _mm256_unpacklo_ps(c.0, d.0);
    let t2 = _mm256_unpackhi_ps(a.0, b.0);
    let t3 = _mm256_unpackhi_ps(c.0, d.0);
    // The front pair of one and of the other (`0b01_00_01_00`), then the back pair.
    [
        F8(_mm256_shuffle_ps::<0x44>(t0, t1)),
        F8(_mm256_shuffle_ps::<0xee>(t0, t1)),
        F8(_mm256_shuffle_ps::<0x44>(t2, t3)),
        F8(_mm256_shuffle_ps::<0xee>(t2, t3)),
    ]
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

/// The register an [`F8`] lives in: a 256-bit vector type on x86 (a type, not an instruction
/// set: the compiler keeps it whole, in one AVX register in the AVX2 kernel and two SSE ones in
/// the portable kernel), eight plain lanes elsewhere.
#[cfg(target_arch = "x86_64")]
type Vector = std::arch::x86_64::__m256;
#[cfg(target_arch = "x86")]
type Vector = std::arch::x86::__m256;
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
type Vector = [f32; LANES];

/// [`LANES`] `f32` lanes, one per instance of a group. Held as one vector value rather than an
/// array: an array is split into eight scalars wherever two of them meet (a choice between a
/// sample and a constant, a pose carried from layer to layer), each moved on its own.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct F8(Vector);

impl std::fmt::Debug for F8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("F8").field(&self.to_array()).finish()
    }
}

impl Default for F8 {
    fn default() -> Self {
        Self::ZERO
    }
}

impl PartialEq for F8 {
    fn eq(&self, o: &Self) -> bool {
        self.to_array() == o.to_array()
    }
}

/// Lane-wise `out[i] = f(a[i])`, written as a loop LLVM vectorizes.
#[inline(always)]
fn map1(a: F8, f: impl Fn(f32) -> f32) -> F8 {
    let a = a.to_array();
    let mut out = [0.0; LANES];
    for (o, &x) in out.iter_mut().zip(&a) {
        *o = f(x);
    }
    F8::new(out)
}

/// Lane-wise `out[i] = f(a[i], b[i])`.
#[inline(always)]
fn map2(a: F8, b: F8, f: impl Fn(f32, f32) -> f32) -> F8 {
    let (a, b) = (a.to_array(), b.to_array());
    let mut out = [0.0; LANES];
    for (o, (&x, &y)) in out.iter_mut().zip(a.iter().zip(&b)) {
        *o = f(x, y);
    }
    F8::new(out)
}

/// All bits set (as an `f32`) where `c`, else 0.
#[inline(always)]
fn mask(c: bool) -> f32 {
    f32::from_bits(if c { u32::MAX } else { 0 })
}

impl F8 {
    /// All lanes 0.
    pub const ZERO: Self = Self::from_bits([0; LANES]);
    /// All lanes 1.
    pub const ONE: Self = Self::from_bits([0x3f80_0000; LANES]);

    /// Lanes from their bit patterns, in a constant.
    const fn from_bits(bits: [u32; LANES]) -> Self {
        Self(bytemuck::must_cast(bits))
    }

    /// `x` in every lane.
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        Self::new([x; LANES])
    }

    /// Lanes from an array.
    #[inline(always)]
    pub fn new(lanes: [f32; LANES]) -> Self {
        Self(bytemuck::cast(lanes))
    }

    /// The lanes as an array.
    #[inline(always)]
    pub fn to_array(self) -> [f32; LANES] {
        bytemuck::cast(self.0)
    }

    /// Lane `i`.
    #[inline(always)]
    pub fn lane(self, i: usize) -> f32 {
        self.to_array()[i]
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
    pub(crate) fn mul_add<M: Isa>(self, a: Self, b: Self) -> Self {
        let (x, a, b) = (self.to_array(), a.to_array(), b.to_array());
        let mut out = [0.0; LANES];
        for (i, o) in out.iter_mut().enumerate() {
            *o = M::mul_add(x[i], a[i], b[i]);
        }
        Self::new(out)
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
        let (m, t, f) = (self.to_array(), if_true.to_array(), if_false.to_array());
        let mut out = [0.0; LANES];
        for (i, o) in out.iter_mut().enumerate() {
            let m = m[i].to_bits();
            *o = f32::from_bits((m & t[i].to_bits()) | (!m & f[i].to_bits()));
        }
        Self::new(out)
    }

    /// Whether every lane is `<= 0`.
    #[inline(always)]
    pub fn all_le_zero(self) -> bool {
        let mut any = false;
        for x in self.to_array() {
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
    fn from_halves(lo: F4, hi: F4) -> Self {
        let (lo, hi) = (lo.to_array(), hi.to_array());
        Self::new([lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]])
    }

    /// Lanes 0..4 and 4..8.
    #[inline(always)]
    fn halves(self) -> (F4, F4) {
        let a = self.to_array();
        (
            F4::new([a[0], a[1], a[2], a[3]]),
            F4::new([a[4], a[5], a[6], a[7]]),
        )
    }
}

/// One `[f32; 4]` value per instance to its four components across the lanes: `out[c]` lane
/// `i` is `values[i]` component `c`. Instances `k` and `k + 4` share a register, then each half
/// is transposed.
#[inline(always)]
pub(crate) fn gather<M: Isa>(values: [F4; LANES]) -> [F8; 4] {
    // Written out: `array::map` is not always inlined, and a call leaves the AVX2 kernel.
    M::transpose_halves([
        F8::from_halves(values[0], values[4]),
        F8::from_halves(values[1], values[5]),
        F8::from_halves(values[2], values[6]),
        F8::from_halves(values[3], values[7]),
    ])
}

/// The inverse of [`gather`]: `out[i]` component `c` is `components[c]` lane `i`.
#[inline(always)]
pub(crate) fn scatter<M: Isa>(components: [F8; 4]) -> [F4; LANES] {
    let [v0, v1, v2, v3] = M::transpose_halves(components);
    let (h0, h1, h2, h3) = (v0.halves(), v1.halves(), v2.halves(), v3.halves());
    [h0.0, h1.0, h2.0, h3.0, h0.1, h1.1, h2.1, h3.1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_and_scatter_are_inverse_transposes() {
        let values: [F4; LANES] =
            std::array::from_fn(|i| F4::new([0, 1, 2, 3].map(|c| (10 * i + c) as f32)));
        let g = gather::<Separate>(values);
        for (c, comp) in g.iter().enumerate() {
            for i in 0..LANES {
                assert_eq!(comp.lane(i), (10 * i + c) as f32);
            }
        }
        assert_eq!(scatter::<Separate>(g), values);
    }

    /// Lane `i` of component `c` of row `r`: a value unique to its place.
    fn place(r: usize, c: usize, i: usize) -> f32 {
        (100 * r + 10 * c + i) as f32
    }

    /// Rows of lanes whose lane `i` of row `r` column `c` is `place(r, c, i)`.
    fn numbered_rows() -> [[F8; 4]; 3] {
        std::array::from_fn(|r| {
            std::array::from_fn(|c| F8::new(std::array::from_fn(|i| place(r, c, i))))
        })
    }

    /// Runs `write_lanes::<M>` for the first `count` lanes into palettes of three entries at
    /// entry 1, and checks every entry.
    fn check_write_lanes<M: Isa>(count: usize) {
        let mut blocks = vec![[Mat3x4Rows::IDENTITY; 3]; count];
        let mut out: Vec<&mut [Mat3x4Rows]> = blocks.iter_mut().map(|b| &mut b[..]).collect();
        M::write_lanes(&numbered_rows(), &mut out, 1);
        for (i, block) in blocks.iter().enumerate() {
            assert_eq!(block[0], Mat3x4Rows::IDENTITY);
            assert_eq!(block[2], Mat3x4Rows::IDENTITY);
            for (r, row) in block[1].rows.iter().enumerate() {
                assert_eq!(
                    *row,
                    std::array::from_fn(|c| place(r, c, i)),
                    "lane {i} row {r}"
                );
            }
        }
    }

    #[test]
    fn lanes_are_written_to_their_own_palettes() {
        for count in [1, 3, LANES] {
            check_write_lanes::<Separate>(count);
        }
    }

    /// The AVX shuffles give the portable kernel's transposes, where this CPU runs the AVX2
    /// kernel (elsewhere there is nothing to compare).
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    #[test]
    fn the_avx_transposes_match_the_portable_ones() {
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            eprintln!("skipped: this CPU runs the portable kernel only");
            return;
        }
        let rows = numbered_rows();
        for m in rows {
            assert_eq!(Fused::transpose_halves(m), Separate::transpose_halves(m));
            assert_eq!(scatter::<Fused>(m), scatter::<Separate>(m));
        }
        let values: [F4; LANES] =
            std::array::from_fn(|i| F4::new(std::array::from_fn(|c| place(0, c, i))));
        assert_eq!(gather::<Fused>(values), gather::<Separate>(values));
        for count in [1, 3, LANES] {
            check_write_lanes::<Fused>(count);
        }
    }
}
