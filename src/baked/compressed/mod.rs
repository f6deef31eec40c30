//! The compressed clip format: every clip of one rig sampled on a uniform frame grid (or on a
//! few consecutive uniform segments of its own key times), constant
//! and rest channels stripped, each animated channel quantized in its own range at a bit rate
//! chosen against an error budget. The same words are uploaded to the GPU and decoded there by
//! `wgsl` and on the CPU by [`decode`], with the same f32 operations.
//!
//! # Layout
//!
//! Per clip, [`CompressedClip`] gives the frame grid (`rate`, `duration`, `frame_count`) and
//! where its channels and frames live. Its channels are `joint_count * 3` codes (translation,
//! rotation, scale of each joint) then `weight_chunks` codes (4 morph weights each), starting at
//! `channel_offset` in [`CompressedClips::channels`]. A [`ChannelCode`] packs:
//!
//! - bits `0..=5`, the bit rate `b`: 0 = not animated (constant or rest); `1..=24` = each
//!   stored component quantized to `b` bits in its range; 32 = each component stored as raw f32
//!   bits.
//! - bit 6, [`ChannelCode::STEP`]: the frame value is held until the next frame.
//! - bit 7, [`ChannelCode::REST`]: not animated and equal to the rig's rest value (the joint's
//!   rest translation, rotation or scale, or the morph node's default weights): no data.
//! - bits `8..=31`, a word index into [`CompressedClips::data`]: for a constant (b = 0, not
//!   REST) its value as f32 bits (3 words for translation and scale, 4 for a rotation `xyzw` or
//!   a weight chunk); for a quantized channel its range, one word per stored component,
//!   `min_f16 | (extent_f16 << 16)` (IEEE half floats, min rounded down and extent up so the
//!   range holds every value); for raw channels 0.
//!
//! [`ChannelCode::bit_offset`] bits `0..=16` ([`ChannelCode::first_bit`]) are the bit position
//! of component 0 inside each frame record of an animated channel; bits `17..=28` hold, 3 bits
//! per component, how many bits fewer than `b` each component is stored in
//! ([`ChannelCode::reduction`], at most 7 and below `b`; 0 for raw channels and components not
//! stored): component `c` has `b_c = b - r_c` bits at `first_bit + b_0 + ... + b_(c-1)` (bit
//! `i` of a record is bit `i % 32` of its word `i / 32`; a component spans at most two adjacent
//! words); bits `29..=31` ([`ChannelCode::layout`]) are a rotation's layout, 0 for every other
//! channel; the whole word is 0 for channels without frames. Files before format version 8
//! have no reductions.
//! Stored components: translation and scale `x, y, z`; a weight chunk its 4 weights; a
//! rotation, by layout: [`ChannelCode::DROP_W`] (0) `x, y, z`, [`ChannelCode::DROP_X`] (1)
//! `y, z, w`, [`ChannelCode::DROP_Y`] (2) `x, z, w`, [`ChannelCode::DROP_Z`] (3) `x, y, w` of
//! the quaternion signed so the dropped component is `>= 0` at each frame, which decodes as
//! `d = sqrt(max(0, 1 - (s0*s0 + s1*s1 + s2*s2)))` put back in its place; or
//! [`ChannelCode::FULL_ROTATION`] (4) all four `x, y, z, w`, each frame divided by its length
//! on decode (the identity when that is 0). Frame `f` of a clip starts at word
//! `frame_offset + f * frame_words`.
//!
//! Dequantize: `q` of `b_c` bits → `fma(extent, f32(q) * (1 / f32(2^b_c - 1)), min)`.
//!
//! Segments: with `segment_count > 0`, the clip's frames lie on the [`ClipSegment`]s at word
//! `segment_offset` of the data (4 words each: `start` f32, `rate` f32, `first_frame`,
//! `intervals`): segment `s` holds frames `first_frame..=first_frame + intervals` at
//! `start + i / rate`, its last frame the first of segment `s + 1` (`first_frame` of segment
//! 0 is 0, `start` 0; each next `first_frame` is the previous one plus its `intervals`; the
//! last ends at frame `frame_count - 1`, at or after `duration`). Without segments
//! (`segment_offset` and `segment_count` 0, every clip before format version 5) the clip is
//! one segment: `start` 0, `rate`, `first_frame` 0, `intervals = frame_count - 1`.
//!
//! Sampling at clip time `t`: `t' = clamp(t, 0, duration)`; the segment is the last whose
//! `start <= t'` (a scan from segment 1); `x = (t' - start) * rate`, snapped to the nearest
//! integer within 1e-4; `i = min(floor(x), intervals - 1)`, `u = min(x - i, 1)`, frames
//! `f = first_frame + i` and `f + 1` (one frame: frame 0 alone). Translation, scale and weights are `a + (b - a) * u` of frames `f` and
//! `f + 1`; rotations rebuild both as unit `xyzw`, negate the second when their dot is
//! negative, move `u` toward slerp by `u' = u + u (u - 0.5) (u - 1) k` with `e = 1 - dot(a, b)`
//! (after the negation), `k = e (0.66537 + 0.14839 e + (u - 0.5)^2 (-0.011094 + 0.66037 e))`
//! ([`decode::interpolate_rotation`]), and normalize `a + (b - a) * u'`; STEP
//! channels take frame `f` (`f + 1` when `u == 1`).
//!
//! # Why
//!
//! Ranges are f16 pairs, one word per component: half the size of f32 pairs, and rounding min
//! down and extent up keeps every value inside while the bit rate, not the range, sets the
//! precision. Rotations drop one component and rebuild it from the unit norm: a quarter fewer
//! bits for one square root. The encoder drops, per channel, the component whose smallest
//! magnitude over the clip is largest: rebuilding `d` amplifies the stored components' error
//! by about `|s| / d`, so always dropping `w` resolved only ~2e-4 rad near half a turn
//! (`w ≈ 0`). Every frame of a unit quaternion has a component of magnitude ≥ 0.5, but a full
//! spin may have none that stays there; below 0.5 all four are stored.
//!
//! Rotations between frames follow slerp (the exact player's interpolation between keys)
//! within about 1e-5 rad up to 90° apart, where plain normalized lerp strays by up to 1.6e-2:
//! the frames can be sparser at the same budget (Fox 3.80× → 4.64× smaller), for a few
//! multiply-adds per rotation.
//!
//! A component whose range is a small part of its channel's widest needs fewer bits for the
//! same step: each is stored in up to 7 bits fewer, keeping its step within about the widest
//! one's (the humanoid's clips 32 % smaller), for a few adds per channel in the decoder.
//!
//! Segments follow the keys: an exporter's keys are uniform in runs, and a gap or a shift
//! between runs (Fox's "Run": 24 Hz, a 0.2 s gap, then 24 Hz shifted by 1/120 s) would need one
//! grid five times finer. Adjacent segments share their boundary frame, so every key is a
//! frame, no frame is stored twice, and frame records keep one layout per clip.

pub mod decode;
mod segments;
mod validate;

pub(crate) use segments::effective as effective_segments;
pub use segments::{ClipSegment, MAX_SEGMENTS, SEGMENT_WORDS};

use bytemuck::{Pod, Zeroable};

use crate::error::CompressedError;

/// The error budget clips are compressed to when none is asked for: 0.1 mm (metres).
pub const DEFAULT_ERROR_BUDGET: f32 = 1e-4;
/// The smallest budget accepted (metres); smaller ones are raised to it.
pub const MIN_ERROR_BUDGET: f32 = 1e-6;
/// The largest budget accepted (metres); larger ones are lowered to it.
pub const MAX_ERROR_BUDGET: f32 = 1.0;

/// Every clip of one rig, compressed: uniform frames (one grid or uniform segments per clip),
/// constant and rest channels stripped,
/// animated channels quantized in their range at a bit rate chosen per channel.
#[derive(Clone, Debug, PartialEq)]
pub struct CompressedClips {
    pub(crate) joint_count: u32,
    pub(crate) weight_chunks: u32,
    pub(crate) clips: Vec<CompressedClip>,
    pub(crate) channels: Vec<ChannelCode>,
    pub(crate) data: Vec<u32>,
    pub(crate) budget: f32,
    pub(crate) max_error: f32,
}

/// The frames of one compressed clip (one uniform grid, or uniform segments) and where its
/// channels and frames live. Uploaded as is (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CompressedClip {
    /// Frames per second of the uniform grid (with segments: the finest segment's).
    pub rate: f32,
    /// Length in seconds; times clamp to `0..=duration`.
    pub duration: f32,
    /// Number of frames (at least 1); without segments frame `f` at `f / rate`, the last at or
    /// after `duration`.
    pub frame_count: u32,
    /// Index of this clip's first [`ChannelCode`].
    pub channel_offset: u32,
    /// Word index in [`CompressedClips::data`] of frame 0's record.
    pub frame_offset: u32,
    /// Words per frame record (the bits of one frame rounded up to 32).
    pub frame_words: u32,
    /// Word index in [`CompressedClips::data`] of the clip's [`ClipSegment`] table; 0 without
    /// one.
    pub segment_offset: u32,
    /// Segments in the table: 0 when the frames lie on the one grid of `rate`, else
    /// `2..=MAX_SEGMENTS`.
    pub segment_count: u32,
}

const _: () = assert!(std::mem::size_of::<CompressedClip>() == 32);

/// How one channel of one clip is stored (8 bytes; see the module doc for the bits).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct ChannelCode {
    /// Bit rate (bits 0..=5), [`ChannelCode::STEP`], [`ChannelCode::REST`], value index (bits
    /// 8..=31).
    pub code: u32,
    /// Bit position of component 0 inside a frame record (bits 0..=28) and, for rotations, the
    /// layout (bits 29..=31); 0 for channels without frames.
    pub bit_offset: u32,
}

const _: () = assert!(std::mem::size_of::<ChannelCode>() == 8);

/// What one channel holds, and so how many components it stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    /// A joint's translation (3 components).
    Translation,
    /// A joint's rotation (3 stored components and one rebuilt, or 4; constants hold 4).
    Rotation,
    /// A joint's scale (3 components).
    Scale,
    /// Four morph weights.
    Weights,
}

impl ChannelKind {
    /// Components stored per frame (and range words) for an animated channel (rotations: 3,
    /// but 4 in the [`ChannelCode::FULL_ROTATION`] layout, see
    /// [`ChannelCode::stored_components`]).
    pub const fn stored_components(self) -> usize {
        match self {
            Self::Weights => 4,
            _ => 3,
        }
    }

    /// Words of a constant value.
    pub const fn constant_words(self) -> usize {
        match self {
            Self::Rotation | Self::Weights => 4,
            _ => 3,
        }
    }
}

impl ChannelCode {
    /// Mask of the bit rate.
    pub const BITS_MASK: u32 = 0x3f;
    /// The frame value is held until the next frame (no interpolation).
    pub const STEP: u32 = 1 << 6;
    /// Not animated and equal to the rig's rest value: no data.
    pub const REST: u32 = 1 << 7;
    /// Shift of the value index.
    pub const INDEX_SHIFT: u32 = 8;
    /// The highest quantized bit rate.
    pub const MAX_QUANTIZED_BITS: u32 = 24;
    /// The bit rate of raw f32 components.
    pub const RAW_BITS: u32 = 32;
    /// The largest value index (24 bits).
    pub const MAX_INDEX: u32 = (1 << 24) - 1;
    /// Shift of the rotation layout inside [`ChannelCode::bit_offset`] (bits 29..=31).
    pub const LAYOUT_SHIFT: u32 = 29;
    /// Shift of the per-component bit reductions inside [`ChannelCode::bit_offset`] (bits
    /// 17..=28, [`ChannelCode::REDUCTION_BITS`] per component).
    pub const REDUCTION_SHIFT: u32 = 17;
    /// Bits of one component's reduction.
    pub const REDUCTION_BITS: u32 = 3;
    /// The largest reduction of one component's bit rate.
    pub const MAX_REDUCTION: u32 = (1 << Self::REDUCTION_BITS) - 1;
    /// Mask of the first bit inside [`ChannelCode::bit_offset`] (bits 0..=16: a frame record
    /// of the most joints and weights holds fewer bits).
    pub const FIRST_BIT_MASK: u32 = (1 << Self::REDUCTION_SHIFT) - 1;
    /// Rotation layout: `x, y, z` stored, `w` rebuilt.
    pub const DROP_W: u32 = 0;
    /// Rotation layout: `y, z, w` stored, `x` rebuilt.
    pub const DROP_X: u32 = 1;
    /// Rotation layout: `x, z, w` stored, `y` rebuilt.
    pub const DROP_Y: u32 = 2;
    /// Rotation layout: `x, y, w` stored, `z` rebuilt.
    pub const DROP_Z: u32 = 3;
    /// Rotation layout: all four components stored, normalized on decode.
    pub const FULL_ROTATION: u32 = 4;

    /// The channel at rest: no data.
    pub const fn rest() -> Self {
        Self {
            code: Self::REST,
            bit_offset: 0,
        }
    }

    /// A constant channel whose value starts at word `index`.
    pub const fn constant(index: u32) -> Self {
        Self {
            code: index << Self::INDEX_SHIFT,
            bit_offset: 0,
        }
    }

    /// An animated channel of `bits` bits per component (1..=24, or 32 for raw f32), range at
    /// word `index` (0 for raw), component 0 at `bit_offset` (below 2^17) in each frame record;
    /// rotations take their layout with [`ChannelCode::with_layout`], components fewer bits
    /// with [`ChannelCode::with_reductions`].
    pub const fn animated(bits: u32, step: bool, index: u32, bit_offset: u32) -> Self {
        let step = if step { Self::STEP } else { 0 };
        Self {
            code: (bits & Self::BITS_MASK) | step | (index << Self::INDEX_SHIFT),
            bit_offset,
        }
    }

    /// This code with rotation layout `layout` ([`ChannelCode::DROP_W`] ..=
    /// [`ChannelCode::FULL_ROTATION`]) in the top bits of its bit offset.
    pub const fn with_layout(self, layout: u32) -> Self {
        Self {
            code: self.code,
            bit_offset: (self.bit_offset & !(7 << Self::LAYOUT_SHIFT))
                | (layout << Self::LAYOUT_SHIFT),
        }
    }

    /// This code with component `c` stored in `reductions[c]` (each at most
    /// [`ChannelCode::MAX_REDUCTION`]) fewer bits than the channel's bit rate.
    pub const fn with_reductions(self, reductions: [u32; 4]) -> Self {
        let mut packed = 0;
        let mut c = 0;
        while c < 4 {
            packed |= (reductions[c] & Self::MAX_REDUCTION) << (Self::REDUCTION_BITS * c as u32);
            c += 1;
        }
        let mask = ((1 << (4 * Self::REDUCTION_BITS)) - 1) << Self::REDUCTION_SHIFT;
        Self {
            code: self.code,
            bit_offset: (self.bit_offset & !mask) | (packed << Self::REDUCTION_SHIFT),
        }
    }

    /// Bit position of component 0 inside a frame record (bits 0..=16 of the bit offset).
    #[inline]
    pub const fn first_bit(self) -> u32 {
        self.bit_offset & Self::FIRST_BIT_MASK
    }

    /// How many bits fewer than the channel's bit rate component `c` (0..=3) is stored in.
    #[inline]
    pub const fn reduction(self, c: usize) -> u32 {
        (self.bit_offset >> (Self::REDUCTION_SHIFT + Self::REDUCTION_BITS * c as u32))
            & Self::MAX_REDUCTION
    }

    /// Bits of stored component `c`: the bit rate less its reduction (0 when that passes it).
    #[inline]
    pub const fn component_bits(self, c: usize) -> u32 {
        self.bits().saturating_sub(self.reduction(c))
    }

    /// Bit position of stored component `c` inside a frame record: after the components
    /// before it.
    #[inline]
    pub const fn component_bit(self, c: usize) -> u32 {
        let mut bit = self.first_bit();
        let mut i = 0;
        while i < c {
            bit += self.component_bits(i);
            i += 1;
        }
        bit
    }

    /// Bits of one frame of an animated channel of kind `kind`: its components' bits.
    #[inline]
    pub const fn record_bits(self, kind: ChannelKind) -> u32 {
        let stored = self.stored_components(kind);
        self.component_bit(stored) - self.first_bit()
    }

    /// Rotation layout (bits 29..=31 of the bit offset): which component is rebuilt, or
    /// [`ChannelCode::FULL_ROTATION`]; [`ChannelCode::DROP_W`] for other channels.
    #[inline]
    pub const fn layout(self) -> u32 {
        self.bit_offset >> Self::LAYOUT_SHIFT
    }

    /// Components stored per frame for an animated channel of kind `kind`: rotations 3, or 4
    /// in the [`ChannelCode::FULL_ROTATION`] layout.
    #[inline]
    pub const fn stored_components(self, kind: ChannelKind) -> usize {
        match kind {
            ChannelKind::Rotation if self.layout() == Self::FULL_ROTATION => 4,
            _ => kind.stored_components(),
        }
    }

    /// Bits per stored component: 0 when not animated.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.code & Self::BITS_MASK
    }

    /// Whether the channel holds frame values (bit rate above 0).
    #[inline]
    pub const fn is_animated(self) -> bool {
        self.bits() != 0
    }

    /// Whether frame values are held, not interpolated.
    #[inline]
    pub const fn is_step(self) -> bool {
        self.code & Self::STEP != 0
    }

    /// Whether the channel is the rig's rest value.
    #[inline]
    pub const fn is_rest(self) -> bool {
        self.code & Self::REST != 0
    }

    /// The word index into [`CompressedClips::data`] (constant value or range).
    #[inline]
    pub const fn index(self) -> u32 {
        self.code >> Self::INDEX_SHIFT
    }
}

impl CompressedClips {
    /// Assembles compressed clips from their parts (as the `.sinew` loader reads them, or built
    /// by hand), checking every count, offset, bit rate, range and value so the decoders can
    /// index without checks: one clip record per clip with a finite positive rate, a finite
    /// duration the frames cover (see [`ClipSegment`] for a segment table's checks), channel
    /// offsets `clip * (joint_count * 3 + weight_chunks)`,
    /// frames inside `data`, bit rates 0..=24 or 32, rotation layouts 0..=4 (0 for other
    /// channels), components inside their frame record,
    /// value indices inside `data`, finite constants and ranges with extent ≥ 0, finite raw
    /// values, a budget inside `MIN_ERROR_BUDGET..=MAX_ERROR_BUDGET` and a finite error ≥ 0.
    #[allow(clippy::too_many_arguments)]
    pub fn from_parts(
        joint_count: u32,
        weight_chunks: u32,
        clips: Vec<CompressedClip>,
        channels: Vec<ChannelCode>,
        data: Vec<u32>,
        budget: f32,
        max_error: f32,
    ) -> Result<Self, CompressedError> {
        let out = Self {
            joint_count,
            weight_chunks,
            clips,
            channels,
            data,
            budget,
            max_error,
        };
        validate::check(&out)?;
        Ok(out)
    }

    /// Joints per clip.
    pub fn joint_count(&self) -> usize {
        self.joint_count as usize
    }

    /// Morph weight chunks (4 weights each) per clip.
    pub fn weight_chunks(&self) -> usize {
        self.weight_chunks as usize
    }

    /// Channels per clip: `joint_count * 3 + weight_chunks`.
    pub fn channels_per_clip(&self) -> usize {
        self.joint_count as usize * 3 + self.weight_chunks as usize
    }

    /// What channel `channel` (an index inside one clip's channels) holds.
    pub fn channel_kind(&self, channel: usize) -> ChannelKind {
        channel_kind(self.joint_count as usize, channel)
    }

    /// One record per clip, in the order of the rig's [`crate::baked::ClipLibrary`].
    pub fn clips(&self) -> &[CompressedClip] {
        &self.clips
    }

    /// Every channel code: clip `c`'s start at `clips()[c].channel_offset`.
    pub fn channels(&self) -> &[ChannelCode] {
        &self.channels
    }

    /// Constants, ranges and frame records of every clip (32-bit words).
    pub fn data(&self) -> &[u32] {
        &self.data
    }

    /// The error budget it was built for (metres, ACL's metric).
    pub fn budget(&self) -> f32 {
        self.budget
    }

    /// The largest error measured while building (metres, ACL's metric; see
    /// [`DEFAULT_ERROR_BUDGET`]).
    pub fn max_error(&self) -> f32 {
        self.max_error
    }

    /// Bytes of all three arrays (clip records, channel codes, data words).
    pub fn byte_size(&self) -> usize {
        self.clips.len() * std::mem::size_of::<CompressedClip>()
            + self.channels.len() * std::mem::size_of::<ChannelCode>()
            + self.data.len() * 4
    }

    /// The segment table of clip `clip`: empty when its frames lie on one grid.
    pub fn segments(&self, clip: usize) -> &[ClipSegment] {
        let Some(c) = self.clips.get(clip) else {
            return &[];
        };
        let start = c.segment_offset as usize;
        let words = c.segment_count as usize * SEGMENT_WORDS;
        self.data
            .get(start..start + words)
            .map_or(&[], bytemuck::cast_slice)
    }

    /// The channel codes of clip `clip`.
    pub fn clip_channels(&self, clip: usize) -> &[ChannelCode] {
        let n = self.channels_per_clip();
        let start = self
            .clips
            .get(clip)
            .map_or(0, |c| c.channel_offset as usize);
        self.channels.get(start..start + n).unwrap_or(&[])
    }

    /// Mean bits per stored component over the animated channels of every clip (each
    /// component's own bits, [`ChannelCode::component_bits`]); 0 without any.
    pub fn mean_component_bits(&self) -> f64 {
        let per_clip = self.channels_per_clip().max(1);
        let (mut bits, mut components) = (0u64, 0u64);
        for (i, code) in self.channels.iter().enumerate() {
            if code.is_animated() {
                let kind = self.channel_kind(i % per_clip);
                bits += u64::from(code.record_bits(kind));
                components += code.stored_components(kind) as u64;
            }
        }
        if components == 0 {
            0.0
        } else {
            bits as f64 / components as f64
        }
    }

    /// Histogram of bit rates over the animated channels of every clip: `(bits, count)`
    /// ascending by bits.
    pub fn bit_rate_histogram(&self) -> Vec<(u32, usize)> {
        let mut counts = [0usize; 33];
        for c in self.channels.iter().filter(|c| c.is_animated()) {
            counts[c.bits().min(32) as usize] += 1;
        }
        (1..=32u32)
            .filter(|&b| counts[b as usize] > 0)
            .map(|b| (b, counts[b as usize]))
            .collect()
    }
}

/// What channel `channel` of a clip with `joints` joints holds.
#[inline]
pub const fn channel_kind(joints: usize, channel: usize) -> ChannelKind {
    if channel >= joints * 3 {
        ChannelKind::Weights
    } else {
        match channel % 3 {
            0 => ChannelKind::Translation,
            1 => ChannelKind::Rotation,
            _ => ChannelKind::Scale,
        }
    }
}
