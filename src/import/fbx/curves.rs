//! Baked FBX channels held to ufbx's evaluation of the curves: every key takes the evaluated
//! value, and a segment between two keys is halved (with a key at its middle) until linear
//! interpolation stays within [`FBX_CURVE_ERROR`] of the curve, so cubic, auto-tangent, TCB and
//! Euler curves are followed between their keys and not only at them. A channel of constant
//! steps only comes out as a step track.
//!
//! The error is ACL's: how far a virtual vertex moves, i.e. translation error + rotation angle ×
//! distance + scale error × distance, the vertex [`FBX_VIRTUAL_VERTEX`] from the joint or,
//! where farther, as far as the joint's farthest descendant at rest
//! ([`virtual_vertex_distances`]). It bounds each joint's local transform; a joint's world error
//! is at most the sum of its own and its ancestors', each ancestor's scaled by the joint's
//! distance from it over the ancestor's virtual vertex distance.

use glam::{Quat, Vec4};

use crate::import::raw::{Channel, Interpolation};
use crate::math::slerp_shortest;

/// How far a baked FBX channel may be from ufbx's evaluation of its curves at any time, in
/// metres, on the joint's virtual vertex (ACL's default: 0.1 mm).
pub const FBX_CURVE_ERROR: f32 = 1e-4;
/// The least distance of the virtual vertex from the joint, in metres (ACL's default: 3 cm).
pub const FBX_VIRTUAL_VERTEX: f32 = 0.03;

/// Halvings of one baked segment at most.
const MAX_DEPTH: u32 = 12;
/// The shortest segment that is halved, in seconds (keys stay apart in `f32` for an hour).
const MIN_SEGMENT: f64 = 1.0 / 4096.0;
/// Keys of one fitted channel past which segments are no longer halved (a damaged file's
/// wild curve must not take all memory).
const MAX_KEYS: usize = 1 << 18;
/// Where in a segment linear interpolation is compared with the curve.
const PROBES: [f64; 3] = [0.25, 0.5, 0.75];

/// A key of ufbx's bake: time (the file's seconds), value, and whether it borders a constant
/// step: `step_left` just before the step (the segment after it is the step's short ramp),
/// `step_right` just after it (the segment before it is).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct BakedKey {
    pub time: f64,
    pub value: Vec4,
    pub step_left: bool,
    pub step_right: bool,
}

impl BakedKey {
    /// A key of `ufbx`'s bake with its value as a key value.
    pub fn new(time: f64, value: Vec4, flags: ufbx::BakedKeyFlags) -> Self {
        Self {
            time,
            value,
            step_left: flags.has_any(ufbx::BakedKeyFlags::STEP_LEFT),
            step_right: flags.has_any(ufbx::BakedKeyFlags::STEP_RIGHT),
        }
    }
}

/// A channel's keys fitted to its curve, and how they interpolate.
#[derive(Debug, PartialEq)]
pub(super) struct Fitted {
    pub keys: Vec<(f64, Vec4)>,
    pub interpolation: Interpolation,
}

/// How far apart two values of a channel are: the virtual vertex at `distance` from the joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Metric {
    pub channel: Channel,
    pub distance: f32,
}

impl Metric {
    /// How far the virtual vertex moves between the values `a` and `b`.
    fn error(self, a: Vec4, b: Vec4) -> f32 {
        match self.channel {
            Channel::Translation => (a - b).length(),
            Channel::Scale => (a - b).length() * self.distance,
            Channel::Rotation => {
                let chord = (a - b).length().min((a + b).length());
                4.0 * (0.5 * chord).min(1.0).asin() * self.distance
            }
        }
    }
}

/// Each node's virtual vertex distance, in metres, by ufbx node index: [`FBX_VIRTUAL_VERTEX`],
/// or the rest distance to its farthest descendant where that is farther (a hip's rotation
/// moves the hands).
pub fn virtual_vertex_distances(scene: &ufbx::Scene) -> Vec<f32> {
    let at = |n: &ufbx::Node| {
        let m = &n.node_to_world;
        glam::DVec3::new(m.m03, m.m13, m.m23)
    };
    let mut reach = vec![FBX_VIRTUAL_VERTEX; scene.nodes.len()];
    for node in scene.nodes.iter() {
        let mut ancestor = node.parent.as_deref();
        while let Some(a) = ancestor {
            let distance = at(node).distance(at(a)) as f32;
            if let Some(r) = reach.get_mut(a.element.typed_id as usize) {
                *r = r.max(distance);
            }
            ancestor = a.parent.as_deref();
        }
    }
    reach
}

/// `keys` (sorted by time) with the values `evaluate` gives at their times and keys added
/// where linear interpolation strays more than [`FBX_CURVE_ERROR`] from `evaluate`; a step
/// track where the channel only holds values and steps between them.
pub(super) fn fit(keys: &[BakedKey], metric: Metric, evaluate: impl Fn(f64) -> Vec4) -> Fitted {
    let rotation = metric.channel == Channel::Rotation;
    let mut exact: Vec<(f64, Vec4)> = Vec::with_capacity(keys.len());
    for key in keys {
        let value = evaluate(key.time);
        let previous = exact.last().map(|k| k.1);
        exact.push((key.time, same_hemisphere(value, previous, rotation)));
    }
    let steps = keys.iter().any(|k| k.step_left);
    let held = keys
        .windows(2)
        .zip(exact.windows(2))
        .all(|(k, e)| !k[1].step_right && (k[0].step_left || metric.error(e[0].1, e[1].1) == 0.0));
    if steps && held {
        let keys = keys
            .iter()
            .zip(exact)
            .filter(|(k, _)| !k.step_left)
            .map(|(_, e)| e)
            .collect();
        return Fitted {
            keys,
            interpolation: Interpolation::Step,
        };
    }
    let mut out = Vec::with_capacity(exact.len());
    out.extend(exact.first().copied());
    for (k, e) in keys.windows(2).zip(exact.windows(2)) {
        if k[0].step_left || k[1].step_right {
            out.push(e[1]);
        } else {
            subdivide(e[0], e[1], metric, &evaluate, MAX_DEPTH, &mut out);
        }
    }
    Fitted {
        keys: out,
        interpolation: Interpolation::Linear,
    }
}

/// Pushes the keys after `a` up to `b`: `b`, after the halves' own keys where the segment
/// strays from the curve.
fn subdivide(
    a: (f64, Vec4),
    b: (f64, Vec4),
    metric: Metric,
    evaluate: &impl Fn(f64) -> Vec4,
    depth: u32,
    out: &mut Vec<(f64, Vec4)>,
) {
    let rotation = metric.channel == Channel::Rotation;
    let span = b.0 - a.0;
    let strays = depth > 0
        && span >= 2.0 * MIN_SEGMENT
        && out.len() < MAX_KEYS
        && PROBES.iter().any(|&f| {
            let curve = evaluate(a.0 + f * span);
            metric.error(lerp(a.1, b.1, f as f32, rotation), curve) > FBX_CURVE_ERROR
        });
    if strays {
        let time = a.0 + 0.5 * span;
        let middle = (time, same_hemisphere(evaluate(time), Some(a.1), rotation));
        subdivide(a, middle, metric, evaluate, depth - 1, out);
        subdivide(middle, b, metric, evaluate, depth - 1, out);
    } else {
        out.push(b);
    }
}

/// Linear interpolation, shortest-arc slerp for rotations.
fn lerp(a: Vec4, b: Vec4, t: f32, rotation: bool) -> Vec4 {
    if rotation {
        Vec4::from(slerp_shortest(Quat::from_vec4(a), Quat::from_vec4(b), t))
    } else {
        a.lerp(b, t)
    }
}

/// A rotation on the side of `previous`'s hemisphere (other values as they are).
fn same_hemisphere(value: Vec4, previous: Option<Vec4>, rotation: bool) -> Vec4 {
    match previous {
        Some(p) if rotation && p.dot(value) < 0.0 => -value,
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metric(channel: Channel) -> Metric {
        Metric {
            channel,
            distance: FBX_VIRTUAL_VERTEX,
        }
    }

    fn key(time: f64, value: f32) -> BakedKey {
        BakedKey {
            time,
            value: Vec4::splat(value),
            step_left: false,
            step_right: false,
        }
    }

    #[test]
    fn curved_segments_get_keys_until_they_follow_the_curve() {
        // x = t² metres over a second, baked at its ends only: 25 cm off in the middle.
        let curve = |t: f64| Vec4::new((t * t) as f32, 0.0, 0.0, 0.0);
        let fitted = fit(
            &[key(0.0, 0.0), key(1.0, 1.0)],
            metric(Channel::Translation),
            curve,
        );
        assert_eq!(fitted.interpolation, Interpolation::Linear);
        assert!(fitted.keys.len() > 8, "{}", fitted.keys.len());
        // The evaluated values replace the baked ones.
        assert_eq!(fitted.keys[0].1, Vec4::ZERO);
        for k in 0..1000 {
            let t = f64::from(k) / 1000.0;
            let next = fitted
                .keys
                .partition_point(|k| k.0 <= t)
                .min(fitted.keys.len() - 1);
            let (a, b) = (fitted.keys[next - 1], fitted.keys[next]);
            let f = ((t - a.0) / (b.0 - a.0)) as f32;
            let e = metric(Channel::Translation).error(a.1.lerp(b.1, f), curve(t));
            assert!(e <= FBX_CURVE_ERROR, "{e} at {t}");
        }
        // A straight line keeps its keys.
        let line = |t: f64| Vec4::splat(t as f32);
        let fitted = fit(
            &[key(0.0, 0.0), key(1.0, 1.0)],
            metric(Channel::Scale),
            line,
        );
        assert_eq!(fitted.keys.len(), 2);
    }

    #[test]
    fn constant_steps_become_a_step_track() {
        // 0 until 1 s, then 2: ufbx bakes a key 1 ms before the step.
        let curve = |t: f64| Vec4::splat(if t < 1.0 { 0.0 } else { 2.0 });
        let mut keys = [key(0.0, 0.0), key(0.999, 0.0), key(1.0, 2.0), key(2.0, 2.0)];
        keys[1].step_left = true;
        let fitted = fit(&keys, metric(Channel::Translation), curve);
        assert_eq!(fitted.interpolation, Interpolation::Step);
        let times: Vec<f64> = fitted.keys.iter().map(|k| k.0).collect();
        assert_eq!(times, [0.0, 1.0, 2.0]);
        // With a sloped segment too, the step stays a linear ramp and gets no keys.
        let sloped = |t: f64| Vec4::splat(if t < 1.0 { 0.0 } else { t as f32 * 2.0 });
        let keys = [keys[0], keys[1], keys[2], key(2.0, 4.0)];
        let fitted = fit(&keys, metric(Channel::Translation), sloped);
        assert_eq!(fitted.interpolation, Interpolation::Linear);
        assert_eq!(fitted.keys.len(), 4);
    }

    #[test]
    fn rotation_error_is_the_angle_at_the_virtual_vertex() {
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_y(0.01);
        let e = metric(Channel::Rotation).error(Vec4::from(a), -Vec4::from(b));
        assert!((e - 0.01 * FBX_VIRTUAL_VERTEX).abs() < 1e-6, "{e}");
    }
}
