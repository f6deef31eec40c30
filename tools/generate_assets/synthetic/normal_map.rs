//! `synthetic/normal_map.glb`: a two-joint upright panel with tangents, a normal map, a base
//! colour texture on `TEXCOORD_1`, vertex colours, and the metallic-roughness model's textures
//! (metalness, roughness and occlusion in one image, an emissive texture sharing the base
//! colour's image): what the humanoid's flat material does not exercise.

use std::f32::consts::TAU;

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::json;

use crate::gltf::{ARRAY_BUFFER, Doc, UNSIGNED_SHORT, flat2, nums};
use crate::mesh::{MeshData, SkinLayout, Weights, write_mesh, write_primitive};
use crate::png::encode_rgba;
use crate::skeleton::{Skeleton, sample_clip, v3, write_clip};

/// Texels along each side of both textures.
const TEXELS: u32 = 16;
/// Quads along each side of the panel.
const QUADS: u32 = 8;
/// The panel's side, in metres.
const SIDE: f32 = 0.8;

/// A `TEXELS²` RGBA8 image whose texel `(x, y)` is `texel(x, y)`.
fn image(texel: impl Fn(u32, u32) -> [u8; 4]) -> Vec<u8> {
    (0..TEXELS * TEXELS)
        .flat_map(|i| texel(i % TEXELS, i / TEXELS))
        .collect()
}

/// Vertical stripes four texels wide, tilted 45° towards +u and -u by turns (tangent space,
/// encoded as `n × 0.5 + 0.5`).
fn normal_texel(x: u32, _: u32) -> [u8; 4] {
    if (x / 4).is_multiple_of(2) {
        [218, 128, 218, 255]
    } else {
        [38, 128, 218, 255]
    }
}

/// A checker of four-texel cells, light grey and orange.
pub(crate) fn base_texel(x: u32, y: u32) -> [u8; 4] {
    if (x / 4 + y / 4).is_multiple_of(2) {
        [220, 220, 220, 255]
    } else {
        [230, 140, 40, 255]
    }
}

/// Occlusion (red: darker in a border two texels wide), roughness (green: rising along u from
/// 0.25 to 1) and metalness (blue: the right half metallic), as glTF packs them.
fn orm_texel(x: u32, y: u32) -> [u8; 4] {
    let border = x < 2 || y < 2 || x >= TEXELS - 2 || y >= TEXELS - 2;
    let occlusion = if border { 96 } else { 255 };
    let roughness = 64 + (191 * x / (TEXELS - 1)) as u8;
    let metal = if x >= TEXELS / 2 { 255 } else { 0 };
    [occlusion, roughness, metal, 255]
}

pub(crate) fn normal_map() -> Vec<u8> {
    let mut sk = Skeleton::default();
    let root = sk.add("Root", None, Vec3::ZERO);
    let top = sk.add("Top", Some(root), v3(0.0, 0.5 * SIDE, 0.0));
    let mut doc = Doc::default();
    let nodes = sk.write_nodes(&mut doc);
    let skin = sk.write_skin(&mut doc, "Panel", &nodes, nodes[root], Mat4::IDENTITY);

    // The panel in the z = 0 plane facing +Z: u along +X, v down; the upper half bends with
    // `Top`.
    let mut mesh = MeshData::default();
    let n = QUADS + 1;
    for j in 0..n {
        for i in 0..n {
            let (u, v) = (i as f32 / QUADS as f32, 1.0 - j as f32 / QUADS as f32);
            let p = v3((u - 0.5) * SIDE, (1.0 - v) * SIDE, 0.0);
            let w = ((p.y - 0.5 * SIDE) / (0.5 * SIDE)).clamp(0.0, 1.0);
            let influences = vec![(root, 1.0 - w), (top, w)];
            mesh.push_vertex(p, Vec3::Z, Vec2::new(u, v), influences);
        }
    }
    for j in 0..QUADS {
        for i in 0..QUADS {
            let (a, b) = (j * n + i, j * n + i + 1);
            let (c, d) = (b + n, a + n);
            mesh.indices.extend_from_slice(&[a, b, c, a, c, d]);
        }
    }
    let count = mesh.vertex_count();
    let tangents: Vec<f32> = (0..count).flat_map(|_| [1.0, 0.0, 0.0, 1.0]).collect();
    let uvs1: Vec<Vec2> = mesh
        .uvs
        .iter()
        .map(|uv| Vec2::new(1.0 - uv.x, uv.y))
        .collect();
    let colors: Vec<f32> = mesh
        .uvs
        .iter()
        .flat_map(|uv| [1.0, 0.85 + 0.15 * uv.x, 0.7 + 0.3 * uv.y, 1.0])
        .collect();

    let base = doc.png_texture(
        "checker",
        &encode_rgba(TEXELS, TEXELS, &image(base_texel)),
        json!({"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 10497}),
    );
    let normals = doc.png_texture(
        "stripes",
        &encode_rgba(TEXELS, TEXELS, &image(normal_texel)),
        json!({"magFilter": 9729, "minFilter": 9729}),
    );
    let orm = doc.png_texture(
        "orm",
        &encode_rgba(TEXELS, TEXELS, &image(orm_texel)),
        json!({"magFilter": 9728, "minFilter": 9728}),
    );
    doc.materials.push(json!({
        "name": "Panel",
        "pbrMetallicRoughness": {
            "baseColorFactor": nums(&[1.0, 1.0, 1.0, 1.0]),
            "baseColorTexture": {"index": base, "texCoord": 1},
            "metallicFactor": 0.5,
            "roughnessFactor": 0.875,
            "metallicRoughnessTexture": {"index": orm, "texCoord": 0},
        },
        "normalTexture": {"index": normals, "texCoord": 0, "scale": 1.0},
        "occlusionTexture": {"index": orm, "texCoord": 0, "strength": 0.75},
        "emissiveFactor": nums(&[0.125, 0.0625, 0.0]),
        "emissiveTexture": {"index": base, "texCoord": 1},
        "doubleSided": true,
    }));
    let material = doc.materials.len() - 1;
    let layout = SkinLayout {
        joints: UNSIGNED_SHORT,
        weights: Weights::Float,
        sets: 1,
    };
    let mut primitive = write_primitive(&mut doc, &mesh, Some(layout), material);
    let tangent = doc.floats(&tangents, "VEC4", Some(ARRAY_BUFFER), false);
    let uv1 = doc.floats(&flat2(&uvs1), "VEC2", Some(ARRAY_BUFFER), false);
    let color = doc.floats(&colors, "VEC4", Some(ARRAY_BUFFER), false);
    primitive["attributes"]["TANGENT"] = json!(tangent);
    primitive["attributes"]["TEXCOORD_1"] = json!(uv1);
    primitive["attributes"]["COLOR_0"] = json!(color);
    let mesh = write_mesh(&mut doc, "Panel", vec![primitive]);
    let mesh_node = doc.node(json!({"name": "Panel", "mesh": mesh, "skin": skin}));
    doc.scene_roots = vec![nodes[root], mesh_node];

    let sway = sample_clip(1.0, 25, |t| {
        let phase = TAU * t;
        let mut p = sk.rest();
        p.r[root] = Quat::from_rotation_y(0.3 * phase.sin());
        p.r[top] = Quat::from_rotation_x(0.25 * phase.sin());
        p
    });
    write_clip(&mut doc, "sway", &sway, &nodes, &[root, top], &[]);
    doc.into_glb()
}
