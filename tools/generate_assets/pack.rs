//! `synthetic/rig64_packed.glb`: a GLB rewritten as gltfpack would write it, quantized
//! vertex attributes (`KHR_mesh_quantization`) and every buffer view compressed
//! (`EXT_meshopt_compression`).

use glam::{Mat4, Vec3};
use serde_json::{Value, json};

use crate::gltf::{BYTE, SHORT, UNSIGNED_BYTE, UNSIGNED_SHORT, components, glb};

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
pub(crate) enum Role {
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
pub(crate) struct Packer {
    pub(crate) bin: Vec<u8>,
    pub(crate) fallback_len: usize,
    pub(crate) views: Vec<Value>,
}

impl Packer {
    pub(crate) fn view(
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
    pub(crate) fn attributes<T>(
        &mut self,
        elements: &[T],
        filter: &str,
        vertex_data: bool,
    ) -> usize {
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
pub(crate) fn pack(float_glb: &[u8]) -> Vec<u8> {
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
