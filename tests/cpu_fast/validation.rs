//! Input validation: the fast backend rejects what `CpuBackend` rejects, also on a frame after
//! one whose records it accepted.

use super::*;

fn one_rig_backend() -> (FastCpuBackend, usize) {
    let rig = humanoid();
    let n = rig.joint_count();
    (
        FastCpuBackend::new(vec![rig], Vec::new(), DEFAULT_RATE).unwrap(),
        n,
    )
}

pub(crate) fn rec(rig: u32, offset: u32, layers: &[Layer]) -> InstanceRecord {
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

/// Records accepted on one frame are not checked again while they stay the same bytes: a frame
/// that changes one of them, shrinks the palette or adds a rig is checked in full.
#[test]
fn records_changed_after_an_accepted_frame_are_checked_again() {
    let (mut b, _) = one_rig_backend();
    let n = b.rigs()[0].palette_entries();
    let mut records = vec![rec(0, 0, &[Layer::clip(0, 0.0)]), rec(0, n as u32, &[])];
    let mut p = vec![Mat3x4Rows::IDENTITY; 2 * n];
    let mut a = vec![Aabb::EMPTY; 2];
    b.evaluate(&records, &mut p, &mut a).unwrap();
    b.evaluate(&records, &mut p, &mut a).unwrap();

    records[1].layers[0].clip = 9;
    records[1].layer_count = 1;
    let err = b.evaluate(&records, &mut p, &mut a).unwrap_err();
    assert_eq!(
        err,
        EvalError::NoSuchClip {
            clip: 9,
            clip_count: 4
        }
    );
    // The rejected frame is not remembered as checked.
    assert_eq!(b.evaluate(&records, &mut p, &mut a).unwrap_err(), err);

    records[1] = rec(0, n as u32, &[]);
    b.evaluate(&records, &mut p, &mut a).unwrap();
    let err = b
        .evaluate(&records, &mut p[..2 * n - 1], &mut a)
        .unwrap_err();
    assert_eq!(
        err,
        EvalError::OutputSize {
            expected: 2 * n,
            found: 2 * n - 1
        }
    );

    // Same records, same palette: accepted again, and the palette is written.
    p.fill(Mat3x4Rows::IDENTITY);
    b.evaluate(&records, &mut p, &mut a).unwrap();
    assert!(p[..n].iter().any(|m| *m != Mat3x4Rows::IDENTITY));
}
