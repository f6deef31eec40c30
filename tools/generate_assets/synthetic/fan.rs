//! `synthetic/fan.glb`: one root joint with 255 direct children and a `spin` clip.

use std::f32::consts::TAU;

use glam::{Mat4, Quat, Vec3};
use serde_json::json;

use crate::gltf::{Channel, Doc, LINEAR, UNSIGNED_SHORT};
use crate::mesh::{MeshData, SkinLayout, Weights, add_block, write_mesh, write_primitive};
use crate::skeleton::{Skeleton, make_continuous, v3};

pub(crate) fn fan() -> Vec<u8> {
    const CHILDREN: usize = 255;
    const RADIUS: f32 = 1.0;
    let angle_of = |i: usize| TAU * i as f32 / CHILDREN as f32;
    let mut sk = Skeleton::default();
    let root = sk.add("FanRoot", None, Vec3::ZERO);
    for i in 0..CHILDREN {
        let a = angle_of(i);
        // Local +X points away from the centre.
        sk.add_rotated(
            &format!("Blade{i:03}"),
            Some(root),
            v3(a.cos(), 0.0, a.sin()) * RADIUS,
            Quat::from_rotation_y(-a),
        );
    }
    let mut doc = Doc::default();
    let nodes = sk.write_nodes(&mut doc);
    let skin = sk.write_skin(&mut doc, "Fan", &nodes, nodes[root], Mat4::IDENTITY);
    let material = doc.material("Fan", [0.85, 0.55, 0.25, 1.0]);
    let globals = sk.globals(Mat4::IDENTITY, &sk.rest());
    let mut mesh = MeshData::default();
    add_block(
        &mut mesh,
        globals[root],
        Vec3::ZERO,
        v3(0.08, 0.08, 0.08),
        root,
    );
    for (j, global) in globals.iter().enumerate().skip(1) {
        add_block(
            &mut mesh,
            *global,
            v3(0.05, 0.0, 0.0),
            v3(0.05, 0.01, 0.012),
            j,
        );
    }
    let layout = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 1,
    };
    let primitive = write_primitive(&mut doc, &mesh, Some(layout), material);
    let mesh = write_mesh(&mut doc, "FanBlades", vec![primitive]);
    let mesh_node = doc.node(json!({"name": "FanBlades", "mesh": mesh, "skin": skin}));
    doc.scene_roots = vec![nodes[root], mesh_node];

    // spin: each blade turns once about its own Y axis, odd blades backwards.
    // Keys are 45 degrees apart so LINEAR (slerp) keys stay unambiguous.
    let keys = 9;
    let times: Vec<f32> = (0..keys)
        .map(|k| 2.0 * (k as f32 / (keys - 1) as f32))
        .collect();
    doc.begin_pack();
    let input = doc.times(&times);
    let mut channels = Vec::new();
    for i in 0..CHILDREN {
        let direction = if i % 2 == 0 { 1.0 } else { -1.0 };
        let mut values: Vec<Quat> = (0..keys)
            .map(|k| {
                let turn = direction * TAU * k as f32 / (keys - 1) as f32;
                Quat::from_rotation_y(-angle_of(i) + turn)
            })
            .collect();
        make_continuous(&mut values);
        let output = doc.quats(&values);
        channels.push(Channel {
            node: nodes[i + 1],
            path: "rotation",
            interpolation: LINEAR,
            input,
            output,
        });
    }
    doc.end_pack();
    doc.animation("spin", &channels);
    doc.into_glb()
}
