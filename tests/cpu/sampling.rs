//! Sampling

use glam::{Quat, Vec4};
use sinew::{Channel, Interpolation, Rig, Sqt};

use super::common::assert_quat_close;
use super::fixtures::{
    Fixture, assert_unit, assert_v3, assert_v4, axis_angle, linear, qv, rz, sample, track, trs, xyz,
};

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
