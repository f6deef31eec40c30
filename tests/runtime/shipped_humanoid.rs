//! The shipped humanoid, when present

use hecs::World;
use sinew::runtime::{Animated, Animator, ClipLayer, Layers, MaskSpec, RootTranslation, Transform};

use super::common;
use super::fixtures::{DT, run};

#[test]
fn humanoid_walks_with_root_motion_and_an_upper_body_wave() {
    let path = common::repo().join("assets/humanoid.glb");
    if !path.exists() {
        eprintln!("skipping: {} not generated yet", path.display());
        return;
    }
    let asset = sinew::import_file(&path).unwrap();
    let rigs = sinew::bake_rigs(&asset).unwrap();
    let mut a = Animator::new(rigs).unwrap();
    let upper = a
        .add_mask(0, &MaskSpec::subtrees("upper", &["Spine"]))
        .unwrap();
    let mut world = World::new();
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "walk").unwrap(),
        Layers::from_layers(&[ClipLayer::new(a.clip(0, "wave").unwrap()).with_mask(upper)])
            .unwrap(),
        a.root_motion(0, "Root", RootTranslation::Xz, false)
            .unwrap(),
    ));
    let duration = a.rigs()[0].clips.clips()[a.clip(0, "walk").unwrap() as usize].duration;
    let frames = (duration / DT).round() as usize;
    run(&mut a, &mut world, frames, duration / frames as f32);
    let moved = world.get::<&Transform>(e).unwrap().translation;
    assert!(moved.z > 0.1, "walk moves the humanoid along +Z ({moved})");
    let pose = a.evaluate_cpu().unwrap();
    assert!(
        pose.palette
            .iter()
            .all(|m| m.rows.iter().flatten().all(|x| x.is_finite()))
    );
}
