//! Per evaluator: the frame `sinew crowd` draws is the palette the timed evaluator produced on
//! its last frame, and the report states what that evaluator applied.

use clap::Parser;
use sinew::{Aabb, CpuBackend, FastCpuBackend, GpuContext, Mat3x4Rows};

use super::timed::{Evaluated, Evaluator, TimedRun};
use super::{CrowdArgs, load_rig};
use crate::cli::{Cli, Command};

/// A headless device, or `None` (the test skips) where there is none and `REQUIRE_GPU` is unset.
fn context() -> Option<GpuContext> {
    match GpuContext::new_headless() {
        Ok(context) => Some(context),
        Err(e) if std::env::var_os("REQUIRE_GPU").is_some() => panic!("REQUIRE_GPU: {e}"), // ok: unit test
        Err(e) => {
            eprintln!("skipping: no GPU adapter ({e})");
            None
        }
    }
}

fn crowd_args(flags: &[&str]) -> CrowdArgs {
    let line = ["sinew", "crowd", "--characters", "12", "--frames", "3"];
    let cli = Cli::try_parse_from(line.iter().chain(flags)).expect("valid flags"); // ok: unit test
    match cli.command {
        Command::Crowd(args) => args,
        _ => unreachable!("parsed a crowd command"), // ok: unit test
    }
}

fn time(context: &GpuContext, flags: &[&str]) -> (CrowdArgs, TimedRun) {
    let args = crowd_args(flags);
    let rig = load_rig(None, &args.import.settings()).expect("the built-in rig"); // ok: unit test
    let run = args.time_frames(context, rig, None).expect("timed frames"); // ok: unit test
    (args, run)
}

/// The palette the rendered frame reads (the GPU backend's buffer, read back, or the CPU
/// evaluator's kept output) and the records it is laid out by.
fn drawn(run: &TimedRun) -> (Vec<Mat3x4Rows>, Vec<sinew::InstanceRecord>) {
    match (&run.evaluated, &run.gpu) {
        (Evaluated::Gpu, Some(g)) => {
            let palette = g.read_palette(0..g.palette_capacity()).expect("palette"); // ok: unit test
            let slots = run.crowd.animator.slot_records().len() as u32;
            // The records as resident on the GPU (root motion moved their worlds there).
            let records = g.read_resident(0..slots).expect("records"); // ok: unit test
            (palette, records)
        }
        (Evaluated::Cpu { palette, bounds }, None) => {
            let records = run.crowd.animator.records().to_vec();
            assert_eq!(bounds.len(), records.len());
            (palette.clone(), records)
        }
        _ => panic!("the kept palette does not match the evaluator that ran"), // ok: unit test
    }
}

/// `palette` evaluated again by `cpu` at the run's frame time, starting from `palette` (which
/// holds the IK targets, inputs of the evaluation).
fn evaluate_with(
    cpu: &mut CpuBackend,
    run: &TimedRun,
    palette: &[Mat3x4Rows],
    records: &[sinew::InstanceRecord],
) -> Vec<Mat3x4Rows> {
    let mut out = palette.to_vec();
    let live: Vec<_> = records.iter().copied().filter(|r| !r.is_empty()).collect();
    let mut bounds = vec![Aabb::EMPTY; live.len()];
    cpu.evaluate_at(
        run.crowd.animator.frame_time(),
        &live,
        &mut out,
        &mut bounds,
    )
    .expect("CPU evaluation"); // ok: unit test
    out
}

fn largest_difference(a: &[Mat3x4Rows], b: &[Mat3x4Rows]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| {
            bytemuck::cast_ref::<_, [f32; 12]>(x)
                .iter()
                .zip(bytemuck::cast_ref::<_, [f32; 12]>(y))
                .map(|(p, q)| (p - q).abs())
        })
        .fold(0.0, f32::max)
}

#[test]
fn the_fast_cpu_frame_is_the_fast_evaluators_output_with_the_heads_turned() {
    let Some(context) = context() else { return };
    let (args, run) = time(&context, &["--backend", "cpu", "--resampled"]);
    assert_eq!(run.evaluator, Evaluator::CpuFast);
    assert!(run.applied.look_at);
    assert_eq!(run.json(&args, &context)["look_at"], true);
    assert_eq!(run.json(&args, &context)["evaluator"], "FastCpuBackend");
    let (palette, records) = drawn(&run);
    let mut fast = FastCpuBackend::new(
        run.crowd.animator.rigs().to_vec(),
        run.crowd.animator.masks().to_vec(),
        sinew::cpu::fast::DEFAULT_RATE,
    )
    .expect("fast backend"); // ok: unit test
    // The IK entries (the look-at targets) are inputs: kept; every joint entry is rewritten.
    let mut expected = palette.clone();
    let joints = run.rig.joint_count();
    for r in &records {
        let at = r.palette_offset as usize;
        expected[at..at + joints].fill(Mat3x4Rows::IDENTITY);
    }
    let mut bounds = vec![Aabb::EMPTY; records.len()];
    fast.evaluate_at(
        run.crowd.animator.frame_time(),
        &records,
        &mut expected,
        &mut bounds,
    )
    .expect("fast evaluation"); // ok: unit test
    assert_eq!(largest_difference(&palette, &expected), 0.0);
    // Not the exact evaluator's palette (resampled clips differ from the keys, if slightly).
    let masks = run.crowd.animator.masks().to_vec();
    let mut exact = CpuBackend::new(run.crowd.animator.rigs().to_vec(), masks).unwrap(); // ok: unit test
    let exact = evaluate_with(&mut exact, &run, &palette, &records);
    assert!(largest_difference(&palette, &exact) > 0.0);
    assert_heads_turned(&run, &palette, &records);
}

/// The look-at turned heads: the rig evaluated without its constraint gives another palette.
fn assert_heads_turned(run: &TimedRun, palette: &[Mat3x4Rows], records: &[sinew::InstanceRecord]) {
    let mut plain = run.crowd.animator.rigs().to_vec();
    plain[0].set_ik(Vec::new()).unwrap(); // ok: unit test
    let masks = run.crowd.animator.masks().to_vec();
    let mut unconstrained = CpuBackend::new(plain, masks).unwrap(); // ok: unit test
    let turned_away = evaluate_with(&mut unconstrained, run, palette, records);
    assert!(largest_difference(palette, &turned_away) > 1e-3);
}

#[test]
fn the_exact_cpu_frame_is_the_animators_output_with_the_heads_turned() {
    let Some(context) = context() else { return };
    let (args, run) = time(&context, &["--backend", "cpu"]);
    assert_eq!(run.evaluator, Evaluator::CpuExact);
    assert!(run.applied.look_at);
    assert_eq!(run.json(&args, &context)["look_at"], true);
    let (palette, records) = drawn(&run);
    let rigs = run.crowd.animator.rigs().to_vec();
    let mut cpu = CpuBackend::new(rigs, run.crowd.animator.masks().to_vec()).unwrap(); // ok: unit test
    let expected = evaluate_with(&mut cpu, &run, &palette, &records);
    assert_eq!(largest_difference(&palette, &expected), 0.0);
    assert_heads_turned(&run, &palette, &records);
}

/// The CPU twin of the kernel that ran: exact keys, or the same compressed clips, reading the
/// animator's retarget maps.
fn kernel_twin(run: &TimedRun, evaluator: Evaluator) -> CpuBackend {
    let rigs = run.crowd.animator.rigs().to_vec();
    let masks = run.crowd.animator.masks().to_vec();
    let mut twin = match evaluator {
        Evaluator::GpuCompressed => CpuBackend::with_compressed(rigs, masks),
        _ => CpuBackend::new(rigs, masks),
    }
    .unwrap(); // ok: unit test
    twin.set_retargets(run.crowd.animator.retarget_maps())
        .unwrap(); // ok: unit test
    twin
}

#[test]
fn gpu_frames_are_the_kernels_output_for_exact_and_compressed_clips() {
    let Some(context) = context() else { return };
    for (flags, evaluator) in [
        (&[][..], Evaluator::GpuExact),
        (&["--resampled"][..], Evaluator::GpuCompressed),
    ] {
        let (args, run) = time(&context, flags);
        assert_eq!(run.evaluator, evaluator);
        assert!(run.applied.look_at);
        let json = run.json(&args, &context);
        assert_eq!(json["clips"], evaluator.clips());
        assert_eq!(json["lod"], false);
        assert_eq!(json["update_every"], 1);
        let (palette, records) = drawn(&run);
        let mut twin = kernel_twin(&run, evaluator);
        let expected = evaluate_with(&mut twin, &run, &palette, &records);
        let error = largest_difference(&palette, &expected);
        assert!(error < 2e-4, "{flags:?}: {error}");
    }
}

/// `--clips-from`: the humanoid plays its own clips through a map onto itself, every other
/// character mirrored, retargeted per character in the kernel (exact and compressed) or the
/// animator's CPU backend; the drawn palette is the CPU backend's reading the animator's maps.
#[test]
fn retargeted_frames_are_the_cpu_backends_through_the_same_maps() {
    let Some(context) = context() else { return };
    for (flags, evaluator, retargeting) in [
        (&["--mirror"][..], Evaluator::GpuExact, "kernel"),
        (
            &["--mirror", "--resampled"][..],
            Evaluator::GpuCompressed,
            "kernel",
        ),
        (
            &["--mirror", "--backend", "cpu"][..],
            Evaluator::CpuExact,
            "cpu",
        ),
    ] {
        let args = crowd_args(&[&["--clips-from", "humanoid.glb"][..], flags].concat());
        let rig = load_rig(None, &args.import.settings()).expect("the built-in rig"); // ok: unit test
        let map =
            sinew::baked::retarget_map::RetargetMap::build(&rig.skeleton, &rig.skeleton, None)
                .expect("a map onto itself"); // ok: unit test
        let retarget = super::KernelRetarget {
            source: rig.clone(),
            map,
            mirror: true,
        };
        let run = args
            .time_frames(&context, rig, Some(retarget))
            .expect("timed frames"); // ok: unit test
        assert_eq!(run.evaluator, evaluator);
        let json = run.json(&args, &context);
        assert_eq!(json["retargeting"], retargeting);
        assert_eq!(json["mirrored_characters"], 6);
        let (palette, records) = drawn(&run);
        let live = records.iter().filter(|r| !r.is_empty());
        assert!(
            live.clone()
                .all(|r| r.used_layers().iter().all(|l| l.retarget().is_some()))
        );
        let mut twin = kernel_twin(&run, evaluator);
        let expected = evaluate_with(&mut twin, &run, &palette, &records);
        let error = largest_difference(&palette, &expected);
        assert!(error < 2e-4, "{flags:?}: {error}");
    }
}

#[test]
fn lod_flags_report_the_policy_the_kernel_applied() {
    let Some(context) = context() else { return };
    let (args, run) = time(&context, &["--lod", "--update-every", "2", "--skip-culled"]);
    assert_eq!(
        (
            run.applied.lod,
            run.applied.update_every,
            run.applied.skip_culled
        ),
        (true, 2, true)
    );
    let json = run.json(&args, &context);
    assert_eq!(json["lod"], true);
    assert_eq!(json["skip_culled"], true);
}

/// `--budget-ms` below what any policy reaches: the loop moves the LOD distances in (where the
/// adapter has timestamps; else holds the policy) and reports the kernel's level per character.
#[test]
fn a_budget_moves_the_policy_and_reports_the_kernels_levels() {
    let Some(context) = context() else { return };
    let (args, run) = time(&context, &["--budget-ms", "0.001"]);
    let b = run.budget.expect("a budget report"); // ok: unit test
    assert_eq!(b.target_ms, 0.001);
    assert_eq!(b.levels.iter().sum::<usize>(), 12);
    if b.timestamps {
        assert!(b.distance_scale < 1.0, "the distances did not move: {b:?}");
    } else {
        assert_eq!((b.distance_scale, b.rate_shift), (1.0, 0));
    }
    let json = run.json(&args, &context);
    assert_eq!(
        json["budget"]["characters_per_level"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
    assert_eq!(json["lod"], true);
    let cpu = crowd_args(&["--budget-ms", "5", "--backend", "cpu"]);
    assert!(cpu.check().is_err(), "--budget-ms needs the GPU backend");
    assert!(crowd_args(&["--budget-ms=-1"]).check().is_err());
    assert!(crowd_args(&["--budget-ms", "0"]).check().is_err());
}

/// Records the animator writes over `frames` updates of a crowd of `characters` steered by
/// `steering`, as on the GPU backend (event-driven, root motion on the GPU).
fn records_written(steering: super::Steering, characters: usize, frames: usize) -> usize {
    let args = crowd_args(&[]);
    let rig = load_rig(None, &args.import.settings()).expect("the built-in rig"); // ok: unit test
    let scheduling = sinew::runtime::Scheduling::EventDriven;
    let mut crowd = super::Crowd::new(rig, None, characters, scheduling, steering).expect("crowd"); // ok: unit test
    let mut written = 0;
    for _ in 0..frames {
        crowd.control().expect("control"); // ok: unit test
        written += crowd.animator.changed_slots().len();
    }
    written
}

#[test]
fn ramped_steering_writes_a_record_per_region_where_inputs_set_each_frame_write_one_per_frame() {
    let (characters, frames) = (40, 600);
    let ramps = records_written(super::Steering::Ramps, characters, frames);
    let by_frame = records_written(super::Steering::Frames, characters, frames);
    // Ten seconds: every character changes pace two to six times, crossing at most two
    // regions of the gait space each time.
    assert!(ramps <= characters * 6 * 3, "ramps wrote {ramps} records");
    assert!(
        ramps * 5 < by_frame,
        "ramps wrote {ramps} records, inputs set each frame {by_frame}"
    );
}

#[test]
fn inertialized_steering_writes_fewer_records_than_cross_fades() {
    let (characters, frames) = (40, 600);
    let fades = records_written(super::Steering::Machine, characters, frames);
    let inertialized = records_written(super::Steering::Inertialized, characters, frames);
    // Ten seconds: every character changes pace two to six times, through one or two
    // transitions. A cross-fade writes its start and its end; an inertialized transition its
    // start (its end changes no pose; the next one may fire at the following update).
    assert!(
        inertialized * 4 < fades * 3,
        "inertialized transitions wrote {inertialized} records, cross-fades {fades}"
    );
}
