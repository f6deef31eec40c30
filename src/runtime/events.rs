//! Animation events: names placed at times on a clip ("footstep" at 0.4 s of "walk"), fired
//! when a playing clip's clock crosses them and collected in a queue that the main thread
//! drains after [`crate::runtime::Animator::update`].
//!
//! An event fires exactly once per crossing ([`crate::runtime::Step::for_each_crossing`]): at
//! each loop wrap, once per loop when one large time step spans several, when passed backwards,
//! and on both legs of a ping-pong. Reaching a time fires it; starting on it does not. Scrubbing
//! fires nothing unless asked ([`crate::runtime::Animator::scrub`]).
//!
//! What fires: the base's clips (fading-out ones too, while they still have weight; in a blend
//! space only the heaviest clip, since its clips are phase-synchronized and would repeat each
//! other's events) and every extra layer with non-zero weight.

use hecs::Entity;

use super::playback::Step;

/// One event definition, as saved: `name` at `time` seconds of `clip`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EventDef {
    /// Clip name.
    pub clip: String,
    /// Time in seconds, within the clip.
    pub time: f32,
    /// Event name.
    pub name: String,
}

/// The events of one clip, sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ClipEvents {
    times: Vec<f32>,
    names: Vec<u32>,
}

impl ClipEvents {
    /// Adds event `name` (an index into the queue's name table) at `time`.
    pub fn insert(&mut self, time: f32, name: u32) {
        let i = self.times.partition_point(|&t| t <= time);
        self.times.insert(i, time);
        self.names.insert(i, name);
    }

    /// Whether the clip has no events.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The event times, ascending.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// `(time, name index)` of each event, in time order.
    pub fn iter(&self) -> impl Iterator<Item = (f32, u32)> + '_ {
        self.times.iter().copied().zip(self.names.iter().copied())
    }
}

/// An event as delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// The entity whose clip crossed it.
    pub entity: Entity,
    /// The event's name.
    pub name: &'a str,
    /// The clip it is on.
    pub clip: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fired {
    entity: Entity,
    name: u32,
    clip: u32,
}

/// Interned event names and the events fired since the last drain.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventQueue {
    names: Vec<String>,
    fired: Vec<Fired>,
}

impl EventQueue {
    /// Index of `name`, added on first use.
    pub fn intern(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                self.names.push(name.to_string());
                (self.names.len() - 1) as u32
            }
        }
    }

    /// The name of interned index `name`.
    pub fn name(&self, name: u32) -> &str {
        self.names.get(name as usize).map_or("", String::as_str)
    }

    /// Queues the events of `events` (clip `clip`) that `step` crosses.
    #[inline]
    pub fn fire(&mut self, entity: Entity, clip: u32, events: &ClipEvents, step: &Step) {
        if events.is_empty() || step.is_still() {
            return;
        }
        step.for_each_crossing(&events.times, |i| {
            self.fired.push(Fired {
                entity,
                name: events.names[i],
                clip,
            });
        });
    }

    /// Moves the events of `other` (fired against the same name table) to the end of this
    /// queue.
    pub fn append(&mut self, other: &mut EventQueue) {
        self.fired.append(&mut other.fired);
    }

    /// Number of queued events.
    pub fn len(&self) -> usize {
        self.fired.len()
    }

    /// The queued events, in the order they fired, without removing them.
    pub fn iter(&self) -> impl Iterator<Item = Event<'_>> {
        self.fired.iter().map(|f| Event {
            entity: f.entity,
            name: self.name(f.name),
            clip: f.clip,
        })
    }

    /// Replaces the queued events by `events` (`(entity, name, clip)`, in firing order).
    pub fn replace(&mut self, events: &[(Entity, String, u32)]) {
        self.fired.clear();
        for (entity, name, clip) in events {
            let name = self.intern(name);
            self.fired.push(Fired {
                entity: *entity,
                name,
                clip: *clip,
            });
        }
    }

    /// Empties the queue, yielding its events in the order they fired.
    pub fn drain(&mut self) -> impl Iterator<Item = Event<'_>> {
        let names = &self.names;
        self.fired.drain(..).map(move |f| Event {
            entity: f.entity,
            name: names.get(f.name as usize).map_or("", String::as_str),
            clip: f.clip,
        })
    }
}
