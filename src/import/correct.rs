//! Applies an import [`Correction`] to a raw asset at the root of its node forest, so that
//! every node's world matrix becomes `correction × original` and skinned vertices land at
//! `correction × original` in every pose.
//!
//! Root nodes' rest transforms and every root-targeted key are corrected; descendants keep
//! their local transforms. Skinned meshes' bind-space positions get the correction too and
//! each inverse bind becomes `IBM × correction⁻¹`, so `world × IBM` is `C × (world × IBM) ×
//! C⁻¹` and the bind pose still skins to the bind-space mesh. Rigid meshes live in their
//! node's space and need nothing.

use glam::{Mat4, Vec3, Vec4};

use super::raw::{Channel, Interpolation, RawAsset, RawMesh, RawTrack};
use super::settings::Correction;
use crate::math::normalize_or_identity;

/// Corrects `asset` in place (see the module documentation).
pub(super) fn apply(asset: &mut RawAsset, c: &Correction) {
    let is_root: Vec<bool> = asset.nodes.iter().map(|n| n.parent.is_none()).collect();
    for node in asset.nodes.iter_mut().filter(|n| n.parent.is_none()) {
        node.rest.translation = c.point(node.rest.translation);
        node.rest.rotation = normalize_or_identity(c.rotation * node.rest.rotation);
        node.rest.scale *= c.scale;
    }
    for clip in &mut asset.clips {
        let roots = clip
            .tracks
            .iter_mut()
            .filter(|t| is_root.get(t.target).copied().unwrap_or(false));
        for track in roots {
            correct_track(track, c);
        }
    }
    let inverse = Mat4::from(c.to_affine().inverse());
    for skin in &mut asset.skins {
        for ibm in &mut skin.inverse_binds {
            *ibm *= inverse;
        }
    }
    for mesh in asset.meshes.iter_mut().filter(|m| m.skin.is_some()) {
        correct_mesh(mesh, c);
    }
}

/// Corrects a root node's keys: translations move, rotations turn, scales scale. Cubic spline
/// tangents are derivatives, so translation tangents are only turned and scaled.
fn correct_track(track: &mut RawTrack, c: &Correction) {
    let cubic = track.interpolation == Interpolation::CubicSpline;
    for (i, v) in track.values.iter_mut().enumerate() {
        let tangent = cubic && i % 3 != 1;
        *v = match track.channel {
            Channel::Translation if tangent => c.vector(v.truncate()).extend(v.w),
            Channel::Translation => c.point(v.truncate()).extend(v.w),
            Channel::Rotation => Vec4::from(c.rotation * glam::Quat::from_vec4(*v)),
            Channel::Scale => (v.truncate() * c.scale).extend(v.w),
        };
    }
}

/// Brings a skinned mesh's bind-space vertex streams into the corrected space.
fn correct_mesh(mesh: &mut RawMesh, c: &Correction) {
    let turn = |v: &mut [f32; 3]| *v = (c.rotation * Vec3::from(*v)).into();
    for p in &mut mesh.positions {
        *p = c.point(Vec3::from(*p)).into();
    }
    mesh.normals.iter_mut().for_each(turn);
    if let Some(tangents) = &mut mesh.tangents {
        for t in tangents {
            let xyz = c.rotation * Vec3::new(t[0], t[1], t[2]);
            *t = [xyz.x, xyz.y, xyz.z, t[3]];
        }
    }
    for target in &mut mesh.targets {
        for d in &mut target.positions {
            *d = c.vector(Vec3::from(*d)).into();
        }
        target.normals.iter_mut().for_each(turn);
    }
}
