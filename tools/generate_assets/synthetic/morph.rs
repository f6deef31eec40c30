//! `synthetic/morph.glb`: a two-joint column with three morph targets, two primitives and
//! clips animating the weights with each interpolation.

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::{Value, json};

use crate::gltf::{
    CUBICSPLINE, Channel, Doc, FLOAT, LINEAR, STEP, UNSIGNED_SHORT, flat3, int_bytes, nums,
};
use crate::mesh::{MeshData, SkinLayout, Weights, add_box, write_mesh, write_primitive};
use crate::skeleton::{Skeleton, smoothstep, v3};

/// Morph target `t` of a vertex at `p`: (position delta, normal delta).
/// 0 widens the column, 1 leans it along +X, 2 stretches what lies above
/// y = 1 (zero below, so it is stored sparse).
fn morph_delta(t: usize, p: Vec3) -> (Vec3, Vec3) {
    match t {
        0 => (v3(p.x, 0.0, p.z) * 0.5, v3(0.0, 0.2, 0.0)),
        1 => (v3(0.3 * p.y, 0.0, 0.0), v3(-0.2, 0.0, 0.0)),
        _ if p.y > 1.0 => (v3(0.0, 0.25 * (p.y - 1.0), 0.0), v3(0.0, 0.0, 0.1)),
        _ => (Vec3::ZERO, Vec3::ZERO),
    }
}

/// The three targets of `mesh` as glTF target objects; target 2 uses sparse
/// accessors without a base view (zeros except the vertices above y = 1).
fn write_morph_targets(doc: &mut Doc, mesh: &MeshData) -> Value {
    let mut targets = Vec::new();
    for t in 0..3 {
        let deltas: Vec<(Vec3, Vec3)> = mesh.positions.iter().map(|&p| morph_delta(t, p)).collect();
        let positions: Vec<Vec3> = deltas.iter().map(|d| d.0).collect();
        let normals: Vec<Vec3> = deltas.iter().map(|d| d.1).collect();
        if t < 2 {
            let position = doc.floats(&flat3(&positions), "VEC3", None, true);
            let normal = doc.floats(&flat3(&normals), "VEC3", None, false);
            targets.push(json!({"POSITION": position, "NORMAL": normal}));
            continue;
        }
        let moved: Vec<usize> = (0..positions.len())
            .filter(|&v| positions[v] != Vec3::ZERO)
            .collect();
        let sparse = |doc: &mut Doc, values: &[Vec3], bounds: bool| {
            let indices: Vec<i64> = moved.iter().map(|&v| v as i64).collect();
            let indices_view = doc.view(&int_bytes(&indices, UNSIGNED_SHORT), None);
            let picked: Vec<Vec3> = moved.iter().map(|&v| values[v]).collect();
            let bytes: Vec<u8> = flat3(&picked)
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect();
            let values_view = doc.view(&bytes, None);
            let mut accessor = json!({
                "componentType": FLOAT,
                "count": values.len(),
                "type": "VEC3",
                "sparse": {
                    "count": moved.len(),
                    "indices": {"bufferView": indices_view, "componentType": UNSIGNED_SHORT},
                    "values": {"bufferView": values_view},
                },
            });
            if bounds {
                let min = values.iter().fold(Vec3::INFINITY, |a, &b| a.min(b));
                let max = values.iter().fold(Vec3::NEG_INFINITY, |a, &b| a.max(b));
                accessor["min"] = nums(&min.to_array());
                accessor["max"] = nums(&max.to_array());
            }
            doc.accessor(accessor)
        };
        let position = sparse(doc, &positions, true);
        let normal = sparse(doc, &normals, false);
        targets.push(json!({"POSITION": position, "NORMAL": normal}));
    }
    Value::Array(targets)
}

pub(crate) fn morph() -> Vec<u8> {
    let mut sk = Skeleton::default();
    let root = sk.add("Root", None, Vec3::ZERO);
    let tip = sk.add("Tip", Some(root), v3(0.0, 1.0, 0.0));
    let mut doc = Doc::default();
    let nodes = sk.write_nodes(&mut doc);
    let skin = sk.write_skin(&mut doc, "Morph", &nodes, nodes[root], Mat4::IDENTITY);
    let material = doc.material("Morph", [0.4, 0.7, 0.5, 1.0]);

    // The column bends between the joints; the cap follows the tip.
    let mut column = MeshData::default();
    let bend = |t: f32, _: Vec3| {
        let w = smoothstep((t - 0.25) / 0.5);
        let mut out = vec![(root, 1.0 - w), (tip, w)];
        out.retain(|i| i.1 > 0.0);
        out
    };
    add_box(
        &mut column,
        Vec3::ZERO,
        v3(0.0, 2.0, 0.0),
        Vec2::splat(0.2),
        4,
        &bend,
    );
    let mut cap = MeshData::default();
    add_box(
        &mut cap,
        v3(0.0, 2.0, 0.0),
        v3(0.0, 2.3, 0.0),
        Vec2::splat(0.25),
        1,
        &|_, _| vec![(tip, 1.0)],
    );
    let layout = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 1,
    };
    let mut primitives = Vec::new();
    for part in [&column, &cap] {
        let mut primitive = write_primitive(&mut doc, part, Some(layout), material);
        primitive["targets"] = write_morph_targets(&mut doc, part);
        primitives.push(primitive);
    }
    let mesh = write_mesh(&mut doc, "Column", primitives);
    doc.meshes[mesh]["weights"] = nums(&[0.25, 0.0, 0.5]);
    doc.meshes[mesh]["extras"] = json!({"targetNames": ["Bulge", "Lean", "Stretch"]});
    let first = doc.node(json!({"name": "Column", "mesh": mesh, "skin": skin}));
    let second = doc.node(json!({
        "name": "ColumnB",
        "mesh": mesh,
        "skin": skin,
        "weights": nums(&[0.0, 0.5, 1.0]),
    }));
    doc.scene_roots = vec![nodes[root], first, second];

    // Every clip bends the tip; all but `still` animate the first node's
    // weights. The second node keeps its own weights throughout.
    let bend_clip = |doc: &mut Doc, duration: f32| {
        let input = doc.times(&[0.0, duration]);
        let output = doc.quats(&[Quat::IDENTITY, Quat::from_rotation_z(0.5)]);
        Channel {
            node: nodes[tip],
            path: "rotation",
            interpolation: LINEAR,
            input,
            output,
        }
    };
    let clips: [(&str, &str, &[f32], &[f32]); 3] = [
        (
            "linear",
            LINEAR,
            &[0.0, 0.5, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 1.0, 0.25],
        ),
        (
            "step",
            STEP,
            &[0.0, 0.4, 0.8],
            &[0.2, 0.4, 0.6, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        ),
        (
            "cubic",
            CUBICSPLINE,
            &[0.0, 0.6, 1.2],
            // Per key: in tangent, value, out tangent (three weights each).
            &[
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.5, //
                0.5, 0.0, 0.0, 1.0, 0.5, 0.2, -0.5, 0.25, 0.0, //
                0.0, 0.0, 0.0, 0.3, 0.3, 0.3, 0.0, 0.0, 0.0,
            ],
        ),
    ];
    for (name, interpolation, times, weights) in clips {
        doc.begin_pack();
        let input = doc.times(times);
        let output = doc.floats(weights, "SCALAR", None, false);
        let weights = Channel {
            node: first,
            path: "weights",
            interpolation,
            input,
            output,
        };
        let bend = bend_clip(&mut doc, times[times.len() - 1]);
        doc.end_pack();
        doc.animation(name, &[weights, bend]);
    }
    doc.begin_pack();
    let bend = bend_clip(&mut doc, 1.0);
    doc.end_pack();
    doc.animation("still", &[bend]);
    doc.into_glb()
}
