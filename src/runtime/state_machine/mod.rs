//! State machines: states that play a clip or a blend space, typed parameters, and conditional
//! transitions that cross-fade between states.
//!
//! A definition ([`StateMachineDef`]) is plain data — build it in code or load it as JSON — and
//! is validated once when registered ([`crate::runtime::Animator::add_state_machine`]); each
//! entity then gets a [`StateMachine`] component holding its parameters, its current state and
//! its [`CrossFade`] stack. Every update:
//!
//! 1. blend-space inputs are refreshed from their parameters, and the fades and clocks advance;
//! 2. the transitions that leave the current state, and the any-state transitions (except those
//!    into the current state), are tried **in definition order**: the first whose conditions all
//!    hold (an empty list always holds) and whose exit time has been reached fires, consuming the
//!    triggers it tested, and starts a cross-fade to its target;
//! 3. while a transition is in flight, only transitions listed **before** it (higher priority)
//!    are tried; one that fires interrupts it, fading from the current blended pose.
//!
//! Exit time is the normalized time spent in the source state: `1.0` waits for the end of one
//! clip cycle, `0.5` for half of it; once reached it stays reached.

use super::RuntimeError;
use super::blend_space::BlendSpace;
use super::motion::{Contributions, Motion, MotionContext};
use super::parameters::{CompiledCondition, ParamId, Parameters};
use super::playback::{Clock, LoopMode, Step};
use super::transition::{CrossFade, MAX_FADES};
use crate::baked::Rig;

mod def;

pub use def::{StateDef, StateMachineDef, StateMotion, TransitionDef};

/// A validated state machine over one rig: what the runtime walks.
#[derive(Clone, Debug)]
pub(crate) struct CompiledMachine {
    /// The definition it was built from (for saving).
    pub def: StateMachineDef,
    /// The rig it animates.
    pub rig: u32,
    states: Vec<CompiledState>,
    transitions: Vec<CompiledTransition>,
    conditions: Vec<CompiledCondition>,
    /// Per state, the range of `candidates` to try.
    candidate_ranges: Vec<(u32, u32)>,
    /// Transition indices, grouped by state, ascending (priority order).
    candidates: Vec<u16>,
    initial: u16,
    parameters: Parameters,
}

#[derive(Clone, Copy, Debug)]
struct CompiledState {
    motion: Motion,
    speed: f32,
    mode: LoopMode,
}

#[derive(Clone, Copy, Debug)]
struct CompiledTransition {
    to: u16,
    duration: f32,
    conditions: (u32, u32),
    /// Negative when the transition has no exit time.
    exit_time: f32,
    sync: bool,
    inertialized: bool,
}

impl CompiledMachine {
    /// Validates `def` against `rig` (index `rig_index`) and compiles it. Blend spaces of its
    /// states are appended to `spaces` (the rig's) only when everything is valid.
    pub fn compile(
        def: &StateMachineDef,
        rig_index: u32,
        rig: &Rig,
        spaces: &mut Vec<BlendSpace>,
    ) -> Result<Self, RuntimeError> {
        let machine = def.name.as_str();
        if def.states.is_empty() {
            return Err(RuntimeError::EmptyStateMachine {
                machine: machine.to_string(),
            });
        }
        Parameters::validate(&def.parameters, machine)?;
        let state_index = |name: &str| {
            def.states
                .iter()
                .position(|s| s.name == name)
                .map(|i| i as u16)
                .ok_or_else(|| RuntimeError::UnknownState {
                    machine: machine.to_string(),
                    state: name.to_string(),
                })
        };
        let mut new_spaces = Vec::new();
        let mut states = Vec::with_capacity(def.states.len());
        for (i, s) in def.states.iter().enumerate() {
            if def.states[..i].iter().any(|o| o.name == s.name) {
                return Err(RuntimeError::DuplicateName {
                    what: "state",
                    name: s.name.clone(),
                });
            }
            if !s.speed.is_finite() {
                return Err(RuntimeError::InvalidValue {
                    what: format!("speed of state {:?}", s.name),
                    value: s.speed,
                });
            }
            let motion = match &s.motion {
                StateMotion::Clip(name) => {
                    Motion::Clip(rig.clips.find_clip(name).ok_or_else(|| {
                        RuntimeError::UnknownClip {
                            rig: rig.name.clone(),
                            clip: name.clone(),
                        }
                    })? as u32)
                }
                StateMotion::BlendSpace(space) => {
                    let space = BlendSpace::from_def(space, rig, Some((&def.parameters, machine)))?;
                    new_spaces.push(space);
                    Motion::BlendSpace {
                        space: (spaces.len() + new_spaces.len() - 1) as u32,
                        input: glam::Vec2::ZERO,
                    }
                }
            };
            states.push(CompiledState {
                motion,
                speed: s.speed,
                mode: s.mode,
            });
        }
        let initial = match &def.initial {
            Some(name) => state_index(name)?,
            None => 0,
        };
        let mut transitions = Vec::with_capacity(def.transitions.len());
        let mut conditions = Vec::new();
        let mut sources = Vec::with_capacity(def.transitions.len());
        for t in &def.transitions {
            sources.push(t.from.as_deref().map(state_index).transpose()?);
            let to = state_index(&t.to)?;
            if !t.duration.is_finite() || t.duration < 0.0 {
                return Err(RuntimeError::InvalidValue {
                    what: format!("fade duration of a transition to {:?}", t.to),
                    value: t.duration,
                });
            }
            let exit_time = match t.exit_time {
                Some(e) if e >= 0.0 && e.is_finite() => e,
                Some(e) => {
                    return Err(RuntimeError::InvalidValue {
                        what: format!("exit time of a transition to {:?}", t.to),
                        value: e,
                    });
                }
                None => -1.0,
            };
            let first = conditions.len() as u32;
            for c in &t.conditions {
                conditions.push(CompiledCondition::compile(c, &def.parameters, machine)?);
            }
            transitions.push(CompiledTransition {
                to,
                duration: t.duration,
                conditions: (first, conditions.len() as u32),
                exit_time,
                sync: t.sync,
                inertialized: t.inertialized,
            });
        }
        let mut candidate_ranges = Vec::with_capacity(states.len());
        let mut candidates = Vec::new();
        for s in 0..states.len() as u16 {
            let first = candidates.len() as u32;
            for (i, (source, t)) in sources.iter().zip(&transitions).enumerate() {
                let applies = match source {
                    Some(from) => *from == s,
                    None => t.to != s,
                };
                if applies {
                    candidates.push(i as u16);
                }
            }
            candidate_ranges.push((first, candidates.len() as u32));
        }
        spaces.extend(new_spaces);
        Ok(Self {
            def: def.clone(),
            rig: rig_index,
            states,
            transitions,
            conditions,
            candidate_ranges,
            candidates,
            initial,
            parameters: Parameters::new(&def.parameters),
        })
    }

    /// Index of parameter `name`.
    pub fn parameter(&self, name: &str) -> Result<ParamId, RuntimeError> {
        self.def
            .parameters
            .iter()
            .position(|p| p.name == name)
            .map(|i| ParamId(i as u16))
            .ok_or_else(|| RuntimeError::UnknownParameter {
                machine: self.def.name.clone(),
                parameter: name.to_string(),
            })
    }

    /// Index of state `name`.
    pub fn state(&self, name: &str) -> Result<u16, RuntimeError> {
        self.def
            .states
            .iter()
            .position(|s| s.name == name)
            .map(|i| i as u16)
            .ok_or_else(|| RuntimeError::UnknownState {
                machine: self.def.name.clone(),
                state: name.to_string(),
            })
    }

    /// A fresh instance in the initial state, with default parameters.
    pub fn instantiate(&self, id: u32, ctx: &MotionContext) -> StateMachine {
        let mut sm = StateMachine {
            machine: id,
            params: self.parameters,
            fades: CrossFade::new(),
            state: self.initial,
            transition: NO_TRANSITION,
            state_time: 0.0,
            state_rate: 0.0,
        };
        sm.enter(self, ctx, self.initial, 0.0, false);
        sm
    }
}

/// One entity's state machine: parameters, current state, and the cross-fade stack it drives.
/// Laid out so that what every frame reads sits in few cache lines: the header with the first
/// fade, and the parameters' set flags with their first values.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateMachine {
    machine: u32,
    state: u16,
    /// The transition in flight (its fade is not complete), by index; [`NO_TRANSITION`] if none.
    transition: u16,
    /// Normalized time since the current state was entered (in `f64`, so exit times are reached
    /// at the same update however the machine is stepped).
    state_time: f64,
    /// How fast `state_time` grew in the last update, per second.
    state_rate: f32,
    fades: CrossFade,
    params: Parameters,
}

/// [`StateMachine::transition`] when no transition is in flight.
const NO_TRANSITION: u16 = u16::MAX;

impl StateMachine {
    /// The state machine definition's index in the animator.
    pub fn machine(&self) -> u32 {
        self.machine
    }

    /// The current state (the target of the last transition), by index in the definition.
    pub fn state(&self) -> u16 {
        self.state
    }

    /// Normalized time spent in the current state (1.0 = one cycle of its motion).
    pub fn state_time(&self) -> f32 {
        self.state_time as f32
    }

    /// Whether a transition's cross-fade is in progress.
    pub fn is_transitioning(&self) -> bool {
        self.transition != NO_TRANSITION
    }

    /// The parameters.
    pub fn params(&self) -> &Parameters {
        &self.params
    }

    /// The parameters, to set.
    pub fn params_mut(&mut self) -> &mut Parameters {
        &mut self.params
    }

    /// The duration of an inertialized transition the machine started since the last call.
    pub(crate) fn take_inertialization(&mut self) -> Option<f32> {
        self.fades.take_inertialization()
    }

    /// The cross-fade stack the machine drives.
    pub fn fades(&self) -> &CrossFade {
        &self.fades
    }

    /// Starts `state`, cross-fading over `duration`; `sync`: in phase with the current motion.
    fn enter(
        &mut self,
        m: &CompiledMachine,
        ctx: &MotionContext,
        state: u16,
        duration: f32,
        sync: bool,
    ) {
        let s = m.states[state as usize];
        let motion = match s.motion {
            Motion::BlendSpace { space, input } => Motion::BlendSpace {
                space,
                input: blend_input(ctx, space, &self.params).unwrap_or(input),
            },
            clip => clip,
        };
        let mut clock = Clock::new(s.mode);
        clock.speed = s.speed;
        if s.speed < 0.0 {
            // Backwards playback starts at the end.
            clock.time = ctx.timeline(&motion).map_or(0.0, |(period, _)| period);
        }
        if sync && let Some((from, from_clock)) = self.fades.current() {
            clock.time = ctx
                .in_phase(from, from_clock.time, &motion)
                .unwrap_or(clock.time);
        }
        if sync {
            self.fades.fade_to_in_phase(motion, clock, duration);
        } else {
            self.fades.fade_to(motion, clock, duration);
        }
        self.state = state;
        self.state_time = 0.0;
    }

    /// Seconds until the machine needs an update for a change it makes itself: a fade ending
    /// (which lets further transitions interrupt), or the state time reaching the exit time of a
    /// transition whose conditions hold. Parameter changes come from outside.
    pub(crate) fn next_change_in(&self, m: &CompiledMachine) -> Option<f32> {
        let mut next = self.fades.next_change_in();
        let (first, last) = m.candidate_ranges[self.state as usize];
        for &t in &m.candidates[first as usize..last as usize] {
            if t >= self.transition {
                break;
            }
            let tr = m.transitions[t as usize];
            let conditions = &m.conditions[tr.conditions.0 as usize..tr.conditions.1 as usize];
            if !conditions.iter().all(|c| c.holds(&self.params)) {
                continue;
            }
            let wait = if self.state_time >= f64::from(tr.exit_time) {
                0.0
            } else if self.state_rate > 0.0 {
                (f64::from(tr.exit_time) - self.state_time) as f32 / self.state_rate
            } else {
                continue;
            };
            next = Some(next.map_or(wait, |n: f32| n.min(wait)));
        }
        next
    }

    /// One update (see the module documentation). Pushes the base contributions to `out`;
    /// returns false when a motion names something that does not exist.
    pub(crate) fn update(
        &mut self,
        m: &CompiledMachine,
        ctx: &MotionContext,
        dt: f64,
        recent: f64,
        budget: usize,
        out: &mut Contributions,
    ) -> bool {
        for motion in self.fades.motions_mut() {
            if let Motion::BlendSpace { space, input } = motion
                && let Some(from_params) = blend_input(ctx, *space, &self.params)
            {
                *input = from_params;
            }
        }
        let mut steps = [Step::still(0.0, 0.0, LoopMode::Loop); MAX_FADES];
        self.fades.advance(ctx, dt, recent, budget, &mut steps);
        if let (Some(step), Some(_)) = (self.fades.current_step(&steps), self.fades.current())
            && step.period <= 0.0
        {
            // A pose (a timeline of length 0) is at its end as soon as it is entered.
            self.state_time = self.state_time.max(1.0);
            self.state_rate = 0.0;
        }
        if let (Some(step), Some((_, clock))) =
            (self.fades.current_step(&steps), self.fades.current())
            && step.period > 0.0
        {
            let grown = f64::from(step.travel.abs()) / f64::from(step.period);
            self.state_time += grown;
            self.state_rate = step.velocity.abs() / step.period;
            let at_end = if clock.speed >= 0.0 {
                clock.time >= step.period
            } else {
                clock.time <= 0.0
            };
            if clock.mode == LoopMode::Clamp && at_end {
                self.state_time = self.state_time.max(1.0);
            }
        }
        if !self.fades.is_fading() {
            self.transition = NO_TRANSITION;
        }
        let (first, last) = m.candidate_ranges[self.state as usize];
        for &t in &m.candidates[first as usize..last as usize] {
            // Candidates ascend; only those before the one in flight may interrupt it.
            if t >= self.transition {
                break;
            }
            let tr = m.transitions[t as usize];
            if self.state_time < f64::from(tr.exit_time) {
                continue;
            }
            let conditions = &m.conditions[tr.conditions.0 as usize..tr.conditions.1 as usize];
            if !conditions.iter().all(|c| c.holds(&self.params)) {
                continue;
            }
            for trigger in conditions.iter().filter_map(CompiledCondition::trigger) {
                self.params.consume(trigger);
            }
            if tr.inertialized {
                self.enter(m, ctx, tr.to, 0.0, tr.sync);
                self.fades.inertialize_to_current(tr.duration);
            } else {
                self.enter(m, ctx, tr.to, tr.duration, tr.sync);
                if tr.duration > 0.0 {
                    self.transition = t;
                }
            }
            break;
        }
        self.fades.contribute(ctx, &steps, out)
    }
}

/// The input point of `space` read from its axis parameters (unset parameters read 0), or
/// `None` when the space is not fed by parameters.
fn blend_input(ctx: &MotionContext, space: u32, params: &Parameters) -> Option<glam::Vec2> {
    let axes = ctx.spaces.get(space as usize)?.axes?;
    Some(glam::Vec2::new(
        axes[0].map_or(0.0, |i| params.float_or_zero(i)),
        axes[1].map_or(0.0, |i| params.float_or_zero(i)),
    ))
}
