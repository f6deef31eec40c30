//! Root motion of an animator playing compressed clips

use glam::{Affine3A, Vec3};
use hecs::{Entity, World};
use sinew::cpu::ClipSource;
use sinew::runtime::{Animated, Animator, RootMotion, RootTranslation, Transform};
use sinew::{CpuBackend, Mat3x4Rows};

use super::common;
use super::fixtures::{DT, run};

/// Float tolerance of a displacement measured two ways (metres).
const TOLERANCE: f32 = 2e-6;

/// The humanoid's rigs, or `None` when the asset is not generated yet.
fn humanoid() -> Option<Vec<sinew::Rig>> {
    let path = common::repo().join("assets/humanoid.glb");
    if !path.exists() {
        eprintln!("skipping: {} not generated yet", path.display());
        return None;
    }
    Some(sinew::bake_rigs(&sinew::import_file(&path).unwrap()).unwrap())
}

fn spawn(a: &Animator, world: &mut World, gpu: bool) -> Entity {
    let root = a
        .root_motion(0, "Root", RootTranslation::Xyz, false)
        .unwrap();
    let root = if gpu { root.on_gpu() } else { root };
    world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.playback(0, "walk").unwrap(),
        root,
    ))
}

/// The root joint's model translation in `entity`'s pose at the animator's frame time, from
/// `source`, with nothing held (the motion stays in the pose).
fn root_translation(a: &Animator, world: &World, entity: Entity, source: ClipSource) -> Vec3 {
    let rec = a.record_of(world, entity).unwrap().resolved(a.frame_time());
    let rig = &a.rigs()[rec.rig as usize];
    let layers: Vec<_> = rec.layers_at(0.0).collect();
    let n = rig.joint_count();
    let mut models = vec![Affine3A::IDENTITY; n];
    let mut palette = vec![Mat3x4Rows::IDENTITY; n];
    let (flags, world_matrix) = (0, Affine3A::IDENTITY);
    sinew::cpu::evaluate_pose_from(
        rig,
        source,
        a.masks(),
        &layers,
        flags,
        &world_matrix,
        &mut models,
        &mut palette,
    );
    models[a.joint(0, "Root").unwrap() as usize]
        .translation
        .into()
}

/// Root displacements over one update: the runtime's, the compressed pose's and the exact one's.
fn step(a: &mut Animator, world: &mut World, e: Entity, dt: f32) -> (Vec3, Vec3, Vec3) {
    let before =
        [ClipSource::Compressed, ClipSource::Exact].map(|s| root_translation(a, world, e, s));
    a.update(world, dt).unwrap();
    let after =
        [ClipSource::Compressed, ClipSource::Exact].map(|s| root_translation(a, world, e, s));
    let moved = world.get::<&RootMotion>(e).unwrap().last_translation();
    (moved, after[0] - before[0], after[1] - before[1])
}

#[test]
fn compressed_root_motion_moves_the_entity_as_far_as_the_compressed_pose_moves_its_root() {
    let Some(rigs) = humanoid() else {
        return;
    };
    let mut a = Animator::with_compressed(rigs.clone()).unwrap();
    assert_eq!(a.clip_source(), ClipSource::Compressed);
    assert!(a.rigs()[0].compressed.is_some(), "the rigs carry the clips");
    let mut world = World::new();
    let e = spawn(&a, &mut world, false);
    run(&mut a, &mut world, 7, DT);
    let mut off_exact = 0.0_f32;
    for dt in [0.1, 0.037, 0.25, 0.013] {
        let (moved, compressed, exact) = step(&mut a, &mut world, e, dt);
        assert!(
            (moved - compressed).abs().max_element() <= TOLERANCE,
            "step {dt}: the entity moved {moved}, the compressed root {compressed}"
        );
        off_exact = off_exact.max((moved - exact).abs().max_element());
    }
    // The codec's error shows in the root's displacement: the motion is not the exact keys'.
    assert!(
        off_exact > 10.0 * TOLERANCE,
        "compressed and exact displacements differ by {off_exact} only"
    );

    // The exact animator's motion is the exact pose's.
    let mut exact = Animator::new(rigs).unwrap();
    assert_eq!(exact.clip_source(), ClipSource::Exact);
    let mut world = World::new();
    let e = spawn(&exact, &mut world, false);
    run(&mut exact, &mut world, 7, DT);
    let (moved, _, exact_delta) = step(&mut exact, &mut world, e, 0.1);
    assert!((moved - exact_delta).abs().max_element() <= TOLERANCE);
}

#[test]
fn compressed_root_motion_on_the_cpu_matches_the_gpu_twin_of_the_compressed_pipeline() {
    let Some(rigs) = humanoid() else {
        return;
    };
    let mut a = Animator::with_compressed(rigs).unwrap();
    let twin = CpuBackend::with_compressed(a.rigs().to_vec(), Vec::new()).unwrap();
    let mut world = World::new();
    let cpu = spawn(&a, &mut world, false);
    let gpu = spawn(&a, &mut world, true);
    run(&mut a, &mut world, 7, DT);
    for dt in [0.1, 0.037, 0.25] {
        let prev = a.frame_time();
        a.update(&mut world, dt).unwrap();
        let moved = world.get::<&RootMotion>(cpu).unwrap().last_translation();
        // The record holds the base's clocks; the twin moves its world from `prev` to now.
        let mut rec = *a.record_of(&world, gpu).unwrap();
        rec.world = Mat3x4Rows::IDENTITY;
        twin.advance_root_motion(&mut rec, prev, a.frame_time())
            .unwrap();
        let twin_moved = Vec3::from(rec.world.to_affine().translation);
        assert!(
            (moved - twin_moved).abs().max_element() <= TOLERANCE,
            "step {dt}: runtime {moved}, GPU twin {twin_moved}"
        );
    }
}
