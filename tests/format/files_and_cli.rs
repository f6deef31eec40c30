//! Files on disk and the command line

use std::process::Command;

use sinew::FormatErrorKind;
use sinew::bake::file::{read_file, write_file};

use super::common;
use super::fixtures::{assert_rig_eq, shared_rigs, sinew_json, temp_path};

#[test]
fn write_file_then_read_file_round_trips() {
    let Some(rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let path = temp_path("roundtrip.sinew");
    write_file(&path, &rigs).unwrap();
    let loaded = read_file(&path);
    std::fs::remove_file(&path).unwrap();
    let loaded = loaded.unwrap();
    assert_eq!(loaded.len(), rigs.len(), "rig count");
    assert_rig_eq(&loaded[0], &rigs[0], "RiggedSimple.glb rig 0");
}

#[test]
fn write_file_leaves_no_partial_file() {
    let path = temp_path("partial.sinew");
    write_file(&path, &[]).unwrap();
    let partial = path.with_extension("sinew.partial");
    let partial_exists = partial.exists();
    std::fs::remove_file(&path).unwrap();
    assert!(!partial_exists, "{} was left behind", partial.display());
}

#[test]
fn write_file_into_a_missing_folder_is_io() {
    let path = temp_path("no-such-folder").join("x.sinew");
    let e = write_file(&path, &[]).unwrap_err();
    assert!(matches!(e.kind, FormatErrorKind::Io(_)), "{e:?}");
    assert_eq!(e.file, path.display().to_string(), "error names the file");
}

#[test]
fn read_file_of_a_missing_path_is_io() {
    let path = temp_path("missing.sinew");
    let e = read_file(&path).unwrap_err();
    assert!(matches!(e.kind, FormatErrorKind::Io(_)), "{e:?}");
    assert_eq!(e.file, path.display().to_string(), "error names the file");
}

#[test]
fn baked_file_inspects_like_its_gltf() {
    let Some(shared) = common::shared() else {
        return;
    };
    let gltf = shared.join("gltf/Fox.glb");
    let gltf = gltf.to_str().unwrap();
    let baked = temp_path("cli-fox.sinew");
    let baked = baked.to_str().unwrap();
    let status = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args(["bake", gltf, "-o", baked])
        .status()
        .unwrap();
    assert!(status.success(), "sinew bake failed: {status}");
    let from_baked = sinew_json(&["inspect", baked, "--json"]);
    std::fs::remove_file(baked).unwrap();
    let from_gltf = sinew_json(&["inspect", gltf, "--json"]);
    let (got, expected) = (&from_baked["rigs"], &from_gltf["rigs"]);
    let rigs = expected.as_array().unwrap();
    assert_eq!(got.as_array().unwrap().len(), rigs.len(), "rig count");
    for (r, rig) in rigs.iter().enumerate() {
        assert_eq!(got[r]["name"], rig["name"], "rig {r} name");
        let count = |v: &serde_json::Value| v.as_array().unwrap().len();
        assert_eq!(
            count(&got[r]["joints"]),
            count(&rig["joints"]),
            "rig {r} joint count"
        );
        let names = |v: &serde_json::Value| {
            v.as_array()
                .unwrap()
                .iter()
                .map(|c| c["name"].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            names(&got[r]["clips"]),
            names(&rig["clips"]),
            "rig {r} clip names"
        );
    }
    assert_eq!(got, expected, "the whole inspection");
}
