//! Which compiled copy of the group kernel runs. The kernel ([`evaluate_group_with`]) is one
//! generic, `#[inline(always)]` body over plain-array lanes (`super::lanes`), so LLVM compiles
//! it for the target features of the function it is inlined into: once for the crate's target
//! ([`FastKernel::Portable`]: SSE2 on baseline x86-64, NEON or scalar elsewhere; multiply and
//! add apart) and, on x86 and x86-64, once inside a function built for AVX2 and FMA
//! ([`FastKernel::Avx2Fma`]), which runs where the CPU reports both at run time. In a build for
//! such a target (`-C target-cpu=x86-64-v3`) both copies use AVX2; the detected one also fuses
//! multiply-adds.

use glam::Affine3A;

use super::evaluate::{Group, Scratch, evaluate_group_with};
use super::lanes::{LANES, Separate};
use crate::math::Aabb;

/// The instruction set the fast evaluator's group kernel runs with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastKernel {
    /// Built for the crate's compile target alone, with separate multiplies and adds.
    Portable,
    /// x86 AVX2 with fused multiply-add, chosen at run time where the CPU has both.
    Avx2Fma,
}

impl FastKernel {
    /// The fastest kernel this CPU runs.
    pub fn detect() -> Self {
        if avx2_fma() {
            Self::Avx2Fma
        } else {
            Self::Portable
        }
    }
}

/// Whether this CPU runs AVX2 and FMA instructions.
fn avx2_fma() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        false
    }
}

/// Evaluates one group with `kernel` (see [`evaluate_group_with`]: AABBs and bytes read); [`FastKernel::Avx2Fma`]
/// falls back to the portable kernel on a CPU without AVX2 or FMA.
pub(crate) fn evaluate_group(
    kernel: FastKernel,
    group: Group<'_, '_>,
    models: Option<&mut [Affine3A]>,
    scratch: &mut Scratch,
) -> ([Aabb; LANES], u64) {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if kernel == FastKernel::Avx2Fma
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
    {
        // SAFETY: `evaluate_group_avx2` is safe Rust whose only requirement is that the CPU
        // executes the instructions of its `target_feature` list, AVX2 and FMA; both were
        // detected on this CPU by the condition just above.
        return unsafe { evaluate_group_avx2(group, models, scratch) };
    }
    let _ = kernel;
    evaluate_group_with::<Separate>(group, models, scratch)
}

/// The kernel compiled for AVX2 and FMA.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
#[target_feature(enable = "avx2,fma")]
fn evaluate_group_avx2(
    group: Group<'_, '_>,
    models: Option<&mut [Affine3A]>,
    scratch: &mut Scratch,
) -> ([Aabb; LANES], u64) {
    evaluate_group_with::<super::lanes::Fused>(group, models, scratch)
}
