//! A retarget map bound to two rigs of a backend's library: what both backends read per
//! retargeted layer ([`crate::LayerRecord::retargeted`]): the GPU's key-value table
//! (`src/gpu/retarget.rs`) and the CPU backend ([`crate::CpuBackend::set_retargets`]).

use super::RetargetMap;
use crate::baked::Rig;
use crate::error::GpuError;
use crate::math::MirrorPlane;

/// A retarget map bound to a backend's rigs: layers of instances of rig `target` name it
/// ([`crate::LayerRecord::retargeted`]) to play clips of rig `source` through `map`, or through
/// its mirror (with [`crate::LayerRecord::MIRROR`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RetargetBinding {
    /// The rig whose clips are played (index in the library's rigs).
    pub source: u32,
    /// The rig that plays them.
    pub target: u32,
    /// The map from `source`'s skeleton to `target`'s.
    pub map: RetargetMap,
    /// Its mirror (across the target's X = 0 plane unless bound with
    /// [`RetargetBinding::with_mirror_plane`]).
    pub mirrored: RetargetMap,
}

impl RetargetBinding {
    /// Binds `map` from rig `source` to rig `target` of `rigs`, with its mirror across the
    /// target's X = 0 plane. Fails when a rig does not exist, the map does not fit their
    /// skeletons or its mirror is ambiguous.
    pub fn new(rigs: &[Rig], source: u32, target: u32, map: RetargetMap) -> Result<Self, GpuError> {
        Self::with_mirror_plane(rigs, source, target, map, MirrorPlane::X)
    }

    /// [`RetargetBinding::new`] with the mirror across `plane` (a target whose left and right
    /// lie along another model axis); the plane goes up with the mirror's row.
    pub fn with_mirror_plane(
        rigs: &[Rig],
        source: u32,
        target: u32,
        map: RetargetMap,
        plane: MirrorPlane,
    ) -> Result<Self, GpuError> {
        let rig = |i: u32| {
            rigs.get(i as usize).ok_or_else(|| {
                GpuError::Validation(format!("retarget map names rig {i}, {} exist", rigs.len()))
            })
        };
        let (s, t) = (rig(source)?, rig(target)?);
        if map.entries().len() != t.joint_count() || map.source_joint_count() != s.joint_count() {
            return Err(GpuError::Validation(format!(
                "retarget map from rig {source} to rig {target}: its joint counts ({} to {}) are \
                 not the rigs' ({} to {})",
                map.source_joint_count(),
                map.entries().len(),
                s.joint_count(),
                t.joint_count()
            )));
        }
        let mirrored = map
            .mirrored(&t.skeleton, plane)
            .map_err(|e| GpuError::Validation(e.to_string()))?;
        Ok(Self {
            source,
            target,
            map,
            mirrored,
        })
    }
}
