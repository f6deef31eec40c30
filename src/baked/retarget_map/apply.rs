//! Retargeting and mirroring per joint: a source clip's sample turned into a target joint's
//! local transform by a [`RetargetEntry`]. Twin of `retarget_sample` in `wgsl/retarget.wgsl`;
//! the CPU evaluators and the offline bake ([`crate::bake::retarget_rig`]) share it.

use super::{RetargetEntry, RetargetMap, Translation};
use crate::baked::Rig;
use crate::baked::sample::sample_joint;
use crate::math::{MirrorPlane, Sqt, normalize_or_identity};

/// Target joint of `entry` given its source joint's sample `sample` (ignored without a source
/// joint): rotation `pre · q · post`, translation `scale · pre · t` or the constant, scale the
/// constant or the sample's, `q` and `t` mirrored across `plane` first when the entry reflects.
#[inline]
pub fn retarget_sample(entry: &RetargetEntry, plane: MirrorPlane, sample: &Sqt) -> Sqt {
    let (mut q, mut t) = (sample.rotation, sample.translation);
    if entry.reflect {
        q = plane.reflect_rotation(q);
        t = plane.reflect_vector(t);
    }
    let rotation = match entry.source {
        Some(_) => normalize_or_identity(entry.pre * q * entry.post),
        None => entry.pre,
    };
    let translation = match (entry.source, entry.translation) {
        (Some(_), Translation::Source { scale }) => entry.pre * t * scale,
        (None, Translation::Source { .. }) => glam::Vec3::ZERO,
        (_, Translation::Constant(c)) => c,
    };
    Sqt {
        translation,
        rotation,
        scale: entry.scale.unwrap_or(sample.scale),
    }
}

/// Every target joint of `map` playing clip `clip` of `source` (the map's source rig) at
/// `time`, into `out` (one per target joint). The caller checks the clip index and that
/// `source` has the map's source skeleton.
pub fn retarget_pose(map: &RetargetMap, source: &Rig, clip: usize, time: f32, out: &mut [Sqt]) {
    for (entry, local) in map.entries().iter().zip(out.iter_mut()) {
        let sample = match entry.source {
            Some(s) => sample_joint(&source.clips, clip, s as usize, time),
            None => Sqt::IDENTITY,
        };
        *local = retarget_sample(entry, map.plane(), &sample);
    }
}
