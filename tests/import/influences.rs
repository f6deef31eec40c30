//! Up to eight influences per vertex: synthetic/influences.glb has a column whose vertices have
//! 5 to 8 nonzero influences (JOINTS_0/1) and one with 9 to 12 (JOINTS_0/1/2).

use super::common;
use super::fixtures::sinew;

fn influences_path() -> std::path::PathBuf {
    common::repo().join("assets/synthetic/influences.glb")
}

/// Every nonzero (skin joint, weight) of every vertex of primitive `p`, as the file stores them,
/// read with the `gltf` crate.
fn file_influences(p: usize) -> Vec<Vec<(u16, f32)>> {
    let (doc, buffers, _) = gltf::import(influences_path()).unwrap();
    let prim = doc.meshes().next().unwrap().primitives().nth(p).unwrap();
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    let mut out: Vec<Vec<(u16, f32)>> = Vec::new();
    for set in 0.. {
        let (Some(joints), Some(weights)) = (reader.read_joints(set), reader.read_weights(set))
        else {
            break;
        };
        for (v, (j, w)) in joints.into_u16().zip(weights.into_f32()).enumerate() {
            if set == 0 {
                out.push(Vec::new());
            }
            out[v].extend(
                j.iter()
                    .zip(w)
                    .filter(|(_, w)| *w > 0.0)
                    .map(|(&j, w)| (j, w)),
            );
        }
    }
    out
}

/// The nonzero (joint, weight) pairs of an imported vertex.
fn kept(joints: &[u16; 8], weights: &[f32; 8]) -> Vec<(u16, f32)> {
    joints
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(&j, &w)| (j, w))
        .collect()
}

fn assert_same_influences(got: &[(u16, f32)], expected: &[(u16, f32)], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: {got:?} vs {expected:?}");
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g.0, e.0, "{what}: joints of {got:?} vs {expected:?}");
        assert!(
            (g.1 - e.1).abs() <= common::WEIGHT_TOLERANCE,
            "{what}: weights of {got:?} vs {expected:?}"
        );
    }
}

#[test]
fn up_to_eight_influences_are_kept_as_the_file_has_them() {
    let asset = sinew::import_file(influences_path()).unwrap();
    let mesh = &asset.meshes[0];
    let file = file_influences(0);
    assert_eq!(mesh.positions.len(), file.len());
    let counts: Vec<usize> = file.iter().map(Vec::len).collect();
    assert_eq!(
        counts.iter().min(),
        Some(&5),
        "fewest influences in the file"
    );
    assert_eq!(counts.iter().max(), Some(&8), "most influences in the file");
    for (v, expected) in file.iter().enumerate() {
        let mut expected = expected.clone();
        expected.sort_by(|a, b| b.1.total_cmp(&a.1));
        let got = kept(&mesh.joints[v], &mesh.weights[v]);
        assert_same_influences(&got, &expected, &format!("vertex {v}"));
    }
    assert_eq!(mesh.influences_cut, 0, "no vertex has more than eight");
}

#[test]
fn more_than_eight_influences_keep_the_strongest_eight_renormalized_and_are_counted() {
    let asset = sinew::import_file(influences_path()).unwrap();
    let mesh = &asset.meshes[1];
    let file = file_influences(1);
    let mut over = 0;
    for (v, influences) in file.iter().enumerate() {
        assert!(influences.len() >= 9, "vertex {v} has {}", influences.len());
        over += 1;
        let mut strongest = influences.clone();
        strongest.sort_by(|a, b| b.1.total_cmp(&a.1));
        strongest.truncate(8);
        let sum: f32 = strongest.iter().map(|i| i.1).sum();
        let expected: Vec<(u16, f32)> = strongest.iter().map(|&(j, w)| (j, w / sum)).collect();
        let got = kept(&mesh.joints[v], &mesh.weights[v]);
        assert_same_influences(&got, &expected, &format!("vertex {v}"));
        let total: f32 = mesh.weights[v].iter().sum();
        assert!(
            (total - 1.0).abs() <= common::WEIGHT_TOLERANCE,
            "vertex {v} sums to {total}"
        );
    }
    assert_eq!(mesh.influences_cut, over, "cut vertices");
    let rigs = sinew::bake_rigs(&asset).unwrap();
    let baked: Vec<usize> = rigs[0].meshes.iter().map(|m| m.influences_cut).collect();
    assert_eq!(baked, [0, over], "cut vertices of the baked meshes");
}

#[test]
fn inspect_reports_influences_and_cut_vertices() {
    let path = influences_path();
    let out = sinew(&["inspect", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let cut = file_influences(1).len();
    let meshes: Vec<&str> = text.lines().filter(|l| l.contains("mesh ")).collect();
    assert_eq!(meshes.len(), 2, "{text}");
    assert!(
        meshes[0].ends_with("up to 8 influences per vertex"),
        "{}",
        meshes[0]
    );
    assert!(
        meshes[1].ends_with(&format!(
            "up to 8 influences per vertex ({cut} vertices cut to their strongest 8)"
        )),
        "{}",
        meshes[1]
    );
    let out = sinew(&["inspect", path.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cuts: Vec<u64> = v["rigs"][0]["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["influences_cut"].as_u64().unwrap())
        .collect();
    assert_eq!(cuts, [0, cut as u64], "{v}");
}
