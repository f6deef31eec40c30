//! Clip libraries baked from raw clips, and turned back into raw clips.

use crate::baked::{
    Channel, ClipInfo, ClipLibrary, ClipMarker, Interpolation, Skeleton, TrackDesc,
};
use crate::error::{ImportError, ImportErrorKind};
use crate::import::{RawClip, RawTrack};

impl ClipLibrary {
    /// Bakes `clips`, whose track targets are joint indices of `skeleton`.
    ///
    /// Fails when a clip does not last a positive, finite time, a track targets a joint
    /// `skeleton` does not have or a property another track of its clip animates, or a track's
    /// keys are unusable: none, times that are not finite, negative or strictly increasing, not
    /// one value per key (three for cubic splines), values that are not finite.
    pub fn build(skeleton: &Skeleton, clips: &[RawClip], file: &str) -> Result<Self, ImportError> {
        let durations: Vec<f32> = clips.iter().map(RawClip::duration).collect();
        Self::build_with_durations(skeleton, clips, &durations, file)
    }

    /// Like [`ClipLibrary::build`], with each clip's duration given (a rig may keep only some
    /// tracks of an animation whose length is set by the others).
    pub fn build_with_durations(
        skeleton: &Skeleton,
        clips: &[RawClip],
        durations: &[f32],
        file: &str,
    ) -> Result<Self, ImportError> {
        let joints = skeleton.joint_count();
        let mut lib = ClipLibrary {
            joint_count: joints as u32,
            clips: Vec::with_capacity(clips.len()),
            tracks: Vec::with_capacity(clips.len() * joints * 3),
            times: vec![0.0],
            values: Vec::new(),
            weight_chunks: 0,
            weight_defaults: 0,
            weight_tracks: Vec::new(),
        };
        // Shared rest-value keys: joint * 3 + channel.
        for rest in skeleton.rest_pose() {
            lib.values.push(rest.translation.extend(0.0).to_array());
            lib.values.push(rest.rotation.to_array());
            lib.values.push(rest.scale.extend(0.0).to_array());
        }
        for (c, clip) in clips.iter().enumerate() {
            let first = lib.tracks.len();
            for j in 0..joints {
                for ch in 0..3 {
                    lib.tracks.push(TrackDesc {
                        time_offset: 0,
                        value_offset: (j * 3 + ch) as u32,
                        key_count: 1,
                        interpolation: Interpolation::Step as u32,
                    });
                }
            }
            let mut seen = vec![false; joints * 3];
            for (k, track) in clip.tracks.iter().enumerate() {
                if track.target >= joints {
                    return Err(ImportError::new(
                        file,
                        ImportErrorKind::NotFound {
                            what: format!("clip {c} joint {}", track.target),
                        },
                    ));
                }
                check_track(track, c, k, file)?;
                let slot = track.target * 3 + track.channel as usize;
                if std::mem::replace(&mut seen[slot], true) {
                    return Err(ImportError::new(
                        file,
                        ImportErrorKind::DuplicateChannel {
                            animation: c,
                            target: skeleton.names()[track.target].clone(),
                            channel: track.channel.name(),
                        },
                    ));
                }
                lib.tracks[first + slot] = TrackDesc {
                    time_offset: lib.times.len() as u32,
                    value_offset: lib.values.len() as u32,
                    key_count: track.times.len() as u32,
                    interpolation: track.interpolation as u32,
                };
                lib.times.extend_from_slice(&track.times);
                lib.values.extend(track.values.iter().map(|v| v.to_array()));
            }
            // After the keys: a clip's duration is usually its last key time.
            let duration = durations.get(c).copied().unwrap_or(0.0);
            check_duration(duration, c, &clip.name, file)?;
            lib.clips.push(ClipInfo {
                name: clip.name.clone(),
                duration,
                markers: checked_markers(&clip.markers, duration, c, file)?,
            });
        }
        Ok(lib)
    }
}

impl ClipLibrary {
    /// Turns the baked clips back into editable raw clips over joint indices (rest-fallback
    /// tracks are left out; weight tracks are [`crate::baked::RigMorph::raw_weight_tracks`]).
    pub fn to_raw_clips(&self) -> Vec<RawClip> {
        (0..self.clip_count())
            .map(|c| RawClip {
                name: self.clips[c].name.clone(),
                tracks: (0..self.joint_count())
                    .flat_map(|j| Channel::ALL.map(|ch| (j, ch)))
                    .filter(|&(j, ch)| self.is_animated(c, j, ch))
                    .map(|(j, ch)| {
                        let d = self.track(c, j, ch);
                        let interpolation = Interpolation::from_u32(d.interpolation)
                            .unwrap_or(Interpolation::Linear);
                        let per_key = if interpolation == Interpolation::CubicSpline {
                            3
                        } else {
                            1
                        };
                        let t0 = d.time_offset as usize;
                        let v0 = d.value_offset as usize;
                        let n = d.key_count as usize;
                        RawTrack {
                            target: j,
                            channel: ch,
                            interpolation,
                            times: self.times[t0..t0 + n].to_vec(),
                            values: (v0..v0 + n * per_key).map(|i| self.value(i)).collect(),
                        }
                    })
                    .collect(),
                weights: Vec::new(),
                markers: self.clips[c].markers.clone(),
            })
            .collect()
    }
}

/// Checks a clip's length: positive and finite. `animation` and `name` name the clip in errors.
/// A clip's sync markers in time order, each named and within the clip.
fn checked_markers(
    markers: &[ClipMarker],
    duration: f32,
    animation: usize,
    file: &str,
) -> Result<Vec<ClipMarker>, ImportError> {
    for (marker, m) in markers.iter().enumerate() {
        let reason = if m.name.is_empty() {
            "has no name"
        } else if !(m.time.is_finite() && (0.0..=duration).contains(&m.time)) {
            "is not within the clip"
        } else {
            continue;
        };
        return Err(ImportError::new(
            file,
            ImportErrorKind::SyncMarker {
                animation,
                marker,
                reason,
            },
        ));
    }
    let mut sorted = markers.to_vec();
    sorted.sort_by(|a, b| a.time.total_cmp(&b.time));
    Ok(sorted)
}

pub(crate) fn check_duration(
    duration: f32,
    animation: usize,
    name: &str,
    file: &str,
) -> Result<(), ImportError> {
    if !duration.is_finite() {
        return Err(ImportError::new(
            file,
            ImportErrorKind::NonFinite {
                object: format!("animation {animation} duration"),
            },
        ));
    }
    // Zero is a pose (every key at one instant); negative is not a length.
    if duration < 0.0 {
        return Err(ImportError::new(
            file,
            ImportErrorKind::ZeroLengthClip {
                animation,
                name: name.to_string(),
            },
        ));
    }
    Ok(())
}

/// Checks the keys of track `channel` of clip `animation`, as the importer does: at least one
/// key, finite, non-negative and strictly increasing times, one value per key (three for
/// cubic splines), finite values.
pub(crate) fn check_track(
    track: &RawTrack,
    animation: usize,
    channel: usize,
    file: &str,
) -> Result<(), ImportError> {
    let fail = |kind| ImportError::new(file, kind);
    let (times, values) = (track.times.len(), track.values.len());
    if times == 0 {
        return Err(fail(ImportErrorKind::KeyCount {
            animation,
            channel,
            times,
            values,
        }));
    }
    if let Some(key) = track
        .times
        .iter()
        .enumerate()
        .position(|(k, &t)| !t.is_finite() || t < 0.0 || (k > 0 && t <= track.times[k - 1]))
    {
        return Err(fail(ImportErrorKind::KeyTimes {
            animation,
            channel,
            key,
        }));
    }
    let per_key = if track.interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    if values != times * per_key {
        return Err(fail(ImportErrorKind::ValueCount {
            animation,
            channel,
            interpolation: track.interpolation.name(),
            times,
            expected: times * per_key,
            values,
        }));
    }
    if !track.values.iter().all(|v| v.is_finite()) {
        return Err(fail(ImportErrorKind::NonFinite {
            object: format!("animation {animation} channel {channel} key values"),
        }));
    }
    Ok(())
}
