// The animation math every stage shares. Twin of src/math/mod.rs, function for function: same
// names, same operation order, so CPU and GPU agree to float rounding. Quaternions are
// vec4(x, y, z, w).

const QUAT_EPSILON: f32 = 1e-12;
// Largest finite f32; `x <= F32_MAX` is false for NaN and infinity (WGSL has no isfinite).
const F32_MAX: f32 = 3.40282347e38;
const QUAT_IDENTITY: vec4<f32> = vec4<f32>(0.0, 0.0, 0.0, 1.0);

// A joint's local transform (twin of `Sqt`).
struct Sqt {
    translation: vec3<f32>,
    rotation: vec4<f32>,
    scale: vec3<f32>,
}

// `Vec3::lerp` / `Vec4::lerp`: a * (1 - s) + b * s.
fn lerp3(a: vec3<f32>, b: vec3<f32>, s: f32) -> vec3<f32> {
    return a * (1.0 - s) + b * s;
}

fn lerp4(a: vec4<f32>, b: vec4<f32>, s: f32) -> vec4<f32> {
    return a * (1.0 - s) + b * s;
}

// Normalizes a quaternion, falling back to identity when it has no length.
fn normalize_or_identity(q: vec4<f32>) -> vec4<f32> {
    let len2 = dot(q, q);
    if len2 > QUAT_EPSILON && len2 <= F32_MAX {
        return q * (1.0 / sqrt(len2));
    }
    return QUAT_IDENTITY;
}

// `Quat::normalize`: q times the reciprocal of its length.
fn quat_normalize(q: vec4<f32>) -> vec4<f32> {
    return q * (1.0 / sqrt(dot(q, q)));
}

// Hamilton product `a * b` (apply b, then a).
fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    );
}

fn quat_conjugate(q: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(-q.xyz, q.w);
}

// WGSL lets `acos` err by thousands of ULP and `sin` by 2^-11 absolute, and drivers use that
// room (Mesa lowers acos to a short polynomial), which moves deep joints visibly off the CPU.
// These two are built from +, *, / and sqrt only (Cephes single-precision polynomials) and agree
// with a correctly rounded libm to a few ULP on any device.

// asin on [-0.5, 0.5].
fn asin_small(x: f32) -> f32 {
    let z = x * x;
    let p = (((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z
        + 7.4953002686e-2) * z + 1.6666752422e-1;
    return x + x * z * p;
}

// acos on [-1, 1], to a few ULP.
fn acos_precise(x: f32) -> f32 {
    let half_pi = 1.5707963267948966;
    if x > 0.5 {
        return 2.0 * asin_small(sqrt(0.5 - 0.5 * x));
    }
    if x < -0.5 {
        return 2.0 * half_pi - 2.0 * asin_small(sqrt(0.5 + 0.5 * x));
    }
    return half_pi - asin_small(x);
}

// sin to a few ULP for |x| up to a few thousand (Cody-Waite reduction by pi/2).
fn sin_precise(x: f32) -> f32 {
    let k = round(x * 0.63661977236758134);
    let r = ((x - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.549789948768648e-8;
    let z = r * r;
    let s = r + r * z * ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1);
    let c = 1.0 - 0.5 * z + z * z * ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z
        + 4.166664568298827e-2);
    let quadrant = i32(k) & 3;
    if quadrant == 0 {
        return s;
    }
    if quadrant == 1 {
        return c;
    }
    if quadrant == 2 {
        return -s;
    }
    return -c;
}

// Below this cosine between two quaternions, `slerp_shortest` evaluates sin and acos instead of
// its series.
const SLERP_SERIES_MIN_COS: f32 = 0.7;
const SLERP_SERIES_TERMS: u32 = 8u;

// sin(t theta) / sin(theta) for cos(theta) = x, as the series sum c_i(t) (x - 1)^i with c_0 = t
// and c_i = c_{i-1} (t^2 - i^2) / (i (2i + 1)).
fn slerp_weight(t: f32, x: f32) -> f32 {
    let d = x - 1.0;
    let t2 = t * t;
    var c = t;
    var sum = t;
    var power = 1.0;
    for (var i = 1u; i <= SLERP_SERIES_TERMS; i++) {
        let fi = f32(i);
        c *= (t2 - fi * fi) / (fi * (2.0 * fi + 1.0));
        power *= d;
        sum += c * power;
    }
    return sum;
}

// Spherical linear interpolation along the shorter arc (the glTF LINEAR rotation rule). Keys
// closer than SLERP_SERIES_MIN_COS use the series weights, others the closed form.
fn slerp_shortest(a: vec4<f32>, b_in: vec4<f32>, t: f32) -> vec4<f32> {
    var cos_angle = dot(a, b_in);
    var b = b_in;
    if cos_angle < 0.0 {
        cos_angle = -cos_angle;
        b = -b;
    }
    var wa: f32;
    var wb: f32;
    if cos_angle >= SLERP_SERIES_MIN_COS {
        wa = slerp_weight(1.0 - t, cos_angle);
        wb = slerp_weight(t, cos_angle);
    } else {
        let theta = acos_precise(cos_angle);
        let inv_sin = 1.0 / sin_precise(theta);
        wa = sin_precise((1.0 - t) * theta) * inv_sin;
        wb = sin_precise(t * theta) * inv_sin;
    }
    return normalize_or_identity(a * wa + b * wb);
}

// Normalized lerp along the shorter arc; the blend operator for layers and cross-fades.
fn nlerp_shortest(a: vec4<f32>, b_in: vec4<f32>, t: f32) -> vec4<f32> {
    var b = b_in;
    if dot(a, b_in) < 0.0 {
        b = -b_in;
    }
    return normalize_or_identity(lerp4(a, b, t));
}

// Cubic Hermite spline between keys v0 and v1 (glTF CUBICSPLINE): `out0` is key 0's out
// tangent, `in1` key 1's in tangent, `dt` the key interval and `t` the normalized position.
fn hermite(v0: vec4<f32>, out0: vec4<f32>, in1: vec4<f32>, v1: vec4<f32>, dt: f32, t: f32) -> vec4<f32> {
    let t2 = t * t;
    let t3 = t2 * t;
    let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
    let h10 = t3 - 2.0 * t2 + t;
    let h01 = -2.0 * t3 + 3.0 * t2;
    let h11 = t3 - t2;
    return v0 * h00 + out0 * (h10 * dt) + v1 * h01 + in1 * (h11 * dt);
}

// Override blend: moves `pose` toward `goal` by `weight` (`target` is reserved in WGSL).
fn blend_toward(pose: Sqt, goal: Sqt, weight: f32) -> Sqt {
    return Sqt(
        lerp3(pose.translation, goal.translation, weight),
        nlerp_shortest(pose.rotation, goal.rotation, weight),
        lerp3(pose.scale, goal.scale, weight),
    );
}

// Additive blend: applies `delta` (a pose relative to the rest pose) scaled by `weight`.
fn add_delta(pose: Sqt, delta: Sqt, weight: f32) -> Sqt {
    return Sqt(
        pose.translation + delta.translation * weight,
        quat_normalize(quat_mul(pose.rotation, nlerp_shortest(QUAT_IDENTITY, delta.rotation, weight))),
        pose.scale * lerp3(vec3<f32>(1.0), delta.scale, weight),
    );
}

// The delta that `add_delta` applies to turn `reference` into `pose` at weight 1.
fn delta_from(pose: Sqt, reference: Sqt) -> Sqt {
    // A zero reference scale component (a part scaled away) gives a delta scale of 1 there.
    let zero = reference.scale == vec3<f32>(0.0);
    let safe = select(reference.scale, vec3<f32>(1.0), zero);
    return Sqt(
        pose.translation - reference.translation,
        quat_normalize(quat_mul(quat_conjugate(reference.rotation), pose.rotation)),
        select(pose.scale / safe, vec3<f32>(1.0), zero),
    );
}

// `T * R * S` as 3x4 rows (`Sqt::to_affine`).
fn sqt_to_affine(s: Sqt) -> Mat3x4Rows {
    let q = s.rotation;
    let x2 = q.x + q.x;
    let y2 = q.y + q.y;
    let z2 = q.z + q.z;
    let xx = q.x * x2;
    let xy = q.x * y2;
    let xz = q.x * z2;
    let yy = q.y * y2;
    let yz = q.y * z2;
    let zz = q.z * z2;
    let wx = q.w * x2;
    let wy = q.w * y2;
    let wz = q.w * z2;
    let k = s.scale;
    let t = s.translation;
    return Mat3x4Rows(array<vec4<f32>, 3>(
        vec4<f32>((1.0 - (yy + zz)) * k.x, (xy - wz) * k.y, (xz + wy) * k.z, t.x),
        vec4<f32>((xy + wz) * k.x, (1.0 - (xx + zz)) * k.y, (yz - wx) * k.z, t.y),
        vec4<f32>((xz - wy) * k.x, (yz + wx) * k.y, (1.0 - (xx + yy)) * k.z, t.z),
    ));
}

// `a * b` of two affine transforms (apply b, then a).
fn affine_mul(a: Mat3x4Rows, b: Mat3x4Rows) -> Mat3x4Rows {
    let w = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    let a0 = a.rows[0];
    let a1 = a.rows[1];
    let a2 = a.rows[2];
    let b0 = b.rows[0];
    let b1 = b.rows[1];
    let b2 = b.rows[2];
    return Mat3x4Rows(array<vec4<f32>, 3>(
        b0 * a0.x + b1 * a0.y + b2 * a0.z + w * a0.w,
        b0 * a1.x + b1 * a1.y + b2 * a1.z + w * a1.w,
        b0 * a2.x + b1 * a2.y + b2 * a2.z + w * a2.w,
    ));
}

// Axis-aligned box after transforming the box [lo, hi] by `m`: centre moves by `m`, extent by
// |m|. Conservative for any affine `m`.
fn transform_aabb(m: Mat3x4Rows, lo: vec3<f32>, hi: vec3<f32>) -> Aabb {
    let center = (lo + hi) * 0.5;
    let extent = (hi - lo) * 0.5;
    let r0 = m.rows[0];
    let r1 = m.rows[1];
    let r2 = m.rows[2];
    let c = vec3<f32>(
        r0.x * center.x + r0.y * center.y + r0.z * center.z + r0.w,
        r1.x * center.x + r1.y * center.y + r1.z * center.z + r1.w,
        r2.x * center.x + r2.y * center.y + r2.z * center.z + r2.w,
    );
    let e = vec3<f32>(
        abs(r0.x) * extent.x + abs(r0.y) * extent.y + abs(r0.z) * extent.z,
        abs(r1.x) * extent.x + abs(r1.y) * extent.y + abs(r1.z) * extent.z,
        abs(r2.x) * extent.x + abs(r2.y) * extent.y + abs(r2.z) * extent.z,
    );
    return Aabb(vec4<f32>(c - e, 0.0), vec4<f32>(c + e, 0.0));
}
