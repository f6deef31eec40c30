//! Control cost per character per frame: the CPU side of the GPU backend. Each character runs a
//! locomotion state machine (idle / walk / run on a float parameter, with cross-fades), two
//! layers above it (an upper-body override and an additive), and footstep events; one
//! `Animator::update` advances them all and writes their instance records, and the events are
//! drained. No pose is evaluated. A sixteenth of the characters change speed every frame, so
//! transitions keep firing. Throughput is characters per second: ns per character is its
//! inverse (target: at most 100 ns at 10,000 characters).
//!
//! The event-driven group runs the same crowd with [`Scheduling::EventDriven`] and root motion
//! on the GPU, the CPU side of `sinew crowd` on the GPU backend: speeds change through the
//! animator only when they change, and only characters with something happening are updated.
//! Its cost per character should stay flat from 10,000 to 1,000,000 characters.
//!
//! Rig: the shipped humanoid from `assets/` (control cost does not depend on the joint count).

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hecs::{Entity, World};
use sinew::runtime::{
    Animated, Animator, ClipLayer, Compare, Condition, Layers, MaskSpec, ParamId, ParameterDef,
    ParameterKind, RootTranslation, Scheduling, StateMachine, StateMachineDef, Transform,
    TransitionDef, Value,
};

const DT: f32 = 1.0 / 60.0;

fn speed_is(op: Compare, value: f64) -> Condition {
    Condition::new("speed", op, Value::Float(value))
}

fn locomotion() -> StateMachineDef {
    StateMachineDef::new("locomotion")
        .parameter(ParameterDef {
            name: "speed".to_string(),
            kind: ParameterKind::Float,
            default: Some(Value::Float(0.0)),
        })
        .clip_state("idle", "idle")
        .clip_state("walk", "walk")
        .clip_state("run", "run")
        .transition(
            TransitionDef::new("idle", "walk")
                .fade(0.2)
                .when(speed_is(Compare::Gt, 0.5)),
        )
        .transition(
            TransitionDef::new("walk", "run")
                .fade(0.3)
                .when(speed_is(Compare::Ge, 3.0)),
        )
        .transition(
            TransitionDef::new("walk", "idle")
                .fade(0.2)
                .when(speed_is(Compare::Le, 0.5)),
        )
        .transition(
            TransitionDef::new("run", "walk")
                .fade(0.3)
                .when(speed_is(Compare::Lt, 3.0)),
        )
}

/// A character's target speed at `frame`: a slow per-character cycle through all three gaits.
fn speed(character: usize, frame: usize) -> f32 {
    let phase = (character * 7919 + frame) % 600;
    [0.0, 1.5, 4.0, 1.5][phase / 150]
}

/// How the crowd is driven.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Per-frame updates, no root motion.
    PerFrame,
    /// Per-frame updates, root motion on the CPU.
    PerFrameRoot,
    /// Event-driven updates, root motion on the GPU.
    EventDriven,
}

struct Crowd {
    animator: Animator,
    world: World,
    characters: Vec<Entity>,
    speed: ParamId,
    /// Each character's current speed (event-driven: set only when it changes).
    speeds: Vec<f32>,
    mode: Mode,
    frame: usize,
}

impl Crowd {
    fn new(count: usize, mode: Mode) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/humanoid.glb");
        let asset = sinew::import_file(&path)
            .expect("assets/humanoid.glb (cargo run --example generate_assets)");
        let mut animator = Animator::new(sinew::bake_rigs(&asset).unwrap()).unwrap();
        if mode == Mode::EventDriven {
            animator.set_scheduling(Scheduling::EventDriven);
        }
        let machine = animator.add_state_machine(0, &locomotion()).unwrap();
        let upper = animator
            .add_mask(0, &MaskSpec::subtrees("upper", &["Spine"]))
            .unwrap();
        for (clip, times) in [("walk", [0.25, 0.75]), ("run", [0.2, 0.6])] {
            let duration =
                animator.rigs()[0].clips.clips()[animator.clip(0, clip).unwrap() as usize].duration;
            for (i, t) in times.iter().enumerate() {
                let name = if i == 0 { "left" } else { "right" };
                animator.add_event(0, clip, t * duration, name).unwrap();
            }
        }
        let wave = animator.clip(0, "wave").unwrap();
        let idle = animator.clip(0, "idle").unwrap();
        let speed_param = animator.parameter(machine, "speed").unwrap();
        let mut world = World::new();
        let characters = (0..count)
            .map(|i| {
                let mut sm = animator.state_machine(machine).unwrap();
                sm.params_mut().set_float(speed_param, speed(i, 0)).unwrap();
                let layers = Layers::from_layers(&[
                    ClipLayer::new(wave).with_mask(upper).with_weight(0.5),
                    ClipLayer::additive(idle).with_weight(0.3),
                ])
                .unwrap();
                let at = Transform::from_translation(glam::Vec3::new(
                    (i % 100) as f32,
                    0.0,
                    (i / 100) as f32,
                ));
                let e = world.spawn((Animated::new(0), at, sm, layers));
                if mode != Mode::PerFrame {
                    let root = animator
                        .root_motion(0, "Root", RootTranslation::Xz, false)
                        .unwrap();
                    let root = if mode == Mode::EventDriven {
                        root.on_gpu()
                    } else {
                        root
                    };
                    world.insert_one(e, root).unwrap();
                }
                e
            })
            .collect();
        let mut crowd = Self {
            animator,
            world,
            characters,
            speed: speed_param,
            speeds: (0..count).map(|i| speed(i, 0)).collect(),
            mode,
            frame: 0,
        };
        // Warm up: spread the characters over their gaits and grow every buffer.
        for _ in 0..120 {
            crowd.frame();
        }
        crowd
    }

    /// One frame of control: parameter changes, update, event drain.
    fn frame(&mut self) -> usize {
        self.frame += 1;
        let n = self.characters.len();
        for i in (self.frame % 16..n).step_by(16) {
            let v = speed(i, self.frame);
            if self.mode == Mode::EventDriven {
                // Gameplay that tells the animator what changed.
                if v != self.speeds[i] {
                    self.speeds[i] = v;
                    let e = self.characters[i];
                    let value = Value::Float(f64::from(v));
                    let _ = self
                        .animator
                        .set_parameter(&mut self.world, e, "speed", value);
                }
            } else if let Ok(mut sm) = self.world.get::<&mut StateMachine>(self.characters[i]) {
                let _ = sm.params_mut().set_float(self.speed, v);
            }
        }
        self.animator.update(&mut self.world, DT).unwrap();
        self.animator.drain_events().count() + self.animator.changed_slots().len()
    }
}

fn control(c: &mut Criterion) {
    let mut group = c.benchmark_group("control");
    group.sample_size(10);
    for (label, mode, counts) in [
        (
            "sm+2layers+events",
            Mode::PerFrame,
            &[10_000usize, 100_000, 1_000_000][..],
        ),
        (
            "sm+2layers+events+root",
            Mode::PerFrameRoot,
            &[10_000, 100_000],
        ),
        (
            "event-driven+gpu-root",
            Mode::EventDriven,
            &[10_000, 100_000, 1_000_000],
        ),
    ] {
        for &count in counts {
            // Built on first use, so that a filtered run only builds what it measures.
            let mut crowd = None;
            group.throughput(Throughput::Elements(count as u64));
            group.bench_function(BenchmarkId::new(label, count), |b| {
                let crowd = crowd.get_or_insert_with(|| Crowd::new(count, mode));
                b.iter(|| crowd.frame());
            });
        }
    }
    group.finish();
}

criterion_group!(benches, control);
criterion_main!(benches);
