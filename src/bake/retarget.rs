//! Clips from another file applied to an existing rig, matched by joint name.

use super::Rig;
use crate::error::ImportError;
use crate::import::{Channel, RawAsset, RawClip, RawTrack, RawWeightTrack};

/// A channel of the source file that no joint of the rig is named after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnmatchedChannel {
    /// Index of the clip in the source file.
    pub clip: usize,
    /// Name of the node the channel animates.
    pub node: String,
    /// The animated property.
    pub channel: Channel,
}

/// What [`retarget_clips`] could not place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RetargetReport {
    /// Channels whose target node matched no joint name.
    pub unmatched: Vec<UnmatchedChannel>,
}

/// Returns `rig` with every clip of `source` appended to its clip library, tracks matched to
/// joints by node name, plus the channels that matched nothing. Morph weight tracks are matched
/// to the rig's morph nodes by node name (with the same target count); the others are dropped.
pub fn retarget_clips(rig: &Rig, source: &RawAsset) -> Result<(Rig, RetargetReport), ImportError> {
    let mut report = RetargetReport::default();
    let mut clips = rig.clips.to_raw_clips();
    for (c, clip) in clips.iter_mut().enumerate() {
        clip.weights = rig.morph.raw_weight_tracks(&rig.clips, c);
    }
    let mut durations: Vec<f32> = rig.clips.clips().iter().map(|c| c.duration).collect();
    for (c, clip) in source.clips.iter().enumerate() {
        let mut tracks = Vec::new();
        for t in &clip.tracks {
            let node = &source.nodes[t.target].name;
            match rig.skeleton.find_joint(node) {
                Some(joint) => tracks.push(RawTrack {
                    target: joint,
                    ..t.clone()
                }),
                None => report.unmatched.push(UnmatchedChannel {
                    clip: c,
                    node: node.clone(),
                    channel: t.channel,
                }),
            }
        }
        let weights = clip
            .weights
            .iter()
            .filter_map(|w| {
                let name = &source.nodes.get(w.target)?.name;
                let node = rig.morph.nodes().iter().find(|n| &n.name == name)?;
                (node.target_count as usize == w.target_count).then(|| RawWeightTrack {
                    target: node.node as usize,
                    ..w.clone()
                })
            })
            .collect();
        durations.push(clip.duration());
        clips.push(RawClip {
            name: clip.name.clone(),
            tracks,
            weights,
        });
    }
    let mut library =
        super::ClipLibrary::build_with_durations(&rig.skeleton, &clips, &durations, &source.file)?;
    super::morph::bake_weight_tracks(&mut library, &rig.morph, &clips, &source.file)?;
    Ok((
        Rig {
            clips: library,
            ..rig.clone()
        },
        report,
    ))
}
