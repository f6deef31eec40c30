//! [`SinewRuntime`]: sinew's [`Animator`] and the `hecs` world it animates, owned by Bevy as a
//! resource, with the rigs registered per loaded asset.

use std::collections::HashMap;

use bevy::prelude::*;
use sinew::runtime::{Animator, RuntimeError, Scheduling, StateMachineDef};
use sinew::{Aabb, FastCpuBackend, Mat3x4Rows};

use crate::assets::SinewAsset;
use crate::material::SinewMaterial;
use crate::plugin::SinewBackend;

/// One rig of one asset, registered in the animator, with what its characters are drawn with.
#[derive(Debug)]
pub(crate) struct RigEntry {
    /// The file, kept loaded: the animator keeps its rig for the rest of the run, so characters
    /// spawned later find the same rig rather than a reloaded copy.
    pub _asset: Handle<SinewAsset>,
    /// The rig's index in the animator.
    pub index: u32,
    /// Per rig mesh: its Bevy mesh and material.
    pub meshes: Vec<(Handle<Mesh>, Handle<SinewMaterial>)>,
    /// The bind-pose box of the rig's meshes (the box before the first evaluation).
    pub bind_box: Aabb,
}

/// sinew's animation runtime inside Bevy. Each character ([`crate::SinewCharacter`]) has an
/// entity in [`SinewRuntime::world`], animated by [`SinewRuntime::animator`]; use
/// [`crate::SinewControl`] to drive it, or these directly for the rest of sinew's runtime API.
#[derive(Resource)]
pub struct SinewRuntime {
    /// sinew's animator.
    pub animator: Animator,
    /// The `hecs` world of the characters' sinew components.
    pub world: hecs::World,
    pub(crate) rigs: HashMap<(AssetId<SinewAsset>, usize), RigEntry>,
    /// State machines registered per (rig, definition name).
    pub(crate) machines: HashMap<(u32, String), u32>,
    /// Blend spaces registered per (rig, name).
    pub(crate) spaces: HashMap<(u32, String), u32>,
    /// The resampled backend, when [`crate::SinewBackend::FastCpu`] is chosen (rebuilt when
    /// rigs or masks are added).
    pub(crate) fast: Option<FastCpuBackend>,
    pub(crate) backend: SinewBackend,
    /// The exact CPU evaluation's boxes in record order (scratch for [`SinewRuntime::bounds`]).
    pub(crate) record_bounds: Vec<Aabb>,
    /// Boxes of the last evaluation, indexed by slot.
    pub(crate) bounds: Vec<Aabb>,
    /// Updates so far (the frame number).
    pub(crate) frame: u64,
    /// The frame whose evaluation [`SinewRuntime::bounds`] holds (older than `frame` on the
    /// GPU, whose boxes come back later).
    pub(crate) bounds_frame: u64,
    /// Scratch palette of the fast backend.
    pub(crate) fast_palette: Vec<Mat3x4Rows>,
}

impl SinewRuntime {
    pub(crate) fn new(scheduling: Scheduling, backend: SinewBackend) -> Result<Self, RuntimeError> {
        let mut animator = Animator::new(Vec::new())?;
        animator.set_scheduling(scheduling);
        Ok(Self {
            animator,
            world: hecs::World::new(),
            rigs: HashMap::new(),
            machines: HashMap::new(),
            spaces: HashMap::new(),
            fast: None,
            backend,
            record_bounds: Vec::new(),
            bounds: Vec::new(),
            frame: 0,
            bounds_frame: 0,
            fast_palette: Vec::new(),
        })
    }

    /// The animator's index of rig `rig` of `asset`, once a character of it was spawned.
    pub fn rig_index(&self, asset: AssetId<SinewAsset>, rig: usize) -> Option<u32> {
        self.rigs.get(&(asset, rig)).map(|r| r.index)
    }

    /// Registers `def` for `rig` once (cached by its name) and returns its id. Definitions are
    /// registered under `name@rig` so rigs can share one definition.
    pub fn state_machine_id(
        &mut self,
        rig: u32,
        def: &StateMachineDef,
    ) -> Result<u32, RuntimeError> {
        let key = (rig, def.name.clone());
        if let Some(&id) = self.machines.get(&key) {
            return Ok(id);
        }
        let mut named = def.clone();
        named.name = format!("{}@{rig}", def.name);
        let id = self.animator.add_state_machine(rig, &named)?;
        self.machines.insert(key, id);
        Ok(id)
    }

    /// Registers blend space `def` as `name` for `rig` once and returns its id.
    pub fn blend_space_id(
        &mut self,
        rig: u32,
        name: &str,
        def: &sinew::runtime::BlendSpaceDef,
    ) -> Result<u32, RuntimeError> {
        let key = (rig, name.to_string());
        if let Some(&id) = self.spaces.get(&key) {
            return Ok(id);
        }
        let id = self
            .animator
            .add_blend_space(rig, &format!("{name}@{rig}"), def)?;
        self.spaces.insert(key, id);
        Ok(id)
    }

    /// `entity`'s tracking slot (the index of its box in the last evaluation's bounds), while
    /// the animator tracks it.
    pub(crate) fn slot_of(&self, entity: hecs::Entity) -> Option<u32> {
        self.animator.slot_of(&self.world, entity)
    }
}
