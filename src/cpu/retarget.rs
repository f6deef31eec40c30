//! Retargeted layers in the CPU backend ([`crate::CpuBackend::set_retargets`]): a layer whose
//! `clip` names a map ([`LayerRecord::retargeted`]) samples the map's source rig and retargets
//! per joint, as `wgsl/sample.wgsl` does with `wgsl/retarget.wgsl`; root motion reads the root
//! through the map's entry, as `layer_channel` in `wgsl/root_motion.wgsl` does. A map fits a
//! layer of an instance when it exists, drives the instance's rig and its source rig has the
//! layer's clip (as the GPU backend checks records before upload); a record naming one that does
//! not is refused before evaluation ([`check_retargeted`]).

use glam::Vec4;

use super::clip_source::{ClipSource, sample_channel_from, sample_joint_from};
use crate::baked::retarget_map::{RetargetBinding, RetargetMap, retarget_sample};
use crate::baked::{Channel, Rig};
use crate::error::EvalError;
use crate::instance::{LayerRecord, MAX_LAYERS};
use crate::math::Sqt;

/// Where one layer's samples come from: its instance's rig's clip, or a source rig's clip
/// through a map (plain or mirrored).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) enum LayerClips<'a> {
    /// The instance's rig.
    #[default]
    Own,
    /// `source`'s clip `clip` through `map`.
    Mapped {
        map: &'a RetargetMap,
        source: &'a Rig,
        clip: usize,
    },
}

/// The source of each layer of a record, bottom first.
pub(crate) type RecordClips<'a> = [LayerClips<'a>; MAX_LAYERS];

/// The map and source rig layer `layer` of an instance of `rig` reads: `None` for a layer
/// of the instance's own clips, `Some(Err(reason))` when it names a map that does not fit.
fn mapped<'a>(
    rigs: &'a [Rig],
    retargets: &'a [RetargetBinding],
    rig_index: u32,
    layer: &LayerRecord,
) -> Option<Result<LayerClips<'a>, String>> {
    let (m, clip) = layer.retarget()?;
    let Some(b) = retargets.get(m) else {
        return Some(Err(format!(
            "a layer names retarget map {m}, {} are set",
            retargets.len()
        )));
    };
    if b.target != rig_index {
        return Some(Err(format!(
            "retarget map {m} drives rig {}, not {rig_index}",
            b.target
        )));
    }
    let Some(rig) = rigs.get(rig_index as usize) else {
        return Some(Err(format!("no rig {rig_index}")));
    };
    let map = match layer.flags & LayerRecord::MIRROR {
        0 => &b.map,
        _ => &b.mirrored,
    };
    let Some(source) = rigs.get(b.source as usize) else {
        return Some(Err(format!("retarget map {m} names rig {}", b.source)));
    };
    if map.entries().len() != rig.joint_count() || map.source_joint_count() != source.joint_count()
    {
        return Some(Err(format!(
            "retarget map {m} is for {} target joints, the instance's rig has {}",
            map.entries().len(),
            rig.joint_count()
        )));
    }
    if clip >= source.clips.clip_count() {
        return Some(Err(format!(
            "a layer plays clip {clip} of retarget map {m}'s source rig, which has {}",
            source.clips.clip_count()
        )));
    }
    Some(Ok(LayerClips::Mapped { map, source, clip }))
}

/// The source of `layer` of an instance of `rig` when the layer plays (its clip is one of
/// `rig`'s, or it names a map that fits), as the kernel's root motion reads it.
pub(crate) fn playing_clips<'a>(
    rigs: &'a [Rig],
    retargets: &'a [RetargetBinding],
    rig: &Rig,
    rig_index: u32,
    layer: &LayerRecord,
) -> Option<LayerClips<'a>> {
    match mapped(rigs, retargets, rig_index, layer) {
        None => ((layer.clip as usize) < rig.clips.clip_count()).then_some(LayerClips::Own),
        Some(Ok(clips)) => Some(clips),
        Some(Err(_)) => None,
    }
}

/// Checks that every retargeted layer of `layers` (of an instance of rig `rig`) names a map
/// that fits it; returns whether any layer is retargeted.
pub(crate) fn check_retargeted(
    rigs: &[Rig],
    retargets: &[RetargetBinding],
    rig: u32,
    layers: &[LayerRecord],
) -> Result<bool, EvalError> {
    let mut any = false;
    for layer in layers {
        match mapped(rigs, retargets, rig, layer) {
            None => {}
            Some(Ok(_)) => any = true,
            Some(Err(reason)) => return Err(EvalError::BadLayer { reason }),
        }
    }
    Ok(any)
}

/// Fills `out` with the source of each of `layers` (checked by [`check_retargeted`]; a map
/// that does not fit reads as the instance's own clip, which validation has refused).
pub(crate) fn record_clips<'a>(
    rigs: &'a [Rig],
    retargets: &'a [RetargetBinding],
    rig: u32,
    layers: &[LayerRecord],
    out: &mut RecordClips<'a>,
) {
    for (slot, layer) in out.iter_mut().zip(layers) {
        *slot = match mapped(rigs, retargets, rig, layer) {
            Some(Ok(clips)) => clips,
            _ => LayerClips::Own,
        };
    }
}

/// Joint `joint` of a layer of `rig` at clip time `time`: clip `clip` of `rig`, or through the
/// layer's map (twin of `sample_layer_joint` in `wgsl/sample.wgsl`).
#[inline]
pub(crate) fn sample_layer_joint(
    rig: &Rig,
    source: ClipSource,
    clips: LayerClips,
    clip: usize,
    joint: usize,
    time: f32,
) -> Sqt {
    match clips {
        LayerClips::Own => sample_joint_from(rig, source, clip, joint, time),
        LayerClips::Mapped {
            map,
            source: from,
            clip,
        } => {
            let entry = &map.entries()[joint];
            let sample = match entry.source {
                Some(s) => sample_joint_from(from, source, clip, s as usize, time),
                None => Sqt::IDENTITY,
            };
            retarget_sample(entry, map.plane(), &sample)
        }
    }
}

/// Channel `channel` (translation or rotation) of `joint` of a layer of `rig` at clip time
/// `time`, as [`sample_channel_from`] gives it: through the layer's map, the source joint's
/// translation and rotation retargeted at unit scale (twin of `layer_channel` in
/// `wgsl/root_motion.wgsl`).
#[inline]
pub(crate) fn layer_channel(
    rig: &Rig,
    source: ClipSource,
    clips: LayerClips,
    clip: usize,
    joint: usize,
    channel: Channel,
    time: f32,
) -> Vec4 {
    let LayerClips::Mapped {
        map,
        source: from,
        clip,
    } = clips
    else {
        return sample_channel_from(rig, source, clip, joint, channel, time);
    };
    let entry = &map.entries()[joint];
    let mut sample = Sqt::IDENTITY;
    if let Some(s) = entry.source {
        let s = s as usize;
        let t = sample_channel_from(from, source, clip, s, Channel::Translation, time);
        let q = sample_channel_from(from, source, clip, s, Channel::Rotation, time);
        sample.translation = t.truncate();
        sample.rotation = glam::Quat::from_vec4(q);
    }
    let out = retarget_sample(entry, map.plane(), &sample);
    match channel {
        Channel::Rotation => Vec4::from(out.rotation),
        _ => out.translation.extend(0.0),
    }
}

impl super::CpuBackend {
    /// Sets the retarget maps retargeted layers name ([`LayerRecord::retargeted`], by index in
    /// `retargets`; [`LayerRecord::MIRROR`] reads a binding's mirror), as
    /// [`crate::GpuBackend::set_retargets`] uploads them: evaluation and root motion then
    /// retarget per joint as the kernel does. Fails with [`EvalError::BadLayer`] naming the
    /// binding when one names a rig the backend does not have or does not fit its rigs'
    /// skeletons.
    pub fn set_retargets(&mut self, retargets: &[RetargetBinding]) -> Result<(), EvalError> {
        for (i, b) in retargets.iter().enumerate() {
            let rig = |r: u32| self.rigs.get(r as usize);
            let fits = match (rig(b.source), rig(b.target)) {
                (Some(s), Some(t)) => [&b.map, &b.mirrored].iter().all(|m| {
                    m.source_joint_count() == s.joint_count()
                        && m.entries().len() == t.joint_count()
                }),
                _ => false,
            };
            if !fits {
                return Err(EvalError::BadLayer {
                    reason: format!(
                        "retarget map {i} (rig {} to rig {}) does not fit the backend's {} rigs",
                        b.source,
                        b.target,
                        self.rigs.len()
                    ),
                });
            }
        }
        self.retargets = retargets.to_vec();
        self.refresh_map_reads();
        self.frame.forget_checked();
        Ok(())
    }

    /// The retarget maps set ([`super::CpuBackend::set_retargets`]).
    pub fn retargets(&self) -> &[RetargetBinding] {
        &self.retargets
    }
}
