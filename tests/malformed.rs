//! Every malformed input the glTF importer and the baker must turn into a typed error instead of
//! a panic or a wrong result. Each case starts from one small valid skinned and animated file,
//! built here in memory, changes one thing, and checks the error's kind, its file name and that
//! its text names the offending object. A byte-level fuzz pass checks that nothing panics.
//! Hand-built raw data given straight to the public constructors is tried in `constructors`.

mod common;

use common::Rng;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Once;

use serde_json::{Value, json};
use sinew::{ImportError, ImportErrorKind, MAX_JOINTS, Rig};

// ---------------------------------------------------------------------------------------------
// The valid file every case starts from.
// ---------------------------------------------------------------------------------------------

/// Accessor (and buffer view) indices of the minimal file.
const POSITION: usize = 0;
const JOINTS: usize = 1;
const WEIGHTS: usize = 2;
const INDICES: usize = 3;
const INVERSE_BINDS: usize = 4;
const TIMES: usize = 5;
const ROTATIONS: usize = 6;
const TRANSLATIONS: usize = 7;
/// Buffer views that only the sparse case uses.
const SPARSE_INDEX_VIEW: usize = 8;
const SPARSE_VALUE_VIEW: usize = 9;

/// Node indices of the minimal file: a two-joint chain and the skinned mesh node.
const ROOT: usize = 0;
const CHILD: usize = 1;
const BODY: usize = 2;

const FLOAT: u32 = 5126;
const UNSIGNED_SHORT: u32 = 5123;
const SHORT: u32 = 5122;

/// The arrays the minimal file stores in its buffer. A case edits one of them before encoding.
#[derive(Clone, Debug)]
struct Streams {
    positions: Vec<[f32; 3]>,
    joints: Vec<[u16; 4]>,
    weights: Vec<[f32; 4]>,
    indices: Vec<u16>,
    inverse_binds: Vec<[f32; 16]>,
    times: Vec<f32>,
    rotations: Vec<[f32; 4]>,
    translations: Vec<[f32; 3]>,
    sparse_indices: Vec<u16>,
    sparse_values: Vec<[f32; 3]>,
}

fn valid_streams() -> Streams {
    let identity = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let mut child_inverse_bind = identity;
    child_inverse_bind[13] = -1.0;
    let half = std::f32::consts::FRAC_1_SQRT_2;
    Streams {
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        joints: vec![[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]],
        weights: vec![
            [0.5, 0.5, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ],
        indices: vec![0, 1, 2],
        inverse_binds: vec![identity, child_inverse_bind],
        times: vec![0.0, 1.0],
        rotations: vec![[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, half, half]],
        translations: vec![[0.0, 0.0, 0.0], [0.0, 0.5, 0.0]],
        sparse_indices: vec![1],
        sparse_values: vec![[0.0, 1.0, 0.0]],
    }
}

/// A glTF document as JSON plus the bytes of its one buffer.
#[derive(Clone, Debug)]
struct Gltf {
    json: Value,
    bin: Vec<u8>,
}

fn floats<const N: usize>(items: &[[f32; N]]) -> Vec<u8> {
    items
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

fn shorts<const N: usize>(items: &[[u16; N]]) -> Vec<u8> {
    items
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// Encodes `streams` as the minimal skinned, animated glTF.
fn build(streams: &Streams) -> Gltf {
    let scalars: Vec<[f32; 1]> = streams.times.iter().map(|&t| [t]).collect();
    let index_items: Vec<[u16; 1]> = streams.indices.iter().map(|&i| [i]).collect();
    let sparse_index_items: Vec<[u16; 1]> = streams.sparse_indices.iter().map(|&i| [i]).collect();
    let views_data: [Vec<u8>; 10] = [
        floats(&streams.positions),
        shorts(&streams.joints),
        floats(&streams.weights),
        shorts(&index_items),
        floats(&streams.inverse_binds),
        floats(&scalars),
        floats(&streams.rotations),
        floats(&streams.translations),
        shorts(&sparse_index_items),
        floats(&streams.sparse_values),
    ];
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for data in &views_data {
        views.push(json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": data.len()}));
        bin.extend_from_slice(data);
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
    }
    let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
    for p in &streams.positions {
        for i in 0..3 {
            min[i] = min[i].min(p[i]);
            max[i] = max[i].max(p[i]);
        }
    }
    let accessor = |view: usize, count: usize, component: u32, kind: &str| json!({"bufferView": view, "count": count, "componentType": component, "type": kind});
    let mut position = accessor(POSITION, streams.positions.len(), FLOAT, "VEC3");
    position["min"] = json!(min);
    position["max"] = json!(max);
    let json = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [ROOT, BODY]}],
        "nodes": [
            {"name": "root", "children": [CHILD], "translation": [0.0, 0.0, 0.0]},
            {"name": "child", "translation": [0.0, 1.0, 0.0]},
            {"name": "body", "mesh": 0, "skin": 0},
        ],
        "meshes": [{
            "name": "body",
            "primitives": [{
                "attributes": {"POSITION": POSITION, "JOINTS_0": JOINTS, "WEIGHTS_0": WEIGHTS},
                "indices": INDICES,
            }],
        }],
        "skins": [{
            "name": "skin",
            "joints": [ROOT, CHILD],
            "inverseBindMatrices": INVERSE_BINDS,
            "skeleton": ROOT,
        }],
        "animations": [{
            "name": "wave",
            "channels": [
                {"sampler": 0, "target": {"node": CHILD, "path": "rotation"}},
                {"sampler": 1, "target": {"node": ROOT, "path": "translation"}},
            ],
            "samplers": [
                {"input": TIMES, "output": ROTATIONS, "interpolation": "LINEAR"},
                {"input": TIMES, "output": TRANSLATIONS, "interpolation": "LINEAR"},
            ],
        }],
        "accessors": [
            position,
            accessor(JOINTS, streams.joints.len(), UNSIGNED_SHORT, "VEC4"),
            accessor(WEIGHTS, streams.weights.len(), FLOAT, "VEC4"),
            accessor(INDICES, streams.indices.len(), UNSIGNED_SHORT, "SCALAR"),
            accessor(INVERSE_BINDS, streams.inverse_binds.len(), FLOAT, "MAT4"),
            accessor(TIMES, streams.times.len(), FLOAT, "SCALAR"),
            accessor(ROTATIONS, streams.rotations.len(), FLOAT, "VEC4"),
            accessor(TRANSLATIONS, streams.translations.len(), FLOAT, "VEC3"),
        ],
        "bufferViews": views,
        "buffers": [{"byteLength": bin.len()}],
    });
    Gltf { json, bin }
}

/// The unmodified minimal file.
fn valid() -> Gltf {
    build(&valid_streams())
}

/// The minimal file with one stream edited.
fn with_streams(edit: impl FnOnce(&mut Streams)) -> Gltf {
    let mut streams = valid_streams();
    edit(&mut streams);
    build(&streams)
}

const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(BASE64_ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl Gltf {
    /// `.gltf` text with the buffer as a data URI (unless a case set its own `uri`).
    fn to_gltf(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        if let Some(buffer) = json["buffers"].get_mut(0)
            && buffer.get("uri").is_none()
        {
            buffer["uri"] = json!(format!(
                "data:application/octet-stream;base64,{}",
                base64(&self.bin)
            ));
        }
        serde_json::to_vec(&json).unwrap()
    }

    /// `.glb` bytes: header, JSON chunk and BIN chunk.
    fn to_glb(&self) -> Vec<u8> {
        glb(&serde_json::to_vec(&self.json).unwrap(), Some(&self.bin))
    }

    /// Appends a node and returns its index.
    fn push_node(&mut self, node: Value) -> usize {
        let nodes = self.json["nodes"].as_array_mut().unwrap();
        nodes.push(node);
        nodes.len() - 1
    }
}

/// A GLB container around `json` and an optional binary chunk, with correct lengths.
fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
    let mut json = json.to_vec();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut body = Vec::new();
    body.extend_from_slice(&(json.len() as u32).to_le_bytes());
    body.extend_from_slice(b"JSON");
    body.extend_from_slice(&json);
    if let Some(bin) = bin {
        let mut bin = bin.to_vec();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        body.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        body.extend_from_slice(b"BIN\0");
        body.extend_from_slice(&bin);
    }
    let mut out = Vec::with_capacity(12 + body.len());
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(12 + body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

// ---------------------------------------------------------------------------------------------
// Running a case: import + bake under catch_unwind, a panic reported with the case's name.
// ---------------------------------------------------------------------------------------------

thread_local! {
    /// Set while this thread imports a case: the panic hook then records instead of printing.
    static CAPTURING: RefCell<bool> = const { RefCell::new(false) };
    /// The last panic recorded on this thread: message, location and the relevant frames.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that records panics raised inside a case with their location
/// and the sinew and gltf frames of their backtrace; every other panic prints as usual.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CAPTURING.with(|c| *c.borrow()) {
                default(info);
                return;
            }
            let backtrace = std::backtrace::Backtrace::force_capture().to_string();
            let frames: Vec<&str> = backtrace
                .lines()
                .filter(|l| l.contains("gltf") || l.contains("sinew"))
                .take(16)
                .collect();
            let record = format!("{info}\n  frames:\n    {}", frames.join("\n    "));
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(record));
        }));
    });
}

/// Imports `bytes` as `name` and bakes its rigs; `Err` carries the panic record when either
/// step panicked.
fn try_import_and_bake(
    name: &str,
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Result<Vec<Rig>, ImportError>, String> {
    install_panic_hook();
    CAPTURING.with(|c| *c.borrow_mut() = true);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let asset = sinew::import_bytes(bytes, name, base)?;
        sinew::bake_rigs(&asset)
    }));
    CAPTURING.with(|c| *c.borrow_mut() = false);
    outcome.map_err(|_| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panic without a record".into())
    })
}

/// Imports and bakes, failing the test (with the case's name) on a panic.
fn import_and_bake(name: &str, bytes: &[u8], base: Option<&Path>) -> Result<Vec<Rig>, ImportError> {
    match try_import_and_bake(name, bytes, base) {
        Ok(result) => result,
        Err(panic) => panic!("case {name}: import + bake panicked: {panic}"),
    }
}

/// The error importing and baking `bytes` as `name` must give; checks it names the file.
fn import_error_with_base(name: &str, bytes: &[u8], base: Option<&Path>) -> ImportError {
    match import_and_bake(name, bytes, base) {
        Ok(rigs) => panic!(
            "case {name}: expected an error, got {} rig(s) with {:?} joints",
            rigs.len(),
            rigs.iter().map(Rig::joint_count).collect::<Vec<_>>()
        ),
        Err(err) => {
            assert_eq!(
                err.file, name,
                "case {name}: the error names file {:?}, expected {name:?} ({err})",
                err.file
            );
            err
        }
    }
}

fn import_error(name: &str, bytes: &[u8]) -> ImportError {
    import_error_with_base(name, bytes, None)
}

/// Asserts an error's kind matches a pattern and its text contains every needle.
macro_rules! assert_kind {
    ($err:expr, $pattern:pat $(if $guard:expr)?, $($needle:expr),+ $(,)?) => {{
        let err: &ImportError = &$err;
        assert!(
            matches!(&err.kind, $pattern $(if $guard)?),
            "{}: expected `{}`, got {:?}",
            err.file,
            stringify!($pattern $(if $guard)?),
            err.kind
        );
        let text = err.to_string();
        $(
            let needle: &str = &$needle;
            assert!(
                text.contains(needle),
                "{}: the error text {text:?} does not contain {needle:?}",
                err.file
            );
        )+
    }};
}

// ---------------------------------------------------------------------------------------------
// The valid file.
// ---------------------------------------------------------------------------------------------

#[test]
fn the_minimal_file_imports_and_bakes_as_gltf() {
    let rigs = import_and_bake("minimal.gltf", &valid().to_gltf(), None)
        .unwrap_or_else(|e| panic!("the minimal file must import: {e}"));
    assert_eq!(rigs.len(), 1, "rig count");
    let rig = &rigs[0];
    assert_eq!(rig.skeleton.names(), ["root", "child"], "joint names");
    assert_eq!(rig.meshes.len(), 1, "mesh count");
    assert_eq!(rig.meshes[0].vertex_count(), 3, "vertex count");
    assert_eq!(rig.clips.clip_count(), 1, "clip count");
    assert_eq!(rig.clips.clips()[0].duration, 1.0, "clip duration");
}

#[test]
fn the_minimal_file_imports_and_bakes_as_glb() {
    let rigs = import_and_bake("minimal.glb", &valid().to_glb(), None)
        .unwrap_or_else(|e| panic!("the minimal file must import: {e}"));
    assert_eq!(rigs.len(), 1, "rig count");
    assert_eq!(rigs[0].joint_count(), 2, "joint count");
}

#[test]
fn the_sparse_variant_of_the_minimal_file_imports() {
    let mut file = valid();
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    let rigs = import_and_bake("sparse.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("a valid sparse accessor must import: {e}"));
    assert_eq!(rigs.len(), 1, "rig count");
}

// ---------------------------------------------------------------------------------------------
// Container: JSON and GLB.
// ---------------------------------------------------------------------------------------------

#[test]
fn bad_json() {
    let err = import_error(
        "bad-json.gltf",
        br#"{"asset": {"version": "2.0"}, "nodes": ["#,
    );
    assert_kind!(err, ImportErrorKind::Gltf(_), "bad-json.gltf", "line 1");
}

#[test]
fn json_that_is_not_gltf() {
    let err = import_error("not-gltf.gltf", br#"{"nodes": []}"#);
    assert_kind!(err, ImportErrorKind::Gltf(_), "asset");
}

#[test]
fn glb_declaring_more_bytes_than_it_has() {
    let mut bytes = valid().to_glb();
    let declared = bytes.len() as u32 + 100;
    bytes[8..12].copy_from_slice(&declared.to_le_bytes());
    let err = import_error("long-header.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "GLB header");
}

#[test]
fn glb_declaring_a_length_shorter_than_its_header() {
    let mut bytes = valid().to_glb();
    bytes[8..12].copy_from_slice(&4u32.to_le_bytes());
    let err = import_error("short-header.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "GLB header");
}

#[test]
fn glb_with_a_truncated_bin_chunk() {
    let mut bytes = valid().to_glb();
    bytes.truncate(bytes.len() - 16);
    let total = bytes.len() as u32;
    bytes[8..12].copy_from_slice(&total.to_le_bytes());
    let err = import_error("truncated-bin.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "BIN chunk");
}

#[test]
fn glb_with_a_json_chunk_longer_than_the_file() {
    let mut bytes = valid().to_glb();
    let json_length = u32::from_le_bytes(bytes[12..16].try_into().unwrap());
    bytes[12..16].copy_from_slice(&(json_length + 4096).to_le_bytes());
    let err = import_error("long-json-chunk.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "JSON chunk");
}

#[test]
fn glb_of_an_unsupported_version() {
    let mut bytes = valid().to_glb();
    bytes[4..8].copy_from_slice(&1u32.to_le_bytes());
    let err = import_error("version-1.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Gltf(_), "version 1");
}

#[test]
fn glb_without_the_bin_chunk_its_buffer_needs() {
    let file = valid();
    let bytes = glb(&serde_json::to_vec(&file.json).unwrap(), None);
    let err = import_error("no-bin.glb", &bytes);
    assert_kind!(err, ImportErrorKind::Buffer { buffer: 0, .. }, "buffer 0");
}

// ---------------------------------------------------------------------------------------------
// Buffers.
// ---------------------------------------------------------------------------------------------

#[test]
fn external_buffer_that_does_not_exist() {
    let mut file = valid();
    file.json["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 16, "uri": "does-not-exist.bin"}));
    let base = common::repo().join("tests");
    let err = import_error_with_base("missing-buffer.gltf", &file.to_gltf(), Some(&base));
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 1, .. },
        "buffer 1",
        "does-not-exist.bin"
    );
}

#[test]
fn external_buffer_without_a_base_folder_is_not_read_from_the_working_directory() {
    // `Cargo.toml` exists in the working directory of `cargo test`; with no base folder given,
    // import_bytes must not resolve external URIs at all.
    let mut file = valid();
    file.json["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 4, "uri": "Cargo.toml"}));
    let err = import_error("no-base.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 1, .. },
        "buffer 1",
        "Cargo.toml"
    );
}

#[test]
fn buffer_uri_that_percent_decodes_to_invalid_utf8() {
    let mut file = valid();
    file.json["buffers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"byteLength": 4, "uri": "%FF%FE.bin"}));
    let base = common::repo().join("tests");
    let err = import_error_with_base("bad-uri.gltf", &file.to_gltf(), Some(&base));
    assert_kind!(err, ImportErrorKind::Buffer { buffer: 1, .. }, "buffer 1");
}

#[test]
fn data_uri_with_invalid_base64() {
    let mut file = valid();
    file.json["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@@");
    let err = import_error("bad-base64.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Buffer { buffer: 0, .. }, "buffer 0");
}

#[test]
fn buffer_shorter_than_its_byte_length() {
    let mut file = valid();
    file.json["buffers"][0]["byteLength"] = json!(file.bin.len() + 64);
    let err = import_error("short-buffer.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 0, .. },
        "buffer 0",
        &format!("{} bytes", file.bin.len() + 64)
    );
}

// ---------------------------------------------------------------------------------------------
// Accessors and buffer views.
// ---------------------------------------------------------------------------------------------

#[test]
fn accessor_range_beyond_its_buffer_view() {
    let mut file = valid();
    file.json["accessors"][TIMES]["count"] = json!(3);
    let err = import_error("times-past-view.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TIMES,
            ..
        },
        format!("accessor {TIMES}")
    );
}

#[test]
fn accessor_with_a_huge_count_is_rejected_before_allocating() {
    let mut file = valid();
    file.json["accessors"][INVERSE_BINDS]["count"] = json!(1u64 << 58);
    let err = import_error("huge-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: INVERSE_BINDS,
            ..
        },
        format!("accessor {INVERSE_BINDS}")
    );
}

#[test]
fn accessor_without_a_view_and_a_huge_count() {
    let mut file = valid();
    let times = &mut file.json["accessors"][TIMES];
    times.as_object_mut().unwrap().remove("bufferView");
    times["count"] = json!(1u64 << 40);
    times["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": TIMES},
    });
    let err = import_error("huge-zero-filled.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TIMES,
            ..
        },
        format!("accessor {TIMES}")
    );
}

#[test]
fn buffer_view_beyond_its_buffer() {
    let mut file = valid();
    let length = file.json["bufferViews"][ROTATIONS]["byteLength"]
        .as_u64()
        .unwrap();
    file.json["bufferViews"][ROTATIONS]["byteLength"] = json!(length + 4096);
    let err = import_error("view-past-buffer.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: ROTATIONS,
            ..
        },
        format!("accessor {ROTATIONS}"),
        format!("buffer view {ROTATIONS}")
    );
}

#[test]
fn byte_stride_smaller_than_the_element() {
    let mut file = valid();
    file.json["bufferViews"][TRANSLATIONS]["byteStride"] = json!(4);
    let err = import_error("small-stride.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TRANSLATIONS,
            reason,
        } if reason.contains("stride"),
        format!("accessor {TRANSLATIONS}")
    );
}

#[test]
fn joints_stored_as_float() {
    let mut file = valid();
    file.json["accessors"][JOINTS]["componentType"] = json!(FLOAT);
    let err = import_error("float-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: JOINTS,
            usage,
            ..
        } if usage.starts_with("JOINTS"),
        format!("accessor {JOINTS}")
    );
}

#[test]
fn key_times_stored_as_unsigned_short() {
    let mut file = valid();
    file.json["accessors"][TIMES]["componentType"] = json!(UNSIGNED_SHORT);
    let err = import_error("short-times.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: TIMES,
            ..
        },
        format!("accessor {TIMES}"),
        "key times"
    );
}

#[test]
fn weights_stored_as_normalized_short() {
    let mut file = valid();
    file.json["accessors"][WEIGHTS]["componentType"] = json!(SHORT);
    file.json["accessors"][WEIGHTS]["normalized"] = json!(true);
    let err = import_error("short-weights.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: WEIGHTS,
            ..
        },
        format!("accessor {WEIGHTS}"),
        "WEIGHTS"
    );
}

#[test]
fn rotation_keys_of_type_vec3() {
    let mut file = valid();
    file.json["accessors"][ROTATIONS]["type"] = json!("VEC3");
    let err = import_error("vec3-rotations.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: ROTATIONS,
            ..
        },
        format!("accessor {ROTATIONS}"),
        "rotation keys"
    );
}

#[test]
fn sparse_index_not_below_the_accessor_count() {
    let mut file = with_streams(|s| s.sparse_indices = vec![5]);
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": 1,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    let err = import_error("sparse-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TRANSLATIONS,
            reason,
        } if reason.contains("sparse index 5"),
        format!("accessor {TRANSLATIONS}")
    );
}

#[test]
fn sparse_count_above_the_accessor_count() {
    let mut file = valid();
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": 3,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    let err = import_error("sparse-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: TRANSLATIONS,
            ..
        },
        format!("accessor {TRANSLATIONS}"),
        "sparse count"
    );
}

// ---------------------------------------------------------------------------------------------
// Indices that glTF validation checks.
// ---------------------------------------------------------------------------------------------

#[test]
fn skin_joint_node_out_of_range() {
    let mut file = valid();
    file.json["skins"][0]["joints"][1] = json!(99);
    let err = import_error("skin-joint-range.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Gltf(_), "skins[0].joints[1]");
}

#[test]
fn validation_error_text_says_invalid_gltf_once() {
    let mut file = valid();
    file.json["skins"][0]["joints"][1] = json!(99);
    let err = import_error("skin-joint-text.gltf", &file.to_gltf());
    let text = err.to_string();
    assert_eq!(
        text, "skin-joint-text.gltf: invalid glTF: skins[0].joints[1]: Index out of bounds",
        "error text"
    );
}

#[test]
fn channel_target_node_out_of_range() {
    let mut file = valid();
    file.json["animations"][0]["channels"][1]["target"]["node"] = json!(99);
    let err = import_error("channel-node-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "animations[0].channels[1].target.node"
    );
}

#[test]
fn channel_target_path_unknown() {
    let mut file = valid();
    file.json["animations"][0]["channels"][0]["target"]["path"] = json!("shear");
    let err = import_error("channel-path.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "animations[0].channels[0].target.path"
    );
}

#[test]
fn channel_sampler_out_of_range() {
    let mut file = valid();
    file.json["animations"][0]["channels"][0]["sampler"] = json!(7);
    let err = import_error("channel-sampler-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "animations[0].channels[0].sampler"
    );
}

#[test]
fn child_node_out_of_range() {
    let mut file = valid();
    file.json["nodes"][ROOT]["children"] = json!([CHILD, 99]);
    let err = import_error("child-range.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Gltf(_), "nodes[0].children[1]");
}

#[test]
fn position_accessor_out_of_range() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    let err = import_error("position-range.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(_),
        "meshes[0].primitives[0].attributes"
    );
}

// ---------------------------------------------------------------------------------------------
// The node graph.
// ---------------------------------------------------------------------------------------------

#[test]
fn node_that_is_its_own_child() {
    let mut file = valid();
    file.json["nodes"][CHILD]["children"] = json!([CHILD]);
    let err = import_error("own-child.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, .. },
        format!("node {CHILD}")
    );
}

#[test]
fn cyclic_node_graph() {
    let mut file = valid();
    file.json["nodes"][CHILD]["children"] = json!([ROOT]);
    let err = import_error("cycle.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node, reason }
            if (*node == ROOT || *node == CHILD) && reason.contains("cycle"),
        "cycle"
    );
}

#[test]
fn node_with_two_parents() {
    let mut file = valid();
    file.json["nodes"][BODY]["children"] = json!([CHILD]);
    let err = import_error("two-parents.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, reason } if reason.contains("two parents"),
        format!("node {CHILD}")
    );
}

#[test]
fn node_listing_the_same_child_twice_is_not_called_two_parents() {
    let mut file = valid();
    file.json["nodes"][ROOT]["children"] = json!([CHILD, CHILD]);
    let err = import_error("child-twice.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node: CHILD, reason } if reason.contains("twice"),
        format!("node {CHILD}"),
        format!("node {ROOT}")
    );
}

#[test]
fn long_node_cycle_is_found() {
    // A 2,000-node ring: every node has one parent, none reaches a root.
    let mut file = valid();
    let first = file.json["nodes"].as_array().unwrap().len();
    let count = 2000;
    for k in 0..count {
        let next = first + (k + 1) % count;
        file.push_node(json!({"children": [next]}));
    }
    let err = import_error("long-cycle.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NodeGraph { node, reason }
            if *node >= first && reason.contains("cycle"),
        "cycle"
    );
}

#[test]
fn matrix_with_shear() {
    let mut file = valid();
    let root = file.json["nodes"][ROOT].as_object_mut().unwrap();
    root.remove("translation");
    root.insert(
        "matrix".into(),
        json!([
            1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0
        ]),
    );
    let err = import_error("shear.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonDecomposableMatrix { node: ROOT },
        format!("node {ROOT}")
    );
}

#[test]
fn node_translation_that_overflows_to_infinity() {
    let mut file = valid();
    file.json["nodes"][CHILD]["translation"] = json!([1e39, 0.0, 0.0]);
    let err = import_error("infinite-translation.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains(&format!("node {CHILD}")),
        format!("node {CHILD}")
    );
}

// ---------------------------------------------------------------------------------------------
// Skins.
// ---------------------------------------------------------------------------------------------

#[test]
fn more_joints_than_max_joints() {
    let mut file = valid();
    let count = 300;
    let first = file.json["nodes"].as_array().unwrap().len();
    for k in 0..count {
        let children = if k + 1 < count {
            json!([first + k + 1])
        } else {
            json!([])
        };
        file.push_node(json!({"name": format!("bone{k}"), "children": children}));
    }
    file.json["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(first));
    let skin = file.json["skins"][0].as_object_mut().unwrap();
    skin.remove("inverseBindMatrices");
    skin.remove("skeleton");
    skin.insert(
        "joints".into(),
        json!((first..first + count).collect::<Vec<_>>()),
    );
    let err = import_error("300-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::TooManyJoints {
            count: 300,
            limit: MAX_JOINTS,
            object,
        } if object.contains("skin 0"),
        "skin 0",
        "300"
    );
}

#[test]
fn nan_in_an_inverse_bind_matrix() {
    let file = with_streams(|s| s.inverse_binds[1][5] = f32::NAN);
    let err = import_error("nan-inverse-bind.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("skin 0"),
        "skin 0",
        "inverse bind matrix 1"
    );
}

#[test]
fn inverse_bind_matrix_that_is_not_affine() {
    let file = with_streams(|s| s.inverse_binds[1][3] = 0.5);
    let err = import_error("projective-inverse-bind.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, reason } if reason.contains("inverse bind matrix 1"),
        "skin 0"
    );
}

#[test]
fn inverse_bind_count_differs_from_joint_count() {
    let file = with_streams(|s| s.inverse_binds.truncate(1));
    let err = import_error("inverse-bind-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, reason } if reason.contains("1 inverse bind"),
        "skin 0"
    );
}

#[test]
fn skin_with_duplicate_joints() {
    let mut file = valid();
    file.json["skins"][0]["joints"] = json!([ROOT, ROOT]);
    let err = import_error("duplicate-joints.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Skin { skin: 0, reason } if reason.contains("twice"),
        "skin 0",
        format!("node {ROOT}")
    );
}

#[test]
fn skin_without_joints() {
    let mut file = valid();
    let skin = file.json["skins"][0].as_object_mut().unwrap();
    skin.remove("inverseBindMatrices");
    skin.insert("joints".into(), json!([]));
    let err = import_error("no-joints.gltf", &file.to_gltf());
    assert_kind!(err, ImportErrorKind::Skin { skin: 0, .. }, "skin 0");
}

// ---------------------------------------------------------------------------------------------
// Skinned primitives.
// ---------------------------------------------------------------------------------------------

#[test]
fn vertex_joint_index_not_below_the_joint_count() {
    let file = with_streams(|s| s.joints[1] = [2, 0, 0, 0]);
    let err = import_error("joint-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::JointIndex {
            mesh: 0,
            primitive: 0,
            vertex: 1,
            joint: 2,
            joint_count: 2,
        },
        "mesh 0",
        "vertex 1"
    );
}

#[test]
fn vertex_with_zero_weights_is_bound_rigidly_to_the_model_joint() {
    let file = with_streams(|s| s.weights[2] = [0.0; 4]);
    let rigs = import_and_bake("zero-weights.gltf", &file.to_gltf(), None).unwrap();
    let rig = &rigs[0];
    let model = rig.skeleton.model_joint().unwrap();
    let mesh = &rig.meshes[0];
    assert_eq!(mesh.joints[2], [model as u16, 0, 0, 0]);
    assert_eq!(mesh.weights[2], [1.0, 0.0, 0.0, 0.0]);
}

#[test]
fn vertex_with_a_negative_weight() {
    let file = with_streams(|s| s.weights[0] = [1.5, -0.5, 0.0, 0.0]);
    let err = import_error("negative-weight.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroWeights {
            mesh: 0,
            primitive: 0,
            vertex: 0,
        },
        "mesh 0",
        "vertex 0"
    );
}

#[test]
fn vertex_whose_weights_sum_to_infinity() {
    let file = with_streams(|s| s.weights[0] = [f32::MAX, f32::MAX, 0.0, 0.0]);
    let err = import_error("infinite-weight-sum.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroWeights {
            mesh: 0,
            primitive: 0,
            vertex: 0,
        },
        "vertex 0"
    );
}

#[test]
fn joints_1_without_weights_1() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["attributes"]["JOINTS_1"] = json!(JOINTS);
    let err = import_error("joints1-alone.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("JOINTS_1"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn triangle_index_not_below_the_vertex_count() {
    let file = with_streams(|s| s.indices[2] = 7);
    let err = import_error("triangle-index.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("index 7"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn weights_with_fewer_elements_than_positions() {
    let file = with_streams(|s| {
        s.weights.pop();
    });
    let err = import_error("short-weights-stream.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("WEIGHTS"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn skinned_primitive_without_joints_0() {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["attributes"]
        .as_object_mut()
        .unwrap()
        .remove("JOINTS_0");
    let err = import_error("no-joints0.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("JOINTS_0"),
        "mesh 0 primitive 0"
    );
}

// ---------------------------------------------------------------------------------------------
// Animations.
// ---------------------------------------------------------------------------------------------

#[test]
fn nan_key_value() {
    let file = with_streams(|s| s.rotations[1][0] = f32::NAN);
    let err = import_error("nan-key.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { object } if object.contains("animation 0 channel 0"),
        "animation 0 channel 0"
    );
}

#[test]
fn infinite_key_time() {
    let file = with_streams(|s| s.times[1] = f32::INFINITY);
    let err = import_error("inf-time.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 1,
        },
        "animation 0 channel 0"
    );
}

#[test]
fn non_increasing_key_times() {
    let file = with_streams(|s| s.times = vec![0.5, 0.5]);
    let err = import_error("flat-times.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 1,
        },
        "animation 0 channel 0",
        "key time 1"
    );
}

#[test]
fn negative_key_time() {
    let file = with_streams(|s| s.times[0] = -0.5);
    let err = import_error("negative-time.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyTimes {
            animation: 0,
            channel: 0,
            key: 0,
        },
        "animation 0 channel 0",
        "key time 0"
    );
}

#[test]
fn linear_output_count_differs_from_input_count() {
    let file = with_streams(|s| s.rotations.push([0.0, 0.0, 0.0, 1.0]));
    let err = import_error("linear-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyCount {
            animation: 0,
            channel: 0,
            times: 2,
            values: 3,
        },
        "animation 0 channel 0"
    );
}

#[test]
fn cubic_spline_output_count_differs_from_three_per_key() {
    let mut file = valid();
    file.json["animations"][0]["samplers"][1]["interpolation"] = json!("CUBICSPLINE");
    let err = import_error("cubic-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::KeyCount {
            animation: 0,
            channel: 1,
            times: 2,
            ..
        },
        "animation 0 channel 1"
    );
}

#[test]
fn zero_length_rotation_key() {
    let file = with_streams(|s| s.rotations[1] = [0.0; 4]);
    let err = import_error("zero-rotation.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroRotation {
            animation: 0,
            channel: 0,
            key: 1,
        },
        "animation 0 channel 0",
        "rotation key 1"
    );
}

#[test]
fn zero_length_clip() {
    let file = with_streams(|s| {
        s.times.truncate(1);
        s.rotations.truncate(1);
        s.translations.truncate(1);
    });
    let err = import_error("zero-length.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroLengthClip { animation: 0, name } if name == "wave",
        "animation 0",
        "wave"
    );
}

#[test]
fn animation_without_channels() {
    let mut file = valid();
    file.json["animations"][0]["channels"] = json!([]);
    file.json["animations"][0]["samplers"] = json!([]);
    let err = import_error("no-channels.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ZeroLengthClip { animation: 0, .. },
        "animation 0"
    );
}

#[test]
fn two_channels_animating_the_same_property() {
    let mut file = valid();
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": 0, "target": {"node": CHILD, "path": "rotation"}}));
    let err = import_error("duplicate-channel.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel {
            animation: 0,
            target,
            channel: "rotation",
        } if target == "child",
        "animation 0",
        "child"
    );
}

#[test]
fn two_channels_animating_a_node_outside_every_rig() {
    // The skin does not contain node `body`: the duplicate is still an import error.
    let mut file = valid();
    let channels = file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap();
    for _ in 0..2 {
        channels.push(json!({"sampler": 1, "target": {"node": BODY, "path": "translation"}}));
    }
    let err = import_error("duplicate-outside-rig.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel {
            animation: 0,
            target,
            channel: "translation",
        } if target == "body",
        "animation 0",
        "body"
    );
}

// ---------------------------------------------------------------------------------------------
// Fuzzing: corrupted bytes may fail to import, but must never panic.
// ---------------------------------------------------------------------------------------------

/// Applies one deterministic corruption to `bytes` and says what it did.
fn corrupt(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    let at = rng.below(bytes.len());
    match rng.below(5) {
        0 => {
            let bit = rng.below(8);
            bytes[at] ^= 1 << bit;
            format!("flip bit {bit} of byte {at}")
        }
        1 => {
            let value = rng.next() as u8;
            bytes[at] = value;
            format!("set byte {at} to {value:#04x}")
        }
        2 => {
            bytes.truncate(at);
            format!("truncate to {at} bytes")
        }
        3 => {
            let value = rng.next() as u32;
            let end = (at + 4).min(bytes.len());
            bytes[at..end].copy_from_slice(&value.to_le_bytes()[..end - at]);
            format!("write {value:#010x} at byte {at}")
        }
        _ => {
            // Change a decimal digit: keeps JSON well-formed but moves indices and counts.
            let digits: Vec<usize> = (0..bytes.len())
                .filter(|&i| bytes[i].is_ascii_digit())
                .collect();
            if digits.is_empty() {
                return "no digit to change".into();
            }
            let i = digits[rng.below(digits.len())];
            let digit = b'0' + rng.below(10) as u8;
            bytes[i] = digit;
            format!("set digit at byte {i} to {}", digit as char)
        }
    }
}

/// What a fuzz run saw.
#[derive(Default)]
struct FuzzOutcome {
    /// One line per round that panicked: the corruption, the panic's location and frames.
    panics: Vec<String>,
    /// Rounds whose corrupted file still imported and baked.
    imported: usize,
    /// Rounds rejected, by error kind.
    rejected: BTreeMap<String, usize>,
}

impl FuzzOutcome {
    fn assert_no_panics(&self) {
        assert!(
            self.panics.is_empty(),
            "{} corrupted input(s) panicked:\n{}",
            self.panics.len(),
            self.panics.join("\n")
        );
    }

    /// Asserts the corruptions reached the importer's own checks, not only the JSON parser.
    fn assert_reached_the_importer(&self, name: &str) {
        let beyond_parsing: usize = self
            .rejected
            .iter()
            .filter(|(kind, _)| kind.as_str() != "Gltf")
            .map(|(_, n)| n)
            .sum();
        assert!(
            self.imported > 0 && beyond_parsing > 0,
            "{name}: the fuzz run only exercised parsing: {} imported, rejections {:?}",
            self.imported,
            self.rejected
        );
    }
}

/// Corrupts `original` `rounds` times (one to three corruptions each) and imports each result.
fn fuzz(name: &str, original: &[u8], seed: u64, rounds: usize) -> FuzzOutcome {
    let mut rng = Rng(seed);
    let mut outcome = FuzzOutcome::default();
    for round in 0..rounds {
        let mut bytes = original.to_vec();
        let corruptions = 1 + rng.below(3);
        let mut what = Vec::new();
        for _ in 0..corruptions {
            if bytes.is_empty() {
                break;
            }
            what.push(corrupt(&mut bytes, &mut rng));
        }
        match try_import_and_bake(name, &bytes, None) {
            Ok(Ok(_)) => outcome.imported += 1,
            Ok(Err(err)) => {
                let kind = format!("{:?}", err.kind);
                let kind = kind
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or_default()
                    .to_string();
                *outcome.rejected.entry(kind).or_default() += 1;
            }
            Err(panic) => outcome.panics.push(format!(
                "{name} round {round} ({}): {panic}",
                what.join(", ")
            )),
        }
    }
    eprintln!(
        "{name}: {rounds} rounds, {} imported, {} panicked, rejected {:?}",
        outcome.imported,
        outcome.panics.len(),
        outcome.rejected
    );
    outcome
}

#[test]
fn fuzzed_minimal_glb_never_panics() {
    let outcome = fuzz("fuzz-minimal.glb", &valid().to_glb(), 0x5eed_0001, 600);
    outcome.assert_no_panics();
    outcome.assert_reached_the_importer("fuzz-minimal.glb");
}

#[test]
fn fuzzed_minimal_gltf_never_panics() {
    let outcome = fuzz("fuzz-minimal.gltf", &valid().to_gltf(), 0x5eed_0002, 400);
    outcome.assert_no_panics();
    outcome.assert_reached_the_importer("fuzz-minimal.gltf");
}

#[test]
fn fuzzed_shared_assets_never_panic() {
    let Some(shared) = common::shared() else {
        return;
    };
    for (seed, file) in [
        (0x5eed_0003, "SimpleSkin.gltf"),
        (0x5eed_0004, "RiggedSimple.glb"),
    ] {
        let bytes = std::fs::read(shared.join("gltf").join(file)).unwrap();
        let rigs = import_and_bake(file, &bytes, None)
            .unwrap_or_else(|e| panic!("{file} must import before it is corrupted: {e}"));
        assert!(!rigs.is_empty(), "{file}: no rigs");
        let outcome = fuzz(file, &bytes, seed, 400);
        outcome.assert_no_panics();
        outcome.assert_reached_the_importer(file);
    }
}

#[test]
fn matrix_with_a_zero_scale_axis_is_decomposable() {
    // A 90-degree turn about x, then scale (1, 1, 0): flattened, but still T * R * S.
    let matrix = [
        1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0, 1.0,
    ];
    let mut file = valid();
    let root = file.json["nodes"][ROOT].as_object_mut().unwrap();
    root.remove("translation");
    root.insert("matrix".into(), json!(matrix));
    let rigs = import_and_bake("flattened.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("a zero-scale axis is decomposable: {e}"));
    let rest = rigs[0].skeleton.rest_pose()[0];
    let rebuilt = glam::Mat4::from(rest.to_affine()).to_cols_array();
    common::assert_matrix_close(&rebuilt, &matrix, "rest pose of the flattened root");
}

// ---------------------------------------------------------------------------------------------
// Public constructors given hand-built data (in files of their own, sharing `assert_kind!`).
// ---------------------------------------------------------------------------------------------

#[path = "malformed/constructors.rs"]
mod constructors;
#[path = "malformed/images.rs"]
mod images;
#[path = "malformed/rigs.rs"]
mod rigs;
