//! Inertialized transitions on the CPU twin: the pose is continuous in position and velocity
//! at the start, the offset is gone at the end, and an interruption is continuous too.

use glam::Affine3A;
use sinew::cpu::{decayed, inertial_decay};
use sinew::{
    CpuBackend, InertialTransitions, Inertialization, InstanceRecord, Layer, LayerRecord,
    Mat3x4Rows, PaletteAllocator, Rig, TimeWrap, inertial_block_entries,
};

use super::fixtures::{Fixture, at, hold, linear, qv, rz, xyz};
use sinew::{Channel, INERTIAL_VELOCITY_STEP};

/// A root that walks and an arm that swings, with keys 4 s apart (steady velocities): clip 0
/// walks along +X swinging the arm up, clip 1 climbs along −Z swinging it down, clip 2 holds
/// the root and swings the arm up from below.
fn swing_rig() -> Rig {
    let mut f = Fixture::new();
    let root = f.node("root", None, at([0.0, 0.0, 0.0]));
    let arm = f.node("arm", Some(root), at([0.0, 1.0, 0.0]));
    f.node("hand", Some(arm), at([1.0, 0.0, 0.0]));
    let times = [0.0, 4.0];
    let rot = |a: f64, b: f64| linear(arm, Channel::Rotation, &times, &[qv(rz(a)), qv(rz(b))]);
    let walk = [xyz(0.0, 0.0, 0.0), xyz(4.0, 0.0, 0.0)];
    f.clip(
        "walk",
        vec![
            linear(root, Channel::Translation, &times, &walk),
            rot(0.0, 120.0),
        ],
    );
    let climb = [xyz(0.0, 1.0, 0.0), xyz(0.0, 2.0, -4.0)];
    f.clip(
        "climb",
        vec![
            linear(root, Channel::Translation, &times, &climb),
            rot(90.0, -60.0),
        ],
    );
    f.clip(
        "wave",
        vec![
            hold(root, Channel::Translation, xyz(1.0, 0.0, 1.0)),
            rot(-30.0, 60.0),
        ],
    );
    f.node_rig()
}

/// A looping layer of `clip` at clip time `time` at frame time `anchor`.
fn playing(rig: &Rig, clip: u32, time: f32, anchor: f32) -> LayerRecord {
    let period = rig.clips.clips()[clip as usize].duration;
    Layer::clip(clip, 0.0)
        .to_record()
        .with_clock(time, anchor, 1.0, TimeWrap::Loop, period)
}

fn record(layers: &[LayerRecord]) -> InstanceRecord {
    let mut rec = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
    rec.layer_count = layers.len() as u32;
    rec.layers[..layers.len()].copy_from_slice(layers);
    rec
}

/// The inertialization block starts after the record's palette block (entry 0 on).
fn transition(rig: &Rig, start: f32, duration: f32, serial: u32, chained: bool) -> Inertialization {
    Inertialization {
        block: rig.palette_entries() as u32,
        serial,
        start,
        duration,
        outgoing: 0,
        chained,
    }
}

/// A CPU backend and the palette it keeps (the inertialization block lives in it).
struct Twin {
    backend: CpuBackend,
    palette: Vec<Mat3x4Rows>,
}

impl Twin {
    fn new(rig: &Rig) -> Self {
        let len = rig.palette_entries() + inertial_block_entries(rig.joint_count() as u32) as usize;
        Self {
            backend: CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap(),
            palette: vec![Mat3x4Rows::IDENTITY; len],
        }
    }
}

/// Every palette entry of `rec` at `now` as 12 numbers (the skinning matrices' rows).
fn pose(twin: &mut Twin, rec: &InstanceRecord, now: f32) -> Vec<f32> {
    let n = twin.backend.rigs()[0].joint_count();
    let mut aabbs = [sinew::Aabb::EMPTY];
    twin.backend
        .evaluate_at(
            now,
            std::slice::from_ref(rec),
            &mut twin.palette,
            &mut aabbs,
        )
        .unwrap();
    twin.palette[..n]
        .iter()
        .flat_map(|m| m.rows.iter().flat_map(|r| *r))
        .collect()
}

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn velocity(a: &[f32], b: &[f32], dt: f32) -> Vec<f32> {
    a.iter().zip(b).map(|(x, y)| (y - x) / dt).collect()
}

/// Velocities after a start are measured over this step (forward differences of the palette);
/// before it over [`INERTIAL_VELOCITY_STEP`], as the capture measures them.
const STEP: f32 = 1e-4;
const BACK: f32 = INERTIAL_VELOCITY_STEP;

#[test]
fn quintic_decay_starts_at_the_offset_and_its_velocity_and_ends_at_rest() {
    assert_eq!(inertial_decay(0.0), (1.0, 0.0));
    assert_eq!(inertial_decay(1.0), (0.0, 0.0));
    assert_eq!(inertial_decay(1.5), (0.0, 0.0));
    let (x0, v0) = (
        glam::Vec3::new(0.3, -0.2, 1.0),
        glam::Vec3::new(-2.0, 0.5, 0.1),
    );
    // Forward differences: the start acceleration adds about a₀ h / 2 (a₀ ≈ −125 here).
    let h = 1e-4;
    let start = (decayed(x0, v0, h, 0.4) - decayed(x0, v0, 0.0, 0.4)) / h;
    assert!(
        (start - v0).length() < 0.02,
        "start velocity {start} for {v0}"
    );
    // p = (1 − s)⁴ (1 + 4s) and q = s (1 − s)⁴: flat at the end.
    let h = 4e-3;
    let end = (decayed(x0, v0, 0.4, 0.4) - decayed(x0, v0, 0.4 - h, 0.4)) / h;
    assert!(end.length() < 1e-4, "end velocity {end}");
    assert_eq!(decayed(x0, v0, 0.4, 0.4), glam::Vec3::ZERO);
}

#[test]
fn an_inertialized_start_is_continuous_in_position_and_velocity() {
    let rig = swing_rig();
    let mut backend = Twin::new(&rig);
    let t0 = 0.5;
    let before = record(&[playing(&rig, 0, 0.2, 0.0)]);
    let incoming = record(&[playing(&rig, 1, 0.1, t0)]);
    let rec = incoming
        .inertialized(&before.layers[..1], transition(&rig, t0, 0.4, 1, false))
        .unwrap();
    let out_prev = pose(&mut backend, &before, t0 - BACK);
    let out_now = pose(&mut backend, &before, t0);
    let in_now = pose(&mut backend, &rec, t0);
    let in_next = pose(&mut backend, &rec, t0 + STEP);
    let cut = pose(&mut backend, &incoming, t0);
    let jump = max_diff(&out_now, &in_now);
    assert!(jump < 1e-4, "position jumps by {jump}");
    assert!(
        max_diff(&out_now, &cut) > 0.05,
        "the clips should differ at the start"
    );
    let v_out = velocity(&out_prev, &out_now, BACK);
    let v_in = velocity(&in_now, &in_next, STEP);
    let cut_next = pose(&mut backend, &incoming, t0 + STEP);
    let v_cut = velocity(&cut, &cut_next, STEP);
    let (mismatch, cut_mismatch) = (max_diff(&v_out, &v_in), max_diff(&v_out, &v_cut));
    assert!(
        mismatch < 0.1 * cut_mismatch,
        "velocity mismatch {mismatch}, a cut's {cut_mismatch}"
    );
}

#[test]
fn an_inertialized_offset_reaches_zero_at_the_end() {
    let rig = swing_rig();
    let mut backend = Twin::new(&rig);
    let (t0, duration) = (0.5, 0.4);
    let before = record(&[playing(&rig, 0, 0.2, 0.0)]);
    let incoming = record(&[playing(&rig, 1, 0.1, t0)]);
    let rec = incoming
        .inertialized(
            &before.layers[..1],
            transition(&rig, t0, duration, 1, false),
        )
        .unwrap();
    let mid = t0 + 0.5 * duration;
    assert!(
        max_diff(
            &pose(&mut backend, &rec, mid),
            &pose(&mut backend, &incoming, mid)
        ) > 1e-3
    );
    let late = t0 + 0.99 * duration;
    let left = max_diff(
        &pose(&mut backend, &rec, late),
        &pose(&mut backend, &incoming, late),
    );
    assert!(left < 1e-3, "offset {left} just before the end");
    let end = t0 + duration;
    let left = max_diff(
        &pose(&mut backend, &rec, end),
        &pose(&mut backend, &incoming, end),
    );
    assert!(left < 1e-6, "offset {left} at the end");
    for now in [end + 0.01, end + 0.3] {
        assert_eq!(
            pose(&mut backend, &rec, now),
            pose(&mut backend, &incoming, now),
            "at {now}"
        );
    }
    // The block holds the capture: its header names the transition.
    let header = backend.palette[rig.palette_entries()].rows[0];
    assert_eq!(header, [1.0, t0, duration, sinew::INERTIAL_TAG]);
}

#[test]
fn interrupting_an_inertialized_transition_is_continuous() {
    let rig = swing_rig();
    let mut backend = Twin::new(&rig);
    let (t0, t1) = (0.5, 0.7);
    let a = record(&[playing(&rig, 0, 0.2, 0.0)]);
    let b = record(&[playing(&rig, 1, 0.1, t0)]);
    let first = b
        .inertialized(&a.layers[..1], transition(&rig, t0, 0.5, 1, false))
        .unwrap();
    let c = record(&[playing(&rig, 2, 0.6, t1)]);
    let second = c
        .inertialized(&b.layers[..1], transition(&rig, t1, 0.5, 2, true))
        .unwrap();
    pose(&mut backend, &first, t0);
    let prev = pose(&mut backend, &first, t1 - BACK);
    let now = pose(&mut backend, &first, t1);
    let next_pose = pose(&mut backend, &second, t1);
    let next = pose(&mut backend, &second, t1 + STEP);
    let jump = max_diff(&now, &next_pose);
    assert!(jump < 1e-4, "position jumps by {jump} at the interruption");
    let v_before = velocity(&prev, &now, BACK);
    let v_after = velocity(&next_pose, &next, STEP);
    let cut = pose(&mut backend, &c, t1);
    let v_cut = velocity(&cut, &pose(&mut backend, &c, t1 + STEP), STEP);
    let (mismatch, cut_mismatch) = (max_diff(&v_before, &v_after), max_diff(&v_before, &v_cut));
    assert!(
        mismatch < 0.1 * cut_mismatch,
        "velocity mismatch {mismatch}, a cut's {cut_mismatch}"
    );
    // Without the held offset the interruption would pop back to clip 1's pose.
    let mut fresh = Twin::new(&rig);
    let unchained = c
        .inertialized(&b.layers[..1], transition(&rig, t1, 0.5, 2, false))
        .unwrap();
    let pop = max_diff(&now, &pose(&mut fresh, &unchained, t1));
    assert!(pop > 1e-2, "an unchained interruption jumps by only {pop}");
}

#[test]
fn inertial_transitions_chain_an_interruption_and_free_their_blocks() {
    let rig = swing_rig();
    let n = rig.joint_count();
    let mut palette = PaletteAllocator::with_capacity(0);
    let own = palette.allocate(rig.palette_entries() as u32).unwrap();
    assert_eq!(own.offset, 0, "the records' palette block");
    let mut transitions = InertialTransitions::new();
    let (t0, t1) = (0.5, 0.7);
    let a = record(&[playing(&rig, 0, 0.2, 0.0)]);
    let b = record(&[playing(&rig, 1, 0.1, t0)]);
    let first = transitions.start(&mut palette, &a, b, n, t0, 0.5);
    let t = first.inertialization().expect("inertialized");
    assert!(!t.chained);
    assert_eq!(first.outgoing_layers(), &a.layers[..1]);
    let c = record(&[playing(&rig, 2, 0.6, t1)]);
    let second = transitions.start(&mut palette, &first, c, n, t1, 0.5);
    let t2 = second.inertialization().expect("inertialized");
    assert!(t2.chained, "an interruption while the offset decays chains");
    assert_eq!((t2.block, t2.serial), (t.block, t.serial + 1));
    assert_eq!(second.outgoing_layers(), &b.layers[..1]);
    let mut twin = Twin::new(&rig);
    twin.palette
        .resize(palette.capacity() as usize, Mat3x4Rows::IDENTITY);
    pose(&mut twin, &first, t0);
    let before = pose(&mut twin, &first, t1);
    let jump = max_diff(&before, &pose(&mut twin, &second, t1));
    assert!(jump < 1e-4, "position jumps by {jump} at the interruption");
    // Kept while decaying; its block freed once done.
    assert_eq!(
        transitions.finish(&mut palette, second, n, t1 + 0.2),
        second
    );
    let done = transitions.finish(&mut palette, second, n, t1 + 0.6);
    assert!(done.inertialization().is_none());
    assert_eq!(done.used_layers(), c.used_layers());
    assert_eq!(palette.used(), own.len);
    // A transition from an empty record, or one whose layers do not fit, cuts.
    let cut = transitions.start(&mut palette, &InstanceRecord::EMPTY, c, n, 2.0, 0.5);
    assert!(cut.inertialization().is_none());
    let wide = record(&[playing(&rig, 0, 0.0, 0.0); 3]);
    assert!(
        transitions
            .start(&mut palette, &wide, c, n, 2.0, 0.5)
            .inertialization()
            .is_none()
    );
    assert_eq!(palette.used(), own.len);
}
