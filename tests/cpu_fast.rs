//! The fast CPU evaluator ([`FastCpuBackend`]) against the exact one: its measured error bound on
//! every rig of `assets/` and `../shared/gltf`, exactness at the key times of uniformly keyed
//! clips, layers, masks, additive blending, root-motion flags, many instances, the same results
//! for any thread count, and the same input validation as [`CpuBackend`].

mod common;

use std::path::{Path, PathBuf};

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

fn rigs_of(path: &Path) -> Vec<Rig> {
    bake_rigs(&import_file(path).unwrap()).unwrap()
}

fn humanoid() -> Rig {
    rigs_of(&repo().join("assets/humanoid.glb")).remove(0)
}

/// Rig units per metre: glTF is in metres, but Fox is modelled in centimetres.
fn units_per_metre(path: &Path) -> f32 {
    if path.file_stem().is_some_and(|s| s == "Fox") {
        100.0
    } else {
        1.0
    }
}

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

// ---------------------------------------------------------------------------------------------
// Layers, masks, additive, root motion
// ---------------------------------------------------------------------------------------------

/// Layer stacks on the humanoid (clips keyed at 30 Hz, so every time below is a key and the two
/// evaluators must agree to rounding).
fn layer_cases(rig: &Rig, masks: &mut Vec<JointMask>) -> Vec<(String, Vec<Layer>)> {
    let upper = JointMask::from_subtrees(&rig.skeleton, &["Spine1"]).unwrap();
    masks.push(upper.clone());
    masks.push(upper.inverted());
    let mut half = JointMask::uniform(&rig.skeleton, 0.5);
    half.weights[0] = 0.0;
    masks.push(half);
    let l = |clip: u32, time: f32, weight: f32, mask: Option<u32>, mode: BlendMode| Layer {
        clip,
        time,
        weight,
        mask,
        mode,
    };
    use BlendMode::{Additive, Override};
    vec![
        ("rest".into(), vec![]),
        ("one clip".into(), vec![l(1, 0.5, 1.0, None, Override)]),
        (
            "cross-fade".into(),
            vec![
                l(1, 0.4, 1.0, None, Override),
                l(2, 0.3, 0.3, None, Override),
            ],
        ),
        (
            "partial base over rest".into(),
            vec![l(0, 1.0, 0.6, None, Override)],
        ),
        (
            "masked upper body".into(),
            vec![
                l(1, 0.5, 1.0, None, Override),
                l(3, 0.8, 1.0, Some(0), Override),
            ],
        ),
        (
            "masked half weights".into(),
            vec![
                l(2, 0.2, 1.0, Some(1), Override),
                l(1, 0.6, 0.8, Some(2), Override),
            ],
        ),
        (
            "additive".into(),
            vec![
                l(1, 0.5, 1.0, None, Override),
                l(3, 1.0, 0.5, None, Additive),
            ],
        ),
        (
            "masked additive over four layers".into(),
            vec![
                l(0, 1.2, 1.0, None, Override),
                l(2, 0.1, 0.5, None, Override),
                l(3, 0.7, 1.0, Some(0), Additive),
                l(1, 0.9, 0.25, Some(2), Additive),
            ],
        ),
        (
            "zero and negative weights".into(),
            vec![
                l(1, 0.5, 0.0, None, Override),
                l(2, 0.5, -1.0, None, Additive),
            ],
        ),
        (
            "weight above one".into(),
            vec![
                l(1, 0.5, 2.0, None, Override),
                l(3, 0.5, 1.5, None, Additive),
            ],
        ),
    ]
}

#[test]
fn layer_stacks_match_the_exact_evaluator_at_key_times() {
    let rig = humanoid();
    let mut masks = Vec::new();
    let cases = layer_cases(&rig, &mut masks);
    let backend = FastCpuBackend::new(vec![rig.clone()], masks.clone(), DEFAULT_RATE).unwrap();
    for (name, layers) in &cases {
        let rec = InstanceRecord::new(0, 0, &world(), layers).unwrap();
        let (_, pe) = exact(&rig, &masks, &rec);
        let (_, pf, _) = fast(&backend, &rec);
        assert_palettes_close(&pf, &pe, name);
    }
}

/// The humanoid as a Z-up export: under a non-joint `Z_UP` node turned a quarter about -X
/// (and a little about its +Z) and scaled, so the root's parent space is not model space.
fn z_up_humanoid() -> Rig {
    let mut asset = import_file(repo().join("assets/humanoid.glb")).unwrap();
    let top = asset.nodes.len();
    for node in asset.nodes.iter_mut().filter(|n| n.parent.is_none()) {
        node.parent = Some(top);
    }
    asset.nodes.push(sinew::import::RawNode {
        name: "Z_UP".to_string(),
        parent: None,
        rest: sinew::Sqt {
            translation: Vec3::new(0.2, 0.0, -0.1),
            rotation: Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)
                * Quat::from_rotation_z(0.3),
            scale: Vec3::splat(1.5),
        },
    });
    bake_rigs(&asset).unwrap().remove(0)
}

#[test]
fn root_motion_flags_match_the_exact_evaluator() {
    for rig in [humanoid(), z_up_humanoid()] {
        let backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
        let root = rig.skeleton.find_joint("Hips").unwrap() as u32;
        let base = rig.skeleton.find_joint("Root").unwrap() as u32;
        let layers = [
            Layer::clip(1, 0.3),
            Layer {
                weight: 0.4,
                ..Layer::clip(2, 0.6)
            },
        ];
        for hold in [
            InstanceRecord::HOLD_ROOT_XZ,
            InstanceRecord::HOLD_ROOT_XYZ,
            InstanceRecord::HOLD_ROOT_YAW,
            InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW,
        ] {
            for joint in [base, root] {
                let mut rec = InstanceRecord::new(0, 0, &world(), &layers).unwrap();
                rec.flags = hold | joint;
                let what = format!("{}: flags {:#x}", rig.name, rec.flags);
                let (_, pe) = exact(&rig, &[], &rec);
                let (_, pf, _) = fast(&backend, &rec);
                assert_palettes_close(&pf, &pe, &what);
                // And the flags change something.
                rec.flags = 0;
                let (_, free) = exact(&rig, &[], &rec);
                assert!(
                    free.iter().zip(&pf).any(|(a, b)| a != b),
                    "{what}: the hold changed nothing"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Many instances
// ---------------------------------------------------------------------------------------------

/// Two rigs, interleaved, with every layer case, different clips per instance (lanes of one
/// group play different clips), root-motion flags, world transforms, a count that is not a
/// multiple of the lane count and palette offsets in scrambled order.
fn crowd() -> (Vec<Rig>, Vec<JointMask>, Vec<InstanceRecord>, usize) {
    let human = humanoid();
    let rig64 = rigs_of(&repo().join("assets/synthetic/rig64.glb")).remove(0);
    let mut masks = Vec::new();
    let cases = layer_cases(&human, &mut masks);
    let rigs = vec![human, rig64];
    let mut records = Vec::new();
    let mut offset = 0u32;
    let mut offsets = Vec::new();
    for i in 0..67usize {
        let rig = if i % 5 == 3 { 1 } else { 0 };
        let n = rigs[rig].joint_count() as u32;
        offsets.push((offset, rig));
        offset += n + (i % 3) as u32;
    }
    // Scramble which record gets which palette block.
    let mut perm: Vec<usize> = (0..offsets.len()).collect();
    let len = perm.len();
    for i in 0..len {
        perm.swap(i, (i * 7 + 3) % len);
    }
    for (i, &p) in perm.iter().enumerate() {
        let (off, rig) = offsets[p];
        let w = Affine3A::from_rotation_translation(
            Quat::from_rotation_y(i as f32 * 0.3),
            Vec3::new(i as f32, 0.0, -(i as f32)),
        );
        let layers = if rig == 0 {
            // Shift the clips and key times per instance: lanes of a group differ.
            let (_, base) = &cases[i % cases.len()];
            base.iter()
                .map(|l| Layer {
                    clip: (l.clip + i as u32) % 4,
                    time: l.time + (i % 4) as f32 / 30.0,
                    ..*l
                })
                .collect::<Vec<_>>()
        } else {
            vec![
                Layer::clip((i % 2) as u32, (i % 30) as f32 / 30.0),
                Layer {
                    weight: 0.3,
                    ..Layer::clip(1, (i % 45) as f32 / 30.0)
                },
            ]
        };
        let mut rec = InstanceRecord::new(rig as u32, off, &w, &layers).unwrap();
        if i % 4 == 1 {
            rec.flags = InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW;
        }
        records.push(rec);
    }
    (rigs, masks, records, offset as usize)
}

/// On both kernels: the one the CPU runs ([`FastKernel::detect`]) and the portable one.
#[test]
fn many_instances_match_the_exact_backend() {
    for portable in [false, true] {
        many_instances_match_the_exact_backend_on(portable);
    }
}

fn many_instances_match_the_exact_backend_on(portable: bool) {
    let (rigs, masks, records, palette_len) = crowd();
    let mut exact = CpuBackend::new(rigs.clone(), masks.clone()).unwrap();
    let mut fast = FastCpuBackend::from_exact(&exact, DEFAULT_RATE);
    if portable {
        fast.use_portable_kernel();
    }
    let mut pe = vec![Mat3x4Rows::IDENTITY; palette_len];
    let mut pf = vec![Mat3x4Rows::IDENTITY; palette_len];
    let mut ae = vec![Aabb::EMPTY; records.len()];
    let mut af = vec![Aabb::EMPTY; records.len()];
    exact.evaluate(&records, &mut pe, &mut ae).unwrap();
    fast.evaluate(&records, &mut pf, &mut af).unwrap();
    for (i, rec) in records.iter().enumerate() {
        let n = rigs[rec.rig as usize].joint_count();
        let r = rec.palette_offset as usize..rec.palette_offset as usize + n;
        let what = format!("instance {i} ({:?} kernel)", fast.kernel());
        assert_palettes_close(&pf[r.clone()], &pe[r.clone()], &what);
        assert_aabb_close(&af[i], &ae[i], 1e-4, &what);
        // The batch and the single-instance path agree (to rounding: an instance whose layer
        // replaces the pose takes the blending path when a lane beside it blends).
        let (_, one, aabb) = self::fast(&fast, rec);
        assert_palettes_close(&pf[r], &one, &format!("{what} alone"));
        assert_aabb_close(&af[i], &aabb, 1e-5, &format!("{what} alone"));
    }
    // Gaps between blocks are left alone.
    let used: usize = records
        .iter()
        .map(|r| rigs[r.rig as usize].joint_count())
        .sum();
    let untouched = pf.iter().filter(|m| **m == Mat3x4Rows::IDENTITY).count();
    assert!(untouched >= palette_len - used);
}

/// One rig, enough instances for full lane groups and a partial last one (two groups and
/// three), at times on the clips' keys: each lane of a group, not only the first few, matches
/// the exact backend, both when every lane has its own layer stack and clips and when the
/// lanes play the same clips at their own times (the path that interpolates a slot's channels
/// in one pass).
#[test]
fn full_and_partial_lane_groups_match_the_exact_backend() {
    let rig = humanoid();
    let mut masks = Vec::new();
    let cases = layer_cases(&rig, &mut masks);
    for same_clips in [false, true] {
        let records: Vec<InstanceRecord> = (0..2 * LANES + 3)
            .map(|i| {
                let (case, shift) = if same_clips {
                    (7, 0)
                } else {
                    ((i * 3 + 1) % cases.len(), i as u32)
                };
                let layers: Vec<Layer> = cases[case]
                    .1
                    .iter()
                    .map(|l| Layer {
                        clip: (l.clip + shift) % 4,
                        time: l.time + (i % 7) as f32 / 30.0,
                        ..*l
                    })
                    .collect();
                let w = Affine3A::from_translation(Vec3::new(i as f32, 0.0, 0.5 * i as f32));
                let offset = (i * rig.joint_count()) as u32;
                InstanceRecord::new(0, offset, &w, &layers).unwrap()
            })
            .collect();
        lane_groups_match_the_exact_backend(&rig, &masks, &records);
    }
}

/// Evaluates `records` on both backends and compares every instance's palette and box.
fn lane_groups_match_the_exact_backend(rig: &Rig, masks: &[JointMask], records: &[InstanceRecord]) {
    let n = rig.joint_count();
    let count = records.len();
    let mut exact = CpuBackend::new(vec![rig.clone()], masks.to_vec()).unwrap();
    let mut pe = vec![Mat3x4Rows::IDENTITY; count * n];
    let mut ae = vec![Aabb::EMPTY; count];
    exact.evaluate(records, &mut pe, &mut ae).unwrap();
    for portable in [false, true] {
        let mut fast = FastCpuBackend::from_exact(&exact, DEFAULT_RATE);
        if portable {
            fast.use_portable_kernel();
        }
        let mut pf = vec![Mat3x4Rows::IDENTITY; count * n];
        let mut af = vec![Aabb::EMPTY; count];
        fast.evaluate(records, &mut pf, &mut af).unwrap();
        for i in 0..count {
            let r = i * n..(i + 1) * n;
            let what = format!(
                "instance {i} (lane {} of its group, {:?} kernel)",
                i % LANES,
                fast.kernel()
            );
            assert_palettes_close(&pf[r.clone()], &pe[r.clone()], &what);
            assert_aabb_close(&af[i], &ae[i], 1e-4, &what);
        }
    }
}

/// The backend runs the kernel the CPU supports, and where that is the AVX2 and FMA kernel it
/// is a different code path from the portable one: fused multiply-adds round once, so some
/// palette bits differ (each within the tolerance, [`many_instances_match_the_exact_backend`]).
#[test]
fn the_detected_kernel_runs_and_differs_from_the_portable_one_by_rounding() {
    let (rigs, masks, records, palette_len) = crowd();
    let mut fast = FastCpuBackend::new(rigs, masks, DEFAULT_RATE).unwrap();
    assert_eq!(fast.kernel(), FastKernel::detect());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        assert_eq!(fast.kernel(), FastKernel::Avx2Fma);
    }
    let mut detected = vec![Mat3x4Rows::IDENTITY; palette_len];
    let mut aabbs = vec![Aabb::EMPTY; records.len()];
    fast.evaluate(&records, &mut detected, &mut aabbs).unwrap();
    let mut portable = fast.clone();
    portable.use_portable_kernel();
    assert_eq!(portable.kernel(), FastKernel::Portable);
    let mut plain = vec![Mat3x4Rows::IDENTITY; palette_len];
    portable.evaluate(&records, &mut plain, &mut aabbs).unwrap();
    let differ = detected.iter().zip(&plain).filter(|(a, b)| a != b).count();
    if fast.kernel() == FastKernel::Portable {
        assert_eq!(differ, 0, "one kernel, the same bits");
    } else {
        assert!(differ > 0, "the {:?} kernel ran", fast.kernel());
    }
}

#[test]
fn large_batches_split_across_cores_match_the_single_instance_path() {
    let rig = rigs_of(&repo().join("assets/synthetic/rig64.glb")).remove(0);
    let n = rig.joint_count();
    let mut fast = FastCpuBackend::new(vec![rig], Vec::new(), DEFAULT_RATE).unwrap();
    let records: Vec<InstanceRecord> = (0..1001)
        .map(|i| {
            let t = (i as f32 * 0.618).fract();
            let layers = [
                Layer::clip(0, t),
                Layer {
                    weight: 0.3,
                    ..Layer::clip(1, t * 1.5)
                },
            ];
            InstanceRecord::new(0, (i * n) as u32, &Affine3A::IDENTITY, &layers).unwrap()
        })
        .collect();
    let mut palette = vec![Mat3x4Rows::IDENTITY; records.len() * n];
    let mut aabbs = vec![Aabb::EMPTY; records.len()];
    fast.evaluate(&records, &mut palette, &mut aabbs).unwrap();
    for (i, rec) in records.iter().enumerate().step_by(37) {
        let (_, one, aabb) = self::fast(&fast, rec);
        assert_eq!(&palette[i * n..(i + 1) * n], &one[..], "instance {i}");
        assert_eq!(aabbs[i], aabb, "instance {i}");
    }
}

/// Evaluations of a mixed crowd in rayon pools of 1, 2 and 3 threads give the same palette and
/// boxes, bit for bit: chunks and lane groups are cut from the instance order alone, never from
/// the thread count, and no thread's scratch reaches another's results.
#[test]
fn results_are_bitwise_identical_for_any_thread_count() {
    let (rigs, masks, records, palette_len) = common::mixed_crowd(300);
    let mut backend = FastCpuBackend::new(rigs, masks, DEFAULT_RATE).unwrap();
    common::assert_same_bits_for_any_thread_count(palette_len, records.len(), |palette, aabbs| {
        backend.evaluate_at(0.25, &records, palette, aabbs).unwrap();
    });
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

fn one_rig_backend() -> (FastCpuBackend, usize) {
    let rig = humanoid();
    let n = rig.joint_count();
    (
        FastCpuBackend::new(vec![rig], Vec::new(), DEFAULT_RATE).unwrap(),
        n,
    )
}

fn rec(rig: u32, offset: u32, layers: &[Layer]) -> InstanceRecord {
    InstanceRecord::new(rig, offset, &Affine3A::IDENTITY, layers).unwrap()
}

fn run(backend: &mut FastCpuBackend, records: &[InstanceRecord], palette: usize) -> EvalError {
    let mut p = vec![Mat3x4Rows::IDENTITY; palette];
    let mut a = vec![Aabb::EMPTY; records.len()];
    backend.evaluate(records, &mut p, &mut a).unwrap_err()
}

#[test]
fn fast_backend_rejects_an_unknown_rig() {
    let (mut b, n) = one_rig_backend();
    let err = run(&mut b, &[rec(1, 0, &[])], n);
    assert_eq!(
        err,
        EvalError::NoSuchRig {
            rig: 1,
            rig_count: 1
        }
    );
}

#[test]
fn fast_backend_rejects_an_unknown_clip() {
    let (mut b, n) = one_rig_backend();
    let err = run(&mut b, &[rec(0, 0, &[Layer::clip(9, 0.0)])], n);
    assert_eq!(
        err,
        EvalError::NoSuchClip {
            clip: 9,
            clip_count: 4
        }
    );
}

#[test]
fn fast_backend_rejects_an_unknown_mask() {
    let (mut b, n) = one_rig_backend();
    let layer = Layer {
        mask: Some(0),
        ..Layer::clip(0, 0.0)
    };
    let err = run(&mut b, &[rec(0, 0, &[layer])], n);
    assert_eq!(
        err,
        EvalError::NoSuchMask {
            mask: 0,
            mask_count: 0
        }
    );
}

#[test]
fn fast_backend_rejects_overlapping_palette_ranges() {
    let (mut b, n) = one_rig_backend();
    let err = run(&mut b, &[rec(0, 0, &[]), rec(0, n as u32 - 1, &[])], 3 * n);
    assert_eq!(
        err,
        EvalError::PaletteOverlap {
            instance: 1,
            offset: n as u32 - 1
        }
    );
}

#[test]
fn fast_backend_rejects_a_palette_too_small() {
    let (mut b, n) = one_rig_backend();
    let err = run(&mut b, &[rec(0, 0, &[]), rec(0, n as u32, &[])], 2 * n - 1);
    assert_eq!(
        err,
        EvalError::OutputSize {
            expected: 2 * n,
            found: 2 * n - 1
        }
    );
}

#[test]
fn fast_backend_rejects_an_aabb_slice_of_the_wrong_length() {
    let (mut b, n) = one_rig_backend();
    let mut p = vec![Mat3x4Rows::IDENTITY; n];
    let mut a = vec![Aabb::EMPTY; 2];
    let err = b.evaluate(&[rec(0, 0, &[])], &mut p, &mut a).unwrap_err();
    assert_eq!(
        err,
        EvalError::OutputSize {
            expected: 1,
            found: 2
        }
    );
}

#[test]
fn fast_backend_rejects_a_non_finite_layer_time() {
    let (mut b, n) = one_rig_backend();
    let err = run(&mut b, &[rec(0, 0, &[Layer::clip(0, f32::NAN)])], n);
    assert!(matches!(err, EvalError::BadLayer { .. }), "{err:?}");
}

#[test]
fn evaluate_one_rejects_short_outputs() {
    let (b, n) = one_rig_backend();
    let mut models = vec![Affine3A::IDENTITY; n - 1];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let err = b
        .evaluate_one(&rec(0, 0, &[]), &mut models, &mut palette)
        .unwrap_err();
    assert!(matches!(err, EvalError::OutputSize { .. }), "{err:?}");
}

// ---------------------------------------------------------------------------------------------
// Morph weights

#[test]
fn fast_backend_writes_the_exact_morph_weights() {
    let mut rigs = rigs_of(&repo().join("assets/synthetic/morph.glb"));
    rigs.extend(
        shared_assets()
            .iter()
            .filter(|p| p.ends_with("RobotExpressive.glb"))
            .flat_map(|p| rigs_of(p)),
    );
    let mask = JointMask::uniform(&rigs[0].skeleton, 0.4);
    let mut exact_backend = CpuBackend::new(rigs.clone(), vec![mask]).unwrap();
    let mut fast_backend = FastCpuBackend::from_exact(&exact_backend, DEFAULT_RATE);
    let mut records = Vec::new();
    let mut offset = 0;
    for (r, rig) in rigs.iter().enumerate() {
        let clips = rig.clips.clip_count() as u32;
        for k in 0..9u32 {
            let t = 0.11 * k as f32;
            let layers = [
                Layer::clip(k % clips, t),
                Layer {
                    weight: 0.35,
                    mask: (r == 0 && k % 2 == 0).then_some(0),
                    mode: if k % 3 == 0 {
                        BlendMode::Additive
                    } else {
                        BlendMode::Override
                    },
                    ..Layer::clip((k + 1) % clips, 0.8 * t)
                },
            ];
            records.push(InstanceRecord::new(r as u32, offset, &world(), &layers).unwrap());
            offset += rig.palette_entries() as u32;
        }
    }
    let len = offset as usize;
    let (mut pe, mut pf) = (
        vec![Mat3x4Rows::IDENTITY; len],
        vec![Mat3x4Rows::IDENTITY; len],
    );
    let mut aabbs = vec![Aabb::EMPTY; records.len()];
    exact_backend
        .evaluate(&records, &mut pe, &mut aabbs)
        .unwrap();
    fast_backend
        .evaluate(&records, &mut pf, &mut aabbs)
        .unwrap();
    let mut moving = 0;
    for (i, rec) in records.iter().enumerate() {
        let rig = &rigs[rec.rig as usize];
        let block =
            rec.palette_offset as usize..rec.palette_offset as usize + rig.palette_entries();
        let we = sinew::cpu::morph_weights(rig, &pe[block.clone()]);
        let wf = sinew::cpu::morph_weights(rig, &pf[block]);
        assert_eq!(
            wf, we,
            "record {i}: fast weights differ from the exact ones"
        );
        moving += usize::from(we.iter().any(|&w| w != 0.0));
    }
    assert!(moving > records.len() / 4, "{moving} records with weights");
    // `evaluate_one` writes them too, after the joint entries.
    let rig = &rigs[0];
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut block = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    fast_backend
        .evaluate_one(&records[2], &mut models, &mut block)
        .unwrap();
    let at = records[2].palette_offset as usize;
    assert_eq!(
        sinew::cpu::morph_weights(rig, &block),
        sinew::cpu::morph_weights(rig, &pe[at..at + rig.palette_entries()])
    );
}

/// Bytes of one channel of one joint pre-splatted across the lanes: three `F8` (translation,
/// scale) or four (rotation) of 32 bytes.
fn splatted_bytes(channel: Channel) -> usize {
    if channel == Channel::Rotation {
        128
    } else {
        96
    }
}

/// `bytes_read_per_joint` by hand on rig64, one clip per slot: per group, the records
/// (`InstanceRecord`), per joint its parent (2) and inverse bind in every lane (384), bounds
/// (192) for joints with vertices; per slot of one clip, each joint's channel table (8) and
/// constant channels in every lane, and eight lanes' two frame records; per slot of mixed
/// clips, per lane each joint's table, constant values (16) and animated pairs (32). Shared
/// loads count once per group: a full group spreads them over eight instances.
#[test]
fn bytes_read_per_joint_is_the_hand_count_of_lane_groups() {
    let rig = rigs_of(&repo().join("assets/synthetic/rig64.glb")).remove(0);
    let (n, entries) = (rig.joint_count(), rig.palette_entries());
    let mut backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
    assert_eq!(backend.bytes_read_per_joint(), 0.0);
    let resampled = backend.fast_rigs()[0].clips().clips().to_vec();
    // Per clip: bytes of a slot whose lanes all play it, and of one lane of a mixed slot.
    let slot_bytes = |clip: usize| {
        let (mut uniform, mut lane, mut animated) = (0, 0, 0);
        for j in 0..n {
            uniform += 8;
            lane += 8;
            for channel in Channel::ALL {
                if rig.clips.track(clip, j, channel).key_count > 1 {
                    animated += 1;
                    lane += 32;
                } else {
                    uniform += splatted_bytes(channel);
                    lane += 16;
                }
            }
        }
        let stride = resampled[clip].frame_stride as usize;
        assert_eq!(stride, animated, "clip {clip}: every keyed channel changes");
        (uniform + LANES * 2 * stride * 16, lane)
    };
    let bounds = rig.joint_bounds.iter().filter(|b| !b.is_empty()).count();
    let shared = n * (2 + 384) + bounds * 192;
    let record = size_of::<InstanceRecord>();
    let (uniform0, lane0) = slot_bytes(0);
    let (uniform1, lane1) = slot_bytes(1);
    let evaluate = |backend: &mut FastCpuBackend, layers: &dyn Fn(usize) -> Vec<Layer>, count| {
        let records: Vec<InstanceRecord> = (0..count)
            .map(|i| rec(0, (i * entries) as u32, &layers(i)))
            .collect();
        let mut palette = vec![Mat3x4Rows::IDENTITY; count * entries];
        let mut aabbs = vec![Aabb::EMPTY; count];
        backend
            .evaluate(&records, &mut palette, &mut aabbs)
            .unwrap();
        backend.bytes_read_per_joint()
    };
    let per_joint = |bytes: usize, count: usize| bytes as f64 / (count * n) as f64;
    // One clip, full weight: the rest pose is never read.
    for count in [1, LANES] {
        let got = evaluate(
            &mut backend,
            &|i| vec![Layer::clip(0, 0.1 * i as f32)],
            count,
        );
        let expected = per_joint(count * record + shared + uniform0, count);
        assert_eq!(got, expected, "{count} instances, one clip");
    }
    // A cross-fade: two slots of one clip each.
    let fade = |i: usize| {
        vec![
            Layer::clip(0, 0.1 * i as f32),
            Layer {
                weight: 0.3,
                ..Layer::clip(1, 0.2)
            },
        ]
    };
    let got = evaluate(&mut backend, &fade, LANES);
    let expected = per_joint(LANES * record + shared + uniform0 + uniform1, LANES);
    assert_eq!(got, expected, "cross-fade");
    // Lanes alternating two clips in one slot: each lane samples its own clip.
    let mixed = |i: usize| vec![Layer::clip((i % 2) as u32, 0.1 * i as f32)];
    let got = evaluate(&mut backend, &mixed, LANES);
    let lanes = (LANES / 2) * (lane0 + lane1);
    let expected = per_joint(LANES * record + shared + lanes, LANES);
    assert_eq!(got, expected, "mixed clips");
}
