//! Clips from another file applied to an existing rig, matched by joint name.

use super::Rig;
use super::clip_library::{check_duration, check_track};
use super::rig::check_target;
use crate::baked::Channel;
use crate::error::{ImportError, ImportErrorKind};
use crate::import::{RawAsset, RawClip, RawTrack, RawWeightTrack};

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
///
/// Fails when a source track targets a node `source` does not have, two source tracks of one
/// clip land on the same property of one joint, or a source clip or its keys cannot be baked
/// (as in [`super::ClipLibrary::build`]).
pub fn retarget_clips(rig: &Rig, source: &RawAsset) -> Result<(Rig, RetargetReport), ImportError> {
    let mut report = RetargetReport::default();
    let mut clips = rig.clips.to_raw_clips();
    for (c, clip) in clips.iter_mut().enumerate() {
        clip.weights = rig.morph.raw_weight_tracks(&rig.clips, c);
    }
    let mut durations: Vec<f32> = rig.clips.clips().iter().map(|c| c.duration).collect();
    // The source's clips are checked here, numbered as in the source: the library below
    // numbers them after the rig's own.
    let mut seen = vec![false; rig.joint_count() * 3];
    for (c, clip) in source.clips.iter().enumerate() {
        seen.fill(false);
        let mut tracks = Vec::new();
        for (k, t) in clip.tracks.iter().enumerate() {
            check_target(source, t.target, c, k)?;
            check_track(t, c, k, &source.file)?;
            let node = &source.nodes[t.target].name;
            match rig.skeleton.find_joint(node) {
                Some(joint) => {
                    if std::mem::replace(&mut seen[joint * 3 + t.channel as usize], true) {
                        return Err(ImportError::new(
                            &source.file,
                            ImportErrorKind::DuplicateChannel {
                                animation: c,
                                target: node.clone(),
                                channel: t.channel.name(),
                            },
                        ));
                    }
                    tracks.push(RawTrack {
                        target: joint,
                        ..t.clone()
                    })
                }
                None => report.unmatched.push(UnmatchedChannel {
                    clip: c,
                    node: node.clone(),
                    channel: t.channel,
                }),
            }
        }
        check_duration(clip.duration(), c, &clip.name, &source.file)?;
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
            markers: clip.markers.clone(),
        });
    }
    let mut library =
        super::ClipLibrary::build_with_durations(&rig.skeleton, &clips, &durations, &source.file)?;
    super::morph::bake_weight_tracks(&mut library, &rig.morph, &clips, &source.file)?;
    Ok((
        Rig {
            clips: library,
            // Compressed clips of the old clips no longer apply.
            compressed: None,
            ..rig.clone()
        },
        report,
    ))
}
