//! Mesh builders: boxes and segments skinned along bones, rigid blocks, influence layouts
//! and the primitives and meshes written from them.

use glam::{Mat4, Vec2, Vec3};
use serde_json::{Value, json};

use crate::gltf::{
    ARRAY_BUFFER, Doc, ELEMENT_ARRAY_BUFFER, UNSIGNED_BYTE, UNSIGNED_INT, UNSIGNED_SHORT, flat2,
    flat3,
};
use crate::skeleton::v3;

#[derive(Default)]
pub(crate) struct MeshData {
    pub(crate) positions: Vec<Vec3>,
    pub(crate) normals: Vec<Vec3>,
    pub(crate) uvs: Vec<Vec2>,
    /// (joint, weight) pairs per vertex; empty for rigid meshes.
    pub(crate) influences: Vec<Vec<(usize, f32)>>,
    pub(crate) indices: Vec<u32>,
}

impl MeshData {
    pub(crate) fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    pub(crate) fn push_vertex(
        &mut self,
        p: Vec3,
        n: Vec3,
        uv: Vec2,
        influences: Vec<(usize, f32)>,
    ) -> u32 {
        self.positions.push(p);
        self.normals.push(n.normalize());
        self.uvs.push(uv);
        if !influences.is_empty() {
            self.influences.push(influences);
        }
        u32::try_from(self.positions.len() - 1).expect("vertex count")
    }
}

/// Vertex weights as a function of the position along a box (0 at `start`,
/// 1 at `end`) and the world position.
pub(crate) type WeightFn<'a> = &'a dyn Fn(f32, Vec3) -> Vec<(usize, f32)>;

/// A box from `start` to `end` with half extents `half` across the axis,
/// cut into `segs` rings along it so that skinning can bend it. Faces have
/// their own vertices (flat normals, one UV square per face).
pub(crate) fn add_box(
    mesh: &mut MeshData,
    start: Vec3,
    end: Vec3,
    half: Vec2,
    segs: u32,
    weight: WeightFn,
) {
    let axis = end - start;
    let length = axis.length();
    assert!(length > 1e-6, "degenerate box");
    let d = axis / length;
    let reference = if d.y.abs() > 0.7 { Vec3::Z } else { Vec3::Y };
    let u = reference.cross(d).normalize();
    let v = d.cross(u);
    let (a, b, l) = (half.x, half.y, length);
    let to_world = |p: Vec3| start + u * p.x + v * p.y + d * p.z;
    let dir_to_world = |n: Vec3| u * n.x + v * n.y + d * n.z;
    // (origin, edge 1, edge 2, cuts along edge 1, cuts along edge 2); edge 1
    // x edge 2 points out of the box.
    let faces = [
        (
            v3(a, -b, 0.0),
            v3(0.0, 2.0 * b, 0.0),
            v3(0.0, 0.0, l),
            1,
            segs,
        ),
        (
            v3(-a, -b, 0.0),
            v3(0.0, 0.0, l),
            v3(0.0, 2.0 * b, 0.0),
            segs,
            1,
        ),
        (
            v3(-a, b, 0.0),
            v3(0.0, 0.0, l),
            v3(2.0 * a, 0.0, 0.0),
            segs,
            1,
        ),
        (
            v3(-a, -b, 0.0),
            v3(2.0 * a, 0.0, 0.0),
            v3(0.0, 0.0, l),
            1,
            segs,
        ),
        (
            v3(-a, -b, l),
            v3(2.0 * a, 0.0, 0.0),
            v3(0.0, 2.0 * b, 0.0),
            1,
            1,
        ),
        (
            v3(-a, -b, 0.0),
            v3(0.0, 2.0 * b, 0.0),
            v3(2.0 * a, 0.0, 0.0),
            1,
            1,
        ),
    ];
    for (origin, e1, e2, n1, n2) in faces {
        let normal = dir_to_world(e1.cross(e2));
        let base = u32::try_from(mesh.vertex_count()).expect("vertex count");
        for j in 0..=n2 {
            for i in 0..=n1 {
                let (fi, fj) = (i as f32 / n1 as f32, j as f32 / n2 as f32);
                let local = origin + e1 * fi + e2 * fj;
                let world = to_world(local);
                let influences = weight(local.z / l, world);
                mesh.push_vertex(world, normal, Vec2::new(fi, fj), influences);
            }
        }
        let row = n1 + 1;
        for j in 0..n2 {
            for i in 0..n1 {
                let k = base + j * row + i;
                mesh.indices
                    .extend_from_slice(&[k, k + 1, k + row + 1, k, k + row + 1, k + row]);
            }
        }
    }
}

/// A bone-shaped box owned by one joint whose ends blend half-and-half with
/// the neighbouring joints.
pub(crate) struct Segment {
    pub(crate) start: Vec3,
    pub(crate) end: Vec3,
    pub(crate) half: Vec2,
    pub(crate) segs: u32,
    pub(crate) owner: usize,
    pub(crate) prev: Option<usize>,
    pub(crate) next: Option<usize>,
}

const BLEND: f32 = 0.25;

pub(crate) fn add_segment(mesh: &mut MeshData, seg: &Segment) {
    let weight = |t: f32, _: Vec3| {
        let t = t.clamp(0.0, 1.0);
        let mut out = Vec::new();
        let mut own = 1.0;
        if let Some(prev) = seg.prev {
            let w = 0.5 * (1.0 - t / BLEND);
            if w > 0.0 {
                out.push((prev, w));
                own -= w;
            }
        }
        if let Some(next) = seg.next {
            let w = 0.5 * (1.0 - (1.0 - t) / BLEND);
            if w > 0.0 {
                out.push((next, w));
                own -= w;
            }
        }
        out.insert(0, (seg.owner, own));
        out
    };
    add_box(mesh, seg.start, seg.end, seg.half, seg.segs, &weight);
}

/// An eight-vertex box with corner normals, fully bound to one joint.
pub(crate) fn add_block(
    mesh: &mut MeshData,
    transform: Mat4,
    center: Vec3,
    half: Vec3,
    joint: usize,
) {
    let base = u32::try_from(mesh.vertex_count()).expect("vertex count");
    for corner in 0..8u32 {
        let sign = v3(
            if corner & 1 == 0 { -1.0 } else { 1.0 },
            if corner & 2 == 0 { -1.0 } else { 1.0 },
            if corner & 4 == 0 { -1.0 } else { 1.0 },
        );
        let p = transform.transform_point3(center + sign * half);
        let n = transform.transform_vector3(sign);
        let uv = Vec2::new((sign.x + 1.0) * 0.5, (sign.y + 1.0) * 0.5);
        mesh.push_vertex(p, n, uv, vec![(joint, 1.0)]);
    }
    const QUADS: [[u32; 4]; 6] = [
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ];
    for [a, b, c, d] in QUADS {
        mesh.indices.extend_from_slice(&[
            base + a,
            base + b,
            base + c,
            base + a,
            base + c,
            base + d,
        ]);
    }
}

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Weights {
    Float,
    NormalizedU8,
}

/// How joint influences are stored: joint index component type, weight
/// encoding and number of JOINTS_n/WEIGHTS_n sets.
#[derive(Clone, Copy)]
pub(crate) struct SkinLayout {
    pub(crate) joints: u32,
    pub(crate) weights: Weights,
    pub(crate) sets: usize,
}

/// Sorts, pads and normalises influences to `slots` entries.
fn normalized_influences(influences: &[(usize, f32)], slots: usize) -> Vec<(usize, f32)> {
    let mut list: Vec<(usize, f32)> = influences.iter().copied().filter(|i| i.1 > 0.0).collect();
    list.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    assert!(
        !list.is_empty() && list.len() <= slots,
        "vertex has {} influences, layout holds {slots}",
        list.len()
    );
    let total: f32 = list.iter().map(|i| i.1).sum();
    for i in &mut list {
        i.1 /= total;
    }
    // Put the rounding error on the largest weight.
    let rest: f32 = list[1..].iter().map(|i| i.1).sum();
    list[0].1 = 1.0 - rest;
    list.resize(slots, (0, 0.0));
    list
}

/// Quantises weights summing to 1 into bytes summing to exactly 255.
fn quantize_u8(weights: &[f32]) -> Vec<i64> {
    let mut q: Vec<i64> = weights.iter().map(|w| (w * 255.0).floor() as i64).collect();
    let mut missing = 255 - q.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&x, &y| {
        let rx = weights[x] * 255.0 - q[x] as f32;
        let ry = weights[y] * 255.0 - q[y] as f32;
        ry.total_cmp(&rx).then(x.cmp(&y))
    });
    for &i in order.iter().cycle() {
        if missing == 0 {
            break;
        }
        if weights[i] > 0.0 {
            q[i] += 1;
            missing -= 1;
        }
    }
    q
}

/// Writes one triangle primitive and returns its JSON.
pub(crate) fn write_primitive(
    doc: &mut Doc,
    mesh: &MeshData,
    layout: Option<SkinLayout>,
    material: usize,
) -> Value {
    let position = doc.floats(&flat3(&mesh.positions), "VEC3", Some(ARRAY_BUFFER), true);
    let normal = doc.floats(&flat3(&mesh.normals), "VEC3", Some(ARRAY_BUFFER), false);
    let uv = doc.floats(&flat2(&mesh.uvs), "VEC2", Some(ARRAY_BUFFER), false);
    let mut attributes = json!({"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv});
    if let Some(layout) = layout {
        assert_eq!(mesh.influences.len(), mesh.vertex_count());
        let slots = layout.sets * 4;
        let all: Vec<Vec<(usize, f32)>> = mesh
            .influences
            .iter()
            .map(|i| normalized_influences(i, slots))
            .collect();
        let quantized: Vec<Vec<i64>> = all
            .iter()
            .map(|i| {
                let w: Vec<f32> = i.iter().map(|x| x.1).collect();
                quantize_u8(&w)
            })
            .collect();
        for set in 0..layout.sets {
            let range = set * 4..set * 4 + 4;
            let joints: Vec<i64> = all
                .iter()
                .flat_map(|i| i[range.clone()].iter().map(|x| x.0 as i64))
                .collect();
            let joints = doc.ints(&joints, layout.joints, false, "VEC4", Some(ARRAY_BUFFER));
            let weights = match layout.weights {
                Weights::Float => {
                    let w: Vec<f32> = all
                        .iter()
                        .flat_map(|i| i[range.clone()].iter().map(|x| x.1))
                        .collect();
                    doc.floats(&w, "VEC4", Some(ARRAY_BUFFER), false)
                }
                Weights::NormalizedU8 => {
                    let w: Vec<i64> = quantized
                        .iter()
                        .flat_map(|q| q[range.clone()].iter().copied())
                        .collect();
                    doc.ints(&w, UNSIGNED_BYTE, true, "VEC4", Some(ARRAY_BUFFER))
                }
            };
            attributes[format!("JOINTS_{set}")] = json!(joints);
            attributes[format!("WEIGHTS_{set}")] = json!(weights);
        }
    }
    let indices: Vec<i64> = mesh.indices.iter().map(|&i| i64::from(i)).collect();
    let index_type = if mesh.vertex_count() <= 65536 {
        UNSIGNED_SHORT
    } else {
        UNSIGNED_INT
    };
    let indices = doc.ints(
        &indices,
        index_type,
        false,
        "SCALAR",
        Some(ELEMENT_ARRAY_BUFFER),
    );
    json!({"attributes": attributes, "indices": indices, "material": material})
}

pub(crate) fn write_mesh(doc: &mut Doc, name: &str, primitives: Vec<Value>) -> usize {
    doc.meshes
        .push(json!({"name": name, "primitives": primitives}));
    doc.meshes.len() - 1
}
