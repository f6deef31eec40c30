//! What the viewer mixes over the characters' base motion: extra clip layers with weights and
//! joint masks, morph weights set by hand, and the events the timeline marks. More methods of
//! [`ViewerState`], which the panels call.

use super::ViewError;
use super::state::{ViewLayer, ViewerState};
use crate::runtime::{Animated, Animator, ClipLayer, Layers, MaskSpec};

impl ViewerState {
    /// The extra layers.
    pub fn layers(&self) -> &[ViewLayer] {
        &self.layers
    }

    /// Adds a layer playing `clip` at `weight`, restricted to the subtree of joint
    /// `mask_root` when given (on the rigs that have that joint).
    pub fn add_layer(
        &mut self,
        clip: u32,
        weight: f32,
        mask_root: Option<&str>,
    ) -> Result<(), ViewError> {
        if clip as usize >= self.clip_count() {
            return Err(self.refuse(format!("layer clip {clip} of {}", self.clip_count())));
        }
        if self.layers.len() >= crate::runtime::MAX_EXTRA_LAYERS {
            return Err(self.refuse("no room for another layer".to_string()));
        }
        self.layers.push(ViewLayer {
            clip,
            weight: weight.clamp(0.0, 1.0),
            mask_root: mask_root.map(str::to_string),
        });
        self.apply_layers()
    }

    /// Sets layer `index`'s weight (clamped to 0..=1).
    pub fn set_layer_weight(&mut self, index: usize, weight: f32) -> Result<(), ViewError> {
        let Some(layer) = self.layers.get_mut(index) else {
            return Err(self.refuse(format!("layer {index}")));
        };
        layer.weight = if weight.is_finite() {
            weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.apply_layers()
    }

    /// Removes layer `index`.
    pub fn remove_layer(&mut self, index: usize) -> Result<(), ViewError> {
        if index >= self.layers.len() {
            return Err(self.refuse(format!("layer {index}")));
        }
        self.layers.remove(index);
        self.apply_layers()
    }

    /// Every morph target of the drawn rigs as `(rig, weight index, name)`: a slider each.
    pub fn morph_targets(&self) -> Vec<(u32, u32, String)> {
        let Some(open) = &self.open else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &r in &open.drawn {
            for node in open.rigs[r as usize].morph.nodes() {
                for t in 0..node.target_count {
                    out.push((r, node.first_weight + t, format!("{} #{t}", node.name)));
                }
            }
        }
        out
    }

    /// The hand-set value of morph weight `weight` of rig `rig`, if any.
    pub fn morph_weight(&self, rig: u32, weight: u32) -> Option<f32> {
        self.morph_overrides.get(&(rig, weight)).copied()
    }

    /// Every hand-set morph weight, by (rig, weight index).
    pub fn morph_overrides(&self) -> &std::collections::BTreeMap<(u32, u32), f32> {
        &self.morph_overrides
    }

    /// Sets morph weight `weight` of rig `rig` by hand (every character of that rig), over
    /// what the clips animate.
    pub fn set_morph_weight(&mut self, rig: u32, weight: u32, value: f32) -> Result<(), ViewError> {
        let exists = self
            .morph_targets()
            .iter()
            .any(|&(r, w, _)| (r, w) == (rig, weight));
        if !exists || !value.is_finite() {
            return Err(self.refuse(format!("morph weight {weight} of rig {rig} = {value}")));
        }
        self.morph_overrides.insert((rig, weight), value);
        Ok(())
    }

    /// Gives every morph weight back to the clips.
    pub fn clear_morph_weights(&mut self) {
        self.morph_overrides.clear();
    }

    /// Times of the events of the playing clip, for the timeline's markers.
    pub fn event_markers(&self) -> Vec<(f32, String)> {
        let (Some(open), Some(clip)) = (&self.open, self.clip) else {
            return Vec::new();
        };
        open.animator
            .event_list(open.drawn[0])
            .into_iter()
            .filter(|(c, _, _)| *c == clip)
            .map(|(_, t, n)| (t, n.to_string()))
            .collect()
    }

    /// Places event `name` at the playhead of the playing clip (on every drawn rig).
    pub fn add_event_here(&mut self, name: &str) -> Result<(), ViewError> {
        let time = self.time();
        if self.open.is_none() || self.clip.is_none() {
            return Err(self.refuse("no clip playing".to_string()));
        }
        let (Some(open), Some(clip)) = (self.open.as_mut(), self.clip) else {
            return Ok(());
        };
        for &rig in &open.drawn {
            let clip_name = open.rigs[rig as usize].clips.clips()[clip as usize]
                .name
                .clone();
            open.animator.add_event(rig, &clip_name, time, name)?;
        }
        Ok(())
    }

    /// Gives every character the layers of [`ViewerState::layers`].
    pub(super) fn apply_layers(&mut self) -> Result<(), ViewError> {
        let Some(open) = self.open.as_mut() else {
            return Ok(());
        };
        for &entity in &open.entities {
            let Ok(rig) = open.world.get::<&Animated>(entity).map(|a| a.rig) else {
                continue;
            };
            let mut layers = Vec::with_capacity(self.layers.len());
            for layer in &self.layers {
                let mut l = ClipLayer::new(layer.clip)
                    .with_weight(layer.weight)
                    .with_speed(self.speed)
                    .with_loop_mode(self.loop_mode);
                if let Some(root) = &layer.mask_root
                    && open.rigs[rig as usize].skeleton.find_joint(root).is_some()
                {
                    l = l.with_mask(mask_of(&mut open.animator, rig, root)?);
                }
                layers.push(l);
            }
            let layers = Layers::from_layers(&layers)?;
            if open.world.insert_one(entity, layers).is_err() {
                continue;
            }
            open.animator.touch(entity);
        }
        Ok(())
    }
}

/// The mask of joint `root`'s subtree on rig `rig`, added once.
fn mask_of(animator: &mut Animator, rig: u32, root: &str) -> Result<u32, ViewError> {
    let name = format!("{rig}:{root}");
    let spec = MaskSpec::subtrees(&name, &[root]);
    match animator.add_mask(rig, &spec) {
        Ok(mask) => Ok(mask),
        Err(crate::runtime::RuntimeError::DuplicateName { .. }) => Ok(animator.mask(&name)?),
        Err(e) => Err(e.into()),
    }
}
