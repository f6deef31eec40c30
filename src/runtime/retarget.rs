//! Retargeted entities: an entity of one rig playing another rig's clips through a retarget
//! map registered with the animator ([`Animator::add_retarget_map`]), optionally mirrored. Its
//! base and layers name clips of the map's source rig (state machines, blend spaces and
//! events of that rig drive it); its record's layers name the map
//! ([`LayerRecord::retargeted`], [`LayerRecord::MIRROR`]), so the GPU kernel retargets per
//! instance and joint (upload the maps with [`crate::GpuBackend::set_retargets`]).

use super::RuntimeError;
use super::system::Animator;
use crate::baked::retarget_map::{RetargetBinding, RetargetMap, SavedEntry};
use crate::instance::LayerRecord;
use crate::math::MirrorPlane;

/// Plays an entity's motion from another rig's clips: through retarget map `map` of its
/// animator ([`Animator::add_retarget_map`]), whose target must be the entity's rig, or through
/// its mirror across the target's X = 0 plane when `mirror` is set. Every clip, blend space,
/// state machine and event table the entity's base and layers name is then the map's source
/// rig's; masks stay the entity's rig's.
///
/// The CPU evaluation ([`Animator::evaluate_cpu`]), attachments to the entity and root motion
/// (on the CPU, through the map's entry for the root, or on the GPU) follow the map as the
/// kernel does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Retargeted {
    /// Index from [`Animator::add_retarget_map`].
    pub map: u32,
    /// Play through the map's mirror (left and right swapped).
    #[serde(default)]
    pub mirror: bool,
}

impl Retargeted {
    /// Through map `map`, not mirrored.
    pub const fn new(map: u32) -> Self {
        Self { map, mirror: false }
    }

    /// The same, mirrored.
    pub const fn mirrored(self) -> Self {
        Self {
            mirror: true,
            ..self
        }
    }

    /// Its controller configuration, its map's source rig being named `source`.
    pub(crate) fn config(&self, source: &str) -> RetargetConfig {
        RetargetConfig {
            source: source.to_string(),
            mirror: self.mirror,
        }
    }
}

/// The rig an entity plays clips of, through the first retarget map registered from it to the
/// entity's rig ([`crate::runtime::Animator::add_retarget_map`]), and whether mirrored.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RetargetConfig {
    /// The source rig's name.
    pub source: String,
    /// Through the map's mirror.
    #[serde(default)]
    pub mirror: bool,
}

/// A registered retarget map in an [`crate::runtime::AnimatorConfig`]: its rigs by name, its
/// entries by joint name with the corrections it was built with ([`RetargetMap::saved`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RetargetMapConfig {
    /// The source rig's name.
    pub source: String,
    /// The target rig's name.
    pub target: String,
    /// One entry per target joint.
    pub joints: Vec<SavedEntry>,
    /// The plane its mirror reflects across ([`Animator::add_retarget_map_mirrored_across`]).
    #[serde(default, skip_serializing_if = "is_x")]
    pub mirror_plane: MirrorAxis,
}

/// The model axis normal to a mirror plane, as configurations name it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MirrorAxis {
    /// The plane x = 0: left and right along X (a biped facing ±Z).
    #[default]
    X,
    /// The plane y = 0.
    Y,
    /// The plane z = 0 (a biped facing ±X).
    Z,
}

impl MirrorAxis {
    /// The plane.
    pub const fn plane(self) -> MirrorPlane {
        match self {
            Self::X => MirrorPlane::X,
            Self::Y => MirrorPlane::Y,
            Self::Z => MirrorPlane::Z,
        }
    }

    /// The axis normal to `plane`.
    pub const fn of(plane: MirrorPlane) -> Self {
        match plane.0 {
            0 => Self::X,
            1 => Self::Y,
            _ => Self::Z,
        }
    }
}

fn is_x(axis: &MirrorAxis) -> bool {
    *axis == MirrorAxis::X
}

/// Most retarget maps an animator holds: a record names one in 16 bits (map index + 1).
pub const MAX_RETARGET_MAPS: usize = 0xfffe;

impl Animator {
    /// Registers `map` from rig `source`'s skeleton to rig `target`'s, with its mirror across
    /// the target's X = 0 plane, and returns its index (for [`Retargeted::map`]); the CPU
    /// evaluation ([`Animator::evaluate_cpu`]) reads it from then on. Fails when a rig does not
    /// exist, the map does not fit their skeletons, its mirror is ambiguous, or
    /// [`MAX_RETARGET_MAPS`] are registered.
    pub fn add_retarget_map(
        &mut self,
        source: u32,
        target: u32,
        map: RetargetMap,
    ) -> Result<u32, RuntimeError> {
        self.add_retarget_map_mirrored_across(source, target, map, MirrorPlane::X)
    }

    /// [`Animator::add_retarget_map`] with the map's mirror across `plane` of the target's
    /// model space (a target whose left and right lie along another axis).
    pub fn add_retarget_map_mirrored_across(
        &mut self,
        source: u32,
        target: u32,
        map: RetargetMap,
        plane: MirrorPlane,
    ) -> Result<u32, RuntimeError> {
        let (s, t) = (self.rig_ref(source)?, self.rig_ref(target)?);
        if map.source_joint_count() != s.joint_count() || map.entries().len() != t.joint_count() {
            return Err(RuntimeError::InvalidRetargetMap {
                source_rig: s.name.clone(),
                target_rig: t.name.clone(),
                reason: format!(
                    "the map is from {} joints to {}, the rigs have {} and {}",
                    map.source_joint_count(),
                    map.entries().len(),
                    s.joint_count(),
                    t.joint_count()
                ),
            });
        }
        if self.retarget_maps().len() >= MAX_RETARGET_MAPS {
            return Err(RuntimeError::InvalidRetargetMap {
                source_rig: s.name.clone(),
                target_rig: t.name.clone(),
                reason: format!("{MAX_RETARGET_MAPS} maps are registered already"),
            });
        }
        let rigs = self.rigs();
        let binding = RetargetBinding::with_mirror_plane(rigs, source, target, map, plane)
            .map_err(|e| RuntimeError::InvalidRetargetMap {
                source_rig: s.name.clone(),
                target_rig: t.name.clone(),
                reason: e.to_string(),
            })?;
        let mut retargets = self.backend.retargets().to_vec();
        retargets.push(binding);
        self.backend.set_retargets(&retargets)?;
        Ok((retargets.len() - 1) as u32)
    }

    /// The registered retarget maps, in order, by rig and joint names.
    pub(crate) fn retarget_map_configs(&self) -> Vec<RetargetMapConfig> {
        let rigs = self.rigs();
        (self.retarget_maps().iter())
            .map(|b| {
                let (source, target) = (&rigs[b.source as usize], &rigs[b.target as usize]);
                RetargetMapConfig {
                    source: source.name.clone(),
                    target: target.name.clone(),
                    joints: b.map.saved(&source.skeleton, &target.skeleton),
                    mirror_plane: MirrorAxis::of(b.mirrored.plane()),
                }
            })
            .collect()
    }

    /// Registers the map `config` describes ([`Animator::add_retarget_map`]) and returns its
    /// index; fails naming the rigs and the entry at fault.
    pub(crate) fn load_retarget_map(
        &mut self,
        config: &RetargetMapConfig,
    ) -> Result<u32, RuntimeError> {
        let (source, target) = (self.rig(&config.source)?, self.rig(&config.target)?);
        let rigs = self.rigs();
        let (s, t) = (
            &rigs[source as usize].skeleton,
            &rigs[target as usize].skeleton,
        );
        let map = RetargetMap::from_saved("configuration", s, t, &config.joints).map_err(|e| {
            RuntimeError::InvalidRetargetMap {
                source_rig: config.source.clone(),
                target_rig: config.target.clone(),
                reason: format!("{}: {}", e.object, e.reason),
            }
        })?;
        self.add_retarget_map_mirrored_across(source, target, map, config.mirror_plane.plane())
    }

    /// The registered retarget maps, by index: what a GPU backend uploads
    /// ([`crate::GpuBackend::set_retargets`], in this order).
    pub fn retarget_maps(&self) -> &[RetargetBinding] {
        self.backend.retargets()
    }

    /// The rig whose clips an entity of rig `rig` configured with `config` plays, and its
    /// component: the first map registered from the named source rig to `rig`.
    pub(crate) fn retargeted_from(
        &self,
        rig: u32,
        config: Option<&RetargetConfig>,
    ) -> Result<(u32, Option<Retargeted>), RuntimeError> {
        let Some(r) = config else {
            return Ok((rig, None));
        };
        let source = self.rig(&r.source)?;
        let target = self.rig_ref(rig)?.name.clone();
        let map = (self.retarget_maps().iter())
            .position(|m| m.source == source && m.target == rig)
            .ok_or_else(|| RuntimeError::InvalidRetargetMap {
                source_rig: r.source.clone(),
                target_rig: target,
                reason: "no retarget map is registered between them".to_string(),
            })?;
        let retargeted = Retargeted::new(map as u32);
        Ok((
            source,
            Some(if r.mirror {
                retargeted.mirrored()
            } else {
                retargeted
            }),
        ))
    }

    /// The rig whose clips an entity of rig `rig` with `retargeted` plays: `rig` itself, or
    /// the map's source (`None` when the map does not exist or is not for `rig`).
    pub(crate) fn motion_rig(&self, rig: u32, retargeted: Option<&Retargeted>) -> Option<u32> {
        motion_rig(self.retarget_maps(), rig, retargeted)
    }
}

/// See [`Animator::motion_rig`].
pub(crate) fn motion_rig(
    maps: &[RetargetBinding],
    rig: u32,
    retargeted: Option<&Retargeted>,
) -> Option<u32> {
    match retargeted {
        None => Some(rig),
        Some(r) => maps
            .get(r.map as usize)
            .filter(|m| m.target == rig)
            .map(|m| m.source),
    }
}

/// Turns `layers` (clips of the map's source rig) into layers through `retargeted`'s map.
/// Returns false when a clip index does not fit a retargeted record's 16 bits.
pub(crate) fn retarget_layers(layers: &mut [LayerRecord], retargeted: &Retargeted) -> bool {
    let Ok(map) = u16::try_from(retargeted.map) else {
        return false;
    };
    let mut ok = true;
    for layer in layers {
        let Ok(clip) = u16::try_from(layer.clip) else {
            ok = false;
            continue;
        };
        layer.clip = LayerRecord::retargeted(clip, map);
        if retargeted.mirror {
            layer.flags |= LayerRecord::MIRROR;
        }
    }
    ok
}
