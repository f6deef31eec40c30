//! Quantized and meshopt-compressed files: `assets/synthetic/rig64_packed.glb` is `rig64.glb`
//! with 16-bit positions (dequantization folded into the inverse bind matrices), 8-bit octahedral
//! normals, 16-bit texture coordinates, compressed views with every filter, and clip `b`'s
//! rotations through the 16-bit quaternion filter (see tools/generate_assets/pack.rs).

use sinew::report::{CpuPose, NodeSelection, PoseRequest, pose_report};

use super::common;

/// Bits of the packed file's quantized positions and of its quaternion filter.
const PACKED_POSITION_BITS: u32 = 16;
const PACKED_QUATERNION_BITS: u32 = 16;

fn float_and_packed() -> (sinew::RawAsset, sinew::RawAsset) {
    let dir = common::repo().join("assets/synthetic");
    let float = sinew::import_file(dir.join("rig64.glb")).unwrap();
    let packed = sinew::import_file(dir.join("rig64_packed.glb")).unwrap_or_else(|e| panic!("{e}"));
    (float, packed)
}

/// World-space skinned positions of `asset`'s first mesh, from the report's skin matrices.
fn skinned_positions(asset: &sinew::RawAsset, frame: &sinew::report::SkinFrame) -> Vec<glam::Vec3> {
    let mesh = &asset.meshes[0];
    let skin: Vec<glam::Mat4> = frame.skin.iter().map(glam::Mat4::from_cols_array).collect();
    mesh.positions
        .iter()
        .zip(mesh.joints.iter().zip(&mesh.weights))
        .map(|(p, (joints, weights))| {
            (0..sinew::MAX_INFLUENCES)
                .map(|k| {
                    weights[k] * skin[joints[k] as usize].transform_point3(glam::Vec3::from(*p))
                })
                .sum()
        })
        .collect()
}

#[test]
fn packed_file_lists_its_required_extensions_as_applied() {
    let (float, packed) = float_and_packed();
    assert!(float.extensions.is_empty());
    let listed: Vec<(&str, bool, sinew::import::ExtensionHandling)> = packed
        .extensions
        .iter()
        .map(|e| (e.name.as_str(), e.required, e.handling))
        .collect();
    use sinew::import::ExtensionHandling::Applied;
    assert_eq!(
        listed,
        [
            ("KHR_mesh_quantization", true, Applied),
            ("EXT_meshopt_compression", true, Applied),
        ]
    );
}

#[test]
fn packed_file_bakes_like_its_float_original() {
    let (float, packed) = float_and_packed();
    let (a, b) = (
        sinew::bake_rigs(&float).unwrap(),
        sinew::bake_rigs(&packed).unwrap(),
    );
    assert_eq!(a.len(), b.len(), "rig count");
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(a.skeleton.names(), b.skeleton.names(), "joint names");
        assert_eq!(a.clips.clips(), b.clips.clips(), "clip names and durations");
        assert_eq!(a.meshes.len(), b.meshes.len(), "mesh count");
        for (ma, mb) in a.meshes.iter().zip(&b.meshes) {
            assert_eq!(ma.indices, mb.indices, "triangle indices (triangle codec)");
            assert_eq!(ma.joints, mb.joints, "joint indices");
            assert_eq!(ma.weights, mb.weights, "weights");
        }
    }
}

#[test]
fn packed_file_poses_and_skins_like_its_float_original() {
    let (float, packed) = float_and_packed();
    // Clip `a` keeps float rotations; its translations pass the exponential filter at 24 bits.
    let a = float.clips.iter().position(|c| c.name == "a").unwrap();
    let times = vec![0.0, 0.3, 0.55, 1.0];
    let mut lo = glam::Vec3::splat(f32::INFINITY);
    let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
    for p in &float.meshes[0].positions {
        lo = lo.min(glam::Vec3::from(*p));
        hi = hi.max(glam::Vec3::from(*p));
    }
    let bound = common::position_quantization_bound((hi - lo).max_element(), PACKED_POSITION_BITS)
        + common::QUANTIZATION_SLACK;
    for clip in [None, Some((a, times))] {
        let request = PoseRequest {
            clip,
            nodes: NodeSelection::None,
        };
        let want = pose_report(&float, &request, &mut CpuPose).unwrap();
        let got = pose_report(&packed, &request, &mut CpuPose).unwrap();
        for (gf, wf) in got.skins[0].frames.iter().zip(&want.skins[0].frames) {
            for j in 0..gf.world.len() {
                common::assert_matrix_close(
                    &gf.world[j],
                    &wf.world[j],
                    &format!("t={:?} joint {j}", wf.t),
                );
            }
            let (g, w) = (
                skinned_positions(&packed, gf),
                skinned_positions(&float, wf),
            );
            let worst = g
                .iter()
                .zip(&w)
                .map(|(g, w)| g.distance(*w))
                .fold(0.0, f32::max);
            assert!(
                worst <= bound,
                "t={:?}: a skinned vertex moved {worst}, bound {bound}",
                wf.t
            );
        }
    }
}

#[test]
fn packed_normals_and_texture_coordinates_decode_within_their_precision() {
    let (float, packed) = float_and_packed();
    let (f, p) = (&float.meshes[0], &packed.meshes[0]);
    let cos = common::OCTAHEDRAL_8BIT_ANGLE.cos();
    for (v, (a, b)) in f.normals.iter().zip(&p.normals).enumerate() {
        let (a, b) = (glam::Vec3::from(*a), glam::Vec3::from(*b));
        assert!(
            (b.length() - 1.0).abs() <= common::EXACT_TOLERANCE,
            "vertex {v}: |n| = {}",
            b.length()
        );
        assert!(
            a.dot(b) >= cos,
            "vertex {v}: normal {b} is {} rad from {a}",
            a.angle_between(b)
        );
    }
    for (a, b) in f.uvs.iter().zip(&p.uvs) {
        common::assert_vec_close(
            b,
            a,
            common::EXACT_TOLERANCE,
            "16-bit normalized TEXCOORD_0",
        );
    }
}

#[test]
fn packed_rotation_keys_match_within_the_quaternion_filter_bound() {
    let (float, packed) = float_and_packed();
    let b = float.clips.iter().position(|c| c.name == "b").unwrap();
    let bound = common::quaternion_filter_bound(PACKED_QUATERNION_BITS);
    let mut compared = 0;
    for (ft, pt) in float.clips[b].tracks.iter().zip(&packed.clips[b].tracks) {
        assert_eq!(
            (ft.target, ft.channel, &ft.times),
            (pt.target, pt.channel, &pt.times)
        );
        if ft.channel != sinew::Channel::Rotation {
            continue;
        }
        for (k, (q, r)) in ft.values.iter().zip(&pt.values).enumerate() {
            // The filter may store -q for q: the same rotation.
            let r = if q.dot(*r) < 0.0 { -*r } else { *r };
            let worst = (*q - r).abs().max_element();
            assert!(
                worst <= bound,
                "joint node {} key {k}: {r} vs {q} ({worst} > {bound})",
                ft.target
            );
            compared += 1;
        }
    }
    assert!(compared > 0, "clip b has rotation keys");
}

/// `sinew inspect` lists the extensions a file declares and what sinew does with each.
#[test]
fn inspect_lists_declared_extensions_with_their_handling() {
    let file = common::repo().join("assets/synthetic/rig64_packed.glb");
    let run = |json: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"));
        cmd.arg("inspect").arg(&file);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let v: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let listed: Vec<(String, bool, String)> = v["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["required"].as_bool().unwrap(),
                e["handling"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for name in ["KHR_mesh_quantization", "EXT_meshopt_compression"] {
        assert!(
            listed.contains(&(name.to_string(), true, "applied".to_string())),
            "{name} missing from {listed:?}"
        );
    }
    let text = run(false);
    assert!(
        text.contains("extension KHR_mesh_quantization (required): applied"),
        "{text}"
    );
    // A file that declares none lists none.
    let plain = std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["inspect", "--json"])
        .arg(common::repo().join("assets/synthetic/rig64.glb"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(v.get("extensions").is_none(), "{v}");
}
