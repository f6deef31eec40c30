//! Inertialized transitions driven by the runtime: a cross-fade stack's `inertialize_to` and a
//! state machine's inertialized transitions, continuous where a cut pops, sampling one clip,
//! chained when interrupted, their blocks freed once decayed.

use hecs::World;
use sinew::runtime::{
    Animated, Animator, AnimatorConfig, Clock, CrossFade, Motion, RuntimeSnapshot, Transform, Value,
};
use sinew::{CpuBackend, InstanceRecord, Mat3x4Rows};

use super::fixtures::{
    DT, animator, clip_id, distance, locomotion, palette, record, run, set, spawn_machine,
};

#[test]
fn inertialize_to_is_continuous_samples_one_clip_and_frees_its_block() {
    let mut a = animator();
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let idle = clip_id(&a, "idle");
    let spawn = |a: &sinew::runtime::Animator, world: &mut World| {
        world.spawn((
            Animated::new(0),
            Transform::IDENTITY,
            a.cross_fade(0, "idle").unwrap(),
        ))
    };
    let (smooth, cut) = (spawn(&a, &mut world), spawn(&a, &mut world));
    run(&mut a, &mut world, 20, DT);
    let before = (
        palette(&mut a, &world, smooth),
        palette(&mut a, &world, cut),
    );
    world.get::<&mut CrossFade>(smooth).unwrap().inertialize_to(
        Motion::Clip(walk),
        Clock::default(),
        0.3,
    );
    world
        .get::<&mut CrossFade>(cut)
        .unwrap()
        .fade_to(Motion::Clip(walk), Clock::default(), 0.0);
    a.update(&mut world, DT).unwrap();
    let rec = record(&a, &world, smooth);
    let t = rec.inertialization().expect("an inertialized record");
    assert_eq!((rec.layer_count, rec.layers[0].clip), (1, walk));
    assert_eq!(rec.outgoing_layers().len(), 1);
    assert_eq!(rec.outgoing_layers()[0].clip, idle);
    assert!(!t.chained);
    let after = (
        palette(&mut a, &world, smooth),
        palette(&mut a, &world, cut),
    );
    let (step, pop) = (distance(&before.0, &after.0), distance(&before.1, &after.1));
    assert!(step < 0.25 * pop, "one frame moves {step}, a cut {pop}");
    let blocks = a.palette().used();
    run(&mut a, &mut world, 20, DT);
    let rec = record(&a, &world, smooth);
    assert!(rec.inertialization().is_none(), "decayed after 0.3 s");
    let left = distance(
        &palette(&mut a, &world, smooth),
        &palette(&mut a, &world, cut),
    );
    assert!(
        left < 1e-5,
        "the two poses differ by {left} after the transition"
    );
    let entries = a.rigs()[0].palette_entries() as u32;
    assert_eq!(
        blocks,
        2 * entries + sinew::inertial_block_entries(a.rigs()[0].joint_count() as u32)
    );
    assert_eq!(a.palette().used(), 2 * entries, "the block is freed");
}

/// How far `entity`'s pose at the animator's frame time is from where its previous record
/// (`held`, evaluated on a copy of the palette as it was, `blocks`) would have put it: 0 for
/// a transition continuous in position.
fn jump(
    a: &mut Animator,
    world: &World,
    entity: hecs::Entity,
    held: &InstanceRecord,
    blocks: &[Mat3x4Rows],
) -> f32 {
    let now = palette(a, world, entity);
    let mut twin = CpuBackend::new(a.rigs().to_vec(), Vec::new()).unwrap();
    let mut copy = blocks.to_vec();
    let mut boxes = [sinew::Aabb::EMPTY];
    twin.evaluate_at(
        a.frame_time(),
        std::slice::from_ref(held),
        &mut copy,
        &mut boxes,
    )
    .unwrap();
    let start = held.palette_offset as usize;
    let continued: Vec<[f32; 12]> = copy[start..start + now.len()]
        .iter()
        .map(|m| bytemuck::cast(m.rows))
        .collect();
    distance(&continued, &now)
}

#[test]
fn an_interrupted_inertialized_state_machine_transition_chains() {
    let mut def = locomotion();
    for t in &mut def.transitions {
        t.inertialized = true;
    }
    let mut cuts = locomotion();
    cuts.name = "cuts".to_string();
    for t in &mut cuts.transitions {
        t.duration = 0.0;
    }
    let mut a = animator();
    let mut world = World::new();
    let (_, e) = spawn_machine(&mut a, &mut world, &def);
    let (_, c) = spawn_machine(&mut a, &mut world, &cuts);
    run(&mut a, &mut world, 10, DT);
    for entity in [e, c] {
        set(&a, &mut world, entity, "speed", Value::Float(1.0));
    }
    a.update(&mut world, DT).unwrap();
    let first = record(&a, &world, e)
        .inertialization()
        .expect("idle to walk inertialized");
    run(&mut a, &mut world, 5, DT);
    let held = [
        *a.record_of(&world, e).unwrap(),
        *a.record_of(&world, c).unwrap(),
    ];
    let blocks = a.evaluate_cpu().unwrap().palette.to_vec();
    for entity in [e, c] {
        set(&a, &mut world, entity, "speed", Value::Float(4.0));
    }
    a.update(&mut world, DT).unwrap();
    let rec = record(&a, &world, e);
    let second = rec.inertialization().expect("walk to run inertialized");
    assert!(second.chained, "interrupted while the first offset decays");
    assert_eq!(second.block, first.block);
    assert_eq!(rec.layers[0].clip, clip_id(&a, "run"));
    assert_eq!(rec.outgoing_layers()[0].clip, clip_id(&a, "walk"));
    let smooth = jump(&mut a, &world, e, &held[0], &blocks);
    let pop = jump(&mut a, &world, c, &held[1], &blocks);
    assert!(smooth < 1e-4, "the interruption moves the pose by {smooth}");
    assert!(pop > 1e-2, "a cut moves it by only {pop}");
}

#[test]
fn inertialized_transitions_are_kept_by_the_configuration_and_snapshots() {
    let mut def = locomotion();
    def.transitions[0] = def.transitions[0].clone().inertialize();
    let mut a = animator();
    let machine = a.add_state_machine(0, &def).unwrap();
    let config = a.config().to_json().unwrap();
    assert!(config.contains("\"inertialized\": true"), "{config}");
    let mut b = animator();
    b.load_config(&AnimatorConfig::from_json(&config).unwrap())
        .unwrap();
    let loaded = b.state_machine_def(machine).unwrap();
    assert!(loaded.transitions[0].inertialized);
    assert!(!loaded.transitions[1].inertialized);

    // Saved mid-transition: the restored animator holds the same inertialized record, and its
    // pose continues as the original's.
    let mut world = World::new();
    let sm = a.state_machine(machine).unwrap();
    let e = world.spawn((Animated::new(0), Transform::IDENTITY, sm));
    run(&mut a, &mut world, 10, DT);
    set(&a, &mut world, e, "speed", Value::Float(1.0));
    a.update(&mut world, DT).unwrap();
    let held = *a.record_of(&world, e).unwrap();
    assert!(held.inertialization().is_some());
    let json = a.save_state(&world).unwrap().to_json().unwrap();
    let mut c = animator();
    c.load_config(&a.config()).unwrap();
    let mut restored = World::new();
    c.restore_state(&mut restored, &RuntimeSnapshot::from_json(&json).unwrap())
        .unwrap();
    let e2 = restored
        .query::<(hecs::Entity, &Animated)>()
        .iter()
        .next()
        .unwrap()
        .0;
    assert_eq!(*c.record_of(&restored, e2).unwrap(), held);
    run(&mut a, &mut world, 3, DT);
    run(&mut c, &mut restored, 3, DT);
    let (p, q) = (palette(&mut a, &world, e), palette(&mut c, &restored, e2));
    assert!(
        distance(&p, &q) < 1e-5,
        "restored pose differs by {}",
        distance(&p, &q)
    );
}

/// Palette windows every `stride` entries, `entries` long, `reserve` kept for inertialization.
type Windows = (u32, u32, u32);
/// A character's palette offset and, when it was told to transition, its inertialization
/// block's entries (`None`: a cut).
type Placed = (u32, Option<Option<(u32, u32)>>);

/// The palette offsets of 24 characters spawned together and, for those `transitioning` (all
/// inertializing at once), their inertialization blocks' entries (`None`: a cut), with the
/// animator placing blocks by palette `windows` or anywhere.
fn windowed_blocks(windows: Option<Windows>, transitioning: impl Fn(usize) -> bool) -> Vec<Placed> {
    let mut a = animator();
    a.set_palette_windows(windows.and_then(|(stride, window_entries, reserve)| {
        let paging = sinew::render::PalettePaging {
            window_entries,
            stride,
        };
        sinew::PaletteWindows::new(paging, reserve)
    }));
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let characters: Vec<_> = (0..24)
        .map(|_| {
            world.spawn((
                Animated::new(0),
                Transform::IDENTITY,
                a.cross_fade(0, "idle").unwrap(),
            ))
        })
        .collect();
    run(&mut a, &mut world, 2, DT);
    for (i, &e) in characters.iter().enumerate() {
        if transitioning(i) {
            world.get::<&mut CrossFade>(e).unwrap().inertialize_to(
                Motion::Clip(walk),
                Clock::default(),
                0.3,
            );
        }
    }
    a.update(&mut world, DT).unwrap();
    let len = sinew::inertial_block_entries(a.rigs()[0].joint_count() as u32);
    characters
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            let rec = record(&a, &world, e);
            let block = rec.inertialization().map(|t| (t.block, t.block + len));
            (rec.palette_offset, transitioning(i).then_some(block))
        })
        .collect()
}

#[test]
fn inertialization_blocks_lie_in_their_instances_palette_window() {
    let entries = animator().rigs()[0].palette_entries() as u32;
    // Windows of twelve characters' blocks starting every eight, four kept for inertialization.
    let (stride, window, reserve) = (8 * entries, 12 * entries, 4 * entries);
    let outside = |own: u32, (start, end): (u32, u32)| {
        let first = own / stride * stride;
        start < first || end > first + window
    };
    let blocks = |placed: &[Placed]| -> Vec<(u32, Option<(u32, u32)>)> {
        placed
            .iter()
            .filter_map(|&(own, b)| Some((own, b?)))
            .collect()
    };
    // Placed anywhere, blocks land after every character's: outside most windows, where a
    // kernel binding the palette in windows cannot read them.
    let anywhere = blocks(&windowed_blocks(None, |_| true));
    let strays = anywhere
        .iter()
        .filter(|&&(own, block)| outside(own, block.unwrap()))
        .count();
    assert!(strays > 12, "{strays} of {}", anywhere.len());
    // In windows packed with characters (nothing reserved), a transition without room in its
    // window is a cut.
    let packed = blocks(&windowed_blocks(Some((stride, window, 0)), |_| true));
    let placed = packed.iter().filter(|(_, b)| b.is_some()).count();
    assert!(placed < packed.len(), "{packed:?}");
    // With a reserve, characters' blocks keep out of it and a quarter of them in transition
    // all find room there, in their own window.
    let reserved = windowed_blocks(Some((stride, window, reserve)), |i| i % 4 == 0);
    for &(own, _) in &reserved {
        assert!(
            own % stride + entries <= stride - reserve,
            "a character at {own}"
        );
    }
    let reserved = blocks(&reserved);
    assert_eq!(reserved.len(), 6);
    assert!(reserved.iter().all(|(_, b)| b.is_some()), "{reserved:?}");
    for (own, block) in packed.into_iter().chain(reserved) {
        let Some(block) = block else { continue };
        assert!(
            !outside(own, block),
            "block {block:?} of the character at {own} is outside its window"
        );
    }
}

#[test]
fn a_decayed_transition_frees_its_block_while_its_entity_sleeps() {
    let mut a = animator();
    a.set_scheduling(sinew::runtime::Scheduling::EventDriven);
    let mut world = World::new();
    let walk = clip_id(&a, "walk");
    let e = world.spawn((
        Animated::new(0),
        Transform::IDENTITY,
        a.cross_fade(0, "idle").unwrap(),
    ));
    run(&mut a, &mut world, 3, DT);
    let entries = a.rigs()[0].palette_entries() as u32;
    assert_eq!(a.palette().used(), entries);
    world.get::<&mut CrossFade>(e).unwrap().inertialize_to(
        Motion::Clip(walk),
        Clock::default(),
        0.3,
    );
    a.touch(e);
    a.update(&mut world, DT).unwrap();
    let stale = a.slot_records()[0];
    assert!(stale.inertialization().is_some());
    assert!(a.palette().used() > entries);
    // Nothing is due: the looping walk has no events and no fade. Past 0.3 s the block is
    // back, the record without its descriptor, and nothing was written again for it.
    let mut written = 0;
    for _ in 0..30 {
        a.update(&mut world, DT).unwrap();
        written += a.changed_slots().len();
    }
    assert_eq!(written, 0, "no record written while the entity sleeps");
    assert_eq!(a.palette().used(), entries, "the block is back");
    assert!(a.slot_records()[0].inertialization().is_none());
    // The record the GPU still holds keeps the decayed descriptor: evaluated, it leaves its old
    // block (another instance's by now) alone and poses as the record without it.
    let block = stale.inertialization().unwrap().block as usize;
    let len = sinew::inertial_block_entries(a.rigs()[0].joint_count() as u32) as usize;
    let sentinel = Mat3x4Rows::IDENTITY;
    let mut cpu = CpuBackend::new(a.rigs().to_vec(), Vec::new()).unwrap();
    let mut boxes = [sinew::Aabb::EMPTY];
    let evaluate = |cpu: &mut CpuBackend, rec: InstanceRecord, boxes: &mut [sinew::Aabb; 1]| {
        let mut p = vec![sentinel; block + len];
        cpu.evaluate_at(a.frame_time(), &[rec], &mut p, boxes)
            .unwrap();
        p
    };
    let held = a.slot_records()[0];
    let (kept, cleared) = (
        evaluate(&mut cpu, stale, &mut boxes),
        evaluate(&mut cpu, held, &mut boxes),
    );
    assert_eq!(kept[..entries as usize], cleared[..entries as usize]);
    assert!(
        kept[block..].iter().all(|m| *m == sentinel),
        "the old block is untouched"
    );
}
