//! `sinew inspect`: skins, joint trees and clips of a glTF or `.sinew` file.

use serde::Serialize;
use sinew::{Channel, Rig};

use super::Args;

#[derive(Serialize)]
struct Inspection {
    file: String,
    rigs: Vec<RigInfo>,
}

#[derive(Serialize)]
struct RigInfo {
    name: String,
    joints: Vec<JointInfo>,
    meshes: Vec<MeshInfo>,
    clips: Vec<ClipInfo>,
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
}

#[derive(Serialize)]
struct ClipInfo {
    name: String,
    duration: f32,
    channels: Vec<ChannelInfo>,
}

#[derive(Serialize)]
struct ChannelInfo {
    joint: String,
    path: &'static str,
    interpolation: &'static str,
    keys: u32,
}

fn describe(rig: &Rig) -> RigInfo {
    let skel = &rig.skeleton;
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
    }
}

fn load(file: &str) -> Result<Vec<Rig>, String> {
    if file.ends_with(".sinew") {
        return sinew::bake::file::read_file(file).map_err(|e| e.to_string());
    }
    let asset = sinew::import_file(file).map_err(|e| e.to_string())?;
    sinew::bake_rigs(&asset).map_err(|e| e.to_string())
}

pub fn run(args: &[String]) -> Result<(), String> {
    let args = Args::parse(args, &[], &["--json"])?;
    let file = args.file()?;
    let inspection = Inspection {
        file: file.to_string(),
        rigs: load(file)?.iter().map(describe).collect(),
    };
    if args.has("--json") {
        return super::print(
            &serde_json::to_string_pretty(&inspection).map_err(|e| e.to_string())?,
        );
    }
    use std::fmt::Write;
    let mut text = String::new();
    let _ = writeln!(text, "{}", inspection.file);
    for rig in &inspection.rigs {
        let _ = writeln!(
            text,
            "rig {:?}: {} joints, {} meshes, {} clips",
            rig.name,
            rig.joints.len(),
            rig.meshes.len(),
            rig.clips.len()
        );
        for j in &rig.joints {
            let _ = writeln!(
                text,
                "  {}{} (node {})",
                "  ".repeat(j.depth),
                j.name,
                j.node
            );
        }
        for m in &rig.meshes {
            let _ = writeln!(
                text,
                "  mesh {:?}: {} vertices, {} triangles",
                m.name, m.vertices, m.triangles
            );
        }
        for c in &rig.clips {
            let _ = writeln!(
                text,
                "  clip {:?}: {:.4} s, {} channels",
                c.name,
                c.duration,
                c.channels.len()
            );
            for ch in &c.channels {
                let _ = writeln!(
                    text,
                    "    {} {} {} ({} keys)",
                    ch.joint, ch.path, ch.interpolation, ch.keys
                );
            }
        }
    }
    super::print(text.trim_end())
}
