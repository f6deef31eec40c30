//! The inertialization blocks of one CPU evaluation ([`InertialCopies`]): captured into the
//! caller's palette where a block does not hold its transition yet, then copied out, since the
//! parallel evaluation holds the palette in disjoint pieces and a block lies apart from its
//! instance's. Both CPU backends keep one.

use crate::baked::Rig;
use crate::baked::retarget_map::RetargetBinding;
use crate::error::EvalError;
use crate::instance::InstanceRecord;
use crate::mask::JointMask;
use crate::math::Mat3x4Rows;

use super::inertial::{InertialView, InertialWords, capture_inertialization_with};
use super::{ClipSource, retarget, validate_record};

/// This frame's inertialization blocks, copied out of the palette after their capture.
#[derive(Clone, Debug, Default)]
pub(crate) struct InertialCopies {
    /// The blocks' words, one block after another.
    words: Vec<InertialWords>,
    /// Per record, where its block starts in `words` (`u32::MAX`: none).
    at: Vec<u32>,
}

impl InertialCopies {
    /// Captures the inertialized transitions of `instances` still decaying at frame time `now`
    /// whose blocks in `palette` do not hold them yet ([`super::capture_inertialization`],
    /// sampling `source`), each record checked first, and copies their blocks. A decayed
    /// transition's block is left alone: it may be another instance's by now (as the kernel
    /// does).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn capture(
        &mut self,
        rigs: &[Rig],
        masks: &[JointMask],
        retargets: &[RetargetBinding],
        source: ClipSource,
        instances: &[InstanceRecord],
        palette: &mut [Mat3x4Rows],
        now: f32,
    ) -> Result<(), EvalError> {
        self.words.clear();
        self.at.clear();
        for (i, rec) in instances.iter().enumerate() {
            let decaying = |t: &crate::Inertialization| now - t.start < t.duration;
            let Some(t) = rec
                .inertialization()
                .filter(|t| !rec.is_empty() && decaying(t))
            else {
                continue;
            };
            validate_record(rigs, masks, retargets, rec, palette.len())?;
            let rig = &rigs[rec.rig as usize];
            let range = t.block as usize..t.block_end(rig.joint_count()) as usize;
            let words: &mut [InertialWords] = bytemuck::cast_slice_mut(&mut palette[range]);
            // Retargeted layers, outgoing or incoming, read their map's source rig.
            let (mut outgoing, mut incoming): (retarget::RecordClips, retarget::RecordClips) =
                Default::default();
            let clips: [&[retarget::LayerClips]; 2] = if retargets.is_empty() {
                [&[], &[]]
            } else {
                retarget::record_clips(
                    rigs,
                    retargets,
                    rec.rig,
                    rec.outgoing_layers(),
                    &mut outgoing,
                );
                retarget::record_clips(rigs, retargets, rec.rig, rec.used_layers(), &mut incoming);
                [&outgoing[..], &incoming[..]]
            };
            capture_inertialization_with(rig, source, masks, rec, clips, words);
            if self.at.len() < instances.len() {
                self.at.resize(instances.len(), u32::MAX);
            }
            self.at[i] = self.words.len() as u32;
            self.words.extend_from_slice(words);
        }
        Ok(())
    }

    /// Whether no record of the last capture is inertialized.
    pub(crate) fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Record `i`'s inertialization at frame time `now`, if it has one still decaying.
    pub(crate) fn view(
        &self,
        i: usize,
        rec: &InstanceRecord,
        now: f32,
    ) -> Option<InertialView<'_>> {
        let t = rec.inertialization()?;
        let at = *self.at.get(i)? as usize;
        InertialView::of(&t, self.words.get(at..)?, now)
    }
}
