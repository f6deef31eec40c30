//! A retargeted copy of a rig baked offline: the source's clips played through a retarget map
//! on the target, resampled on each clip's grid into the target's own clip library. For the
//! evaluators that sample a rig's own clips (the fast CPU mode, the animator, `sinew crowd`);
//! the GPU kernel retargets per instance without a copy (`crate::gpu::RetargetBinding`).

use glam::Vec4;

use super::Rig;
use crate::baked::grid::{DEFAULT_RATE, clip_grid};
use crate::baked::retarget_map::{RetargetMap, retarget_pose};
use crate::baked::{Channel, Interpolation};
use crate::error::ImportError;
use crate::import::{RawClip, RawTrack};
use crate::math::Sqt;

/// `target` with its clips replaced by `source`'s played through `map` (from `source`'s
/// skeleton to `target`'s), sampled at [`DEFAULT_RATE`] frames per second (or on the clip's
/// own key grid) with linear keys. Fails as [`super::ClipLibrary::build`] does.
pub fn retarget_rig(target: &Rig, source: &Rig, map: &RetargetMap) -> Result<Rig, ImportError> {
    let n = target.joint_count();
    let mut clips = Vec::with_capacity(source.clips.clip_count());
    let mut durations = Vec::with_capacity(source.clips.clip_count());
    let mut pose = vec![Sqt::IDENTITY; n];
    for (c, info) in source.clips.clips().iter().enumerate() {
        let grid = clip_grid(&source.clips, c, DEFAULT_RATE);
        let mut times: Vec<f32> = Vec::with_capacity(grid.frames);
        for i in 0..grid.frames.max(1) {
            let t = (i as f32 / grid.rate).min(grid.duration);
            if times.last().is_none_or(|&last| t > last) {
                times.push(t);
            }
        }
        let mut values = vec![Vec::with_capacity(times.len()); n * 3];
        for &t in &times {
            retarget_pose(map, source, c, t, &mut pose);
            for (j, p) in pose.iter().enumerate() {
                values[j * 3].push(p.translation.extend(0.0));
                values[j * 3 + 1].push(Vec4::from(p.rotation));
                values[j * 3 + 2].push(p.scale.extend(0.0));
            }
        }
        let tracks = values
            .into_iter()
            .enumerate()
            .map(|(k, values)| RawTrack {
                target: k / 3,
                channel: Channel::ALL[k % 3],
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values,
            })
            .collect();
        durations.push(info.duration);
        clips.push(RawClip {
            name: info.name.clone(),
            tracks,
            weights: Vec::new(),
            markers: info.markers.clone(),
        });
    }
    let file = format!("{} retargeted from {}", target.name, source.name);
    let mut library =
        super::ClipLibrary::build_with_durations(&target.skeleton, &clips, &durations, &file)?;
    super::morph::bake_weight_tracks(&mut library, &target.morph, &clips, &file)?;
    Ok(Rig {
        clips: library,
        compressed: None,
        ..target.clone()
    })
}
