//! What one instance asks the evaluator for: a rig, a world transform and up to [`MAX_LAYERS`]
//! weighted clip layers, each a function of the frame time (a clock and a fade). The same packed
//! record feeds the CPU and GPU backends, which derive each frame's clip times and weights from
//! it.

use crate::math::Mat3x4Rows;

/// Most layers one instance may blend per frame.
pub const MAX_LAYERS: usize = 4;

/// How a layer combines with the layers below it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum BlendMode {
    /// Moves the pose below toward this layer's pose by `weight × mask` (lerp / nlerp).
    #[default]
    Override,
    /// Adds this layer's difference from the rest pose, scaled by `weight × mask`.
    Additive,
}

/// One clip layer of an instance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layer {
    /// Clip index in the rig's [`crate::ClipLibrary`].
    pub clip: u32,
    /// Time in seconds on the clip's timeline (clamped to its keys; the caller loops).
    pub time: f32,
    /// Layer weight, 0 to 1.
    pub weight: f32,
    /// Per-joint mask index, or `None` for every joint at full weight.
    pub mask: Option<u32>,
    /// How the layer combines with those below.
    pub mode: BlendMode,
}

impl Layer {
    /// Whether the layer, at weight `weight` (its own times its mask's) at a joint, takes the
    /// sample whole there, so the layers under it cannot show: an override at full weight.
    /// Neither backend samples them.
    pub(crate) fn hides_lower(&self, weight: f32) -> bool {
        self.mode == BlendMode::Override && weight >= 1.0
    }

    /// A full-weight override layer of `clip` at `time`.
    pub fn clip(clip: u32, time: f32) -> Self {
        Self {
            clip,
            time,
            weight: 1.0,
            mask: None,
            mode: BlendMode::Override,
        }
    }

    /// Packs the layer as a still record: its time and weight hold at every frame time.
    pub fn to_record(&self) -> LayerRecord {
        LayerRecord {
            clip: self.clip,
            time: self.time,
            weight: self.weight,
            flags: self
                .mask
                .map_or(0, |m| m.saturating_add(1) & LayerRecord::MASK)
                | if self.mode == BlendMode::Additive {
                    LayerRecord::ADDITIVE
                } else {
                    0
                },
            ..LayerRecord::STILL
        }
    }
}

/// What a layer's clock does at the ends of its timeline, in [`LayerRecord::flags`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimeWrap {
    /// No wrapping: the clip time is the unwrapped position (sampling clamps it to the keys).
    #[default]
    None,
    /// Wraps into `0..period`.
    Loop,
    /// Clamps to `0..=period`.
    Clamp,
    /// Forward to `period`, back to 0, forward again (a cycle of `2 × period`).
    PingPong,
}

impl TimeWrap {
    /// The value of this mode in [`LayerRecord::flags`] (bits 24..=25).
    pub const fn bits(self) -> u32 {
        (match self {
            Self::None => 0,
            Self::Loop => 1,
            Self::Clamp => 2,
            Self::PingPong => 3,
        }) << LayerRecord::WRAP_SHIFT
    }

    /// The mode stored in `flags`.
    pub const fn from_flags(flags: u32) -> Self {
        match (flags >> LayerRecord::WRAP_SHIFT) & 3 {
            0 => Self::None,
            1 => Self::Loop,
            2 => Self::Clamp,
            _ => Self::PingPong,
        }
    }
}

/// A layer as a function of the frame time `now`. The GPU and CPU evaluators derive each
/// frame's clip time and weight from it ([`crate::cpu::layer_time`],
/// [`crate::cpu::layer_weight`]), so a record is written when the motion changes, not every
/// frame.
///
/// - Clip time: `wrap(time + rate × (now − anchor))` on a timeline of `period` clip seconds, as
///   the [`TimeWrap`] in `flags` says. `time` is the *unwrapped* position at `anchor` (on a
///   ping-pong clock's backward leg it lies in `period..2 × period`). A clock with a
///   `rate_gain` runs at `rate + rate_gain × α(now)` for the fade progress `α` below (a rate
///   that ramps with the weight, as a blend space's phase does while its input ramps), so its
///   unwrapped time adds `rate_gain × ∫ α` from `anchor` to `now` ([`crate::cpu::layer_time`]).
/// - Weight: a fade `α = clamp((now − fade_start) × fade_rate, 0, 1)` (1 when `fade_rate` is 0)
///   takes the weight from `weight_from` to `weight`, normalised by the share left to the layers
///   below: `mix(weight_from, weight, α) / ((1 − α) + α × share_sum)`. With `share_sum` 1 this is
///   a linear ramp; a cross-fade into a blend space uses each clip's cumulative share.
///
/// Keep in sync with `LayerRecord` in `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LayerRecord {
    /// Clip index (bits 0..=15); bits 16..=31: retarget map index + 1 of the GPU library
    /// (0: the instance's own rig's clip; see [`LayerRecord::retargeted`]).
    pub clip: u32,
    /// Unwrapped clip time in seconds at `anchor`.
    pub time: f32,
    /// Weight once faded in (the only weight of a layer without a fade).
    pub weight: f32,
    /// Bits 0..=23: mask index + 1 (0 = no mask); bits 24..=25: [`TimeWrap`]; bit 30: mirror
    /// (a retargeted layer's map mirrored); bit 31: additive.
    pub flags: u32,
    /// Frame time at which the clip is at `time`.
    pub anchor: f32,
    /// Clip seconds per second of frame time (0: the time holds; negative plays backwards).
    pub rate: f32,
    /// Timeline length in clip seconds, for wrapping.
    pub period: f32,
    /// Weight at the start of the fade.
    pub weight_from: f32,
    /// Frame time at which the fade starts.
    pub fade_start: f32,
    /// Fade progress per second; 0: no fade.
    pub fade_rate: f32,
    /// Share normaliser of a fading layer (1 for a plain ramp).
    pub share_sum: f32,
    /// Clock rate gained as the fade completes (0: a steady clock; see the type's
    /// documentation). It fills what was padding: the record stays 48 bytes.
    pub rate_gain: f32,
}

const _: () = assert!(std::mem::size_of::<LayerRecord>() == 48);

impl Default for LayerRecord {
    fn default() -> Self {
        Self::STILL
    }
}

impl LayerRecord {
    /// Flag bit of additive layers.
    pub const ADDITIVE: u32 = 1 << 31;
    /// Bits of `flags` holding the mask index + 1.
    pub const MASK: u32 = 0x00ff_ffff;
    /// Shift of the [`TimeWrap`] bits in `flags`.
    pub const WRAP_SHIFT: u32 = 24;
    /// Bits of `flags` holding the [`TimeWrap`].
    pub const WRAP: u32 = 3 << Self::WRAP_SHIFT;
    /// Flag bit of mirrored layers: a retargeted layer plays through its map's mirror.
    pub const MIRROR: u32 = 1 << 30;
    /// Shift of the retarget map index + 1 in `clip`.
    pub const MAP_SHIFT: u32 = 16;
    /// Bits of `clip` holding the clip index.
    pub const CLIP: u32 = 0xffff;
    /// Clip 0 at time 0 and weight 1, held: no clock, no fade.
    pub const STILL: Self = Self {
        clip: 0,
        time: 0.0,
        weight: 1.0,
        flags: 0,
        anchor: 0.0,
        rate: 0.0,
        period: 0.0,
        weight_from: 0.0,
        fade_start: 0.0,
        fade_rate: 0.0,
        share_sum: 1.0,
        rate_gain: 0.0,
    };

    /// The `clip` word of a layer playing clip `clip` of a retarget map's source rig through
    /// map `map` of the GPU library ([`crate::gpu::RetargetBinding`]).
    pub const fn retargeted(clip: u16, map: u16) -> u32 {
        clip as u32 | ((map as u32 + 1) << Self::MAP_SHIFT)
    }

    /// The retarget map a layer plays through and its clip of the map's source rig, or `None`
    /// for a layer of the instance's own rig.
    pub const fn retarget(&self) -> Option<(usize, usize)> {
        match self.clip >> Self::MAP_SHIFT {
            0 => None,
            map => Some(((map - 1) as usize, (self.clip & Self::CLIP) as usize)),
        }
    }

    /// The same layer with a running clock: at frame time `anchor` it is at unwrapped clip time
    /// `time`, and it moves `rate` clip seconds per second, wrapped by `wrap` on a timeline of
    /// `period` clip seconds.
    pub fn with_clock(
        mut self,
        time: f32,
        anchor: f32,
        rate: f32,
        wrap: TimeWrap,
        period: f32,
    ) -> Self {
        self.time = time;
        self.anchor = anchor;
        self.rate = rate;
        self.period = period;
        self.flags = (self.flags & !Self::WRAP) | wrap.bits();
        self
    }

    /// The same layer fading from `weight_from` (at frame time `start`) to its weight at `rate`
    /// per second, normalised by `share_sum` (see the type's documentation).
    pub fn with_fade(mut self, weight_from: f32, start: f32, rate: f32, share_sum: f32) -> Self {
        self.weight_from = weight_from;
        self.fade_start = start;
        self.fade_rate = rate;
        self.share_sum = share_sum;
        self
    }

    /// The same layer with a clock whose rate gains `gain` as its fade completes (see the type's
    /// documentation).
    pub fn with_rate_gain(mut self, gain: f32) -> Self {
        self.rate_gain = gain;
        self
    }

    /// The wrap mode of the clock.
    pub fn wrap(&self) -> TimeWrap {
        TimeWrap::from_flags(self.flags)
    }

    /// The mask index, if any.
    pub fn mask(&self) -> Option<u32> {
        (self.flags & Self::MASK).checked_sub(1)
    }

    /// The still layer equal to this one at frame time `now`.
    pub fn resolved(&self, now: f32) -> Self {
        self.to_layer_at(now).to_record()
    }

    /// Whether every number is finite, the fade rate not negative and, where the clock wraps,
    /// the period not negative (0: a pose's timeline, on which every time is 0).
    pub fn is_well_formed(&self) -> bool {
        let numbers = [
            self.time,
            self.weight,
            self.anchor,
            self.rate,
            self.period,
            self.weight_from,
            self.fade_start,
            self.fade_rate,
            self.share_sum,
        ];
        numbers.iter().all(|x| x.is_finite())
            && (self.wrap() == TimeWrap::None || self.period >= 0.0)
            && self.fade_rate >= 0.0
    }
}

/// One instance's per-frame input. Keep in sync with `InstanceRecord` in
/// `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct InstanceRecord {
    /// Rig index.
    pub rig: u32,
    /// First palette entry of the instance.
    pub palette_offset: u32,
    /// Number of used entries in `layers`.
    pub layer_count: u32,
    /// Root motion: bits 0..=7 name a joint ([`InstanceRecord::ROOT_JOINT`]); the
    /// `HOLD_ROOT_*` bits hold parts of that joint's blended local transform at its rest value;
    /// [`InstanceRecord::GPU_ROOT_MOTION`] has the evaluator move `world` by the held motion,
    /// reading the bottom [`InstanceRecord::BASE_LAYERS`] layers. 0 removes nothing.
    pub flags: u32,
    /// Instance world transform, applied at the root of the skeleton. Under
    /// [`InstanceRecord::GPU_ROOT_MOTION`] the GPU owns it once placed (see
    /// [`crate::GpuBackend::set_record_world`]).
    pub world: Mat3x4Rows,
    /// The layers, bottom first.
    pub layers: [LayerRecord; MAX_LAYERS],
}

const _: () = assert!(std::mem::size_of::<InstanceRecord>() == 256);
const _: () = assert!(std::mem::offset_of!(InstanceRecord, flags) == 12);
const _: () = assert!(std::mem::offset_of!(InstanceRecord, world) == 16);
const _: () = assert!(std::mem::offset_of!(InstanceRecord, layers) == 64);

impl InstanceRecord {
    /// Bits of [`InstanceRecord::flags`] holding the joint whose root motion is removed.
    pub const ROOT_JOINT: u32 = 0xff;
    /// Flag: hold the joint's local X and Z translation at rest (ground-plane root motion).
    pub const HOLD_ROOT_XZ: u32 = 1 << 8;
    /// Flag: hold the joint's whole local translation at rest.
    pub const HOLD_ROOT_XYZ: u32 = 1 << 9;
    /// Flag: replace the yaw (twist about +Y) of the joint's local rotation by the rest yaw.
    pub const HOLD_ROOT_YAW: u32 = 1 << 10;
    /// Flag: root motion accumulates on the GPU. Each evaluation moves `world` by the held
    /// motion of the root joint between the previous frame time and this one, as
    /// [`crate::cpu::advance_root_motion`] defines it, and writes it back to the resident
    /// record: translation (along X and Z under [`InstanceRecord::HOLD_ROOT_XZ`], all axes under
    /// [`InstanceRecord::HOLD_ROOT_XYZ`]) in the world's own frame, then yaw about its +Y under
    /// [`InstanceRecord::HOLD_ROOT_YAW`].
    pub const GPU_ROOT_MOTION: u32 = 1 << 11;
    /// Shift of [`InstanceRecord::BASE_LAYERS`] in `flags`.
    pub const BASE_LAYERS_SHIFT: u32 = 12;
    /// Bits of `flags` holding the number of base layers (0 to [`MAX_LAYERS`]): the bottom
    /// override layers whose clips carry root motion. Layers above them do not move the world.
    pub const BASE_LAYERS: u32 = 7 << Self::BASE_LAYERS_SHIFT;
    /// Flag the GPU backend sets on the uploaded copy of a record whose world it has just
    /// placed: that evaluation moves the world by nothing and clears the flag. Hosts leave it 0.
    pub const WORLD_PLACED: u32 = 1 << 15;
    /// Shift of [`InstanceRecord::UPDATE_EVERY`] in `flags`.
    pub const UPDATE_EVERY_SHIFT: u32 = 16;
    /// Bits of `flags` holding the update interval N (0 or 1: every frame; at most 31): the GPU
    /// evaluates the instance on frames `f` with `(f + phase) % N == 0` ([`crate::UpdateRate`]).
    pub const UPDATE_EVERY: u32 = 0x1f << Self::UPDATE_EVERY_SHIFT;
    /// Shift of [`InstanceRecord::UPDATE_PHASE`] in `flags`.
    pub const UPDATE_PHASE_SHIFT: u32 = 21;
    /// Bits of `flags` holding the phase of the update interval (0 to 31).
    pub const UPDATE_PHASE: u32 = 0x1f << Self::UPDATE_PHASE_SHIFT;
    /// Shift of [`InstanceRecord::LOD_LEVEL`] in `flags`.
    pub const LOD_LEVEL_SHIFT: u32 = 26;
    /// Bits of `flags` holding the joint LOD level (0: every joint sampled; see
    /// [`crate::Skeleton::lod_sampled_joints`]).
    pub const LOD_LEVEL: u32 = 3 << Self::LOD_LEVEL_SHIFT;
    /// Flag: the GPU does not evaluate the instance (its palette and AABB keep their values).
    pub const FROZEN: u32 = 1 << 28;
    /// Flag: the GPU skips the instance while the renderer's last culling found it outside
    /// both frusta (evaluated then only every [`crate::lod::CULLED_REFRESH`] frames, or at its
    /// own interval when that is longer).
    pub const SKIP_CULLED: u32 = 1 << 29;
    /// Every LOD bit: a record with none of them set takes its level, update interval and
    /// culling skip from the GPU backend's [`crate::LodPolicy`], when it has one.
    pub const LOD_BITS: u32 = Self::UPDATE_EVERY
        | Self::UPDATE_PHASE
        | Self::LOD_LEVEL
        | Self::FROZEN
        | Self::SKIP_CULLED;

    /// A record of no rig: an empty resident slot, which the GPU kernel skips.
    pub const EMPTY: Self = Self {
        rig: u32::MAX,
        palette_offset: 0,
        layer_count: 0,
        flags: 0,
        world: Mat3x4Rows::IDENTITY,
        layers: [LayerRecord::STILL; MAX_LAYERS],
    };

    /// The `flags` bits that accumulate root motion on the GPU from the bottom `base_layers`
    /// layers (clamped to [`MAX_LAYERS`]); combine with the `HOLD_ROOT_*` bits and the joint.
    pub const fn gpu_root_motion(base_layers: usize) -> u32 {
        let count = if base_layers > MAX_LAYERS {
            MAX_LAYERS
        } else {
            base_layers
        };
        Self::GPU_ROOT_MOTION | ((count as u32) << Self::BASE_LAYERS_SHIFT)
    }

    /// The joint LOD level in `flags` ([`InstanceRecord::LOD_LEVEL`]).
    pub fn lod_level(&self) -> u32 {
        (self.flags & Self::LOD_LEVEL) >> Self::LOD_LEVEL_SHIFT
    }

    /// Whether root motion accumulates on the GPU ([`InstanceRecord::GPU_ROOT_MOTION`]).
    pub fn has_gpu_root_motion(&self) -> bool {
        self.flags & Self::GPU_ROOT_MOTION != 0
    }

    /// The number of base layers in `flags` ([`InstanceRecord::BASE_LAYERS`]), at most the
    /// used layers.
    pub fn base_layers(&self) -> usize {
        (((self.flags & Self::BASE_LAYERS) >> Self::BASE_LAYERS_SHIFT) as usize)
            .min(self.used_layers().len())
    }

    /// Whether this is [`InstanceRecord::EMPTY`]'s rig (an empty slot).
    pub fn is_empty(&self) -> bool {
        self.rig == u32::MAX
    }

    /// Packs an instance. Layers beyond [`MAX_LAYERS`] are an error.
    pub fn new(
        rig: u32,
        palette_offset: u32,
        world: &glam::Affine3A,
        layers: &[Layer],
    ) -> Result<Self, crate::EvalError> {
        if layers.len() > MAX_LAYERS {
            return Err(crate::EvalError::BadLayer {
                reason: format!("{} layers, at most {MAX_LAYERS}", layers.len()),
            });
        }
        let mut record = Self {
            rig,
            palette_offset,
            layer_count: layers.len() as u32,
            flags: 0,
            world: Mat3x4Rows::from_affine(world),
            layers: [LayerRecord::default(); MAX_LAYERS],
        };
        for (slot, layer) in record.layers.iter_mut().zip(layers) {
            *slot = layer.to_record();
        }
        Ok(record)
    }

    /// The used layers at frame time `now`.
    pub fn layers_at(&self, now: f32) -> impl Iterator<Item = Layer> + '_ {
        self.used_layers().iter().map(move |l| l.to_layer_at(now))
    }

    /// The used layer records.
    pub fn used_layers(&self) -> &[LayerRecord] {
        &self.layers[..(self.layer_count as usize).min(MAX_LAYERS)]
    }

    /// The same record with every layer held at its values at frame time `now`.
    pub fn resolved(&self, now: f32) -> Self {
        let mut out = *self;
        let count = (self.layer_count as usize).min(MAX_LAYERS);
        for layer in &mut out.layers[..count] {
            *layer = layer.resolved(now);
        }
        out
    }
}
