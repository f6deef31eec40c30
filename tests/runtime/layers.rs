//! Layers

use hecs::World;
use sinew::runtime::{ClipLayer, Layers, MaskSpec, Playback, RuntimeError};
use sinew::{BlendMode, MAX_LAYERS};

use super::fixtures::{
    DT, animator, assert_close, clip_id, joint, models, record, run, spawn_playing,
};

#[test]
fn masked_override_layer_moves_only_its_subtree() {
    let mut a = animator();
    let upper = a
        .add_mask(0, &MaskSpec::subtrees("upper", &["Chest"]))
        .unwrap();
    let mut world = World::new();
    let idle = clip_id(&a, "idle");
    let wave = clip_id(&a, "wave");
    let plain = spawn_playing(&mut world, Playback::new(idle));
    let waving = spawn_playing(&mut world, Playback::new(idle));
    world
        .insert_one(
            waving,
            Layers::from_layers(&[ClipLayer::new(wave).with_mask(upper)]).unwrap(),
        )
        .unwrap();
    run(&mut a, &mut world, 30, DT);
    let rec = record(&a, &world, waving);
    assert_eq!(rec.layer_count, 2);
    assert_eq!(rec.layers[1].to_layer_at(0.0).mask, Some(upper));
    let (p, w) = (models(&a, &world, plain), models(&a, &world, waving));
    let arm = joint(&a, "Arm");
    let leg = joint(&a, "Leg");
    assert!(!p[arm].abs_diff_eq(w[arm], 1e-3), "the arm waves");
    assert!(p[leg].abs_diff_eq(w[leg], 1e-6), "the leg does not");
}

#[test]
fn additive_layer_adds_its_delta_at_its_weight() {
    let mut a = animator();
    let mut world = World::new();
    let idle = clip_id(&a, "idle");
    let breathe = clip_id(&a, "breathe");
    let e = spawn_playing(&mut world, Playback::new(idle).with_time(0.0));
    world
        .insert_one(
            e,
            Layers::from_layers(&[ClipLayer::additive(breathe).with_weight(0.5)]).unwrap(),
        )
        .unwrap();
    world.get::<&mut Playback>(e).unwrap().pause();
    // Breathe runs 0.5 s: the chest is 0.05 above rest there; half of it at weight 0.5.
    a.update(&mut world, 0.5).unwrap();
    let rec = record(&a, &world, e);
    assert_eq!(rec.layers[1].to_layer_at(0.0).mode, BlendMode::Additive);
    let m = models(&a, &world, e);
    let chest = joint(&a, "Chest");
    let spine = joint(&a, "Spine");
    let local = m[spine].inverse() * m[chest];
    assert_close(local.translation.y, 0.3 + 0.025, 1e-5, "chest height");
}

#[test]
fn layer_weight_fades_to_its_target() {
    let mut a = animator();
    let mut world = World::new();
    let e = spawn_playing(&mut world, Playback::new(clip_id(&a, "idle")));
    let mut layer = ClipLayer::new(clip_id(&a, "wave")).with_weight(0.0);
    layer.fade_weight(1.0, 0.5);
    world
        .insert_one(e, Layers::from_layers(&[layer]).unwrap())
        .unwrap();
    run(&mut a, &mut world, 5, 0.05);
    assert_close(
        record(&a, &world, e).layers[1].weight,
        0.5,
        1e-5,
        "half way",
    );
    run(&mut a, &mut world, 10, 0.05);
    assert_eq!(record(&a, &world, e).layers[1].weight, 1.0);
}

#[test]
fn too_many_layers_and_unknown_mask_joints_are_errors() {
    let a = animator();
    let layers = [ClipLayer::new(0); MAX_LAYERS];
    assert!(matches!(
        Layers::from_layers(&layers),
        Err(RuntimeError::TooManyLayers { .. })
    ));
    let mut a = a;
    assert!(matches!(
        a.add_mask(0, &MaskSpec::subtrees("bad", &["Tail"])),
        Err(RuntimeError::UnknownJoint { .. })
    ));
}
