//! `sinew inspect`: skins, joint trees, meshes (with their materials and what the importer
//! dropped from them) and clips of a glTF, FBX or `.sinew` file.

use std::fmt::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;
use sinew::{Channel, Rig};

/// Arguments of `sinew inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The glTF (`.gltf`, `.glb`), FBX or baked `.sinew` file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print one JSON object (every joint with its parent, depth and node) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Retargeting: print the map from another file's skeleton onto each rig.
    #[command(flatten)]
    pub retarget: super::retarget::RetargetFlags,
    /// How to read the file.
    #[command(flatten)]
    pub import: super::settings::ImportFlags,
}

#[derive(Serialize)]
struct Inspection {
    file: String,
    /// The glTF extensions the file declares and what sinew does with each (none listed for a
    /// `.sinew` file, or a glTF file that declares none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    extensions: Vec<ExtensionInfo>,
    rigs: Vec<RigInfo>,
}

#[derive(Serialize)]
struct ExtensionInfo {
    name: String,
    required: bool,
    handling: &'static str,
    /// What sinew left out of what the file uses the extension for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

#[derive(Serialize)]
struct RigInfo {
    name: String,
    joints: Vec<JointInfo>,
    meshes: Vec<MeshInfo>,
    clips: Vec<ClipInfo>,
    /// The compressed clips (stored in the file, or built here to the default budget).
    compression: Option<CompressionInfo>,
    /// Why the clips could not be compressed here, when they could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    compression_error: Option<String>,
}

#[derive(Serialize)]
struct CompressionInfo {
    /// Whether the file stores them (else they were compressed for this report).
    stored: bool,
    /// Bytes of the compressed clips.
    bytes: usize,
    /// Bytes of the exact clips (key times, key values, track descriptors).
    exact_bytes: usize,
    /// `exact_bytes / bytes`.
    ratio: f64,
    /// ACL's raw size: 10 f32 per joint per sample at each clip's sample rate.
    acl_raw_bytes: usize,
    /// `acl_raw_bytes / bytes`.
    acl_ratio: f64,
    /// Compressed bits per joint per sample.
    bits_per_joint_frame: f64,
    /// The largest error of ACL's metric at every sample of every clip (mm).
    sample_error_mm: f32,
    /// The largest error measured (mm, ACL's metric).
    max_error_mm: f32,
    /// The error budget (mm).
    budget_mm: f32,
    /// Animated channels per bit rate: `[bits, channels]`.
    bit_rates: Vec<(u32, usize)>,
    /// Mean bits per stored component of the animated channels (each component's own).
    mean_bits: f64,
    /// Per clip: its uniform segments (empty for a clip on one grid).
    segments: Vec<Vec<SegmentInfo>>,
}

/// One uniform segment of a compressed clip.
#[derive(Serialize)]
struct SegmentInfo {
    /// Clip time of its first frame (s).
    start: f32,
    /// Frames per second.
    rate: f32,
    /// Frames after its first.
    intervals: u32,
}

/// The compression figures of `rig`: its stored compressed clips, or ones built now (the
/// reason when they cannot be built).
fn compression(rig: &Rig) -> Result<CompressionInfo, String> {
    let built;
    let (c, stored) = match &rig.compressed {
        Some(c) => (c, true),
        None => {
            built = sinew::CompressedClips::build(rig, sinew::DEFAULT_ERROR_BUDGET)
                .map_err(|e| e.to_string())?;
            (&built, false)
        }
    };
    let bit_rates = c.bit_rate_histogram();
    let exact_bytes = rig.clips.byte_size();
    let acl = sinew::bake::compressed::AclFigures::of(rig, c);
    Ok(CompressionInfo {
        acl_raw_bytes: acl.raw_bytes,
        acl_ratio: acl.ratio,
        bits_per_joint_frame: acl.bits_per_joint_frame,
        sample_error_mm: acl.max_error * 1e3,
        stored,
        bytes: c.byte_size(),
        exact_bytes,
        ratio: exact_bytes as f64 / c.byte_size().max(1) as f64,
        max_error_mm: c.max_error() * 1e3,
        budget_mm: c.budget() * 1e3,
        mean_bits: c.mean_component_bits(),
        bit_rates,
        segments: (0..c.clips().len())
            .map(|i| {
                c.segments(i)
                    .iter()
                    .map(|s| SegmentInfo {
                        start: s.start,
                        rate: s.rate,
                        intervals: s.intervals,
                    })
                    .collect()
            })
            .collect(),
    })
}

#[derive(Serialize)]
struct JointInfo {
    name: String,
    parent: Option<usize>,
    depth: usize,
    node: u32,
}

#[derive(Serialize)]
struct MeshInfo {
    name: String,
    vertices: usize,
    triangles: usize,
    /// The glTF node instantiating it (unknown in old baked files).
    node: Option<u32>,
    /// The skin deforming it; `None` for a rigid mesh following `parent`.
    skin: Option<u32>,
    /// For a rigid mesh: the parent of its node (node index and name), when it has one.
    parent: Option<(u32, String)>,
    /// The most nonzero joint influences of any vertex.
    max_influences: usize,
    /// Vertices that had more than `sinew::MAX_INFLUENCES` in the source file: their strongest
    /// ones were kept, renormalized.
    influences_cut: usize,
    /// The mesh's material, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    material: Option<String>,
    /// What the importer dropped from the material and why (a texture it could not find or
    /// decode, say).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    material_warnings: Vec<String>,
}

#[derive(Serialize)]
struct ClipInfo {
    name: String,
    duration: f32,
    /// Sync markers as `(time, name)`, in time order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    markers: Vec<(f32, String)>,
    channels: Vec<ChannelInfo>,
}

#[derive(Serialize)]
struct ChannelInfo {
    joint: String,
    path: &'static str,
    interpolation: &'static str,
    keys: u32,
}

/// The parent node (index, name) of a rigid mesh's `node`: the parent of the shallowest joint
/// that comes from it (deeper ones are aliases).
fn rigid_parent(skel: &sinew::Skeleton, node: u32) -> Option<(u32, String)> {
    let joint = (0..skel.joint_count()).find(|&j| skel.source_nodes()[j] == node)?;
    let parent = Some(skel.parents()[joint]).filter(|&p| p != sinew::NO_PARENT)? as usize;
    Some((skel.source_nodes()[parent], skel.names()[parent].clone()))
}

fn describe(rig: &Rig) -> RigInfo {
    let skel = &rig.skeleton;
    let (compression, compression_error) = match compression(rig) {
        Ok(c) => (Some(c), None),
        Err(e) => (None, Some(e)),
    };
    let depth = |j: usize| {
        (0..skel.level_count())
            .find(|&l| skel.level(l).contains(&j))
            .unwrap_or(0)
    };
    RigInfo {
        name: rig.name.clone(),
        joints: (0..skel.joint_count())
            .map(|j| JointInfo {
                name: skel.names()[j].clone(),
                parent: Some(skel.parents()[j])
                    .filter(|&p| p != sinew::NO_PARENT)
                    .map(usize::from),
                depth: depth(j),
                node: skel.source_nodes()[j],
            })
            .collect(),
        meshes: rig
            .meshes
            .iter()
            .map(|m| MeshInfo {
                name: m.name.clone(),
                vertices: m.vertex_count(),
                triangles: m.indices.len() / 3,
                node: m.node,
                skin: m.skin,
                parent: m
                    .skin
                    .is_none()
                    .then(|| rigid_parent(skel, m.node?))
                    .flatten(),
                max_influences: m
                    .weights
                    .iter()
                    .map(|w| w.iter().filter(|&&x| x > 0.0).count())
                    .max()
                    .unwrap_or(0),
                influences_cut: m.influences_cut,
                material: m.material.as_ref().map(|x| x.name.clone()),
                material_warnings: m
                    .material
                    .as_ref()
                    .map_or_else(Vec::new, |x| x.warnings.clone()),
            })
            .collect(),
        clips: rig
            .clips
            .clips()
            .iter()
            .enumerate()
            .map(|(c, info)| ClipInfo {
                name: info.name.clone(),
                duration: info.duration,
                markers: info
                    .markers
                    .iter()
                    .map(|m| (m.time, m.name.clone()))
                    .collect(),
                channels: (0..skel.joint_count())
                    .flat_map(|j| Channel::ALL.map(|ch| (j, ch)))
                    .filter(|&(j, ch)| rig.clips.is_animated(c, j, ch))
                    .map(|(j, ch)| {
                        let d = rig.clips.track(c, j, ch);
                        ChannelInfo {
                            joint: skel.names()[j].clone(),
                            path: ch.name(),
                            interpolation: sinew::Interpolation::from_u32(d.interpolation)
                                .map_or("?", |i| i.name()),
                            keys: d.key_count,
                        }
                    })
                    .collect(),
            })
            .collect(),
        compression,
        compression_error,
    }
}

/// Joints in tree order: each root, then its subtrees depth first, children in index order;
/// with each joint's depth. `parents` lists every joint's parent, or [`sinew::NO_PARENT`].
fn tree_order(parents: &[u16]) -> Vec<(usize, usize)> {
    let mut children = vec![Vec::new(); parents.len()];
    let mut roots = Vec::new();
    for (j, &p) in parents.iter().enumerate() {
        match children.get_mut(usize::from(p)) {
            Some(siblings) if p != sinew::NO_PARENT => siblings.push(j),
            _ => roots.push(j),
        }
    }
    let mut order = Vec::with_capacity(parents.len());
    // A stack of (joint, depth), children pushed in reverse so they pop in index order. Parents
    // come before children in a baked skeleton, so every joint is visited exactly once.
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&r| (r, 0)).collect();
    while let Some((j, depth)) = stack.pop() {
        order.push((j, depth));
        stack.extend(children[j].iter().rev().map(|&c| (c, depth + 1)));
    }
    order
}

impl InspectArgs {
    /// Prints the file's rigs as text (joint trees, meshes, clips, channels) or as JSON.
    pub fn run(&self) -> super::Result {
        let (rigs, extensions) = if self.file.extension().is_some_and(|e| e == "sinew") {
            (
                super::load_rigs(&self.file, &self.import.settings())?,
                Vec::new(),
            )
        } else {
            let asset = sinew::import_file_with(&self.file, &self.import.settings())?;
            let extensions = asset
                .extensions
                .iter()
                .map(|e| ExtensionInfo {
                    name: e.name.clone(),
                    required: e.required,
                    handling: e.handling.name(),
                    notes: e.notes.clone(),
                })
                .collect();
            (sinew::bake_rigs(&asset)?, extensions)
        };
        let inspection = Inspection {
            file: self.file.display().to_string(),
            extensions,
            rigs: rigs.iter().map(describe).collect(),
        };
        let source = self.retarget.source(&self.import.settings())?;
        let evaluator =
            source.map(|s| sinew::report::RetargetPose::new(s.rig, s.user, self.retarget.mirror));
        if self.json {
            let mut value = serde_json::to_value(&inspection)?;
            if let Some(evaluator) = &evaluator {
                // One map per rig, from `--clips-from`'s first rig.
                let maps = (rigs.iter())
                    .map(|rig| {
                        let map = evaluator.map_for(rig)?;
                        Ok(super::retarget::map_json(rig, &map, self.retarget.mirror))
                    })
                    .collect::<super::Result<Vec<_>>>()?;
                value["retarget"] = serde_json::Value::Array(maps);
            }
            return super::print(&serde_json::to_string_pretty(&value)?);
        }
        let mut text = String::new();
        let _ = writeln!(text, "{}", inspection.file);
        for e in &inspection.extensions {
            let required = if e.required { "required" } else { "used" };
            let _ = writeln!(text, "extension {} ({required}): {}", e.name, e.handling);
            for note in &e.notes {
                let _ = writeln!(text, "  note: {note}");
            }
        }
        for (rig, info) in rigs.iter().zip(&inspection.rigs) {
            write_rig(&mut text, rig, info);
        }
        if let Some(evaluator) = &evaluator {
            for rig in &rigs {
                let map = evaluator.map_for(rig)?;
                super::retarget::describe_map(&mut text, rig, &map);
            }
        }
        super::print(text.trim_end())
    }
}

/// Appends one rig's text: its joint tree (indented by depth), meshes, clips and channels.
fn write_rig(text: &mut String, rig: &Rig, info: &RigInfo) {
    let _ = writeln!(
        text,
        "rig {:?}: {} joints, {} meshes, {} clips",
        info.name,
        info.joints.len(),
        info.meshes.len(),
        info.clips.len()
    );
    for (j, depth) in tree_order(rig.skeleton.parents()) {
        let joint = &info.joints[j];
        let _ = writeln!(
            text,
            "  {}{} (node {})",
            "  ".repeat(depth),
            joint.name,
            joint.node
        );
    }
    for m in &info.meshes {
        let node = m.node.map(|n| format!("node {n}, "));
        let source = match (&node, m.skin, &m.parent) {
            (None, None, _) => String::new(),
            (_, Some(s), _) => format!(" ({}skin {s})", node.as_deref().unwrap_or("")),
            (Some(n), None, Some((p, name))) => format!(" ({n}rigid, under node {p} {name:?})"),
            (Some(n), None, None) => format!(" ({n}rigid)"),
        };
        let _ = write!(
            text,
            "  mesh {:?}{source}: {} vertices, {} triangles, up to {} influences per vertex",
            m.name, m.vertices, m.triangles, m.max_influences
        );
        if m.influences_cut > 0 {
            let _ = write!(
                text,
                " ({} vertices cut to their strongest {})",
                m.influences_cut,
                sinew::MAX_INFLUENCES
            );
        }
        text.push('\n');
        if let Some(material) = &m.material {
            let _ = writeln!(text, "    material {material:?}");
        }
        for warning in &m.material_warnings {
            let _ = writeln!(text, "      warning: {warning}");
        }
    }
    if let Some(c) = &info.compression {
        let source = if c.stored {
            "stored"
        } else {
            "compressed on the fly, none stored"
        };
        let rates: Vec<String> = c
            .bit_rates
            .iter()
            .map(|(b, n)| format!("{b}b×{n}"))
            .collect();
        let _ = writeln!(
            text,
            "  compressed clips ({source}): {} bytes, exact/compressed {:.2}× (exact {} bytes), max \
             error {:.4} mm (budget {:.4} mm), {:.2} mean bits per component [{}]",
            c.bytes,
            c.ratio,
            c.exact_bytes,
            c.max_error_mm,
            c.budget_mm,
            c.mean_bits,
            rates.join(" ")
        );
        let _ = writeln!(
            text,
            "    against ACL's raw size ({} bytes): {:.2}:1, {:.2} bits per joint-frame, max error \
             at every sample {:.4} mm",
            c.acl_raw_bytes, c.acl_ratio, c.bits_per_joint_frame, c.sample_error_mm
        );
        for (clip, segments) in c.segments.iter().enumerate() {
            if segments.len() < 2 {
                continue;
            }
            let runs: Vec<String> = segments
                .iter()
                .map(|s| format!("{:.4} s {:.1} Hz ×{}", s.start, s.rate, s.intervals))
                .collect();
            let name = info.clips.get(clip).map_or("", |c| c.name.as_str());
            let _ = writeln!(
                text,
                "    clip {name:?}: {} segments [{}]",
                segments.len(),
                runs.join(", ")
            );
        }
    }
    if let Some(e) = &info.compression_error {
        let _ = writeln!(text, "  compressed clips: cannot be built: {e}");
    }
    for c in &info.clips {
        let _ = writeln!(
            text,
            "  clip {:?}: {:.4} s, {} channels",
            c.name,
            c.duration,
            c.channels.len()
        );
        for (time, name) in &c.markers {
            let _ = writeln!(text, "    sync marker {name:?} at {time:.4} s");
        }
        for ch in &c.channels {
            let _ = writeln!(
                text,
                "    {} {} {} ({} keys)",
                ch.joint, ch.path, ch.interpolation, ch.keys
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tree_order;
    use sinew::NO_PARENT;

    #[test]
    fn tree_order_puts_each_joint_under_its_parent() {
        // Depth levels: [0, 1] roots, [2, 3, 4] depth 1, [5, 6] depth 2; 5 is 4's child and 6
        // is 2's, so level order is not tree order.
        let parents = [NO_PARENT, NO_PARENT, 0, 1, 0, 4, 2];
        let order = tree_order(&parents);
        assert_eq!(
            order,
            vec![(0, 0), (2, 1), (6, 2), (4, 1), (5, 2), (1, 0), (3, 1)]
        );
    }
}
