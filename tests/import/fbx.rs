//! FBX files: the Blender conversions in `assets/fbx/` pose like their glTF originals, node
//! rest transforms compose to ufbx's world matrices, the hand-written ASCII file gives its
//! hand-computed values, the format is recognised by content, and the CLI reads FBX. Blend
//! shapes are in `fbx_blend_shapes.rs`, curves between keys in `fbx_curves.rs`.

use std::path::PathBuf;

use glam::{Mat4, Vec3};
use sinew::report::{CpuPose, NodeSelection, PoseRequest, pose_report};
use sinew::{ImportErrorKind, RawAsset};

use super::common;

/// The FBX conversions and the glTF file each was converted from.
fn conversions() -> Vec<(PathBuf, PathBuf)> {
    let repo = common::repo();
    vec![
        (
            repo.join("assets/fbx/humanoid.fbx"),
            repo.join("assets/humanoid.glb"),
        ),
        (
            repo.join("assets/fbx/influences.fbx"),
            repo.join("assets/synthetic/influences.glb"),
        ),
    ]
}

fn fbx_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(common::repo().join("assets/fbx"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fbx"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "assets/fbx holds {files:?}");
    files
}

pub(crate) fn import(path: &std::path::Path) -> RawAsset {
    sinew::import_file(path).unwrap_or_else(|e| panic!("{e}"))
}

/// World matrices of every node, composing rest transforms down the hierarchy.
fn rest_worlds(asset: &RawAsset) -> Vec<Mat4> {
    let mut world: Vec<Mat4> = Vec::with_capacity(asset.nodes.len());
    for node in &asset.nodes {
        let local = Mat4::from(node.rest.to_affine());
        world.push(match node.parent {
            Some(p) => {
                assert!(p < world.len(), "{}: parent after child", node.name);
                world[p] * local
            }
            None => local,
        });
    }
    world
}

#[test]
fn fbx_rest_transforms_compose_to_ufbx_world_matrices() {
    for path in fbx_files() {
        let asset = import(&path);
        let scene = sinew::import::fbx::load_scene(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(asset.nodes.len(), scene.nodes.len(), "{}", path.display());
        let size = asset_size(&asset);
        for (i, (world, node)) in rest_worlds(&asset)
            .iter()
            .zip(scene.nodes.iter())
            .enumerate()
        {
            let m = &node.node_to_world;
            let want = [
                m.m00, m.m10, m.m20, 0.0, m.m01, m.m11, m.m21, 0.0, m.m02, m.m12, m.m22, 0.0,
                m.m03, m.m13, m.m23, 1.0,
            ]
            .map(|v| v as f32);
            for (k, (g, w)) in world.to_cols_array().iter().zip(want).enumerate() {
                assert!(
                    (g - w).abs() <= common::fbx_tolerance(size),
                    "{} node {i} ({}): element {k} is {g}, ufbx says {w}",
                    path.display(),
                    asset.nodes[i].name
                );
            }
        }
    }
}

/// The largest extent of the asset's mesh positions.
pub(crate) fn asset_size(asset: &RawAsset) -> f32 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in asset.meshes.iter().flat_map(|m| &m.positions) {
        lo = lo.min(Vec3::from(*p));
        hi = hi.max(Vec3::from(*p));
    }
    if lo.x.is_finite() {
        (hi - lo).max_element()
    } else {
        1.0
    }
}

/// Key times of a clip (every track's, merged).
pub(crate) fn key_times(clip: &sinew::import::RawClip) -> Vec<f32> {
    let mut times: Vec<f32> = clip.tracks.iter().flat_map(|t| t.times.clone()).collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}

/// World-space skinned positions of every vertex of `asset`'s meshes (in mesh order), from a
/// frame's skin matrices.
pub(crate) fn skinned(asset: &RawAsset, skin: &[[f32; 16]]) -> Vec<Vec3> {
    let skin: Vec<Mat4> = skin.iter().map(Mat4::from_cols_array).collect();
    asset
        .meshes
        .iter()
        .flat_map(|mesh| {
            mesh.positions
                .iter()
                .zip(mesh.joints.iter().zip(&mesh.weights))
                .map(|(p, (joints, weights))| {
                    (0..sinew::MAX_INFLUENCES)
                        .map(|k| {
                            weights[k] * skin[joints[k] as usize].transform_point3(Vec3::from(*p))
                        })
                        .sum()
                })
        })
        .collect()
}

/// For every vertex of `fbx`'s meshes, the `gltf` vertex (over all its meshes, in mesh order)
/// at the same bind position.
fn matching_vertices(fbx: &RawAsset, gltf: &RawAsset, tol: f32) -> Vec<usize> {
    let theirs: Vec<Vec3> = gltf
        .meshes
        .iter()
        .flat_map(|m| m.positions.iter().map(|p| Vec3::from(*p)))
        .collect();
    fbx.meshes
        .iter()
        .flat_map(|m| &m.positions)
        .enumerate()
        .map(|(v, p)| {
            let p = Vec3::from(*p);
            let (best, d) = theirs
                .iter()
                .enumerate()
                .map(|(i, q)| (i, q.distance(p)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            assert!(
                d <= tol,
                "FBX vertex {v} at {p} has no glTF vertex within {tol}"
            );
            best
        })
        .collect()
}

#[test]
fn fbx_conversions_pose_and_skin_like_their_gltf_originals() {
    for (fbx_path, gltf_path) in conversions() {
        let (fbx, gltf) = (import(&fbx_path), import(&gltf_path));
        let what = fbx_path.display().to_string();
        assert_eq!(fbx.skins.len(), 1, "{what}: skins");
        assert!(
            fbx.meshes.iter().all(|m| m.skin == Some(0)),
            "{what}: skinned meshes"
        );
        assert!(
            gltf.meshes.iter().all(|m| m.skin == Some(0)),
            "{what}: glTF skinned meshes"
        );
        let tol = common::fbx_tolerance(asset_size(&gltf));
        let vertices = matching_vertices(&fbx, &gltf, tol);
        let mut compared = 0;
        for (c, clip) in gltf.clips.iter().enumerate() {
            let f = fbx
                .clips
                .iter()
                .position(|k| k.name.ends_with(&format!("|{}", clip.name)))
                .unwrap_or_else(|| panic!("{what}: no stack for clip {:?}", clip.name));
            let times = key_times(clip);
            let report = |asset: &RawAsset, c: usize| {
                let request = PoseRequest {
                    clip: Some((c, times.clone())),
                    nodes: NodeSelection::None,
                };
                pose_report(asset, &request, &mut CpuPose).unwrap_or_else(|e| panic!("{e}"))
            };
            let (got, want) = (report(&fbx, f), report(&gltf, c));
            let (gs, ws) = (&got.skins[0], &want.skins[0]);
            for (gf, wf) in gs.frames.iter().zip(&ws.frames) {
                let at = format!("{what} clip {:?} t={:?}", clip.name, wf.t);
                for (wj, name) in ws.joints.iter().enumerate() {
                    let gj = gs
                        .joints
                        .iter()
                        .position(|n| n == name)
                        .unwrap_or_else(|| panic!("{at}: no joint {name}"));
                    let (gm, wm) = (
                        Mat4::from_cols_array(&gf.world[gj]),
                        Mat4::from_cols_array(&wf.world[wj]),
                    );
                    let (g, w) = (gm.w_axis.truncate(), wm.w_axis.truncate());
                    assert!(
                        g.distance(w) <= tol,
                        "{at}: joint {name} at {g}, glTF at {w}"
                    );
                    // Bones may be re-oriented, but not rescaled (units are converted).
                    let scale = |m: Mat4| {
                        Vec3::new(m.x_axis.length(), m.y_axis.length(), m.z_axis.length())
                    };
                    let (gs, ws) = (scale(gm), scale(wm));
                    assert!(
                        (gs.max_element() - ws.max_element()).abs() <= tol
                            && (gs.min_element() - ws.min_element()).abs() <= tol,
                        "{at}: joint {name} world scale {gs}, glTF {ws}"
                    );
                    for (k, (g, w)) in gf.skin[gj].iter().zip(&wf.skin[wj]).enumerate() {
                        assert!(
                            (g - w).abs() <= tol,
                            "{at}: joint {name} skin matrix element {k} is {g}, glTF {w}"
                        );
                    }
                }
                let (g, w) = (skinned(&fbx, &gf.skin), skinned(&gltf, &wf.skin));
                for (v, &m) in vertices.iter().enumerate() {
                    assert!(
                        g[v].distance(w[m]) <= tol,
                        "{at}: vertex {v} at {}, glTF vertex {m} at {}",
                        g[v],
                        w[m]
                    );
                }
                compared += 1;
            }
        }
        assert!(compared > 0, "{what}: nothing compared");
    }
}

#[test]
fn fbx_conversion_keeps_the_strongest_influences_renormalized() {
    let (fbx, _) = &conversions()[1];
    let asset = import(fbx);
    let mesh = &asset.meshes[0];
    assert_eq!(
        asset.meshes.len(),
        1,
        "Blender merges the primitives into one mesh"
    );
    assert!(
        mesh.influences_cut > 0,
        "influences.fbx has vertices with more than 8 influences"
    );
    for (v, w) in mesh.weights.iter().enumerate() {
        let sum: f32 = w.iter().sum();
        assert!(
            (sum - 1.0).abs() <= common::WEIGHT_TOLERANCE,
            "vertex {v}: weights sum {sum}"
        );
        assert!(
            w.windows(2).all(|p| p[0] >= p[1]),
            "vertex {v}: not strongest first: {w:?}"
        );
    }
}

#[test]
fn ascii_fbx_gives_its_hand_computed_pose() {
    let asset = import(&common::repo().join("assets/fbx/ascii_pivot.fbx"));
    let mut names: Vec<&str> = asset.nodes.iter().map(|n| n.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["Root", "RootNode", "Tip", "Tri"]);
    let node = |name: &str| asset.nodes.iter().position(|n| n.name == name).unwrap();
    let (root, tip, tri) = (node("Root"), node("Tip"), node("Tri"));
    assert_eq!(asset.nodes[tip].parent, Some(root));
    let world = rest_worlds(&asset);
    let at = |i: usize| world[i].w_axis.truncate();
    // Centimetres become metres; the root's 90° pre-rotation about Z turns the tip's +X offset
    // into +Y.
    let tol = common::fbx_tolerance(1.0);
    assert!(
        at(root).distance(Vec3::new(0.0, 1.0, 0.0)) <= tol,
        "root at {}",
        at(root)
    );
    assert!(
        at(tip).distance(Vec3::new(0.0, 2.0, 0.0)) <= tol,
        "tip at {}",
        at(tip)
    );
    assert!(
        at(tri).distance(Vec3::new(0.0, 0.0, 0.5)) <= tol,
        "triangle at {}",
        at(tri)
    );
    let mesh = &asset.meshes[0];
    assert_eq!((mesh.node, mesh.skin), (tri, None));
    assert_eq!(mesh.indices.len(), 3);
    let corners: Vec<Vec3> = mesh
        .indices
        .iter()
        .map(|&i| Vec3::from(mesh.positions[i as usize]))
        .collect();
    // The geometric offset (10 cm along Z) is folded into the vertices.
    let offset = Vec3::new(0.0, 0.0, 0.1);
    for (got, want) in corners
        .iter()
        .zip([Vec3::ZERO, Vec3::X, Vec3::Y].map(|c| c + offset))
    {
        assert!(
            got.distance(want) <= tol,
            "triangle corner {got}, expected {want}"
        );
    }
    assert_eq!(asset.clips.len(), 1);
    let clip = &asset.clips[0];
    assert!(clip.name.contains("Take"), "clip {:?}", clip.name);
    let track = clip
        .tracks
        .iter()
        .find(|t| t.target == tip && t.channel == sinew::Channel::Translation)
        .expect("the tip's translation track");
    // Keyed from 1 s to 2 s, in a stack that starts at 1 s: the clip starts at 0.
    assert_eq!(track.times.first(), Some(&0.0));
    assert!((track.times.last().unwrap() - 1.0).abs() <= common::EXACT_TOLERANCE);
    let last = track.values.last().unwrap().truncate();
    assert!(
        last.distance(Vec3::new(2.0, 0.0, 0.0)) <= tol,
        "tip keyed at {last}"
    );
    assert!(
        clip.tracks.iter().all(|t| t.target == tip),
        "only the tip is animated"
    );
}

/// ufbx's evaluation of every animated node of `path`'s stacks at each key time sinew baked:
/// the baked clips (timed from their stack's start) agree with it within the rig's tolerance.
fn assert_keys_match_ufbx(path: &std::path::Path, bytes: &[u8]) {
    let asset = sinew::import::import_bytes(bytes, &path.display().to_string(), None)
        .unwrap_or_else(|e| panic!("{e}"));
    let scene = sinew::import::fbx::load_scene(bytes).unwrap();
    let tol = common::fbx_tolerance(asset_size(&asset));
    assert_eq!(asset.clips.len(), scene.anim_stacks.len());
    for (clip, stack) in asset.clips.iter().zip(scene.anim_stacks.iter()) {
        for track in &clip.tracks {
            let node = &scene.nodes[track.target];
            for (&t, value) in track.times.iter().zip(&track.values) {
                let want =
                    ufbx::evaluate_transform(&stack.anim, node, stack.time_begin + f64::from(t));
                let (got, want) = match track.channel {
                    sinew::Channel::Translation => (
                        value.truncate(),
                        [want.translation.x, want.translation.y, want.translation.z],
                    ),
                    sinew::Channel::Scale => {
                        (value.truncate(), [want.scale.x, want.scale.y, want.scale.z])
                    }
                    sinew::Channel::Rotation => {
                        let q = want.rotation;
                        let want = glam::Vec4::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32);
                        let sign = value.dot(want).signum();
                        let error = (*value - sign * want).length();
                        assert!(
                            error <= 1e-4,
                            "{} {:?} node {} rotation at {t}: {value}, ufbx {want}",
                            path.display(),
                            clip.name,
                            node.element.name
                        );
                        continue;
                    }
                };
                let want = Vec3::new(want[0] as f32, want[1] as f32, want[2] as f32);
                assert!(
                    got.distance(want) <= tol,
                    "{} {:?} node {} {:?} at {t}: {got}, ufbx {want}",
                    path.display(),
                    clip.name,
                    node.element.name,
                    track.channel
                );
            }
        }
    }
}

#[test]
fn fbx_clips_agree_with_ufbx_at_every_key() {
    for path in fbx_files() {
        assert_keys_match_ufbx(&path, &std::fs::read(&path).unwrap());
    }
}

/// A clip spans its stack: keys before the stack's start and after its end (as Maya writes a
/// clip that starts at frame 1) are cut at the ends with the value the curve has there.
#[test]
fn fbx_keys_outside_the_stack_are_cut_at_its_ends() {
    let path = common::repo().join("assets/fbx/ascii_pivot.fbx");
    let text = std::fs::read_to_string(&path).unwrap();
    let second = 46_186_158_000_u64;
    let keyed = text
        .replace(
            "KeyTime: *2 {\n\t\t\ta: 46186158000,92372316000",
            &format!(
                "KeyTime: *3 {{\n\t\t\ta: {},{},{}",
                second / 2,
                second * 3 / 2,
                second * 5 / 2
            ),
        )
        .replace(
            "KeyValueFloat: *2 {\n\t\t\ta: 100,200",
            "KeyValueFloat: *3 {\n\t\t\ta: 0,100,0",
        )
        .replace(
            "KeyAttrRefCount: *1 {\n\t\t\ta: 2",
            "KeyAttrRefCount: *1 {\n\t\t\ta: 3",
        );
    assert_ne!(keyed, text);
    assert_keys_match_ufbx(&path, keyed.as_bytes());
    let asset = sinew::import::import_bytes(keyed.as_bytes(), "keys-outside.fbx", None).unwrap();
    let track = &asset.clips[0].tracks[0];
    assert_eq!(track.channel, sinew::Channel::Translation);
    let tol = common::fbx_tolerance(1.0);
    assert_eq!(track.times.len(), 3, "{:?}", track.times);
    for (got, want) in track.times.iter().zip([0.0, 0.5, 1.0]) {
        assert!((got - want).abs() <= 1e-6, "key times {:?}", track.times);
    }
    // 0, 100, 0 cm at 0.5, 1.5, 2.5 s: 50 cm at both ends of the 1 s to 2 s stack.
    for (value, want) in track.values.iter().zip([0.5, 1.0, 0.5]) {
        assert!((value.x - want).abs() <= tol, "values {:?}", track.values);
    }
}

/// The header and global settings of a hand-written ASCII FBX 7.4 file: Y up, centimetres.
macro_rules! fbx_header {
    () => {
        r#"; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UpAxis", "int", "Integer", "",1
		P: "UpAxisSign", "int", "Integer", "",1
		P: "FrontAxis", "int", "Integer", "",2
		P: "FrontAxisSign", "int", "Integer", "",1
		P: "CoordAxis", "int", "Integer", "",0
		P: "CoordAxisSign", "int", "Integer", "",1
		P: "UnitScaleFactor", "double", "Number", "",1
	}
}
"#
    };
}
pub(crate) use fbx_header;

/// A skinned ASCII FBX whose hips have a non-uniform scale that the spine, with Maya's segment
/// scale compensation (`InheritType` 2), does not inherit: ufbx moves the hips' scale and skin
/// cluster onto a helper node.
const SCALE_COMPENSATED: &str = concat!(
    fbx_header!(),
    r#"Objects:  {
	Model: 1000, "Model::Hips", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Scaling", "Lcl Scaling", "", "A",2,1,1
		}
	}
	Model: 1001, "Model::Spine", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "InheritType", "enum", "", "",2
			P: "Lcl Translation", "Lcl Translation", "", "A",0,100,0
		}
	}
	Model: 1002, "Model::Body", "Mesh" {
		Version: 232
	}
	Geometry: 2000, "Geometry::Body", "Mesh" {
		Vertices: *9 {
			a: 0,0,0,100,0,0,0,100,0
		}
		PolygonVertexIndex: *3 {
			a: 0,1,-3
		}
		GeometryVersion: 124
	}
	Deformer: 4000, "Deformer::Skin", "Skin" {
		Version: 101
		Link_DeformAcuracy: 50
	}
	Deformer: 4001, "SubDeformer::Hips", "Cluster" {
		Version: 100
		Indexes: *2 {
			a: 0,1
		}
		Weights: *2 {
			a: 1,1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
		TransformLink: *16 {
			a: 2,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
	}
	Deformer: 4002, "SubDeformer::Spine", "Cluster" {
		Version: 100
		Indexes: *1 {
			a: 2
		}
		Weights: *1 {
			a: 1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,-100,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,100,0,1
		}
	}
}
Connections:  {
	C: "OO",1000,0
	C: "OO",1001,1000
	C: "OO",1002,0
	C: "OO",2000,1002
	C: "OO",4000,2000
	C: "OO",4001,4000
	C: "OO",4002,4000
	C: "OO",1000,4001
	C: "OO",1001,4002
}
"#
);

/// Every skin joint keeps the name of the model its cluster links to, also where ufbx moved
/// the model's scale and cluster onto a helper node; the model's own node is named apart.
#[test]
fn fbx_joints_on_scale_helpers_keep_their_model_names() {
    let bytes = SCALE_COMPENSATED.as_bytes();
    let scene = sinew::import::fbx::load_scene(bytes).unwrap();
    assert!(
        scene.nodes.iter().any(|n| n.is_scale_helper),
        "ufbx made no scale helper: the case is not exercised"
    );
    let asset = sinew::import::import_bytes(bytes, "scale-compensated.fbx", None)
        .unwrap_or_else(|e| panic!("{e}"));
    let joints: Vec<&str> = asset.skins[0]
        .joints
        .iter()
        .map(|&j| asset.nodes[j].name.as_str())
        .collect();
    assert_eq!(joints, ["Hips", "Spine"]);
    let unscaled = format!("Hips{}", sinew::import::fbx::UNSCALED_SUFFIX);
    let hips = asset.skins[0].joints[0];
    let parent = asset.nodes[hips].parent.unwrap();
    assert_eq!(asset.nodes[parent].name, unscaled);
    assert!(asset.nodes.iter().all(|n| !n.name.starts_with("node")));
    // The helper carries the hips' scale: its world matrix is ufbx's.
    let world = rest_worlds(&asset)[hips];
    let m = &scene.nodes[hips].node_to_world;
    assert!((world.x_axis.x - m.m00 as f32).abs() <= 1e-6, "{world}");
    assert!(
        (world.x_axis.x - 2.0).abs() <= 1e-6,
        "the hips' scale is not on the joint: {world}"
    );
}

#[test]
fn fbx_is_recognised_by_content_not_by_name() {
    let dir = std::env::temp_dir().join(format!("sinew-fbx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fbx = common::repo().join("assets/fbx/influences.fbx");
    let renamed = dir.join("influences.bin");
    std::fs::copy(&fbx, &renamed).unwrap();
    assert_eq!(
        import(&renamed).nodes,
        import(&fbx).nodes,
        "a .fbx named .bin"
    );
    let ascii = std::fs::read(common::repo().join("assets/fbx/ascii_pivot.fbx")).unwrap();
    let asset = sinew::import_bytes(&ascii, "ascii.dat", None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(asset.nodes.len(), 4, "ASCII FBX from memory");
    let headerless = b"FBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\n";
    assert!(
        sinew::import::fbx::is_fbx(headerless),
        "ASCII FBX without the comment line"
    );
    assert!(
        !sinew::import::fbx::is_fbx(b"; FB"),
        "a prefix of the comment line"
    );
    let text = dir.join("notes.fbx");
    std::fs::write(&text, "just some text, not a scene\n").unwrap();
    let err = sinew::import_file(&text).unwrap_err();
    assert!(matches!(err.kind, ImportErrorKind::Fbx(_)), "{err:?}");
    assert!(err.file.ends_with("notes.fbx"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn inspect_and_pose_commands_read_fbx() {
    let file = common::repo().join("assets/fbx/humanoid.fbx");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "sinew {args:?}: {err}");
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let path = file.to_str().unwrap();
    let inspect = run(&["inspect", path]);
    let asset = import(&file);
    let joint = &asset.nodes[asset.skins[0].joints[0]].name;
    assert!(
        inspect.contains(joint.as_str()),
        "inspect names joint {joint}:\n{inspect}"
    );
    let pose = run(&["pose", path, "--anim", "0", "--times", "0,0.5"]);
    let report: sinew::report::PoseReport = serde_json::from_str(&pose).unwrap();
    assert_eq!(report.times, vec![Some(0.0), Some(0.5)]);
    assert!(!report.skins[0].frames[1].world.is_empty());
    let baked = std::env::temp_dir().join(format!("sinew-fbx-{}.sinew", std::process::id()));
    run(&["bake", path, "-o", baked.to_str().unwrap()]);
    let from_baked = run(&["inspect", baked.to_str().unwrap()]);
    assert!(
        from_baked.contains(joint.as_str()),
        "baked FBX rig names joint {joint}"
    );
    std::fs::remove_file(&baked).unwrap();
}
