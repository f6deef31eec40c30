//! The valid file every case starts from, and running a case: import + bake under
//! catch_unwind, a panic reported with the case's name.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Once;

use serde_json::{Value, json};
use sinew::{ImportError, Rig};

use super::common;

/// Accessor (and buffer view) indices of the minimal file.
pub(crate) const POSITION: usize = 0;
pub(crate) const JOINTS: usize = 1;
pub(crate) const WEIGHTS: usize = 2;
pub(crate) const INDICES: usize = 3;
pub(crate) const INVERSE_BINDS: usize = 4;
pub(crate) const TIMES: usize = 5;
pub(crate) const ROTATIONS: usize = 6;
pub(crate) const TRANSLATIONS: usize = 7;
/// Buffer views that only the sparse case uses.
pub(crate) const SPARSE_INDEX_VIEW: usize = 8;
pub(crate) const SPARSE_VALUE_VIEW: usize = 9;

/// Node indices of the minimal file: a two-joint chain and the skinned mesh node.
pub(crate) const ROOT: usize = 0;
pub(crate) const CHILD: usize = 1;
pub(crate) const BODY: usize = 2;

pub(crate) const FLOAT: u32 = 5126;
pub(crate) const UNSIGNED_SHORT: u32 = 5123;
pub(crate) const SHORT: u32 = 5122;

/// The arrays the minimal file stores in its buffer. A case edits one of them before encoding.
#[derive(Clone, Debug)]
pub(crate) struct Streams {
    pub(crate) positions: Vec<[f32; 3]>,
    pub(crate) joints: Vec<[u16; 4]>,
    pub(crate) weights: Vec<[f32; 4]>,
    pub(crate) indices: Vec<u16>,
    pub(crate) inverse_binds: Vec<[f32; 16]>,
    pub(crate) times: Vec<f32>,
    pub(crate) rotations: Vec<[f32; 4]>,
    pub(crate) translations: Vec<[f32; 3]>,
    pub(crate) sparse_indices: Vec<u16>,
    pub(crate) sparse_values: Vec<[f32; 3]>,
}

pub(crate) fn valid_streams() -> Streams {
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
pub(crate) struct Gltf {
    pub(crate) json: Value,
    pub(crate) bin: Vec<u8>,
}

pub(crate) fn floats<const N: usize>(items: &[[f32; N]]) -> Vec<u8> {
    items
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

pub(crate) fn shorts<const N: usize>(items: &[[u16; N]]) -> Vec<u8> {
    items
        .iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

/// Encodes `streams` as the minimal skinned, animated glTF.
pub(crate) fn build(streams: &Streams) -> Gltf {
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
pub(crate) fn valid() -> Gltf {
    build(&valid_streams())
}

/// The minimal file with one stream edited.
pub(crate) fn with_streams(edit: impl FnOnce(&mut Streams)) -> Gltf {
    let mut streams = valid_streams();
    edit(&mut streams);
    build(&streams)
}

impl Gltf {
    /// `.gltf` text with the buffer as a data URI (unless a case set its own `uri`).
    pub(crate) fn to_gltf(&self) -> Vec<u8> {
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
    pub(crate) fn to_glb(&self) -> Vec<u8> {
        glb(&serde_json::to_vec(&self.json).unwrap(), Some(&self.bin))
    }

    /// Appends a node and returns its index.
    pub(crate) fn push_node(&mut self, node: Value) -> usize {
        let nodes = self.json["nodes"].as_array_mut().unwrap();
        nodes.push(node);
        nodes.len() - 1
    }
}

/// A GLB container around `json` and an optional binary chunk, with correct lengths.
pub(crate) fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
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

thread_local! {
    /// Set while this thread imports a case: the panic hook then records instead of printing.
    static CAPTURING: RefCell<bool> = const { RefCell::new(false) };
    /// The last panic recorded on this thread: message, location and the relevant frames.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that records panics raised inside a case with their location
/// and the sinew and gltf frames of their backtrace; every other panic prints as usual.
pub(crate) fn install_panic_hook() {
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
pub(crate) fn try_import_and_bake(
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
pub(crate) fn import_and_bake(
    name: &str,
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<Vec<Rig>, ImportError> {
    match try_import_and_bake(name, bytes, base) {
        Ok(result) => result,
        Err(panic) => panic!("case {name}: import + bake panicked: {panic}"),
    }
}

/// The error importing and baking `bytes` as `name` must give; checks it names the file.
pub(crate) fn import_error_with_base(name: &str, bytes: &[u8], base: Option<&Path>) -> ImportError {
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

pub(crate) fn import_error(name: &str, bytes: &[u8]) -> ImportError {
    import_error_with_base(name, bytes, None)
}

/// Declares `names` in `extensionsUsed`, and those flagged in `extensionsRequired`.
pub(crate) fn declare(file: &mut Gltf, names: &[(&str, bool)]) {
    file.json["extensionsUsed"] = json!(names.iter().map(|n| n.0).collect::<Vec<_>>());
    let required: Vec<&str> = names.iter().filter(|n| n.1).map(|n| n.0).collect();
    file.json["extensionsRequired"] = json!(required);
}

/// Imports `bytes` (it must succeed, without a panic).
pub(crate) fn import_ok(name: &str, bytes: &[u8]) -> sinew::RawAsset {
    install_panic_hook();
    match catch_unwind(AssertUnwindSafe(|| sinew::import_bytes(bytes, name, None))) {
        Ok(Ok(asset)) => asset,
        Ok(Err(e)) => panic!("case {name}: must import: {e}"),
        Err(_) => panic!("case {name}: import panicked"),
    }
}
