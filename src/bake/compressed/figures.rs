//! Figures that compare with ACL's published ones: its raw size (10 f32 per joint per sample at
//! the clip's sample rate), the ratio against it, bits per joint-frame, and the worst error of
//! ACL's metric at every sample.

use super::error::{VIRTUAL_VERTEX_DISTANCE, measure_at, vertex_offsets};
use super::framing::frame_count;
use crate::baked::grid::{DEFAULT_RATE, clip_grid};
use crate::baked::{Channel, CompressedClips, Rig};

/// Bytes ACL counts per joint per sample: rotation 4, translation 3, scale 3 f32.
pub const ACL_RAW_JOINT_BYTES: usize = 10 * 4;

/// How compressed clips compare on ACL's terms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AclFigures {
    /// Samples over every clip: each clip's duration at its sample rate (its key grid, else
    /// [`DEFAULT_RATE`]), ends included.
    pub samples: usize,
    /// The joints ACL would count ([`acl_joints`]).
    pub joints: usize,
    /// ACL's raw size: [`ACL_RAW_JOINT_BYTES`] × joints × samples.
    pub raw_bytes: usize,
    /// Bytes of the compressed clips ([`CompressedClips::byte_size`]).
    pub bytes: usize,
    /// `raw_bytes / bytes`.
    pub ratio: f64,
    /// Compressed bits per joint per sample.
    pub bits_per_joint_frame: f64,
    /// The largest error of ACL's metric (metres, virtual vertices
    /// [`VIRTUAL_VERTEX_DISTANCE`] from each joint) over every joint at every sample.
    pub max_error: f32,
}

/// The sample times of clip `clip` of `rig`: every step of its key grid (else of
/// [`DEFAULT_RATE`]) from 0 to its duration.
pub fn sample_times(rig: &Rig, clip: usize) -> Vec<f32> {
    let grid = clip_grid(&rig.clips, clip, DEFAULT_RATE);
    let rate = grid.key_grid.unwrap_or(DEFAULT_RATE);
    (0..frame_count(grid.duration, rate))
        .map(|f| ((f as f64 / f64::from(rate)) as f32).min(grid.duration))
        .collect()
}

/// The joints of `rig` ACL would count: those of its skins and those a clip animates (the
/// non-joint ancestors and model joint a rig adds carry no animation of their own); every joint
/// when that leaves none.
pub fn acl_joints(rig: &Rig) -> usize {
    let lib = &rig.clips;
    let counted = (0..rig.joint_count())
        .filter(|&j| {
            rig.skins.iter().any(|s| s.joints.contains(&(j as u16)))
                || (0..lib.clip_count())
                    .any(|c| Channel::ALL.iter().any(|&ch| lib.is_animated(c, j, ch)))
        })
        .count();
    if counted == 0 {
        rig.joint_count()
    } else {
        counted
    }
}

impl AclFigures {
    /// The figures of `clips`, compressed from `rig`'s clips (a rig in metres).
    pub fn of(rig: &Rig, clips: &CompressedClips) -> Self {
        let offsets = vertex_offsets(rig, VIRTUAL_VERTEX_DISTANCE);
        let (mut samples, mut max_error) = (0, 0.0f32);
        for clip in 0..rig.clips.clip_count().min(clips.clips().len()) {
            let times = sample_times(rig, clip);
            samples += times.len();
            max_error = max_error.max(measure_at(rig, clips, clip, &times, &offsets));
        }
        let counted = acl_joints(rig);
        let raw_bytes = ACL_RAW_JOINT_BYTES * counted * samples;
        let bytes = clips.byte_size();
        let joint_frames = (counted * samples).max(1) as f64;
        Self {
            samples,
            joints: counted,
            raw_bytes,
            bytes,
            ratio: raw_bytes as f64 / bytes.max(1) as f64,
            bits_per_joint_frame: bytes as f64 * 8.0 / joint_frames,
            max_error,
        }
    }
}
