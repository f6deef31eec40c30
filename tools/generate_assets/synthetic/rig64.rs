//! `synthetic/rig64.glb`: a 64-joint branched rig with clips `a` (1.0 s) and `b` (1.5 s).

use std::f32::consts::TAU;

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;

use crate::gltf::{Doc, UNSIGNED_SHORT};
use crate::mesh::{
    MeshData, Segment, SkinLayout, Weights, add_segment, write_mesh, write_primitive,
};
use crate::skeleton::{Skeleton, sample_clip, v3, write_clip};

fn add_limb(sk: &mut Skeleton, parent: usize, name: &str, count: usize, first: Vec3, step: Vec3) {
    let mut parent = parent;
    for k in 0..count {
        let offset = if k == 0 { first } else { step };
        parent = sk.add(&format!("{name}{k}"), Some(parent), offset);
    }
}

pub(crate) fn rig64() -> Vec<u8> {
    let mut sk = Skeleton::default();
    let root = sk.add("Root", None, v3(0.0, 0.9, 0.0));
    let mut spine = Vec::new();
    let mut parent = root;
    for k in 0..4 {
        parent = sk.add(&format!("Spine{k}"), Some(parent), v3(0.0, 0.12, 0.0));
        spine.push(parent);
    }
    let neck = sk.add("Neck", Some(spine[3]), v3(0.0, 0.15, 0.0));
    let head = sk.add("Head", Some(neck), v3(0.0, 0.1, 0.0));
    sk.add("HeadEnd", Some(head), v3(0.0, 0.12, 0.0));
    add_limb(
        &mut sk,
        root,
        "Tail",
        6,
        v3(0.0, -0.02, -0.1),
        v3(0.0, -0.02, -0.1),
    );
    for (s, side) in [(1.0, "L"), (-1.0, "R")] {
        let limbs = [
            (
                spine[0],
                "Leg",
                6,
                v3(0.12, -0.05, 0.0),
                v3(0.02, -0.15, 0.0),
            ),
            (spine[0], "Fin", 4, v3(0.1, 0.0, 0.1), v3(0.07, 0.0, 0.07)),
            (
                spine[1],
                "Wing",
                5,
                v3(0.12, 0.0, 0.0),
                v3(0.11, -0.03, 0.03),
            ),
            (
                spine[1],
                "Spur",
                3,
                v3(0.1, 0.0, -0.1),
                v3(0.07, 0.01, -0.07),
            ),
            (spine[2], "Claw", 4, v3(0.14, 0.0, 0.0), v3(0.12, 0.0, 0.0)),
            (spine[3], "Arm", 3, v3(0.15, 0.05, 0.0), v3(0.13, 0.05, 0.0)),
        ];
        for (parent, name, count, first, step) in limbs {
            let mirror = v3(s, 1.0, 1.0);
            add_limb(
                &mut sk,
                parent,
                &format!("{name}{side}"),
                count,
                first * mirror,
                step * mirror,
            );
        }
    }
    assert_eq!(sk.len(), 64);
    let max_depth = (0..sk.len()).map(|j| sk.depth(j)).max().unwrap_or(0);
    assert_eq!(max_depth, 8);

    let mut doc = Doc::default();
    let nodes = sk.write_nodes(&mut doc);
    let skin = sk.write_skin(&mut doc, "Rig64", &nodes, nodes[root], Mat4::IDENTITY);
    let material = doc.material("Rig", [0.45, 0.75, 0.45, 1.0]);
    let pos = sk.rest_positions(Mat4::IDENTITY);
    let mut mesh = MeshData::default();
    for j in 0..sk.len() {
        let children = sk.children(j);
        let parent = sk.joints[j].parent;
        let (end, next) = match children.first() {
            Some(&c) => (pos[c], Some(c)),
            None => {
                let from = parent.map_or(pos[j] - Vec3::Y, |p| pos[p]);
                (pos[j] + (pos[j] - from).normalize() * 0.08, None)
            }
        };
        let thick = if j == root || spine.contains(&j) {
            0.07
        } else {
            0.025
        };
        add_segment(
            &mut mesh,
            &Segment {
                start: pos[j],
                end,
                half: Vec2::splat(thick),
                segs: 2,
                owner: j,
                prev: parent,
                next,
            },
        );
    }
    let layout = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 1,
    };
    let primitive = write_primitive(&mut doc, &mesh, Some(layout), material);
    let mesh = write_mesh(&mut doc, "Rig64Body", vec![primitive]);
    let mesh_node = doc.node(json!({"name": "Rig64Body", "mesh": mesh, "skin": skin}));
    doc.scene_roots = vec![nodes[root], mesh_node];

    let all: Vec<usize> = (0..sk.len()).collect();
    let clip_a = sample_clip(1.0, 31, |t| {
        let phase = TAU * t;
        let mut p = sk.rest();
        for (j, r) in p.r.iter_mut().enumerate() {
            let fj = j as f32;
            *r = Quat::from_rotation_z(0.15 * (phase + 0.4 * fj).sin())
                * Quat::from_rotation_x(0.1 * (phase + 0.7 * fj).cos());
        }
        p.t[root] += v3(0.0, 0.03 * (2.0 * phase).sin(), 0.0);
        p
    });
    write_clip(&mut doc, "a", &clip_a, &nodes, &all, &[(root, true)]);
    let clip_b = sample_clip(1.5, 46, |t| {
        let phase = TAU * t / 1.5;
        let mut p = sk.rest();
        for (j, r) in p.r.iter_mut().enumerate() {
            let fj = j as f32;
            *r = Quat::from_rotation_x(0.2 * (phase + 0.3 * fj).sin())
                * Quat::from_rotation_y(0.1 * (2.0 * phase + 0.5 * fj).sin());
        }
        p.t[root] += v3(
            0.05 * phase.sin(),
            0.02 * (2.0 * phase).sin(),
            0.05 * (phase.cos() - 1.0),
        );
        p
    });
    write_clip(&mut doc, "b", &clip_b, &nodes, &all, &[(root, true)]);
    doc.into_glb()
}
