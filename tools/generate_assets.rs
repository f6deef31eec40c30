//! Writes the glTF assets that ship with sinew.
//!
//! ```text
//! cargo run --example generate_assets [OUTPUT_DIR]
//! ```
//!
//! `OUTPUT_DIR` defaults to `assets`. The program writes:
//!
//! * `humanoid.glb`: the default rig, 57 joints, Y up, metres, facing +Z, with
//!   the clips `idle`, `walk`, `run` and `wave`. `walk` and `run` carry root
//!   motion on the `Root` joint (translation along +Z).
//! * `synthetic/chain256.glb`: a 256-joint chain with `linear`, `step` and
//!   `cubic` clips.
//! * `synthetic/fan.glb`: one root joint with 255 direct children and a
//!   `spin` clip.
//! * `synthetic/rig64.glb`: a 64-joint branched rig with clips `a` (1.0 s) and
//!   `b` (1.5 s).
//! * `synthetic/rig64_packed.glb`: `rig64.glb` as gltfpack would write it:
//!   quantized vertex attributes (`KHR_mesh_quantization`) and every buffer
//!   view compressed (`EXT_meshopt_compression`, see `pack`).
//! * `synthetic/features.glb`: one small skin exercising eight influences per
//!   vertex, normalized integer weights and rotations, sparse accessors,
//!   CUBICSPLINE and STEP samplers, animated non-uniform scale, a `matrix`
//!   parent above the skeleton and a rigid (unskinned) attachment.
//! * `synthetic/influences.glb`: a 12-joint chain with a `bend` clip and
//!   one mesh of two columns: the first's vertices have 5 to 8 nonzero
//!   influences (`JOINTS_0/1`), the second's 9 to 12 (`JOINTS_0/1/2`, more
//!   than sinew keeps).
//! * `synthetic/morph.glb`: a two-joint column with three POSITION + NORMAL
//!   morph targets (one stored sparse), two primitives, two skinned nodes of
//!   the same mesh (one with its own `weights`), and clips animating the
//!   first node's weights with LINEAR (`linear`), STEP (`step`) and
//!   CUBICSPLINE (`cubic`) samplers, plus a clip that animates no weights
//!   (`still`).
//!
//! The humanoid's bind pose stands upright with the arms hanging at the sides,
//! palms facing the thighs; every joint's rest rotation is the identity, so
//! each joint frame is aligned with the model axes (+X is the character's
//! left).
//!
//! Running the program again writes byte-identical files: there is no clock
//! and no randomness. Only `std`, `glam`, `serde_json` and the `meshopt`
//! encoder are used, so the files do not depend on the loader they are meant
//! to test.

use std::f32::consts::{FRAC_PI_2, PI, TAU};
use std::fs;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3};
use serde_json::{Value, json};

// glTF enumerations.
const BYTE: u32 = 5120;
const UNSIGNED_BYTE: u32 = 5121;
const SHORT: u32 = 5122;
const UNSIGNED_SHORT: u32 = 5123;
const UNSIGNED_INT: u32 = 5125;
const FLOAT: u32 = 5126;
const ARRAY_BUFFER: u32 = 34962;
const ELEMENT_ARRAY_BUFFER: u32 = 34963;

const LINEAR: &str = "LINEAR";
const STEP: &str = "STEP";
const CUBICSPLINE: &str = "CUBICSPLINE";

fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

fn smoothstep(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// A JSON number holding the shortest decimal that reads back as `x`.
fn num(x: f32) -> Value {
    assert!(x.is_finite(), "non-finite value in glTF output");
    let x = if x == 0.0 { 0.0 } else { x };
    let shortest: f64 = format!("{x}").parse().expect("float formatting");
    json!(shortest)
}

fn nums(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| num(x)).collect())
}

fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => panic!("unknown accessor type {ty}"),
    }
}

fn flat3(xs: &[Vec3]) -> Vec<f32> {
    xs.iter().flat_map(|p| p.to_array()).collect()
}

fn flat2(xs: &[Vec2]) -> Vec<f32> {
    xs.iter().flat_map(|p| p.to_array()).collect()
}

fn flat_quats(xs: &[Quat]) -> Vec<f32> {
    xs.iter().flat_map(|q| q.to_array()).collect()
}

/// Flips quaternions so that neighbours lie in the same hemisphere, the first
/// one with `w >= 0`.
fn make_continuous(quats: &mut [Quat]) {
    let mut prev: Option<Quat> = None;
    for q in quats.iter_mut() {
        let flip = match prev {
            Some(p) => q.dot(p) < 0.0,
            None => q.w < 0.0,
        };
        if flip {
            *q = -*q;
        }
        prev = Some(*q);
    }
}

/// Makes a looping rotation track end exactly where it starts.
fn close_loop_quats(quats: &mut [Quat]) {
    make_continuous(quats);
    let first = quats[0];
    let last = quats.len() - 1;
    assert!(
        quats[last].dot(first) > 0.9999,
        "looping rotation track does not return to its first key"
    );
    quats[last] = first;
}

fn close_loop_vec3(values: &mut [Vec3]) {
    let first = values[0];
    let last = values.len() - 1;
    assert!(
        values[last].distance(first) < 1e-4,
        "looping translation track does not return to its first key"
    );
    values[last] = first;
}

// ---------------------------------------------------------------------------
// Document and GLB container
// ---------------------------------------------------------------------------

/// A glTF document under construction with a single binary buffer.
#[derive(Default)]
struct Doc {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    nodes: Vec<Value>,
    meshes: Vec<Value>,
    skins: Vec<Value>,
    animations: Vec<Value>,
    materials: Vec<Value>,
    scene_roots: Vec<usize>,
    /// While set, accessor data is gathered into one buffer view (bytes and
    /// the accessors that point into it) instead of one view per accessor.
    pack: Option<(Vec<u8>, Vec<usize>)>,
}

struct Channel {
    node: usize,
    path: &'static str,
    interpolation: &'static str,
    input: usize,
    output: usize,
}

impl Doc {
    /// Appends a buffer view, 4-byte aligned.
    fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view = json!({
            "buffer": 0,
            "byteOffset": self.bin.len(),
            "byteLength": bytes.len(),
        });
        if let Some(target) = target {
            view["target"] = json!(target);
        }
        self.bin.extend_from_slice(bytes);
        self.views.push(view);
        self.views.len() - 1
    }

    fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Starts gathering accessor data into a single buffer view.
    fn begin_pack(&mut self) {
        assert!(self.pack.is_none());
        self.pack = Some((Vec::new(), Vec::new()));
    }

    /// Writes the gathered data as one buffer view and points the gathered
    /// accessors at it.
    fn end_pack(&mut self) {
        let (bytes, accessors) = self.pack.take().expect("begin_pack first");
        if accessors.is_empty() {
            return;
        }
        let view = self.view(&bytes, None);
        for a in accessors {
            self.accessors[a]["bufferView"] = json!(view);
        }
    }

    /// Stores an accessor's data (in its own view, or in the open pack) and
    /// appends the accessor.
    fn data_accessor(&mut self, bytes: &[u8], target: Option<u32>, mut accessor: Value) -> usize {
        let index = self.accessors.len();
        match &mut self.pack {
            Some((pack, members)) if target.is_none() => {
                while !pack.len().is_multiple_of(4) {
                    pack.push(0);
                }
                if !pack.is_empty() {
                    accessor["byteOffset"] = json!(pack.len());
                }
                pack.extend_from_slice(bytes);
                members.push(index);
            }
            _ => {
                accessor["bufferView"] = json!(self.view(bytes, target));
            }
        }
        self.accessor(accessor)
    }

    /// A FLOAT accessor; `bounds` adds `min` and `max`.
    fn floats(&mut self, data: &[f32], ty: &str, target: Option<u32>, bounds: bool) -> usize {
        let n = components(ty);
        assert!(!data.is_empty() && data.len().is_multiple_of(n));
        let bytes: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut accessor = json!({
            "componentType": FLOAT,
            "count": data.len() / n,
            "type": ty,
        });
        if bounds {
            let mut min = vec![f32::INFINITY; n];
            let mut max = vec![f32::NEG_INFINITY; n];
            for element in data.chunks(n) {
                for (k, &x) in element.iter().enumerate() {
                    min[k] = min[k].min(x);
                    max[k] = max[k].max(x);
                }
            }
            accessor["min"] = nums(&min);
            accessor["max"] = nums(&max);
        }
        self.data_accessor(&bytes, target, accessor)
    }

    /// An integer accessor of any component type.
    fn ints(
        &mut self,
        data: &[i64],
        component_type: u32,
        normalized: bool,
        ty: &str,
        target: Option<u32>,
    ) -> usize {
        let n = components(ty);
        assert!(!data.is_empty() && data.len().is_multiple_of(n));
        let bytes = int_bytes(data, component_type);
        let mut accessor = json!({
            "componentType": component_type,
            "count": data.len() / n,
            "type": ty,
        });
        if normalized {
            accessor["normalized"] = json!(true);
        }
        self.data_accessor(&bytes, target, accessor)
    }

    /// Key times of an animation sampler (with the required bounds).
    fn times(&mut self, times: &[f32]) -> usize {
        self.floats(times, "SCALAR", None, true)
    }

    fn quats(&mut self, quats: &[Quat]) -> usize {
        self.floats(&flat_quats(quats), "VEC4", None, false)
    }

    fn vec3s(&mut self, values: &[Vec3]) -> usize {
        self.floats(&flat3(values), "VEC3", None, false)
    }

    fn material(&mut self, name: &str, color: [f32; 4]) -> usize {
        self.materials.push(json!({
            "name": name,
            "pbrMetallicRoughness": {
                "baseColorFactor": nums(&color),
                "metallicFactor": 0.0,
                "roughnessFactor": 0.8,
            },
        }));
        self.materials.len() - 1
    }

    fn node(&mut self, node: Value) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn add_child(&mut self, parent: usize, child: usize) {
        let node = &mut self.nodes[parent];
        match node.get_mut("children") {
            Some(Value::Array(children)) => children.push(json!(child)),
            _ => node["children"] = json!([child]),
        }
    }

    fn animation(&mut self, name: &str, channels: &[Channel]) {
        let samplers: Vec<Value> = channels
            .iter()
            .map(|c| {
                json!({
                    "input": c.input,
                    "output": c.output,
                    "interpolation": c.interpolation,
                })
            })
            .collect();
        let targets: Vec<Value> = channels
            .iter()
            .enumerate()
            .map(|(i, c)| json!({"sampler": i, "target": {"node": c.node, "path": c.path}}))
            .collect();
        self.animations.push(json!({
            "name": name,
            "samplers": samplers,
            "channels": targets,
        }));
    }

    /// Serialises the document as GLB: header, JSON chunk, BIN chunk.
    fn into_glb(mut self) -> Vec<u8> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut root = json!({
            "asset": {"version": "2.0", "generator": "sinew generate_assets"},
            "scene": 0,
            "scenes": [{"name": "Scene", "nodes": self.scene_roots}],
            "buffers": [{"byteLength": self.bin.len()}],
        });
        let arrays = [
            ("nodes", self.nodes),
            ("meshes", self.meshes),
            ("skins", self.skins),
            ("animations", self.animations),
            ("materials", self.materials),
            ("accessors", self.accessors),
            ("bufferViews", self.views),
        ];
        for (key, items) in arrays {
            if !items.is_empty() {
                root[key] = Value::Array(items);
            }
        }
        glb(&root, &self.bin)
    }
}

/// A GLB container: header, JSON chunk (space-padded) and BIN chunk.
fn glb(root: &Value, bin: &[u8]) -> Vec<u8> {
    assert!(
        bin.len().is_multiple_of(4),
        "BIN chunk must be 4-byte aligned"
    );
    let mut json_bytes = serde_json::to_vec(root).expect("JSON serialisation");
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).expect("GLB size").to_le_bytes());
    out.extend_from_slice(&u32::try_from(json_bytes.len()).expect("size").to_le_bytes());
    out.extend_from_slice(&0x4E4F_534Au32.to_le_bytes());
    out.extend_from_slice(&json_bytes);
    out.extend_from_slice(&u32::try_from(bin.len()).expect("size").to_le_bytes());
    out.extend_from_slice(&0x004E_4942u32.to_le_bytes());
    out.extend_from_slice(bin);
    out
}

fn int_bytes(data: &[i64], component_type: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() * 4);
    for &x in data {
        match component_type {
            BYTE => out.extend(i8::try_from(x).expect("BYTE range").to_le_bytes()),
            UNSIGNED_BYTE => {
                out.extend(u8::try_from(x).expect("UNSIGNED_BYTE range").to_le_bytes())
            }
            SHORT => out.extend(i16::try_from(x).expect("SHORT range").to_le_bytes()),
            UNSIGNED_SHORT => out.extend(
                u16::try_from(x)
                    .expect("UNSIGNED_SHORT range")
                    .to_le_bytes(),
            ),
            UNSIGNED_INT => out.extend(u32::try_from(x).expect("UNSIGNED_INT range").to_le_bytes()),
            _ => panic!("unsupported component type {component_type}"),
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Skeletons and poses
// ---------------------------------------------------------------------------

struct Joint {
    name: String,
    parent: Option<usize>,
    translation: Vec3,
    rotation: Quat,
}

/// Joints in parent-before-child order.
#[derive(Default)]
struct Skeleton {
    joints: Vec<Joint>,
}

#[derive(Clone)]
struct Pose {
    t: Vec<Vec3>,
    r: Vec<Quat>,
    s: Vec<Vec3>,
}

impl Skeleton {
    fn add(&mut self, name: &str, parent: Option<usize>, translation: Vec3) -> usize {
        self.add_rotated(name, parent, translation, Quat::IDENTITY)
    }

    fn add_rotated(
        &mut self,
        name: &str,
        parent: Option<usize>,
        translation: Vec3,
        rotation: Quat,
    ) -> usize {
        assert!(
            self.joints.iter().all(|j| j.name != name),
            "duplicate joint name {name}"
        );
        if let Some(p) = parent {
            assert!(p < self.joints.len());
        }
        self.joints.push(Joint {
            name: name.to_string(),
            parent,
            translation,
            rotation,
        });
        self.joints.len() - 1
    }

    fn len(&self) -> usize {
        self.joints.len()
    }

    fn children(&self, j: usize) -> Vec<usize> {
        (0..self.len())
            .filter(|&c| self.joints[c].parent == Some(j))
            .collect()
    }

    fn depth(&self, j: usize) -> usize {
        match self.joints[j].parent {
            Some(p) => 1 + self.depth(p),
            None => 1,
        }
    }

    fn rest(&self) -> Pose {
        Pose {
            t: self.joints.iter().map(|j| j.translation).collect(),
            r: self.joints.iter().map(|j| j.rotation).collect(),
            s: vec![Vec3::ONE; self.len()],
        }
    }

    /// World matrices of a pose; `base` is the transform above the root joints.
    fn globals(&self, base: Mat4, pose: &Pose) -> Vec<Mat4> {
        let mut out: Vec<Mat4> = Vec::with_capacity(self.len());
        for (i, joint) in self.joints.iter().enumerate() {
            let local = Mat4::from_scale_rotation_translation(pose.s[i], pose.r[i], pose.t[i]);
            let parent = joint.parent.map_or(base, |p| out[p]);
            out.push(parent * local);
        }
        out
    }

    fn rest_positions(&self, base: Mat4) -> Vec<Vec3> {
        self.globals(base, &self.rest())
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect()
    }

    /// Appends one node per joint (node index = `doc.nodes.len()` + joint
    /// index) and returns the node indices of the joints.
    fn write_nodes(&self, doc: &mut Doc) -> Vec<usize> {
        let first = doc.nodes.len();
        for (i, joint) in self.joints.iter().enumerate() {
            let mut node = json!({"name": joint.name});
            if joint.translation != Vec3::ZERO {
                node["translation"] = nums(&joint.translation.to_array());
            }
            if joint.rotation != Quat::IDENTITY {
                node["rotation"] = nums(&joint.rotation.to_array());
            }
            let children: Vec<usize> = self.children(i).iter().map(|c| first + c).collect();
            if !children.is_empty() {
                node["children"] = json!(children);
            }
            doc.node(node);
        }
        (first..first + self.len()).collect()
    }

    /// Appends a skin over all joints; `base` is the world transform of the
    /// root joints' parent, used for the inverse bind matrices.
    fn write_skin(
        &self,
        doc: &mut Doc,
        name: &str,
        nodes: &[usize],
        skeleton: usize,
        base: Mat4,
    ) -> usize {
        let ibm: Vec<f32> = self
            .globals(base, &self.rest())
            .iter()
            .flat_map(|m| m.inverse().to_cols_array())
            .collect();
        let ibm = doc.floats(&ibm, "MAT4", None, false);
        doc.skins.push(json!({
            "name": name,
            "inverseBindMatrices": ibm,
            "skeleton": skeleton,
            "joints": nodes,
        }));
        doc.skins.len() - 1
    }
}

/// A clip sampled at evenly spaced key times, both ends included.
struct Clip {
    times: Vec<f32>,
    poses: Vec<Pose>,
}

fn sample_clip(duration: f32, keys: usize, pose_at: impl Fn(f32) -> Pose) -> Clip {
    let intervals = (keys - 1) as f32;
    let times: Vec<f32> = (0..keys)
        .map(|i| duration * (i as f32 / intervals))
        .collect();
    let poses = times.iter().map(|&t| pose_at(t)).collect();
    Clip { times, poses }
}

/// Writes a LINEAR clip. Rotation tracks always loop; each translation track
/// loops when its flag is set (root motion does not).
fn write_clip(
    doc: &mut Doc,
    name: &str,
    clip: &Clip,
    nodes: &[usize],
    rotations: &[usize],
    translations: &[(usize, bool)],
) {
    doc.begin_pack();
    let input = doc.times(&clip.times);
    let mut channels = Vec::new();
    for &(joint, looping) in translations {
        let mut values: Vec<Vec3> = clip.poses.iter().map(|p| p.t[joint]).collect();
        if looping {
            close_loop_vec3(&mut values);
        }
        let output = doc.vec3s(&values);
        channels.push(Channel {
            node: nodes[joint],
            path: "translation",
            interpolation: LINEAR,
            input,
            output,
        });
    }
    for &joint in rotations {
        let mut values: Vec<Quat> = clip.poses.iter().map(|p| p.r[joint].normalize()).collect();
        close_loop_quats(&mut values);
        let output = doc.quats(&values);
        channels.push(Channel {
            node: nodes[joint],
            path: "rotation",
            interpolation: LINEAR,
            input,
            output,
        });
    }
    doc.end_pack();
    doc.animation(name, &channels);
}

// ---------------------------------------------------------------------------
// Meshes
// ---------------------------------------------------------------------------

#[derive(Default)]
struct MeshData {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    uvs: Vec<Vec2>,
    /// (joint, weight) pairs per vertex; empty for rigid meshes.
    influences: Vec<Vec<(usize, f32)>>,
    indices: Vec<u32>,
}

impl MeshData {
    fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    fn push_vertex(&mut self, p: Vec3, n: Vec3, uv: Vec2, influences: Vec<(usize, f32)>) -> u32 {
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
type WeightFn<'a> = &'a dyn Fn(f32, Vec3) -> Vec<(usize, f32)>;

/// A box from `start` to `end` with half extents `half` across the axis,
/// cut into `segs` rings along it so that skinning can bend it. Faces have
/// their own vertices (flat normals, one UV square per face).
fn add_box(mesh: &mut MeshData, start: Vec3, end: Vec3, half: Vec2, segs: u32, weight: WeightFn) {
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
struct Segment {
    start: Vec3,
    end: Vec3,
    half: Vec2,
    segs: u32,
    owner: usize,
    prev: Option<usize>,
    next: Option<usize>,
}

const BLEND: f32 = 0.25;

fn add_segment(mesh: &mut MeshData, seg: &Segment) {
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
fn add_block(mesh: &mut MeshData, transform: Mat4, center: Vec3, half: Vec3, joint: usize) {
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
enum Weights {
    Float,
    NormalizedU8,
}

/// How joint influences are stored: joint index component type, weight
/// encoding and number of JOINTS_n/WEIGHTS_n sets.
#[derive(Clone, Copy)]
struct SkinLayout {
    joints: u32,
    weights: Weights,
    sets: usize,
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
fn write_primitive(
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

fn write_mesh(doc: &mut Doc, name: &str, primitives: Vec<Value>) -> usize {
    doc.meshes
        .push(json!({"name": name, "primitives": primitives}));
    doc.meshes.len() - 1
}

// ---------------------------------------------------------------------------
// humanoid.glb
// ---------------------------------------------------------------------------

const LEFT: f32 = 1.0;
const RIGHT: f32 = -1.0;
const FINGERS: [&str; 5] = ["Thumb", "Index", "Middle", "Ring", "Pinky"];
const HIP_HEIGHT: f32 = 0.95;

/// One side of the humanoid; `sign` is +1 on the left (+X), -1 on the right.
struct Side {
    sign: f32,
    clavicle: usize,
    upper_arm: usize,
    forearm: usize,
    hand: usize,
    fingers: [[usize; 3]; 5],
    finger_tips: [Vec3; 5],
    thigh: usize,
    shin: usize,
    foot: usize,
    toe: usize,
}

struct Humanoid {
    sk: Skeleton,
    root: usize,
    hips: usize,
    spine: [usize; 3],
    neck: usize,
    head: usize,
    head_end: usize,
    jaw: usize,
    eyes: [usize; 2],
    sides: [Side; 2],
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
struct Gait {
    period: f32,
    speed: f32,
    thigh_amp: f32,
    thigh_bias: f32,
    knee_stance: f32,
    knee_swing: f32,
    arm_amp: f32,
    elbow: f32,
    elbow_swing: f32,
    lean: f32,
    twist: f32,
    flight: f32,
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

fn humanoid() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/chain256.glb
// ---------------------------------------------------------------------------

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

fn chain256() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/fan.glb
// ---------------------------------------------------------------------------

fn fan() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/rig64.glb
// ---------------------------------------------------------------------------

fn add_limb(sk: &mut Skeleton, parent: usize, name: &str, count: usize, first: Vec3, step: Vec3) {
    let mut parent = parent;
    for k in 0..count {
        let offset = if k == 0 { first } else { step };
        parent = sk.add(&format!("{name}{k}"), Some(parent), offset);
    }
}

fn rig64() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/influences.glb
// ---------------------------------------------------------------------------

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

fn influences() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/features.glb
// ---------------------------------------------------------------------------

fn distance_to_segment(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

fn features() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/morph.glb
// ---------------------------------------------------------------------------

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

fn morph() -> Vec<u8> {
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

// ---------------------------------------------------------------------------
// synthetic/rig64_packed.glb
// ---------------------------------------------------------------------------

/// Bits of a quantized position component (unsigned, not normalized).
const POSITION_BITS: u32 = 16;
/// Bits of the quaternion filter's components for clip `b`'s rotations.
const QUATERNION_BITS: i32 = 16;
/// Mantissa bits of the exponential filter for translation keys (the most it allows).
const EXPONENT_MANTISSA_BITS: i32 = 24;

/// The JSON and BIN chunks of a GLB written by [`glb`].
fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let json_len = word(12) as usize;
    let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("GLB JSON");
    let bin_at = 20 + json_len;
    let bin_len = word(bin_at) as usize;
    (json, bytes[bin_at + 8..bin_at + 8 + bin_len].to_vec())
}

/// The bytes accessor `a` of `root` reads (tightly packed: the generator writes no strides).
fn accessor_bytes<'b>(root: &Value, bin: &'b [u8], a: usize) -> &'b [u8] {
    let acc = &root["accessors"][a];
    let view = &root["bufferViews"][acc["bufferView"].as_u64().expect("view") as usize];
    let size = match acc["componentType"].as_u64().expect("component type") as u32 {
        UNSIGNED_BYTE | BYTE => 1,
        UNSIGNED_SHORT | SHORT => 2,
        _ => 4,
    };
    let len = acc["count"].as_u64().expect("count") as usize
        * components(acc["type"].as_str().expect("type"))
        * size;
    let start = (view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0))
        as usize;
    &bin[start..start + len]
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect()
}

/// What an accessor of the float file holds, which decides how it is packed.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Position,
    Normal,
    TexCoord,
    Joints,
    Weights,
    Indices,
    InverseBinds,
    Times,
    Translations,
    FloatRotations,
    QuantizedRotations,
}

/// A compressed buffer view under construction: parent view bytes go to the fallback buffer
/// (which holds no data), the compressed stream to the BIN chunk.
struct Packer {
    bin: Vec<u8>,
    fallback_len: usize,
    views: Vec<Value>,
}

impl Packer {
    fn view(
        &mut self,
        stream: &[u8],
        stride: usize,
        count: usize,
        mode: &str,
        filter: &str,
        attribute: bool,
    ) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut ext = json!({
            "buffer": 0,
            "byteOffset": self.bin.len(),
            "byteLength": stream.len(),
            "byteStride": stride,
            "count": count,
            "mode": mode,
        });
        if filter != "NONE" {
            ext["filter"] = json!(filter);
        }
        self.bin.extend_from_slice(stream);
        let mut view = json!({
            "buffer": 1,
            "byteOffset": self.fallback_len,
            "byteLength": stride * count,
            "extensions": {"EXT_meshopt_compression": ext},
        });
        if attribute {
            view["byteStride"] = json!(stride);
        }
        self.fallback_len += (stride * count).next_multiple_of(4);
        self.views.push(view);
        self.views.len() - 1
    }

    /// An attribute stream of `count` elements of `T`, filtered already.
    fn attributes<T>(&mut self, elements: &[T], filter: &str, vertex_data: bool) -> usize {
        let stream = meshopt::encode_vertex_buffer(elements).expect("vertex encoding");
        self.view(
            &stream,
            std::mem::size_of::<T>(),
            elements.len(),
            "ATTRIBUTES",
            filter,
            vertex_data,
        )
    }
}

/// The roles of the float file's accessors, from where the file uses them.
fn accessor_roles(root: &Value) -> Vec<Role> {
    let count = root["accessors"].as_array().expect("accessors").len();
    let mut roles = vec![None; count];
    let mut set =
        |a: &Value, role: Role| roles[a.as_u64().expect("accessor index") as usize] = Some(role);
    for mesh in root["meshes"].as_array().expect("meshes") {
        for prim in mesh["primitives"].as_array().expect("primitives") {
            let attributes = &prim["attributes"];
            set(&attributes["POSITION"], Role::Position);
            set(&attributes["NORMAL"], Role::Normal);
            set(&attributes["TEXCOORD_0"], Role::TexCoord);
            set(&attributes["JOINTS_0"], Role::Joints);
            set(&attributes["WEIGHTS_0"], Role::Weights);
            set(&prim["indices"], Role::Indices);
        }
    }
    for skin in root["skins"].as_array().expect("skins") {
        set(&skin["inverseBindMatrices"], Role::InverseBinds);
    }
    for animation in root["animations"].as_array().expect("animations") {
        let quantized = animation["name"] == "b";
        let samplers = &animation["samplers"];
        for channel in animation["channels"].as_array().expect("channels") {
            let sampler = &samplers[channel["sampler"].as_u64().expect("sampler") as usize];
            set(&sampler["input"], Role::Times);
            let role = match (channel["target"]["path"].as_str(), quantized) {
                (Some("rotation"), false) => Role::FloatRotations,
                (Some("rotation"), true) => Role::QuantizedRotations,
                _ => Role::Translations,
            };
            set(&sampler["output"], role);
        }
    }
    roles
        .into_iter()
        .map(|r| r.expect("every accessor is used"))
        .collect()
}

/// A copy of a float GLB with quantized vertex attributes (`KHR_mesh_quantization`) and every
/// buffer view compressed (`EXT_meshopt_compression`), the way gltfpack writes skinned meshes:
///
/// * POSITION as unsigned 16-bit integers on a uniform grid; the dequantization (offset and
///   scale) is folded into the inverse bind matrices, since a skinned mesh ignores its node's
///   transform. Attribute codec, stride 8.
/// * NORMAL as 8-bit octahedral vectors (octahedral filter, stride 4), TEXCOORD_0 as normalized
///   unsigned 16-bit, JOINTS_0 as is, WEIGHTS_0 and the inverse bind matrices as floats.
/// * Triangle indices with the triangle codec.
/// * Key times and clip `a`'s rotations as floats; translations through the exponential filter at
///   its full 24-bit mantissa; clip `b`'s rotations as normalized 16-bit integers through the
///   quaternion filter.
///
/// The uncompressed views point into a fallback buffer without data.
fn pack(float_glb: &[u8]) -> Vec<u8> {
    let (mut root, bin) = split_glb(float_glb);
    let roles = accessor_roles(&root);
    // One uniform grid over every position of the file.
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (a, _) in roles
        .iter()
        .enumerate()
        .filter(|(_, r)| **r == Role::Position)
    {
        for p in f32s(accessor_bytes(&root, &bin, a)).chunks_exact(3) {
            lo = lo.min(Vec3::from_slice(p));
            hi = hi.max(Vec3::from_slice(p));
        }
    }
    let step = (hi - lo).max_element() / ((1u32 << POSITION_BITS) - 1) as f32;
    let dequantize = Mat4::from_translation(lo) * Mat4::from_scale(Vec3::splat(step));

    let mut packer = Packer {
        bin: Vec::new(),
        fallback_len: 0,
        views: Vec::new(),
    };
    let mut accessors = Vec::with_capacity(roles.len());
    for (a, &role) in roles.iter().enumerate() {
        let mut acc = root["accessors"][a].clone();
        let component_type = acc["componentType"].clone();
        let width = components(acc["type"].as_str().expect("type"));
        let object = acc.as_object_mut().expect("accessor object");
        object.remove("byteOffset");
        let bytes = accessor_bytes(&root, &bin, a);
        let view = match role {
            Role::Position => {
                let q: Vec<[u16; 4]> = f32s(bytes)
                    .chunks_exact(3)
                    .map(|p| {
                        let g = ((Vec3::from_slice(p) - lo) / step).round();
                        [g.x as u16, g.y as u16, g.z as u16, 0]
                    })
                    .collect();
                let (mut min, mut max) = ([u16::MAX; 3], [0u16; 3]);
                for v in &q {
                    for k in 0..3 {
                        min[k] = min[k].min(v[k]);
                        max[k] = max[k].max(v[k]);
                    }
                }
                object.insert("componentType".into(), json!(UNSIGNED_SHORT));
                object.insert("min".into(), json!(min));
                object.insert("max".into(), json!(max));
                packer.attributes(&q, "NONE", true)
            }
            Role::Normal => {
                let n: Vec<[f32; 4]> = f32s(bytes)
                    .chunks_exact(3)
                    .map(|n| [n[0], n[1], n[2], 0.0])
                    .collect();
                let oct = meshopt::encode_filter_oct::<i8>(&n, 8);
                object.insert("componentType".into(), json!(BYTE));
                object.insert("normalized".into(), json!(true));
                packer.attributes(&oct, "OCTAHEDRAL", true)
            }
            Role::TexCoord => {
                let uv: Vec<[u16; 2]> = f32s(bytes)
                    .chunks_exact(2)
                    .map(|t| {
                        assert!(t.iter().all(|x| (0.0..=1.0).contains(x)), "UV outside 0..1");
                        [
                            (t[0] * 65535.0).round() as u16,
                            (t[1] * 65535.0).round() as u16,
                        ]
                    })
                    .collect();
                object.insert("componentType".into(), json!(UNSIGNED_SHORT));
                object.insert("normalized".into(), json!(true));
                packer.attributes(&uv, "NONE", true)
            }
            Role::Joints => {
                assert_eq!(component_type, UNSIGNED_SHORT);
                let j: Vec<[u8; 8]> = bytes
                    .chunks_exact(8)
                    .map(|b| b.try_into().expect("8 bytes"))
                    .collect();
                packer.attributes(&j, "NONE", true)
            }
            Role::Weights | Role::InverseBinds | Role::Times | Role::FloatRotations => {
                let mut f = f32s(bytes);
                if role == Role::InverseBinds {
                    f = f
                        .chunks_exact(16)
                        .flat_map(|m| (Mat4::from_cols_slice(m) * dequantize).to_cols_array())
                        .collect();
                }
                let vertex_data = matches!(role, Role::Weights);
                match width {
                    1 => packer.attributes(
                        &f.chunks_exact(1).map(|c| [c[0]]).collect::<Vec<_>>(),
                        "NONE",
                        vertex_data,
                    ),
                    4 => packer.attributes(
                        &f.chunks_exact(4)
                            .map(|c| [c[0], c[1], c[2], c[3]])
                            .collect::<Vec<_>>(),
                        "NONE",
                        vertex_data,
                    ),
                    16 => packer.attributes(
                        &f.chunks_exact(16)
                            .map(|c| <[f32; 16]>::try_from(c).expect("16"))
                            .collect::<Vec<_>>(),
                        "NONE",
                        vertex_data,
                    ),
                    _ => panic!("unexpected float accessor width {width}"),
                }
            }
            Role::Translations => {
                let v: Vec<[f32; 3]> = f32s(bytes)
                    .chunks_exact(3)
                    .map(|c| [c[0], c[1], c[2]])
                    .collect();
                let e = meshopt::encode_filter_exp(
                    &v,
                    EXPONENT_MANTISSA_BITS,
                    meshopt::EncodeExpMode::Separate,
                );
                packer.attributes(&e, "EXPONENTIAL", false)
            }
            Role::QuantizedRotations => {
                let q: Vec<[f32; 4]> = f32s(bytes)
                    .chunks_exact(4)
                    .map(|c| [c[0], c[1], c[2], c[3]])
                    .collect();
                let e = meshopt::encode_filter_quat(&q, QUATERNION_BITS);
                object.insert("componentType".into(), json!(SHORT));
                object.insert("normalized".into(), json!(true));
                packer.attributes(&e, "QUATERNION", false)
            }
            Role::Indices => {
                let indices: Vec<u32> = bytes
                    .chunks_exact(2)
                    .map(|b| u32::from(u16::from_le_bytes([b[0], b[1]])))
                    .collect();
                assert_eq!(component_type, UNSIGNED_SHORT);
                let vertices = indices.iter().max().map_or(0, |&m| m as usize + 1);
                let stream =
                    meshopt::encode_index_buffer(&indices, vertices).expect("index encoding");
                packer.view(&stream, 2, indices.len(), "TRIANGLES", "NONE", false)
            }
        };
        object.insert("bufferView".into(), json!(view));
        accessors.push(acc);
    }
    while !packer.bin.len().is_multiple_of(4) {
        packer.bin.push(0);
    }
    root["accessors"] = Value::Array(accessors);
    root["bufferViews"] = Value::Array(packer.views);
    root["buffers"] = json!([
        {"byteLength": packer.bin.len()},
        {"byteLength": packer.fallback_len, "extensions": {"EXT_meshopt_compression": {"fallback": true}}},
    ]);
    let extensions = json!(["KHR_mesh_quantization", "EXT_meshopt_compression"]);
    root["extensionsUsed"] = extensions.clone();
    root["extensionsRequired"] = extensions;
    glb(&root, &packer.bin)
}

// ---------------------------------------------------------------------------

fn write(path: &Path, bytes: &[u8]) {
    fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    println!("{:>8} bytes  {}", bytes.len(), path.display());
}

fn main() {
    let out = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "assets".into()));
    let synthetic = out.join("synthetic");
    fs::create_dir_all(&synthetic)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", synthetic.display()));
    write(&out.join("humanoid.glb"), &humanoid());
    write(&synthetic.join("chain256.glb"), &chain256());
    write(&synthetic.join("fan.glb"), &fan());
    let rig64 = rig64();
    write(&synthetic.join("rig64.glb"), &rig64);
    write(&synthetic.join("rig64_packed.glb"), &pack(&rig64));
    write(&synthetic.join("features.glb"), &features());
    write(&synthetic.join("morph.glb"), &morph());
    write(&synthetic.join("influences.glb"), &influences());
}
