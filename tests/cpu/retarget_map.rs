//! Retarget and mirror maps: a clip played on a body of other proportions, bone names or rest
//! frames keeps every matched joint's world rotation change from rest, and the root's motion is
//! scaled by the ratio of hip heights; a mirrored pose mirrors world positions, and mirroring
//! twice changes nothing.

use glam::{Affine3A, Quat, Vec3};
use sinew::baked::retarget_map::{HumanoidBone, MatchRule, RetargetMap, UserMap};
use sinew::cpu::{retarget_pose, retarget_sample, sample_clip};
use sinew::math::MirrorPlane;
use sinew::{Channel, Rig, Skeleton, Sqt};

use super::common::{Rng, assert_quat_close};
use super::fixtures::{Fixture, assert_v3, linear, qv};

/// Joint names of the test biped: (Mixamo, Unreal), parent index, world position at rest for
/// hip height 1 (legs scaled by the hip height), and the arm it is on (-1 right, 1 left).
type BipedJoint = (&'static str, &'static str, Option<usize>, [f32; 3], f32);

const BIPED: [BipedJoint; 19] = [
    ("Hips", "pelvis", None, [0.0, 1.0, 0.0], 0.0),
    ("Spine", "spine_01", Some(0), [0.0, 1.1, 0.0], 0.0),
    ("Spine1", "spine_03", Some(1), [0.0, 1.3, 0.0], 0.0),
    ("Neck", "neck_01", Some(2), [0.0, 1.5, 0.0], 0.0),
    ("Head", "head", Some(3), [0.0, 1.6, 0.0], 0.0),
    ("LeftArm", "upperarm_l", Some(2), [0.2, 1.45, 0.0], 1.0),
    ("LeftForeArm", "lowerarm_l", Some(5), [0.5, 1.45, 0.0], 1.0),
    ("LeftHand", "hand_l", Some(6), [0.75, 1.45, 0.0], 1.0),
    ("RightArm", "upperarm_r", Some(2), [-0.2, 1.45, 0.0], -1.0),
    (
        "RightForeArm",
        "lowerarm_r",
        Some(8),
        [-0.5, 1.45, 0.0],
        -1.0,
    ),
    ("RightHand", "hand_r", Some(9), [-0.75, 1.45, 0.0], -1.0),
    ("LeftUpLeg", "thigh_l", Some(0), [0.1, 0.95, 0.0], 0.0),
    ("LeftLeg", "calf_l", Some(11), [0.1, 0.5, 0.0], 0.0),
    ("LeftFoot", "foot_l", Some(12), [0.1, 0.08, 0.0], 0.0),
    ("LeftToeBase", "ball_l", Some(13), [0.1, 0.0, 0.12], 0.0),
    ("RightUpLeg", "thigh_r", Some(0), [-0.1, 0.95, 0.0], 0.0),
    ("RightLeg", "calf_r", Some(15), [-0.1, 0.5, 0.0], 0.0),
    ("RightFoot", "foot_r", Some(16), [-0.1, 0.08, 0.0], 0.0),
    ("RightToeBase", "ball_r", Some(17), [-0.1, 0.0, 0.12], 0.0),
];

/// How a test body differs from the plain source.
#[derive(Clone, Copy)]
struct Body {
    /// Unreal bone names instead of Mixamo's.
    unreal: bool,
    /// Hip height (leg joints' heights scale with it; the upper body moves up with it).
    hips: f32,
    /// Arms rotated down by this many degrees (0: T-pose, 45: A-pose).
    arms_down: f64,
    /// Every joint's local frame turned by a different rotation (world positions unchanged).
    frames: bool,
}

/// The plain source: Mixamo names, hips at 1, T-pose, unturned frames.
const SOURCE: Body = Body {
    unreal: false,
    hips: 1.0,
    arms_down: 0.0,
    frames: false,
};

/// A rotation by `deg` degrees about `axis` (any length).
fn turn(axis: [f32; 3], deg: f32) -> Quat {
    Quat::from_axis_angle(Vec3::from(axis).normalize(), deg.to_radians())
}

/// World rest positions and rotations of `body`.
fn body_rest(body: Body) -> Vec<(Vec3, Quat)> {
    let mut rest: Vec<(Vec3, Quat)> = Vec::new();
    for (j, &(_, _, parent, p, arm)) in BIPED.iter().enumerate() {
        let mut pos = Vec3::from(p);
        if pos.y <= 1.0 && arm == 0.0 && j != 0 {
            pos.y *= body.hips;
        } else {
            pos.y += body.hips - 1.0;
        }
        let mut rot = Quat::IDENTITY;
        if arm != 0.0 {
            let down = Quat::from_rotation_z((-arm as f64 * body.arms_down).to_radians() as f32);
            rot = down;
            if let Some(p) = parent.filter(|&p| BIPED[p].4 != 0.0) {
                // Below the shoulder: along the turned arm from its parent.
                let (pp, _) = rest[p];
                let length = (Vec3::from(BIPED[j].3) - Vec3::from(BIPED[p].3)).length();
                pos = pp + down * Vec3::new(arm * length, 0.0, 0.0);
            }
        }
        if body.frames {
            rot *= turn([1.0, 2.0, 0.5 + j as f32], 25.0 + 7.0 * j as f32);
        }
        rest.push((pos, rot));
    }
    rest
}

/// The body as a rig with one clip: every joint turns from its rest by its own rotation over
/// 1 s, and the hips move from rest by (0.5, 0.1, 1).
fn biped(body: Body) -> Rig {
    let rest = body_rest(body);
    let mut f = Fixture::new();
    let mut tracks = Vec::new();
    for (j, &(mixamo, unreal, parent, _, _)) in BIPED.iter().enumerate() {
        let (pos, rot) = rest[j];
        let (pp, pr) = parent.map_or((Vec3::ZERO, Quat::IDENTITY), |p| rest[p]);
        let local = Sqt {
            translation: pr.inverse() * (pos - pp),
            rotation: pr.inverse() * rot,
            scale: Vec3::ONE,
        };
        let name = if body.unreal { unreal } else { mixamo };
        let node = f.node(name, parent, local);
        let turn = turn([0.3, 1.0, -0.7 + 0.1 * j as f32], 10.0 + 3.0 * j as f32);
        tracks.push(linear(
            node,
            Channel::Rotation,
            &[0.0, 1.0],
            &[qv(local.rotation), qv(local.rotation * turn)],
        ));
        if j == 0 {
            let moved = local.translation + Vec3::new(0.5, 0.1, 1.0);
            tracks.push(linear(
                node,
                Channel::Translation,
                &[0.0, 1.0],
                &[local.translation.extend(0.0), moved.extend(0.0)],
            ));
        }
    }
    f.clip("move", tracks);
    f.node_rig()
}

/// Model matrices of `locals` on `skeleton`.
fn models(skeleton: &Skeleton, locals: &[Sqt]) -> Vec<Affine3A> {
    let mut out: Vec<Affine3A> = Vec::new();
    for (j, local) in locals.iter().enumerate() {
        let parent = skeleton.parents()[j] as usize;
        let m = out
            .get(parent)
            .map_or(local.to_affine(), |p| *p * local.to_affine());
        out.push(m);
    }
    out
}

fn rotation(m: &Affine3A) -> Quat {
    m.to_scale_rotation_translation().1
}

/// Plays the source's clip on the target through `map` at several times and checks that every
/// matched target joint turns from its rest in world space as its source joint does, and that
/// the hips move by the source's motion times `ratio`.
fn assert_world_deltas_kept(source: &Rig, target: &Rig, map: &RetargetMap, ratio: f32) {
    let (s, t) = (&source.skeleton, &target.skeleton);
    let s_rest = models(s, s.rest_pose());
    let t_rest = models(t, t.rest_pose());
    for time in [0.0, 0.35, 1.0] {
        let mut s_locals = vec![Sqt::IDENTITY; s.joint_count()];
        sample_clip(&source.clips, 0, time, &mut s_locals);
        let mut t_locals = vec![Sqt::IDENTITY; t.joint_count()];
        retarget_pose(map, source, 0, time, &mut t_locals);
        let (sw, tw) = (models(s, &s_locals), models(t, &t_locals));
        for (tj, entry) in map.entries().iter().enumerate() {
            let sj = entry.source.expect("every joint is matched") as usize;
            let source_delta = rotation(&sw[sj]) * rotation(&s_rest[sj]).inverse();
            let target_delta = rotation(&tw[tj]) * rotation(&t_rest[tj]).inverse();
            let what = format!("{} at {time} s", t.names()[tj]);
            assert_quat_close(target_delta, source_delta, &what);
        }
        let motion = sw[0].translation - s_rest[0].translation;
        let got = tw[0].translation - t_rest[0].translation;
        assert_v3(
            Vec3::from(got),
            (Vec3::from(motion) * ratio).into(),
            "hips motion",
        );
    }
}

#[test]
fn longer_legs_keep_world_rotations_and_scale_root_motion() {
    let source = biped(SOURCE);
    let target = biped(Body {
        hips: 1.4,
        ..SOURCE
    });
    let map = RetargetMap::build(&source.skeleton, &target.skeleton, None).unwrap();
    assert!(
        (map.report().hip_ratio - 1.4).abs() < 1e-5,
        "{:?}",
        map.report()
    );
    assert!(map.report().unmatched_target.is_empty());
    assert_world_deltas_kept(&source, &target, &map, 1.4);
}

#[test]
fn rotated_rest_frames_and_other_names_keep_world_rotations() {
    let source = biped(SOURCE);
    let target = biped(Body {
        unreal: true,
        frames: true,
        ..SOURCE
    });
    let map = RetargetMap::build(&source.skeleton, &target.skeleton, None).unwrap();
    let report = map.report();
    assert!(report.unmatched_target.is_empty(), "{report:?}");
    let upper_arm = report
        .matched
        .iter()
        .find(|m| m.target == "upperarm_l")
        .unwrap();
    assert_eq!(upper_arm.source, "LeftArm");
    assert_eq!(
        upper_arm.rule,
        MatchRule::Humanoid(HumanoidBone::UpperArm(
            sinew::baked::retarget_map::Side::Left
        ))
    );
    assert_eq!(report.hips, Some(("pelvis".into(), "Hips".into())));
    assert_world_deltas_kept(&source, &target, &map, 1.0);
}

#[test]
fn a_pose_source_drives_a_t_pose_target() {
    let source = biped(Body {
        hips: 1.0,
        arms_down: 45.0,
        ..SOURCE
    });
    let target = biped(Body {
        hips: 1.2,
        unreal: true,
        ..SOURCE
    });
    let map = RetargetMap::build(&source.skeleton, &target.skeleton, None).unwrap();
    assert_world_deltas_kept(&source, &target, &map, 1.2);
    // At time 0 the source is at rest: the target is at its own (T-pose) rest, arms level.
    let mut locals = vec![Sqt::IDENTITY; target.joint_count()];
    retarget_pose(&map, &source, 0, 0.0, &mut locals);
    let hand = target.skeleton.find_joint("hand_l").unwrap();
    let world = models(&target.skeleton, &locals);
    assert_v3(
        world[hand].translation.into(),
        [0.75, 1.65, 0.0],
        "left hand, T-pose",
    );
}

#[test]
fn user_map_overrides_and_bad_maps_are_named() {
    let source = biped(SOURCE);
    let target = biped(Body {
        unreal: true,
        ..SOURCE
    });
    let user = UserMap::from_json(
        r#"{ "joints": { "hand_l": "RightHand", "head": null },
             "translation": { "spine_01": "source" } }"#,
        "map.json",
    )
    .unwrap();
    let map = RetargetMap::build(&source.skeleton, &target.skeleton, Some(&user)).unwrap();
    let hand = target.skeleton.find_joint("hand_l").unwrap();
    let right = source.skeleton.find_joint("RightHand").unwrap() as u16;
    assert_eq!(map.entries()[hand].source, Some(right));
    assert!(map.report().unmatched_target.contains(&"head".to_string()));
    let spine = target.skeleton.find_joint("spine_01").unwrap();
    assert!(matches!(
        map.entries()[spine].translation,
        sinew::baked::retarget_map::Translation::Source { .. }
    ));

    let unknown = UserMap::from_json(r#"{ "joints": { "hand_l": "Nope" } }"#, "bad.json").unwrap();
    let err = RetargetMap::build(&source.skeleton, &target.skeleton, Some(&unknown)).unwrap_err();
    assert_eq!(
        (err.file.as_str(), err.object.as_str()),
        ("bad.json", "joint \"Nope\"")
    );
    let err = UserMap::from_json(r#"{ "joints": { "hand_l": 3 } }"#, "typed.json").unwrap_err();
    assert_eq!(err.file, "typed.json");
    assert!(err.object.contains("joints.hand_l"), "{err}");
    let err = UserMap::from_json("{ nope", "broken.json").unwrap_err();
    assert_eq!(err.file, "broken.json");
}

/// Every joint's pose mirrored by `map` (a mirror map of the rig onto itself).
fn mirror_pose(map: &RetargetMap, pose: &[Sqt]) -> Vec<Sqt> {
    map.entries()
        .iter()
        .map(|e| {
            let sample = e.source.map_or(Sqt::IDENTITY, |s| pose[s as usize]);
            retarget_sample(e, map.plane(), &sample)
        })
        .collect()
}

#[test]
fn mirror_of_symmetric_rest_is_rest_and_mirror_twice_is_identity() {
    for frames in [false, true] {
        let rig = biped(Body {
            hips: 1.0,
            arms_down: 30.0,
            frames,
            ..SOURCE
        });
        let s = &rig.skeleton;
        let mirror = RetargetMap::identity(s)
            .mirrored(s, MirrorPlane::X)
            .unwrap();
        let rest = mirror_pose(&mirror, s.rest_pose());
        let rest_models = models(s, s.rest_pose());
        for (j, m) in models(s, &rest).iter().enumerate() {
            let what = format!("{} (frames {frames})", s.names()[j]);
            if !frames {
                // Symmetric frames: the mirrored rest is the rest, joint for joint.
                assert_quat_close(rest[j].rotation, s.rest_pose()[j].rotation, &what);
            }
            assert_v3(
                m.translation.into(),
                rest_models[j].translation.into(),
                &what,
            );
        }
        // A random pose: mirrored world positions are the partners' reflected, and mirroring
        // twice gives the pose back.
        let mut rng = Rng(7);
        let pose: Vec<Sqt> = s
            .rest_pose()
            .iter()
            .map(|r| Sqt {
                rotation: r.rotation
                    * Quat::from_euler(
                        glam::EulerRot::XYZ,
                        rng.range(-0.6, 0.6),
                        rng.range(-0.6, 0.6),
                        rng.range(-0.6, 0.6),
                    ),
                ..*r
            })
            .collect();
        let once = mirror_pose(&mirror, &pose);
        let twice = mirror_pose(&mirror, &once);
        let (posed, mirrored) = (models(s, &pose), models(s, &once));
        for j in 0..s.joint_count() {
            let partner = mirror.entries()[j].source.unwrap() as usize;
            let reflected = MirrorPlane::X.reflect_vector(posed[partner].translation.into());
            let what = format!("{} mirrored (frames {frames})", s.names()[j]);
            assert_v3(mirrored[j].translation.into(), reflected.into(), &what);
            assert_quat_close(twice[j].rotation, pose[j].rotation, "mirrored twice");
            assert_v3(
                twice[j].translation,
                pose[j].translation.into(),
                "mirrored twice",
            );
        }
        let left = s.find_joint("LeftHand").unwrap();
        let right = s.find_joint("RightHand").unwrap() as u16;
        assert_eq!(mirror.entries()[left].source, Some(right));
    }
}

#[test]
fn fox_and_cesium_man_report_their_humanoid_joints() {
    let Some(shared) = super::common::shared() else {
        return;
    };
    let humanoid = sinew::import_file(super::common::repo().join("assets/humanoid.glb")).unwrap();
    let humanoid = sinew::bake_rigs(&humanoid).unwrap().remove(0);
    let fox = sinew::import_file(shared.join("gltf/Fox.glb")).unwrap();
    let fox = sinew::bake_rigs(&fox).unwrap().remove(0);
    let map = RetargetMap::build(&fox.skeleton, &humanoid.skeleton, None).unwrap();
    let report = map.report();
    let pairs: Vec<(&str, &str)> = report
        .matched
        .iter()
        .map(|m| (m.target.as_str(), m.source.as_str()))
        .collect();
    for pair in [
        ("Hips", "b_Hip_01"),
        ("Spine", "b_Spine01_02"),
        ("Spine2", "b_Spine02_03"),
        ("Head", "b_Head_05"),
        ("LeftUpperArm", "b_LeftUpperArm_09"),
        ("RightForearm", "b_RightForeArm_07"),
        ("LeftThigh", "b_LeftLeg01_015"),
        ("LeftShin", "b_LeftLeg02_016"),
        ("LeftFoot", "b_LeftFoot01_017"),
        ("LeftToe", "b_LeftFoot02_018"),
    ] {
        assert!(pairs.contains(&pair), "{pair:?} not in {pairs:?}");
    }
    assert!(
        report
            .unmatched_target
            .contains(&"LeftHandThumb1".to_string())
    );
    assert!(report.unused_source.contains(&"b_Tail01_012".to_string()));
    // Every retargeted local is finite over the clip.
    let mut locals = vec![Sqt::IDENTITY; humanoid.joint_count()];
    for time in [0.0, 0.4, 1.1] {
        retarget_pose(&map, &fox, 0, time, &mut locals);
        assert!(locals.iter().all(Sqt::is_finite));
    }
    let cesium = sinew::import_file(shared.join("gltf/CesiumMan.glb")).unwrap();
    let cesium = sinew::bake_rigs(&cesium).unwrap().remove(0);
    let map = RetargetMap::build(&cesium.skeleton, &humanoid.skeleton, None).unwrap();
    assert!(!map.report().matched.is_empty(), "{:?}", map.report());
}

#[test]
fn a_retargeted_copy_baked_offline_plays_what_the_map_gives() {
    let source = biped(SOURCE);
    let target = biped(Body {
        hips: 1.3,
        unreal: true,
        frames: true,
        ..SOURCE
    });
    let map = RetargetMap::build(&source.skeleton, &target.skeleton, None).unwrap();
    let copy = sinew::bake::retarget_rig(&target, &source, &map).unwrap();
    assert_eq!(copy.clips.clip_count(), 1);
    assert_eq!(copy.skeleton.names(), target.skeleton.names());
    let n = target.joint_count();
    // On the 30 Hz grid the copy's keys are the map's pose.
    for frame in [0, 7, 30] {
        let time = frame as f32 / 30.0;
        let mut want = vec![Sqt::IDENTITY; n];
        retarget_pose(&map, &source, 0, time, &mut want);
        let mut got = vec![Sqt::IDENTITY; n];
        sample_clip(&copy.clips, 0, time, &mut got);
        for j in 0..n {
            let what = format!("{} at frame {frame}", target.skeleton.names()[j]);
            assert_quat_close(got[j].rotation, want[j].rotation, &what);
            assert_v3(got[j].translation, want[j].translation.into(), &what);
        }
    }
    // The hips' motion in the copy is the source's scaled by the hip-height ratio.
    let mut start = vec![Sqt::IDENTITY; n];
    let mut end = vec![Sqt::IDENTITY; n];
    sample_clip(&copy.clips, 0, 0.0, &mut start);
    sample_clip(&copy.clips, 0, 1.0, &mut end);
    let motion = end[0].translation - start[0].translation;
    assert_v3(motion, [0.65, 0.13, 1.3], "hips motion × 1.3");
}

#[test]
fn the_fast_cpu_mode_plays_the_retargeted_copy() {
    use sinew::{FastCpuBackend, InstanceRecord, Layer, Mat3x4Rows};
    let source = biped(SOURCE);
    let target = biped(Body {
        hips: 1.2,
        arms_down: 40.0,
        unreal: true,
        ..SOURCE
    });
    let map = RetargetMap::build(&source.skeleton, &target.skeleton, None).unwrap();
    let copy = sinew::bake::retarget_rig(&target, &source, &map).unwrap();
    let n = copy.joint_count();
    let fast = FastCpuBackend::new(vec![copy], Vec::new(), 30.0).unwrap();
    for frame in [4, 21] {
        let time = frame as f32 / 30.0;
        let record =
            InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(0, time)]).unwrap();
        let mut got = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; n];
        fast.evaluate_one(&record, &mut got, &mut palette).unwrap();
        let mut locals = vec![Sqt::IDENTITY; n];
        retarget_pose(&map, &source, 0, time, &mut locals);
        let want = models(&target.skeleton, &locals);
        for j in 0..n {
            let what = format!("{} at frame {frame}", target.skeleton.names()[j]);
            let (g, w) = (got[j].translation, want[j].translation);
            assert!((g - w).abs().max_element() < 1e-3, "{what}: {g} vs {w}");
        }
    }
}
