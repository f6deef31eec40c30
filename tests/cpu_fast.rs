//! The fast CPU evaluator ([`FastCpuBackend`]) against the exact one: its measured error bound on
//! every rig of `assets/` and `../shared/gltf`, exactness at the key times of uniformly keyed
//! clips, layers, masks, additive blending, root-motion flags, many instances, the same results
//! for any thread count, IK, joint LOD, inertialized transitions, and the same input validation
//! as [`CpuBackend`].

mod common;
#[path = "cpu_fast/crowd.rs"]
mod crowd;
#[path = "cpu_fast/ik.rs"]
mod ik;
#[path = "cpu_fast/inertialized.rs"]
mod inertialized;
#[path = "cpu_fast/joint_lod.rs"]
mod joint_lod;
#[path = "cpu_fast/layers.rs"]
mod layers;
#[path = "cpu_fast/outputs.rs"]
mod outputs;
#[path = "cpu_fast/validation.rs"]
mod validation;

use std::path::PathBuf;

use common::rigs::{humanoid, rigs_of, units_per_metre};
use common::{assert_matrix_close, repo, repo_assets, shared_assets};
use glam::{Affine3A, Quat, Vec3, Vec3A};
use sinew::cpu::evaluate_pose_with_flags;
use sinew::cpu::fast::{DEFAULT_RATE, FastKernel, LANES, MAX_RATE, MIN_RATE};
use sinew::import::Channel;
use sinew::{
    Aabb, BlendMode, CpuBackend, EvalError, FastCpuBackend, InstanceRecord, JointMask, Layer,
    Mat3x4Rows, Rig, bake_rigs, import_file,
};

/// The largest virtual-vertex displacement, in metres, between the fast evaluator at
/// [`DEFAULT_RATE`] and the exact one over every clip of the rigs sinew ships (`assets/`, see
/// [`virtual_vertex_error`]). Measured 0.061 mm (chain256's cubic clip); asserted with margin.
const SHIPPED_ERROR_BOUND_M: f32 = 0.1e-3;

/// The same over the conformance assets in `../shared/gltf`. Measured 0.82 mm, on
/// InterpolationTest's cubic-spline translation (tangents chosen to overshoot); 0.14 mm on
/// RobotExpressive, 0.01 mm on Fox and CesiumMan.
const CONFORMANCE_ERROR_BOUND_M: f32 = 1e-3;

/// Distance of the virtual vertices from their joint, in metres (ACL's default).
const VIRTUAL_VERTEX_M: f32 = 0.03;

fn world() -> Affine3A {
    Affine3A::from_scale_rotation_translation(
        Vec3::splat(1.0),
        Quat::from_rotation_y(0.7),
        Vec3::new(3.0, -1.0, 2.0),
    )
}

/// Model matrices and palette of one instance, exactly.
fn exact(rig: &Rig, masks: &[JointMask], rec: &InstanceRecord) -> (Vec<Affine3A>, Vec<Mat3x4Rows>) {
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let layers: Vec<Layer> = rec.layers_at(0.0).collect();
    evaluate_pose_with_flags(
        rig,
        masks,
        &layers,
        rec.flags,
        &rec.world.to_affine(),
        &mut models,
        &mut palette,
    );
    (models, palette)
}

/// Model matrices, palette (joint entries) and AABB of one instance, fast.
fn fast(backend: &FastCpuBackend, rec: &InstanceRecord) -> (Vec<Affine3A>, Vec<Mat3x4Rows>, Aabb) {
    let rig = &backend.rigs()[rec.rig as usize];
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    let aabb = backend
        .evaluate_one(rec, &mut models, &mut palette)
        .unwrap();
    palette.truncate(n);
    (models, palette, aabb)
}

/// ACL's error metric for one joint: the largest displacement between the exact and the
/// approximate model-space position of the joint and of three virtual vertices on its axes.
/// `offsets` places each vertex in the joint's local space, at the distance that lies 3 cm
/// away in the rest pose (so a rig whose joints carry a scale, like RobotExpressive's ×100
/// armature, is measured in model-space centimetres all the same).
fn virtual_vertex_error(exact: &Affine3A, approx: &Affine3A, offsets: [f32; 3]) -> f32 {
    let mut worst = (exact.translation - approx.translation).length();
    for (axis, k) in offsets.into_iter().enumerate() {
        let pe: Vec3A = exact.translation + exact.matrix3.col(axis) * k;
        let pa: Vec3A = approx.translation + approx.matrix3.col(axis) * k;
        worst = worst.max((pe - pa).length());
    }
    worst
}

/// Per joint, the local offsets of its virtual vertices: `d` over the rest pose's model-space
/// length of each axis.
fn virtual_vertex_offsets(rig: &Rig, d: f32) -> Vec<[f32; 3]> {
    let rest = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
    let (models, _) = exact(rig, &[], &rest);
    models
        .iter()
        .map(|m| [0, 1, 2].map(|axis| d / m.matrix3.col(axis).length().max(1e-6)))
        .collect()
}

/// Model matrices of the instance whose block starts at `k × rig.palette_entries()`, from its
/// palette entries (`palette × inverse bind⁻¹`).
fn models_of(rig: &Rig, palette: &[Mat3x4Rows], k: usize) -> Vec<Affine3A> {
    let base = k * rig.palette_entries();
    (0..rig.joint_count())
        .map(|j| palette[base + j].to_affine() * rig.skeleton.inverse_binds()[j].inverse())
        .collect()
}

/// Instances evaluated exactly and fast, as palettes and boxes of `rig`'s blocks laid one after
/// another.
struct Evaluated<'a> {
    palette: &'a [Mat3x4Rows],
    boxes: &'a [Aabb],
}

/// Asserts that every instance of `fast` lies within the shipped error bound of `exact` (ACL's
/// metric on every joint, and the box corners). Returns the fast model matrices of each.
fn assert_within_shipped_bound(rig: &Rig, exact: Evaluated, fast: Evaluated) -> Vec<Vec<Affine3A>> {
    let offsets = virtual_vertex_offsets(rig, VIRTUAL_VERTEX_M);
    (0..exact.boxes.len())
        .map(|k| {
            let (e, f) = (
                models_of(rig, exact.palette, k),
                models_of(rig, fast.palette, k),
            );
            let worst = (0..rig.joint_count())
                .map(|j| virtual_vertex_error(&e[j], &f[j], offsets[j]))
                .fold(0.0, f32::max);
            assert!(worst < SHIPPED_ERROR_BOUND_M, "instance {k}: {worst} m");
            let box_error = largest_box_difference(&exact.boxes[k], &fast.boxes[k]);
            assert!(
                box_error < SHIPPED_ERROR_BOUND_M,
                "instance {k}: box {box_error}"
            );
            f
        })
        .collect()
}

/// The largest difference between two boxes' corners.
fn largest_box_difference(a: &Aabb, b: &Aabb) -> f32 {
    (0..3)
        .map(|i| (a.min[i] - b.min[i]).abs().max((a.max[i] - b.max[i]).abs()))
        .fold(0.0, f32::max)
}

fn assert_palettes_close(got: &[Mat3x4Rows], expected: &[Mat3x4Rows], what: &str) {
    assert_eq!(got.len(), expected.len());
    for (j, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_matrix_close(
            &g.to_cols_array(),
            &e.to_cols_array(),
            &format!("{what} joint {j}"),
        );
    }
}

fn assert_aabb_close(got: &Aabb, expected: &Aabb, tol: f32, what: &str) {
    for i in 0..3 {
        for (g, e) in [(got.min[i], expected.min[i]), (got.max[i], expected.max[i])] {
            assert!(
                g == e || (g - e).abs() <= tol * e.abs().max(1.0),
                "{what}: AABB differs\n  got      {got:?}\n  expected {expected:?}"
            );
        }
    }
}

fn every_asset() -> Vec<PathBuf> {
    let mut files = repo_assets();
    files.extend(shared_assets());
    files
}

// ---------------------------------------------------------------------------------------------
// Error bound
// ---------------------------------------------------------------------------------------------

#[test]
fn fast_evaluation_stays_within_the_error_bound_on_every_asset() {
    let mut worst_all = 0.0f32;
    let shipped = repo_assets();
    for path in every_asset() {
        let bound = if shipped.contains(&path) {
            SHIPPED_ERROR_BOUND_M
        } else {
            CONFORMANCE_ERROR_BOUND_M
        };
        let upm = units_per_metre(&path);
        let mut worst_file = (0.0f32, String::new());
        for (r, rig) in rigs_of(&path).into_iter().enumerate() {
            let backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
            let offsets = virtual_vertex_offsets(&rig, VIRTUAL_VERTEX_M * upm);
            let clips = backend.fast_rigs()[0].clips().clips().to_vec();
            for (c, clip) in clips.iter().enumerate() {
                // Eight times per frame interval, plus the end.
                let steps = ((clip.duration * clip.rate * 8.0).ceil() as usize).max(8);
                for s in 0..=steps {
                    let t = clip.duration * s as f32 / steps as f32;
                    let rec =
                        InstanceRecord::new(0, 0, &world(), &[Layer::clip(c as u32, t)]).unwrap();
                    let (me, _) = exact(&rig, &[], &rec);
                    let (mf, _, _) = fast(&backend, &rec);
                    for (j, (e, f)) in me.iter().zip(&mf).enumerate() {
                        let err = virtual_vertex_error(e, f, offsets[j]) / upm;
                        if err > worst_file.0 {
                            worst_file = (err, format!("rig {r} clip {c} t {t:.4} joint {j}"));
                        }
                    }
                }
            }
        }
        eprintln!(
            "{:>28}: {:.4} mm ({})",
            path.file_name().unwrap().to_string_lossy(),
            worst_file.0 * 1e3,
            worst_file.1
        );
        assert!(
            worst_file.0 <= bound,
            "{}: virtual-vertex error {} m exceeds {bound} m at {}",
            path.display(),
            worst_file.0,
            worst_file.1
        );
        worst_all = worst_all.max(worst_file.0);
    }
    eprintln!("worst: {:.4} mm", worst_all * 1e3);
}

#[test]
fn cross_fades_stay_within_the_error_bound_on_the_shipped_rigs() {
    // Measured 0.023 mm (0.22 mm before blend inputs were normalized).
    let mut worst = 0.0f32;
    for path in repo_assets() {
        for rig in rigs_of(&path) {
            let clips = rig.clips.clip_count() as u32;
            if clips < 2 {
                continue;
            }
            let backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
            let offsets = virtual_vertex_offsets(&rig, VIRTUAL_VERTEX_M);
            for c in 0..clips {
                let other = (c + 1) % clips;
                for s in 0..=240 {
                    let t = s as f32 / 240.0 * 2.0;
                    let layers = [
                        Layer::clip(c, t),
                        Layer {
                            weight: 0.3,
                            ..Layer::clip(other, t * 0.7)
                        },
                    ];
                    let rec = InstanceRecord::new(0, 0, &world(), &layers).unwrap();
                    let (me, _) = exact(&rig, &[], &rec);
                    let (mf, _, _) = fast(&backend, &rec);
                    for (j, (e, f)) in me.iter().zip(&mf).enumerate() {
                        worst = worst.max(virtual_vertex_error(e, f, offsets[j]));
                    }
                }
            }
        }
    }
    eprintln!("worst cross-fade error: {:.4} mm", worst * 1e3);
    assert!(worst <= SHIPPED_ERROR_BOUND_M, "cross-fade error {worst} m");
}

// ---------------------------------------------------------------------------------------------
// Exactness at keys
// ---------------------------------------------------------------------------------------------

#[test]
fn uniformly_keyed_clips_are_exact_at_their_key_times() {
    let mut checked = 0;
    for path in every_asset() {
        for rig in rigs_of(&path) {
            let backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
            let clips = backend.fast_rigs()[0].clips().clips().to_vec();
            for (c, clip) in clips.iter().enumerate() {
                let Some(grid) = clip.key_grid else { continue };
                let keys = (clip.duration * grid).round() as usize;
                for k in 0..=keys {
                    let t = k as f32 / grid;
                    let rec =
                        InstanceRecord::new(0, 0, &world(), &[Layer::clip(c as u32, t)]).unwrap();
                    let (_, pe) = exact(&rig, &[], &rec);
                    let (_, pf, _) = fast(&backend, &rec);
                    let what = format!("{} clip {c} key {k} (t = {t})", path.display());
                    assert_palettes_close(&pf, &pe, &what);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} key times checked");
}

#[test]
fn keyed_grids_and_rates_are_detected() {
    let rig = humanoid();
    let backend = FastCpuBackend::new(vec![rig], Vec::new(), DEFAULT_RATE).unwrap();
    for clip in backend.fast_rigs()[0].clips().clips() {
        assert_eq!(clip.key_grid, Some(30.0), "{clip:?}");
        // 30 Hz, or a power-of-two multiple where a rotation turns fast.
        let m = clip.rate / 30.0;
        assert!(
            m >= 1.0 && m.fract() == 0.0 && (m as u32).is_power_of_two(),
            "{clip:?}"
        );
        assert_eq!(
            clip.frame_count,
            (clip.duration * clip.rate).round() as u32 + 1,
            "{clip:?}"
        );
    }
    // A coarse grid is refined to a multiple near the requested rate, keeping every key.
    let rig = rigs_of(&repo().join("assets/synthetic/fan.glb")).remove(0);
    let backend = FastCpuBackend::new(vec![rig], Vec::new(), DEFAULT_RATE).unwrap();
    let clip = &backend.fast_rigs()[0].clips().clips()[0];
    assert_eq!(clip.key_grid, Some(4.0));
    assert_eq!(clip.rate, 32.0);
}

#[test]
fn requested_rates_are_clamped() {
    let rig = humanoid();
    assert_eq!(
        FastCpuBackend::new(vec![rig.clone()], vec![], 0.0)
            .unwrap()
            .rate(),
        MIN_RATE
    );
    assert_eq!(
        FastCpuBackend::new(vec![rig.clone()], vec![], 1e9)
            .unwrap()
            .rate(),
        MAX_RATE
    );
    assert_eq!(
        FastCpuBackend::new(vec![rig], vec![], f32::NAN)
            .unwrap()
            .rate(),
        DEFAULT_RATE
    );
}

#[test]
fn step_tracks_hold_between_frames() {
    let Some(dir) = common::shared() else { return };
    let path = dir.join("gltf/InterpolationTest.glb");
    let rig = rigs_of(&path).remove(0);
    let backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
    let mut checked = 0;
    for (c, info) in rig.clips.clips().iter().enumerate() {
        if !info.name.starts_with("Step") {
            continue;
        }
        // Keys every 0.5 s lie on the 30 Hz grid: the held value is exact everywhere.
        for s in 0..=80 {
            let t = s as f32 * 0.025;
            let rec = InstanceRecord::new(0, 0, &world(), &[Layer::clip(c as u32, t)]).unwrap();
            let (_, pe) = exact(&rig, &[], &rec);
            let (_, pf, _) = fast(&backend, &rec);
            assert_palettes_close(&pf, &pe, &format!("{} t {t}", info.name));
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 81);
}
