// Stage 0, clocks: a layer's clip time and weight at the frame time, derived from its
// parametric record. Twins of `wrap_time`, `layer_time`, `layer_fade` and `layer_weight` in
// src/cpu/clock.rs, operation for operation.

// `x` wrapped into 0..cycle (a result that rounds up to `cycle` is 0). A cycle of 0 (a pose's
// timeline) wraps everything to 0.
fn wrap_into(x: f32, cycle: f32) -> f32 {
    if cycle <= 0.0 {
        return 0.0;
    }
    let r = x - floor(x / cycle) * cycle;
    return select(0.0, r, r >= 0.0 && r < cycle);
}

// `u` wrapped by the TIME_WRAP_* mode `wrap` on a timeline of `period`.
fn wrap_time(wrap: u32, u: f32, period: f32) -> f32 {
    switch wrap {
        case TIME_WRAP_LOOP: {
            return wrap_into(u, period);
        }
        case TIME_WRAP_CLAMP: {
            return clamp(u, 0.0, period);
        }
        case TIME_WRAP_PING_PONG: {
            let p = wrap_into(u, 2.0 * period);
            return select(p, 2.0 * period - p, p >= period);
        }
        default: {
            return u;
        }
    }
}

// The area under a fade's progress from 0 to `x`, in units of its duration.
fn ramp_area(x: f32) -> f32 {
    if x <= 0.0 {
        return 0.0;
    }
    if x < 1.0 {
        return 0.5 * x * x;
    }
    return x - 0.5;
}

// The layer's unwrapped clip time at frame time `now` (with a rate gain, the rate ramps with
// the fade).
fn layer_unwrapped_time(layer: LayerRecord, now: f32) -> f32 {
    var u = layer.time;
    if layer.rate != 0.0 {
        u = layer.time + layer.rate * (now - layer.anchor);
    }
    if layer.rate_gain != 0.0 && layer.fade_rate > 0.0 {
        let area = ramp_area((now - layer.fade_start) * layer.fade_rate)
            - ramp_area((layer.anchor - layer.fade_start) * layer.fade_rate);
        u += layer.rate_gain * area / layer.fade_rate;
    }
    return u;
}

// The layer's clip time at frame time `now`.
fn layer_time(layer: LayerRecord, now: f32) -> f32 {
    let u = layer_unwrapped_time(layer, now);
    return wrap_time((layer.flags & LAYER_WRAP) >> LAYER_WRAP_SHIFT, u, layer.period);
}

// The layer's fade progress at frame time `now`: 1 without a fade.
fn layer_fade(layer: LayerRecord, now: f32) -> f32 {
    if layer.fade_rate > 0.0 {
        return clamp((now - layer.fade_start) * layer.fade_rate, 0.0, 1.0);
    }
    return 1.0;
}

// The layer's weight at frame time `now`.
fn layer_weight(layer: LayerRecord, now: f32) -> f32 {
    let a = layer_fade(layer, now);
    let w = layer.weight_from * (1.0 - a) + layer.weight * a;
    let share = (1.0 - a) + a * layer.share_sum;
    return select(0.0, w / share, share > 0.0);
}
