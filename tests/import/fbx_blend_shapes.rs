//! FBX blend shapes: shape channels, their in-between shapes and deform percent curves become
//! morph targets and weight tracks that pose as ufbx evaluates them, in a skinned mesh's bind
//! space.

use glam::{Mat4, Vec3};
use sinew::RawAsset;

use super::common;
use super::fbx::fbx_header;

/// A quad in cm (corners 0, 1, 2, 3 at (0,0), (100,0), (100,100), (0,100)) with a blend
/// deformer of two channels: `Lift` with an in-between shape at 50 % and its full shape at
/// 100 %, keyed 0, 100, 20 % at 0, 1, 2 s (linear); `Push`, one shape with a normal offset,
/// left at 25 %.
const BLEND_SHAPES: &str = concat!(
    fbx_header!(),
    r#"Objects:  {
	Model: 1000, "Model::Face", "Mesh" {
		Version: 232
	}
	Geometry: 2000, "Geometry::Face", "Mesh" {
		Vertices: *12 {
			a: 0,0,0,100,0,0,100,100,0,0,100,0
		}
		PolygonVertexIndex: *4 {
			a: 0,1,2,-4
		}
		GeometryVersion: 124
	}
	Geometry: 2001, "Geometry::LiftHalf", "Shape" {
		Version: 100
		Indexes: *1 {
			a: 2
		}
		Vertices: *3 {
			a: 0,50,0
		}
	}
	Geometry: 2002, "Geometry::LiftFull", "Shape" {
		Version: 100
		Indexes: *2 {
			a: 2,3
		}
		Vertices: *6 {
			a: 0,100,0,0,0,20
		}
	}
	Geometry: 2003, "Geometry::Push", "Shape" {
		Version: 100
		Indexes: *2 {
			a: 0,1
		}
		Vertices: *6 {
			a: 10,0,0,0,0,30
		}
		Normals: *6 {
			a: 0,0.5,0,0,0,0
		}
	}
	Deformer: 5000, "Deformer::Morph", "BlendShape" {
		Version: 100
	}
	Deformer: 5001, "SubDeformer::Lift", "BlendShapeChannel" {
		Version: 100
		DeformPercent: 0
		FullWeights: *2 {
			a: 50,100
		}
		Properties70:  {
			P: "DeformPercent", "Number", "", "A",0
		}
	}
	Deformer: 5002, "SubDeformer::Push", "BlendShapeChannel" {
		Version: 100
		DeformPercent: 25
		FullWeights: *1 {
			a: 100
		}
		Properties70:  {
			P: "DeformPercent", "Number", "", "A",25
		}
	}
	AnimationStack: 3000, "AnimStack::Take", "" {
		Properties70:  {
			P: "LocalStart", "KTime", "Time", "",0
			P: "LocalStop", "KTime", "Time", "",92372316000
		}
	}
	AnimationLayer: 3001, "AnimLayer::Layer", "" {
	}
	AnimationCurveNode: 3002, "AnimCurveNode::DeformPercent", "" {
		Properties70:  {
			P: "d|DeformPercent", "Number", "", "A",0
		}
	}
	AnimationCurve: 3003, "AnimCurve::", "" {
		Default: 0
		KeyVer: 4009
		KeyTime: *3 {
			a: 0,46186158000,92372316000
		}
		KeyValueFloat: *3 {
			a: 0,100,20
		}
		KeyAttrFlags: *1 {
			a: 4
		}
		KeyAttrDataFloat: *4 {
			a: 0,0,0,0
		}
		KeyAttrRefCount: *1 {
			a: 3
		}
	}
}
Connections:  {
	C: "OO",1000,0
	C: "OO",2000,1000
	C: "OO",5000,2000
	C: "OO",5001,5000
	C: "OO",5002,5000
	C: "OO",2001,5001
	C: "OO",2002,5001
	C: "OO",2003,5002
	C: "OO",3001,3000
	C: "OO",3002,3001
	C: "OP",3002,5001, "DeformPercent"
	C: "OP",3003,3002, "d|DeformPercent"
}
"#
);

/// [`BLEND_SHAPES`]'s corners in metres.
const QUAD: [[f32; 3]; 4] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
];

/// The corner of [`QUAD`] at `position`.
fn quad_corner(position: Vec3) -> usize {
    QUAD.iter()
        .position(|c| Vec3::from(*c).distance(position) <= 1e-6)
        .unwrap_or_else(|| panic!("no corner at {position}"))
}

fn blend_shape_asset() -> RawAsset {
    sinew::import::import_bytes(BLEND_SHAPES.as_bytes(), "blend-shapes.fbx", None)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn fbx_blend_shapes_become_morph_targets_and_weight_tracks() {
    let asset = blend_shape_asset();
    let face = asset.nodes.iter().position(|n| n.name == "Face").unwrap();
    let defaults: Vec<(usize, Vec<f32>)> = asset
        .morph_nodes
        .iter()
        .map(|n| (n.node, n.weights.clone()))
        .collect();
    // Lift's two shapes at 0 %, Push's at 25 %.
    assert_eq!(defaults, vec![(face, vec![0.0, 0.0, 0.25])]);
    assert_eq!(asset.meshes.len(), 1);
    let mesh = &asset.meshes[0];
    assert_eq!((mesh.node, mesh.targets.len()), (face, 3));
    // Per target (LiftHalf, LiftFull, Push), the position offset of each corner, in metres.
    let zero = [0.0; 3];
    let offsets = [
        [zero, zero, [0.0, 0.5, 0.0], zero],
        [zero, zero, [0.0, 1.0, 0.0], [0.0, 0.0, 0.2]],
        [[0.1, 0.0, 0.0], [0.0, 0.0, 0.3], zero, zero],
    ];
    for (v, p) in mesh.positions.iter().enumerate() {
        let corner = quad_corner(Vec3::from(*p));
        for (t, target) in mesh.targets.iter().enumerate() {
            let what = format!("vertex {v} (corner {corner}) target {t}");
            common::assert_vec_close(
                &target.positions[v],
                &offsets[t][corner],
                common::EXACT_TOLERANCE,
                &format!("{what} position"),
            );
            let normal = if (t, corner) == (2, 0) {
                [0.0, 0.5, 0.0]
            } else {
                zero
            };
            common::assert_vec_close(
                &target.normals[v],
                &normal,
                common::EXACT_TOLERANCE,
                &format!("{what} normal"),
            );
        }
    }
    // Lift is keyed 0, 100, 20 % at 0, 1, 2 s: it crosses its in-between's 50 % at 0.5 s and
    // 1.625 s, where a key of its own makes the weights' linear interpolation exact.
    assert_eq!(asset.clips.len(), 1);
    let clip = &asset.clips[0];
    assert_eq!(clip.weights.len(), 1);
    let track = &clip.weights[0];
    assert_eq!((track.target, track.target_count), (face, 3));
    assert_eq!(track.interpolation, sinew::Interpolation::Linear);
    let expected = [
        (0.0, [0.0, 0.0, 0.25]),
        (0.5, [1.0, 0.0, 0.25]),
        (1.0, [0.0, 1.0, 0.25]),
        (1.625, [1.0, 0.0, 0.25]),
        (2.0, [0.4, 0.0, 0.25]),
    ];
    for (t, want) in expected {
        let k = track
            .times
            .iter()
            .position(|&time| (time - t).abs() <= 1e-5)
            .unwrap_or_else(|| panic!("no key at {t}: {:?}", track.times));
        common::assert_vec_close(
            &track.values[k * 3..k * 3 + 3],
            &want,
            common::WEIGHT_TOLERANCE,
            &format!("weights at {t}"),
        );
    }
}

/// The morphed vertices of `rig`'s morphed mesh (bind space, which is the world here) at
/// `time` of clip 0, as sinew's CPU evaluator weighs the targets.
fn morphed_positions(rig: &sinew::Rig, time: f32) -> Vec<Vec3> {
    let mut models = vec![glam::Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![sinew::Mat3x4Rows::IDENTITY; rig.palette_entries()];
    sinew::cpu::evaluate_pose(
        rig,
        &[],
        &[sinew::Layer::clip(0, time)],
        &glam::Affine3A::IDENTITY,
        &mut models,
        &mut palette,
    );
    let weights = sinew::cpu::morph_weights(rig, &palette);
    let mesh = rig
        .meshes
        .iter()
        .find(|m| m.morph.target_count > 0)
        .expect("a morphed mesh");
    (0..mesh.vertex_count())
        .map(|v| {
            let mut p = Vec3::from(mesh.positions[v]);
            for t in 0..mesh.morph.target_count as usize {
                let (d, _) = mesh.morph.delta(t, v).unwrap();
                p += weights[mesh.morph.first_weight as usize + t] * d;
            }
            p
        })
        .collect()
}

/// sinew's CPU pose of the morphed quad, from the import and from its `.sinew` bake, is ufbx's
/// own evaluation of the blend shapes at times on and between keys and in-between crossings;
/// also where the percent curve is cubic (auto tangents), within the curve budget.
#[test]
fn fbx_blend_shapes_pose_like_ufbx_evaluates_them() {
    assert_blend_shapes_pose_like_ufbx(BLEND_SHAPES, 0.0);
    let linear = "KeyAttrFlags: *1 {\n\t\t\ta: 4\n";
    assert!(BLEND_SHAPES.contains(linear));
    let cubic = BLEND_SHAPES.replace(linear, "KeyAttrFlags: *1 {\n\t\t\ta: 264\n");
    assert_blend_shapes_pose_like_ufbx(&cubic, sinew::import::fbx::FBX_CURVE_ERROR);
}

/// The morphed quad of the FBX `text` poses as ufbx evaluates it, within `curves` more than
/// the rig's tolerance.
fn assert_blend_shapes_pose_like_ufbx(text: &str, curves: f32) {
    let asset = sinew::import::import_bytes(text.as_bytes(), "blend-shapes.fbx", None)
        .unwrap_or_else(|e| panic!("{e}"));
    let rigs = sinew::bake_rigs(&asset).unwrap_or_else(|e| panic!("{e}"));
    let bytes = sinew::baked::file::to_bytes(&rigs);
    let loaded = sinew::baked::file::from_bytes(&bytes, "blend-shapes.sinew").unwrap();
    assert_eq!(loaded.len(), rigs.len());
    let scene = sinew::import::fbx::load_scene(text.as_bytes()).unwrap();
    let stack = &scene.anim_stacks[0];
    let tol = common::fbx_tolerance(1.0) + curves;
    let times = (0..=80).map(|k| k as f32 / 40.0);
    for time in [0.5, 0.8, 1.3, 1.625, 1.9].into_iter().chain(times) {
        let evaluated = ufbx::evaluate_scene(
            &scene,
            &stack.anim,
            stack.time_begin + f64::from(time),
            ufbx::EvaluateOpts::default(),
        )
        .unwrap();
        let fbx = &evaluated.meshes[0];
        let ufbx_at = |corner: usize| {
            let mut p = fbx.vertex_position.values[corner];
            for blend in fbx.blend_deformers.iter() {
                let d = ufbx::get_blend_vertex_offset(blend, corner);
                p = ufbx::Vec3 {
                    x: p.x + d.x,
                    y: p.y + d.y,
                    z: p.z + d.z,
                };
            }
            Vec3::new(p.x as f32, p.y as f32, p.z as f32)
        };
        if time == 0.5 && curves == 0.0 {
            // Lift at 50 %: its in-between shape in full, which lifts corner 2 by 50 cm.
            let lifted = ufbx_at(2);
            assert!((lifted.y - 1.5).abs() <= tol, "ufbx's corner 2 at {lifted}");
        }
        for (rig, what) in [(&rigs[0], "imported"), (&loaded[0], "baked file")] {
            let mesh = rig.meshes.iter().find(|m| m.morph.target_count > 0);
            assert_eq!(mesh.map(|m| m.morph.target_count), Some(3), "{what}");
            let base = &mesh.unwrap().positions;
            for (v, got) in morphed_positions(rig, time).into_iter().enumerate() {
                let want = ufbx_at(quad_corner(Vec3::from(base[v])));
                assert!(
                    got.distance(want) <= tol,
                    "{what} vertex {v} at {time} s: {got}, ufbx {want}"
                );
            }
        }
    }
}

/// On a skinned mesh the offsets are placed like its positions: in bind space, here turned a
/// quarter about Z by the bind pose of the skin's one bone.
#[test]
fn fbx_blend_shapes_of_a_skinned_mesh_are_in_its_bind_space() {
    let skinned = BLEND_SHAPES
        .replace(
            "\tAnimationStack: 3000",
            "\tModel: 1001, \"Model::Head\", \"LimbNode\" {\n\t}\n\
             \tDeformer: 4000, \"Deformer::Skin\", \"Skin\" {\n\t}\n\
             \tDeformer: 4001, \"SubDeformer::Head\", \"Cluster\" {\n\
             \t\tIndexes: *4 {\n\t\t\ta: 0,1,2,3\n\t\t}\n\
             \t\tWeights: *4 {\n\t\t\ta: 1,1,1,1\n\t\t}\n\
             \t\tTransform: *16 {\n\t\t\ta: 0,1,0,0,-1,0,0,0,0,0,1,0,0,0,0,1\n\t\t}\n\
             \t\tTransformLink: *16 {\n\t\t\ta: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1\n\t\t}\n\
             \t}\n\
             \tAnimationStack: 3000",
        )
        .replace(
            "\tC: \"OO\",3001,3000",
            "\tC: \"OO\",1001,0\n\tC: \"OO\",4000,2000\n\tC: \"OO\",4001,4000\n\
             \tC: \"OO\",1001,4001\n\tC: \"OO\",3001,3000",
        );
    let bytes = skinned.as_bytes();
    let asset = sinew::import::import_bytes(bytes, "skinned-blend-shapes.fbx", None)
        .unwrap_or_else(|e| panic!("{e}"));
    let scene = sinew::import::fbx::load_scene(bytes).unwrap();
    // The cluster's geometry-to-world matrix: a quarter turn about Z.
    let m = &scene.skin_deformers[0].clusters[0].geometry_to_world;
    let turned = [m.m00, m.m10, m.m01, m.m11, m.m03, m.m13, m.m23];
    assert!(
        turned
            .iter()
            .zip([0.0, 1.0, -1.0, 0.0, 0.0, 0.0, 0.0])
            .all(|(got, want)| (got - want).abs() <= 1e-9),
        "the bind pose is not the quarter turn the case needs: {turned:?}"
    );
    let bind = Mat4::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let mesh = &asset.meshes[0];
    assert_eq!((mesh.skin, mesh.targets.len()), (Some(0), 3));
    let fbx = &scene.meshes[0];
    for (v, p) in mesh.positions.iter().enumerate() {
        let corner = quad_corner(bind.inverse().transform_point3(Vec3::from(*p)));
        // Targets: Lift's two keyframe shapes, then Push's one.
        for (t, (c, k)) in [(0, 0), (0, 1), (1, 0)].into_iter().enumerate() {
            let key = &fbx.blend_deformers[0].channels[c].keyframes[k];
            let d = ufbx::get_blend_shape_vertex_offset(&key.shape, corner);
            let want = bind.transform_vector3(Vec3::new(d.x as f32, d.y as f32, d.z as f32));
            common::assert_vec_close(
                &mesh.targets[t].positions[v],
                &want.to_array(),
                common::EXACT_TOLERANCE,
                &format!("vertex {v} (corner {corner}) target {t}"),
            );
        }
    }
}
