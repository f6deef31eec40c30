//! Layers above the base: clips that override part of the pose (an upper-body wave over
//! locomotion) or add to it (a breathing additive), each with its own clock, weight, blend mode
//! and per-joint mask.
//!
//! Masks are built from joint names or whole subtrees ([`MaskSpec`]), registered once per rig
//! with [`crate::runtime::Animator::add_mask`], and referenced by the returned index, which is
//! the index into the evaluator's mask table that [`crate::Layer::mask`] holds. The base takes
//! the bottom layers of the instance record; these layers follow it, bottom first.

use super::RuntimeError;
use super::playback::{LoopMode, Playback, Step};
use crate::baked::Skeleton;
use crate::instance::{BlendMode, Layer, MAX_LAYERS};
use crate::mask::JointMask;

/// Most extra layers per entity: the record's layers less one for the base.
pub const MAX_EXTRA_LAYERS: usize = MAX_LAYERS - 1;

/// A per-joint mask as data: weight 1 on the listed joints and on everything below the listed
/// subtree roots, 0 elsewhere (or the reverse when `inverted`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MaskSpec {
    /// Its name, unique among the animator's masks.
    pub name: String,
    /// Joints included on their own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<String>,
    /// Joints included with everything below them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subtrees: Vec<String>,
    /// Whether to swap the included and excluded joints.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inverted: bool,
}

impl MaskSpec {
    /// The subtrees under `roots` ("upper body from Spine").
    pub fn subtrees(name: &str, roots: &[&str]) -> Self {
        Self {
            name: name.to_string(),
            subtrees: roots.iter().map(|r| r.to_string()).collect(),
            ..Self::default()
        }
    }

    /// Exactly the joints `joints`.
    pub fn joints(name: &str, joints: &[&str]) -> Self {
        Self {
            name: name.to_string(),
            joints: joints.iter().map(|r| r.to_string()).collect(),
            ..Self::default()
        }
    }

    /// The weights for `skeleton` (`rig` names the rig in errors).
    pub fn to_joint_mask(&self, skeleton: &Skeleton, rig: &str) -> Result<JointMask, RuntimeError> {
        let find = |name: &String| {
            skeleton
                .find_joint(name)
                .ok_or_else(|| RuntimeError::UnknownJoint {
                    rig: rig.to_string(),
                    joint: name.clone(),
                })
        };
        let joints = self
            .joints
            .iter()
            .map(find)
            .collect::<Result<Vec<_>, _>>()?;
        let roots = self
            .subtrees
            .iter()
            .map(find)
            .collect::<Result<Vec<_>, _>>()?;
        let weights = (0..skeleton.joint_count())
            .map(|j| {
                let inside =
                    joints.contains(&j) || roots.iter().any(|&r| skeleton.is_in_subtree(j, r));
                if inside != self.inverted { 1.0 } else { 0.0 }
            })
            .collect();
        Ok(JointMask { weights })
    }
}

/// One clip layer above the base.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClipLayer {
    /// The clip and its clock.
    pub playback: Playback,
    /// Layer weight, 0 to 1.
    pub weight: f32,
    /// Override or additive.
    pub mode: BlendMode,
    /// Mask index from [`crate::runtime::Animator::add_mask`], or `None` for every joint.
    pub mask: Option<u32>,
    /// Weight the layer fades toward, and how fast (weight per second; 0 = not fading).
    target_weight: f32,
    weight_rate: f32,
    /// A weight fade started since the last advance.
    ramp_fresh: bool,
}

impl ClipLayer {
    /// A full-weight override layer playing `clip`, looping.
    pub const fn new(clip: u32) -> Self {
        Self {
            playback: Playback::new(clip),
            weight: 1.0,
            mode: BlendMode::Override,
            mask: None,
            target_weight: 1.0,
            weight_rate: 0.0,
            ramp_fresh: false,
        }
    }

    /// A full-weight additive layer playing `clip`, looping.
    pub const fn additive(clip: u32) -> Self {
        let mut layer = Self::new(clip);
        layer.mode = BlendMode::Additive;
        layer
    }

    /// The same layer at `weight`.
    pub const fn with_weight(mut self, weight: f32) -> Self {
        self.weight = weight;
        self.target_weight = weight;
        self.weight_rate = 0.0;
        self
    }

    /// The same layer restricted to mask `mask`.
    pub const fn with_mask(mut self, mask: u32) -> Self {
        self.mask = Some(mask);
        self
    }

    /// The same layer at clip speed `speed`.
    pub const fn with_speed(mut self, speed: f32) -> Self {
        self.playback.clock.speed = speed;
        self
    }

    /// The same layer with loop mode `mode`.
    pub const fn with_loop_mode(mut self, mode: LoopMode) -> Self {
        self.playback.clock.mode = mode;
        self
    }

    /// Moves the weight to `target` over `duration` seconds (0: at once).
    pub fn fade_weight(&mut self, target: f32, duration: f32) {
        if duration > 0.0 && duration.is_finite() {
            self.target_weight = target;
            self.weight_rate = (target - self.weight).abs() / duration;
            self.ramp_fresh = true;
        } else {
            self.weight = target;
            self.target_weight = target;
            self.weight_rate = 0.0;
        }
    }

    /// Advances the clock (a clip of length `duration`) and the weight fade by `dt`.
    /// The target of a weight fade in progress and its rate, weight per second.
    pub(crate) fn ramp(&self) -> Option<(f32, f32)> {
        (self.weight_rate > 0.0).then_some((self.target_weight, self.weight_rate))
    }

    /// Seconds until a weight fade ([`ClipLayer::fade_weight`]) reaches its target, if one is
    /// in progress.
    pub(crate) fn ramp_left(&self) -> Option<f32> {
        (self.weight_rate > 0.0)
            .then(|| (self.target_weight - self.weight).abs() / self.weight_rate)
    }

    pub(crate) fn advance(&mut self, duration: f32, dt: f64, recent: f64) -> Step {
        let dt64 = dt;
        // A weight fade started since the last advance runs only for the latest update's time.
        let dt = if std::mem::take(&mut self.ramp_fresh) {
            recent.min(dt) as f32
        } else {
            dt as f32
        };
        if self.weight_rate > 0.0 {
            let step = self.weight_rate * dt;
            self.weight = if self.weight < self.target_weight {
                (self.weight + step).min(self.target_weight)
            } else {
                (self.weight - step).max(self.target_weight)
            };
            if self.weight == self.target_weight {
                self.weight_rate = 0.0;
            }
        }
        self.playback.clock.advance_since(duration, dt64, recent)
    }

    /// The layer for the evaluator.
    pub fn to_layer(&self) -> Layer {
        Layer {
            clip: self.playback.clip,
            time: self.playback.clock.time,
            weight: self.weight,
            mask: self.mask,
            mode: self.mode,
        }
    }
}

/// The extra layers of an entity, bottom first, stored inline.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Layers {
    layers: [ClipLayer; MAX_EXTRA_LAYERS],
    #[serde(deserialize_with = "super::snapshot::at_most::<_, _, MAX_EXTRA_LAYERS>")]
    len: usize,
}

impl Default for Layers {
    fn default() -> Self {
        Self::new()
    }
}

impl Layers {
    /// No layers.
    pub const fn new() -> Self {
        Self {
            layers: [ClipLayer::new(0); MAX_EXTRA_LAYERS],
            len: 0,
        }
    }

    /// Layers from a list (at most [`MAX_EXTRA_LAYERS`]).
    pub fn from_layers(layers: &[ClipLayer]) -> Result<Self, RuntimeError> {
        let mut out = Self::new();
        for layer in layers {
            out.push(*layer)?;
        }
        Ok(out)
    }

    /// Adds a layer on top and returns its index.
    pub fn push(&mut self, layer: ClipLayer) -> Result<usize, RuntimeError> {
        if self.len == MAX_EXTRA_LAYERS {
            return Err(RuntimeError::TooManyLayers {
                count: self.len + 1,
                limit: MAX_EXTRA_LAYERS,
            });
        }
        self.layers[self.len] = layer;
        self.len += 1;
        Ok(self.len - 1)
    }

    /// Removes layer `index` (the ones above move down); `None` if there is no such layer.
    pub fn remove(&mut self, index: usize) -> Option<ClipLayer> {
        if index >= self.len {
            return None;
        }
        let layer = self.layers[index];
        self.layers.copy_within(index + 1..self.len, index);
        self.len -= 1;
        Some(layer)
    }

    /// The layers, bottom first.
    pub fn as_slice(&self) -> &[ClipLayer] {
        &self.layers[..self.len]
    }

    /// The layers, to change.
    pub fn as_mut_slice(&mut self) -> &mut [ClipLayer] {
        &mut self.layers[..self.len]
    }

    /// Number of layers.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}
