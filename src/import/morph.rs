//! Morph targets: the displacements of each primitive's targets, the default weights of every
//! mesh node with targets, and `weights` animation channels. Every primitive of a mesh must have
//! the same number of targets (glTF 2.0, meshes: "all primitives MUST have the same number of
//! morph targets in the same order").

use gltf::Document;
use gltf::accessor::{DataType, Dimensions};

use super::accessor::{F32, Format, INT8_INT16, SNORM, read_accessor};
use super::document::Buffers;
use super::raw::{Interpolation, RawMorphNode, RawMorphTarget, RawWeightTrack};
use crate::error::ImportErrorKind;

pub(crate) const TARGET_POSITIONS: Format = Format {
    usage: "morph target POSITION",
    dims: Dimensions::Vec3,
    plain: F32,
    normalized: &[],
    vertex: true,
    bounds: false,
};
pub(crate) const TARGET_NORMALS: Format = Format {
    usage: "morph target NORMAL",
    ..TARGET_POSITIONS
};
pub(crate) const TARGET_TANGENTS: Format = Format {
    usage: "morph target TANGENT",
    ..TARGET_POSITIONS
};

/// Float or signed 8- and 16-bit integers, not normalized.
const F32_I8_I16: &[DataType] = &[DataType::F32, DataType::I8, DataType::I16];

/// The target formats `KHR_mesh_quantization` adds: signed (normalized or not) byte and short
/// position displacements, normalized signed byte and short normal and tangent displacements.
pub(crate) const QUANTIZED_TARGET_POSITIONS: Format = Format {
    usage: "morph target POSITION (KHR_mesh_quantization)",
    plain: F32_I8_I16,
    normalized: SNORM,
    ..TARGET_POSITIONS
};
pub(crate) const QUANTIZED_TARGET_NORMALS: Format = Format {
    usage: "morph target NORMAL (KHR_mesh_quantization)",
    normalized: SNORM,
    ..TARGET_POSITIONS
};
pub(crate) const QUANTIZED_TARGET_TANGENTS: Format = Format {
    usage: "morph target TANGENT (KHR_mesh_quantization)",
    normalized: SNORM,
    ..TARGET_POSITIONS
};

/// The morph target formats a file may use: `quantized` when it uses `KHR_mesh_quantization`.
/// Returns the POSITION, NORMAL and TANGENT formats.
pub(crate) fn target_formats(quantized: bool) -> [&'static Format; 3] {
    if quantized {
        [
            &QUANTIZED_TARGET_POSITIONS,
            &QUANTIZED_TARGET_NORMALS,
            &QUANTIZED_TARGET_TANGENTS,
        ]
    } else {
        [&TARGET_POSITIONS, &TARGET_NORMALS, &TARGET_TANGENTS]
    }
}
const WEIGHT_KEYS: Format = Format {
    usage: "morph weight keys",
    dims: Dimensions::Scalar,
    plain: F32,
    normalized: INT8_INT16,
    vertex: false,
    bounds: false,
};

/// The number of morph targets of `mesh`: the same for every primitive, or an error naming the
/// first primitive that differs.
pub(crate) fn target_count(mesh: &gltf::Mesh<'_>) -> Result<usize, ImportErrorKind> {
    let mut expected = None;
    for prim in mesh.primitives() {
        let found = prim.morph_targets().len();
        match expected {
            None => expected = Some(found),
            Some(expected) if expected != found => {
                return Err(ImportErrorKind::MorphTargetCount {
                    mesh: mesh.index(),
                    primitive: prim.index(),
                    found,
                    expected,
                });
            }
            Some(_) => {}
        }
    }
    Ok(expected.unwrap_or(0))
}

/// Checks that `weights` (a mesh's or a node's defaults) has one finite weight per target.
fn check_defaults(weights: &[f32], targets: usize, object: String) -> Result<(), ImportErrorKind> {
    if weights.len() != targets {
        return Err(ImportErrorKind::MorphWeights {
            object,
            found: weights.len(),
            expected: targets,
        });
    }
    if weights.iter().any(|w| !w.is_finite()) {
        return Err(ImportErrorKind::NonFinite {
            object: format!("{object} weights"),
        });
    }
    Ok(())
}

/// Every node whose mesh has morph targets, with its default weights (`node.weights` overrides
/// `mesh.weights`; zeros when neither is given). Checks every mesh's target count and default
/// weights, used by a node or not.
pub(crate) fn read_morph_nodes(doc: &Document) -> Result<Vec<RawMorphNode>, ImportErrorKind> {
    let mut counts = Vec::with_capacity(doc.meshes().len());
    for mesh in doc.meshes() {
        let targets = target_count(&mesh)?;
        if let Some(weights) = mesh.weights() {
            check_defaults(weights, targets, format!("mesh {}", mesh.index()))?;
        }
        counts.push(targets);
    }
    let mut out = Vec::new();
    for node in doc.nodes() {
        let Some(mesh) = node.mesh() else {
            continue;
        };
        let targets = counts.get(mesh.index()).copied().unwrap_or(0);
        if let Some(weights) = node.weights() {
            check_defaults(weights, targets, format!("node {}", node.index()))?;
        }
        if targets == 0 {
            continue;
        }
        let weights = node
            .weights()
            .or(mesh.weights())
            .map_or_else(|| vec![0.0; targets], <[f32]>::to_vec);
        out.push(RawMorphNode {
            node: node.index(),
            mesh: mesh.index(),
            weights,
        });
    }
    Ok(out)
}

/// The morph targets of one primitive with `vertices` vertices: `POSITION` and `NORMAL`
/// displacements (zeros where a target has none; `TANGENT` displacements are not used).
/// `quantized`: the file uses `KHR_mesh_quantization`, so integer displacements are accepted
/// (normalized ones decode to `[-1, 1]`, others as is).
pub(crate) fn read_targets(
    prim: &gltf::Primitive<'_>,
    buffers: &Buffers,
    mesh: usize,
    vertices: usize,
    quantized: bool,
) -> Result<Vec<RawMorphTarget>, ImportErrorKind> {
    let primitive = prim.index();
    let [positions, normals, _] = target_formats(quantized);
    let read = |acc: Option<gltf::Accessor<'_>>,
                format: &Format,
                target: usize|
     -> Result<Vec<[f32; 3]>, ImportErrorKind> {
        let Some(acc) = acc else {
            return Ok(vec![[0.0; 3]; vertices]);
        };
        let (data, _) = read_accessor::<f32>(&acc, buffers, format)?;
        if data.len() != vertices * 3 {
            return Err(ImportErrorKind::Primitive {
                mesh,
                primitive,
                reason: format!(
                    "{} of morph target {target} has {} elements, POSITION has {vertices}",
                    format.usage,
                    data.len() / 3
                ),
            });
        }
        if data.iter().any(|v| !v.is_finite()) {
            return Err(ImportErrorKind::NonFinite {
                object: format!("mesh {mesh} primitive {primitive} morph target {target}"),
            });
        }
        Ok(data.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
    };
    prim.morph_targets()
        .enumerate()
        .map(|(t, target)| {
            Ok(RawMorphTarget {
                positions: read(target.positions(), positions, t)?,
                normals: read(target.normals(), normals, t)?,
            })
        })
        .collect()
}

/// Reads the `weights` channel `channel` (index `c` of animation `animation`) with key times
/// `times`. `earlier` holds the weight tracks the animation already has (a node's weights may
/// be animated once per animation).
pub(crate) fn read_weight_track(
    channel: &gltf::animation::Channel<'_>,
    times: Vec<f32>,
    buffers: &Buffers,
    animation: usize,
    c: usize,
    earlier: &[RawWeightTrack],
) -> Result<RawWeightTrack, ImportErrorKind> {
    let node = channel.target().node();
    let targets = match node.mesh() {
        Some(mesh) => target_count(&mesh)?,
        None => 0,
    };
    if targets == 0 {
        return Err(ImportErrorKind::WeightsTarget {
            animation,
            channel: c,
            node: node.index(),
        });
    }
    if earlier.iter().any(|w| w.target == node.index()) {
        return Err(ImportErrorKind::DuplicateChannel {
            animation,
            target: node
                .name()
                .map_or_else(|| format!("node{}", node.index()), str::to_string),
            channel: "weights",
        });
    }
    let sampler = channel.sampler();
    let interpolation = match sampler.interpolation() {
        gltf::animation::Interpolation::Step => Interpolation::Step,
        gltf::animation::Interpolation::Linear => Interpolation::Linear,
        gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
    };
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let (values, _) = read_accessor::<f32>(&sampler.output(), buffers, &WEIGHT_KEYS)?;
    if values.len() != times.len() * per_key * targets {
        return Err(ImportErrorKind::WeightKeyCount {
            animation,
            channel: c,
            times: times.len(),
            targets,
            values: values.len(),
        });
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Err(ImportErrorKind::NonFinite {
            object: format!("animation {animation} channel {c} weight values"),
        });
    }
    Ok(RawWeightTrack {
        target: node.index(),
        interpolation,
        times,
        target_count: targets,
        values,
    })
}
