//! Analytic tests of the CPU evaluator on small rigs built by hand. Every expected value is
//! worked out in the test itself (by hand, or from a closed form), never by the code under test;
//! and `CpuBackend`'s results on a shipped-rig crowd are the same bits for any thread count.

mod common;
#[path = "cpu/compressed.rs"]
mod compressed;
#[path = "cpu/ik.rs"]
mod ik;
#[path = "cpu/lod.rs"]
mod lod;
#[path = "cpu/rigid_parts.rs"]
mod rigid_parts;

use common::{EXACT_TOLERANCE, assert_matrix_close, assert_quat_close, assert_vec_close};
use glam::{Affine3A, Mat4, Quat, Vec3, Vec4};
use sinew::bake::{UnmatchedChannel, retarget_clips};
use sinew::cpu::{
    animated_aabb, blend_layers, evaluate_pose, local_to_model, sample_joint, skin_palette,
};
use sinew::import::{RawClip, RawMesh, RawNode, RawSkin, RawTrack};
use sinew::{
    Aabb, BlendMode, Channel, CpuBackend, EvalError, ImportErrorKind, InstanceRecord,
    Interpolation, JointMask, Layer, MAX_JOINTS, Mat3x4Rows, RawAsset, Rig, Sqt, bake_rigs,
};

// ---------------------------------------------------------------------------------------------
// Fixture builder
// ---------------------------------------------------------------------------------------------

/// A `RawAsset` assembled node by node.
struct Fixture {
    asset: RawAsset,
}

impl Fixture {
    fn new() -> Self {
        Self {
            asset: RawAsset {
                file: "<fixture>".to_string(),
                ..RawAsset::default()
            },
        }
    }

    /// Adds a node and returns its index.
    fn node(&mut self, name: &str, parent: Option<usize>, rest: Sqt) -> usize {
        self.asset.nodes.push(RawNode {
            name: name.to_string(),
            parent,
            rest,
        });
        self.asset.nodes.len() - 1
    }

    /// Adds a clip and returns its index.
    fn clip(&mut self, name: &str, tracks: Vec<RawTrack>) -> u32 {
        self.asset.clips.push(RawClip {
            name: name.to_string(),
            tracks,
            weights: Vec::new(),
        });
        (self.asset.clips.len() - 1) as u32
    }

    /// Adds a skin over `joints` (in that skin order) with the given inverse bind matrices.
    fn skin_with_binds(&mut self, joints: &[usize], inverse_binds: Vec<Mat4>) -> usize {
        self.asset.skins.push(RawSkin {
            name: Some(format!("skin{}", self.asset.skins.len())),
            joints: joints.to_vec(),
            inverse_binds,
            skeleton_root: None,
            mesh_nodes: Vec::new(),
        });
        self.asset.skins.len() - 1
    }

    /// Adds a skin over `joints` whose inverse binds undo their rest model matrices.
    fn skin(&mut self, joints: &[usize]) -> usize {
        let binds = joints
            .iter()
            .map(|&n| Mat4::from(self.rest_model(n)).inverse())
            .collect();
        self.skin_with_binds(joints, binds)
    }

    /// The rest model matrix of `node`: its rest transform under its ancestors'.
    fn rest_model(&self, node: usize) -> Affine3A {
        let n = &self.asset.nodes[node];
        let local = n.rest.to_affine();
        match n.parent {
            Some(p) => self.rest_model(p) * local,
            None => local,
        }
    }

    /// A node rig (no skin) over every node.
    fn node_rig(&self) -> Rig {
        let nodes: Vec<usize> = (0..self.asset.nodes.len()).collect();
        Rig::from_nodes(&self.asset, &nodes, "fixture").unwrap()
    }
}

fn trs(t: [f32; 3], r: Quat, s: [f32; 3]) -> Sqt {
    Sqt {
        translation: Vec3::from(t),
        rotation: r,
        scale: Vec3::from(s),
    }
}

fn at(t: [f32; 3]) -> Sqt {
    trs(t, Quat::IDENTITY, [1.0; 3])
}

fn xyz(x: f32, y: f32, z: f32) -> Vec4 {
    Vec4::new(x, y, z, 0.0)
}

fn qv(q: Quat) -> Vec4 {
    Vec4::from(q)
}

/// A rotation of `deg` degrees about the unit `axis`, written out as `(axis sin θ/2, cos θ/2)`.
fn axis_angle(axis: [f64; 3], deg: f64) -> Quat {
    let h = deg.to_radians() / 2.0;
    let (s, c) = (h.sin(), h.cos());
    Quat::from_xyzw(
        (axis[0] * s) as f32,
        (axis[1] * s) as f32,
        (axis[2] * s) as f32,
        c as f32,
    )
}

fn rz(deg: f64) -> Quat {
    axis_angle([0.0, 0.0, 1.0], deg)
}

fn track(
    target: usize,
    channel: Channel,
    interpolation: Interpolation,
    times: &[f32],
    values: &[Vec4],
) -> RawTrack {
    RawTrack {
        target,
        channel,
        interpolation,
        times: times.to_vec(),
        values: values.to_vec(),
    }
}

fn linear(target: usize, channel: Channel, times: &[f32], values: &[Vec4]) -> RawTrack {
    track(target, channel, Interpolation::Linear, times, values)
}

/// A track holding `value` from t = 0 to t = 1.
fn hold(target: usize, channel: Channel, value: Vec4) -> RawTrack {
    linear(target, channel, &[0.0, 1.0], &[value, value])
}

fn joint(rig: &Rig, name: &str) -> usize {
    rig.skeleton
        .find_joint(name)
        .unwrap_or_else(|| panic!("no joint {name:?}"))
}

fn sample(rig: &Rig, clip: u32, name: &str, t: f32) -> Sqt {
    sample_joint(&rig.clips, clip as usize, joint(rig, name), t)
}

fn blended(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> Vec<Sqt> {
    let mut locals = vec![Sqt::IDENTITY; rig.joint_count()];
    blend_layers(rig, masks, layers, &mut locals);
    locals
}

fn layer(clip: u32, weight: f32, mask: Option<u32>, mode: BlendMode) -> Layer {
    Layer {
        clip,
        time: 0.5,
        weight,
        mask,
        mode,
    }
}

fn assert_v3(got: Vec3, expected: [f32; 3], what: &str) {
    assert_vec_close(&got.to_array(), &expected, EXACT_TOLERANCE, what);
}

fn assert_v4(got: Vec4, expected: [f32; 4], what: &str) {
    assert_vec_close(&got.to_array(), &expected, EXACT_TOLERANCE, what);
}

fn assert_unit(q: Quat, what: &str) {
    let len = q.length();
    assert!(
        (len - 1.0).abs() <= 1e-6,
        "{what}: |q| = {len}, expected 1 (q = {q:?})"
    );
}

fn cols(a: &Affine3A) -> [f32; 16] {
    Mat4::from(*a).to_cols_array()
}

/// Column-major 4x4 from the images of the three axes and the translation.
fn affine_from(x: [f32; 3], y: [f32; 3], z: [f32; 3], t: [f32; 3]) -> [f32; 16] {
    [
        x[0], x[1], x[2], 0.0, y[0], y[1], y[2], 0.0, z[0], z[1], z[2], 0.0, t[0], t[1], t[2], 1.0,
    ]
}

/// A small deterministic generator for "random-ish" data.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

// ---------------------------------------------------------------------------------------------
// Sampling
// ---------------------------------------------------------------------------------------------

#[test]
fn step_holds_each_key_until_the_next() {
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let keys = [xyz(1.0, 0.0, 0.0), xyz(2.0, 10.0, 0.0), xyz(3.0, 0.0, -4.0)];
    let clip = f.clip(
        "step",
        vec![track(
            a,
            Channel::Translation,
            Interpolation::Step,
            &[0.0, 1.0, 2.5],
            &keys,
        )],
    );
    let rig = f.node_rig();
    let cases = [
        (0.0, [1.0, 0.0, 0.0]),
        (0.5, [1.0, 0.0, 0.0]),
        (0.999, [1.0, 0.0, 0.0]),
        (1.0, [2.0, 10.0, 0.0]),
        (1.7, [2.0, 10.0, 0.0]),
        (2.4999, [2.0, 10.0, 0.0]),
        (2.5, [3.0, 0.0, -4.0]),
    ];
    for (t, expected) in cases {
        let got = sample(&rig, clip, "A", t).translation;
        assert_eq!(got.to_array(), expected, "STEP translation at t = {t}");
    }
}

#[test]
fn linear_translation_interpolates_between_the_surrounding_keys() {
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "move",
        vec![linear(
            a,
            Channel::Translation,
            &[0.0, 2.0, 3.0],
            &[xyz(0.0, 0.0, 0.0), xyz(4.0, -8.0, 2.0), xyz(5.0, -8.0, 0.0)],
        )],
    );
    let rig = f.node_rig();
    let cases = [
        (0.5, [1.0, -2.0, 0.5]),
        (1.0, [2.0, -4.0, 1.0]),
        (1.5, [3.0, -6.0, 1.5]),
        (2.25, [4.25, -8.0, 1.5]),
        (2.5, [4.5, -8.0, 1.0]),
        (2.75, [4.75, -8.0, 0.5]),
    ];
    for (t, expected) in cases {
        let got = sample(&rig, clip, "A", t).translation;
        assert_v3(got, expected, &format!("LINEAR translation at t = {t}"));
    }
}

#[test]
fn linear_scale_interpolates_between_the_surrounding_keys() {
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "grow",
        vec![linear(
            a,
            Channel::Scale,
            &[1.0, 3.0],
            &[xyz(1.0, 1.0, 1.0), xyz(3.0, 5.0, 0.5)],
        )],
    );
    let rig = f.node_rig();
    let cases = [
        (1.5, [1.5, 2.0, 0.875]),
        (2.0, [2.0, 3.0, 0.75]),
        (2.5, [2.5, 4.0, 0.625]),
    ];
    for (t, expected) in cases {
        let got = sample(&rig, clip, "A", t).scale;
        assert_v3(got, expected, &format!("LINEAR scale at t = {t}"));
    }
}

#[test]
fn linear_sampling_finds_the_surrounding_pair_among_many_keys() {
    // 12 keys at t_k = 0.1 k² holding x = k: halfway through interval k the value is k + 0.5,
    // a quarter in k + 0.25.
    let times: Vec<f32> = (0..12).map(|k| 0.1 * (k * k) as f32).collect();
    let values: Vec<Vec4> = (0..12).map(|k| xyz(k as f32, 0.0, 0.0)).collect();
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "ramp",
        vec![linear(a, Channel::Translation, &times, &values)],
    );
    let rig = f.node_rig();
    for k in 0..11 {
        for frac in [0.25f32, 0.5] {
            let t = times[k] + frac * (times[k + 1] - times[k]);
            let got = sample(&rig, clip, "A", t).translation;
            assert_v3(
                got,
                [k as f32 + frac, 0.0, 0.0],
                &format!("interval {k}, t = {t}"),
            );
        }
    }
}

#[test]
fn linear_rotation_is_a_slerp() {
    // 120° about the unit axis (1, 2, 2) / 3: slerp at u turns by 120° × u about the same axis
    // (a normalized lerp would be off by over a degree at u = 0.25).
    let axis = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "turn",
        vec![linear(
            a,
            Channel::Rotation,
            &[0.0, 1.0],
            &[qv(Quat::IDENTITY), qv(axis_angle(axis, 120.0))],
        )],
    );
    let rig = f.node_rig();
    for (t, deg) in [(0.25, 30.0), (0.5, 60.0), (0.75, 90.0)] {
        let got = sample(&rig, clip, "A", t).rotation;
        assert_quat_close(
            got,
            axis_angle(axis, deg),
            &format!("slerp at t = {t} ({deg}°)"),
        );
    }
}

#[test]
fn linear_rotation_takes_the_short_arc_across_the_double_cover() {
    // The second key is stored negated: the same 120° rotation, on the other sheet.
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "turn",
        vec![linear(
            a,
            Channel::Rotation,
            &[0.0, 1.0],
            &[qv(rz(0.0)), -qv(rz(120.0))],
        )],
    );
    let rig = f.node_rig();
    for (t, deg) in [(0.25, 30.0), (0.5, 60.0)] {
        let got = sample(&rig, clip, "A", t).rotation;
        assert_quat_close(got, rz(deg), &format!("short arc at t = {t} ({deg}°)"));
    }
}

#[test]
fn linear_rotation_is_unit_length() {
    // One wide pair and one nearly parallel pair (the normalized-lerp fallback).
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let b = f.node("B", None, Sqt::IDENTITY);
    let clip = f.clip(
        "turn",
        vec![
            linear(
                a,
                Channel::Rotation,
                &[0.0, 1.0],
                &[qv(axis_angle([0.6, 0.0, 0.8], -40.0)), qv(rz(170.0))],
            ),
            linear(
                b,
                Channel::Rotation,
                &[0.0, 1.0],
                &[qv(rz(0.0)), qv(rz(1.0))],
            ),
        ],
    );
    let rig = f.node_rig();
    for i in 0..=20 {
        let t = i as f32 / 20.0;
        for name in ["A", "B"] {
            assert_unit(
                sample(&rig, clip, name, t).rotation,
                &format!("{name} at t = {t}"),
            );
        }
    }
    assert_quat_close(
        sample(&rig, clip, "B", 0.5).rotation,
        rz(0.5),
        "nearly parallel keys, t = 0.5",
    );
}

/// The glTF CUBICSPLINE formula, evaluated independently in f64:
/// `p(s) = (2s³ - 3s² + 1) v0 + (s³ - 2s² + s) dt b0 + (-2s³ + 3s²) v1 + (s³ - s²) dt a1`.
fn hermite_by_hand(v0: Vec4, b0: Vec4, a1: Vec4, v1: Vec4, t0: f32, t1: f32, t: f32) -> [f32; 4] {
    let dt = f64::from(t1 - t0);
    let s = (f64::from(t) - f64::from(t0)) / dt;
    let (s2, s3) = (s * s, s * s * s);
    let mut out = [0.0; 4];
    for (i, o) in out.iter_mut().enumerate() {
        let p = (2.0 * s3 - 3.0 * s2 + 1.0) * f64::from(v0[i])
            + (s3 - 2.0 * s2 + s) * dt * f64::from(b0[i])
            + (-2.0 * s3 + 3.0 * s2) * f64::from(v1[i])
            + (s3 - s2) * dt * f64::from(a1[i]);
        *o = p as f32;
    }
    out
}

#[test]
fn cubic_spline_matches_the_hermite_formula() {
    // (in tangent, value, out tangent) per key; every tangent differs so a wrong index shows.
    let times = [0.0, 0.5, 2.0];
    let keys = [
        [xyz(9.0, 9.0, 9.0), xyz(0.0, 0.0, 0.0), xyz(1.0, 2.0, -1.0)],
        [xyz(3.0, -1.0, 0.0), xyz(1.0, 1.0, 1.0), xyz(-2.0, 0.5, 4.0)],
        [xyz(0.0, 1.0, -3.0), xyz(2.0, -1.0, 0.5), xyz(7.0, 7.0, 7.0)],
    ];
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "curve",
        vec![track(
            a,
            Channel::Translation,
            Interpolation::CubicSpline,
            &times,
            &keys.concat(),
        )],
    );
    let rig = f.node_rig();
    for t in [0.1, 0.25, 0.4, 0.8, 1.25, 1.9] {
        let k = if t < times[1] { 0 } else { 1 };
        let expected = hermite_by_hand(
            keys[k][1],
            keys[k][2],
            keys[k + 1][0],
            keys[k + 1][1],
            times[k],
            times[k + 1],
            t,
        );
        let got = sample(&rig, clip, "A", t).translation;
        assert_v3(
            got,
            [expected[0], expected[1], expected[2]],
            &format!("CUBICSPLINE at t = {t}"),
        );
    }
}

#[test]
fn cubic_spline_with_zero_tangents_passes_through_its_keys() {
    let zero = Vec4::ZERO;
    let (a0, b0, c0) = (xyz(0.0, 4.0, -2.0), xyz(2.0, 0.0, 2.0), xyz(6.0, 1.0, 0.0));
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "curve",
        vec![track(
            a,
            Channel::Translation,
            Interpolation::CubicSpline,
            &[0.0, 1.0, 3.0],
            &[zero, a0, zero, zero, b0, zero, zero, c0, zero],
        )],
    );
    let rig = f.node_rig();
    // At the keys, the keys; halfway, the average; a quarter in, h01(1/4) = 5/32 of the way.
    let cases = [
        (0.0, [0.0, 4.0, -2.0]),
        (1.0, [2.0, 0.0, 2.0]),
        (3.0, [6.0, 1.0, 0.0]),
        (0.5, [1.0, 2.0, 0.0]),
        (2.0, [4.0, 0.5, 1.0]),
        (0.25, [0.3125, 3.375, -1.375]),
    ];
    for (t, expected) in cases {
        let got = sample(&rig, clip, "A", t).translation;
        assert_v3(got, expected, &format!("zero tangents at t = {t}"));
    }
}

#[test]
fn cubic_spline_rotation_is_normalized() {
    let zero = Vec4::ZERO;
    let q0 = qv(rz(0.0));
    let q1 = qv(rz(90.0));
    let b0 = Vec4::new(0.5, 0.0, 1.0, 0.0);
    let a1 = Vec4::new(0.0, -0.5, 0.25, 0.0);
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let b = f.node("B", None, Sqt::IDENTITY);
    let clip = f.clip(
        "curve",
        vec![
            track(
                a,
                Channel::Rotation,
                Interpolation::CubicSpline,
                &[0.0, 1.0],
                &[zero, q0, zero, zero, q1, zero],
            ),
            track(
                b,
                Channel::Rotation,
                Interpolation::CubicSpline,
                &[0.0, 1.0],
                &[zero, q0, b0, a1, q1, zero],
            ),
        ],
    );
    let rig = f.node_rig();
    // Zero tangents, halfway: (q0 + q1) / 2 has length cos 22.5°; normalized it is Rz(45°).
    let mid = sample(&rig, clip, "A", 0.5).rotation;
    assert_unit(mid, "zero tangents, t = 0.5");
    assert_quat_close(mid, rz(45.0), "zero tangents, t = 0.5");
    for t in [0.2, 0.5, 0.7] {
        let raw = Vec4::from(hermite_by_hand(q0, b0, a1, q1, 0.0, 1.0, t));
        let expected = raw / raw.length();
        let got = sample(&rig, clip, "B", t).rotation;
        assert_unit(got, &format!("tangents, t = {t}"));
        assert_v4(
            Vec4::from(got),
            expected.to_array(),
            &format!("tangents, t = {t}"),
        );
    }
}

/// A clip whose keys start at t = 0.5: a LINEAR translation (0.5 → 1.5) and a CUBICSPLINE scale
/// (0.5 → 2.0) whose tangents differ from its values.
fn late_clip() -> (Rig, u32) {
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "late",
        vec![
            linear(
                a,
                Channel::Translation,
                &[0.5, 1.5],
                &[xyz(1.0, 2.0, 3.0), xyz(-1.0, 0.0, 5.0)],
            ),
            track(
                a,
                Channel::Scale,
                Interpolation::CubicSpline,
                &[0.5, 2.0],
                &[
                    xyz(9.0, 9.0, 9.0),
                    xyz(2.0, 3.0, 4.0),
                    xyz(8.0, 8.0, 8.0),
                    xyz(7.0, 7.0, 7.0),
                    xyz(0.5, 0.25, 1.0),
                    xyz(6.0, 6.0, 6.0),
                ],
            ),
        ],
    );
    (f.node_rig(), clip)
}

#[test]
fn sampling_before_the_first_key_holds_the_first_key() {
    let (rig, clip) = late_clip();
    for t in [0.0, 0.25, 0.5] {
        let s = sample(&rig, clip, "A", t);
        assert_v3(
            s.translation,
            [1.0, 2.0, 3.0],
            &format!("LINEAR at t = {t}"),
        );
        assert_v3(s.scale, [2.0, 3.0, 4.0], &format!("CUBICSPLINE at t = {t}"));
    }
}

#[test]
fn sampling_after_the_last_key_holds_the_last_key() {
    let (rig, clip) = late_clip();
    for t in [2.0, 2.5, 100.0] {
        let s = sample(&rig, clip, "A", t);
        assert_v3(
            s.translation,
            [-1.0, 0.0, 5.0],
            &format!("LINEAR at t = {t}"),
        );
        assert_v3(
            s.scale,
            [0.5, 0.25, 1.0],
            &format!("CUBICSPLINE at t = {t}"),
        );
    }
}

#[test]
fn a_one_key_track_is_constant() {
    let mut f = Fixture::new();
    let a = f.node("A", None, Sqt::IDENTITY);
    let clip = f.clip(
        "still",
        vec![
            linear(a, Channel::Translation, &[0.3], &[xyz(4.0, 5.0, 6.0)]),
            track(
                a,
                Channel::Scale,
                Interpolation::CubicSpline,
                &[0.3],
                &[xyz(9.0, 9.0, 9.0), xyz(2.0, 2.0, 3.0), xyz(8.0, 8.0, 8.0)],
            ),
        ],
    );
    let rig = f.node_rig();
    for t in [0.0, 0.3, 1.0, 100.0] {
        let s = sample(&rig, clip, "A", t);
        assert_v3(
            s.translation,
            [4.0, 5.0, 6.0],
            &format!("LINEAR at t = {t}"),
        );
        assert_v3(s.scale, [2.0, 2.0, 3.0], &format!("CUBICSPLINE at t = {t}"));
    }
}

#[test]
fn a_channel_the_clip_does_not_animate_is_the_rest_pose() {
    let mut f = Fixture::new();
    let a = f.node("A", None, trs([1.0, 2.0, 3.0], rz(30.0), [2.0, 2.0, 2.0]));
    f.node(
        "B",
        Some(a),
        trs([0.0, 1.0, 0.0], rz(-45.0), [1.0, 0.5, 1.0]),
    );
    let clip = f.clip(
        "slide",
        vec![linear(
            a,
            Channel::Translation,
            &[0.0, 1.0],
            &[xyz(0.0, 0.0, 0.0), xyz(10.0, 0.0, 0.0)],
        )],
    );
    let rig = f.node_rig();
    let sa = sample(&rig, clip, "A", 0.5);
    assert_v3(sa.translation, [5.0, 0.0, 0.0], "A translation (animated)");
    assert_quat_close(sa.rotation, rz(30.0), "A rotation (rest)");
    assert_v3(sa.scale, [2.0, 2.0, 2.0], "A scale (rest)");
    let sb = sample(&rig, clip, "B", 0.5);
    assert_v3(sb.translation, [0.0, 1.0, 0.0], "B translation (rest)");
    assert_quat_close(sb.rotation, rz(-45.0), "B rotation (rest)");
    assert_v3(sb.scale, [1.0, 0.5, 1.0], "B scale (rest)");
}

// ---------------------------------------------------------------------------------------------
// Masks
// ---------------------------------------------------------------------------------------------

/// Root → Hips → {Spine → Chest → Head, LegL}. Clip A puts every joint at T (0, 1, 0), Rz(20°);
/// clip B at T (2, 3, 0), Rz(60°).
fn mask_fixture() -> Fixture {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let hips = f.node("Hips", Some(root), at([0.0, 1.0, 0.0]));
    let spine = f.node("Spine", Some(hips), at([0.0, 0.2, 0.0]));
    let chest = f.node("Chest", Some(spine), at([0.0, 0.3, 0.0]));
    f.node("Head", Some(chest), at([0.0, 0.3, 0.0]));
    f.node("LegL", Some(hips), at([0.2, -0.1, 0.0]));
    let all = 0..f.asset.nodes.len();
    let pose = |t: Vec4, r: Quat| -> Vec<RawTrack> {
        all.clone()
            .flat_map(|n| {
                [
                    hold(n, Channel::Translation, t),
                    hold(n, Channel::Rotation, qv(r)),
                ]
            })
            .collect()
    };
    let a = pose(xyz(0.0, 1.0, 0.0), rz(20.0));
    let b = pose(xyz(2.0, 3.0, 0.0), rz(60.0));
    f.clip("A", a);
    f.clip("B", b);
    f
}

const UPPER: [&str; 3] = ["Spine", "Chest", "Head"];
const LOWER: [&str; 3] = ["Root", "Hips", "LegL"];

fn assert_pose(rig: &Rig, locals: &[Sqt], names: &[&str], t: [f32; 3], deg: f64, what: &str) {
    for name in names {
        let l = locals[joint(rig, name)];
        assert_v3(l.translation, t, &format!("{what}: {name} translation"));
        assert_quat_close(l.rotation, rz(deg), &format!("{what}: {name} rotation"));
    }
}

#[test]
fn subtree_mask_weights_the_named_joint_and_its_descendants() {
    let rig = mask_fixture().node_rig();
    let mask = JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap();
    for name in UPPER {
        assert_eq!(mask.weights[joint(&rig, name)], 1.0, "{name} weight");
    }
    for name in LOWER {
        assert_eq!(mask.weights[joint(&rig, name)], 0.0, "{name} weight");
    }
}

#[test]
fn masked_override_at_full_weight_changes_only_the_subtree() {
    let rig = mask_fixture().node_rig();
    let masks = [JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap()];
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 1.0, Some(0), BlendMode::Override),
    ];
    let locals = blended(&rig, &masks, &layers);
    assert_pose(&rig, &locals, &UPPER, [2.0, 3.0, 0.0], 60.0, "masked B");
    assert_pose(&rig, &locals, &LOWER, [0.0, 1.0, 0.0], 20.0, "unmasked A");
}

#[test]
fn masked_override_at_half_weight_gives_the_halfway_pose() {
    let rig = mask_fixture().node_rig();
    let masks = [JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap()];
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 0.5, Some(0), BlendMode::Override),
    ];
    let locals = blended(&rig, &masks, &layers);
    // Halfway between (0, 1, 0) and (2, 3, 0); the nlerp midpoint of Rz(20°) and Rz(60°) is
    // exactly Rz(40°).
    assert_pose(&rig, &locals, &UPPER, [1.0, 2.0, 0.0], 40.0, "half B");
    assert_pose(&rig, &locals, &LOWER, [0.0, 1.0, 0.0], 20.0, "unmasked A");
}

#[test]
fn inverted_mask_changes_only_the_joints_outside_the_subtree() {
    let rig = mask_fixture().node_rig();
    let upper = JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap();
    let inverted = upper.inverted();
    for name in UPPER {
        assert_eq!(inverted.weights[joint(&rig, name)], 0.0, "{name} weight");
    }
    let masks = [inverted];
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 1.0, Some(0), BlendMode::Override),
    ];
    let locals = blended(&rig, &masks, &layers);
    assert_pose(&rig, &locals, &LOWER, [2.0, 3.0, 0.0], 60.0, "inverted: B");
    assert_pose(&rig, &locals, &UPPER, [0.0, 1.0, 0.0], 20.0, "inverted: A");
}

// ---------------------------------------------------------------------------------------------
// Additive layers and cross-fades
// ---------------------------------------------------------------------------------------------

/// One joint "J" at rest T (1, 0, 0), Rz(5°), S 1. Clips: 0 "base" (T (5, 5, 5), Rz(10°),
/// S 2), 1 "rest" (the rest pose), 2 "turn" (rest × Rz(30°)), 3 "shift" (T (1, 2, 3) only).
fn additive_fixture() -> Rig {
    let mut f = Fixture::new();
    let j = f.node("J", None, trs([1.0, 0.0, 0.0], rz(5.0), [1.0; 3]));
    f.clip(
        "base",
        vec![
            hold(j, Channel::Translation, xyz(5.0, 5.0, 5.0)),
            hold(j, Channel::Rotation, qv(rz(10.0))),
            hold(j, Channel::Scale, xyz(2.0, 2.0, 2.0)),
        ],
    );
    f.clip(
        "rest",
        vec![
            hold(j, Channel::Translation, xyz(1.0, 0.0, 0.0)),
            hold(j, Channel::Rotation, qv(rz(5.0))),
            hold(j, Channel::Scale, xyz(1.0, 1.0, 1.0)),
        ],
    );
    f.clip("turn", vec![hold(j, Channel::Rotation, qv(rz(35.0)))]);
    f.clip(
        "shift",
        vec![hold(j, Channel::Translation, xyz(1.0, 2.0, 3.0))],
    );
    f.node_rig()
}

fn additive_pose(rig: &Rig, clip: u32, weight: f32) -> Sqt {
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(clip, weight, None, BlendMode::Additive),
    ];
    blended(rig, &[], &layers)[0]
}

#[test]
fn additive_rest_pose_clip_changes_nothing() {
    let rig = additive_fixture();
    for w in [1.0, 0.5] {
        let p = additive_pose(&rig, 1, w);
        assert_v3(
            p.translation,
            [5.0, 5.0, 5.0],
            &format!("translation, w = {w}"),
        );
        assert_quat_close(p.rotation, rz(10.0), &format!("rotation, w = {w}"));
        assert_v3(p.scale, [2.0, 2.0, 2.0], &format!("scale, w = {w}"));
    }
}

#[test]
fn additive_rotation_at_full_weight_adds_its_angle() {
    let rig = additive_fixture();
    let p = additive_pose(&rig, 2, 1.0);
    assert_quat_close(p.rotation, rz(40.0), "10° + 30°");
    assert_v3(p.translation, [5.0, 5.0, 5.0], "translation untouched");
}

#[test]
fn additive_rotation_at_half_weight_adds_half_its_angle() {
    let rig = additive_fixture();
    let p = additive_pose(&rig, 2, 0.5);
    assert_quat_close(p.rotation, rz(25.0), "10° + 30° / 2");
}

#[test]
fn additive_translation_adds_its_offset_from_rest() {
    let rig = additive_fixture();
    // Delta from rest: (1, 2, 3) - (1, 0, 0) = (0, 2, 3).
    let full = additive_pose(&rig, 3, 1.0);
    assert_v3(full.translation, [5.0, 7.0, 8.0], "w = 1");
    let half = additive_pose(&rig, 3, 0.5);
    assert_v3(half.translation, [5.0, 6.0, 6.5], "w = 0.5");
    assert_quat_close(full.rotation, rz(10.0), "rotation untouched");
}

#[test]
fn cross_fade_lerps_translation_and_scale_and_nlerps_rotation() {
    let mut f = Fixture::new();
    let j = f.node("J", None, Sqt::IDENTITY);
    let qa = axis_angle([1.0, 0.0, 0.0], 20.0);
    let qb = axis_angle([0.0, 1.0, 0.0], 70.0);
    f.clip(
        "A",
        vec![
            hold(j, Channel::Translation, xyz(1.0, 2.0, 3.0)),
            hold(j, Channel::Rotation, qv(qa)),
            hold(j, Channel::Scale, xyz(1.0, 1.0, 1.0)),
        ],
    );
    // B's rotation key is stored negated: the blend must still take the short way.
    f.clip(
        "B",
        vec![
            hold(j, Channel::Translation, xyz(11.0, -8.0, 3.0)),
            hold(j, Channel::Rotation, -qv(qb)),
            hold(j, Channel::Scale, xyz(2.0, 1.0, 3.0)),
        ],
    );
    let rig = f.node_rig();
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 0.3, None, BlendMode::Override),
    ];
    let p = blended(&rig, &[], &layers)[0];
    assert_v3(
        p.translation,
        [4.0, -1.0, 3.0],
        "lerp(A, B, 0.3) translation",
    );
    assert_v3(p.scale, [1.3, 1.0, 1.6], "lerp(A, B, 0.3) scale");
    // normalize(0.7 qA + 0.3 qB), qA = (sin 10°, 0, 0, cos 10°), qB = (0, sin 35°, 0, cos 35°).
    let (sa, ca) = (10f64.to_radians().sin(), 10f64.to_radians().cos());
    let (sb, cb) = (35f64.to_radians().sin(), 35f64.to_radians().cos());
    let v = [0.7 * sa, 0.3 * sb, 0.0, 0.7 * ca + 0.3 * cb];
    let n = v.iter().map(|c| c * c).sum::<f64>().sqrt();
    let expected = Quat::from_xyzw(
        (v[0] / n) as f32,
        (v[1] / n) as f32,
        (v[2] / n) as f32,
        (v[3] / n) as f32,
    );
    assert_quat_close(p.rotation, expected, "nlerp(A, B, 0.3) rotation");
}

// ---------------------------------------------------------------------------------------------
// Propagation and skin matrices
// ---------------------------------------------------------------------------------------------

/// J0 → J1 → J2, rest identity (locals are given explicitly).
fn chain3() -> Fixture {
    let mut f = Fixture::new();
    let j0 = f.node("J0", None, Sqt::IDENTITY);
    let j1 = f.node("J1", Some(j0), Sqt::IDENTITY);
    f.node("J2", Some(j1), Sqt::IDENTITY);
    f
}

/// J0: T (1, 0, 0) Rz(90°); J1: T (0, 2, 0) S 2; J2: T (1, 0, 0).
fn chain3_locals() -> [Sqt; 3] {
    [
        trs([1.0, 0.0, 0.0], rz(90.0), [1.0; 3]),
        trs([0.0, 2.0, 0.0], Quat::IDENTITY, [2.0; 3]),
        at([1.0, 0.0, 0.0]),
    ]
}

/// By hand: M0 p = (1 - y, x, z); M1 p = M0((0, 2, 0) + 2p) = (-1 - 2y, 2x, 2z);
/// M2 p = M1(p + (1, 0, 0)) = (-1 - 2y, 2 + 2x, 2z).
fn chain3_models() -> [[f32; 16]; 3] {
    [
        affine_from(
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        ),
        affine_from(
            [0.0, 2.0, 0.0],
            [-2.0, 0.0, 0.0],
            [0.0, 0.0, 2.0],
            [-1.0, 0.0, 0.0],
        ),
        affine_from(
            [0.0, 2.0, 0.0],
            [-2.0, 0.0, 0.0],
            [0.0, 0.0, 2.0],
            [-1.0, 2.0, 0.0],
        ),
    ]
}

#[test]
fn propagation_multiplies_local_transforms_down_a_chain() {
    let rig = chain3().node_rig();
    let mut models = [Affine3A::IDENTITY; 3];
    local_to_model(
        &rig.skeleton,
        &Affine3A::IDENTITY,
        &chain3_locals(),
        &mut models,
    );
    for (j, expected) in chain3_models().iter().enumerate() {
        assert_matrix_close(&cols(&models[j]), expected, &format!("model of J{j}"));
    }
}

#[test]
fn propagation_applies_the_instance_world_transform_at_the_root() {
    let rig = chain3().node_rig();
    // world p = 2p + (10, 20, 30): M2' p = 2 M2 p + (10, 20, 30) = (8 - 4y, 24 + 4x, 30 + 4z).
    let world = Affine3A::from_scale_rotation_translation(
        Vec3::splat(2.0),
        Quat::IDENTITY,
        Vec3::new(10.0, 20.0, 30.0),
    );
    let mut models = [Affine3A::IDENTITY; 3];
    local_to_model(&rig.skeleton, &world, &chain3_locals(), &mut models);
    let expected = affine_from(
        [0.0, 4.0, 0.0],
        [-4.0, 0.0, 0.0],
        [0.0, 0.0, 4.0],
        [8.0, 24.0, 30.0],
    );
    assert_matrix_close(&cols(&models[2]), &expected, "model of J2 under world");
}

#[test]
fn evaluated_palette_of_a_node_rig_includes_the_world_transform() {
    // The same chain as rest pose, through evaluate_pose (inverse binds are identity, so the
    // palette is the model matrices). world p = Rz(180°) p + (0, 0, 7).
    let mut f = Fixture::new();
    let l = chain3_locals();
    let j0 = f.node("J0", None, l[0]);
    let j1 = f.node("J1", Some(j0), l[1]);
    f.node("J2", Some(j1), l[2]);
    let rig = f.node_rig();
    let world = Affine3A::from_rotation_translation(rz(180.0), Vec3::new(0.0, 0.0, 7.0));
    let mut models = [Affine3A::IDENTITY; 3];
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    evaluate_pose(&rig, &[], &[], &world, &mut models, &mut palette);
    // Rz(180°)(-1 - 2y, 2 + 2x, 2z) + (0, 0, 7) = (1 + 2y, -2 - 2x, 7 + 2z).
    let expected = affine_from(
        [0.0, -2.0, 0.0],
        [2.0, 0.0, 0.0],
        [0.0, 0.0, 2.0],
        [1.0, -2.0, 7.0],
    );
    assert_matrix_close(&palette[2].to_cols_array(), &expected, "palette of J2");
}

#[test]
fn propagation_includes_a_non_joint_ancestor() {
    // Scene (not a joint: T (0, 0, 5), S 3) → Hip (T (1, 0, 0) Rz(90°)) → Knee (T (0, 2, 0)).
    let mut f = Fixture::new();
    let scene = f.node(
        "Scene",
        None,
        trs([0.0, 0.0, 5.0], Quat::IDENTITY, [3.0; 3]),
    );
    let hip = f.node("Hip", Some(scene), trs([1.0, 0.0, 0.0], rz(90.0), [1.0; 3]));
    let knee = f.node("Knee", Some(hip), at([0.0, 2.0, 0.0]));
    f.skin_with_binds(&[hip, knee], vec![Mat4::IDENTITY; 2]);
    let rigs = bake_rigs(&f.asset).unwrap();
    let rig = &rigs[0];
    assert_eq!(rig.joint_count(), 3, "Scene is pulled into the skeleton");
    let mut models = [Affine3A::IDENTITY; 3];
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    evaluate_pose(
        rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    // Hip p = 3 (1 - y, x, z) + (0, 0, 5); Knee p = Hip(p + (0, 2, 0)) = (-3 - 3y, 3x, 5 + 3z).
    let hip_expected = affine_from(
        [0.0, 3.0, 0.0],
        [-3.0, 0.0, 0.0],
        [0.0, 0.0, 3.0],
        [3.0, 0.0, 5.0],
    );
    let knee_expected = affine_from(
        [0.0, 3.0, 0.0],
        [-3.0, 0.0, 0.0],
        [0.0, 0.0, 3.0],
        [-3.0, 0.0, 5.0],
    );
    assert_matrix_close(&cols(&models[joint(rig, "Hip")]), &hip_expected, "Hip");
    assert_matrix_close(&cols(&models[joint(rig, "Knee")]), &knee_expected, "Knee");
}

#[test]
fn skin_palette_is_model_times_inverse_bind() {
    let mut f = chain3();
    // Inverse binds: J0 T (-1, 0, 0), J1 S 0.5, J2 identity.
    f.skin_with_binds(
        &[0, 1, 2],
        vec![
            Mat4::from_translation(Vec3::new(-1.0, 0.0, 0.0)),
            Mat4::from_scale(Vec3::splat(0.5)),
            Mat4::IDENTITY,
        ],
    );
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let models = chain3_models().map(|m| Affine3A::from_mat4(Mat4::from_cols_array(&m)));
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    skin_palette(&rig.skeleton, &models, &mut palette);
    // P0 p = M0(p - (1, 0, 0)) = (1 - y, x - 1, z); P1 p = M1(p / 2) = (-1 - y, x, z).
    let expected = [
        affine_from(
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, -1.0, 0.0],
        ),
        affine_from(
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
            [-1.0, 0.0, 0.0],
        ),
        chain3_models()[2],
    ];
    for (j, e) in expected.iter().enumerate() {
        assert_matrix_close(&palette[j].to_cols_array(), e, &format!("palette of J{j}"));
    }
}

#[test]
fn rest_pose_palette_is_identity_when_inverse_binds_undo_the_rest_pose() {
    let mut f = Fixture::new();
    let l = chain3_locals();
    let j0 = f.node("J0", None, l[0]);
    let j1 = f.node("J1", Some(j0), l[1]);
    let j2 = f.node("J2", Some(j1), l[2]);
    f.skin(&[j2, j0, j1]);
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let mut models = [Affine3A::IDENTITY; 3];
    let mut palette = [Mat3x4Rows::IDENTITY; 3];
    evaluate_pose(
        &rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let identity = Mat4::IDENTITY.to_cols_array();
    for (j, p) in palette.iter().enumerate() {
        assert_matrix_close(&p.to_cols_array(), &identity, &format!("palette {j}"));
    }
}

/// `n` joints in a chain, each T (0, 1, 0) and Rz(`angle` radians) under the previous one.
fn long_chain(n: usize, angle: f32) -> Fixture {
    let mut f = Fixture::new();
    let q = Quat::from_xyzw(0.0, 0.0, (angle / 2.0).sin(), (angle / 2.0).cos());
    let mut parent = None;
    for i in 0..n {
        parent = Some(f.node(&format!("J{i}"), parent, trs([0.0, 1.0, 0.0], q, [1.0; 3])));
    }
    f
}

#[test]
fn a_chain_of_max_joints_matches_the_closed_form() {
    let n = MAX_JOINTS;
    let angle = 0.02f32;
    let f = long_chain(n, angle);
    let rig = Rig::from_nodes(&f.asset, &[n - 1], "chain").unwrap();
    assert_eq!(rig.joint_count(), n, "joint count");
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(
        &rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    // Joint k's model is (T R)^(k+1): its origin is Σ_{i<k+1} Rz(i a)(0, 1, 0) and its rotation
    // Rz((k+1) a). Σ_{i<n} sin(i a) = sin(n a/2) sin((n-1) a/2) / sin(a/2), and likewise with
    // cos((n-1) a/2) for the cosines.
    let a = f64::from(angle);
    let nf = n as f64;
    let common = (nf * a / 2.0).sin() / (a / 2.0).sin();
    let sum_sin = common * ((nf - 1.0) * a / 2.0).sin();
    let sum_cos = common * ((nf - 1.0) * a / 2.0).cos();
    let (s, c) = ((nf * a).sin() as f32, (nf * a).cos() as f32);
    let expected = affine_from(
        [c, s, 0.0],
        [-s, c, 0.0],
        [0.0, 0.0, 1.0],
        [-sum_sin as f32, sum_cos as f32, 0.0],
    );
    let tip = joint(&rig, &format!("J{}", n - 1));
    assert_matrix_close(&cols(&models[tip]), &expected, "tip model matrix");
}

#[test]
fn a_chain_of_max_joints_plus_one_is_too_many() {
    let n = MAX_JOINTS + 1;
    let f = long_chain(n, 0.02);
    let err = Rig::from_nodes(&f.asset, &[n - 1], "chain").unwrap_err();
    match err.kind {
        ImportErrorKind::TooManyJoints { count, limit, .. } => {
            assert_eq!((count, limit), (n, MAX_JOINTS), "count and limit");
        }
        other => panic!("expected TooManyJoints, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Animated bounds
// ---------------------------------------------------------------------------------------------

/// Root → A → B, Root → C. A skin lists them as [B, Root, C, A]; 200 vertices weighted on B,
/// Root and A (never C). Clip 0 "move" turns, moves and scales everything over t = 0..2 (A
/// travels 30 units away from Root and back) and throws C 1000 units away.
fn skinned_fixture() -> Fixture {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let a = f.node("A", Some(root), at([0.0, 1.0, 0.0]));
    let b = f.node("B", Some(a), at([0.0, 1.0, 0.0]));
    let c = f.node("C", Some(root), at([1.0, 0.0, 0.0]));
    f.skin(&[b, root, c, a]);
    let mut rng = Lcg(0x5eed);
    let mut mesh = RawMesh {
        name: "body".to_string(),
        node: root,
        skin: Some(0),
        ..RawMesh::default()
    };
    for v in 0..200 {
        mesh.positions.push([
            rng.range(-1.5, 1.5),
            rng.range(-0.5, 2.5),
            rng.range(-1.0, 1.0),
        ]);
        // Slots name skin joints 0 (B), 1 (Root), 3 (A) and 2 (C, always weight 0). A quarter
        // of the vertices follow B alone, a quarter Root alone, a quarter A alone; the rest
        // blend all three with random weights, about a third of them zero.
        let mut w = [0.0f32; 4];
        if v % 4 < 3 {
            w[v % 4] = 1.0;
        } else {
            for wk in w.iter_mut().take(3) {
                let r = rng.unit();
                *wk = if r < 0.33 { 0.0 } else { r };
            }
            if w.iter().sum::<f32>() == 0.0 {
                w[0] = 1.0;
            }
        }
        let sum: f32 = w.iter().sum();
        mesh.weights.push(common::eight(w.map(|x| x / sum)));
        mesh.joints.push(common::eight([0, 1, 3, 2]));
        mesh.normals.push([0.0, 0.0, 1.0]);
        mesh.uvs.push([0.0, 0.0]);
    }
    f.asset.meshes.push(mesh);
    f.clip(
        "move",
        vec![
            linear(
                root,
                Channel::Translation,
                &[0.0, 1.0, 2.0],
                &[xyz(0.0, 0.0, 0.0), xyz(2.0, 1.0, 0.0), xyz(-3.0, 0.0, 4.0)],
            ),
            linear(
                a,
                Channel::Translation,
                &[0.0, 1.0, 2.0],
                &[
                    xyz(0.0, 1.0, 0.0),
                    xyz(30.0, 1.0, 0.0),
                    xyz(0.0, -20.0, 10.0),
                ],
            ),
            linear(
                a,
                Channel::Rotation,
                &[0.0, 1.0, 2.0],
                &[
                    qv(Quat::IDENTITY),
                    qv(axis_angle([1.0, 0.0, 0.0], 70.0)),
                    qv(axis_angle([0.6, 0.8, 0.0], -120.0)),
                ],
            ),
            linear(
                b,
                Channel::Rotation,
                &[0.0, 1.0, 2.0],
                &[qv(rz(0.0)), qv(rz(90.0)), qv(rz(200.0))],
            ),
            linear(
                b,
                Channel::Scale,
                &[0.0, 1.0, 2.0],
                &[xyz(1.0, 1.0, 1.0), xyz(1.5, 0.5, 1.0), xyz(1.0, 1.0, 2.0)],
            ),
            hold(c, Channel::Translation, xyz(1000.0, 0.0, 0.0)),
        ],
    );
    f
}

/// Skins every vertex of the fixture's raw mesh by hand: `Σ w palette[joint] v`, with skin
/// joints mapped to skeleton joints by name.
fn skin_by_hand(f: &Fixture, rig: &Rig, palette: &[Mat3x4Rows]) -> Vec<Vec3> {
    let mesh = &f.asset.meshes[0];
    let skin = &f.asset.skins[0];
    let to_joint: Vec<usize> = skin
        .joints
        .iter()
        .map(|&n| joint(rig, &f.asset.nodes[n].name))
        .collect();
    mesh.positions
        .iter()
        .zip(&mesh.joints)
        .zip(&mesh.weights)
        .map(|((p, js), ws)| {
            let mut out = [0.0f32; 3];
            for k in 0..sinew::MAX_INFLUENCES {
                let r = &palette[to_joint[js[k] as usize]].rows;
                for (i, o) in out.iter_mut().enumerate() {
                    *o += ws[k] * (r[i][0] * p[0] + r[i][1] * p[1] + r[i][2] * p[2] + r[i][3]);
                }
            }
            Vec3::from(out)
        })
        .collect()
}

#[test]
fn animated_aabb_contains_every_skinned_vertex() {
    let f = skinned_fixture();
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let n = rig.joint_count();
    let poses = [
        (0.0, Affine3A::IDENTITY),
        (0.3, Affine3A::IDENTITY),
        (0.77, Affine3A::IDENTITY),
        (1.5, Affine3A::IDENTITY),
        (2.0, Affine3A::IDENTITY),
        (
            1.2,
            Affine3A::from_scale_rotation_translation(
                Vec3::new(1.0, 2.0, 0.5),
                axis_angle([0.0, 1.0, 0.0], 33.0),
                Vec3::new(-5.0, 3.0, 1.0),
            ),
        ),
    ];
    for (t, world) in poses {
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        let aabb = evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(0, t)],
            &world,
            &mut models,
            &mut palette,
        );
        assert!(!aabb.is_empty(), "t = {t}: empty box");
        for (v, p) in skin_by_hand(&f, &rig, &palette).iter().enumerate() {
            assert!(
                aabb.contains(*p, 1e-4),
                "t = {t}: vertex {v} at {p} lies outside {:?}..{:?}",
                aabb.min,
                aabb.max
            );
        }
    }
}

#[test]
fn a_joint_without_vertices_does_not_grow_the_animated_aabb() {
    // C has no vertices; the clip puts it 1000 units away, but the box stays near the mesh.
    let f = skinned_fixture();
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    assert!(
        rig.joint_bounds[joint(&rig, "C")].is_empty(),
        "C has no bounds: {:?}",
        rig.joint_bounds[joint(&rig, "C")]
    );
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let aabb = evaluate_pose(
        &rig,
        &[],
        &[Layer::clip(0, 0.5)],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    assert!(
        aabb.max[0] < 100.0,
        "box reaches x = {} (C sits at x = {})",
        aabb.max[0],
        models[joint(&rig, "C")].translation.x
    );
}

#[test]
fn animated_aabb_moves_each_joint_box_and_skips_empty_ones() {
    // Box [0,1]×[0,2]×[0,3] under p ↦ Rz(90°) p + (2, 0, 0) = (2 - y, x, z) spans
    // [0,2]×[0,1]×[0,3]; the empty box is 1000 units away and adds nothing.
    let boxes = [
        Aabb {
            min: [0.0, 0.0, 0.0, 0.0],
            max: [1.0, 2.0, 3.0, 0.0],
        },
        Aabb::EMPTY,
    ];
    let models = [
        Affine3A::from_rotation_translation(rz(90.0), Vec3::new(2.0, 0.0, 0.0)),
        Affine3A::from_translation(Vec3::new(1000.0, 0.0, 0.0)),
    ];
    let aabb = animated_aabb(&boxes, &models);
    assert_vec_close(&aabb.min[..3], &[0.0, 0.0, 0.0], 1e-6, "min");
    assert_vec_close(&aabb.max[..3], &[2.0, 1.0, 3.0], 1e-6, "max");
}

// ---------------------------------------------------------------------------------------------
// CpuBackend
// ---------------------------------------------------------------------------------------------

/// Rig 0: the skinned fixture (4 joints, 1 clip). Rig 1: the mask fixture (6 joints, 2 clips).
/// Mask 0: rig 1's subtree from Spine.
fn backend_fixture() -> CpuBackend {
    let skinned = Rig::from_skin(&skinned_fixture().asset, 0).unwrap();
    let masked = mask_fixture().node_rig();
    let mask = JointMask::from_subtrees(&masked.skeleton, &["Spine"]).unwrap();
    CpuBackend::new(vec![skinned, masked], vec![mask]).unwrap()
}

fn record(rig: u32, offset: u32, layers: &[Layer]) -> InstanceRecord {
    InstanceRecord::new(rig, offset, &Affine3A::IDENTITY, layers).unwrap()
}

/// Evaluates 300 instances of both rigs (mixed times, layers, worlds, gaps between palette
/// ranges) through the backend, records in ascending palette order or in the permutation
/// `k ↦ 7k mod 300`, and compares each with `evaluate_pose`.
fn check_backend_against_evaluate_pose(permute: bool) {
    let mut backend = backend_fixture();
    let masks = [JointMask::from_subtrees(&backend.rigs()[1].skeleton, &["Spine"]).unwrap()];
    let mut instances = Vec::new();
    let mut inputs = Vec::new();
    let mut offset = 0u32;
    for i in 0..300u32 {
        let rig = if i % 3 == 1 { 1 } else { 0 };
        let t = (i as f32 * 0.137) % 2.2;
        let layers: Vec<Layer> = if rig == 0 {
            let mut l = vec![Layer::clip(0, t)];
            if i % 2 == 0 {
                l.push(Layer {
                    clip: 0,
                    time: 2.0 - t,
                    weight: 0.4,
                    mask: None,
                    mode: BlendMode::Additive,
                });
            }
            l
        } else {
            vec![
                Layer::clip(0, t),
                Layer {
                    clip: 1,
                    time: t,
                    weight: (i % 5) as f32 / 4.0,
                    mask: Some(0),
                    mode: BlendMode::Override,
                },
            ]
        };
        let world = Affine3A::from_rotation_translation(
            rz(f64::from(i) * 7.0),
            Vec3::new(i as f32, 0.0, -0.5 * i as f32),
        );
        instances.push(InstanceRecord::new(rig, offset, &world, &layers).unwrap());
        inputs.push((rig, offset, world, layers));
        // Gaps of 0 to 3 entries between instances.
        offset += backend.rigs()[rig as usize].joint_count() as u32 + i % 4;
    }
    if permute {
        let n = instances.len();
        let order: Vec<usize> = (0..n).map(|k| k * 7 % n).collect();
        instances = order.iter().map(|&k| instances[k]).collect();
        inputs = order.iter().map(|&k| inputs[k].clone()).collect();
    }
    let sentinel = Mat3x4Rows {
        rows: [[7.0; 4]; 3],
    };
    let mut palette = vec![sentinel; offset as usize];
    let mut aabbs = vec![Aabb::EMPTY; instances.len()];
    backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap();
    let mut covered = vec![false; palette.len()];
    for (i, (rig, offset, world, layers)) in inputs.iter().enumerate() {
        let r = &backend.rigs()[*rig as usize];
        let n = r.joint_count();
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut expected = vec![Mat3x4Rows::IDENTITY; n];
        let aabb = evaluate_pose(r, &masks, layers, world, &mut models, &mut expected);
        let start = *offset as usize;
        for j in 0..n {
            covered[start + j] = true;
            assert_matrix_close(
                &palette[start + j].to_cols_array(),
                &expected[j].to_cols_array(),
                &format!("instance {i} joint {j}"),
            );
        }
        assert_eq!(aabbs[i], aabb, "instance {i} AABB");
    }
    for (k, p) in palette.iter().enumerate() {
        if !covered[k] {
            assert_eq!(
                *p, sentinel,
                "palette entry {k} between instances was written"
            );
        }
    }
}

#[test]
fn backend_matches_evaluate_pose_for_every_instance() {
    check_backend_against_evaluate_pose(false);
}

#[test]
fn backend_accepts_records_in_any_palette_order() {
    check_backend_against_evaluate_pose(true);
}

#[test]
fn backend_rejects_an_unknown_rig() {
    let mut backend = backend_fixture();
    let instances = [record(2, 0, &[Layer::clip(0, 0.0)])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::NoSuchRig {
            rig: 2,
            rig_count: 2
        }
    );
}

#[test]
fn backend_rejects_an_unknown_clip() {
    let mut backend = backend_fixture();
    let instances = [record(0, 0, &[Layer::clip(1, 0.0)])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::NoSuchClip {
            clip: 1,
            clip_count: 1
        }
    );
}

#[test]
fn backend_rejects_an_unknown_mask() {
    let mut backend = backend_fixture();
    let masked = Layer {
        mask: Some(3),
        ..Layer::clip(0, 0.0)
    };
    let instances = [record(1, 0, &[masked])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::NoSuchMask {
            mask: 3,
            mask_count: 1
        }
    );
}

#[test]
fn backend_rejects_a_mask_of_another_skeleton() {
    // Mask 0 has rig 1's six joints; rig 0 has four.
    let mut backend = backend_fixture();
    let masked = Layer {
        mask: Some(0),
        ..Layer::clip(0, 0.0)
    };
    let instances = [record(0, 0, &[masked])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert!(
        matches!(err, EvalError::NoSuchMask { mask: 0, .. }),
        "expected NoSuchMask for mask 0, got {err:?}"
    );
}

#[test]
fn backend_rejects_a_mask_with_a_nan_weight() {
    // Mask 1 fits rig 1 (six joints) but one weight is NaN: it would poison the pose.
    let mut backend = backend_fixture();
    let mut weights = vec![1.0; 6];
    weights[3] = f32::NAN;
    let bad = backend.add_mask(sinew::JointMask { weights });
    let masked = Layer {
        mask: Some(bad),
        ..Layer::clip(0, 0.0)
    };
    let instances = [record(1, 0, &[masked])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert!(
        matches!(&err, EvalError::BadLayer { reason } if reason.contains(&format!("mask {bad}"))),
        "expected the NaN mask {bad} to be rejected, got {err:?}"
    );
}

#[test]
fn backend_rejects_overlapping_palette_ranges() {
    // Rig 0 has 4 joints: the first instance covers entries 0..4, the second starts at 2.
    let mut backend = backend_fixture();
    let instances = [
        record(0, 0, &[Layer::clip(0, 0.0)]),
        record(0, 2, &[Layer::clip(0, 0.0)]),
    ];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 16];
    let mut aabbs = vec![Aabb::EMPTY; 2];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::PaletteOverlap {
            instance: 1,
            offset: 2
        }
    );
}

#[test]
fn backend_rejects_a_palette_too_small_for_the_last_instance() {
    let mut backend = backend_fixture();
    let instances = [
        record(0, 0, &[Layer::clip(0, 0.0)]),
        record(0, 4, &[Layer::clip(0, 0.0)]),
    ];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 7];
    let mut aabbs = vec![Aabb::EMPTY; 2];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::OutputSize {
            expected: 8,
            found: 7
        }
    );
}

#[test]
fn backend_rejects_an_aabb_slice_of_the_wrong_length() {
    let mut backend = backend_fixture();
    let instances = [
        record(0, 0, &[Layer::clip(0, 0.0)]),
        record(0, 4, &[Layer::clip(0, 0.0)]),
    ];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 8];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::OutputSize {
            expected: 2,
            found: 1
        }
    );
}

#[test]
fn backend_rejects_a_non_finite_layer_time() {
    let mut backend = backend_fixture();
    let instances = [record(0, 0, &[Layer::clip(0, f32::NAN)])];
    let mut palette = vec![Mat3x4Rows::IDENTITY; 4];
    let mut aabbs = vec![Aabb::EMPTY; 1];
    let err = backend
        .evaluate(&instances, &mut palette, &mut aabbs)
        .unwrap_err();
    assert!(
        matches!(err, EvalError::BadLayer { .. }),
        "expected BadLayer, got {err:?}"
    );
}

/// Evaluations of a mixed crowd in rayon pools of 1, 2 and 3 threads give the same palette and
/// boxes, bit for bit: chunks are cut from the instance order alone, never from the thread
/// count, and nothing one thread leaves behind reaches another's results.
#[test]
fn backend_results_are_bitwise_identical_for_any_thread_count() {
    let (rigs, masks, records, palette_len) = common::mixed_crowd(300);
    let mut backend = CpuBackend::new(rigs, masks).unwrap();
    common::assert_same_bits_for_any_thread_count(palette_len, records.len(), |palette, aabbs| {
        backend.evaluate_at(0.25, &records, palette, aabbs).unwrap();
    });
}

// ---------------------------------------------------------------------------------------------
// Retargeting
// ---------------------------------------------------------------------------------------------

/// Rig: Hips → Spine → Head with clip "idle" (Spine Rz 0° → 20° over 1 s). Source: nodes Tail,
/// Hips, Spine with clip "walk": Spine Rz 0° → 80° and Hips (0, 1, 0) → (4, 1, 0) over 2 s,
/// Tail rotation (over 3 s) and scale.
fn retarget_fixture() -> (Rig, RawAsset) {
    let mut f = Fixture::new();
    let hips = f.node("Hips", None, at([0.0, 1.0, 0.0]));
    let spine = f.node("Spine", Some(hips), at([0.0, 0.5, 0.0]));
    f.node(
        "Head",
        Some(spine),
        trs([0.0, 0.3, 0.0], rz(10.0), [1.0; 3]),
    );
    f.clip(
        "idle",
        vec![linear(
            spine,
            Channel::Rotation,
            &[0.0, 1.0],
            &[qv(rz(0.0)), qv(rz(20.0))],
        )],
    );
    let rig = f.node_rig();
    let mut s = Fixture::new();
    let tail = s.node("Tail", None, Sqt::IDENTITY);
    let hips = s.node("Hips", None, at([0.0, 1.0, 0.0]));
    let spine = s.node("Spine", Some(hips), at([0.0, 0.5, 0.0]));
    s.clip(
        "walk",
        vec![
            linear(
                spine,
                Channel::Rotation,
                &[0.0, 2.0],
                &[qv(rz(0.0)), qv(rz(80.0))],
            ),
            linear(
                hips,
                Channel::Translation,
                &[0.0, 2.0],
                &[xyz(0.0, 1.0, 0.0), xyz(4.0, 1.0, 0.0)],
            ),
            linear(
                tail,
                Channel::Rotation,
                &[0.0, 3.0],
                &[qv(rz(0.0)), qv(rz(50.0))],
            ),
            hold(tail, Channel::Scale, xyz(2.0, 2.0, 2.0)),
        ],
    );
    (rig, s.asset)
}

#[test]
fn retarget_appends_clips_matched_by_joint_name() {
    let (rig, source) = retarget_fixture();
    let (out, _) = retarget_clips(&rig, &source).unwrap();
    assert_eq!(out.clips.clip_count(), 2, "clip count");
    let walk = out.clips.find_clip("walk").expect("walk clip") as u32;
    assert_eq!(walk, 1, "walk is appended after idle");
    assert_quat_close(
        sample(&out, walk, "Spine", 1.0).rotation,
        rz(40.0),
        "Spine at t = 1",
    );
    assert_v3(
        sample(&out, walk, "Hips", 1.0).translation,
        [2.0, 1.0, 0.0],
        "Hips at t = 1",
    );
    let head = sample(&out, walk, "Head", 1.0);
    assert_quat_close(head.rotation, rz(10.0), "Head keeps its rest rotation");
    assert_v3(
        head.translation,
        [0.0, 0.3, 0.0],
        "Head keeps its rest translation",
    );
    assert_quat_close(
        sample(&out, 0, "Spine", 0.5).rotation,
        rz(10.0),
        "idle is unchanged",
    );
}

#[test]
fn retarget_reports_unmatched_channels() {
    let (rig, source) = retarget_fixture();
    let (_, report) = retarget_clips(&rig, &source).unwrap();
    let expected = vec![
        UnmatchedChannel {
            clip: 0,
            node: "Tail".to_string(),
            channel: Channel::Rotation,
        },
        UnmatchedChannel {
            clip: 0,
            node: "Tail".to_string(),
            channel: Channel::Scale,
        },
    ];
    assert_eq!(report.unmatched, expected);
}

#[test]
fn retargeted_clip_keeps_the_source_animation_duration() {
    // Tail's 3 s track is dropped, but the animation still lasts 3 s.
    let (rig, source) = retarget_fixture();
    let (out, _) = retarget_clips(&rig, &source).unwrap();
    let durations: Vec<f32> = out.clips.clips().iter().map(|c| c.duration).collect();
    assert_eq!(durations, vec![1.0, 3.0], "clip durations");
}

// ---------------------------------------------------------------------------------------------
// Morph weights
// ---------------------------------------------------------------------------------------------

/// The rig of `assets/synthetic/morph.glb`: node 2 (`Column`) owns weights 0..3, animated by
/// clips `linear`, `step` and `cubic`; node 3 (`ColumnB`) weights 4..7, never animated.
fn morph_rig() -> Rig {
    let asset = sinew::import_file(common::repo().join("assets/synthetic/morph.glb")).unwrap();
    bake_rigs(&asset).unwrap().remove(0)
}

/// The weight vector `evaluate_pose` writes after the joints for `layers`.
fn morph_weights_of(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> Vec<f32> {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    evaluate_pose(
        rig,
        masks,
        layers,
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    sinew::cpu::morph_weights(rig, &palette)
}

/// Node 2's three weights, then node 3's, for `layers` (the padding weights must be zero).
fn node_weights(rig: &Rig, masks: &[JointMask], layers: &[Layer]) -> ([f32; 3], [f32; 3]) {
    let w = morph_weights_of(rig, masks, layers);
    assert_eq!(
        w.len(),
        8,
        "two nodes of three targets, each padded to four"
    );
    assert_eq!((w[3], w[7]), (0.0, 0.0), "padding weights");
    ([w[0], w[1], w[2]], [w[4], w[5], w[6]])
}

fn assert_weights(got: [f32; 3], expected: [f32; 3], what: &str) {
    assert_vec_close(&got, &expected, common::WEIGHT_TOLERANCE, what);
}

#[test]
fn morph_rig_lays_out_each_nodes_weights_in_its_own_chunk() {
    let rig = morph_rig();
    let nodes: Vec<(u32, u32, u32)> = rig
        .morph
        .nodes()
        .iter()
        .map(|n| (n.node, n.first_weight, n.target_count))
        .collect();
    assert_eq!(nodes, [(2, 0, 3), (3, 4, 3)]);
    assert_eq!(rig.morph.weight_count(), 8);
    assert_eq!(rig.palette_entries(), rig.joint_count() + 1);
    assert_eq!(rig.clips.weight_chunk_count(), 2);
    assert_eq!(rig.clips.weight_tracks().len(), 4 * 2, "clips × chunks");
    // Every primitive of both nodes carries its node's weights.
    let firsts: Vec<u32> = rig.meshes.iter().map(|m| m.morph.first_weight).collect();
    assert_eq!(firsts, [0, 0, 4, 4]);
}

#[test]
fn morph_weights_follow_linear_keys_at_and_between_keys() {
    let rig = morph_rig();
    // Keys at 0, 0.5, 1: (0, 0, 0), (1, 0.5, 0), (0, 1, 0.25); clamped outside.
    for (t, expected) in [
        (-1.0, [0.0, 0.0, 0.0]),
        (0.0, [0.0, 0.0, 0.0]),
        (0.25, [0.5, 0.25, 0.0]),
        (0.5, [1.0, 0.5, 0.0]),
        (0.75, [0.5, 0.75, 0.125]),
        (1.0, [0.0, 1.0, 0.25]),
        (3.0, [0.0, 1.0, 0.25]),
    ] {
        let (first, second) = node_weights(&rig, &[], &[Layer::clip(0, t)]);
        assert_weights(first, expected, &format!("linear t={t}"));
        assert_weights(second, [0.0, 0.5, 1.0], &format!("node 3 at t={t}"));
    }
}

#[test]
fn morph_weights_hold_step_keys() {
    let rig = morph_rig();
    // Keys at 0, 0.4, 0.8: (0.2, 0.4, 0.6), (1, 0, 0), (0, 0, 1).
    for (t, expected) in [
        (0.0, [0.2, 0.4, 0.6]),
        (0.39, [0.2, 0.4, 0.6]),
        (0.4, [1.0, 0.0, 0.0]),
        (0.7, [1.0, 0.0, 0.0]),
        (0.8, [0.0, 0.0, 1.0]),
    ] {
        let (first, _) = node_weights(&rig, &[], &[Layer::clip(1, t)]);
        assert_weights(first, expected, &format!("step t={t}"));
    }
}

#[test]
fn morph_weights_follow_the_cubic_spline() {
    let rig = morph_rig();
    // Keys at 0, 0.6, 1.2 (dt 0.6): values v0 = 0, v1 = (1, 0.5, 0.2), v2 = (0.3, 0.3, 0.3);
    // out tangent of key 0 (1, -1, 0.5), in tangent of key 1 (0.5, 0, 0), out tangent of key 1
    // (-0.5, 0.25, 0), in tangent of key 2 zero. Half way (u = 0.5) the Hermite basis is
    // (0.5, 0.125, 0.5, -0.125): p = 0.5 v_k + 0.125 dt m_k + 0.5 v_k+1 - 0.125 dt m_k+1.
    let half = |v0: [f32; 3], m0: [f32; 3], v1: [f32; 3], m1: [f32; 3]| -> [f32; 3] {
        std::array::from_fn(|i| {
            0.5 * v0[i] + 0.125 * 0.6 * m0[i] + 0.5 * v1[i] - 0.125 * 0.6 * m1[i]
        })
    };
    let v0 = [0.0; 3];
    let v1 = [1.0, 0.5, 0.2];
    let v2 = [0.3; 3];
    for (t, expected) in [
        (0.0, v0),
        (0.3, half(v0, [1.0, -1.0, 0.5], v1, [0.5, 0.0, 0.0])),
        (0.6, v1),
        (0.9, half(v1, [-0.5, 0.25, 0.0], v2, [0.0; 3])),
        (1.2, v2),
    ] {
        let (first, _) = node_weights(&rig, &[], &[Layer::clip(2, t)]);
        assert_weights(first, expected, &format!("cubic t={t}"));
    }
    // Worked out by hand: 0.5 + 0.075 - 0.0375 = 0.5375 at t = 0.3.
    let (first, _) = node_weights(&rig, &[], &[Layer::clip(2, 0.3)]);
    assert!(
        (first[0] - 0.5375).abs() < common::WEIGHT_TOLERANCE,
        "{first:?}"
    );
}

#[test]
fn morph_weights_of_a_clip_that_does_not_animate_them_are_the_defaults() {
    let rig = morph_rig();
    for layers in [vec![], vec![Layer::clip(3, 0.4)]] {
        let (first, second) = node_weights(&rig, &[], &layers);
        assert_weights(first, [0.25, 0.0, 0.5], "mesh defaults");
        assert_weights(second, [0.0, 0.5, 1.0], "node's own defaults");
    }
}

#[test]
fn morph_weights_blend_across_layers_like_translations() {
    let rig = morph_rig();
    let defaults = [0.25, 0.0, 0.5];
    let sample = [1.0, 0.5, 0.0]; // `linear` at t = 0.5
    let lerp =
        |w: f32| -> [f32; 3] { std::array::from_fn(|i| defaults[i] * (1.0 - w) + sample[i] * w) };
    let partial = |weight: f32, mask: Option<u32>, mode: BlendMode| Layer {
        weight,
        mask,
        mode,
        ..Layer::clip(0, 0.5)
    };
    let base = Layer::clip(3, 0.0);
    // Override at 30 %: lerp from the layer below.
    let (first, second) = node_weights(&rig, &[], &[base, partial(0.3, None, BlendMode::Override)]);
    assert_weights(first, lerp(0.3), "override 30 %");
    assert_weights(
        second,
        [0.0, 0.5, 1.0],
        "an unanimated node keeps its weights",
    );
    // Full weight takes the sample.
    let (first, _) = node_weights(&rig, &[], &[base, partial(1.0, None, BlendMode::Override)]);
    assert_weights(first, sample, "override 100 %");
    // The mask value of the node's joint scales the layer: node 2 is a skinned mesh node at
    // the scene root, so it follows joint 0.
    assert_eq!(rig.morph.nodes()[0].joint, 0);
    let mut weights = vec![1.0; rig.joint_count()];
    weights[0] = 0.5;
    let masks = [JointMask { weights }];
    let (first, _) = node_weights(
        &rig,
        &masks,
        &[base, partial(0.3, Some(0), BlendMode::Override)],
    );
    assert_weights(first, lerp(0.15), "override 30 % under a 50 % mask");
    // Additive: adds (sample - default) × weight to the layer below.
    let (first, second) = node_weights(&rig, &[], &[base, partial(0.5, None, BlendMode::Additive)]);
    assert_weights(first, [0.625, 0.25, 0.25], "additive 50 %");
    assert_weights(
        second,
        [0.0, 0.5, 1.0],
        "additive of an unanimated node adds nothing",
    );
}

#[test]
fn cpu_backend_writes_morph_weights_after_each_instances_joints() {
    let rig = morph_rig();
    let block = rig.palette_entries() as u32;
    let records: Vec<InstanceRecord> = [0.25f32, 0.75]
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            InstanceRecord::new(
                0,
                i as u32 * block,
                &Affine3A::IDENTITY,
                &[Layer::clip(0, t)],
            )
            .unwrap()
        })
        .collect();
    let mut palette = vec![Mat3x4Rows::IDENTITY; 2 * block as usize];
    let mut aabbs = [Aabb::EMPTY; 2];
    CpuBackend::new(vec![rig.clone()], Vec::new())
        .unwrap()
        .evaluate(&records, &mut palette, &mut aabbs)
        .unwrap();
    for (i, expected) in [[0.5, 0.25, 0.0], [0.5, 0.75, 0.125]].iter().enumerate() {
        let at = i * block as usize;
        let w = sinew::cpu::morph_weights(&rig, &palette[at..at + block as usize]);
        assert_weights([w[0], w[1], w[2]], *expected, &format!("instance {i}"));
    }
    // A palette one entry short of the second block is refused.
    let mut short = vec![Mat3x4Rows::IDENTITY; 2 * block as usize - 1];
    let err = CpuBackend::new(vec![rig], Vec::new())
        .unwrap()
        .evaluate(&records, &mut short, &mut aabbs)
        .unwrap_err();
    assert!(matches!(err, EvalError::OutputSize { .. }), "{err}");
}

#[test]
fn retargeted_clips_keep_and_bring_morph_weight_tracks() {
    let rig = morph_rig();
    let asset = sinew::import_file(common::repo().join("assets/synthetic/morph.glb")).unwrap();
    let (out, _) = retarget_clips(&rig, &asset).unwrap();
    assert_eq!(out.clips.clip_count(), 8);
    // The rig's own `linear` (clip 0) and the one brought in again by node name (clip 4).
    for clip in [0, 4] {
        let (first, second) = node_weights(&out, &[], &[Layer::clip(clip, 0.25)]);
        assert_weights(first, [0.5, 0.25, 0.0], &format!("clip {clip}"));
        assert_weights(second, [0.0, 0.5, 1.0], &format!("clip {clip} node 3"));
    }
    let (first, _) = node_weights(&out, &[], &[Layer::clip(6, 0.3)]);
    assert!(
        (first[0] - 0.5375).abs() < common::WEIGHT_TOLERANCE,
        "{first:?}"
    );
}

#[test]
fn animated_bounds_hold_every_morphed_vertex() {
    let rig = morph_rig();
    let block = rig.palette_entries();
    for (clip, t) in [(0, 0.5), (0, 1.0), (1, 0.9), (2, 0.6), (3, 0.2)] {
        let world = Affine3A::from_rotation_y(0.4);
        let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
        let mut palette = vec![Mat3x4Rows::IDENTITY; block];
        let aabb = evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(clip, t)],
            &world,
            &mut models,
            &mut palette,
        );
        let mut outside = 0.0f32;
        for mesh in &rig.meshes {
            for v in 0..mesh.vertex_count() {
                let (p, n) = sinew::render::morph_vertex(
                    mesh,
                    v,
                    &palette,
                    rig.joint_count(),
                    Vec3::from(mesh.positions[v]),
                    Vec3::from(mesh.normals[v]),
                );
                let skinned = sinew::render::skin_vertex_linear(
                    &palette[..rig.joint_count()],
                    mesh.joints[v],
                    mesh.weights[v],
                    p,
                    n,
                );
                for i in 0..3 {
                    let q = skinned.position[i];
                    outside = outside.max(aabb.min[i] - q).max(q - aabb.max[i]);
                }
            }
        }
        assert!(
            outside <= common::AABB_TOLERANCE,
            "clip {clip} t={t}: a morphed vertex lies {outside} outside {aabb:?}"
        );
    }
}

#[test]
fn a_file_that_animates_only_morph_weights_bakes_a_node_rig_that_evaluates_them() {
    let mut f = Fixture::new();
    let face = f.node("Face", None, Sqt::IDENTITY);
    f.asset.morph_nodes.push(sinew::import::RawMorphNode {
        node: face,
        mesh: 0,
        weights: vec![0.2, 0.4],
    });
    f.asset.clips.push(RawClip {
        name: "blink".into(),
        tracks: Vec::new(),
        weights: vec![sinew::import::RawWeightTrack {
            target: face,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0],
            target_count: 2,
            values: vec![0.0, 0.0, 1.0, 0.5],
        }],
    });
    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 1, "one node rig over the animated node");
    let rig = &rigs[0];
    assert_eq!(
        rig.clips.clips()[0].duration,
        1.0,
        "the weight keys set the duration"
    );
    let node = rig.morph.node_of(face).unwrap();
    assert_eq!(
        rig.skeleton.source_nodes()[node.joint as usize],
        face as u32
    );
    let w = morph_weights_of(rig, &[], &[Layer::clip(0, 0.5)]);
    assert_vec_close(
        &w,
        &[0.5, 0.25, 0.0, 0.0],
        common::WEIGHT_TOLERANCE,
        "t = 0.5",
    );
    let w = morph_weights_of(rig, &[], &[]);
    assert_vec_close(
        &w,
        &[0.2, 0.4, 0.0, 0.0],
        common::WEIGHT_TOLERANCE,
        "defaults",
    );
    // The pose report lists the node's weights though the file has no skin.
    let request = sinew::report::PoseRequest {
        clip: Some((0, vec![0.5])),
        nodes: sinew::report::NodeSelection::None,
    };
    let report =
        sinew::report::pose_report(&f.asset, &request, &mut sinew::report::CpuPose).unwrap();
    let morph = report.morph_weights.unwrap();
    assert_eq!(morph.nodes, vec![face]);
    assert_vec_close(
        &morph.frames[0].weights[0],
        &[0.5, 0.25],
        common::WEIGHT_TOLERANCE,
        "reported",
    );
}

/// A looping layer over a zero-length clip (a one-key pose, period 0) has no cycles to count:
/// GPU-style root motion moves nothing instead of turning the world into NaN.
#[test]
fn root_motion_over_a_zero_length_loop_moves_nothing() {
    let asset = sinew::import_file(common::repo().join("assets/humanoid.glb")).unwrap();
    let rig = sinew::bake_rigs(&asset).unwrap().remove(0);
    let hips = rig.skeleton.find_joint("Hips").unwrap() as u32;
    let layer = sinew::Layer::clip(1, 0.0).to_record().with_clock(
        0.0,
        0.0,
        1.0,
        sinew::TimeWrap::Loop,
        0.0,
    );
    let mut record = sinew::InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
    record.layer_count = 1;
    record.layers[0] = layer;
    record.flags =
        hips | sinew::InstanceRecord::HOLD_ROOT_XZ | sinew::InstanceRecord::gpu_root_motion(1);
    let before = record.world;
    sinew::cpu::advance_root_motion(&rig, &mut record, 0.25, 1.75);
    assert!(
        record.world.rows.iter().flatten().all(|v| v.is_finite()),
        "world {:?}",
        record.world
    );
    assert_eq!(record.world, before, "a pose does not move");
}

// ---------------------------------------------------------------------------------------------
// Skins sharing one skeleton
// ---------------------------------------------------------------------------------------------

/// A one-vertex mesh of `skin` fully weighted to skin joint `joint`.
fn point_mesh(name: &str, skin: usize, joint: u16) -> RawMesh {
    RawMesh {
        name: name.to_string(),
        skin: Some(skin),
        positions: vec![[0.0; 3]; 3],
        normals: vec![[0.0; 3]; 3],
        uvs: vec![[0.0; 2]; 3],
        joints: vec![common::eight([joint, 0, 0, 0]); 3],
        weights: vec![common::eight([1.0, 0.0, 0.0, 0.0]); 3],
        indices: vec![0, 1, 2],
        ..RawMesh::default()
    }
}

#[test]
fn two_skins_binding_one_node_differently_share_one_rig_with_an_alias_joint() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let a = f.node("A", Some(root), trs([0.0, 1.0, 0.0], rz(90.0), [1.0; 3]));
    let b = f.node("B", Some(a), at([0.0, 1.0, 0.0]));
    f.skin(&[a, b]);
    let alias_bind = Mat4::from_translation(Vec3::new(-5.0, 0.0, 0.0));
    let root_bind = Mat4::from_translation(Vec3::new(0.0, 0.0, 3.0));
    f.skin_with_binds(&[b, root], vec![alias_bind, root_bind]);
    f.asset.meshes = vec![point_mesh("first", 0, 1), point_mesh("second", 1, 0)];

    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 1, "one skeleton, one rig");
    let rig = &rigs[0];
    assert_eq!(rig.joint_count(), 4, "Root, A, B and B's alias");
    assert_eq!(rig.skins.len(), 2);
    assert_eq!(
        rig.skins.iter().map(|s| s.index).collect::<Vec<_>>(),
        [0, 1]
    );
    let (s0, s1) = (&rig.skins[0].joints, &rig.skins[1].joints);
    assert_ne!(s0[1], s1[0], "B is bound twice with different binds");
    assert_eq!(rig.meshes[0].joints[0][0], s0[1]);
    assert_eq!(rig.meshes[1].joints[0][0], s1[0]);

    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(
        rig,
        &[],
        &[],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let model_b = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
        * Mat4::from_quat(rz(90.0))
        * Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let expected = [
        (s0[1], Mat4::IDENTITY, "skin 0 joint B"),
        (s1[0], model_b * alias_bind, "skin 1 joint B (alias)"),
        (s1[1], root_bind, "skin 1 joint Root"),
    ];
    for (j, m, what) in expected {
        assert_matrix_close(
            &palette[j as usize].to_cols_array(),
            &m.to_cols_array(),
            what,
        );
    }
}

#[test]
fn skins_under_different_roots_stay_separate_rigs() {
    let mut f = Fixture::new();
    let r0 = f.node("R0", None, at([0.0, 0.0, 0.0]));
    let r1 = f.node("R1", None, at([1.0, 0.0, 0.0]));
    f.skin(&[r0]);
    f.skin(&[r1]);
    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(rigs.len(), 2);
    assert_eq!(rigs[1].skins[0].index, 1);
}

#[test]
fn skins_too_many_joints_together_are_split_into_one_rig_each() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    let half = MAX_JOINTS / 2 + 10;
    let first: Vec<usize> = (0..half)
        .map(|i| f.node(&format!("a{i}"), Some(root), at([i as f32, 0.0, 0.0])))
        .collect();
    let second: Vec<usize> = (0..half)
        .map(|i| f.node(&format!("b{i}"), Some(root), at([0.0, i as f32, 0.0])))
        .collect();
    f.skin(&first);
    f.skin(&second);
    let rigs = bake_rigs(&f.asset).unwrap();
    assert_eq!(
        rigs.len(),
        2,
        "{} joints together exceed the limit",
        2 * half + 1
    );
    for (s, rig) in rigs.iter().enumerate() {
        assert_eq!(rig.joint_count(), half + 1);
        assert_eq!(rig.skins.len(), 1);
        assert_eq!(rig.skins[0].index, s);
    }
}

#[test]
fn robot_expressive_bakes_to_one_rig_with_both_skinned_meshes() {
    let Some(dir) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(dir.join("gltf/RobotExpressive.glb")).unwrap();
    assert_eq!(asset.skins.len(), 2);
    let rigs = bake_rigs(&asset).unwrap();
    assert_eq!(rigs.len(), 1, "two skins on one skeleton");
    assert_eq!(rigs[0].skins.len(), 2);
    let skinned = asset.meshes.len();
    assert_eq!(rigs[0].meshes.len(), skinned);
    assert!(rigs[0].joint_count() <= MAX_JOINTS);
}

#[test]
fn recursive_skeletons_bakes_every_skin_within_the_joint_limit() {
    let Some(dir) = common::shared() else {
        return;
    };
    let asset = sinew::import_file(dir.join("gltf/RecursiveSkeletons.glb")).unwrap();
    let rigs = bake_rigs(&asset).unwrap();
    let mut skins: Vec<usize> = rigs
        .iter()
        .flat_map(|r| r.skins.iter().map(|s| s.index))
        .collect();
    skins.sort_unstable();
    assert_eq!(skins, (0..asset.skins.len()).collect::<Vec<_>>());
    for rig in &rigs {
        assert!(rig.joint_count() <= MAX_JOINTS, "{}", rig.name);
        assert_eq!(rig.clips.joint_count(), rig.joint_count());
    }
}

#[test]
fn a_rig_of_no_skins_is_refused() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, at([0.0, 0.0, 0.0]));
    f.skin(&[root]);
    let err = Rig::from_skins(&f.asset, &[]).unwrap_err();
    assert!(
        matches!(err.kind, ImportErrorKind::NotFound { .. }),
        "{err}"
    );
}

#[test]
fn a_vertex_without_weights_moves_rigidly_with_the_instance() {
    let mut f = Fixture::new();
    let root = f.node("Root", None, trs([2.0, 0.0, 0.0], rz(30.0), [1.0; 3]));
    let arm = f.node("Arm", Some(root), at([0.0, 1.0, 0.0]));
    f.skin(&[root, arm]);
    let mut mesh = point_mesh("body", 0, 1);
    let bind = [1.0, 2.0, 3.0];
    mesh.positions[2] = bind;
    mesh.weights[2] = [0.0; 8];
    f.asset.meshes = vec![mesh];
    let rigs = bake_rigs(&f.asset).unwrap();
    let rig = &rigs[0];
    assert_eq!(rig.joint_count(), 3, "Root, Arm and the model joint");
    let n = rig.joint_count();
    let world = Affine3A::from_rotation_translation(rz(45.0), Vec3::new(10.0, -1.0, 0.5));
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(rig, &[], &[], &world, &mut models, &mut palette);
    let m = &rig.meshes[0];
    let skinned = sinew::render::skin_vertex_linear(
        &palette,
        m.joints[2],
        m.weights[2],
        Vec3::from(bind),
        Vec3::Z,
    );
    assert_vec_close(
        &skinned.position.to_array(),
        &world.transform_point3(Vec3::from(bind)).to_array(),
        common::MATRIX_TOLERANCE,
        "vertex without weights",
    );
}

// ---------------------------------------------------------------------------------------------
// Eight influences per vertex (synthetic/influences.glb: 5 to 8 per vertex in mesh 0, the
// strongest 8 of 9 to 12 in mesh 1).

fn influences_rig() -> Rig {
    let path = common::repo().join("assets/synthetic/influences.glb");
    sinew::bake_rigs(&sinew::import_file(path).unwrap())
        .unwrap()
        .remove(0)
}

/// The palette of `rig` at `t` of clip 0 under a rotated, moved and uniformly scaled world.
fn influences_palette(rig: &Rig, t: f32) -> Vec<Mat3x4Rows> {
    let n = rig.joint_count();
    let world = Affine3A::from_scale_rotation_translation(
        Vec3::splat(1.5),
        axis_angle([0.3, 1.0, 0.2], 40.0),
        Vec3::new(2.0, -1.0, 0.5),
    );
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    evaluate_pose(
        rig,
        &[],
        &[Layer::clip(0, t)],
        &world,
        &mut models,
        &mut palette,
    );
    palette
}

fn assert_skinned_close(got: Vec3, expected: Vec3, what: &str) {
    for i in 0..3 {
        assert!(
            (got[i] - expected[i]).abs() <= common::SKIN_TOLERANCE * expected[i].abs().max(1.0),
            "{what}: {got} vs {expected}"
        );
    }
}

#[test]
fn eight_influence_linear_skinning_is_the_weighted_sum_of_transformed_points() {
    let rig = influences_rig();
    let mut most = 0;
    for t in [0.2, 0.65] {
        let palette = influences_palette(&rig, t);
        for (m, mesh) in rig.meshes.iter().enumerate() {
            for v in 0..mesh.vertex_count() {
                let p = Vec3::from(mesh.positions[v]);
                let mut expected = Vec3::ZERO;
                for k in 0..8 {
                    let joint = mesh.joints[v][k] as usize;
                    expected += mesh.weights[v][k] * palette[joint].to_affine().transform_point3(p);
                }
                most = most.max(mesh.weights[v].iter().filter(|&&w| w > 0.0).count());
                let got = sinew::render::skin_vertex_linear(
                    &palette,
                    mesh.joints[v],
                    mesh.weights[v],
                    p,
                    Vec3::from(mesh.normals[v]),
                );
                assert_skinned_close(
                    got.position,
                    expected,
                    &format!("t {t} mesh {m} vertex {v}"),
                );
            }
        }
    }
    assert_eq!(most, 8, "vertices with eight influences");
}

/// Dual-quaternion skinning written out with glam's quaternions: rotations blended along the
/// heaviest influence's hemisphere, translation from the blended dual part, scale blended
/// linearly.
fn dual_quat_by_hand(
    palette: &[Mat3x4Rows],
    joints: &[u16; 8],
    weights: &[f32; 8],
    p: Vec3,
) -> Vec3 {
    let parts: Vec<(Vec3, Quat, Vec3)> = joints
        .iter()
        .map(|&j| {
            palette[j as usize]
                .to_affine()
                .to_scale_rotation_translation()
        })
        .collect();
    let heaviest = (0..8).fold(0, |h, k| if weights[k] > weights[h] { k } else { h });
    let pivot = parts[heaviest].1;
    let (mut real, mut dual) = (Vec4::ZERO, Vec4::ZERO);
    let mut scale = Vec3::ZERO;
    for ((s, r, t), &w) in parts.iter().zip(weights) {
        let w_signed = if pivot.dot(*r) < 0.0 { -w } else { w };
        real += Vec4::from(*r) * w_signed;
        dual += Vec4::from(Quat::from_xyzw(t.x, t.y, t.z, 0.0) * *r) * (0.5 * w_signed);
        scale += *s * w;
    }
    let len = real.length();
    let r = Quat::from_vec4(real / len);
    let d = Quat::from_vec4(dual / len);
    let t = (d * r.conjugate()) * 2.0;
    r * (p * scale / weights.iter().sum::<f32>()) + Vec3::new(t.x, t.y, t.z)
}

#[test]
fn eight_influence_dual_quaternion_skinning_matches_a_hand_computation() {
    let rig = influences_rig();
    for t in [0.2, 0.65] {
        let palette = influences_palette(&rig, t);
        for (m, mesh) in rig.meshes.iter().enumerate() {
            for v in 0..mesh.vertex_count() {
                let p = Vec3::from(mesh.positions[v]);
                let expected = dual_quat_by_hand(&palette, &mesh.joints[v], &mesh.weights[v], p);
                let got = sinew::render::skin_vertex_dual_quat(
                    &palette,
                    mesh.joints[v],
                    mesh.weights[v],
                    p,
                    Vec3::from(mesh.normals[v]),
                );
                assert_skinned_close(
                    got.position,
                    expected,
                    &format!("t {t} mesh {m} vertex {v}"),
                );
            }
        }
    }
}

#[test]
fn animated_aabb_holds_every_eight_influence_vertex() {
    let rig = influences_rig();
    let n = rig.joint_count();
    for t in [0.0, 0.3, 0.8] {
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        let world = Affine3A::from_rotation_z(0.7);
        let aabb = evaluate_pose(
            &rig,
            &[],
            &[Layer::clip(0, t)],
            &world,
            &mut models,
            &mut palette,
        );
        for mesh in &rig.meshes {
            for v in 0..mesh.vertex_count() {
                let s = sinew::render::skin_vertex_linear(
                    &palette,
                    mesh.joints[v],
                    mesh.weights[v],
                    Vec3::from(mesh.positions[v]),
                    Vec3::Y,
                );
                assert!(
                    aabb.contains(s.position, common::AABB_TOLERANCE),
                    "t {t} vertex {v} at {} outside {aabb:?}",
                    s.position
                );
            }
        }
    }
}

#[test]
fn a_joint_named_only_in_influence_slot_six_bounds_its_vertices() {
    // Vertex 0 gets a third of its weight from C (skin joint 2) in slot 6; C is thrown 1000
    // units away, so the box must reach towards it.
    let mut f = skinned_fixture();
    let mesh = &mut f.asset.meshes[0];
    mesh.joints[0] = [0, 1, 3, 2, 0, 2, 0, 0];
    mesh.weights[0] = [0.4, 0.3, 0.0, 0.0, 0.0, 0.3, 0.0, 0.0];
    let rig = Rig::from_skin(&f.asset, 0).unwrap();
    let c = joint(&rig, "C");
    assert!(!rig.meshes[0].joint_bounds[c].is_empty(), "C has bounds");
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let aabb = evaluate_pose(
        &rig,
        &[],
        &[Layer::clip(0, 0.5)],
        &Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let p = skin_by_hand(&f, &rig, &palette)[0];
    assert!(p.x > 200.0, "vertex 0 follows C: {p}");
    assert!(aabb.contains(p, 1e-4), "vertex 0 at {p} outside {aabb:?}");
}

// ---------------------------------------------------------------------------------------------
// Bytes read per joint
// ---------------------------------------------------------------------------------------------

/// Evaluates one instance of `rig` playing clip 0 at `time` in one and then two layers on
/// `backend` (the top one at half weight), and asserts its read count is
/// `instance + layers × layer` bytes; then with the top layer at full weight, which hides the
/// one under it: `instance + layer`.
fn assert_reads_of_one_and_two_layers(
    backend: &mut CpuBackend,
    rig: &Rig,
    time: f32,
    instance: usize,
    layer: usize,
) {
    let half = Layer {
        weight: 0.5,
        ..Layer::clip(0, time)
    };
    let cases = [
        (vec![Layer::clip(0, time)], 1),
        (vec![Layer::clip(0, time), half], 2),
        (vec![Layer::clip(0, time); 2], 1),
    ];
    for (clips, layers) in cases {
        let record = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &clips).unwrap();
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        let mut aabbs = [Aabb::EMPTY];
        backend
            .evaluate(&[record], &mut palette, &mut aabbs)
            .unwrap();
        assert_eq!(
            backend.bytes_read_per_joint(),
            (instance + layers * layer) as f64,
            "{} layers, {layers} sampled",
            clips.len()
        );
    }
}

#[test]
fn bytes_read_per_joint_is_the_hand_count_of_one_and_two_layers() {
    use sinew::bake::TrackDesc;
    let mut f = Fixture::new();
    let j = f.node("J", None, at([0.0; 3]));
    f.clip(
        "walk",
        vec![linear(
            j,
            Channel::Translation,
            &[0.0, 1.0, 2.0],
            &[xyz(0.0, 0.0, 0.0), xyz(1.0, 0.0, 0.0), xyz(2.0, 0.0, 0.0)],
        )],
    );
    let rig = f.node_rig();
    let mut backend = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    assert_eq!(backend.bytes_read_per_joint(), 0.0);
    let desc = size_of::<TrackDesc>();
    // Record; parent, rest SQT, inverse bind, bounds of the one joint.
    let instance = size_of::<InstanceRecord>() + 2 + size_of::<Sqt>() + 64 + size_of::<Aabb>();
    // Translation: descriptor, first, last and the guessed pair of times, two values;
    // rotation and scale: one-key rest tracks, descriptor and one value.
    let layer = desc + 4 * 4 + 2 * 16 + 2 * (desc + 16);
    assert_reads_of_one_and_two_layers(&mut backend, &rig, 0.5, instance, layer);
}

#[test]
fn bytes_read_per_joint_counts_compressed_constants() {
    use sinew::bake::{ChannelCode, CompressedClip};
    let rig = additive_fixture();
    let mut backend = CpuBackend::with_compressed(vec![rig.clone()], Vec::new()).unwrap();
    let instance = size_of::<InstanceRecord>() + 2 + size_of::<Sqt>() + 64 + size_of::<Aabb>();
    // Clip "base" holds constants: per channel the clip record and code, then 3 + 4 + 3 words.
    let head = size_of::<CompressedClip>() + size_of::<ChannelCode>();
    let layer = 3 * head + (3 + 4 + 3) * 4;
    assert_reads_of_one_and_two_layers(&mut backend, &rig, 0.0, instance, layer);
}
