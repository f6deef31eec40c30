// sinew skinning: linear blend and dual-quaternion skinning from the palette, for vertex and
// compute shaders. Self-contained (no other sinew WGSL needed); every name starts with `sinew_`
// or `Sinew`.
//
// The palette holds one 3x4 affine matrix per joint and instance, as three rows (keep in sync
// with `Mat3x4Rows` in src/math/mod.rs). Each entry already includes the instance's world
// transform, so skinned positions come out in world space. A rig with morph targets has its
// weights after its joint entries, 12 per entry (`sinew_morph_weight`); the displacements are
// the host's to bind (`sinew::render::pack_deltas` gives their layout).
//
// This file declares no binding. Declare the palette next to it as
//     @group(G) @binding(B) var<storage, read> sinew_palette: array<SinewBone>;
// or take both from `sinew::render::skinning_wgsl(G, B)`.
//
// `offset` (the first palette entry of the instance) indexes the bound binding: when the palette
// is bound in windows (`sinew::render::palette_windows`, for palettes larger than one storage
// binding), pass the instance's offset minus the window's `first_entry`.
//
// CPU twins of the skinning functions: src/render/skinning.rs.

struct SinewBone {
    row0: vec4<f32>,
    row1: vec4<f32>,
    row2: vec4<f32>,
}

// Up to eight joint influences of a vertex, in two groups of four: joints and weights 1-4 in
// `joints0` / `weights0`, 5-8 in `joints1` / `weights1` (zero weights for unused slots).
struct SinewInfluences {
    joints0: vec4<u32>,
    joints1: vec4<u32>,
    weights0: vec4<f32>,
    weights1: vec4<f32>,
}

struct SinewSkinned {
    position: vec3<f32>,
    normal: vec3<f32>,
}

// A rigid transform with scale, as skinning blends it: unit quaternion `real` (xyzw), dual part
// `dual` (translation t as 0.5 * t * real) and the per-axis scale applied before the rotation.
struct SinewDualQuat {
    real: vec4<f32>,
    dual: vec4<f32>,
    scale: vec3<f32>,
}

// Vertices whose (in-range) weights sum to less than this keep their bind-space position.
const SINEW_MIN_WEIGHT_SUM: f32 = 1e-6;

fn sinew_transform_point(b: SinewBone, p: vec3<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    return vec3<f32>(dot(b.row0, h), dot(b.row1, h), dot(b.row2, h));
}

fn sinew_transform_vector(b: SinewBone, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(dot(b.row0.xyz, v), dot(b.row1.xyz, v), dot(b.row2.xyz, v));
}

fn sinew_normalize_or(v: vec3<f32>, fallback: vec3<f32>) -> vec3<f32> {
    let len2 = dot(v, v);
    if (len2 > 1e-20) {
        return v * inverseSqrt(len2);
    }
    return fallback;
}

// The weights with every joint at or past `joint_count` zeroed: the bounds guard on joints.
fn sinew_guard_weights(joint_count: u32, joints: vec4<u32>, weights: vec4<f32>) -> vec4<f32> {
    return select(vec4<f32>(0.0), weights, joints < vec4<u32>(joint_count));
}

// Joint of influence slot `k` (0..8).
fn sinew_influence_joint(v: SinewInfluences, k: u32) -> u32 {
    if (k < 4u) {
        return v.joints0[k];
    }
    return v.joints1[k - 4u];
}

// Weight of influence slot `k` (0..8) from the guarded weight groups `w0`, `w1`.
fn sinew_influence_weight(w0: vec4<f32>, w1: vec4<f32>, k: u32) -> f32 {
    if (k < 4u) {
        return w0[k];
    }
    return w1[k - 4u];
}

// The guarded weights of a vertex's influences (`sinew_guard_weights`, influences 1-4 in `w0`,
// 5-8 in `w1`) and their sum.
struct SinewWeights {
    w0: vec4<f32>,
    w1: vec4<f32>,
    total: f32,
}

fn sinew_weights(joint_count: u32, influences: SinewInfluences) -> SinewWeights {
    let w0 = sinew_guard_weights(joint_count, influences.joints0, influences.weights0);
    let w1 = sinew_guard_weights(joint_count, influences.joints1, influences.weights1);
    var total = 0.0;
    for (var k = 0u; k < 8u; k++) {
        total += sinew_influence_weight(w0, w1, k);
    }
    return SinewWeights(w0, w1, total);
}

// Palette entry of `joint` for the instance whose block starts at `offset`; `joint` is clamped
// into the block (its weight is zero when it was out of range).
fn sinew_bone(offset: u32, joint_count: u32, joint: u32) -> SinewBone {
    return sinew_palette[offset + min(joint, max(joint_count, 1u) - 1u)];
}

// Linear blend skinning: sum of weight x palette matrix over the influences (zero weights
// skipped), applied to the position and, through its 3x3 part, to the normal (renormalized). A
// vertex whose weights sum to zero is left as is.
fn sinew_skin_linear(
    offset: u32,
    joint_count: u32,
    influences: SinewInfluences,
    position: vec3<f32>,
    normal: vec3<f32>,
) -> SinewSkinned {
    let w = sinew_weights(joint_count, influences);
    if (abs(w.total) < SINEW_MIN_WEIGHT_SUM) {
        return SinewSkinned(position, sinew_normalize_or(normal, vec3<f32>(0.0, 1.0, 0.0)));
    }
    let m = sinew_blend_bones(offset, joint_count, influences, w.w0, w.w1);
    let n = sinew_transform_vector(m, normal);
    return SinewSkinned(sinew_transform_point(m, position), sinew_normalize_or(n, normal));
}

// The sum of weight x palette entry over the influences, with the guarded weights `w0`, `w1`
// (`sinew_guard_weights`; zero weights skipped): the matrix linear blend skinning applies.
fn sinew_blend_bones(
    offset: u32,
    joint_count: u32,
    influences: SinewInfluences,
    w0: vec4<f32>,
    w1: vec4<f32>,
) -> SinewBone {
    var m = SinewBone(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < 8u; k++) {
        let w = sinew_influence_weight(w0, w1, k);
        if (w != 0.0) {
            let b = sinew_bone(offset, joint_count, sinew_influence_joint(influences, k));
            m.row0 += b.row0 * w;
            m.row1 += b.row1 * w;
            m.row2 += b.row2 * w;
        }
    }
    return m;
}

// Hamilton product of quaternions stored xyzw.
fn sinew_quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

// Rotates `v` by the unit quaternion `q`.
fn sinew_quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    return v + 2.0 * cross(q.xyz, cross(q.xyz, v) + q.w * v);
}

// The unit quaternion of a rotation matrix given by its columns.
fn sinew_quat_from_columns(c0: vec3<f32>, c1: vec3<f32>, c2: vec3<f32>) -> vec4<f32> {
    let trace = c0.x + c1.y + c2.z;
    var q: vec4<f32>;
    if (trace > 0.0) {
        let s = sqrt(trace + 1.0) * 2.0;
        q = vec4<f32>((c1.z - c2.y) / s, (c2.x - c0.z) / s, (c0.y - c1.x) / s, 0.25 * s);
    } else if (c0.x > c1.y && c0.x > c2.z) {
        let s = sqrt(1.0 + c0.x - c1.y - c2.z) * 2.0;
        q = vec4<f32>(0.25 * s, (c1.x + c0.y) / s, (c2.x + c0.z) / s, (c1.z - c2.y) / s);
    } else if (c1.y > c2.z) {
        let s = sqrt(1.0 + c1.y - c0.x - c2.z) * 2.0;
        q = vec4<f32>((c1.x + c0.y) / s, 0.25 * s, (c2.y + c1.z) / s, (c2.x - c0.z) / s);
    } else {
        let s = sqrt(1.0 + c2.z - c0.x - c1.y) * 2.0;
        q = vec4<f32>((c2.x + c0.z) / s, (c2.y + c1.z) / s, 0.25 * s, (c0.y - c1.x) / s);
    }
    return normalize(q);
}

// Splits a palette entry into scale (column lengths, the first negated for a mirroring matrix),
// rotation and translation, as a dual quaternion. Exact for rotation x scale + translation;
// shear is lost.
fn sinew_bone_to_dual_quat(b: SinewBone) -> SinewDualQuat {
    let c0 = vec3<f32>(b.row0.x, b.row1.x, b.row2.x);
    let c1 = vec3<f32>(b.row0.y, b.row1.y, b.row2.y);
    let c2 = vec3<f32>(b.row0.z, b.row1.z, b.row2.z);
    let t = vec3<f32>(b.row0.w, b.row1.w, b.row2.w);
    var s = max(vec3<f32>(length(c0), length(c1), length(c2)), vec3<f32>(1e-12));
    if (dot(c0, cross(c1, c2)) < 0.0) {
        s.x = -s.x;
    }
    let real = sinew_quat_from_columns(c0 / s.x, c1 / s.y, c2 / s.z);
    let dual = 0.5 * sinew_quat_mul(vec4<f32>(t, 0.0), real);
    return SinewDualQuat(real, dual, s);
}

// The influence with the largest guarded weight (the first of equals): its rotation is the
// hemisphere dual-quaternion skinning blends in.
fn sinew_heaviest_influence(w0: vec4<f32>, w1: vec4<f32>) -> u32 {
    var heaviest = 0u;
    for (var k = 1u; k < 8u; k++) {
        if (sinew_influence_weight(w0, w1, k) > sinew_influence_weight(w0, w1, heaviest)) {
            heaviest = k;
        }
    }
    return heaviest;
}

// Dual-quaternion skinning's running sum: the real and dual parts weighted and signed into the
// hemisphere of `pivot` (the heaviest influence's rotation), and the weighted scale.
struct SinewDualQuatSum {
    pivot: vec4<f32>,
    real: vec4<f32>,
    dual: vec4<f32>,
    scale: vec3<f32>,
}

// An empty sum in the hemisphere of palette entry `pivot`.
fn sinew_dual_quat_sum(pivot: SinewBone) -> SinewDualQuatSum {
    let p = sinew_bone_to_dual_quat(pivot).real;
    return SinewDualQuatSum(p, vec4<f32>(0.0), vec4<f32>(0.0), vec3<f32>(0.0));
}

// `sum` plus palette entry `bone` at weight `w`.
fn sinew_dual_quat_add(sum: SinewDualQuatSum, bone: SinewBone, w: f32) -> SinewDualQuatSum {
    let d = sinew_bone_to_dual_quat(bone);
    let signed = select(w, -w, dot(sum.pivot, d.real) < 0.0);
    return SinewDualQuatSum(
        sum.pivot,
        sum.real + d.real * signed,
        sum.dual + d.dual * signed,
        sum.scale + d.scale * w,
    );
}

// The vertex skinned by `sum` (weights summing to `total`): the blend normalized, the scale
// divided by `total` and applied before the rotation. A blend of length zero leaves the vertex
// as is.
fn sinew_dual_quat_apply(
    sum: SinewDualQuatSum,
    total: f32,
    position: vec3<f32>,
    normal: vec3<f32>,
) -> SinewSkinned {
    let scale = sum.scale / total;
    let len = length(sum.real);
    if (len < 1e-12) {
        return SinewSkinned(position, sinew_normalize_or(normal, vec3<f32>(0.0, 1.0, 0.0)));
    }
    let r = sum.real / len;
    let d = sum.dual / len;
    let t = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
    let p = sinew_quat_rotate(r, position * scale) + t;
    let n = sinew_quat_rotate(r, normal / scale);
    return SinewSkinned(p, sinew_normalize_or(n, normal));
}

// Dual-quaternion skinning (Kavan et al.): the palette entries are converted to dual
// quaternions here, in the shader, blended along the shortest arc relative to the heaviest
// influence (the first of equals) and normalized; scale is blended linearly and applied before
// the rotation. Zero weights are skipped. Agrees with linear blend skinning for a single
// influence; avoids its volume loss at twisted joints.
fn sinew_skin_dual_quat(
    offset: u32,
    joint_count: u32,
    influences: SinewInfluences,
    position: vec3<f32>,
    normal: vec3<f32>,
) -> SinewSkinned {
    let w = sinew_weights(joint_count, influences);
    if (abs(w.total) < SINEW_MIN_WEIGHT_SUM) {
        return SinewSkinned(position, sinew_normalize_or(normal, vec3<f32>(0.0, 1.0, 0.0)));
    }
    let heaviest = sinew_influence_joint(influences, sinew_heaviest_influence(w.w0, w.w1));
    var sum = sinew_dual_quat_sum(sinew_bone(offset, joint_count, heaviest));
    for (var k = 0u; k < 8u; k++) {
        let wk = sinew_influence_weight(w.w0, w.w1, k);
        if (wk != 0.0) {
            let joint = sinew_influence_joint(influences, k);
            sum = sinew_dual_quat_add(sum, sinew_bone(offset, joint_count, joint), wk);
        }
    }
    return sinew_dual_quat_apply(sum, w.total, position, normal);
}

// Weight `index` of the weight vector of the instance whose block starts at `offset` (0 past
// the bound palette).
fn sinew_morph_weight(offset: u32, joint_count: u32, index: u32) -> f32 {
    let entry = offset + joint_count + index / 12u;
    if (entry >= arrayLength(&sinew_palette)) {
        return 0.0;
    }
    let b = sinew_palette[entry];
    let r = (index % 12u) / 4u;
    var row = b.row0;
    if (r == 1u) {
        row = b.row1;
    } else if (r == 2u) {
        row = b.row2;
    }
    return row[index % 4u];
}
