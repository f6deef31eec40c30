//! Compressed clips: the encoder's error budget and size, measured independently through the
//! exact and the compressed CPU evaluators. The decoder on hand-built channels:
//! `compressed_decoder.rs`.

use std::path::{Path, PathBuf};

use glam::{Affine3A, Vec3A};
use sinew::bake::compressed::AclFigures;
use sinew::cpu::{ClipSource, evaluate_pose_from, morph_weights};
use sinew::{
    CompressedClips, CpuBackend, DEFAULT_ERROR_BUDGET, InstanceRecord, Layer, Mat3x4Rows, Rig,
};

use super::common::rigs::{rigs_of, units_per_metre};
use super::common::{
    COMPRESSED_CONFORMANCE_ERROR_M, COMPRESSED_SHIPPED_ERROR_M, COMPRESSED_WEIGHT_ERROR,
    COMPRESSION_MIN_RATIO, FOX_COMPRESSION_MIN_RATIO, fbx_assets, repo, repo_assets, shared,
    shared_assets, shared_mocap, with_key_gap,
};

/// `rig` with its clips compressed to the default budget (in metres, for its units).
pub(crate) fn compressed(rig: &Rig, upm: f32) -> Rig {
    let mut rig = rig.clone();
    rig.compressed =
        Some(CompressedClips::build_in_units(&rig, DEFAULT_ERROR_BUDGET, upm).unwrap());
    rig
}

/// Model matrices and palette of `rig` playing `clip` at `t`, from `source`.
fn pose(rig: &Rig, source: ClipSource, clip: usize, t: f32) -> (Vec<Affine3A>, Vec<Mat3x4Rows>) {
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    let layers = [Layer::clip(clip as u32, t)];
    let world = Affine3A::IDENTITY;
    evaluate_pose_from(
        rig,
        source,
        &[],
        &layers,
        0,
        &world,
        &mut models,
        &mut palette,
    );
    (models, palette)
}

/// Per joint, the local offsets of its virtual vertices: `d` over the rest pose's model-space
/// length of each axis (so every vertex lies `d` from its joint in the rest pose).
fn vertex_offsets(rig: &Rig, d: f32) -> Vec<[f32; 3]> {
    let (models, _) = pose(rig, ClipSource::Exact, 0, 0.0);
    let mut rest = models;
    let parents = rig.skeleton.parents();
    for (j, sqt) in rig.skeleton.rest_pose().iter().enumerate() {
        let local = sqt.to_affine();
        rest[j] = match rest.get(parents[j] as usize) {
            Some(p) if (parents[j] as usize) < j => *p * local,
            _ => local,
        };
    }
    rest.iter()
        .map(|m| [0, 1, 2].map(|axis| d / m.matrix3.col(axis).length().max(1e-6)))
        .collect()
}

/// ACL's error of one joint: the largest displacement of its origin and its virtual vertices.
fn vertex_error(exact: &Affine3A, approx: &Affine3A, offsets: [f32; 3]) -> f32 {
    let mut worst = (exact.translation - approx.translation).length();
    for (axis, k) in offsets.into_iter().enumerate() {
        let pe: Vec3A = exact.translation + exact.matrix3.col(axis) * k;
        let pa: Vec3A = approx.translation + approx.matrix3.col(axis) * k;
        worst = worst.max((pe - pa).length());
    }
    worst
}

/// The largest joint error (metres) and weight error of `rig`'s compressed clips over every
/// clip, ten times per frame interval of the compressed grid plus the end.
fn measured_error(rig: &Rig, upm: f32) -> (f32, f32, String) {
    let offsets = vertex_offsets(rig, 0.03 * upm);
    let c = rig.compressed.as_ref().unwrap();
    let mut worst = (0.0f32, 0.0f32, String::new());
    for (clip, record) in c.clips().iter().enumerate() {
        let steps = ((record.duration * record.rate * 10.0).ceil() as usize).max(10);
        for s in 0..=steps {
            let t = record.duration * s as f32 / steps as f32;
            let (me, pe) = pose(rig, ClipSource::Exact, clip, t);
            let (mc, pc) = pose(rig, ClipSource::Compressed, clip, t);
            for (j, (e, a)) in me.iter().zip(&mc).enumerate() {
                let err = vertex_error(e, a, offsets[j]) / upm;
                if err > worst.0 {
                    worst.0 = err;
                    worst.2 = format!("clip {clip} t {t:.4} joint {j}");
                }
            }
            let (we, wc) = (morph_weights(rig, &pe), morph_weights(rig, &pc));
            for (a, b) in we.iter().zip(&wc) {
                worst.1 = worst.1.max((a - b).abs());
            }
        }
    }
    worst
}

fn assert_within_budget(files: &[PathBuf], bound: f32) {
    for path in files {
        let upm = units_per_metre(path);
        for rig in rigs_of(path) {
            let rig = compressed(&rig, upm);
            let (err, weights, at) = measured_error(&rig, upm);
            let c = rig.compressed.as_ref().unwrap();
            eprintln!(
                "{:>28} {}: {:.4} mm at {at} (encoder {:.4} mm), weights {weights:.2e}, {} bytes \
                 ({:.2}× smaller)",
                path.file_name().unwrap().to_string_lossy(),
                rig.name,
                err * 1e3,
                c.max_error() * 1e3,
                c.byte_size(),
                rig.clips.byte_size() as f64 / c.byte_size() as f64
            );
            assert!(
                err <= bound,
                "{} rig {}: error {err} m exceeds {bound} m at {at}",
                path.display(),
                rig.name
            );
            assert!(
                weights <= COMPRESSED_WEIGHT_ERROR,
                "{} rig {}: weight error {weights}",
                path.display(),
                rig.name
            );
            // At every sample of every clip (its key rate), as ACL measures.
            if upm == 1.0 {
                let acl = AclFigures::of(&rig, c);
                eprintln!(
                    "{:>28} {}: {:.2}:1 against ACL's raw size, {:.2} bits per joint-frame, \
                     {:.4} mm at every sample",
                    "",
                    rig.name,
                    acl.ratio,
                    acl.bits_per_joint_frame,
                    acl.max_error * 1e3
                );
                assert!(
                    acl.max_error <= bound,
                    "{} rig {}: error {} m at a sample",
                    path.display(),
                    rig.name,
                    acl.max_error
                );
            }
        }
    }
}

#[test]
fn compressed_clips_stay_within_the_budget_on_the_shipped_rigs() {
    let files = repo_assets();
    assert!(!files.is_empty());
    assert_within_budget(&files, COMPRESSED_SHIPPED_ERROR_M);
}

#[test]
fn compressed_clips_of_the_fbx_rigs_stay_within_the_budget() {
    let files = fbx_assets();
    assert!(!files.is_empty());
    assert_within_budget(&files, COMPRESSED_SHIPPED_ERROR_M);
}

#[test]
fn compressed_clips_of_the_motion_capture_stay_within_the_budget() {
    let Some(mocap) = shared_mocap() else {
        return;
    };
    let files = [mocap.join("08_02.glb"), mocap.join("08_02_24fps.glb")];
    assert_within_budget(&files, COMPRESSED_SHIPPED_ERROR_M);
}

#[test]
fn compressed_clips_stay_within_a_millimetre_on_the_conformance_assets() {
    assert_within_budget(&shared_assets(), COMPRESSED_CONFORMANCE_ERROR_M);
}

/// Asserts the compressed clips of the first rig of `path` are at least `min` times smaller
/// than its exact keys.
fn assert_ratio(path: &Path, min: f64) {
    let rig = compressed(&rigs_of(path).remove(0), units_per_metre(path));
    let (exact, small) = (
        rig.clips.byte_size(),
        rig.compressed.as_ref().unwrap().byte_size(),
    );
    let ratio = exact as f64 / small as f64;
    eprintln!("{}: {exact} → {small} bytes ({ratio:.2}×)", path.display());
    assert!(
        ratio >= min,
        "{}: {exact} → {small} bytes is only {ratio:.2}× smaller",
        path.display()
    );
}

#[test]
fn compressed_humanoid_clips_are_four_times_smaller() {
    assert_ratio(&repo().join("assets/humanoid.glb"), COMPRESSION_MIN_RATIO);
}

#[test]
fn compressed_fox_clips_on_segments_are_smaller() {
    if let Some(dir) = shared() {
        assert_ratio(&dir.join("gltf/Fox.glb"), FOX_COMPRESSION_MIN_RATIO);
    }
}

/// Every key time of clip `clip` of `rig` (tracks of more than one key), sorted, distinct.
fn key_times(rig: &Rig, clip: usize) -> Vec<f32> {
    let lib = &rig.clips;
    let mut times: Vec<f32> = (0..lib.joint_count())
        .flat_map(|j| sinew::import::Channel::ALL.map(|ch| *lib.track(clip, j, ch)))
        .filter(|d| d.key_count > 1)
        .flat_map(|d| {
            let t0 = d.time_offset as usize;
            lib.times()[t0..t0 + d.key_count as usize].to_vec()
        })
        .collect();
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}

#[test]
fn clips_with_a_gap_in_their_keys_are_framed_on_uniform_segments() {
    let rig = with_key_gap(&rigs_of(&repo().join("assets/humanoid.glb")).remove(0), 0);
    let keys = key_times(&rig, 0);
    let rig = compressed(&rig, 1.0);
    let c = rig.compressed.as_ref().unwrap();
    let segments = c.segments(0);
    // Uniform keys, the gap as one interval, uniform keys: every key a frame and no other.
    assert_eq!(segments.len(), 3, "{segments:?}");
    assert_eq!(segments[1].intervals, 1, "{segments:?}");
    assert_eq!(
        c.clips()[0].frame_count as usize,
        keys.len(),
        "{segments:?}"
    );
    let gap = (segments[1].start, segments[2].start);
    assert!(keys.iter().all(|&t| t <= gap.0 || t >= gap.1), "{gap:?}");
    // At each key, a third of the way to the next and half way, the pose is the exact one
    // within the budget (ACL's metric).
    let offsets = vertex_offsets(&rig, 0.03);
    let mut times = keys.clone();
    for w in keys.windows(2) {
        times.extend([w[0] + (w[1] - w[0]) / 3.0, (w[0] + w[1]) * 0.5]);
    }
    for t in times {
        let (me, _) = pose(&rig, ClipSource::Exact, 0, t);
        let (mc, _) = pose(&rig, ClipSource::Compressed, 0, t);
        for (j, (e, a)) in me.iter().zip(&mc).enumerate() {
            let err = vertex_error(e, a, offsets[j]);
            assert!(
                err <= COMPRESSED_SHIPPED_ERROR_M,
                "t {t} joint {j}: {err} m"
            );
        }
    }
}

#[test]
fn cpu_backend_with_compressed_clips_evaluates_them() {
    let rig = rigs_of(&repo().join("assets/humanoid.glb")).remove(0);
    let mut exact = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    let mut small = CpuBackend::with_compressed(vec![rig.clone()], Vec::new()).unwrap();
    assert_eq!(small.clip_source(), ClipSource::Compressed);
    let stored = small.rigs()[0].compressed.clone().unwrap();
    let block = rig.palette_entries();
    let rec = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[Layer::clip(1, 0.37)]).unwrap();
    let mut pe = vec![Mat3x4Rows::IDENTITY; block];
    let mut pc = vec![Mat3x4Rows::IDENTITY; block];
    let mut aabb = [sinew::Aabb::EMPTY];
    exact.evaluate(&[rec], &mut pe, &mut aabb).unwrap();
    small.evaluate(&[rec], &mut pc, &mut aabb).unwrap();
    // The backend's palette is the compressed pose's, which is close to but not the exact one.
    let mut with = rig.clone();
    with.compressed = Some(stored);
    let (_, expected) = pose(&with, ClipSource::Compressed, 1, 0.37);
    assert_eq!(pc, expected[..block]);
    assert_ne!(pc, pe);
}
