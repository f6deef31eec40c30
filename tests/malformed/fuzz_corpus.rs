//! The fuzz corpus: seeds and every input that once crashed the importer or the fast backend.

use std::panic::{AssertUnwindSafe, catch_unwind};

use sinew::cpu::fast::{DEFAULT_RATE, MAX_CLIP_FRAMES};
use sinew::{FastCpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig};

use super::common;
use super::fixtures::{import_and_bake, try_import_and_bake, with_streams};

/// Resamples `rigs` for the fast CPU backend and evaluates each clip's midpoint on it.
fn resample_and_evaluate(rigs: Vec<Rig>) -> FastCpuBackend {
    let clips: Vec<(u32, u32, f32)> = rigs
        .iter()
        .enumerate()
        .flat_map(|(r, rig)| {
            rig.clips
                .clips()
                .iter()
                .enumerate()
                .map(move |(c, info)| (r as u32, c as u32, 0.5 * info.duration))
        })
        .collect();
    let fast = FastCpuBackend::new(rigs, Vec::new(), DEFAULT_RATE).unwrap();
    for (r, c, t) in clips {
        let joints = fast.rigs()[r as usize].joint_count();
        let record =
            InstanceRecord::new(r, 0, &glam::Affine3A::IDENTITY, &[Layer::clip(c, t)]).unwrap();
        let mut models = vec![glam::Affine3A::IDENTITY; joints];
        let mut palette = vec![Mat3x4Rows::IDENTITY; joints];
        fast.evaluate_one(&record, &mut models, &mut palette)
            .unwrap_or_else(|e| panic!("rig {r} clip {c}: {e}"));
    }
    fast
}

#[test]
fn fuzz_corpus_imports_or_fails_with_a_typed_error() {
    let corpus = common::fuzz_corpus("import_gltf");
    assert!(
        corpus.len() >= 5,
        "only {} inputs in the corpus",
        corpus.len()
    );
    let mut imported = 0;
    for (name, bytes) in &corpus {
        match try_import_and_bake(name, bytes, None) {
            Ok(Ok(rigs)) => {
                imported += 1;
                if catch_unwind(AssertUnwindSafe(|| resample_and_evaluate(rigs))).is_err() {
                    panic!("corpus input {name}: the fast backend panicked");
                }
            }
            Ok(Err(err)) => assert_eq!(&err.file, name, "the error names the file ({err})"),
            Err(panic) => panic!("corpus input {name} panicked: {panic}"),
        }
    }
    assert!(imported >= 5, "only {imported} corpus inputs imported");
}

#[test]
fn clip_of_a_huge_duration_resamples_into_bounded_frames() {
    // Valid glTF: key times need only increase. Resampled at 30 Hz, this clip would need
    // 3e31 frames.
    let file = with_streams(|s| s.times = vec![0.0, 1e30]);
    let rigs = import_and_bake("long.gltf", &file.to_gltf(), None).unwrap();
    let fast = resample_and_evaluate(rigs);
    let clip = &fast.fast_rigs()[0].clips().clips()[0];
    assert!(
        (2..=MAX_CLIP_FRAMES).contains(&clip.frame_count),
        "{} frames, at most {MAX_CLIP_FRAMES}",
        clip.frame_count
    );
    assert!(
        clip.rate > 0.0 && clip.rate.is_finite(),
        "rate {}",
        clip.rate
    );
}
