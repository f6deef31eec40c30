//! The glTF writer: glTF enumerations, JSON number helpers, and a document that collects
//! buffer views, accessors, nodes, skins, meshes and animations into a GLB container.

use glam::{Quat, Vec2, Vec3};
use serde_json::{Value, json};

// glTF enumerations.
pub(crate) const BYTE: u32 = 5120;
pub(crate) const UNSIGNED_BYTE: u32 = 5121;
pub(crate) const SHORT: u32 = 5122;
pub(crate) const UNSIGNED_SHORT: u32 = 5123;
pub(crate) const UNSIGNED_INT: u32 = 5125;
pub(crate) const FLOAT: u32 = 5126;
pub(crate) const ARRAY_BUFFER: u32 = 34962;
pub(crate) const ELEMENT_ARRAY_BUFFER: u32 = 34963;

pub(crate) const LINEAR: &str = "LINEAR";
pub(crate) const STEP: &str = "STEP";
pub(crate) const CUBICSPLINE: &str = "CUBICSPLINE";

/// A JSON number holding the shortest decimal that reads back as `x`.
fn num(x: f32) -> Value {
    assert!(x.is_finite(), "non-finite value in glTF output");
    let x = if x == 0.0 { 0.0 } else { x };
    let shortest: f64 = format!("{x}").parse().expect("float formatting");
    json!(shortest)
}

pub(crate) fn nums(xs: &[f32]) -> Value {
    Value::Array(xs.iter().map(|&x| num(x)).collect())
}

pub(crate) fn components(ty: &str) -> usize {
    match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        "MAT4" => 16,
        _ => panic!("unknown accessor type {ty}"),
    }
}

pub(crate) fn flat3(xs: &[Vec3]) -> Vec<f32> {
    xs.iter().flat_map(|p| p.to_array()).collect()
}

pub(crate) fn flat2(xs: &[Vec2]) -> Vec<f32> {
    xs.iter().flat_map(|p| p.to_array()).collect()
}

pub(crate) fn flat_quats(xs: &[Quat]) -> Vec<f32> {
    xs.iter().flat_map(|q| q.to_array()).collect()
}

/// A glTF document under construction with a single binary buffer.
#[derive(Default)]
pub(crate) struct Doc {
    pub(crate) bin: Vec<u8>,
    pub(crate) views: Vec<Value>,
    pub(crate) accessors: Vec<Value>,
    pub(crate) nodes: Vec<Value>,
    pub(crate) meshes: Vec<Value>,
    pub(crate) skins: Vec<Value>,
    pub(crate) animations: Vec<Value>,
    pub(crate) materials: Vec<Value>,
    pub(crate) images: Vec<Value>,
    pub(crate) samplers: Vec<Value>,
    pub(crate) textures: Vec<Value>,
    pub(crate) scene_roots: Vec<usize>,
    /// While set, accessor data is gathered into one buffer view (bytes and
    /// the accessors that point into it) instead of one view per accessor.
    pub(crate) pack: Option<(Vec<u8>, Vec<usize>)>,
}

pub(crate) struct Channel {
    pub(crate) node: usize,
    pub(crate) path: &'static str,
    pub(crate) interpolation: &'static str,
    pub(crate) input: usize,
    pub(crate) output: usize,
}

impl Doc {
    /// Appends a buffer view, 4-byte aligned.
    pub(crate) fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
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

    pub(crate) fn accessor(&mut self, accessor: Value) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// Starts gathering accessor data into a single buffer view.
    pub(crate) fn begin_pack(&mut self) {
        assert!(self.pack.is_none());
        self.pack = Some((Vec::new(), Vec::new()));
    }

    /// Writes the gathered data as one buffer view and points the gathered
    /// accessors at it.
    pub(crate) fn end_pack(&mut self) {
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
    pub(crate) fn data_accessor(
        &mut self,
        bytes: &[u8],
        target: Option<u32>,
        mut accessor: Value,
    ) -> usize {
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
    pub(crate) fn floats(
        &mut self,
        data: &[f32],
        ty: &str,
        target: Option<u32>,
        bounds: bool,
    ) -> usize {
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
    pub(crate) fn ints(
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
    pub(crate) fn times(&mut self, times: &[f32]) -> usize {
        self.floats(times, "SCALAR", None, true)
    }

    pub(crate) fn quats(&mut self, quats: &[Quat]) -> usize {
        self.floats(&flat_quats(quats), "VEC4", None, false)
    }

    pub(crate) fn vec3s(&mut self, values: &[Vec3]) -> usize {
        self.floats(&flat3(values), "VEC3", None, false)
    }

    pub(crate) fn material(&mut self, name: &str, color: [f32; 4]) -> usize {
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

    /// An embedded PNG image and a texture reading it with `sampler` (appended as given).
    pub(crate) fn png_texture(&mut self, name: &str, png: &[u8], sampler: Value) -> usize {
        let view = self.view(png, None);
        self.images
            .push(json!({"name": name, "bufferView": view, "mimeType": "image/png"}));
        self.samplers.push(sampler);
        self.textures.push(json!({
            "source": self.images.len() - 1,
            "sampler": self.samplers.len() - 1,
        }));
        self.textures.len() - 1
    }

    pub(crate) fn node(&mut self, node: Value) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    pub(crate) fn add_child(&mut self, parent: usize, child: usize) {
        let node = &mut self.nodes[parent];
        match node.get_mut("children") {
            Some(Value::Array(children)) => children.push(json!(child)),
            _ => node["children"] = json!([child]),
        }
    }

    pub(crate) fn animation(&mut self, name: &str, channels: &[Channel]) {
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
    pub(crate) fn into_glb(mut self) -> Vec<u8> {
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
            ("images", self.images),
            ("samplers", self.samplers),
            ("textures", self.textures),
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
pub(crate) fn glb(root: &Value, bin: &[u8]) -> Vec<u8> {
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

pub(crate) fn int_bytes(data: &[i64], component_type: u32) -> Vec<u8> {
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
