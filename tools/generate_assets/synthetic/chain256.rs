//! `synthetic/chain256.glb`: a 256-joint chain with `linear`, `step` and `cubic` clips.

use std::f32::consts::{FRAC_PI_2, TAU};

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;

use crate::gltf::{CUBICSPLINE, Channel, Doc, STEP, UNSIGNED_SHORT};
use crate::mesh::{MeshData, SkinLayout, Weights, write_mesh, write_primitive};
use crate::skeleton::{Skeleton, sample_clip, v3, write_clip};

const CHAIN_JOINTS: usize = 256;
const CHAIN_STEP: f32 = 0.05;

/// Rotation of chain joint `j` in the `cubic` clip and its time derivative.
fn chain_cubic(j: usize, t: f32) -> (Quat, Quat) {
    const DURATION: f32 = 2.0;
    let omega = TAU / DURATION;
    let fj = j as f32;
    let axis = v3(fj.sin(), 0.3, fj.cos()).normalize();
    let angle = 0.05 * (omega * t + 0.2 * fj).sin();
    let rate = 0.05 * omega * (omega * t + 0.2 * fj).cos();
    let (s, c) = (0.5 * angle).sin_cos();
    let value = Quat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c);
    // d/dt of (axis sin(θ/2), cos(θ/2)) = θ'/2 (axis cos(θ/2), -sin(θ/2)).
    let k = 0.5 * rate;
    let tangent = Quat::from_xyzw(axis.x * c * k, axis.y * c * k, axis.z * c * k, -s * k);
    (value, tangent)
}

pub(crate) fn chain256() -> Vec<u8> {
    let mut sk = Skeleton::default();
    for j in 0..CHAIN_JOINTS {
        let parent = j.checked_sub(1);
        let offset = if j == 0 {
            Vec3::ZERO
        } else {
            v3(0.0, CHAIN_STEP, 0.0)
        };
        sk.add(&format!("Joint{j:03}"), parent, offset);
    }
    let mut doc = Doc::default();
    let nodes = sk.write_nodes(&mut doc);
    let skin = sk.write_skin(&mut doc, "Chain", &nodes, nodes[0], Mat4::IDENTITY);
    let material = doc.material("Chain", [0.35, 0.6, 0.85, 1.0]);

    // A square tube with a ring at every joint and half-way between joints.
    let mut mesh = MeshData::default();
    let rings = 2 * CHAIN_JOINTS + 1;
    let radius = 0.012;
    for k in 0..rings {
        let y = k as f32 * CHAIN_STEP * 0.5;
        let influences = if k % 2 == 1 {
            vec![(k / 2, 1.0)]
        } else if k == 0 {
            vec![(0, 1.0)]
        } else if k == rings - 1 {
            vec![(CHAIN_JOINTS - 1, 1.0)]
        } else {
            vec![(k / 2 - 1, 0.5), (k / 2, 0.5)]
        };
        for m in 0..4 {
            let angle = FRAC_PI_2 * (m as f32 + 0.5);
            let dir = v3(angle.cos(), 0.0, angle.sin());
            let uv = Vec2::new(m as f32 / 4.0, k as f32 / (rings - 1) as f32);
            mesh.push_vertex(dir * radius + v3(0.0, y, 0.0), dir, uv, influences.clone());
        }
    }
    for k in 0..rings as u32 - 1 {
        for m in 0..4u32 {
            let a = 4 * k + m;
            let b = 4 * k + (m + 1) % 4;
            let (c, d) = (a + 4, b + 4);
            mesh.indices.extend_from_slice(&[a, c, b, b, c, d]);
        }
    }
    let layout = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 1,
    };
    let primitive = write_primitive(&mut doc, &mesh, Some(layout), material);
    let mesh = write_mesh(&mut doc, "ChainTube", vec![primitive]);
    let mesh_node = doc.node(json!({"name": "ChainTube", "mesh": mesh, "skin": skin}));
    doc.scene_roots = vec![nodes[0], mesh_node];

    // linear: every joint bends a little, a wave travelling along the chain.
    let linear = sample_clip(2.0, 21, |t| {
        let phase = TAU * t / 2.0;
        let mut p = sk.rest();
        for (j, r) in p.r.iter_mut().enumerate() {
            let fj = j as f32;
            *r = Quat::from_rotation_z(0.04 * (phase + 0.15 * fj).sin())
                * Quat::from_rotation_x(0.03 * (phase + 0.1 * fj).cos());
        }
        p
    });
    let all: Vec<usize> = (0..CHAIN_JOINTS).collect();
    write_clip(&mut doc, "linear", &linear, &nodes, &all, &[]);

    // step: every 32nd joint (starting at 16) jumps between lengths.
    let step_times = [0.0, 0.5, 1.0, 1.5, 2.0];
    doc.begin_pack();
    let input = doc.times(&step_times);
    let mut channels = Vec::new();
    for j in (16..CHAIN_JOINTS).step_by(32) {
        let stretch = [1.0, 1.6, 0.6, 1.3, 1.0];
        let values: Vec<Vec3> = stretch
            .iter()
            .enumerate()
            .map(|(k, s)| v3(0.01 * (k % 2) as f32, CHAIN_STEP * s, 0.0))
            .collect();
        let output = doc.vec3s(&values);
        channels.push(Channel {
            node: nodes[j],
            path: "translation",
            interpolation: STEP,
            input,
            output,
        });
    }
    doc.end_pack();
    doc.animation("step", &channels);

    // cubic: every joint, Hermite keys with analytic tangents.
    let keys = 11;
    let times: Vec<f32> = (0..keys)
        .map(|i| 2.0 * (i as f32 / (keys - 1) as f32))
        .collect();
    doc.begin_pack();
    let input = doc.times(&times);
    let mut channels = Vec::new();
    for (j, &node) in nodes.iter().enumerate() {
        let mut values = Vec::with_capacity(3 * keys);
        for &t in &times {
            let (value, tangent) = chain_cubic(j, t);
            values.extend([tangent, value, tangent]);
        }
        let output = doc.quats(&values);
        channels.push(Channel {
            node,
            path: "rotation",
            interpolation: CUBICSPLINE,
            input,
            output,
        });
    }
    doc.end_pack();
    doc.animation("cubic", &channels);
    doc.into_glb()
}
