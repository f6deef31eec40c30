//! Where the crowd's frames spent their time: per-stage samples and their median and 90th
//! percentile.

use std::time::Instant;

/// Per-frame wall (or GPU) times of each stage, in milliseconds.
#[derive(Default)]
pub(super) struct StageTimes {
    pub(super) frame: Vec<f64>,
    pub(super) control: Vec<f64>,
    pub(super) upload: Vec<f64>,
    pub(super) compute: Vec<f64>,
    pub(super) cull: Vec<f64>,
    pub(super) render: Vec<f64>,
}

/// `(median, p90)` of `samples` (zero when empty).
pub(super) fn median_p90(samples: &[f64]) -> (f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.9))
}

/// Milliseconds since `start`.
pub(super) fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}
