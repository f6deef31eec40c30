//! What one instance asks the evaluator for each frame: a rig, a world transform and up to
//! [`MAX_LAYERS`] weighted clip layers. The same packed record feeds the CPU and GPU backends.

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

    /// Packs the layer for the GPU.
    pub fn to_record(&self) -> LayerRecord {
        LayerRecord {
            clip: self.clip,
            time: self.time,
            weight: self.weight,
            flags: self.mask.map_or(0, |m| m + 1)
                | if self.mode == BlendMode::Additive {
                    LayerRecord::ADDITIVE
                } else {
                    0
                },
        }
    }
}

/// Packed [`Layer`]. Keep in sync with `LayerRecord` in `wgsl/common/layout.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LayerRecord {
    /// Clip index.
    pub clip: u32,
    /// Clip time in seconds.
    pub time: f32,
    /// Layer weight.
    pub weight: f32,
    /// Bits 0..=30: mask index + 1 (0 = no mask); bit 31: additive.
    pub flags: u32,
}

impl LayerRecord {
    /// Flag bit of additive layers.
    pub const ADDITIVE: u32 = 1 << 31;

    /// Unpacks the record.
    pub fn to_layer(&self) -> Layer {
        let mask = self.flags & !Self::ADDITIVE;
        Layer {
            clip: self.clip,
            time: self.time,
            weight: self.weight,
            mask: mask.checked_sub(1),
            mode: if self.flags & Self::ADDITIVE != 0 {
                BlendMode::Additive
            } else {
                BlendMode::Override
            },
        }
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
    /// Root-motion removal: bits 0..=7 name a joint ([`InstanceRecord::ROOT_JOINT`]); the
    /// `HOLD_ROOT_*` bits hold parts of that joint's blended local transform at its rest value.
    /// 0 removes nothing.
    pub flags: u32,
    /// Instance world transform, applied at the root of the skeleton.
    pub world: Mat3x4Rows,
    /// The layers, bottom first.
    pub layers: [LayerRecord; MAX_LAYERS],
}

const _: () = assert!(std::mem::size_of::<InstanceRecord>() == 128);
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

    /// The used layers, unpacked.
    pub fn layers(&self) -> impl Iterator<Item = Layer> + '_ {
        self.layers[..(self.layer_count as usize).min(MAX_LAYERS)]
            .iter()
            .map(LayerRecord::to_layer)
    }
}
