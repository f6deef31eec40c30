//! Content added to a running [`Animator`] (streaming in): new rigs after the others, and new
//! clips for a rig that entities already play — as a re-baked rig that keeps the old clips,
//! bit for bit, in front of the new ones. Existing entities keep playing exactly as before
//! (their rig and clip indices stay valid, their keys are the same); new entities use the new
//! content. A GPU backend takes the same rigs through [`crate::GpuBackend::update_rigs`].

use std::ops::Range;

use super::RuntimeError;
use super::events::{ClipEvents, EventQueue};
use super::registry::RigData;
use super::system::Animator;
use crate::baked::{ClipLibrary, Rig};
use crate::cpu::ClipSource;
use crate::import::RawClip;

/// The animator's per-rig data for `rig`: every clip must last a positive, finite time. The
/// clips' baked sync markers come along, their names interned in `names`.
pub(crate) fn rig_data(rig: &Rig, names: &mut EventQueue) -> Result<RigData, RuntimeError> {
    rig.check_parts()
        .map_err(|reason| RuntimeError::InvalidRig {
            rig: rig.name.clone(),
            reason,
        })?;
    let durations: Vec<f32> = rig.clips.clips().iter().map(|c| c.duration).collect();
    // A duration of 0 is a pose (a one-key clip), which plays as a constant.
    let usable = |d: f32| d >= 0.0 && d.is_finite();
    if let Some(c) = rig.clips.clips().iter().find(|c| !usable(c.duration)) {
        return Err(RuntimeError::InvalidClipDuration {
            rig: rig.name.clone(),
            clip: c.name.clone(),
            duration: c.duration,
        });
    }
    Ok(RigData {
        events: vec![ClipEvents::default(); durations.len()],
        markers: rig
            .clips
            .clips()
            .iter()
            .map(|c| {
                c.markers
                    .iter()
                    .map(|m| (m.time, names.intern(&m.name)))
                    .collect()
            })
            .collect(),
        durations,
        spaces: Vec::new(),
        root_frames: crate::cpu::RootFrame::table(rig),
    })
}

impl Animator {
    /// Registers `rig` after the existing rigs and returns its index. Its name must be new.
    pub fn add_rig(&mut self, rig: Rig) -> Result<u32, RuntimeError> {
        if self.rig(&rig.name).is_ok() {
            return Err(RuntimeError::DuplicateName {
                what: "rig",
                name: rig.name,
            });
        }
        let data = rig_data(&rig, &mut self.events)?;
        let index = self.backend.add_rig(rig)?;
        self.rigs.push(data);
        Ok(index)
    }

    /// Replaces rig `index` by `rig`, a re-baked version of it with more clips: the same name,
    /// skeleton, meshes, skins, bounds and morph targets, and the old clips first, with the same
    /// keys (checked); the clips after them are new. Events, masks, blend spaces and state
    /// machines registered for the rig stay, and its entities play on unchanged. An animator
    /// [`Animator::with_compressed`] compresses a replacement without [`Rig::compressed`].
    pub fn replace_rig(&mut self, index: u32, rig: Rig) -> Result<(), RuntimeError> {
        let old = self.rig_ref(index)?;
        let incompatible = |reason: String| RuntimeError::IncompatibleRig {
            rig: old.name.clone(),
            reason,
        };
        if rig.name != old.name {
            return Err(incompatible(format!(
                "the replacement is named {:?}",
                rig.name
            )));
        }
        let same_parts = rig.skeleton == old.skeleton
            && rig.meshes == old.meshes
            && rig.skins == old.skins
            && rig.joint_bounds == old.joint_bounds
            && rig.morph == old.morph;
        if !same_parts {
            return Err(incompatible(
                "its skeleton, meshes, skins, bounds or morph targets differ".to_string(),
            ));
        }
        let kept = old.clips.clip_count();
        if let Some(c) = (0..kept).find(|&c| !rig.clips.same_clip(c, &old.clips, c)) {
            return Err(incompatible(format!(
                "clip #{c} ({:?}) is not the same as before",
                old.clips.clips()[c].name
            )));
        }
        let mut data = rig_data(&rig, &mut self.events)?;
        let name = rig.name.clone();
        let mut rig = rig;
        if self.clip_source() == ClipSource::Compressed && rig.compressed.is_none() {
            rig.compress(crate::DEFAULT_ERROR_BUDGET)?;
        }
        if !self.backend.set_rig(index, rig) {
            return Err(RuntimeError::UnknownRig { rig: name });
        }
        let current = &mut self.rigs[index as usize];
        data.spaces = std::mem::take(&mut current.spaces);
        for (new, old) in data.events.iter_mut().zip(current.events.drain(..)) {
            *new = old;
        }
        // Markers set at run time join the new rig's baked ones.
        for (new, old) in data.markers.iter_mut().zip(current.markers.drain(..)) {
            for (time, name) in old.iter() {
                new.insert(time, name);
            }
        }
        *current = data;
        Ok(())
    }

    /// Appends `clips` (tracks over rig `index`'s joint indices, as [`ClipLibrary::build`]
    /// takes them) to the rig by re-baking its clip library ([`Animator::replace_rig`]), and
    /// returns the new clips' indices. Clip names must be new to the rig.
    pub fn add_clips(&mut self, index: u32, clips: &[RawClip]) -> Result<Range<u32>, RuntimeError> {
        let old = self.rig_ref(index)?;
        if let Some(c) = clips
            .iter()
            .find(|c| old.clips.find_clip(&c.name).is_some())
        {
            return Err(RuntimeError::DuplicateName {
                what: "clip",
                name: c.name.clone(),
            });
        }
        let mut all = old.clips.to_raw_clips();
        let mut durations: Vec<f32> = old.clips.clips().iter().map(|c| c.duration).collect();
        let first = all.len() as u32;
        all.extend_from_slice(clips);
        durations.extend(clips.iter().map(RawClip::duration));
        let library = ClipLibrary::build_with_durations(&old.skeleton, &all, &durations, &old.name)
            .map_err(|e| RuntimeError::InvalidRig {
                rig: old.name.clone(),
                reason: e.to_string(),
            })?;
        let mut rig = old.clone();
        rig.clips = library;
        // Compressed clips of the old library no longer describe it.
        rig.compressed = None;
        self.replace_rig(index, rig)?;
        Ok(first..first + clips.len() as u32)
    }
}
