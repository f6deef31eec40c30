//! `synthetic/features.glb`: one small skin exercising eight influences, normalized integer
//! weights and rotations, sparse accessors, CUBICSPLINE and STEP samplers, animated
//! non-uniform scale, a `matrix` parent and a rigid attachment.

use std::f32::consts::{FRAC_PI_2, PI};

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;

use crate::gltf::{
    CUBICSPLINE, Channel, Doc, FLOAT, LINEAR, SHORT, STEP, UNSIGNED_BYTE, UNSIGNED_SHORT,
    flat_quats, flat3, int_bytes, nums,
};
use crate::mesh::{MeshData, SkinLayout, Weights, add_box, write_mesh, write_primitive};
use crate::skeleton::{Skeleton, close_loop_quats, v3};

fn distance_to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

pub(crate) fn features() -> Vec<u8> {
    // The skeleton hangs below a plain node whose transform is a matrix:
    // translate (0, 0.25, 0) * rotate 90 degrees about Y * scale 0.5, written
    // out exactly (columns).
    let armature = Mat4::from_cols_array(&[
        0.0, 0.0, -0.5, 0.0, //
        0.0, 0.5, 0.0, 0.0, //
        0.5, 0.0, 0.0, 0.0, //
        0.0, 0.25, 0.0, 1.0,
    ]);
    assert!(armature.abs_diff_eq(
        Mat4::from_scale_rotation_translation(
            Vec3::splat(0.5),
            Quat::from_rotation_y(FRAC_PI_2),
            v3(0.0, 0.25, 0.0),
        ),
        1e-6
    ));
    let mut sk = Skeleton::default();
    let base = sk.add("Base", None, Vec3::ZERO);
    let body = sk.add("Body", Some(base), v3(0.0, 0.6, 0.0));
    let upper = sk.add("Upper", Some(body), v3(0.0, 0.6, 0.0));
    let top = sk.add("Top", Some(upper), v3(0.0, 0.5, 0.0));
    let arm_l = sk.add("ArmL", Some(body), v3(0.2, 0.4, 0.0));
    let hand_l = sk.add("HandL", Some(arm_l), v3(0.5, 0.0, 0.0));
    let arm_r = sk.add("ArmR", Some(body), v3(-0.2, 0.4, 0.0));
    let hand_r = sk.add("HandR", Some(arm_r), v3(-0.5, 0.0, 0.0));

    let mut doc = Doc::default();
    let matrix: Vec<f32> = armature.to_cols_array().to_vec();
    let armature_node = doc.node(json!({"name": "Armature", "matrix": nums(&matrix)}));
    let nodes = sk.write_nodes(&mut doc);
    doc.add_child(armature_node, nodes[base]);
    let skin = sk.write_skin(&mut doc, "Features", &nodes, nodes[base], armature);
    let material = doc.material("Features", [0.7, 0.4, 0.7, 1.0]);

    // Bones in world space: the skinned vertices are authored there.
    let pos = sk.rest_positions(armature);
    let bone_end = |j: usize| -> Vec3 {
        match sk.children(j).first() {
            Some(&c) => pos[c],
            None => {
                let p = sk.joints[j].parent.expect("leaf joints have parents");
                pos[j] + (pos[j] - pos[p]).normalize() * 0.12
            }
        }
    };
    let bones: Vec<(Vec3, Vec3)> = (0..sk.len()).map(|j| (pos[j], bone_end(j))).collect();
    // Smooth weights from the distance to every bone: vertices near the
    // junction of the arms get five to eight influences.
    let weight = |_: f32, p: Vec3| -> Vec<(usize, f32)> {
        let raw: Vec<f32> = bones
            .iter()
            .map(|&(a, b)| {
                let d = distance_to_segment(p, a, b) / 0.14;
                1.0 / (1.0 + d * d * d * d)
            })
            .collect();
        let total: f32 = raw.iter().sum();
        raw.iter()
            .enumerate()
            .filter(|&(_, &w)| w / total >= 0.004)
            .map(|(j, &w)| (j, w))
            .collect()
    };
    let half = Vec2::splat(0.05);
    let mut trunk = MeshData::default();
    for j in [base, body, upper, top] {
        add_box(&mut trunk, bones[j].0, bones[j].1, half, 4, &weight);
    }
    let mut arms = MeshData::default();
    for j in [arm_l, hand_l, arm_r, hand_r] {
        add_box(&mut arms, bones[j].0, bones[j].1, half * 0.8, 4, &weight);
    }
    let float_layout = SkinLayout {
        joints: UNSIGNED_BYTE,
        weights: Weights::Float,
        sets: 2,
    };
    let byte_layout = SkinLayout {
        joints: UNSIGNED_BYTE,
        weights: Weights::NormalizedU8,
        sets: 2,
    };
    let primitives = vec![
        write_primitive(&mut doc, &trunk, Some(float_layout), material),
        write_primitive(&mut doc, &arms, Some(byte_layout), material),
    ];
    let mesh = write_mesh(&mut doc, "FeaturesBody", primitives);
    let skinned_node = doc.node(json!({"name": "FeaturesBody", "mesh": mesh, "skin": skin}));

    // A rigid prop parented to HandL: not skinned, follows the joint.
    let mut prop = MeshData::default();
    add_box(
        &mut prop,
        v3(0.3, 0.0, 0.0),
        v3(0.55, 0.0, 0.0),
        Vec2::splat(0.1),
        1,
        &|_, _| Vec::new(),
    );
    let prop_material = doc.material("Prop", [0.9, 0.8, 0.2, 1.0]);
    let prop_primitive = write_primitive(&mut doc, &prop, None, prop_material);
    let prop_mesh = write_mesh(&mut doc, "Prop", vec![prop_primitive]);
    let prop_node = doc.node(json!({"name": "Prop", "mesh": prop_mesh}));
    doc.add_child(nodes[hand_l], prop_node);
    doc.scene_roots = vec![armature_node, skinned_node];

    // Animation `features`, 2 s.
    let times9: Vec<f32> = (0..9).map(|k| 0.25 * k as f32).collect();
    let times5: Vec<f32> = (0..5).map(|k| 0.5 * k as f32).collect();
    doc.begin_pack();
    let input9 = doc.times(&times9);
    let input5 = doc.times(&times5);
    let mut channels = Vec::new();

    // Body: plain LINEAR float rotation about Y.
    let mut body_rot: Vec<Quat> = times9
        .iter()
        .map(|&t| Quat::from_rotation_y(0.4 * (PI * t).sin()))
        .collect();
    close_loop_quats(&mut body_rot);
    let output = doc.quats(&body_rot);
    channels.push(Channel {
        node: nodes[body],
        path: "rotation",
        interpolation: LINEAR,
        input: input9,
        output,
    });

    // Upper: CUBICSPLINE rotation about Z with analytic tangents.
    let mut cubic = Vec::new();
    for &t in &times5 {
        let angle = 0.5 * (PI * t).sin();
        let rate = 0.5 * PI * (PI * t).cos();
        let (s, c) = (0.5 * angle).sin_cos();
        let k = 0.5 * rate;
        let tangent = Quat::from_xyzw(0.0, 0.0, c * k, -s * k);
        cubic.extend([tangent, Quat::from_xyzw(0.0, 0.0, s, c), tangent]);
    }
    let output = doc.quats(&cubic);
    channels.push(Channel {
        node: nodes[upper],
        path: "rotation",
        interpolation: CUBICSPLINE,
        input: input5,
        output,
    });

    // Top: LINEAR non-uniform scale.
    let scales: Vec<Vec3> = times9
        .iter()
        .map(|&t| {
            let s = (PI * t).sin();
            v3(1.0 + 0.3 * s, 1.0 - 0.2 * s, 1.0 + 0.1 * s)
        })
        .collect();
    let output = doc.vec3s(&scales);
    channels.push(Channel {
        node: nodes[top],
        path: "scale",
        interpolation: LINEAR,
        input: input9,
        output,
    });

    // ArmL: LINEAR rotation stored as normalized SHORT quaternions.
    let mut arm_rot: Vec<Quat> = times9
        .iter()
        .map(|&t| Quat::from_rotation_z(0.6 * (PI * t).sin()) * Quat::from_rotation_x(0.3))
        .collect();
    close_loop_quats(&mut arm_rot);
    let shorts: Vec<i64> = flat_quats(&arm_rot)
        .iter()
        .map(|&x| (x * 32767.0).round() as i64)
        .collect();
    let output = doc.ints(&shorts, SHORT, true, "VEC4", None);
    channels.push(Channel {
        node: nodes[arm_l],
        path: "rotation",
        interpolation: LINEAR,
        input: input9,
        output,
    });

    // HandR: LINEAR translation from a sparse accessor: the base view holds
    // the rest offset at every key, three keys are overridden.
    let rest = sk.joints[hand_r].translation;
    let base_values = vec![rest; times9.len()];
    let base_bytes: Vec<u8> = flat3(&base_values)
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let base_view = doc.view(&base_bytes, None);
    let sparse_indices: Vec<i64> = vec![2, 4, 6];
    let sparse_values = [
        rest + v3(0.0, 0.15, 0.0),
        rest + v3(-0.1, 0.0, 0.0),
        rest + v3(0.0, -0.15, 0.0),
    ];
    let indices_view = doc.view(&int_bytes(&sparse_indices, UNSIGNED_SHORT), None);
    let values_bytes: Vec<u8> = flat3(&sparse_values)
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let values_view = doc.view(&values_bytes, None);
    let output = doc.accessor(json!({
        "bufferView": base_view,
        "componentType": FLOAT,
        "count": times9.len(),
        "type": "VEC3",
        "sparse": {
            "count": sparse_indices.len(),
            "indices": {"bufferView": indices_view, "componentType": UNSIGNED_SHORT},
            "values": {"bufferView": values_view},
        },
    }));
    channels.push(Channel {
        node: nodes[hand_r],
        path: "translation",
        interpolation: LINEAR,
        input: input9,
        output,
    });

    // HandL: STEP translation.
    let rest = sk.joints[hand_l].translation;
    let steps = [
        rest,
        rest + v3(0.0, 0.1, 0.0),
        rest + v3(0.1, 0.0, 0.0),
        rest + v3(0.0, -0.1, 0.0),
        rest,
    ];
    let output = doc.vec3s(&steps);
    channels.push(Channel {
        node: nodes[hand_l],
        path: "translation",
        interpolation: STEP,
        input: input5,
        output,
    });

    // Prop: LINEAR translation from a sparse accessor without a base view
    // (all zeros except the overridden keys).
    let prop_indices: Vec<i64> = vec![3, 4, 5];
    let prop_values = [v3(0.0, 0.1, 0.0), v3(0.0, 0.2, 0.0), v3(0.0, 0.1, 0.0)];
    let indices_view = doc.view(&int_bytes(&prop_indices, UNSIGNED_BYTE), None);
    let values_bytes: Vec<u8> = flat3(&prop_values)
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let values_view = doc.view(&values_bytes, None);
    let output = doc.accessor(json!({
        "componentType": FLOAT,
        "count": times9.len(),
        "type": "VEC3",
        "sparse": {
            "count": prop_indices.len(),
            "indices": {"bufferView": indices_view, "componentType": UNSIGNED_BYTE},
            "values": {"bufferView": values_view},
        },
    }));
    channels.push(Channel {
        node: prop_node,
        path: "translation",
        interpolation: LINEAR,
        input: input9,
        output,
    });
    doc.end_pack();
    doc.animation("features", &channels);
    doc.into_glb()
}
