//! One entity's update: advance its base (state machine, cross-fade or playback) and layers by
//! its time step, fire the events crossed, apply root motion (or flag it for the GPU) and build
//! its record, with the time until it next needs an update.

use hecs::Entity;

use super::Animated;
use crate::baked::Rig;
use crate::baked::retarget_map::RetargetBinding;
use crate::cpu::ClipSource;
use crate::instance::{InstanceRecord, LayerRecord, MAX_LAYERS};
use crate::math::Mat3x4Rows;
use crate::palette::PaletteBlock;
use crate::runtime::events::EventQueue;
use crate::runtime::input_ramp::BlendInputRamp;
use crate::runtime::layers::Layers;
use crate::runtime::motion::{Contribution, Contributions, MotionContext, clock_of};
use crate::runtime::pace::Pace;
use crate::runtime::playback::{LoopMode, Playback, Step};
use crate::runtime::registry::{MaskEntry, RigData, context};
use crate::runtime::retarget::{Retargeted, motion_rig, retarget_layers};
use crate::runtime::root_motion::RootMotion;
use crate::runtime::schedule::next_crossing_in;
use crate::runtime::state_machine::{CompiledMachine, StateMachine};
use crate::runtime::transform::Transform;
use crate::runtime::transition::{CrossFade, MAX_FADES};

/// The optional components of an animated entity.
pub(super) type Components<'a> = (
    Option<&'a mut Transform>,
    Option<&'a mut Playback>,
    Option<&'a mut CrossFade>,
    Option<&'a mut StateMachine>,
    Option<&'a mut Layers>,
    Option<&'a mut RootMotion>,
    Option<&'a Pace>,
    Option<&'a mut BlendInputRamp>,
    Option<&'a Retargeted>,
);

/// What every entity's update reads.
pub(super) struct FrameContext<'a> {
    pub(super) rigs: &'a [Rig],
    /// Where root motion samples the root's tracks (the clips the records are evaluated from).
    pub(super) source: ClipSource,
    pub(super) data: &'a [RigData],
    pub(super) masks: &'a [MaskEntry],
    pub(super) machines: &'a [CompiledMachine],
    /// The registered retarget maps.
    pub(super) retargets: &'a [RetargetBinding],
    /// The frame time records are anchored at.
    pub(super) now: f32,
}

/// What updating one entity produced.
#[derive(Debug)]
pub(super) struct EntityUpdate {
    pub(super) record: InstanceRecord,
    /// A component names something its rig does not have.
    pub(super) invalid: bool,
    /// Seconds until the entity next needs an update (infinite: only when touched).
    pub(super) wake: f32,
}

/// Advances one entity by `dt64` seconds since its last update (its base, layers, events, root
/// motion) and builds its record; changes made to its components since then take effect for
/// the latest `recent` seconds (the update's own step), as if it were updated every frame. The
/// entity's rig exists.
#[allow(clippy::too_many_arguments)]
pub(super) fn animate(
    cx: &FrameContext,
    events: &mut EventQueue,
    entity: Entity,
    animated: &Animated,
    block: PaletteBlock,
    parts: Components<'_>,
    dt64: f64,
    recent: f64,
    base: &mut Contributions,
) -> EntityUpdate {
    let dt = dt64 as f32;
    let (mut transform, playback, fades, machine, layers, root, pace, mut ramp, retargeted) = parts;
    // Clocks, fades and wake-ups below run on the entity's own time: its pace scales the step,
    // and rates per entity second become rates per animator second.
    let pace = pace.map_or(1.0, Pace::rate);
    let (dt64, recent) = if pace == 1.0 {
        (dt64, recent)
    } else {
        (dt64 * f64::from(pace), recent * f64::from(pace))
    };
    let per_second = |step: &Step| step.with_travel(step.travel, step.velocity * pace);
    let rig = &cx.rigs[animated.rig as usize];
    // A retargeted entity's motion names clips of its map's source rig (`retarget.rs`).
    let (motion, map_ok) = match motion_rig(cx.retargets, animated.rig, retargeted) {
        Some(r) if (r as usize) < cx.data.len() => (r, true),
        _ => (animated.rig, false),
    };
    let data = &cx.data[motion as usize];
    let now = cx.now;
    let ctx = context(data);
    // A blend input ramp's layers keep the normalized phase (`input_ramp.rs`): its entity's
    // blend spaces are not warped by sync markers.
    let ctx = if ramp.is_some() {
        MotionContext {
            markers: &[],
            ..ctx
        }
    } else {
        ctx
    };
    let extra = layers.as_ref().map_or(0, |l| l.len());
    let budget = MAX_LAYERS - extra;
    let mut wake = f32::INFINITY;
    // Base layers that follow a blend input ramp, when it applies (`input_ramp.rs`).
    let mut ramped = ([LayerRecord::default(); MAX_LAYERS], None);

    // Base.
    base.clear();
    // An inertialized transition the base started: the record asks the animator for it.
    let mut inertialize = None;
    let valid = if let Some(sm) = machine {
        match cx.machines.get(sm.machine() as usize) {
            Some(m) if m.rig == motion && map_ok => {
                let valid = sm.update(m, &ctx, dt64, recent, budget, base);
                inertialize = sm.take_inertialization();
                wake = wake.min(sm.next_change_in(m).unwrap_or(f32::INFINITY));
                valid
            }
            _ => false,
        }
    } else if let Some(fades) = fades {
        if let Some(r) = ramp.as_deref_mut() {
            r.steer(fades, dt64);
        }
        let mut steps = [Step::still(0.0, 0.0, LoopMode::Loop); MAX_FADES];
        fades.advance(&ctx, dt64, recent, budget, &mut steps);
        wake = wake.min(fades.next_change_in().unwrap_or(f32::INFINITY));
        if let Some(r) = ramp.as_deref() {
            r.hold_phase(fades);
        }
        let valid = fades.contribute(&ctx, &steps, base);
        inertialize = fades.take_inertialization();
        if let Some(r) = ramp {
            if let Some(space) = ctx.spaces.get(r.space as usize) {
                let out = &mut ramped.0[..budget];
                let paced = pace != 1.0;
                ramped.1 = r.write_layers(space, ctx.durations, fades, paced, out, now);
            }
            wake = wake.min(r.next_change_in().unwrap_or(f32::INFINITY));
        }
        valid
    } else if let Some(p) = playback {
        play(&ctx, p, dt64, recent, base)
    } else {
        true
    };
    if !map_ok {
        // No map to play through: the rest pose.
        base.clear();
    }
    let mut invalid = !valid || !map_ok;
    base.limit(budget);
    wake = in_animator_seconds(wake, pace);
    if pace != 1.0 {
        base.rescale(pace);
    }
    for c in base.as_slice() {
        // A clip warped by sync markers changes rate at the blend's next marker.
        wake = wake.min(c.until);
        if c.events {
            let table = &data.events[c.clip as usize];
            events.fire(entity, c.clip, table, &c.step);
            if let Some(t) = next_crossing_in(&c.step, c.step.velocity, table.times()) {
                wake = wake.min(t);
            }
        }
    }

    // Record: base layers, then the extra layers.
    let mut record = InstanceRecord {
        rig: animated.rig,
        palette_offset: block.offset,
        layer_count: 0,
        flags: 0,
        world: Mat3x4Rows::IDENTITY,
        layers: [LayerRecord::default(); MAX_LAYERS],
    };
    let mut count = base.write_layers(&mut record.layers, now);
    if let (layers, Some(n)) = &ramped {
        record.layers[..*n].copy_from_slice(&layers[..*n]);
        count = *n;
    }
    let base_layers = count;
    if let Some(layers) = layers {
        for layer in layers.as_mut_slice() {
            let clip = layer.playback.clip;
            let mask_ok = layer.mask.is_none_or(|m| {
                cx.masks
                    .get(m as usize)
                    .is_some_and(|e| e.rig == animated.rig)
            });
            let Some(duration) = ctx.duration(clip).filter(|_| mask_ok && map_ok) else {
                invalid = true;
                continue;
            };
            let step = per_second(&layer.advance(duration, dt64, recent));
            if let Some(t) = layer.ramp_left() {
                wake = wake.min(in_animator_seconds(t, pace));
            }
            if layer.weight > 0.0 && count < MAX_LAYERS {
                let table = &data.events[clip as usize];
                events.fire(entity, clip, table, &step);
                if let Some(t) = next_crossing_in(&step, step.velocity, table.times()) {
                    wake = wake.min(t);
                }
                let mut layer_record = clock_of(layer.to_layer().to_record(), &step, now);
                // A weight fade in progress goes into the record as a linear ramp.
                if let Some((target, rate)) = layer
                    .ramp()
                    .map(|(t, r)| (t, r * pace))
                    .filter(|&(_, r)| r > 0.0)
                {
                    let span = (target - layer.weight).abs();
                    if span > 0.0 {
                        layer_record = LayerRecord {
                            weight: target,
                            ..layer_record
                        }
                        .with_fade(layer.weight, now, rate / span, 1.0);
                    }
                }
                record.layers[count] = layer_record;
                count += 1;
            }
        }
    }
    record.layer_count = count as u32;
    if let Some(r) = retargeted.filter(|_| map_ok) {
        invalid |= !retarget_layers(&mut record.layers[..count], r);
    }

    // Root motion, then the world transform.
    if let (Some(root), Some(transform)) = (root, transform.as_deref_mut()) {
        if root.is_on_gpu() {
            // The evaluator moves the record's world from the base layers' clocks.
            record.flags = root.record_flags(base_layers);
        } else {
            // A retargeted entity's root moves through its map's entry (the plain or mirror).
            let through = retargeted.filter(|_| map_ok).and_then(|r| {
                let b = cx.retargets.get(r.map as usize)?;
                let map = if r.mirror { &b.mirrored } else { &b.map };
                Some((map, cx.rigs.get(b.source as usize)?))
            });
            root.apply(
                rig,
                cx.source,
                through,
                // The root joint is the entity's rig's, and so is its frame.
                &cx.data[animated.rig as usize].root_frames,
                base.as_slice(),
                transform,
            );
            record.flags = root.flags();
            // Root motion on the CPU moves the entity every update.
            wake = 0.0;
        }
    }
    if let Some(transform) = transform {
        record.world = Mat3x4Rows::from_affine(&transform.to_affine());
    }
    if let Some(duration) = inertialize {
        record = record.with_inertial_request(duration);
    }
    if dt <= 0.0 && wake.is_finite() {
        // No rate is known yet: look again next update.
        wake = 0.0;
    }
    EntityUpdate {
        record,
        invalid,
        wake,
    }
}

/// Seconds of animator time for `t` seconds of an entity running at `pace`.
fn in_animator_seconds(t: f32, pace: f32) -> f32 {
    if pace == 1.0 || t <= 0.0 {
        t
    } else if pace > 0.0 {
        t / pace
    } else {
        f32::INFINITY
    }
}

/// Advances a plain [`Playback`] and pushes its one full-weight contribution.
fn play(
    ctx: &MotionContext,
    p: &mut Playback,
    dt: f64,
    recent: f64,
    out: &mut Contributions,
) -> bool {
    let Some(duration) = ctx.duration(p.clip) else {
        return false;
    };
    let step: Step = p.clock.advance_since(duration, dt, recent);
    out.push(Contribution {
        clip: p.clip,
        time: p.clock.time,
        weight: 1.0,
        step,
        events: true,
        fade: None,
        until: f32::INFINITY,
    });
    true
}
