//! Compressed clips: the encoder's error budget and size, measured independently through the
//! exact and the compressed CPU evaluators, and the decoder on hand-built channels.

use std::path::Path;

use sinew::{DEFAULT_ERROR_BUDGET, Rig, bake_rigs, import_file};

use super::common::repo;

fn rigs_of(path: &Path) -> Vec<Rig> {
    bake_rigs(&import_file(path).unwrap()).unwrap()
}

#[test]
fn compressed_smoke() {
    for name in [
        "assets/humanoid.glb",
        "../shared/gltf/Fox.glb",
        "assets/synthetic/chain256.glb",
    ] {
        for rig in rigs_of(&repo().join(name)) {
            let start = std::time::Instant::now();
            let upm = if name.contains("Fox") { 100.0 } else { 1.0 };
            let c =
                sinew::CompressedClips::build_in_units(&rig, DEFAULT_ERROR_BUDGET, upm).unwrap();
            let lib = &rig.clips;
            let exact = lib.times().len() * 4
                + lib.values().len() * 16
                + lib.tracks().len() * 16
                + lib.weight_tracks().len() * 16;
            eprintln!(
                "{name} {}: exact {exact} {} bytes, max {:.4} mm, {:?}, hist {:?}, {:?}",
                rig.name,
                c.byte_size(),
                c.max_error() * 1e3,
                start.elapsed(),
                c.bit_rate_histogram(),
                c.clips()
                    .iter()
                    .map(|r| (
                        r.rate,
                        r.frame_count,
                        r.frame_words,
                        r.frame_count * r.frame_words * 4
                    ))
                    .collect::<Vec<_>>()
            );
        }
    }
}
