//! All clips of one rig as flat struct-of-arrays key buffers plus one track descriptor per
//! clip × joint × channel: exactly what the GPU reads.

use glam::Vec4;

use super::{Channel, Interpolation};

/// Where one track's keys live. Keep in sync with `TrackDesc` in `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TrackDesc {
    /// Index of the first key time in [`ClipLibrary::times`].
    pub time_offset: u32,
    /// Index of the first key value in [`ClipLibrary::values`] (the in tangent for cubic keys).
    pub value_offset: u32,
    /// Number of keys (at least 1).
    pub key_count: u32,
    /// [`Interpolation`] as a number.
    pub interpolation: u32,
}

const _: () = assert!(std::mem::size_of::<TrackDesc>() == 16);

/// Name and length of one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    /// The clip's name (may be empty).
    pub name: String,
    /// Length in seconds: the last key time of any of its tracks.
    pub duration: f32,
    /// Its sync markers, in time order.
    pub markers: Vec<ClipMarker>,
}

/// A named point of a clip's cycle (a foot touching down) that synced transitions and blend
/// spaces align clips by (`sinew::runtime::ClipMarkers`); read from a glTF animation's
/// `extras` (see `import/markers.rs`).
#[derive(Clone, Debug, PartialEq)]
pub struct ClipMarker {
    /// Seconds into the clip, within its duration.
    pub time: f32,
    /// The marker's name (`left`, `right`).
    pub name: String,
}

/// Immutable clip storage of one skeleton. Channels a clip does not animate point at a shared
/// one-key track holding the joint's rest value, so every track has at least one key.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipLibrary {
    pub(crate) joint_count: u32,
    pub(crate) clips: Vec<ClipInfo>,
    pub(crate) tracks: Vec<TrackDesc>,
    pub(crate) times: Vec<f32>,
    pub(crate) values: Vec<[f32; 4]>,
    /// Weight tracks per clip (4-weight chunks of the rig's morph weights; see `morph.rs`).
    pub(crate) weight_chunks: u32,
    /// Index in `values` of the shared default-weight keys (one per chunk).
    pub(crate) weight_defaults: u32,
    /// One weight track per clip × chunk.
    pub(crate) weight_tracks: Vec<TrackDesc>,
}

impl ClipLibrary {
    /// Number of clips.
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// Name and duration of every clip.
    pub fn clips(&self) -> &[ClipInfo] {
        &self.clips
    }

    /// Index of the clip named `name`.
    pub fn find_clip(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == name)
    }

    /// Number of joints each clip covers.
    pub fn joint_count(&self) -> usize {
        self.joint_count as usize
    }

    /// The track of `clip`, `joint`, `channel`.
    #[inline]
    pub fn track(&self, clip: usize, joint: usize, channel: Channel) -> &TrackDesc {
        &self.tracks[(clip * self.joint_count as usize + joint) * 3 + channel as usize]
    }

    /// Every track descriptor: index `(clip * joints + joint) * 3 + channel`.
    pub fn tracks(&self) -> &[TrackDesc] {
        &self.tracks
    }

    /// Every key time.
    pub fn times(&self) -> &[f32] {
        &self.times
    }

    /// Every key value (16-byte aligned `vec4`s).
    pub fn values(&self) -> &[[f32; 4]] {
        &self.values
    }

    /// Bytes of the key times, key values and track descriptors (joint and weight tracks).
    pub fn byte_size(&self) -> usize {
        self.times.len() * 4
            + self.values.len() * 16
            + (self.tracks.len() + self.weight_tracks.len()) * std::mem::size_of::<TrackDesc>()
    }

    /// Key value `i` as a vector.
    #[inline]
    pub fn value(&self, i: usize) -> Vec4 {
        Vec4::from_array(self.values[i])
    }

    /// Whether clip `clip` holds exactly the keys of clip `theirs` of `other`: the same name,
    /// duration, and per joint and channel (and morph weight chunk) the same interpolation,
    /// key times and values. Missing clips compare unequal.
    pub fn same_clip(&self, clip: usize, other: &ClipLibrary, theirs: usize) -> bool {
        fn tracks(lib: &ClipLibrary, c: usize) -> Option<&[TrackDesc]> {
            let n = lib.joint_count as usize * 3;
            lib.tracks.get(c * n..(c + 1) * n)
        }
        fn weights(lib: &ClipLibrary, c: usize) -> Option<&[TrackDesc]> {
            let n = lib.weight_chunks as usize;
            lib.weight_tracks.get(c * n..(c + 1) * n)
        }
        type Keys<'a> = (u32, Option<&'a [f32]>, Option<&'a [[f32; 4]]>);
        fn keys<'a>(lib: &'a ClipLibrary, d: &TrackDesc) -> Keys<'a> {
            let per_key = if d.interpolation == Interpolation::CubicSpline as u32 {
                3
            } else {
                1
            };
            let (t, v, n) = (
                d.time_offset as usize,
                d.value_offset as usize,
                d.key_count as usize,
            );
            (
                d.interpolation,
                lib.times.get(t..t + n),
                lib.values.get(v..v + n * per_key),
            )
        }
        let same = |a: Option<&[TrackDesc]>, b: Option<&[TrackDesc]>| match (a, b) {
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        let (x, y) = (keys(self, x), keys(other, y));
                        x.1.is_some() && x.2.is_some() && x == y
                    })
            }
            _ => false,
        };
        self.clips.get(clip).is_some()
            && self.clips.get(clip) == other.clips.get(theirs)
            && self.joint_count == other.joint_count
            && self.weight_chunks == other.weight_chunks
            && same(tracks(self, clip), tracks(other, theirs))
            && same(weights(self, clip), weights(other, theirs))
    }

    /// Whether `clip` animates `channel` of `joint` from its own keys (not the rest fallback).
    pub fn is_animated(&self, clip: usize, joint: usize, channel: Channel) -> bool {
        self.track(clip, joint, channel).time_offset != 0
    }
}
