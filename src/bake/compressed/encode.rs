//! Building compressed clips: each clip framed ([`super::framing`]), sampled and stripped
//! ([`super::sample`]), given bit rates ([`super::bit_rates`]) on frames refined until they
//! suffice, and packed ([`super::pack`]).

use super::bit_rates::ClipPlan;
use super::error::VIRTUAL_VERTEX_DISTANCE;
use super::error::measure;
use super::framing::{Framing, clip_framing};
use super::pack::pack;
use super::sample::sample_clip;
use crate::baked::grid::{DEFAULT_RATE, MAX_CLIP_FRAMES, MAX_RATE, clip_grid};
use crate::baked::{
    CompressedClips, DEFAULT_ERROR_BUDGET, MAX_ERROR_BUDGET, MIN_ERROR_BUDGET, Rig,
};
use crate::error::EvalError;

impl CompressedClips {
    /// Compresses every clip of `rig` so that ACL's error (see [`super::DEFAULT_ERROR_BUDGET`])
    /// stays within `budget` metres wherever the rig's rate limits allow, and every morph
    /// weight within [`super::WEIGHT_ERROR_BUDGET`]. `budget` is clamped into
    /// `MIN_ERROR_BUDGET..=MAX_ERROR_BUDGET` (NaN means the default). Fails with
    /// [`EvalError::InvalidRig`] when the rig's parts disagree or its clips do not fit the
    /// format (more data than 24-bit value indices reach).
    pub fn build(rig: &Rig, budget: f32) -> Result<Self, EvalError> {
        Self::build_in_units(rig, budget, 1.0)
    }

    /// [`CompressedClips::build`] for a rig modelled in other units than metres (Fox, in
    /// centimetres: 100): the budget, the virtual vertices' distance and the measured error
    /// stay in metres. `units_per_metre` that is not a positive number means 1.
    pub fn build_in_units(rig: &Rig, budget: f32, units_per_metre: f32) -> Result<Self, EvalError> {
        let upm = if units_per_metre.is_finite() && units_per_metre > 0.0 {
            units_per_metre
        } else {
            1.0
        };
        let invalid = |reason: String| EvalError::InvalidRig {
            rig: 0,
            name: rig.name.clone(),
            reason,
        };
        rig.check_parts().map_err(invalid)?;
        let budget = if budget.is_nan() {
            DEFAULT_ERROR_BUDGET
        } else {
            budget.clamp(MIN_ERROR_BUDGET, MAX_ERROR_BUDGET)
        };
        let lib = &rig.clips;
        let joints = rig.joint_count();
        let chunks = lib.weight_chunk_count();
        let mut clips = Vec::with_capacity(lib.clip_count());
        let mut channels = Vec::with_capacity(lib.clip_count() * (joints * 3 + chunks));
        let mut data = Vec::new();
        let mut max_error = 0.0f32;
        for clip in 0..lib.clip_count() {
            let grid = clip_grid(lib, clip, DEFAULT_RATE);
            let framing = clip_framing(lib, clip, &grid);
            let plan = plan_clip(
                rig,
                clip,
                framing,
                budget * upm,
                VIRTUAL_VERTEX_DISTANCE * upm,
            );
            max_error = max_error.max(plan.error);
            let record = pack(&plan, clip, &mut channels, &mut data).map_err(invalid)?;
            clips.push(record);
        }
        let out = Self::from_parts(
            joints as u32,
            chunks as u32,
            clips,
            channels,
            data,
            budget,
            max_error,
        )
        .map_err(|e| invalid(e.to_string()))?;
        // The figure stored is the decoder's own, measured again on the packed words.
        let measured = (0..out.clips.len())
            .map(|c| measure(rig, &out, c, upm))
            .fold(0.0f32, f32::max);
        Ok(Self {
            max_error: measured,
            ..out
        })
    }
}

impl Rig {
    /// Compresses the rig's clips to `budget` metres ([`CompressedClips::build`]) and keeps
    /// them in [`Rig::compressed`].
    pub fn compress(&mut self, budget: f32) -> Result<(), EvalError> {
        self.compressed = Some(CompressedClips::build(self, budget)?);
        Ok(())
    }
}

/// Samples clip `clip` on `framing`, halving the step (of one grid, or of the runs of
/// intervals that miss, on segments of their own; up to the fast mode's limits) while even raw
/// frames pass most of the budget (leaving too little to quantization) and halving at least
/// halves that error (an error that stays, such as the f32 rounding of a far joint, is not
/// worth frames), then chooses every channel's bit rate.
fn plan_clip(rig: &Rig, clip: usize, framing: Framing, budget: f32, vertex: f32) -> ClipPlan<'_> {
    let mut framing = framing;
    let duration = rig.clips.clips()[clip].duration;
    let mut plan = ClipPlan::raw(rig, clip, sample_clip(rig, clip, &framing), budget, vertex);
    loop {
        if plan.frames_suffice() {
            break;
        }
        let finer_framing = framing.refined(&plan.intervals_missing_budget(), duration);
        if finer_framing.finest_rate() > MAX_RATE
            || finer_framing.frame_count(duration) >= MAX_CLIP_FRAMES as usize
        {
            break;
        }
        let finer = ClipPlan::raw(
            rig,
            clip,
            sample_clip(rig, clip, &finer_framing),
            budget,
            vertex,
        );
        if !finer.improves_on(&plan) {
            break;
        }
        plan = finer;
        framing = finer_framing;
    }
    plan.choose_bits()
}
