//! FBX clips pose as ufbx evaluates the file's curves: every node's world matrix is ufbx's
//! within the rig's tolerance at key times and within the curve error budget between keys, on
//! every FBX in `assets/fbx/` (Blender conversions, and skeletons animated as Maya, 3ds Max and
//! MotionBuilder write them: sparse cubic and TCB curves, Euler orders, pre- and
//! post-rotations, scale compensation, steps, Z up in inches, keys outside the stack).

use glam::{Mat4, Quat, Vec3, Vec4};
use sinew::import::fbx::{
    FBX_CURVE_ERROR, FBX_VIRTUAL_VERTEX, load_scene, virtual_vertex_distances,
};
use sinew::report::{CpuPose, NodeSelection, PoseRequest, pose_report};

use super::common;
use super::fbx::{asset_size, import, key_times};

/// Where between two keys poses are compared, as fractions of the interval.
const BETWEEN: [f32; 3] = [0.25, 0.5, 0.75];

fn mat4(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols_array(
        &[
            m.m00, m.m10, m.m20, 0.0, m.m01, m.m11, m.m21, 0.0, m.m02, m.m12, m.m22, 0.0, m.m03,
            m.m13, m.m23, 1.0,
        ]
        .map(|v| v as f32),
    )
}

/// How far apart `a` and `want` place the node's origin and the virtual vertices
/// [`FBX_VIRTUAL_VERTEX`] away from it along its axes (in the world, whatever its scale).
fn virtual_vertex_error(a: Mat4, want: Mat4) -> f32 {
    [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]
        .into_iter()
        .map(|axis| {
            let length = want.transform_vector3(axis).length();
            let p = axis * FBX_VIRTUAL_VERTEX / length.max(f32::MIN_POSITIVE);
            a.transform_point3(p).distance(want.transform_point3(p))
        })
        .fold(0.0, f32::max)
}

/// The world error node `i` may have at a time where the nodes `keyed` gives have keys on
/// all their tracks and the others are between keys, each within [`FBX_CURVE_ERROR`] of its
/// curves on its virtual vertex (`distances`): the sum over the node and its ancestors between
/// keys of the budget, scaled by the node's distance from the ancestor over the ancestor's
/// virtual vertex distance (rotation and scale) and by the ancestor's parent's world scale.
fn budget(
    scene: &ufbx::Scene,
    worlds: &[Mat4],
    distances: &[f32],
    i: usize,
    keyed: impl Fn(usize) -> bool,
) -> f32 {
    let at = worlds[i].w_axis.truncate();
    let mut sum = 0.0;
    let mut node = Some(&scene.nodes[i]);
    while let Some(n) = node {
        let a = n.element.typed_id as usize;
        node = n.parent.as_deref();
        if keyed(a) {
            continue;
        }
        let reach = at.distance(worlds[a].w_axis.truncate()) + FBX_VIRTUAL_VERTEX;
        let scale = node.map_or(1.0, |p| {
            let m = worlds[p.element.typed_id as usize];
            m.x_axis
                .length()
                .max(m.y_axis.length())
                .max(m.z_axis.length())
        });
        // Translation, rotation and scale each within the budget.
        sum += FBX_CURVE_ERROR * (1.0 + 2.0 * reach / distances[a]) * scale;
    }
    sum
}

/// What one comparison found: the poses compared where every track of the node's chain had a
/// key (held to the rig's tolerance), those compared between keys, and the largest error
/// between keys as a fraction of the curve budget in its tolerance.
#[derive(Default)]
struct Compared {
    on_keys: usize,
    between: usize,
    worst: f32,
    /// The largest world error between keys, in metres.
    worst_between: f32,
}

/// Poses every clip of the FBX `bytes` at its key times and between them, with sinew's CPU
/// evaluator and with ufbx's, and asserts every node's world matrix is ufbx's: within the rig's
/// tolerance where the node's chain is keyed, plus the curve budget of each joint of the chain
/// that is between keys.
fn assert_poses_follow_ufbx(name: &str, bytes: &[u8]) -> Compared {
    let asset = sinew::import::import_bytes(bytes, name, None).unwrap_or_else(|e| panic!("{e}"));
    let scene = load_scene(bytes).unwrap();
    let key_tol = common::fbx_tolerance(asset_size(&asset));
    let distances = virtual_vertex_distances(&scene);
    assert_eq!(asset.clips.len(), scene.anim_stacks.len(), "{name}");
    let mut compared = Compared::default();
    for (c, (clip, stack)) in asset.clips.iter().zip(scene.anim_stacks.iter()).enumerate() {
        let keys = key_times(clip);
        let mut times: Vec<f32> = keys
            .windows(2)
            .flat_map(|w| BETWEEN.map(|f| w[0] + f * (w[1] - w[0])))
            .collect();
        times.extend(keys);
        let request = PoseRequest {
            clip: Some((c, times.clone())),
            nodes: NodeSelection::All,
        };
        let report = pose_report(&asset, &request, &mut CpuPose).unwrap_or_else(|e| panic!("{e}"));
        let nodes = report.nodes.expect("every node's world matrix");
        for (frame, &t) in nodes.frames.iter().zip(&times) {
            let time = stack.time_begin + f64::from(t);
            let opts = ufbx::EvaluateOpts::default();
            let evaluated = ufbx::evaluate_scene(&scene, &stack.anim, time, opts).unwrap();
            let worlds: Vec<Mat4> = evaluated
                .nodes
                .iter()
                .map(|n| mat4(&n.node_to_world))
                .collect();
            let keyed = |node: usize| {
                clip.tracks
                    .iter()
                    .filter(|track| track.target == node)
                    .all(|track| track.times.contains(&t))
            };
            for (k, (&i, node)) in nodes.indices.iter().zip(&nodes.names).enumerate() {
                let error = virtual_vertex_error(Mat4::from_cols_array(&frame.world[k]), worlds[i]);
                let curves = budget(&evaluated, &worlds, &distances, i, keyed);
                assert!(
                    error <= key_tol + curves,
                    "{name} clip {:?} node {node} at {t} s: {error} m from ufbx's pose, \
                     tolerance {key_tol} + {curves} between keys",
                    clip.name,
                );
                if curves == 0.0 {
                    compared.on_keys += 1;
                } else {
                    compared.between += 1;
                    compared.worst = compared.worst.max((error - key_tol).max(0.0) / curves);
                    compared.worst_between = compared.worst_between.max(error);
                }
            }
        }
    }
    compared
}

/// `track`'s value at `t` (within its keys), as sinew interpolates it.
fn sample(track: &sinew::import::RawTrack, t: f32) -> Vec4 {
    let next = track
        .times
        .partition_point(|&k| k <= t)
        .min(track.times.len() - 1);
    let (a, b) = (track.values[next.max(1) - 1], track.values[next]);
    let (ta, tb) = (track.times[next.max(1) - 1], track.times[next]);
    if track.interpolation == sinew::Interpolation::Step || tb <= ta {
        return if t >= tb { b } else { a };
    }
    let f = (t - ta) / (tb - ta);
    match track.channel {
        sinew::Channel::Rotation => Vec4::from(sinew::math::slerp_shortest(
            Quat::from_vec4(a),
            Quat::from_vec4(b),
            f,
        )),
        _ => a.lerp(b, f),
    }
}

/// How far a virtual vertex `distance` from the joint moves between a local channel's values
/// `a` and `b` (ACL's metric).
fn channel_error(channel: sinew::Channel, distance: f32, a: Vec4, b: Vec4) -> f32 {
    match channel {
        sinew::Channel::Translation => (a - b).truncate().length(),
        sinew::Channel::Scale => (a - b).truncate().length() * distance,
        sinew::Channel::Rotation => {
            let chord = (a - b).length().min((a + b).length());
            4.0 * (0.5 * chord).min(1.0).asin() * distance
        }
    }
}

/// Every track of `bytes`' clips, sampled between its keys, is within [`FBX_CURVE_ERROR`] of
/// ufbx's evaluation of the node's local transform. Returns the largest error, in metres.
fn assert_tracks_within_budget(name: &str, bytes: &[u8]) -> f32 {
    let asset = sinew::import::import_bytes(bytes, name, None).unwrap_or_else(|e| panic!("{e}"));
    let scene = load_scene(bytes).unwrap();
    let distances = virtual_vertex_distances(&scene);
    let mut worst: f32 = 0.0;
    for (clip, stack) in asset.clips.iter().zip(scene.anim_stacks.iter()) {
        for track in &clip.tracks {
            let node = &scene.nodes[track.target];
            for w in track.times.windows(2) {
                for f in BETWEEN {
                    let t = w[0] + f * (w[1] - w[0]);
                    let want = ufbx::evaluate_transform(
                        &stack.anim,
                        node,
                        stack.time_begin + f64::from(t),
                    );
                    let want = match track.channel {
                        sinew::Channel::Translation => v4(want.translation),
                        sinew::Channel::Rotation => {
                            let q = want.rotation;
                            Vec4::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32)
                        }
                        sinew::Channel::Scale => v4(want.scale),
                    };
                    let distance = distances[track.target];
                    let error = channel_error(track.channel, distance, sample(track, t), want);
                    assert!(
                        error <= FBX_CURVE_ERROR + 1e-6,
                        "{name} clip {:?} node {} {:?} at {t} s: {error} m off ufbx's curve",
                        clip.name,
                        node.element.name,
                        track.channel
                    );
                    worst = worst.max(error);
                }
            }
        }
    }
    worst
}

fn v4(v: ufbx::Vec3) -> Vec4 {
    Vec4::new(v.x as f32, v.y as f32, v.z as f32, 0.0)
}

/// Every FBX file of `assets/fbx/` poses as ufbx evaluates its curves, on and between keys.
#[test]
fn fbx_clips_follow_ufbx_curves_on_and_between_keys() {
    let files = common::fbx_assets();
    for name in ["maya_joints.fbx", "max_biped.fbx", "motionbuilder_take.fbx"] {
        assert!(
            files.iter().any(|f| f.ends_with(name)),
            "assets/fbx has no {name}"
        );
    }
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let compared = assert_poses_follow_ufbx(&path.display().to_string(), &bytes);
        eprintln!(
            "{}: {} poses on keys, {} between (worst {:.4} mm, {:.1} % of its tolerance's curve \
             budget)",
            path.display(),
            compared.on_keys,
            compared.between,
            compared.worst_between * 1e3,
            compared.worst * 100.0
        );
        assert!(compared.on_keys > 0 && compared.between > 0);
        let local = assert_tracks_within_budget(&path.display().to_string(), &bytes);
        eprintln!(
            "{}: local channels within {:.4} mm of the curves between keys",
            path.display(),
            local * 1e3
        );
    }
}

/// What the files as Maya, 3ds Max and MotionBuilder write them exercise is there: sparse
/// keys that the clips follow with keys of their own between them, a stepped curve as a step
/// track, a stack that starts at frame 1 and one whose keys run past its end.
#[test]
fn fbx_exporter_files_have_what_they_stand_for() {
    let repo = common::repo();
    let maya = import(&repo.join("assets/fbx/maya_joints.fbx"));
    let clip = &maya.clips[0];
    // Frames 1 to 48 at 24 fps.
    assert!(
        (clip.duration() - 47.0 / 24.0).abs() < 1e-5,
        "{}",
        clip.duration()
    );
    let track = |node: &str, channel| {
        let n = maya.nodes.iter().position(|n| n.name == node).unwrap();
        clip.tracks
            .iter()
            .find(|t| t.target == n && t.channel == channel)
            .unwrap_or_else(|| panic!("no {channel:?} track on {node}"))
    };
    let neck = track("neck", sinew::Channel::Rotation);
    assert_eq!(neck.interpolation, sinew::Interpolation::Step);
    // Keys at the clip's start, then at frames 10 and 25.
    assert_eq!(neck.times, [0.0, 9.0 / 24.0, 1.0]);
    // Sparse cubic keys: the clip has many more keys than the file.
    let hips = track("hips", sinew::Channel::Translation);
    assert!(hips.times.len() > 48, "{} keys", hips.times.len());
    // The spine's animated non-uniform scale, which the neck does not inherit, is on a helper.
    let maya_scene =
        load_scene(&std::fs::read(repo.join("assets/fbx/maya_joints.fbx")).unwrap()).unwrap();
    assert!(maya_scene.nodes.iter().any(|n| n.is_scale_helper));
    let mobu = import(&repo.join("assets/fbx/motionbuilder_take.fbx"));
    assert!((mobu.clips[0].duration() - 40.0 / 30.0).abs() < 1e-5);
    let max = load_scene(&std::fs::read(repo.join("assets/fbx/max_biped.fbx")).unwrap()).unwrap();
    assert!((max.settings.unit_meters - 0.0254).abs() < 1e-9);
}
