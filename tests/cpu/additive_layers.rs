//! Additive layers and cross-fades

use glam::Quat;
use sinew::{BlendMode, Channel, Rig, Sqt};

use super::common::assert_quat_close;
use super::fixtures::{
    Fixture, additive_fixture, assert_v3, axis_angle, blended, hold, layer, qv, rz, xyz,
};

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
