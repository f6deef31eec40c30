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
use sinew::cpu::fast::{DEFAULT_RATE, MAX_CLIP_FRAMES};
use sinew::{
    FastCpuBackend, ImportError, ImportErrorKind, InstanceRecord, Layer, MAX_JOINTS, Mat3x4Rows,
    Rig,
};

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
    // Animation inputs must state their range too (over the finite keys: JSON has no infinity).
    let finite = streams.times.iter().copied().filter(|t| t.is_finite());
    let mut times = accessor(TIMES, streams.times.len(), FLOAT, "SCALAR");
    times["min"] = json!([finite.clone().fold(f32::MAX, f32::min)]);
    times["max"] = json!([finite.fold(f32::MIN, f32::max)]);
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
            times,
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

impl Gltf {
    /// `.gltf` text with the buffer as a data URI (unless a case set its own `uri`).
    fn to_gltf(&self) -> Vec<u8> {
        let mut json = self.json.clone();
        if let Some(buffer) = json["buffers"].get_mut(0)
            && buffer.get("uri").is_none()
        {
            buffer["uri"] = json!(format!(
                "data:application/octet-stream;base64,{}",
                common::base64(&self.bin)
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
    file.json["bufferViews"][WEIGHTS]["byteStride"] = json!(4);
    let err = import_error("small-stride.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorOutOfRange {
            accessor: WEIGHTS,
            reason,
        } if reason.contains("stride"),
        format!("accessor {WEIGHTS}")
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
    assert_eq!(mesh.joints[2], common::eight([model as u16, 0, 0, 0]));
    assert_eq!(mesh.weights[2], common::eight([1.0, 0.0, 0.0, 0.0]));
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
fn weights_2_without_joints_2() {
    // A third influence set (read, then cut to the strongest eight) needs both accessors too.
    let mut file = valid();
    let attributes = &mut file.json["meshes"][0]["primitives"][0]["attributes"];
    attributes["JOINTS_1"] = json!(JOINTS);
    attributes["WEIGHTS_1"] = json!(WEIGHTS);
    attributes["WEIGHTS_2"] = json!(WEIGHTS);
    let err = import_error("weights2-alone.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("WEIGHTS_2"),
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
    // An animated node may not define a matrix: drop the root's translation channel.
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .pop();
    let rigs = import_and_bake("flattened.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("a zero-scale axis is decomposable: {e}"));
    let rest = rigs[0].skeleton.rest_pose()[0];
    let rebuilt = glam::Mat4::from(rest.to_affine()).to_cols_array();
    common::assert_matrix_close(&rebuilt, &matrix, "rest pose of the flattened root");
}

// ---------------------------------------------------------------------------------------------
// Extensions, compressed views and pose clips: what glTF and its common exporters allow must
// import; a file sinew cannot read correctly must say why.
// ---------------------------------------------------------------------------------------------

/// Declares `names` in `extensionsUsed`, and those flagged in `extensionsRequired`.
fn declare(file: &mut Gltf, names: &[(&str, bool)]) {
    file.json["extensionsUsed"] = json!(names.iter().map(|n| n.0).collect::<Vec<_>>());
    let required: Vec<&str> = names.iter().filter(|n| n.1).map(|n| n.0).collect();
    file.json["extensionsRequired"] = json!(required);
}

/// Adds a fallback buffer (no data) as buffer 1, as long as buffer 0.
fn add_fallback_buffer(file: &mut Gltf, flagged: bool) {
    let mut fallback = json!({"byteLength": file.bin.len()});
    if flagged {
        fallback["extensions"] = json!({"EXT_meshopt_compression": {"fallback": true}});
    }
    file.json["buffers"].as_array_mut().unwrap().push(fallback);
}

/// Compresses buffer view `view` of `file`: `stream` (what meshopt's encoder wrote for it) goes
/// to the end of buffer 0, and the view itself moves to the fallback buffer 1 at the same offset.
fn compress(file: &mut Gltf, view: usize, stream: &[u8], stride: usize, mode: &str, filter: &str) {
    while !file.bin.len().is_multiple_of(4) {
        file.bin.push(0);
    }
    let length = file.json["bufferViews"][view]["byteLength"]
        .as_u64()
        .unwrap() as usize;
    let mut extension = json!({
        "buffer": 0,
        "byteOffset": file.bin.len(),
        "byteLength": stream.len(),
        "byteStride": stride,
        "count": length / stride,
        "mode": mode,
    });
    if filter != "NONE" {
        extension["filter"] = json!(filter);
    }
    file.bin.extend_from_slice(stream);
    let v = &mut file.json["bufferViews"][view];
    v["buffer"] = json!(1);
    v["extensions"] = json!({"EXT_meshopt_compression": extension});
    file.json["buffers"][0]["byteLength"] = json!(file.bin.len());
}

/// The minimal file with every view the importer reads compressed: every attribute and
/// animation stream with the attribute codec (translations through the exponential filter at
/// 24 bits, exact for their values), the triangle indices with the index-sequence codec.
fn compressed(flagged_fallback: bool) -> Gltf {
    let s = valid_streams();
    let mut file = build(&s);
    add_fallback_buffer(&mut file, flagged_fallback);
    declare(&mut file, &[("EXT_meshopt_compression", true)]);
    let exponential =
        meshopt::encode_filter_exp(&s.translations, 24, meshopt::EncodeExpMode::Separate);
    let indices: Vec<u32> = s.indices.iter().map(|&i| u32::from(i)).collect();
    let streams: [(usize, Vec<u8>, usize, &str, &str); 8] = [
        (
            POSITION,
            meshopt::encode_vertex_buffer(&s.positions).unwrap(),
            12,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            JOINTS,
            meshopt::encode_vertex_buffer(&s.joints).unwrap(),
            8,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            WEIGHTS,
            meshopt::encode_vertex_buffer(&s.weights).unwrap(),
            16,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            INDICES,
            meshopt::encode_index_sequence(&indices, 3).unwrap(),
            2,
            "INDICES",
            "NONE",
        ),
        (
            INVERSE_BINDS,
            meshopt::encode_vertex_buffer(&s.inverse_binds).unwrap(),
            64,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            TIMES,
            meshopt::encode_vertex_buffer(&s.times).unwrap(),
            4,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            ROTATIONS,
            meshopt::encode_vertex_buffer(&s.rotations).unwrap(),
            16,
            "ATTRIBUTES",
            "NONE",
        ),
        (
            TRANSLATIONS,
            meshopt::encode_vertex_buffer(&exponential).unwrap(),
            12,
            "ATTRIBUTES",
            "EXPONENTIAL",
        ),
    ];
    for (view, stream, stride, mode, filter) in streams {
        compress(&mut file, view, &stream, stride, mode, filter);
    }
    file
}

/// Imports `bytes` (it must succeed, without a panic).
fn import_ok(name: &str, bytes: &[u8]) -> sinew::RawAsset {
    install_panic_hook();
    match catch_unwind(AssertUnwindSafe(|| sinew::import_bytes(bytes, name, None))) {
        Ok(Ok(asset)) => asset,
        Ok(Err(e)) => panic!("case {name}: must import: {e}"),
        Err(_) => panic!("case {name}: import panicked"),
    }
}

/// The parts of an asset that do not depend on how its bytes were stored.
fn content(asset: &sinew::RawAsset) -> impl PartialEq + std::fmt::Debug + '_ {
    (&asset.nodes, &asset.skins, &asset.clips, &asset.meshes)
}

#[test]
fn required_extension_sinew_does_not_know() {
    let mut file = valid();
    declare(&mut file, &[("KHR_draco_mesh_compression", true)]);
    let err = import_error("draco.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::UnsupportedExtension { name } if name == "KHR_draco_mesh_compression",
        "KHR_draco_mesh_compression"
    );
}

#[test]
fn required_extension_missing_from_extensions_used() {
    let mut file = valid();
    file.json["extensionsRequired"] = json!(["KHR_texture_transform"]);
    let err = import_error("required-not-used.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Gltf(reason) if reason.contains("extensionsUsed"),
        "KHR_texture_transform"
    );
}

#[test]
fn unknown_extension_that_is_only_used_is_listed_as_unrecognized() {
    let mut file = valid();
    declare(&mut file, &[("EXT_mesh_gpu_instancing", false)]);
    let asset = import_ok("used-only.gltf", &file.to_gltf());
    assert_eq!(
        asset.extensions,
        [sinew::import::ExtensionUse {
            name: "EXT_mesh_gpu_instancing".into(),
            required: false,
            handling: sinew::import::ExtensionHandling::Unrecognized,
        }]
    );
}

#[test]
fn required_texture_and_material_extensions_import_and_are_ignored() {
    let mut file = valid();
    declare(
        &mut file,
        &[
            ("KHR_texture_transform", true),
            ("KHR_texture_basisu", true),
            ("KHR_materials_emissive_strength", false),
        ],
    );
    file.json["images"] = json!([{"uri": "never-loaded.ktx2", "mimeType": "image/ktx2"}]);
    // A basisu texture names its image only in the extension: no `source`.
    file.json["textures"] = json!([{"extensions": {"KHR_texture_basisu": {"source": 0}}}]);
    file.json["materials"] = json!([{
        "pbrMetallicRoughness": {"baseColorTexture": {
            "index": 0,
            "extensions": {"KHR_texture_transform": {"offset": [0.5, 0.0], "scale": [2.0, 2.0]}},
        }},
        "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 4.0}},
    }]);
    file.json["meshes"][0]["primitives"][0]["material"] = json!(0);
    let mut asset = import_ok("texture-transform.gltf", &file.to_gltf());
    // The material is read; its basisu texture, whose image sinew cannot decode, is dropped
    // with a warning.
    let material = asset.meshes[0].material.take().unwrap();
    assert!(material.base_color_texture.is_none());
    assert_eq!(material.warnings.len(), 1, "{:?}", material.warnings);
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(
        content(&asset),
        content(&plain),
        "the extensions change no animation data"
    );
    let listed: Vec<(&str, bool, sinew::import::ExtensionHandling)> = asset
        .extensions
        .iter()
        .map(|e| (e.name.as_str(), e.required, e.handling))
        .collect();
    use sinew::import::ExtensionHandling::Ignored;
    assert_eq!(
        listed,
        [
            ("KHR_texture_transform", true, Ignored),
            ("KHR_texture_basisu", true, Ignored),
            ("KHR_materials_emissive_strength", false, Ignored),
        ]
    );
}

#[test]
fn compressed_minimal_file_reads_like_the_plain_one() {
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    for flagged in [false, true] {
        let file = compressed(flagged);
        for (name, bytes) in [
            ("compressed.gltf", file.to_gltf()),
            ("compressed.glb", file.to_glb()),
        ] {
            let asset = import_ok(name, &bytes);
            assert_eq!(
                content(&asset),
                content(&plain),
                "{name} (flagged fallback: {flagged})"
            );
            import_and_bake(name, &bytes, None).unwrap();
        }
    }
}

#[test]
fn compressed_view_whose_data_does_not_decode() {
    let mut file = compressed(true);
    // Corrupt the attribute stream's header byte (0xa0 for the version this encoder writes).
    let at =
        file.json["bufferViews"][POSITION]["extensions"]["EXT_meshopt_compression"]["byteOffset"]
            .as_u64()
            .unwrap() as usize;
    file.bin[at] = 0xff;
    let err = import_error("bad-stream.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::CompressedView { view: POSITION, reason } if reason.contains("decode"),
        format!("buffer view {POSITION}")
    );
}

#[test]
fn compressed_view_whose_stream_is_truncated() {
    let mut file = compressed(true);
    file.json["bufferViews"][INDICES]["extensions"]["EXT_meshopt_compression"]["byteLength"] =
        json!(3);
    let err = import_error("short-stream.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::CompressedView { view: INDICES, .. },
        format!("buffer view {INDICES}")
    );
}

/// A layout-rule case: file name, buffer view, extension fields to set, expected text.
type LayoutCase = (
    &'static str,
    usize,
    Vec<(&'static str, Value)>,
    &'static str,
);

#[test]
fn compressed_view_that_breaks_a_layout_rule() {
    // Each rule guards an assumption of the decoder (a violated one would abort the process).
    let cases: [LayoutCase; 6] = [
        (
            "stride-not-4.glb",
            TIMES,
            vec![("byteStride", json!(6))],
            "multiple of 4",
        ),
        (
            "stride-over-256.glb",
            INVERSE_BINDS,
            vec![("byteStride", json!(260))],
            "multiple of 4",
        ),
        (
            "triangles-count.glb",
            INDICES,
            vec![("mode", json!("TRIANGLES")), ("count", json!(2))],
            "multiple of 3",
        ),
        (
            "index-filter.glb",
            INDICES,
            vec![("filter", json!("OCTAHEDRAL"))],
            "filter",
        ),
        (
            "quaternion-stride.glb",
            ROTATIONS,
            vec![("filter", json!("QUATERNION"))],
            "byteStride 16",
        ),
        (
            "unknown-mode.glb",
            TIMES,
            vec![("mode", json!("DELTA"))],
            "DELTA",
        ),
    ];
    for (name, view, fields, needle) in cases {
        let mut file = compressed(true);
        let extension =
            &mut file.json["bufferViews"][view]["extensions"]["EXT_meshopt_compression"];
        for (field, value) in fields {
            extension[field] = value;
        }
        let err = import_error(name, &file.to_glb());
        assert_kind!(
            err,
            ImportErrorKind::CompressedView { .. },
            format!("buffer view {view}"),
            needle
        );
    }
}

#[test]
fn compressed_view_larger_than_stride_times_count() {
    let mut file = compressed(true);
    file.json["bufferViews"][WEIGHTS]["byteLength"] = json!(64);
    let err = import_error("length.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::CompressedView { view: WEIGHTS, .. },
        format!("buffer view {WEIGHTS}"),
        "byteStride 16 times count 3"
    );
}

#[test]
fn flagged_fallback_buffer_read_by_an_uncompressed_view() {
    let mut file = compressed(true);
    file.json["bufferViews"][SPARSE_INDEX_VIEW]["buffer"] = json!(1);
    let err = import_error("fallback-read.glb", &file.to_glb());
    assert_kind!(
        err,
        ImportErrorKind::Buffer { buffer: 1, .. },
        "buffer 1",
        "fallback"
    );
}

/// The minimal file declaring `KHR_mesh_quantization`, with a NORMAL attribute of `component`
/// type (read from the joints' bytes, 8 per vertex).
fn with_quantized_normal(component: u32, normalized: bool) -> Gltf {
    let mut file = valid();
    declare(&mut file, &[("KHR_mesh_quantization", true)]);
    file.json["bufferViews"][JOINTS]["byteStride"] = json!(8);
    let normal = json!({"bufferView": JOINTS, "count": 3, "componentType": component, "type": "VEC3", "normalized": normalized});
    file.json["accessors"].as_array_mut().unwrap().push(normal);
    let index = file.json["accessors"].as_array().unwrap().len() - 1;
    file.json["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(index);
    file
}

#[test]
fn quantized_attribute_of_a_type_the_extension_does_not_allow() {
    // KHR_mesh_quantization allows NORMAL as normalized BYTE or SHORT only.
    for (component, normalized) in [(UNSIGNED_SHORT, true), (SHORT, false)] {
        let file = with_quantized_normal(component, normalized);
        let err = import_error("normal-u16.gltf", &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::AccessorFormat { accessor: 8, usage, .. } if usage.starts_with("NORMAL"),
            "accessor 8",
            "KHR_mesh_quantization"
        );
    }
    let mut file = with_quantized_normal(SHORT, true);
    file.json["extensionsUsed"] = json!([]);
    file.json["extensionsRequired"] = json!([]);
    let err = import_error("normal-without-extension.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat { accessor: 8, .. },
        "accessor 8"
    );
}

#[test]
fn quantized_normal_reads_as_a_unit_vector() {
    let asset = import_ok(
        "normal-i16.gltf",
        &with_quantized_normal(SHORT, true).to_gltf(),
    );
    for n in &asset.meshes[0].normals {
        let length = glam::Vec3::from(*n).length();
        assert!(
            length == 0.0 || (length - 1.0).abs() <= common::EXACT_TOLERANCE,
            "|{n:?}| = {length}"
        );
    }
}

/// The minimal file whose clip holds one key per channel, at `t`.
fn single_key(t: f32) -> Gltf {
    let half = std::f32::consts::FRAC_1_SQRT_2;
    with_streams(|s| {
        s.times = vec![t];
        s.rotations = vec![[0.0, 0.0, half, half]];
        s.translations = vec![[0.0, 0.5, 0.0]];
    })
}

#[test]
fn single_key_clip_is_a_pose_at_every_time() {
    let bytes = single_key(0.0).to_gltf();
    let rigs = import_and_bake("pose.gltf", &bytes, None).unwrap_or_else(|e| panic!("{e}"));
    let rig = &rigs[0];
    assert_eq!(
        rig.clips.clips()[0].duration,
        0.0,
        "a pose lasts zero seconds"
    );
    // Root at the key's translation; child one unit up from it, turned 90 degrees about z.
    let root = glam::Affine3A::from_translation(glam::Vec3::new(0.0, 0.5, 0.0));
    let child = root
        * glam::Affine3A::from_rotation_translation(
            glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            glam::Vec3::Y,
        );
    let expected = [root, child];
    let fast = sinew::FastCpuBackend::new(rigs.clone(), Vec::new(), sinew::cpu::fast::DEFAULT_RATE)
        .unwrap();
    for t in [-1.0, 0.0, 0.25, 7.0] {
        let layers = [sinew::Layer::clip(0, t)];
        let mut models = vec![glam::Affine3A::IDENTITY; 2];
        let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; 2];
        let identity = glam::Affine3A::IDENTITY;
        sinew::cpu::evaluate_pose(rig, &[], &layers, &identity, &mut models, &mut palette);
        let record = sinew::InstanceRecord::new(0, 0, &identity, &layers).unwrap();
        let mut fast_models = vec![glam::Affine3A::IDENTITY; 2];
        fast.evaluate_one(&record, &mut fast_models, &mut palette)
            .unwrap();
        for (j, want) in expected.iter().enumerate() {
            let want = glam::Mat4::from(*want).to_cols_array();
            let name = rig.skeleton.names()[j].clone();
            common::assert_matrix_close(
                &glam::Mat4::from(models[j]).to_cols_array(),
                &want,
                &format!("{name} at {t}"),
            );
            common::assert_matrix_close(
                &glam::Mat4::from(fast_models[j]).to_cols_array(),
                &want,
                &format!("fast {name} at {t}"),
            );
        }
    }
    // The baked file keeps the zero duration.
    let again =
        sinew::bake::file::from_bytes(&sinew::bake::file::to_bytes(&rigs), "pose.sinew").unwrap();
    assert_eq!(again, rigs);
}

#[test]
fn single_key_clip_after_time_zero_lasts_until_its_key() {
    let rigs = import_and_bake("late-pose.gltf", &single_key(0.4).to_gltf(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rigs[0].clips.clips()[0].duration, 0.4);
}

// ---------------------------------------------------------------------------------------------
// glTF 2.0, clause by clause: Accessors (§3.6) and Animations (§3.11). Every MUST has a case
// that breaks it; what the specification allows has a case that imports. The valid cases live
// here too, beside the invalid ones, because both start from the minimal file.
//
// §3.6.1  count >= 1 (schema) ................................ accessor_count_must_be_at_least_one
//         byteOffset only with a bufferView (schema) ......... byte_offset_without_a_buffer_view
// §3.6.2  no NaN or infinity in float data ................... float_data_must_not_hold_nan_or_infinity,
//                                                              nan_key_value, infinite_key_time,
//                                                              nan_in_an_inverse_bind_matrix
//         normalized integers decode with the equations ...... normalized_keys_decode_with_the_spec_equations
// §3.6.3  sparse count <= accessor count ..................... sparse_count_above_the_accessor_count
//         sparse indices < accessor count .................... sparse_index_not_below_the_accessor_count
//         sparse indices increase strictly ................... sparse_indices_must_increase_strictly
//         without bufferView: zeros, then sparse values (MAY)  sparse_accessor_without_a_buffer_view_is_read
//         sparse data aligned, its views without byteStride .. sparse_data_must_be_aligned_and_tightly_packed
// §3.6.4  byteOffset (in view and buffer) % component size ... accessor_offsets_must_be_multiples_of_the_component_size
//         byteStride % component size ........................ byte_stride_must_be_a_multiple_of_the_component_size
//         byteStride only on vertex attribute views (§3.6) ... byte_stride_only_on_vertex_attribute_views
//         a view shared by vertex attributes has byteStride .. shared_vertex_attribute_view_must_define_byte_stride
//         interleaved vertex attributes (MAY) ................ interleaved_vertex_attributes_are_read
//         an accessor fits its buffer view ................... accessor_range_beyond_its_buffer_view
//         vertex attribute elements 4-byte aligned ........... vertex_attributes_must_be_4_byte_aligned
// §3.6.5  min/max: one entry per component ................... bounds_must_have_one_entry_per_component
//         min/max equal the data's extremes .................. bounds_must_match_the_data
//         normalized: min/max hold the stored integers ....... normalized_keys_decode_with_the_spec_equations
//         animation inputs define min and max ................ animation_input_must_define_bounds
// §3.11   channels: at least one (schema) .................... animation_without_channels
//         each target at most once (weights too) ............. two_channels_animating_the_same_property,
//                                                              weights_target_used_twice
//         "weights" only on nodes with morph targets ......... weights_must_target_a_node_with_morph_targets
//         output accessor types per path ..................... rotation_keys_of_type_vec3, weights_keys_must_be_scalar,
//                                                              key_times_stored_as_unsigned_short
//         weights output = targets × keys (MAY animate) ...... weights_output_must_hold_one_value_per_target_per_key,
//                                                              weights_channel_on_a_morphed_node_imports
//         output count = input count (× 3 for CUBICSPLINE) ... linear_output_count_differs_from_input_count,
//                                                              cubic_spline_output_count_differs_from_three_per_key
//         input times >= 0, strictly increasing (schema) ..... negative_key_time, non_increasing_key_times
//         CUBICSPLINE needs at least 2 keys (appendix C) ..... cubic_spline_sampler_must_have_at_least_two_keys
//         one key per channel: a pose (MAY) .................. single_key_clip_is_a_pose_at_every_time
//         a channel without target node is ignored (SHOULD) .. channel_without_a_target_node_is_ignored
//
// Scenes, nodes, skins and meshes (cases in malformed/nodes.rs and malformed/meshes.rs):
// §3.5.1  scene.nodes are roots, each once ................... scene_must_list_only_root_nodes,
//                                                              scene_must_not_list_a_node_twice
//         a root in several scenes, or no scene (MAY) ........ a_root_may_appear_in_several_scenes,
//                                                              a_file_without_scenes_imports
// §3.5.2  children indices valid (schema) .................... child_node_out_of_range
//         disjoint strict trees: no cycle, one parent ........ node_that_is_its_own_child, cyclic_node_graph,
//                                                              node_with_two_parents, long_node_cycle_is_found
// §3.5.3  matrix or TRS, not both ............................ node_must_not_define_matrix_and_trs
//         matrix decomposable to TRS ......................... matrix_with_shear,
//                                                              matrix_with_a_zero_scale_axis_is_decomposable
//         an animated node has no matrix ..................... animated_node_must_not_define_a_matrix
//         rotation a unit quaternion (validator tolerance) ... node_rotation_must_be_a_unit_quaternion,
//                                                              node_rotation_within_quantization_error_of_unit_length_imports
//         skin and weights need a mesh (schema) .............. node_with_a_skin_must_have_a_mesh,
//                                                              node_with_weights_must_have_a_mesh
// §3.7.3  joints: at least one, unique, valid nodes .......... skin_without_joints, skin_with_duplicate_joints,
//                                                              skin_joint_node_out_of_range
//         joints have a common root .......................... skin_joints_must_have_a_common_root
//         skeleton is the common root or above it ............ skeleton_must_be_at_or_above_the_common_root_of_the_joints,
//                                                              skeleton_above_the_common_root_of_the_joints_is_allowed
//         inverse binds: MAT4 float, affine .................. inverse_bind_matrices_must_be_float_mat4,
//                                                              inverse_bind_matrix_that_is_not_affine
//         inverse bind count >= joint count .................. inverse_bind_count_differs_from_joint_count,
//                                                              more_inverse_bind_matrices_than_joints_is_allowed
// §3.7.2  primitives: at least one (schema) .................. mesh_must_have_a_primitive
//         mode one of the seven (schema) ..................... primitive_mode_must_be_a_gltf_mode
//         POSITION defines min and max ....................... position_accessor_must_define_bounds
//         attribute formats per semantic, on every mesh ...... attribute_formats_per_semantic_hold_on_every_mesh,
//                                                              joints_stored_as_float, weights_stored_as_normalized_short
//         VEC4 colors, `_NAME` attributes of any format (MAY)  vec4_float_colors_and_application_specific_attributes_import
//         UNSIGNED_INT only for indices (§3.6.2) ............. application_specific_attributes_must_not_be_unsigned_int
//         a count that is not whole triangles (warning) ...... indices_left_over_after_the_last_triangle_are_dropped
//         all attributes of a primitive: one count ........... attributes_of_a_primitive_must_have_one_count,
//                                                              weights_with_fewer_elements_than_positions
//         attribute sets numbered from 0 without gaps ........ attribute_sets_must_be_numbered_from_0_without_gaps
//         set indices without leading zeros .................. attribute_set_indices_must_not_have_leading_zeros
//         JOINTS_n and WEIGHTS_n in pairs .................... joints_1_without_weights_1,
//                                                              weights_1_without_joints_1_on_an_unskinned_mesh
//         indices: SCALAR unsigned ........................... indices_must_be_scalar_unsigned_integers
//         indices: no primitive restart value ................ indices_must_not_hold_the_primitive_restart_value
//         indices below the vertex count ..................... triangle_index_not_below_the_vertex_count,
//                                                              indices_of_an_unskinned_mesh_must_be_below_its_vertex_count
//         morph targets: target formats, the vertex count .... morph_target_attributes_must_have_the_target_formats,
//                                                              morph_target_with_a_wrong_vertex_count
//         morph targets displace base attributes only ........ morph_target_attributes_must_displace_base_attributes
//         morph targets: one count for all primitives ........ primitives_with_different_morph_target_counts
//         mesh and node weights: one per target .............. default_morph_weights_that_are_not_one_per_target
// §3.7.3.3 weights not negative .............................. vertex_with_a_negative_weight
//         one joint, one non-zero weight per vertex .......... joint_must_not_have_two_non_zero_weights_on_one_vertex
//         every joint value within the skin, weighted or not . vertex_joint_index_not_below_the_joint_count,
//                                                              joint_values_of_zero_weight_must_be_within_the_skin_too
//         every skinned primitive has JOINTS_0, WEIGHTS_0 .... skinned_primitive_without_joints_0,
//                                                              every_primitive_of_a_skinned_mesh_needs_joints_and_weights
//         weight sums close to 1 (SHOULD): renormalized ...... weights_that_do_not_sum_to_one_import_renormalized
//         all-zero weights (valid) ........................... all_zero_weights_on_an_unskinned_mesh_import
// KHR_mesh_quantization: attribute and morph target types .. quantized_attribute_of_a_type_the_extension_does_not_allow,
//                                                              quantized_morph_targets_import_per_the_extension,
//                                                              quantized_morph_targets_need_the_extension_and_a_signed_type
// ---------------------------------------------------------------------------------------------

impl Gltf {
    /// Appends `bytes` as a new buffer view (4-byte aligned) and returns its index.
    fn push_view(&mut self, bytes: &[u8], stride: Option<usize>) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let mut view =
            json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()});
        if let Some(stride) = stride {
            view["byteStride"] = json!(stride);
        }
        self.bin.extend_from_slice(bytes);
        self.json["buffers"][0]["byteLength"] = json!(self.bin.len());
        let views = self.json["bufferViews"].as_array_mut().unwrap();
        views.push(view);
        views.len() - 1
    }

    /// Appends an accessor and returns its index.
    fn push_accessor(&mut self, accessor: Value) -> usize {
        let accessors = self.json["accessors"].as_array_mut().unwrap();
        accessors.push(accessor);
        accessors.len() - 1
    }
}

/// Asserts `file` fails with an [`ImportErrorKind::AccessorRule`] on `accessor` whose text holds
/// `needle`.
fn assert_accessor_rule(name: &str, file: &Gltf, accessor: usize, needle: &str) {
    let err = import_error(name, &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::AccessorRule { accessor: a, .. } if *a == accessor,
        format!("accessor {accessor}"),
        needle
    );
}

#[test]
fn accessor_count_must_be_at_least_one() {
    let mut file = valid();
    file.json["accessors"][TIMES]["count"] = json!(0);
    assert_accessor_rule("count-0.gltf", &file, TIMES, "at least 1");
}

#[test]
fn byte_offset_without_a_buffer_view() {
    let mut file = valid();
    let translations = file.json["accessors"][TRANSLATIONS]
        .as_object_mut()
        .unwrap();
    translations.remove("bufferView");
    translations.insert("byteOffset".into(), json!(0));
    translations.insert(
        "sparse".into(),
        json!({
            "count": 1,
            "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
            "values": {"bufferView": SPARSE_VALUE_VIEW},
        }),
    );
    assert_accessor_rule(
        "offset-without-view.gltf",
        &file,
        TRANSLATIONS,
        "no bufferView",
    );
}

#[test]
fn float_data_must_not_hold_nan_or_infinity() {
    let mut file = valid();
    let normals = floats(&[[0.0, 0.0, 1.0], [f32::NAN, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let view = file.push_view(&normals, None);
    let accessor = file.push_accessor(
        json!({"bufferView": view, "count": 3, "componentType": FLOAT, "type": "VEC3"}),
    );
    file.json["meshes"][0]["primitives"][0]["attributes"]["NORMAL"] = json!(accessor);
    let err = import_error("nan-normal.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::NonFinite { .. },
        "mesh 0 primitive 0 NORMAL"
    );
}

/// The minimal file with `TRANSLATIONS` patched by a sparse substitution of `indices` and
/// `values`.
fn with_sparse_translations(indices: Vec<u16>, values: Vec<[f32; 3]>) -> Gltf {
    let count = indices.len();
    let mut file = with_streams(|s| {
        s.sparse_indices = indices;
        s.sparse_values = values;
    });
    file.json["accessors"][TRANSLATIONS]["sparse"] = json!({
        "count": count,
        "indices": {"bufferView": SPARSE_INDEX_VIEW, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": SPARSE_VALUE_VIEW},
    });
    file
}

#[test]
fn sparse_indices_must_increase_strictly() {
    for (name, indices) in [
        ("sparse-repeat.gltf", vec![1, 1]),
        ("sparse-down.gltf", vec![1, 0]),
    ] {
        let file = with_sparse_translations(indices, vec![[0.0, 1.0, 0.0], [0.0, 2.0, 0.0]]);
        assert_accessor_rule(name, &file, TRANSLATIONS, "increase strictly");
    }
}

#[test]
fn sparse_accessor_without_a_buffer_view_is_read() {
    let mut file = with_sparse_translations(vec![1], vec![[0.0, 3.0, 0.0]]);
    file.json["accessors"][TRANSLATIONS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let asset = import_ok("sparse-zeros.gltf", &file.to_gltf());
    let track = asset.clips[0]
        .tracks
        .iter()
        .find(|t| t.channel == sinew::Channel::Translation)
        .unwrap();
    assert_eq!(
        track.values,
        [glam::Vec4::ZERO, glam::Vec4::new(0.0, 3.0, 0.0, 0.0)]
    );
}

#[test]
fn sparse_data_must_be_aligned_and_tightly_packed() {
    let mut file = with_sparse_translations(vec![1], vec![[0.0, 1.0, 0.0]]);
    file.json["bufferViews"][SPARSE_VALUE_VIEW]["byteStride"] = json!(12);
    assert_accessor_rule("sparse-stride.gltf", &file, TRANSLATIONS, "byteStride");
    let mut file = with_sparse_translations(vec![1], vec![[0.0, 1.0, 0.0]]);
    file.json["accessors"][TRANSLATIONS]["sparse"]["values"]["byteOffset"] = json!(2);
    assert_accessor_rule(
        "sparse-offset.gltf",
        &file,
        TRANSLATIONS,
        "not a multiple of 4",
    );
}

#[test]
fn accessor_offsets_must_be_multiples_of_the_component_size() {
    let mut file = valid();
    file.json["accessors"][ROTATIONS]["byteOffset"] = json!(2);
    assert_accessor_rule("accessor-offset.gltf", &file, ROTATIONS, "component size 4");
    let mut file = valid();
    let offset = file.json["bufferViews"][ROTATIONS]["byteOffset"]
        .as_u64()
        .unwrap();
    file.json["bufferViews"][ROTATIONS]["byteOffset"] = json!(offset + 2);
    assert_accessor_rule("view-offset.gltf", &file, ROTATIONS, "component size 4");
}

#[test]
fn byte_stride_must_be_a_multiple_of_the_component_size() {
    let mut file = valid();
    file.json["bufferViews"][WEIGHTS]["byteStride"] = json!(18);
    file.json["bufferViews"][WEIGHTS]["byteLength"] = json!(52);
    assert_accessor_rule("stride-18.gltf", &file, WEIGHTS, "component size 4");
}

#[test]
fn byte_stride_only_on_vertex_attribute_views() {
    let mut file = valid();
    file.json["bufferViews"][ROTATIONS]["byteStride"] = json!(16);
    assert_accessor_rule(
        "animation-stride.gltf",
        &file,
        ROTATIONS,
        "only vertex attribute views",
    );
}

#[test]
fn vertex_attributes_must_be_4_byte_aligned() {
    let mut file = valid();
    file.json["bufferViews"][JOINTS]["byteStride"] = json!(10);
    file.json["bufferViews"][JOINTS]["byteLength"] = json!(28);
    assert_accessor_rule("stride-10.gltf", &file, JOINTS, "4-byte aligned");
    let mut file = valid();
    file.json["accessors"][JOINTS]["byteOffset"] = json!(2);
    assert_accessor_rule("offset-2.gltf", &file, JOINTS, "4-byte aligned");
}

/// The minimal file with POSITION and WEIGHTS interleaved in one new view (`stride`: its
/// `byteStride`, if any).
fn interleaved(stride: Option<usize>) -> Gltf {
    let s = valid_streams();
    let mut file = build(&s);
    let bytes: Vec<u8> = s
        .positions
        .iter()
        .zip(&s.weights)
        .flat_map(|(p, w)| floats(&[*p]).into_iter().chain(floats(&[*w])))
        .collect();
    let view = file.push_view(&bytes, stride);
    file.json["accessors"][POSITION]["bufferView"] = json!(view);
    file.json["accessors"][WEIGHTS]["bufferView"] = json!(view);
    file.json["accessors"][WEIGHTS]["byteOffset"] = json!(12);
    file
}

#[test]
fn interleaved_vertex_attributes_are_read() {
    let asset = import_ok("interleaved.gltf", &interleaved(Some(28)).to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(asset.meshes, plain.meshes);
}

#[test]
fn shared_vertex_attribute_view_must_define_byte_stride() {
    let file = interleaved(None);
    assert_accessor_rule("shared-view.gltf", &file, WEIGHTS, "defines no byteStride");
}

#[test]
fn bounds_must_have_one_entry_per_component() {
    let mut file = valid();
    file.json["accessors"][TIMES]["min"] = json!([0.0, 0.0]);
    assert_accessor_rule("min-length.gltf", &file, TIMES, "array of 1 numbers");
}

#[test]
fn bounds_must_match_the_data() {
    let mut file = valid();
    file.json["accessors"][TIMES]["max"] = json!([2.0]);
    assert_accessor_rule("max-mismatch.gltf", &file, TIMES, "max[0] is 2");
    let mut file = valid();
    file.json["accessors"][POSITION]["min"] = json!([0.0, -1.0, 0.0]);
    assert_accessor_rule("position-min.gltf", &file, POSITION, "min[1] is -1");
}

#[test]
fn animation_input_must_define_bounds() {
    let mut file = valid();
    file.json["accessors"][TIMES]
        .as_object_mut()
        .unwrap()
        .remove("max");
    assert_accessor_rule("no-max.gltf", &file, TIMES, "must define max");
}

#[test]
fn normalized_keys_decode_with_the_spec_equations() {
    // Rotation keys as normalized shorts; min/max hold the stored integers, not the decoded
    // values. f = max(c / 32767, -1): -32768 and -32767 both decode to -1.
    let stored: [[i16; 4]; 2] = [[0, 0, -32768, 32767], [0, 0, 23170, 23170]];
    let mut file = valid();
    let bytes: Vec<u8> = stored
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let view = file.push_view(&bytes, None);
    let rotations = &mut file.json["accessors"][ROTATIONS];
    rotations["bufferView"] = json!(view);
    rotations["componentType"] = json!(SHORT);
    rotations["normalized"] = json!(true);
    rotations["min"] = json!([0, 0, -32768, 23170]);
    rotations["max"] = json!([0, 0, 23170, 32767]);
    let asset = import_ok("short-rotations.gltf", &file.to_gltf());
    let track = asset.clips[0]
        .tracks
        .iter()
        .find(|t| t.channel == sinew::Channel::Rotation)
        .unwrap();
    for (key, c) in track.values.iter().zip(&stored) {
        let decoded =
            glam::Vec4::from_array(c.map(|c| (f32::from(c) / 32767.0).max(-1.0))).normalize();
        common::assert_vec_close(
            &key.to_array(),
            &decoded.to_array(),
            common::EXACT_TOLERANCE,
            "rotation key",
        );
    }
}

/// The minimal file whose mesh has `targets` morph targets (displacements: the positions) and
/// whose animation gains a `weights` channel on the mesh node with output `output`.
fn with_weights_channel(targets: usize, output: usize) -> Gltf {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["targets"] =
        json!(vec![json!({"POSITION": POSITION}); targets]);
    let animation = &mut file.json["animations"][0];
    let sampler = animation["samplers"].as_array().unwrap().len();
    animation["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"input": TIMES, "output": output}));
    animation["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": sampler, "target": {"node": BODY, "path": "weights"}}));
    file
}

#[test]
fn weights_channel_on_a_morphed_node_imports() {
    // Two keys of one target: the two key times double as weights.
    let asset = import_ok("weights.gltf", &with_weights_channel(1, TIMES).to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(
        asset.clips[0].tracks, plain.clips[0].tracks,
        "joint tracks unchanged"
    );
    assert_eq!(
        asset.clips[0].weights.len(),
        1,
        "the weights channel is kept"
    );
}

#[test]
fn weights_output_must_hold_one_value_per_target_per_key() {
    let err = import_error(
        "weights-count.gltf",
        &with_weights_channel(2, TIMES).to_gltf(),
    );
    assert_kind!(
        err,
        ImportErrorKind::WeightKeyCount {
            animation: 0,
            channel: 2,
            ..
        },
        "animation 0 channel 2",
        "2 weight values"
    );
}

#[test]
fn weights_must_target_a_node_with_morph_targets() {
    let err = import_error(
        "weights-no-targets.gltf",
        &with_weights_channel(0, TIMES).to_gltf(),
    );
    assert_kind!(
        err,
        ImportErrorKind::WeightsTarget {
            animation: 0,
            channel: 2,
            ..
        },
        "animation 0 channel 2",
        "no morph targets"
    );
}

#[test]
fn weights_keys_must_be_scalar() {
    let err = import_error(
        "weights-vec4.gltf",
        &with_weights_channel(1, ROTATIONS).to_gltf(),
    );
    assert_kind!(
        err,
        ImportErrorKind::AccessorFormat {
            accessor: ROTATIONS,
            ..
        },
        "morph weight keys"
    );
}

#[test]
fn weights_target_used_twice() {
    let mut file = with_weights_channel(1, TIMES);
    let channels = file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap();
    let again = channels[2].clone();
    channels.push(again);
    let err = import_error("weights-twice.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::DuplicateChannel {
            animation: 0,
            channel: "weights",
            ..
        },
        "two channels animate weights of body"
    );
}

#[test]
fn cubic_spline_sampler_must_have_at_least_two_keys() {
    let mut file = with_streams(|s| {
        s.times = vec![0.0];
        s.rotations = vec![[0.0; 4], [0.0, 0.0, 0.0, 1.0], [0.0; 4]];
        s.translations = vec![[0.0; 3]];
    });
    file.json["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE");
    let err = import_error("cubic-one-key.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::ChannelRule {
            animation: 0,
            channel: 0,
            ..
        },
        "animation 0 channel 0",
        "at least 2 keys"
    );
}

#[test]
fn channel_without_a_target_node_is_ignored() {
    // As KHR_animation_pointer writes them: the target names a pointer, not a node.
    let pointer = json!({
        "sampler": 1,
        "target": {"path": "pointer", "extensions": {"KHR_animation_pointer": {"pointer": "/nodes/0/translation"}}},
    });
    let mut file = valid();
    declare(&mut file, &[("KHR_animation_pointer", false)]);
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(pointer.clone());
    let asset = import_ok("pointer.gltf", &file.to_gltf());
    let plain = import_ok("plain.gltf", &valid().to_gltf());
    assert_eq!(asset.clips, plain.clips);
    // An animation whose every channel is ignored is an empty clip, not an error.
    file.json["animations"][0]["channels"] = json!([pointer]);
    let rigs =
        import_and_bake("pointer-only.glb", &file.to_glb(), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rigs[0].clips.clips()[0].duration, 0.0);
}

// ---------------------------------------------------------------------------------------------
// Files of their own, sharing `assert_kind!`: public constructors given hand-built data, and the
// node, skin and mesh clauses listed above.
// ---------------------------------------------------------------------------------------------

#[path = "malformed/constructors.rs"]
mod constructors;
#[path = "malformed/fbx.rs"]
mod fbx;
#[path = "malformed/ik.rs"]
mod ik;
#[path = "malformed/images.rs"]
mod images;
#[path = "malformed/meshes.rs"]
mod meshes;
#[path = "malformed/nodes.rs"]
mod nodes;
#[path = "malformed/rigs.rs"]
mod rigs;
#[path = "malformed/settings.rs"]
mod settings;
// Morph targets.
// ---------------------------------------------------------------------------------------------

/// The minimal file with `targets` morph targets on its primitive (each displacing the vertices
/// by their own positions) and a `weights` channel on the body whose output is `output`.
fn with_morph_targets(targets: usize, output: usize) -> Gltf {
    let mut file = valid();
    file.json["meshes"][0]["primitives"][0]["targets"] =
        json!(vec![json!({"POSITION": POSITION}); targets]);
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .push(json!({"sampler": 2, "target": {"node": BODY, "path": "weights"}}));
    file.json["animations"][0]["samplers"]
        .as_array_mut()
        .unwrap()
        .push(json!({"input": TIMES, "output": output, "interpolation": "LINEAR"}));
    file
}

#[test]
fn one_morph_target_animated_by_a_scalar_channel_imports_and_bakes() {
    // The key times double as the weights: one per key of the one target.
    let file = with_morph_targets(1, TIMES);
    let rigs = import_and_bake("morph.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("one target animated by one weight per key: {e}"));
    assert_eq!(
        rigs[0].morph.weight_count(),
        4,
        "one target, padded to a chunk"
    );
    assert_eq!(rigs[0].meshes[0].morph.target_count, 1);
}

#[test]
fn primitives_with_different_morph_target_counts() {
    let mut file = with_morph_targets(1, TIMES);
    let mut second = file.json["meshes"][0]["primitives"][0].clone();
    second.as_object_mut().unwrap().remove("targets");
    file.json["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(second);
    let err = import_error("target-counts.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::MorphTargetCount {
            mesh: 0,
            primitive: 1,
            found: 0,
            expected: 1,
        },
        "mesh 0 primitive 1",
        "morph targets"
    );
}

#[test]
fn weights_channel_on_a_node_without_morph_targets() {
    // The body's mesh has no targets; the root has no mesh at all.
    for (node, name) in [(BODY, "weights-body.gltf"), (ROOT, "weights-root.gltf")] {
        let mut file = with_morph_targets(0, TIMES);
        file.json["animations"][0]["channels"][2]["target"]["node"] = json!(node);
        let err = import_error(name, &file.to_gltf());
        assert_kind!(
            err,
            ImportErrorKind::WeightsTarget {
                animation: 0,
                channel: 2,
                node: n,
            } if *n == node,
            "animation 0 channel 2",
            format!("node {node}")
        );
    }
}

#[test]
fn weights_output_that_is_not_keys_times_targets() {
    // Two targets need four weights for the two keys; the output has two.
    let file = with_morph_targets(2, TIMES);
    let err = import_error("weight-count.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::WeightKeyCount {
            animation: 0,
            channel: 2,
            times: 2,
            targets: 2,
            values: 2,
        },
        "animation 0 channel 2",
        "2 weight values"
    );
}

#[test]
fn morph_target_with_a_wrong_vertex_count() {
    let mut file = with_morph_targets(1, TIMES);
    file.json["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = json!(TRANSLATIONS);
    let err = import_error("target-length.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::Primitive {
            mesh: 0,
            primitive: 0,
            reason,
        } if reason.contains("morph target 0"),
        "mesh 0 primitive 0"
    );
}

#[test]
fn default_morph_weights_that_are_not_one_per_target() {
    let mut file = with_morph_targets(1, TIMES);
    file.json["meshes"][0]["weights"] = json!([0.5, 0.5]);
    let err = import_error("mesh-weights.gltf", &file.to_gltf());
    assert_kind!(
        err,
        ImportErrorKind::MorphWeights {
            found: 2,
            expected: 1,
            ..
        },
        "mesh 0"
    );
}

// ---------------------------------------------------------------------------------------------
// The fuzz corpus: seeds and every input that once crashed the importer or the fast backend.
// ---------------------------------------------------------------------------------------------

/// Resamples `rigs` for the fast CPU backend and evaluates each clip's midpoint on it.
fn resample_and_evaluate(rigs: Vec<Rig>) -> FastCpuBackend {
    let clips: Vec<(u32, u32, f32)> = rigs
        .iter()
        .enumerate()
        .flat_map(|(r, rig)| {
            rig.clips
                .clips()
                .iter()
                .enumerate()
                .map(move |(c, info)| (r as u32, c as u32, 0.5 * info.duration))
        })
        .collect();
    let fast = FastCpuBackend::new(rigs, Vec::new(), DEFAULT_RATE).unwrap();
    for (r, c, t) in clips {
        let joints = fast.rigs()[r as usize].joint_count();
        let record =
            InstanceRecord::new(r, 0, &glam::Affine3A::IDENTITY, &[Layer::clip(c, t)]).unwrap();
        let mut models = vec![glam::Affine3A::IDENTITY; joints];
        let mut palette = vec![Mat3x4Rows::IDENTITY; joints];
        fast.evaluate_one(&record, &mut models, &mut palette)
            .unwrap_or_else(|e| panic!("rig {r} clip {c}: {e}"));
    }
    fast
}

#[test]
fn fuzz_corpus_imports_or_fails_with_a_typed_error() {
    let corpus = common::fuzz_corpus("import_gltf");
    assert!(
        corpus.len() >= 5,
        "only {} inputs in the corpus",
        corpus.len()
    );
    let mut imported = 0;
    for (name, bytes) in &corpus {
        match try_import_and_bake(name, bytes, None) {
            Ok(Ok(rigs)) => {
                imported += 1;
                if catch_unwind(AssertUnwindSafe(|| resample_and_evaluate(rigs))).is_err() {
                    panic!("corpus input {name}: the fast backend panicked");
                }
            }
            Ok(Err(err)) => assert_eq!(&err.file, name, "the error names the file ({err})"),
            Err(panic) => panic!("corpus input {name} panicked: {panic}"),
        }
    }
    assert!(imported >= 5, "only {imported} corpus inputs imported");
}

#[test]
fn clip_of_a_huge_duration_resamples_into_bounded_frames() {
    // Valid glTF: key times need only increase. Resampled at 30 Hz, this clip would need
    // 3e31 frames.
    let file = with_streams(|s| s.times = vec![0.0, 1e30]);
    let rigs = import_and_bake("long.gltf", &file.to_gltf(), None).unwrap();
    let fast = resample_and_evaluate(rigs);
    let clip = &fast.fast_rigs()[0].clips().clips()[0];
    assert!(
        (2..=MAX_CLIP_FRAMES).contains(&clip.frame_count),
        "{} frames, at most {MAX_CLIP_FRAMES}",
        clip.frame_count
    );
    assert!(
        clip.rate > 0.0 && clip.rate.is_finite(),
        "rate {}",
        clip.rate
    );
}
