//! Saving and restoring the runtime's *state* (its configuration is `persistence.rs`'s): a
//! [`RuntimeSnapshot`] holds the animator's clock, epoch, tracking table, palette blocks, held
//! records, event-driven schedule, touched entities and undrained events, and for every
//! animated entity its components — clocks (time, speed, pause and the `f64` positions they
//! accumulate in), cross-fades in flight, the state machine's current state, transition,
//! state time and parameter values (pending triggers included), layers and their weight
//! fades, root-motion accumulators, its [`Pace`] and its [`Retargeted`] map; and every
//! [`Attachment`] (with the transform of an attached entity that is not animated).
//!
//! Restoring onto an animator with the same configuration (rigs, masks, blend spaces, state
//! machines, events and retarget maps registered in the same order) continues every entity bitwise
//! identically: the records and events after the restore are those of a run that was never
//! saved. Rigs and state machines (and their current states) are saved by name and checked
//! on restore; clips, masks and blend spaces by index, as the components hold them. Floats
//! are written in their shortest exact form, so they read back to the same bits.
//!
//! The document is versioned ([`SNAPSHOT_VERSION`]): another version is refused with
//! [`RuntimeError::SnapshotVersion`], a damaged document with [`RuntimeError::BadSnapshot`]
//! naming what is wrong (the field it fails at, or the entity and table that contradict the
//! configuration or each other); a refused snapshot changes nothing.

use glam::{Affine3A, Quat, Vec3};
use hecs::{Component, Entity, EntityBuilder, World};

use super::RuntimeError;
use super::attachment::Attachment;
use super::input_ramp::BlendInputRamp;
use super::layers::Layers;
use super::pace::Pace;
use super::playback::Playback;
use super::retarget::Retargeted;
use super::root_motion::RootMotion;
use super::state_machine::StateMachine;
use super::system::{Animated, Animator, AnimatorState, Scheduled};
use super::transform::Transform;
use super::transition::CrossFade;
use crate::runtime::parameters::ParamId;

/// The snapshot format version this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// The whole runtime state of an [`Animator`] and the animated entities of a world (see the
/// module documentation). Written by [`Animator::save_state`], applied by
/// [`Animator::restore_state`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RuntimeSnapshot {
    version: u32,
    animator: AnimatorState,
    entities: Vec<EntityState>,
    /// Every [`Attachment`] in the world, animated entities' included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    attachments: Vec<AttachmentState>,
}

/// One entity's [`Attachment`] and, for an entity that is not animated, its [`Transform`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct AttachmentState {
    /// `hecs::Entity::to_bits` of the attached entity.
    entity: u64,
    /// And of the entity it follows.
    target: u64,
    /// The joint followed, by name.
    joint: String,
    offset_translation: Vec3,
    offset_rotation: Quat,
    /// The world matrix of the last update.
    world: Affine3A,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transform: Option<Transform>,
}

/// One animated entity's components.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct EntityState {
    /// `hecs::Entity::to_bits`.
    entity: u64,
    /// Rig name.
    rig: String,
    /// The animator's tracking slot.
    slot: u32,
    /// Found by the event-driven animator.
    #[serde(default)]
    scheduled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    transform: Option<Transform>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    playback: Option<Playback>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cross_fade: Option<CrossFade>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    state_machine: Option<MachineState>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    layers: Option<Layers>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    root_motion: Option<RootMotion>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pace: Option<Pace>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input_ramp: Option<BlendInputRamp>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    retargeted: Option<Retargeted>,
}

/// A state machine component with its definition and current state by name.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct MachineState {
    /// State machine name.
    name: String,
    /// Current state's name.
    state: String,
    /// The component.
    component: StateMachine,
}

impl RuntimeSnapshot {
    /// The format version of this snapshot.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Number of entities saved.
    pub fn entity_count(&self) -> usize {
        self.entities.len()
    }

    /// Compact JSON (snapshots are large and not meant to be edited).
    pub fn to_json(&self) -> Result<String, RuntimeError> {
        serde_json::to_string(self).map_err(|e| RuntimeError::BadSnapshot {
            reason: e.to_string(),
        })
    }

    /// Reads JSON written by [`RuntimeSnapshot::to_json`]: the version is checked first.
    pub fn from_json(text: &str) -> Result<Self, RuntimeError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| RuntimeError::BadSnapshot {
                reason: format!("not JSON: {e}"),
            })?;
        let version = value
            .get("version")
            .ok_or_else(|| RuntimeError::BadSnapshot {
                reason: "no version field".to_string(),
            })?;
        let found = version.as_u64().ok_or_else(|| RuntimeError::BadSnapshot {
            reason: format!("version {version} is not a whole number"),
        })?;
        if found != u64::from(SNAPSHOT_VERSION) {
            return Err(RuntimeError::SnapshotVersion {
                found,
                supported: SNAPSHOT_VERSION,
            });
        }
        serde_path_to_error::deserialize(value).map_err(|e| RuntimeError::BadSnapshot {
            reason: format!("at {}: {}", e.path(), e.inner()),
        })
    }
}

/// The components [`Animator::restore_state`] writes onto one entity.
struct Restored {
    entity: Entity,
    animated: Animated,
    state: EntityState,
    machine: Option<StateMachine>,
}

impl Animator {
    /// The runtime state of this animator and of `world`'s animated entities (in the world's
    /// iteration order).
    pub fn save_state(&self, world: &World) -> Result<RuntimeSnapshot, RuntimeError> {
        let mut entities = Vec::new();
        let mut query = world.query::<(
            Entity,
            &Animated,
            Option<&Scheduled>,
            Option<&Transform>,
            Option<&Playback>,
            Option<&CrossFade>,
            Option<&StateMachine>,
            Option<&Layers>,
            Option<&RootMotion>,
            Option<&Pace>,
            Option<&BlendInputRamp>,
            Option<&Retargeted>,
        )>();
        for (
            entity,
            animated,
            scheduled,
            transform,
            playback,
            fades,
            sm,
            layers,
            root,
            pace,
            ramp,
            retargeted,
        ) in query.iter()
        {
            let rig = self.rig_ref(animated.rig)?.name.clone();
            let state_machine = match sm {
                Some(sm) => {
                    let def = self.state_machine_def(sm.machine())?;
                    let state = self.state_name(sm.machine(), sm.state()).ok_or_else(|| {
                        RuntimeError::UnknownState {
                            machine: def.name.clone(),
                            state: format!("#{}", sm.state()),
                        }
                    })?;
                    Some(MachineState {
                        name: def.name.clone(),
                        state: state.to_string(),
                        component: *sm,
                    })
                }
                None => None,
            };
            entities.push(EntityState {
                entity: entity.to_bits().get(),
                rig,
                slot: animated.slot(),
                scheduled: scheduled.is_some(),
                transform: transform.copied(),
                playback: playback.copied(),
                cross_fade: fades.copied(),
                state_machine,
                layers: layers.copied(),
                root_motion: root.copied(),
                pace: pace.copied(),
                input_ramp: ramp.copied(),
                retargeted: retargeted.copied(),
            });
        }
        let attachments = world
            .query::<(Entity, &Attachment, Option<&Transform>, Option<&Animated>)>()
            .iter()
            .map(|(entity, a, transform, animated)| AttachmentState {
                entity: entity.to_bits().get(),
                target: a.target.to_bits().get(),
                joint: a.joint.clone(),
                offset_translation: a.offset_translation,
                offset_rotation: a.offset_rotation,
                world: a.world(),
                transform: transform.copied().filter(|_| animated.is_none()),
            })
            .collect();
        Ok(RuntimeSnapshot {
            version: SNAPSHOT_VERSION,
            animator: self.runtime_state(),
            entities,
            attachments,
        })
    }

    /// Restores `snapshot` onto this animator and `world`: the animator's state is replaced,
    /// and each saved entity gets its saved animation components (replacing its own; its
    /// other components stay), spawned with its saved id where `world` does not have it
    /// (`hecs::World::spawn_at`: an entity holding that id under another generation is
    /// replaced). Entities not in the snapshot are left as they are. Restored into an empty
    /// world, the entities come back in their saved order, so updates visit them as before.
    /// Everything is checked before anything changes.
    pub fn restore_state(
        &mut self,
        world: &mut World,
        snapshot: &RuntimeSnapshot,
    ) -> Result<(), RuntimeError> {
        if snapshot.version != SNAPSHOT_VERSION {
            return Err(RuntimeError::SnapshotVersion {
                found: u64::from(snapshot.version),
                supported: SNAPSHOT_VERSION,
            });
        }
        let restored = snapshot
            .entities
            .iter()
            .map(|e| self.check_entity(e))
            .collect::<Result<Vec<_>, _>>()?;
        let mut attachments = snapshot
            .attachments
            .iter()
            .map(|s| {
                let id = |bits: u64| {
                    Entity::from_bits(bits).ok_or_else(|| RuntimeError::BadSnapshot {
                        reason: format!("attachment: {bits} is not an entity id"),
                    })
                };
                let attachment = Attachment::new(id(s.target)?, &s.joint)
                    .with_offset(s.offset_translation, s.offset_rotation)
                    .with_world(s.world);
                Ok((id(s.entity)?, Some(attachment), s.transform))
            })
            .collect::<Result<Vec<_>, RuntimeError>>()?;
        self.set_runtime_state(&snapshot.animator)
            .map_err(|reason| RuntimeError::BadSnapshot { reason })?;
        // An animated entity's attachment goes with its other components.
        let mut attachment_of = |entity: Entity| {
            attachments
                .iter_mut()
                .find(|(e, a, _)| *e == entity && a.is_some())
                .and_then(|(_, a, _)| a.take())
        };
        for r in restored {
            let s = r.state;
            if world.contains(r.entity) {
                put(world, r.entity, Some(r.animated));
                put(world, r.entity, s.scheduled.then_some(Scheduled));
                put(world, r.entity, s.transform);
                put(world, r.entity, s.playback);
                put(world, r.entity, s.cross_fade);
                put(world, r.entity, r.machine);
                put(world, r.entity, s.layers);
                put(world, r.entity, s.root_motion);
                put(world, r.entity, s.pace);
                put(world, r.entity, s.input_ramp);
                put(world, r.entity, s.retargeted);
                if let Some(a) = attachment_of(r.entity) {
                    put(world, r.entity, Some(a));
                }
            } else {
                let mut b = EntityBuilder::new();
                b.add(r.animated);
                if s.scheduled {
                    b.add(Scheduled);
                }
                add(&mut b, s.transform);
                add(&mut b, s.playback);
                add(&mut b, s.cross_fade);
                add(&mut b, r.machine);
                add(&mut b, s.layers);
                add(&mut b, s.root_motion);
                add(&mut b, s.pace);
                add(&mut b, s.input_ramp);
                add(&mut b, s.retargeted);
                add(&mut b, attachment_of(r.entity));
                world.spawn_at(r.entity, b.build());
            }
        }
        // Then the attachments of entities that are not animated.
        for (entity, attachment, transform) in attachments {
            let Some(attachment) = attachment else {
                continue;
            };
            if world.contains(entity) {
                put(world, entity, Some(attachment));
                if transform.is_some() {
                    put(world, entity, transform);
                }
            } else {
                let mut b = EntityBuilder::new();
                b.add(attachment);
                add(&mut b, transform);
                world.spawn_at(entity, b.build());
            }
        }
        Ok(())
    }

    /// Checks one saved entity against the configuration.
    fn check_entity(&self, s: &EntityState) -> Result<Restored, RuntimeError> {
        let entity = Entity::from_bits(s.entity).ok_or_else(|| RuntimeError::BadSnapshot {
            reason: format!("{} is not an entity id", s.entity),
        })?;
        let bad = |reason: String| RuntimeError::BadSnapshot {
            reason: format!("entity {entity:?}: {reason}"),
        };
        let rig = self.rig(&s.rig).map_err(|e| bad(e.to_string()))?;
        let joints = self.rigs()[rig as usize].skeleton.joint_count();
        // The rig whose clips the entity's components name.
        let motion = self.motion_rig(rig, s.retargeted.as_ref());
        if motion.is_none() {
            return Err(bad(format!(
                "retarget map #{} is not registered for rig {:?}",
                s.retargeted.map_or(0, |r| r.map),
                s.rig
            )));
        }
        if let Some(root) = &s.root_motion
            && root.joint as usize >= joints
        {
            return Err(bad(format!(
                "root motion joint #{} outside the {joints} joints of rig {:?}",
                root.joint, s.rig
            )));
        }
        let machine = match &s.state_machine {
            Some(m) => {
                let id = self
                    .state_machine_id(&m.name)
                    .map_err(|e| bad(e.to_string()))?;
                let c = &m.component;
                let def = self.state_machine_def(id)?;
                if c.machine() != id {
                    return Err(bad(format!(
                        "state machine {:?} is #{id} here, #{} in the snapshot",
                        m.name,
                        c.machine()
                    )));
                }
                if Some(self.machine_ref(id)?.rig) != motion {
                    return Err(bad(format!(
                        "state machine {:?} is not for rig {:?}",
                        m.name, s.rig
                    )));
                }
                if self.state_name(id, c.state()) != Some(m.state.as_str()) {
                    return Err(bad(format!(
                        "state #{} of state machine {:?} is not {:?}",
                        c.state(),
                        m.name,
                        m.state
                    )));
                }
                for (i, p) in def.parameters.iter().enumerate() {
                    if c.params().kind(ParamId(i as u16)) != Some(p.kind) {
                        return Err(bad(format!(
                            "parameter {:?} of state machine {:?} is not a {}",
                            p.name,
                            m.name,
                            p.kind.name()
                        )));
                    }
                }
                Some(*c)
            }
            None => None,
        };
        Ok(Restored {
            entity,
            animated: Animated::restored(rig, s.slot),
            state: s.clone(),
            machine,
        })
    }
}

/// Sets `entity`'s `T` to `value`, inserting it, or removes it for `None`. A component the
/// entity has is overwritten in place, so the entity keeps its place in the world.
fn put<T: Component>(world: &mut World, entity: Entity, value: Option<T>) {
    let Some(value) = value else {
        let _ = world.remove_one::<T>(entity);
        return;
    };
    if let Ok(mut c) = world.get::<&mut T>(entity) {
        *c = value;
        return;
    }
    // The entity exists (checked by the caller), so the insert cannot fail.
    let _ = world.insert_one(entity, value);
}

fn add<T: Component>(builder: &mut EntityBuilder, value: Option<T>) {
    if let Some(value) = value {
        builder.add(value);
    }
}

/// Deserializes a length that indexes a fixed array of `MAX` entries, refusing a longer one.
pub(crate) fn at_most<'de, D, T, const MAX: usize>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de> + TryInto<usize> + Copy + std::fmt::Display,
{
    let n = T::deserialize(d)?;
    match n.try_into() {
        Ok(len) if len <= MAX => Ok(n),
        _ => Err(serde::de::Error::custom(format!(
            "length {n} exceeds the {MAX} entries it counts"
        ))),
    }
}

/// `Vec<f64>` as bit patterns (JSON has no infinities).
pub(crate) mod f64_bits {
    /// Writes each value's bits.
    pub fn serialize<S: serde::Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|x| x.to_bits()))
    }

    /// Reads bits back.
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
        let bits: Vec<u64> = serde::Deserialize::deserialize(d)?;
        Ok(bits.into_iter().map(f64::from_bits).collect())
    }
}
