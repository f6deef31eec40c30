//! `synthetic/influences.glb`: a 12-joint chain whose mesh has 5 to 12 influences per
//! vertex.

use std::f32::consts::TAU;

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;

use crate::gltf::{Doc, UNSIGNED_BYTE, UNSIGNED_SHORT};
use crate::mesh::{MeshData, SkinLayout, Weights, add_box, write_mesh, write_primitive};
use crate::skeleton::{Skeleton, sample_clip, v3, write_clip};

const INFLUENCE_JOINTS: usize = 12;
const INFLUENCE_SPACING: f32 = 0.1;

/// The `count` chain joints nearest to height `y`, each weighted by its
/// closeness (distinct weights, nearest heaviest; normalised on writing).
fn nearest_joints(y: f32, count: usize) -> Vec<(usize, f32)> {
    let mut joints: Vec<(usize, f32)> = (0..INFLUENCE_JOINTS)
        .map(|j| {
            let d = (y - j as f32 * INFLUENCE_SPACING).abs() / INFLUENCE_SPACING;
            (j, 1.0 / (1.0 + d + 0.01 * j as f32))
        })
        .collect();
    joints.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    joints.truncate(count);
    joints
}

pub(crate) fn influences() -> Vec<u8> {
    let mut sk = Skeleton::default();
    let mut parent = sk.add("Root", None, Vec3::ZERO);
    for j in 1..INFLUENCE_JOINTS {
        parent = sk.add(
            &format!("Bone{j}"),
            Some(parent),
            v3(0.0, INFLUENCE_SPACING, 0.0),
        );
    }
    let mut doc = Doc::default();
    let nodes = sk.write_nodes(&mut doc);
    let skin = sk.write_skin(&mut doc, "Chain", &nodes, nodes[0], Mat4::IDENTITY);
    let material = doc.material("Influences", [0.8, 0.55, 0.35, 1.0]);
    let top = INFLUENCE_SPACING * (INFLUENCE_JOINTS - 1) as f32;
    // Each column's vertices take `base` + 0..3 influences, by the quadrant
    // (around the column's axis) they lie in.
    let column = |x: f32, base: usize| {
        let mut mesh = MeshData::default();
        let weight = move |_: f32, p: Vec3| {
            let extra = usize::from(p.x > x) + 2 * usize::from(p.z > 0.0);
            nearest_joints(p.y, base + extra)
        };
        add_box(
            &mut mesh,
            v3(x, 0.0, 0.0),
            v3(x, top, 0.0),
            Vec2::splat(0.04),
            2 * INFLUENCE_JOINTS as u32,
            &weight,
        );
        mesh
    };
    let eight = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 2,
    };
    let twelve = SkinLayout {
        joints: UNSIGNED_BYTE,
        weights: Weights::Float,
        sets: 3,
    };
    let primitives = vec![
        write_primitive(&mut doc, &column(-0.1, 5), Some(eight), material),
        write_primitive(&mut doc, &column(0.1, 9), Some(twelve), material),
    ];
    let mesh = write_mesh(&mut doc, "Columns", primitives);
    let mesh_node = doc.node(json!({"name": "Columns", "mesh": mesh, "skin": skin}));
    doc.scene_roots = vec![nodes[0], mesh_node];

    let all: Vec<usize> = (0..sk.len()).collect();
    let bend = sample_clip(1.0, 25, |t| {
        let phase = TAU * t;
        let mut p = sk.rest();
        for (j, r) in p.r.iter_mut().enumerate() {
            let fj = j as f32;
            *r = Quat::from_rotation_z(0.25 * (phase + 0.5 * fj).sin())
                * Quat::from_rotation_x(0.15 * (phase + 0.9 * fj).cos());
        }
        p.t[0] += v3(0.02 * phase.sin(), 0.0, 0.0);
        p
    });
    write_clip(&mut doc, "bend", &bend, &nodes, &all, &[(0, true)]);
    doc.into_glb()
}
