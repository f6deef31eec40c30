//! The clip markers section of a `.sinew` file (layout in `file.rs`): each clip's sync markers.
//! Written only for a rig with a marker; a file without it (every file before version 9) has
//! clips without markers.

use super::container::{Section, SectionId, SectionKind, SectionTable};
use super::section::{SectionReader, SectionWriter, count};
use crate::baked::{ClipLibrary, ClipMarker};
use crate::error::FormatErrorKind;

/// The first version with clip markers.
pub(super) const FIRST_MARKER_VERSION: u32 = 9;

/// The markers section of rig `r`, when one of its clips has a marker.
pub(super) fn rig_section(clips: &ClipLibrary, r: u32) -> Option<Section> {
    let all = || {
        clips
            .clips()
            .iter()
            .enumerate()
            .flat_map(|(c, info)| info.markers.iter().map(move |m| (count(c), m)))
    };
    let n = all().count();
    if n == 0 {
        return None;
    }
    let mut w = SectionWriter::default();
    w.u32(count(n));
    w.array(&all().map(|(c, _)| c).collect::<Vec<u32>>());
    w.array(&all().map(|(_, m)| m.time).collect::<Vec<f32>>());
    w.strings(all().map(|(_, m)| m.name.as_str()));
    Some(Section {
        id: SectionId::of(SectionKind::Markers, r),
        body: w.finish(),
    })
}

/// Decodes the markers section of rig `r` (none: no markers) into `clips`, checking that each
/// marker names a clip, lies within it and follows the one before in time.
pub(super) fn decode_rig(
    table: &mut SectionTable<'_>,
    r: u32,
    clips: &mut ClipLibrary,
) -> Result<(), FormatErrorKind> {
    let id = SectionId::of(SectionKind::Markers, r);
    let Some(body) = table.take_since(id, FIRST_MARKER_VERSION) else {
        return Ok(());
    };
    let mut rd = SectionReader::new(body, id);
    let n = rd.u32("marker count")?;
    let owners: Vec<u32> = rd.array(n, "marker clips")?;
    let times: Vec<f32> = rd.array(n, "marker times")?;
    let names = rd.strings(n, "marker names")?;
    let corrupt = |reason: String| rd.corrupt(reason);
    for (k, ((c, time), name)) in owners.into_iter().zip(times).zip(names).enumerate() {
        let Some(info) = clips.clips.get_mut(c as usize) else {
            return Err(corrupt(format!(
                "marker {k} names clip {c}, which does not exist"
            )));
        };
        let after = info.markers.last().is_none_or(|m| m.time <= time);
        if name.is_empty() || !(time.is_finite() && (0.0..=info.duration).contains(&time)) || !after
        {
            return Err(corrupt(format!(
                "marker {k} of clip {c} is unnamed, outside the clip or out of order"
            )));
        }
        info.markers.push(ClipMarker { time, name });
    }
    rd.finish()
}
