//! `humanoid.glb`: the default rig (57 joints, Y up, metres, facing +Z) with its mesh and
//! the clips `idle`, `walk`, `run` (both with root motion) and `wave`.

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;

use crate::gltf::{Doc, UNSIGNED_SHORT};
use crate::mesh::{
    MeshData, Segment, SkinLayout, Weights, add_segment, write_mesh, write_primitive,
};
use crate::skeleton::{Pose, Skeleton, sample_clip, smoothstep, v3, write_clip};

const LEFT: f32 = 1.0;
const RIGHT: f32 = -1.0;
const FINGERS: [&str; 5] = ["Thumb", "Index", "Middle", "Ring", "Pinky"];
const HIP_HEIGHT: f32 = 0.95;

/// One side of the humanoid; `sign` is +1 on the left (+X), -1 on the right.
pub(crate) struct Side {
    pub(crate) sign: f32,
    pub(crate) clavicle: usize,
    pub(crate) upper_arm: usize,
    pub(crate) forearm: usize,
    pub(crate) hand: usize,
    pub(crate) fingers: [[usize; 3]; 5],
    pub(crate) finger_tips: [Vec3; 5],
    pub(crate) thigh: usize,
    pub(crate) shin: usize,
    pub(crate) foot: usize,
    pub(crate) toe: usize,
}

pub(crate) struct Humanoid {
    pub(crate) sk: Skeleton,
    pub(crate) root: usize,
    pub(crate) hips: usize,
    pub(crate) spine: [usize; 3],
    pub(crate) neck: usize,
    pub(crate) head: usize,
    pub(crate) head_end: usize,
    pub(crate) jaw: usize,
    pub(crate) eyes: [usize; 2],
    pub(crate) sides: [Side; 2],
}

fn add_arm(sk: &mut Skeleton, sign: f32, chest: usize) -> Side {
    let prefix = if sign > 0.0 { "Left" } else { "Right" };
    let name = |part: &str| format!("{prefix}{part}");
    let clavicle = sk.add(&name("Clavicle"), Some(chest), v3(0.03 * sign, 0.12, 0.0));
    let upper_arm = sk.add(&name("UpperArm"), Some(clavicle), v3(0.17 * sign, 0.0, 0.0));
    let forearm = sk.add(&name("Forearm"), Some(upper_arm), v3(0.0, -0.28, 0.0));
    let hand = sk.add(&name("Hand"), Some(forearm), v3(0.0, -0.25, 0.0));
    // Arms hang at the sides, palms facing the body, fingers spread along Z.
    // Per finger: first segment offset from the hand, second and third
    // segment offsets, tip offset from the third segment.
    let layout: [[Vec3; 4]; 5] = [
        [
            v3(-0.012 * sign, -0.03, 0.035),
            v3(-0.006 * sign, -0.03, 0.012),
            v3(0.0, -0.025, 0.008),
            v3(0.0, -0.02, 0.006),
        ],
        [
            v3(0.0, -0.09, 0.03),
            v3(0.0, -0.035, 0.0),
            v3(0.0, -0.025, 0.0),
            v3(0.0, -0.02, 0.0),
        ],
        [
            v3(0.0, -0.095, 0.01),
            v3(0.0, -0.04, 0.0),
            v3(0.0, -0.028, 0.0),
            v3(0.0, -0.022, 0.0),
        ],
        [
            v3(0.0, -0.09, -0.01),
            v3(0.0, -0.037, 0.0),
            v3(0.0, -0.026, 0.0),
            v3(0.0, -0.02, 0.0),
        ],
        [
            v3(0.0, -0.08, -0.03),
            v3(0.0, -0.028, 0.0),
            v3(0.0, -0.02, 0.0),
            v3(0.0, -0.018, 0.0),
        ],
    ];
    let mut fingers = [[0usize; 3]; 5];
    let mut finger_tips = [Vec3::ZERO; 5];
    for (f, offsets) in layout.iter().enumerate() {
        let mut parent = hand;
        for (s, offset) in offsets[..3].iter().enumerate() {
            let joint = sk.add(
                &name(&format!("Hand{}{}", FINGERS[f], s + 1)),
                Some(parent),
                *offset,
            );
            fingers[f][s] = joint;
            parent = joint;
        }
        finger_tips[f] = offsets[3];
    }
    Side {
        sign,
        clavicle,
        upper_arm,
        forearm,
        hand,
        fingers,
        finger_tips,
        thigh: 0,
        shin: 0,
        foot: 0,
        toe: 0,
    }
}

fn add_leg(sk: &mut Skeleton, side: &mut Side, hips: usize) {
    let prefix = if side.sign > 0.0 { "Left" } else { "Right" };
    let name = |part: &str| format!("{prefix}{part}");
    side.thigh = sk.add(&name("Thigh"), Some(hips), v3(0.10 * side.sign, -0.05, 0.0));
    side.shin = sk.add(&name("Shin"), Some(side.thigh), v3(0.0, -0.42, 0.0));
    side.foot = sk.add(&name("Foot"), Some(side.shin), v3(0.0, -0.40, 0.0));
    side.toe = sk.add(&name("Toe"), Some(side.foot), v3(0.0, -0.05, 0.13));
}

fn build_humanoid() -> Humanoid {
    let mut sk = Skeleton::default();
    let root = sk.add("Root", None, Vec3::ZERO);
    let hips = sk.add("Hips", Some(root), v3(0.0, HIP_HEIGHT, 0.0));
    let spine0 = sk.add("Spine", Some(hips), v3(0.0, 0.10, 0.0));
    let spine1 = sk.add("Spine1", Some(spine0), v3(0.0, 0.12, 0.0));
    let spine2 = sk.add("Spine2", Some(spine1), v3(0.0, 0.12, 0.0));
    let neck = sk.add("Neck", Some(spine2), v3(0.0, 0.17, 0.0));
    let head = sk.add("Head", Some(neck), v3(0.0, 0.08, 0.0));
    let head_end = sk.add("HeadEnd", Some(head), v3(0.0, 0.24, 0.0));
    let jaw = sk.add("Jaw", Some(head), v3(0.0, -0.01, 0.03));
    let eye_l = sk.add("LeftEye", Some(head), v3(0.035, 0.09, 0.095));
    let eye_r = sk.add("RightEye", Some(head), v3(-0.035, 0.09, 0.095));
    let mut left = add_arm(&mut sk, LEFT, spine2);
    let mut right = add_arm(&mut sk, RIGHT, spine2);
    add_leg(&mut sk, &mut left, hips);
    add_leg(&mut sk, &mut right, hips);
    Humanoid {
        sk,
        root,
        hips,
        spine: [spine0, spine1, spine2],
        neck,
        head,
        head_end,
        jaw,
        eyes: [eye_l, eye_r],
        sides: [left, right],
    }
}

fn humanoid_mesh(h: &Humanoid) -> MeshData {
    let pos = h.sk.rest_positions(Mat4::IDENTITY);
    let [spine0, spine1, spine2] = h.spine;
    let half = Vec2::new;
    let mut segments = vec![
        Segment {
            start: v3(0.0, 0.85, 0.0),
            end: v3(0.0, 1.05, 0.0),
            half: half(0.15, 0.10),
            segs: 4,
            owner: h.hips,
            prev: None,
            next: Some(spine0),
        },
        Segment {
            start: pos[spine0],
            end: pos[spine1],
            half: half(0.14, 0.095),
            segs: 4,
            owner: spine0,
            prev: Some(h.hips),
            next: Some(spine1),
        },
        Segment {
            start: pos[spine1],
            end: pos[spine2],
            half: half(0.145, 0.10),
            segs: 4,
            owner: spine1,
            prev: Some(spine0),
            next: Some(spine2),
        },
        Segment {
            start: pos[spine2],
            end: pos[h.neck],
            half: half(0.15, 0.105),
            segs: 4,
            owner: spine2,
            prev: Some(spine1),
            next: Some(h.neck),
        },
        Segment {
            start: pos[h.neck],
            end: pos[h.head] + v3(0.0, 0.02, 0.0),
            half: half(0.045, 0.05),
            segs: 4,
            owner: h.neck,
            prev: Some(spine2),
            next: Some(h.head),
        },
        Segment {
            start: pos[h.head] + v3(0.0, 0.02, 0.01),
            end: pos[h.head_end] + v3(0.0, 0.0, 0.01),
            half: half(0.085, 0.10),
            segs: 2,
            owner: h.head,
            prev: None,
            next: None,
        },
        Segment {
            start: pos[h.jaw] + v3(0.0, 0.015, 0.0),
            end: pos[h.jaw] + v3(0.0, -0.015, 0.075),
            half: half(0.055, 0.022),
            segs: 2,
            owner: h.jaw,
            prev: Some(h.head),
            next: None,
        },
    ];
    for &eye in &h.eyes {
        segments.push(Segment {
            start: pos[eye] + v3(0.0, 0.0, 0.005),
            end: pos[eye] + v3(0.0, 0.0, 0.03),
            half: half(0.012, 0.012),
            segs: 1,
            owner: eye,
            prev: None,
            next: None,
        });
    }
    for side in &h.sides {
        let chain = [
            (side.clavicle, side.upper_arm, spine2, half(0.04, 0.04)),
            (
                side.upper_arm,
                side.forearm,
                side.clavicle,
                half(0.045, 0.05),
            ),
            (side.forearm, side.hand, side.upper_arm, half(0.04, 0.04)),
            (side.thigh, side.shin, h.hips, half(0.075, 0.08)),
            (side.shin, side.foot, side.thigh, half(0.055, 0.06)),
        ];
        for (owner, child, parent, size) in chain {
            segments.push(Segment {
                start: pos[owner],
                end: pos[child],
                half: size,
                segs: 4,
                owner,
                prev: Some(parent),
                next: Some(child),
            });
        }
        segments.push(Segment {
            start: pos[side.hand],
            end: pos[side.hand] + v3(0.0, -0.09, 0.0),
            half: half(0.016, 0.045),
            segs: 2,
            owner: side.hand,
            prev: Some(side.forearm),
            next: None,
        });
        for (f, finger) in side.fingers.iter().enumerate() {
            let size = if f == 0 { 0.011 } else { 0.009 };
            for s in 0..3 {
                let end = if s < 2 {
                    pos[finger[s + 1]]
                } else {
                    pos[finger[2]] + side.finger_tips[f]
                };
                segments.push(Segment {
                    start: pos[finger[s]],
                    end,
                    half: half(size, size),
                    segs: 2,
                    owner: finger[s],
                    prev: Some(if s == 0 { side.hand } else { finger[s - 1] }),
                    next: finger.get(s + 1).copied(),
                });
            }
        }
        let (foot, toe) = (pos[side.foot], pos[side.toe]);
        segments.push(Segment {
            start: v3(foot.x, 0.04, foot.z - 0.05),
            end: v3(toe.x, 0.04, toe.z),
            half: half(0.045, 0.04),
            segs: 4,
            owner: side.foot,
            prev: None,
            next: Some(side.toe),
        });
        segments.push(Segment {
            start: v3(toe.x, 0.03, toe.z),
            end: v3(toe.x, 0.03, toe.z + 0.06),
            half: half(0.045, 0.03),
            segs: 2,
            owner: side.toe,
            prev: Some(side.foot),
            next: None,
        });
    }
    let mut mesh = MeshData::default();
    for segment in &segments {
        add_segment(&mut mesh, segment);
    }
    mesh
}

/// Relaxed finger curl towards the palm; `amount` 0 is a flat hand.
fn curl_fingers(pose: &mut Pose, side: &Side, amount: f32) {
    const SEGMENT_SHARE: [f32; 3] = [0.8, 1.0, 0.7];
    for (f, finger) in side.fingers.iter().enumerate() {
        let scale = if f == 0 { 0.5 } else { 1.0 + 0.1 * f as f32 };
        for (s, &joint) in finger.iter().enumerate() {
            let angle = amount * scale * SEGMENT_SHARE[s];
            pose.r[joint] = Quat::from_rotation_z(-side.sign * angle);
        }
    }
}

/// `idle`: breathing, a slow weight shift and small head and arm motion.
fn idle_pose(h: &Humanoid, t: f32, duration: f32) -> Pose {
    let phase = TAU * t / duration;
    let breath = 0.5 - 0.5 * phase.cos();
    let mut p = h.sk.rest();
    let sway = 0.012 * phase.sin();
    p.r[h.hips] = Quat::from_rotation_z(0.01 * phase.sin());
    p.r[h.spine[0]] = Quat::from_rotation_z(-0.012 * phase.sin());
    p.r[h.spine[1]] = Quat::from_rotation_x(-0.015 * breath);
    p.r[h.spine[2]] = Quat::from_rotation_x(-0.02 * breath);
    p.r[h.neck] = Quat::from_rotation_x(0.02 * breath);
    p.r[h.head] = Quat::from_rotation_y(0.08 * (phase + 0.5).sin())
        * Quat::from_rotation_x(0.03 * (2.0 * phase).sin());
    for side in &h.sides {
        let s = side.sign;
        let lean = -sway / 0.88;
        p.r[side.clavicle] = Quat::from_rotation_z(s * 0.03 * breath);
        p.r[side.upper_arm] = Quat::from_rotation_z(s * (0.07 + 0.015 * breath))
            * Quat::from_rotation_x(0.03 * (phase + s).sin());
        p.r[side.forearm] = Quat::from_rotation_x(-0.15 - 0.04 * breath);
        p.r[side.hand] = Quat::from_rotation_z(-s * 0.05);
        p.r[side.thigh] = Quat::from_rotation_z(lean + s * 0.02);
        p.r[side.shin] = Quat::from_rotation_x(0.03);
        p.r[side.foot] = Quat::from_rotation_z(-lean - s * 0.02) * Quat::from_rotation_x(-0.03);
        curl_fingers(&mut p, side, 0.25 + 0.03 * breath);
    }
    p.t[h.hips] = v3(sway, HIP_HEIGHT, 0.0);
    let lowest = lowest_foot_point(h, &p);
    p.t[h.hips].y = HIP_HEIGHT - lowest;
    p
}

/// Parameters of a locomotion cycle.
pub(crate) struct Gait {
    pub(crate) period: f32,
    pub(crate) speed: f32,
    pub(crate) thigh_amp: f32,
    pub(crate) thigh_bias: f32,
    pub(crate) knee_stance: f32,
    pub(crate) knee_swing: f32,
    pub(crate) arm_amp: f32,
    pub(crate) elbow: f32,
    pub(crate) elbow_swing: f32,
    pub(crate) lean: f32,
    pub(crate) twist: f32,
    pub(crate) flight: f32,
}

const WALK: Gait = Gait {
    period: 1.0,
    speed: 1.4,
    thigh_amp: 0.4,
    thigh_bias: 0.0,
    knee_stance: 0.08,
    knee_swing: 0.9,
    arm_amp: 0.3,
    elbow: 0.2,
    elbow_swing: 0.25,
    lean: 0.04,
    twist: 0.08,
    flight: 0.0,
};

const RUN: Gait = Gait {
    period: 0.7,
    speed: 3.5,
    thigh_amp: 0.55,
    thigh_bias: -0.2,
    knee_stance: 0.2,
    knee_swing: 1.7,
    arm_amp: 0.55,
    elbow: 1.3,
    elbow_swing: 0.3,
    lean: 0.18,
    twist: 0.12,
    flight: 0.08,
};

/// Lowest point of both feet (heel, ball, toe tip) for a pose.
fn lowest_foot_point(h: &Humanoid, pose: &Pose) -> f32 {
    let globals = h.sk.globals(Mat4::IDENTITY, pose);
    let mut lowest = f32::INFINITY;
    for side in &h.sides {
        let points = [
            globals[side.foot].transform_point3(v3(0.0, -0.08, -0.05)),
            globals[side.toe].transform_point3(v3(0.0, -0.03, 0.0)),
            globals[side.toe].transform_point3(v3(0.0, -0.03, 0.06)),
        ];
        for point in points {
            lowest = lowest.min(point.y);
        }
    }
    lowest
}

/// `walk` and `run`: legs and arms swing in opposition, the hips bob with the
/// legs (the lowest foot touches y = 0) and `Root` moves along +Z.
fn locomotion_pose(h: &Humanoid, g: &Gait, t: f32) -> Pose {
    let phase = TAU * t / g.period;
    let mut p = h.sk.rest();
    for side in &h.sides {
        // The left leg is forward at phase π/2, the right one half a cycle later.
        let ph = if side.sign > 0.0 { phase } else { phase + PI };
        let thigh = -g.thigh_amp * ph.sin() + g.thigh_bias;
        let swing = (ph + 0.4).cos().max(0.0).powi(2);
        let knee = g.knee_stance + g.knee_swing * swing;
        let foot = -(thigh + knee) + 0.35 * swing;
        p.r[side.thigh] = Quat::from_rotation_z(side.sign * 0.03) * Quat::from_rotation_x(thigh);
        p.r[side.shin] = Quat::from_rotation_x(knee);
        p.r[side.foot] = Quat::from_rotation_z(-side.sign * 0.03) * Quat::from_rotation_x(foot);
        let push_off = (ph + 1.2).cos().max(0.0).powi(2);
        p.r[side.toe] = Quat::from_rotation_x(-0.4 * push_off);
        // The arm on this side swings back while this leg swings forward.
        let arm = g.arm_amp * ph.sin();
        p.r[side.clavicle] = Quat::from_rotation_y(side.sign * 0.05 * ph.sin());
        p.r[side.upper_arm] =
            Quat::from_rotation_z(side.sign * 0.1) * Quat::from_rotation_x(arm + 0.05);
        p.r[side.forearm] =
            Quat::from_rotation_x(-(g.elbow + g.elbow_swing * (-ph.sin()).max(0.0)));
        p.r[side.hand] = Quat::from_rotation_z(-side.sign * 0.08);
        curl_fingers(&mut p, side, 0.35 + 0.25 * (g.elbow / 1.3));
    }
    let twist = g.twist * phase.sin();
    p.r[h.hips] = Quat::from_rotation_y(-twist) * Quat::from_rotation_z(0.03 * phase.cos());
    for &spine in &h.spine {
        p.r[spine] = Quat::from_rotation_y(0.6 * twist) * Quat::from_rotation_x(g.lean / 3.0);
    }
    p.r[h.neck] = Quat::from_rotation_y(-0.4 * twist);
    p.r[h.head] = Quat::from_rotation_y(-0.4 * twist) * Quat::from_rotation_x(-0.6 * g.lean);
    // Shift the hips over the stance leg, then set their height from the feet.
    let hips_x = -0.02 * phase.cos();
    p.t[h.hips] = v3(hips_x, HIP_HEIGHT, 0.0);
    let lowest = lowest_foot_point(h, &p);
    let flight = g.flight * (0.5 - 0.5 * (2.0 * phase).cos());
    p.t[h.hips].y = HIP_HEIGHT - lowest + flight;
    p.t[h.root] = v3(0.0, 0.0, g.speed * t);
    p
}

/// `wave`: the right arm rises to the side, the forearm points up with the
/// palm forward and waves twice, then everything returns to rest.
fn wave_pose(h: &Humanoid, t: f32, duration: f32) -> Pose {
    let rise = smoothstep(t / 0.4) * smoothstep((duration - t) / 0.4);
    let osc = 0.35 * (TAU * (t - 0.4) / 0.35).sin() * rise;
    let mut p = h.sk.rest();
    let right = &h.sides[1];
    let left = &h.sides[0];
    let s = right.sign;
    p.r[h.spine[0]] = Quat::from_rotation_z(0.02 * rise);
    p.r[h.spine[1]] = Quat::from_rotation_z(0.02 * rise);
    p.r[h.spine[2]] = Quat::from_rotation_z(0.03 * rise) * Quat::from_rotation_y(-0.05 * rise);
    p.r[h.neck] = Quat::from_rotation_z(-0.03 * rise);
    p.r[h.head] = Quat::from_rotation_y(-0.2 * rise) * Quat::from_rotation_z(-0.06 * rise);
    p.r[right.clavicle] = Quat::from_rotation_z(s * 0.12 * rise);
    p.r[right.upper_arm] =
        Quat::from_rotation_z(s * 1.75 * rise) * Quat::from_rotation_x(-0.25 * rise);
    p.r[right.forearm] =
        Quat::from_rotation_z(s * 1.35 * rise + osc) * Quat::from_rotation_y(s * FRAC_PI_2 * rise);
    p.r[right.hand] = Quat::from_rotation_z(0.4 * osc);
    curl_fingers(&mut p, right, 0.25 * (1.0 - rise) + 0.03 * rise);
    p.r[left.clavicle] = Quat::from_rotation_z(left.sign * 0.01 * rise);
    p.r[left.upper_arm] = Quat::from_rotation_z(left.sign * 0.07);
    p.r[left.forearm] = Quat::from_rotation_x(-0.15 - 0.1 * rise);
    p.r[left.hand] = Quat::from_rotation_z(-left.sign * 0.05);
    curl_fingers(&mut p, left, 0.25);
    p
}

pub(crate) fn humanoid() -> Vec<u8> {
    let h = build_humanoid();
    let mut doc = Doc::default();
    let nodes = h.sk.write_nodes(&mut doc);
    let skin =
        h.sk.write_skin(&mut doc, "Humanoid", &nodes, nodes[h.root], Mat4::IDENTITY);
    let material = doc.material("Body", [0.8, 0.72, 0.64, 1.0]);
    let mesh_data = humanoid_mesh(&h);
    let layout = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 1,
    };
    let primitive = write_primitive(&mut doc, &mesh_data, Some(layout), material);
    let mesh = write_mesh(&mut doc, "HumanoidBody", vec![primitive]);
    let mesh_node = doc.node(json!({"name": "HumanoidBody", "mesh": mesh, "skin": skin}));
    doc.scene_roots = vec![nodes[h.root], mesh_node];

    let mut upper: Vec<usize> = h.spine.to_vec();
    upper.extend([h.neck, h.head]);
    for side in &h.sides {
        upper.extend([side.clavicle, side.upper_arm, side.forearm, side.hand]);
        upper.extend(side.fingers.iter().flatten());
    }
    let mut body = vec![h.hips];
    body.extend(&upper);
    for side in &h.sides {
        body.extend([side.thigh, side.shin, side.foot, side.toe]);
    }

    const FPS: f32 = 30.0;
    let keys = |duration: f32| (duration * FPS).round() as usize + 1;
    let idle = sample_clip(2.0, keys(2.0), |t| idle_pose(&h, t, 2.0));
    write_clip(&mut doc, "idle", &idle, &nodes, &body, &[(h.hips, true)]);
    for (name, gait) in [("walk", &WALK), ("run", &RUN)] {
        let clip = sample_clip(gait.period, keys(gait.period), |t| {
            locomotion_pose(&h, gait, t)
        });
        let translations = [(h.root, false), (h.hips, true)];
        write_clip(&mut doc, name, &clip, &nodes, &body, &translations);
    }
    let wave = sample_clip(1.5, keys(1.5), |t| wave_pose(&h, t, 1.5));
    write_clip(&mut doc, "wave", &wave, &nodes, &upper, &[]);
    doc.into_glb()
}
