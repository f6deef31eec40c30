//! Fuzzing: corrupted bytes may fail to import, but must never panic.

use std::collections::BTreeMap;

use serde_json::json;

use super::common::{self, Rng};
use super::fixtures::{ROOT, import_and_bake, try_import_and_bake, valid};

/// Applies one deterministic corruption to `bytes` and says what it did.
fn corrupt(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    let at = rng.below(bytes.len());
    match rng.below(5) {
        0 => {
            let bit = rng.below(8);
            bytes[at] ^= 1 << bit;
            format!("flip bit {bit} of byte {at}")
        }
        1 => {
            let value = rng.next() as u8;
            bytes[at] = value;
            format!("set byte {at} to {value:#04x}")
        }
        2 => {
            bytes.truncate(at);
            format!("truncate to {at} bytes")
        }
        3 => {
            let value = rng.next() as u32;
            let end = (at + 4).min(bytes.len());
            bytes[at..end].copy_from_slice(&value.to_le_bytes()[..end - at]);
            format!("write {value:#010x} at byte {at}")
        }
        _ => {
            // Change a decimal digit: keeps JSON well-formed but moves indices and counts.
            let digits: Vec<usize> = (0..bytes.len())
                .filter(|&i| bytes[i].is_ascii_digit())
                .collect();
            if digits.is_empty() {
                return "no digit to change".into();
            }
            let i = digits[rng.below(digits.len())];
            let digit = b'0' + rng.below(10) as u8;
            bytes[i] = digit;
            format!("set digit at byte {i} to {}", digit as char)
        }
    }
}

/// What a fuzz run saw.
#[derive(Default)]
pub(crate) struct FuzzOutcome {
    /// One line per round that panicked: the corruption, the panic's location and frames.
    pub(crate) panics: Vec<String>,
    /// Rounds whose corrupted file still imported and baked.
    pub(crate) imported: usize,
    /// Rounds rejected, by error kind.
    pub(crate) rejected: BTreeMap<String, usize>,
}

impl FuzzOutcome {
    pub(crate) fn assert_no_panics(&self) {
        assert!(
            self.panics.is_empty(),
            "{} corrupted input(s) panicked:\n{}",
            self.panics.len(),
            self.panics.join("\n")
        );
    }

    /// Asserts the corruptions reached the importer's own checks, not only the JSON parser.
    pub(crate) fn assert_reached_the_importer(&self, name: &str) {
        let beyond_parsing: usize = self
            .rejected
            .iter()
            .filter(|(kind, _)| kind.as_str() != "Gltf")
            .map(|(_, n)| n)
            .sum();
        assert!(
            self.imported > 0 && beyond_parsing > 0,
            "{name}: the fuzz run only exercised parsing: {} imported, rejections {:?}",
            self.imported,
            self.rejected
        );
    }
}

/// Corrupts `original` `rounds` times (one to three corruptions each) and imports each result.
pub(crate) fn fuzz(name: &str, original: &[u8], seed: u64, rounds: usize) -> FuzzOutcome {
    let mut rng = Rng(seed);
    let mut outcome = FuzzOutcome::default();
    for round in 0..rounds {
        let mut bytes = original.to_vec();
        let corruptions = 1 + rng.below(3);
        let mut what = Vec::new();
        for _ in 0..corruptions {
            if bytes.is_empty() {
                break;
            }
            what.push(corrupt(&mut bytes, &mut rng));
        }
        match try_import_and_bake(name, &bytes, None) {
            Ok(Ok(_)) => outcome.imported += 1,
            Ok(Err(err)) => {
                let kind = format!("{:?}", err.kind);
                let kind = kind
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or_default()
                    .to_string();
                *outcome.rejected.entry(kind).or_default() += 1;
            }
            Err(panic) => outcome.panics.push(format!(
                "{name} round {round} ({}): {panic}",
                what.join(", ")
            )),
        }
    }
    eprintln!(
        "{name}: {rounds} rounds, {} imported, {} panicked, rejected {:?}",
        outcome.imported,
        outcome.panics.len(),
        outcome.rejected
    );
    outcome
}

#[test]
fn fuzzed_minimal_glb_never_panics() {
    let outcome = fuzz("fuzz-minimal.glb", &valid().to_glb(), 0x5eed_0001, 600);
    outcome.assert_no_panics();
    outcome.assert_reached_the_importer("fuzz-minimal.glb");
}

#[test]
fn fuzzed_minimal_gltf_never_panics() {
    let outcome = fuzz("fuzz-minimal.gltf", &valid().to_gltf(), 0x5eed_0002, 400);
    outcome.assert_no_panics();
    outcome.assert_reached_the_importer("fuzz-minimal.gltf");
}

#[test]
fn fuzzed_shared_assets_never_panic() {
    let Some(shared) = common::shared() else {
        return;
    };
    for (seed, file) in [
        (0x5eed_0003, "SimpleSkin.gltf"),
        (0x5eed_0004, "RiggedSimple.glb"),
    ] {
        let bytes = std::fs::read(shared.join("gltf").join(file)).unwrap();
        let rigs = import_and_bake(file, &bytes, None)
            .unwrap_or_else(|e| panic!("{file} must import before it is corrupted: {e}"));
        assert!(!rigs.is_empty(), "{file}: no rigs");
        let outcome = fuzz(file, &bytes, seed, 400);
        outcome.assert_no_panics();
        outcome.assert_reached_the_importer(file);
    }
}

#[test]
fn matrix_with_a_zero_scale_axis_is_decomposable() {
    // A 90-degree turn about x, then scale (1, 1, 0): flattened, but still T * R * S.
    let matrix = [
        1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 3.0, 4.0, 1.0,
    ];
    let mut file = valid();
    let root = file.json["nodes"][ROOT].as_object_mut().unwrap();
    root.remove("translation");
    root.insert("matrix".into(), json!(matrix));
    // An animated node may not define a matrix: drop the root's translation channel.
    file.json["animations"][0]["channels"]
        .as_array_mut()
        .unwrap()
        .pop();
    let rigs = import_and_bake("flattened.gltf", &file.to_gltf(), None)
        .unwrap_or_else(|e| panic!("a zero-scale axis is decomposable: {e}"));
    let rest = rigs[0].skeleton.rest_pose()[0];
    let rebuilt = glam::Mat4::from(rest.to_affine()).to_cols_array();
    common::assert_matrix_close(&rebuilt, &matrix, "rest pose of the flattened root");
}
