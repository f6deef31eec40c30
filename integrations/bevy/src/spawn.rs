//! Characters: a [`SinewCharacter`] entity gets, once its [`SinewAsset`] has loaded, an entity in sinew's runtime (its base [`SinewMotion`]) and one mesh
//! entity per rig mesh ([`SinewMeshes`]), drawn with [`SinewMaterial`]. A file sinew refuses
//! logs its error and marks the character [`SinewSpawnFailed`]; nothing else is spawned.
//!
//! Mesh entities are not children of the character: the palette already holds each joint's
//! world matrix (the character's transform included), so they sit at the origin with the
//! character's animated world box as their [`Aabb`], and despawn with it (a relationship with
//! linked despawn).

use bevy::asset::LoadState;
use bevy::asset::RenderAssetUsages;
use bevy::camera::primitives::Aabb;
use bevy::camera::visibility::NoAutoAabb;
use bevy::mesh::MeshTag;
use bevy::pbr::ExtendedMaterial;
use bevy::prelude::*;
use bevy::render::storage::ShaderBuffer;
use sinew::render::pack_deltas;
use sinew::runtime::{
    Animated, BlendSpaceDef, RootMotion, RootTranslation, RuntimeError, StateMachineDef,
};

use crate::assets::SinewAsset;
use crate::control::SinewRootMotion;
use crate::convert::to_sinew;
use crate::material::{SinewMaterial, SinewSkinning};
use crate::materials::{ImageCache, standard_material};
use crate::mesh::skinned_mesh;
use crate::palette::SinewPalette;
use crate::runtime::{RigEntry, SinewRuntime};

/// A character of rig `rig` (default 0) of a file loaded as a [`SinewAsset`].
#[derive(Component, Clone, Debug)]
#[require(Transform, Visibility)]
pub struct SinewCharacter {
    /// The file.
    pub asset: Handle<SinewAsset>,
    /// Which of its rigs.
    pub rig: usize,
}

impl SinewCharacter {
    /// A character of the file's first rig.
    pub fn new(asset: Handle<SinewAsset>) -> Self {
        Self { asset, rig: 0 }
    }

    /// The same character of rig `rig`.
    pub fn with_rig(mut self, rig: usize) -> Self {
        self.rig = rig;
        self
    }
}

/// The base motion a character starts with (read once, when it is instantiated; change it
/// later through [`crate::SinewControl`]).
#[derive(Component, Clone, Debug, Default)]
pub enum SinewMotion {
    /// The rest pose.
    #[default]
    Rest,
    /// A clip by name, looping at `speed`.
    Clip {
        /// Clip name.
        name: String,
        /// Playback rate (1: as authored).
        speed: f32,
    },
    /// A state machine (registered once per rig, by its name).
    StateMachine(StateMachineDef),
    /// A blend space (registered once per rig, by `name`) read at `input`.
    BlendSpace {
        /// Its name.
        name: String,
        /// Its definition.
        def: BlendSpaceDef,
        /// Where it is read.
        input: Vec2,
    },
}

impl SinewMotion {
    /// Clip `name` at speed 1.
    pub fn clip(name: &str) -> Self {
        Self::Clip {
            name: name.to_string(),
            speed: 1.0,
        }
    }
}

/// A character's place in sinew's runtime, added when it is instantiated.
#[derive(Component, Clone, Copy, Debug)]
pub struct SinewInstance {
    /// Its entity in [`SinewRuntime::world`].
    pub entity: hecs::Entity,
    /// Its rig's index in the animator.
    pub rig: u32,
    /// Its first palette entry, once the animator placed it.
    pub palette_offset: Option<u32>,
    /// The frame it was placed in (boxes older than that are not its own).
    pub(crate) placed_frame: u64,
}

/// The Bevy entity a runtime entity animates (a component in [`SinewRuntime::world`]), so the
/// animator's events find their character.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BevyEntity(pub Entity);

/// A character whose file or rig sinew refused: the reason (also logged as an error).
#[derive(Component, Clone, Debug)]
pub struct SinewSpawnFailed(pub String);

/// A mesh entity drawing part of a character.
#[derive(Component, Debug)]
#[relationship(relationship_target = SinewMeshes)]
pub struct SinewMeshOf(pub Entity);

/// A character's mesh entities (despawned with it).
#[derive(Component, Debug, Default)]
#[relationship_target(relationship = SinewMeshOf, linked_spawn)]
pub struct SinewMeshes(Vec<Entity>);

impl SinewMeshes {
    /// The mesh entities.
    pub fn entities(&self) -> &[Entity] {
        &self.0
    }
}

/// A character not yet instantiated: what its instantiation reads.
type NewCharacter<'a> = (
    Entity,
    &'a SinewCharacter,
    Option<&'a SinewMotion>,
    Option<&'a SinewRootMotion>,
    &'a Transform,
);

/// Instantiates the characters whose files have loaded.
#[allow(clippy::too_many_arguments)]
pub(crate) fn instantiate(
    mut commands: Commands,
    mut runtime: ResMut<SinewRuntime>,
    mut palette: ResMut<SinewPalette>,
    server: Res<AssetServer>,
    assets: Res<Assets<SinewAsset>>,
    mut images: ResMut<Assets<Image>>,
    mut buffers: ResMut<Assets<ShaderBuffer>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<SinewMaterial>>,
    new: Query<NewCharacter, (Without<SinewInstance>, Without<SinewSpawnFailed>)>,
) {
    for (entity, character, motion, root_motion, transform) in &new {
        let id = character.asset.id();
        let fail = |commands: &mut Commands, reason: String| {
            error!("sinew: character {entity} not spawned: {reason}");
            commands.entity(entity).insert(SinewSpawnFailed(reason));
        };
        if let Some(LoadState::Failed(e)) = server.get_load_state(id) {
            fail(&mut commands, e.to_string());
            continue;
        }
        let Some(asset) = assets.get(id) else {
            continue;
        };
        if character.rig >= asset.rigs.len() {
            let reason = format!(
                "rig {} asked of a file with {}",
                character.rig,
                asset.rigs.len()
            );
            fail(&mut commands, reason);
            continue;
        }
        let key = (id, character.rig);
        if !runtime.rigs.contains_key(&key) {
            let rig = &asset.rigs[character.rig];
            let index = match runtime.animator.add_rig(rig.clone()) {
                Ok(index) => index,
                Err(e) => {
                    fail(&mut commands, e.to_string());
                    continue;
                }
            };
            let joints = rig.joint_count() as u32;
            let mut bind_box = sinew::Aabb::EMPTY;
            let mut cache = ImageCache::default();
            let parts = rig
                .meshes
                .iter()
                .map(|m| {
                    bind_box.merge(&m.bind_aabb);
                    let base = standard_material(m.material.as_deref(), &mut cache, &mut images);
                    let material = materials.add(ExtendedMaterial {
                        base,
                        extension: SinewSkinning {
                            palette: palette.first_buffer(),
                            rig: UVec4::new(joints, m.morph.first_weight, m.morph.target_count, 0),
                            morph_deltas: if m.morph.is_empty() {
                                palette
                                    .no_morph
                                    .get_or_insert_with(|| {
                                        buffers.add(ShaderBuffer::new(
                                            &[0; 16],
                                            RenderAssetUsages::RENDER_WORLD,
                                        ))
                                    })
                                    .clone()
                            } else {
                                let (deltas, _) = pack_deltas(std::slice::from_ref(m));
                                buffers.add(ShaderBuffer::new(
                                    bytemuck::cast_slice(&deltas),
                                    RenderAssetUsages::RENDER_WORLD,
                                ))
                            },
                        },
                    });
                    palette.track(material.clone());
                    (meshes.add(skinned_mesh(m)), material)
                })
                .collect();
            runtime.fast = None;
            runtime.rigs.insert(
                key,
                RigEntry {
                    _asset: character.asset.clone(),
                    index,
                    meshes: parts,
                    bind_box,
                },
            );
        }
        let entry = &runtime.rigs[&key];
        let (rig, parts, bind_box) = (entry.index, entry.meshes.clone(), entry.bind_box);
        let hecs_entity =
            match spawn_runtime_entity(&mut runtime, entity, rig, motion, root_motion, transform) {
                Ok(e) => e,
                Err(e) => {
                    fail(&mut commands, e.to_string());
                    continue;
                }
            };
        let aabb = if bind_box.is_empty() {
            Aabb::from_min_max(Vec3::ZERO, Vec3::ZERO)
        } else {
            let m = transform.to_matrix();
            let (lo, hi) = (bind_box.min3(), bind_box.max3());
            let a = m.transform_point3(Vec3::new(lo.x, lo.y, lo.z));
            let b = m.transform_point3(Vec3::new(hi.x, hi.y, hi.z));
            Aabb::from_min_max(a.min(b), a.max(b))
        };
        for (mesh, material) in parts {
            commands.spawn((
                Mesh3d(mesh),
                MeshMaterial3d(material),
                MeshTag(0),
                Transform::IDENTITY,
                // Shown once the animator placed the character's palette block.
                Visibility::Hidden,
                aabb,
                NoAutoAabb,
                SinewMeshOf(entity),
            ));
        }
        commands.entity(entity).insert(SinewInstance {
            entity: hecs_entity,
            rig,
            palette_offset: None,
            placed_frame: 0,
        });
    }
}

/// The character's entity in sinew's world: its rig, transform, base motion and root motion.
fn spawn_runtime_entity(
    runtime: &mut SinewRuntime,
    owner: Entity,
    rig: u32,
    motion: Option<&SinewMotion>,
    root_motion: Option<&SinewRootMotion>,
    transform: &Transform,
) -> Result<hecs::Entity, RuntimeError> {
    let entity = runtime
        .world
        .spawn((Animated::new(rig), to_sinew(transform), BevyEntity(owner)));
    let result = add_motion(runtime, entity, rig, motion, root_motion);
    if let Err(e) = result {
        runtime.world.despawn(entity).ok();
        return Err(e);
    }
    Ok(entity)
}

fn add_motion(
    runtime: &mut SinewRuntime,
    entity: hecs::Entity,
    rig: u32,
    motion: Option<&SinewMotion>,
    root_motion: Option<&SinewRootMotion>,
) -> Result<(), RuntimeError> {
    match motion.cloned().unwrap_or_default() {
        SinewMotion::Rest => {}
        SinewMotion::Clip { name, speed } => {
            let playback = runtime.animator.playback(rig, &name)?.with_speed(speed);
            runtime.world.insert_one(entity, playback).ok();
        }
        SinewMotion::StateMachine(def) => {
            let id = runtime.state_machine_id(rig, &def)?;
            let machine = runtime.animator.state_machine(id)?;
            runtime.world.insert_one(entity, machine).ok();
        }
        SinewMotion::BlendSpace { name, def, input } => {
            let space = runtime.blend_space_id(rig, &name, &def)?;
            let input = glam::Vec2::new(input.x, input.y);
            let fade = runtime.animator.blend_space_fade(rig, space, input)?;
            runtime.world.insert_one(entity, fade).ok();
        }
    }
    if let Some(r) = root_motion {
        let joint = match &r.joint {
            Some(name) => runtime.animator.joint(rig, name)?,
            None => runtime.animator.root_joint(rig)?,
        };
        let translation = if r.vertical {
            RootTranslation::Xyz
        } else {
            RootTranslation::Xz
        };
        let root = RootMotion::new(joint, translation, r.yaw);
        runtime.world.insert_one(entity, root).ok();
    }
    Ok(())
}
/// A despawned character (or one whose [`SinewInstance`] was removed) leaves sinew's world; the
/// animator frees its palette block on its next update.
pub(crate) fn forget_character(
    remove: On<Remove, SinewInstance>,
    instances: Query<&SinewInstance>,
    mut runtime: ResMut<SinewRuntime>,
) {
    if let Ok(instance) = instances.get(remove.entity) {
        runtime.world.despawn(instance.entity).ok();
    }
}
