//! Import settings that cannot describe a file are typed errors naming the file, for glTF and
//! FBX alike, on the library API and on the command line.

use glam::{Quat, Vec3};
use sinew::import::SettingsError;
use sinew::{Axis, ImportErrorKind, ImportSettings};

fn bad_settings() -> Vec<(ImportSettings, SettingsError)> {
    let base = ImportSettings::default();
    let mut cases: Vec<(ImportSettings, SettingsError)> = [0.0, -0.01, f32::NAN, f32::INFINITY]
        .into_iter()
        .map(|s| {
            (
                ImportSettings {
                    unit_scale: s,
                    ..base
                },
                SettingsError::UnitScale(s),
            )
        })
        .collect();
    for (up, forward) in [
        (Axis::Z, Axis::Z),
        (Axis::Y, Axis::NegY),
        (Axis::NegX, Axis::X),
    ] {
        cases.push((
            ImportSettings {
                up,
                forward,
                ..base
            },
            SettingsError::Axes { up, forward },
        ));
    }
    for rotation in [
        Quat::from_xyzw(0.0, 0.0, 0.0, 2.0),
        Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
    ] {
        cases.push((
            ImportSettings { rotation, ..base },
            SettingsError::Rotation(rotation),
        ));
    }
    let translation = Vec3::new(0.0, f32::INFINITY, 0.0);
    cases.push((
        ImportSettings {
            translation,
            ..base
        },
        SettingsError::Translation(translation),
    ));
    cases
}

#[test]
fn bad_import_settings_are_typed_errors_naming_the_file() {
    let repo = super::common::repo();
    for file in ["assets/humanoid.glb", "assets/fbx/humanoid.fbx"] {
        let path = repo.join(file);
        let bytes = std::fs::read(&path).unwrap();
        for (settings, want) in bad_settings() {
            let err = sinew::import_file_with(&path, &settings).unwrap_err();
            let ImportErrorKind::Settings(got) = &err.kind else {
                panic!("{file} {settings:?}: {err:?}");
            };
            // NaN fields compare unequal: compare the messages.
            assert_eq!(got.to_string(), want.to_string(), "{file} {settings:?}");
            assert_eq!(
                std::mem::discriminant(got),
                std::mem::discriminant(&want),
                "{file}"
            );
            assert!(err.file.ends_with(file), "{err}");
            let err = sinew::import_bytes_with(&bytes, "mem.bin", None, &settings).unwrap_err();
            assert!(
                matches!(err.kind, ImportErrorKind::Settings(_)) && err.file == "mem.bin",
                "{err:?}"
            );
        }
    }
}

#[test]
fn bad_import_flags_fail_the_command() {
    let file = super::common::repo().join("assets/humanoid.glb");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sinew"))
            .arg("pose")
            .arg(&file)
            .arg("--rest")
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--up", "w"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown axis is a usage error"
    );
    let out = run(&["--unit-scale", "0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("humanoid.glb") && err.contains("unit scale 0"),
        "{err}"
    );
    let out = run(&["--up", "x", "--forward", "-x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not perpendicular"), "{err}");
}
