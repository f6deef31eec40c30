//! Stage 3b, IK: after propagation and before skinning, each of the rig's constraints turns the
//! model matrices of its joints and their descendants (`src/baked/ik.rs`). Twin of `wgsl/ik.wgsl`:
//! same functions, same operation order.
//!
//! A correction is a rotation about a joint's position (`rotation_about`) applied in world
//! space to every model matrix of a subtree, so descendants follow and bone lengths hold.

use glam::{Affine3A, Quat, Vec3, Vec4};

use crate::baked::Rig;
use crate::baked::ik::{IkConstraint, IkTarget, Pole, in_subtree};
use crate::math::{Mat3x4Rows, Sqt, nlerp_shortest};

/// Lengths and distances below this leave a constraint unsolved (nothing to turn toward).
pub const IK_EPSILON: f32 = 1e-6;

/// `v` scaled to unit length (`v × 1/√(v·v)`; the caller checks the length).
#[inline]
fn unit(v: Vec3) -> Vec3 {
    v * (1.0 / v.dot(v).sqrt())
}

/// A unit vector perpendicular to unit `v`.
fn any_orthogonal(v: Vec3) -> Vec3 {
    if v.x.abs() < 0.9 {
        unit(Vec3::new(0.0, v.z, -v.y))
    } else {
        unit(Vec3::new(-v.z, 0.0, v.x))
    }
}

/// The shortest rotation taking unit `from` to unit `to`; half a turn about unit `fallback`
/// when they are opposite.
pub fn rotation_arc(from: Vec3, to: Vec3, fallback: Vec3) -> Quat {
    let d = from.dot(to);
    if d < -1.0 + 1e-6 {
        return Quat::from_xyzw(fallback.x, fallback.y, fallback.z, 0.0);
    }
    let c = from.cross(to);
    let q = Vec4::new(c.x, c.y, c.z, 1.0 + d);
    Quat::from_vec4(q * (1.0 / q.dot(q).sqrt()))
}

/// The rotation `q` about the point `pivot`, as an affine transform.
pub fn rotation_about(q: Quat, pivot: Vec3) -> Affine3A {
    let r = Sqt {
        translation: Vec3::ZERO,
        rotation: q,
        scale: Vec3::ONE,
    }
    .to_affine();
    let moved = r.transform_vector3(pivot);
    Affine3A::from_mat3_translation(r.matrix3.into(), pivot - moved)
}

/// `q` moved toward identity by `1 - weight` (`weight` < 1), or `q` itself.
fn weighted(q: Quat, weight: f32) -> Quat {
    if weight < 1.0 {
        nlerp_shortest(Quat::IDENTITY, q, weight)
    } else {
        q
    }
}

fn position(m: &Affine3A) -> Vec3 {
    Vec3::from(m.translation)
}

/// The two corrections of a two-bone chain with joints at `a`, `b`, `c` (root, mid, tip)
/// reaching for `target`: the root's rotation about `a`, then the mid joint's about where the
/// first put it. `None` when a bone or the root–target distance is degenerate.
pub fn two_bone_corrections(
    a: Vec3,
    b: Vec3,
    c: Vec3,
    goal: &IkTarget,
) -> Option<(Affine3A, Affine3A)> {
    let upper = b - a;
    let lower = c - b;
    let l1 = upper.dot(upper).sqrt();
    let l2 = lower.dot(lower).sqrt();
    let to_target = goal.target - a;
    let dist = to_target.dot(to_target).sqrt();
    if l1 <= IK_EPSILON || l2 <= IK_EPSILON || dist <= IK_EPSILON {
        return None;
    }
    let dir = to_target * (1.0 / dist);
    let reach = dist.clamp((l1 - l2).abs(), l1 + l2);
    let pole = match goal.pole {
        Pole::Animated => upper,
        Pole::Position(p) => p - a,
        Pole::Direction(d) => d,
    };
    let mut side = pole - dir * pole.dot(dir);
    if side.dot(side) <= IK_EPSILON * IK_EPSILON {
        side = upper - dir * upper.dot(dir);
    }
    let bend = if side.dot(side) <= IK_EPSILON * IK_EPSILON {
        any_orthogonal(dir)
    } else {
        unit(side)
    };
    // The mid joint's distance from the root–target line by Heron's formula: the factor that
    // vanishes at a clamped reach is exactly 0, so a straight chain has no rounding noise.
    let cos_a = ((l1 * l1 + reach * reach - l2 * l2) / (2.0 * l1 * reach)).clamp(-1.0, 1.0);
    let heron = (l1 + l2 + reach) * (reach - (l2 - l1)) * (reach - (l1 - l2)) * ((l1 + l2) - reach);
    let height = heron.max(0.0).sqrt() / (2.0 * reach);
    let mid_goal = a + dir * (cos_a * l1) + bend * height;
    let tip_goal = a + dir * reach;
    let from1 = upper * (1.0 / l1);
    let q1 = rotation_arc(from1, unit(mid_goal - a), any_orthogonal(from1));
    let tip1 = rotation_about(q1, a).transform_point3(c);
    let from2 = unit(tip1 - mid_goal);
    let q2 = rotation_arc(from2, unit(tip_goal - mid_goal), any_orthogonal(from2));
    let first = rotation_about(weighted(q1, goal.weight), a);
    let mid = first.transform_point3(b);
    Some((first, rotation_about(weighted(q2, goal.weight), mid)))
}

/// The correction of an aim constraint on a joint with model matrix `model` (encoded as
/// [`IkConstraint::encode`] rows 1 to 3: aim axis and limit cosine, up axis and limit sine,
/// world up). `None` when the target sits on the joint.
pub fn aim_correction(model: &Affine3A, code: &[[f32; 4]], goal: &IkTarget) -> Option<Affine3A> {
    let aim = Vec4::from_array(code[1]);
    let up = Vec4::from_array(code[2]);
    let world_up = Vec4::from_array(code[3]).truncate();
    let (cos_limit, sin_limit) = (aim.w, up.w);
    let p = position(model);
    let to_target = goal.target - p;
    let dist = to_target.dot(to_target).sqrt();
    let axis = model.transform_vector3(aim.truncate());
    if dist <= IK_EPSILON || axis.dot(axis) <= IK_EPSILON * IK_EPSILON {
        return None;
    }
    let current = unit(axis);
    let mut want = to_target * (1.0 / dist);
    let c = current.dot(want);
    if c < cos_limit {
        let side = want - current * c;
        let away = if side.dot(side) <= IK_EPSILON * IK_EPSILON {
            any_orthogonal(current)
        } else {
            unit(side)
        };
        want = current * cos_limit + away * sin_limit;
    }
    let q1 = rotation_arc(current, want, any_orthogonal(current));
    let turned = rotation_about(q1, Vec3::ZERO);
    let up_now = turned.transform_vector3(model.transform_vector3(up.truncate()));
    let up_side = up_now - want * up_now.dot(want);
    let world_side = world_up - want * world_up.dot(want);
    let eps2 = IK_EPSILON * IK_EPSILON;
    let q = if up_side.dot(up_side) > eps2 && world_side.dot(world_side) > eps2 {
        rotation_arc(unit(up_side), unit(world_side), want) * q1
    } else {
        q1
    };
    Some(rotation_about(weighted(q, goal.weight), p))
}

/// Applies `d` to the model matrix of every joint at or below `top`.
fn turn_subtree(parents: &[u16], top: usize, d: &Affine3A, models: &mut [Affine3A]) {
    for (j, m) in models.iter_mut().enumerate().skip(top) {
        if in_subtree(parents, j, top) {
            *m = *d * *m;
        }
    }
}

/// Solves the rig's constraints in order on `models` (the propagated model matrices of one
/// instance), reading each constraint's target from `inputs` (the instance's IK entries; a
/// missing entry or a weight that is not above 0 leaves the constraint off).
pub fn solve_ik(rig: &Rig, inputs: &[Mat3x4Rows], models: &mut [Affine3A]) {
    solve_constraints(rig.skeleton.parents(), rig.ik.constraints(), inputs, models);
}

/// [`solve_ik`] for a skeleton's `parents` and `constraints`. Reads and writes only the model
/// matrices of the joints the constraints can turn (their subtrees).
pub fn solve_constraints(
    parents: &[u16],
    constraints: &[IkConstraint],
    inputs: &[Mat3x4Rows],
    models: &mut [Affine3A],
) {
    for (k, constraint) in constraints.iter().enumerate() {
        let Some(entry) = inputs.get(k) else {
            return;
        };
        let goal = IkTarget::from_entry(entry);
        // Not above 0 (NaN included): off.
        if goal.weight.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            continue;
        }
        match constraint {
            IkConstraint::TwoBone(chain) => {
                let a = position(&models[chain.root]);
                let b = position(&models[chain.mid]);
                let c = position(&models[chain.tip]);
                if let Some((first, second)) = two_bone_corrections(a, b, c, &goal) {
                    turn_subtree(parents, chain.root, &first, models);
                    turn_subtree(parents, chain.mid, &second, models);
                }
            }
            IkConstraint::Aim(aim) => {
                let code = constraint.encode();
                if let Some(d) = aim_correction(&models[aim.joint], &code, &goal) {
                    turn_subtree(parents, aim.joint, &d, models);
                }
            }
        }
    }
}
