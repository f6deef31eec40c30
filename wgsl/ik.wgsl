// Stage 3b, IK: after propagation and before skinning, each of the rig's constraints turns the
// model matrices of its joints and their descendants. Lane k solves a constraint for instance k
// of a pass into at most two corrections (rotations about a joint's position, in world space)
// and every lane applies them to its joints of the subtrees they turn. Twin of src/cpu/ik.rs: same functions, same
// operation order.

// Lengths and distances below this leave a constraint unsolved.
const IK_EPSILON: f32 = 1e-6;
// A subtree index that turns nothing.
const NO_IK_JOINT: u32 = 0xffffffffu;
// Pole modes of an IK entry (row 1, w).
const POLE_POSITION: f32 = 1.0;
const POLE_DIRECTION: f32 = 2.0;

// Per instance k of a pass: the corrections of the constraint in hand (entries 2k and 2k + 1)
// and the top joints of the subtrees they turn.
var<workgroup> wg_ik: array<Mat3x4Rows, 2u * GROUP_INSTANCES>;
var<workgroup> wg_ik_tops: array<vec2<u32>, GROUP_INSTANCES>;

// `v` scaled to unit length (the caller checks the length).
fn ik_unit(v: vec3<f32>) -> vec3<f32> {
    return v * (1.0 / sqrt(dot(v, v)));
}

// A unit vector perpendicular to unit `v`.
fn any_orthogonal(v: vec3<f32>) -> vec3<f32> {
    if abs(v.x) < 0.9 {
        return ik_unit(vec3<f32>(0.0, v.z, -v.y));
    }
    return ik_unit(vec3<f32>(-v.z, 0.0, v.x));
}

// The shortest rotation taking unit `u` to unit `v`; half a turn about unit `fallback` when
// they are opposite.
fn rotation_arc(u: vec3<f32>, v: vec3<f32>, fallback: vec3<f32>) -> vec4<f32> {
    let d = dot(u, v);
    if d < -1.0 + 1e-6 {
        return vec4<f32>(fallback, 0.0);
    }
    let q = vec4<f32>(cross(u, v), 1.0 + d);
    return q * (1.0 / sqrt(dot(q, q)));
}

// The linear part of `m` times `v`.
fn ik_transform_vector(m: Mat3x4Rows, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        m.rows[0].x * v.x + m.rows[0].y * v.y + m.rows[0].z * v.z,
        m.rows[1].x * v.x + m.rows[1].y * v.y + m.rows[1].z * v.z,
        m.rows[2].x * v.x + m.rows[2].y * v.y + m.rows[2].z * v.z,
    );
}

fn ik_position(m: Mat3x4Rows) -> vec3<f32> {
    return vec3<f32>(m.rows[0].w, m.rows[1].w, m.rows[2].w);
}

fn ik_transform_point(m: Mat3x4Rows, p: vec3<f32>) -> vec3<f32> {
    return ik_transform_vector(m, p) + ik_position(m);
}

// The rotation `q` about the point `pivot`, as an affine transform.
fn rotation_about(q: vec4<f32>, pivot: vec3<f32>) -> Mat3x4Rows {
    var r = sqt_to_affine(Sqt(vec3<f32>(0.0), q, vec3<f32>(1.0)));
    let t = pivot - ik_transform_vector(r, pivot);
    r.rows[0].w = t.x;
    r.rows[1].w = t.y;
    r.rows[2].w = t.z;
    return r;
}

// `q` moved toward identity by 1 - weight (weight < 1), or `q` itself.
fn ik_weighted(q: vec4<f32>, weight: f32) -> vec4<f32> {
    if weight < 1.0 {
        return nlerp_shortest(QUAT_IDENTITY, q, weight);
    }
    return q;
}

// Two-bone chain with joints at a, b, c (root, mid, tip) reaching for the target in `goal`
// (row 0: target, weight; row 1: pole, mode). Writes both corrections and returns true, or
// false when a bone or the root-target distance is degenerate.
fn two_bone_corrections(a: vec3<f32>, b: vec3<f32>, c: vec3<f32>, goal: Mat3x4Rows, k: u32) -> bool {
    let upper = b - a;
    let lower = c - b;
    let l1 = sqrt(dot(upper, upper));
    let l2 = sqrt(dot(lower, lower));
    let to_target = goal.rows[0].xyz - a;
    let dist = sqrt(dot(to_target, to_target));
    if l1 <= IK_EPSILON || l2 <= IK_EPSILON || dist <= IK_EPSILON {
        return false;
    }
    let weight = goal.rows[0].w;
    let dir = to_target * (1.0 / dist);
    let reach = clamp(dist, abs(l1 - l2), l1 + l2);
    var pole = upper;
    if goal.rows[1].w == POLE_POSITION {
        pole = goal.rows[1].xyz - a;
    } else if goal.rows[1].w == POLE_DIRECTION {
        pole = goal.rows[1].xyz;
    }
    var side = pole - dir * dot(pole, dir);
    if dot(side, side) <= IK_EPSILON * IK_EPSILON {
        side = upper - dir * dot(upper, dir);
    }
    var bend: vec3<f32>;
    if dot(side, side) <= IK_EPSILON * IK_EPSILON {
        bend = any_orthogonal(dir);
    } else {
        bend = ik_unit(side);
    }
    // The mid joint's distance from the root-target line by Heron's formula: the factor that
    // vanishes at a clamped reach is exactly 0, so a straight chain has no rounding noise.
    let cos_a = clamp((l1 * l1 + reach * reach - l2 * l2) / (2.0 * l1 * reach), -1.0, 1.0);
    let heron = (l1 + l2 + reach) * (reach - (l2 - l1)) * (reach - (l1 - l2)) * ((l1 + l2) - reach);
    let height = sqrt(max(heron, 0.0)) / (2.0 * reach);
    let mid_goal = a + dir * (cos_a * l1) + bend * height;
    let tip_goal = a + dir * reach;
    let from1 = upper * (1.0 / l1);
    let q1 = rotation_arc(from1, ik_unit(mid_goal - a), any_orthogonal(from1));
    let tip1 = ik_transform_point(rotation_about(q1, a), c);
    let from2 = ik_unit(tip1 - mid_goal);
    let q2 = rotation_arc(from2, ik_unit(tip_goal - mid_goal), any_orthogonal(from2));
    let first = rotation_about(ik_weighted(q1, weight), a);
    let mid = ik_transform_point(first, b);
    wg_ik[2u * k] = first;
    wg_ik[2u * k + 1u] = rotation_about(ik_weighted(q2, weight), mid);
    return true;
}

// Aim constraint on a joint with model matrix `model` (`code` index: its aim axis and limit
// cosine, then up axis and limit sine, then world up). Writes the correction and returns true,
// or false when the target sits on the joint.
fn aim_correction(model: Mat3x4Rows, code: u32, goal: Mat3x4Rows, k: u32) -> bool {
    let aim = key_values[code + 1u];
    let up = key_values[code + 2u];
    let world_up = key_values[code + 3u].xyz;
    let cos_limit = aim.w;
    let sin_limit = up.w;
    let p = ik_position(model);
    let to_target = goal.rows[0].xyz - p;
    let dist = sqrt(dot(to_target, to_target));
    let axis = ik_transform_vector(model, aim.xyz);
    if dist <= IK_EPSILON || dot(axis, axis) <= IK_EPSILON * IK_EPSILON {
        return false;
    }
    let current = ik_unit(axis);
    var want = to_target * (1.0 / dist);
    let c = dot(current, want);
    if c < cos_limit {
        let side = want - current * c;
        var away: vec3<f32>;
        if dot(side, side) <= IK_EPSILON * IK_EPSILON {
            away = any_orthogonal(current);
        } else {
            away = ik_unit(side);
        }
        want = current * cos_limit + away * sin_limit;
    }
    let q1 = rotation_arc(current, want, any_orthogonal(current));
    let turned = rotation_about(q1, vec3<f32>(0.0));
    let up_now = ik_transform_vector(turned, ik_transform_vector(model, up.xyz));
    let up_side = up_now - want * dot(up_now, want);
    let world_side = world_up - want * dot(world_up, want);
    let eps2 = IK_EPSILON * IK_EPSILON;
    var q = q1;
    if dot(up_side, up_side) > eps2 && dot(world_side, world_side) > eps2 {
        q = quat_mul(rotation_arc(ik_unit(up_side), ik_unit(world_side), want), q1);
    }
    wg_ik[2u * k] = rotation_about(ik_weighted(q, goal.rows[0].w), p);
    return true;
}

// Lane k of the workgroup, for instance k of a pass (models from entry `at`): solves constraint
// `c` of `rig` with target entry `goal_index` and sets the subtrees to turn (none when
// `readable` is false, the weight is not above 0 or the constraint is degenerate).
fn ik_solve(rig: RigDesc, c: u32, readable: bool, goal_index: u32, k: u32, at: u32) {
    wg_ik_tops[k] = vec2<u32>(NO_IK_JOINT);
    if !readable {
        return;
    }
    let goal = palette[goal_index];
    if !(goal.rows[0].w > 0.0) {
        return;
    }
    let code = rig.ik_offset + c * IK_VEC4S;
    let head = bitcast<vec4<u32>>(key_values[code]);
    if head.x == IK_KIND_TWO_BONE {
        let a = ik_position(wg_models[at + head.y]);
        let b = ik_position(wg_models[at + head.z]);
        let p = ik_position(wg_models[at + head.w]);
        if two_bone_corrections(a, b, p, goal, k) {
            wg_ik_tops[k] = vec2<u32>(head.y, head.z);
        }
    } else if head.x == IK_KIND_AIM {
        if aim_correction(wg_models[at + head.y], code, goal, k) {
            wg_ik_tops[k] = vec2<u32>(head.y, NO_IK_JOINT);
        }
    }
}

// Whether joint `joint` of the pass's rig is `top` or lies below it (parents precede children).
fn ik_in_subtree(joint: u32, top: u32) -> bool {
    var j = joint;
    while j > top {
        let parent = pass_parent(j);
        if parent == NO_PARENT {
            return false;
        }
        j = parent;
    }
    return j == top;
}

// Every lane, over (instance, joint) pairs of the `count` instances of a pass: applies the
// corrections solved for each instance to its joints of the subtrees they turn.
fn ik_apply(rig: RigDesc, count: u32, lane: u32, lanes: u32) {
    let n = rig.joint_count;
    for (var item = lane; item < n * count; item += lanes) {
        let k = item / n;
        let j = item % n;
        let tops = wg_ik_tops[k];
        if tops.x == NO_IK_JOINT {
            continue;
        }
        if ik_in_subtree(j, tops.x) {
            wg_models[item] = affine_mul(wg_ik[2u * k], wg_models[item]);
        }
        if tops.y != NO_IK_JOINT && ik_in_subtree(j, tops.y) {
            wg_models[item] = affine_mul(wg_ik[2u * k + 1u], wg_models[item]);
        }
    }
}
