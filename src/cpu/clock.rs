//! Stage 0, clocks: a layer's clip time and weight at the frame time, derived from its
//! parametric [`LayerRecord`] (see there). Twin of `wgsl/clock.wgsl`, operation for operation.

use crate::instance::{BlendMode, Layer, LayerRecord, TimeWrap};

/// `u` wrapped by `wrap` on a timeline of `period`: into `0..period` for a loop, clamped to
/// `0..=period`, or folded onto the forward and backward legs of a ping-pong cycle of
/// `2 × period`. `None` returns `u`.
#[inline]
pub fn wrap_time(wrap: TimeWrap, u: f32, period: f32) -> f32 {
    match wrap {
        TimeWrap::None => u,
        TimeWrap::Loop => wrap_into(u, period),
        TimeWrap::Clamp => u.clamp(0.0, period),
        TimeWrap::PingPong => {
            let p = wrap_into(u, 2.0 * period);
            if p >= period { 2.0 * period - p } else { p }
        }
    }
}

/// `x` wrapped into `0..cycle` (a result that rounds up to `cycle` is 0). A cycle of 0 (a
/// pose's timeline) wraps everything to 0.
#[inline]
fn wrap_into(x: f32, cycle: f32) -> f32 {
    if cycle <= 0.0 {
        return 0.0;
    }
    let r = x - (x / cycle).floor() * cycle;
    if r >= 0.0 && r < cycle { r } else { 0.0 }
}

/// `∫ clamp(s, 0, 1) ds` from 0 to `x`: the area under a fade's progress, in units of its
/// duration.
#[inline]
fn ramp_area(x: f32) -> f32 {
    if x <= 0.0 {
        0.0
    } else if x < 1.0 {
        0.5 * x * x
    } else {
        x - 0.5
    }
}

/// The layer's unwrapped clip time at frame time `now`: its clock's position, before
/// wrapping ([`LayerRecord`]; with a `rate_gain`, the rate ramps with the fade).
#[inline]
pub fn layer_unwrapped_time(layer: &LayerRecord, now: f32) -> f32 {
    let mut u = layer.time;
    if layer.rate != 0.0 {
        u = layer.time + layer.rate * (now - layer.anchor);
    }
    if layer.rate_gain != 0.0 && layer.fade_rate > 0.0 {
        let at = |t: f32| ramp_area((t - layer.fade_start) * layer.fade_rate);
        u += layer.rate_gain * (at(now) - at(layer.anchor)) / layer.fade_rate;
    }
    u
}

/// The layer's clock rate at frame time `now` (clip seconds per second).
#[inline]
pub fn layer_rate(layer: &LayerRecord, now: f32) -> f32 {
    if layer.rate_gain != 0.0 && layer.fade_rate > 0.0 {
        return layer.rate + layer.rate_gain * layer_fade(layer, now);
    }
    layer.rate
}

/// The layer's clip time at frame time `now`.
#[inline]
pub fn layer_time(layer: &LayerRecord, now: f32) -> f32 {
    wrap_time(layer.wrap(), layer_unwrapped_time(layer, now), layer.period)
}

/// The layer's fade progress at frame time `now`: 1 without a fade.
#[inline]
pub fn layer_fade(layer: &LayerRecord, now: f32) -> f32 {
    if layer.fade_rate > 0.0 {
        ((now - layer.fade_start) * layer.fade_rate).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

/// The layer's weight at frame time `now`.
#[inline]
pub fn layer_weight(layer: &LayerRecord, now: f32) -> f32 {
    let a = layer_fade(layer, now);
    let w = layer.weight_from * (1.0 - a) + layer.weight * a;
    let share = (1.0 - a) + a * layer.share_sum;
    if share > 0.0 { w / share } else { 0.0 }
}

impl LayerRecord {
    /// The layer at frame time `now`: its clip time ([`layer_time`]) and weight
    /// ([`layer_weight`]) then.
    pub fn to_layer_at(&self, now: f32) -> Layer {
        Layer {
            clip: self.clip,
            time: layer_time(self, now),
            weight: layer_weight(self, now),
            mask: self.mask(),
            mode: if self.flags & Self::ADDITIVE != 0 {
                BlendMode::Additive
            } else {
                BlendMode::Override
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_modes() {
        assert_eq!(wrap_time(TimeWrap::Loop, 2.5, 2.0), 0.5);
        assert_eq!(wrap_time(TimeWrap::Loop, -0.5, 2.0), 1.5);
        assert_eq!(wrap_time(TimeWrap::Clamp, 2.5, 2.0), 2.0);
        assert_eq!(wrap_time(TimeWrap::Clamp, -1.0, 2.0), 0.0);
        assert_eq!(wrap_time(TimeWrap::PingPong, 2.5, 2.0), 1.5);
        assert_eq!(wrap_time(TimeWrap::PingPong, 4.5, 2.0), 0.5);
        assert_eq!(wrap_time(TimeWrap::None, 7.0, 2.0), 7.0);
    }

    #[test]
    fn a_pose_timeline_of_length_0_holds_time_0_in_every_wrap() {
        for wrap in [TimeWrap::Loop, TimeWrap::Clamp, TimeWrap::PingPong] {
            for u in [-3.5, -0.0, 0.0, 1e-30, 0.25, 7.0, 1e30] {
                let t = wrap_time(wrap, u, 0.0);
                assert!(t == 0.0, "{wrap:?} of {u} on a pose: {t}");
            }
        }
        let pose = LayerRecord::STILL.with_clock(0.0, 1.0, 1.5, TimeWrap::Loop, 0.0);
        assert!(pose.is_well_formed());
        for now in [0.0, 1.0, 2.5, 1e6] {
            assert_eq!(layer_time(&pose, now), 0.0);
        }
    }

    #[test]
    fn still_layers_keep_their_values_exactly() {
        let layer = LayerRecord {
            time: 0.3,
            weight: 0.7,
            ..LayerRecord::STILL
        };
        for now in [0.0, 1.0, 1e6] {
            assert_eq!(layer_time(&layer, now), 0.3);
            assert_eq!(layer_weight(&layer, now), 0.7);
        }
    }

    #[test]
    fn fades_ramp_and_normalise() {
        let ramp = LayerRecord::STILL.with_fade(0.0, 1.0, 2.0, 1.0);
        assert_eq!(layer_weight(&ramp, 0.5), 0.0);
        assert_eq!(layer_weight(&ramp, 1.25), 0.5);
        assert_eq!(layer_weight(&ramp, 9.0), 1.0);
        // A blend-space clip of share 0.25 above 0.5 of the same space, fading in halfway.
        let clip = LayerRecord {
            weight: 0.25,
            ..LayerRecord::STILL
        }
        .with_fade(0.0, 0.0, 1.0, 0.75);
        let a = 0.5;
        let expected = a * 0.25 / ((1.0 - a) + a * 0.75);
        assert!((layer_weight(&clip, 0.5) - expected).abs() < 1e-7);
    }
}
