//! The baked invariants, checked again on everything a `.sinew` file decodes to: the runtime
//! trusts baked data, so data from a file must be proven to be what baking would produce.
//! Each check returns the violated invariant; the caller names the section.

use crate::baked::{
    Channel, ClipLibrary, Interpolation, MAX_JOINTS, NO_PARENT, Rig, Skeleton, SkinnedMesh,
    TrackDesc,
};

/// Joints parent-before-child in contiguous, non-empty depth levels; finite rest pose and
/// inverse binds.
pub(super) fn skeleton(skeleton: &Skeleton) -> Result<(), String> {
    let n = skeleton.parents.len();
    if n > MAX_JOINTS {
        return Err(format!("{n} joints, more than MAX_JOINTS = {MAX_JOINTS}"));
    }
    for (j, &p) in skeleton.parents.iter().enumerate() {
        if p != NO_PARENT && p as usize >= j {
            return Err(format!("joint {j} has parent {p}, not below its own index"));
        }
    }
    let starts = &skeleton.level_starts;
    if starts.first() != Some(&0) || starts.last().map(|&s| s as usize) != Some(n) {
        return Err(format!("level starts {starts:?} do not run from 0 to {n}"));
    }
    if starts.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "level starts {starts:?} are not strictly increasing"
        ));
    }
    for (level, range) in starts.windows(2).enumerate() {
        for j in range[0]..range[1] {
            let p = skeleton.parents[j as usize];
            let parent_level = (p != NO_PARENT)
                .then(|| starts.windows(2).position(|w| w[0] <= p && p < w[1]))
                .flatten();
            match (level, parent_level) {
                (0, None) => {}
                (0, Some(_)) => return Err(format!("joint {j} at depth 0 has parent {p}")),
                (_, Some(pl)) if pl + 1 == level => {}
                _ => {
                    return Err(format!(
                        "joint {j} at depth {level} has parent {p}, which is not at depth {}",
                        level - 1
                    ));
                }
            }
        }
    }
    if let Some(j) = skeleton.rest.iter().position(|r| !r.is_finite()) {
        return Err(format!("rest pose of joint {j} is not finite"));
    }
    if let Some(j) = skeleton.inverse_binds.iter().position(|m| !m.is_finite()) {
        return Err(format!("inverse bind matrix of joint {j} is not finite"));
    }
    Ok(())
}

/// One track per clip × joint × channel, each with at least one key, a known interpolation,
/// keys inside the time and value arrays and strictly increasing finite times.
pub(super) fn clips(clips: &ClipLibrary, skeleton: &Skeleton) -> Result<(), String> {
    let joints = skeleton.joint_count();
    if clips.joint_count as usize != joints {
        return Err(format!(
            "covers {} joints, the skeleton has {joints}",
            clips.joint_count
        ));
    }
    let expected = clips.clips.len() as u64 * joints as u64 * 3;
    if clips.tracks.len() as u64 != expected {
        return Err(format!(
            "{} track descriptors, {} clips × {joints} joints × 3 channels = {expected} expected",
            clips.tracks.len(),
            clips.clips.len()
        ));
    }
    if let Some((c, info)) = clips
        .clips
        .iter()
        .enumerate()
        .find(|(_, info)| !(info.duration.is_finite() && info.duration >= 0.0))
    {
        return Err(format!("clip {c} has duration {}", info.duration));
    }
    if let Some(k) = clips.times.iter().position(|t| !t.is_finite()) {
        return Err(format!("key time {k} is not finite"));
    }
    if let Some(k) = clips
        .values
        .iter()
        .position(|v| !v.iter().all(|x| x.is_finite()))
    {
        return Err(format!("key value {k} is not finite"));
    }
    for (i, desc) in clips.tracks.iter().enumerate() {
        track(clips, desc).map_err(|reason| {
            let channel = Channel::ALL[i % 3].name();
            format!(
                "track {i} (clip {}, joint {}, {channel}) {reason}",
                i / (3 * joints),
                i / 3 % joints
            )
        })?;
    }
    Ok(())
}

/// One track descriptor of `clips`: at least one key, a known interpolation, keys inside the
/// time and value arrays, strictly increasing times. The reason reads after the track's name.
pub(super) fn track(clips: &ClipLibrary, track: &TrackDesc) -> Result<(), String> {
    let Some(interpolation) = Interpolation::from_u32(track.interpolation) else {
        return Err(format!("has interpolation code {}", track.interpolation));
    };
    if track.key_count == 0 {
        return Err("has no keys".into());
    }
    let keys = u64::from(track.key_count);
    let time_end = u64::from(track.time_offset) + keys;
    if time_end > clips.times.len() as u64 {
        return Err(format!(
            "reads key times {}..{time_end} of {}",
            track.time_offset,
            clips.times.len()
        ));
    }
    let per_key = if interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let value_end = u64::from(track.value_offset) + keys * per_key;
    if value_end > clips.values.len() as u64 {
        return Err(format!(
            "reads key values {}..{value_end} of {}",
            track.value_offset,
            clips.values.len()
        ));
    }
    let times = &clips.times[track.time_offset as usize..time_end as usize];
    if let Some(k) = times.windows(2).position(|w| w[0] >= w[1]) {
        return Err(format!("key time {} is not after key time {k}", k + 1));
    }
    Ok(())
}

/// Equal stream lengths, joint indices inside the skeleton, whole triangles of in-range
/// indices, one joint bound per joint, finite positions and weights.
pub(super) fn mesh(mesh: &SkinnedMesh, skeleton: &Skeleton) -> Result<(), String> {
    let vertices = mesh.positions.len();
    let streams = [
        ("normals", mesh.normals.len()),
        ("uvs", mesh.uvs.len()),
        (
            "tangents",
            mesh.tangents.as_ref().map_or(vertices, Vec::len),
        ),
        ("joints", mesh.joints.len()),
        ("weights", mesh.weights.len()),
    ];
    if let Some((name, len)) = streams.iter().find(|(_, len)| *len != vertices) {
        return Err(format!("{len} {name} for {vertices} positions"));
    }
    let joints = skeleton.joint_count();
    for (v, influences) in mesh.joints.iter().enumerate() {
        if let Some(&j) = influences.iter().find(|&&j| j as usize >= joints) {
            return Err(format!(
                "vertex {v} names joint {j}, the skeleton has {joints}"
            ));
        }
    }
    if !mesh.indices.len().is_multiple_of(3) {
        return Err(format!(
            "{} indices is not a whole number of triangles",
            mesh.indices.len()
        ));
    }
    if let Some(&i) = mesh.indices.iter().find(|&&i| i as usize >= vertices) {
        return Err(format!(
            "index {i} is not below the vertex count {vertices}"
        ));
    }
    if mesh.joint_bounds.len() != joints {
        return Err(format!(
            "{} joint bounds for {joints} joints",
            mesh.joint_bounds.len()
        ));
    }
    if let Some(v) = mesh
        .positions
        .iter()
        .position(|p| !p.iter().all(|x| x.is_finite()))
    {
        return Err(format!("position {v} is not finite"));
    }
    if let Some(v) = mesh
        .weights
        .iter()
        .position(|w| !w.iter().all(|x| x.is_finite() && *x >= 0.0))
    {
        return Err(format!("weights of vertex {v} are negative or not finite"));
    }
    Ok(())
}

/// Skin joints inside the skeleton and one rig-wide joint bound per joint.
pub(in crate::baked) fn rig(rig: &Rig) -> Result<(), String> {
    let joints = rig.skeleton.joint_count();
    for skin in &rig.skins {
        if let Some((k, &j)) = skin
            .joints
            .iter()
            .enumerate()
            .find(|&(_, &j)| j as usize >= joints)
        {
            return Err(format!(
                "skin {} joint {k} is joint {j}, the skeleton has {joints}",
                skin.index
            ));
        }
    }
    if rig.joint_bounds.len() != joints {
        return Err(format!(
            "{} joint bounds for {joints} joints",
            rig.joint_bounds.len()
        ));
    }
    Ok(())
}
