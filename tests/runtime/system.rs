//! The system

use std::collections::VecDeque;

use hecs::World;
use sinew::Rig;
use sinew::runtime::{Animator, Playback, RuntimeError};

use super::fixtures::{DT, animator, clip_id, record, spawn_playing, test_asset, test_rig};

#[test]
fn spawn_despawn_churn_keeps_the_palette_and_tracking_flat() {
    let mut a = animator();
    let walk = clip_id(&a, "walk");
    let mut world = World::new();
    let mut live = VecDeque::new();
    let mut baseline = None;
    for i in 0..100_000u32 {
        let e = spawn_playing(
            &mut world,
            Playback::new(walk).with_speed(1.0 + (i % 7) as f32 * 0.1),
        );
        live.push_back(e);
        if live.len() > 32 {
            world.despawn(live.pop_front().unwrap()).unwrap();
        }
        a.update(&mut world, DT).unwrap();
        assert_eq!(a.records().len(), live.len());
        let state = (
            a.palette().capacity(),
            a.palette().used(),
            a.tracked_entities(),
        );
        if i == 1_000 {
            baseline = Some(state);
        } else if let Some(b) = baseline {
            assert_eq!(state, b, "cycle {i}: (capacity, used, tracked) drifted");
        }
    }
    assert_eq!(a.tracked_entities(), 32);
    assert_eq!(a.palette().used(), 32 * a.rigs()[0].joint_count() as u32);
    // The records still evaluate.
    a.evaluate_cpu().unwrap();
}

#[test]
fn palette_blocks_of_live_entities_never_overlap() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let entities: Vec<_> = (0..20)
        .map(|_| spawn_playing(&mut world, Playback::new(walk)))
        .collect();
    a.update(&mut world, DT).unwrap();
    for e in entities.iter().step_by(3) {
        world.despawn(*e).unwrap();
    }
    for _ in 0..5 {
        spawn_playing(&mut world, Playback::new(walk));
    }
    a.update(&mut world, DT).unwrap();
    let n = a.rigs()[0].joint_count() as u32;
    let mut offsets: Vec<u32> = a.records().iter().map(|r| r.palette_offset).collect();
    offsets.sort_unstable();
    assert!(offsets.windows(2).all(|w| w[1] - w[0] >= n));
    a.evaluate_cpu().unwrap();
}

#[test]
fn invalid_inputs_are_typed_errors() {
    let mut a = animator();
    let mut world = World::new();
    assert!(matches!(
        a.update(&mut world, f32::NAN),
        Err(RuntimeError::InvalidValue { .. })
    ));
    assert!(matches!(
        a.clip(0, "swim"),
        Err(RuntimeError::UnknownClip { .. })
    ));
    assert!(matches!(
        a.joint(0, "Tail"),
        Err(RuntimeError::UnknownJoint { .. })
    ));
    assert!(matches!(
        a.clip(3, "walk"),
        Err(RuntimeError::UnknownRig { .. })
    ));
    assert!(matches!(
        a.add_event(0, "walk", 2.0, "late"),
        Err(RuntimeError::InvalidValue { .. })
    ));
    // A component naming a clip the rig lacks: reported, and the entity holds its rest pose.
    let e = spawn_playing(&mut world, Playback::new(99));
    assert!(matches!(
        a.update(&mut world, DT),
        Err(RuntimeError::InvalidComponent { .. })
    ));
    assert_eq!(record(&a, &world, e).layer_count, 0);
    a.evaluate_cpu().unwrap();
}

/// Checks that `Animator::new` refuses `rig` (renamed `broken`, after a valid rig) with
/// [`RuntimeError::InvalidRig`] naming it, its reason containing `needle`.
fn invalid_rig(mut rig: Rig, needle: &str) {
    let name = "broken".to_string();
    rig.name = name.clone();
    let err = Animator::new(vec![test_rig(), rig]).unwrap_err();
    assert!(
        matches!(&err, RuntimeError::InvalidRig { rig, reason } if *rig == name && reason.contains(needle)),
        "expected InvalidRig naming {name:?} and {needle:?}, got {err:?}"
    );
    assert!(
        err.to_string().contains(&name),
        "message {err} names the rig"
    );
}

#[test]
fn animator_refuses_a_rig_whose_clips_cover_another_skeleton() {
    let mut rig = test_rig();
    rig.clips = Rig::from_nodes(&test_asset(), &[2], "spine").unwrap().clips;
    invalid_rig(rig, "the clips cover 3 joints, the skeleton has 6");
}

#[test]
fn animator_refuses_a_rig_with_too_few_joint_bounds() {
    let mut rig = test_rig();
    rig.joint_bounds.pop();
    invalid_rig(rig, "5 joint bounds for 6 joints");
}

#[test]
fn animator_refuses_a_rig_whose_skin_joint_lies_outside_its_skeleton() {
    let mut rig = test_rig();
    rig.skins[0].joints.push(40);
    invalid_rig(rig, "skin 0 joint 6 is joint 40");
}
