//! Retargeting between two copies of one skeleton whose joints have different rest frames
//! (an FBX export of a glTF rig, with its bones re-oriented and an extra armature node): each
//! source key is re-expressed in the rig's joint frames so that joints take the same world
//! rotations and positions relative to their rest pose, then matched by name as in
//! [`retarget_clips`].

use glam::{Affine3A, Mat3A, Quat, Vec4};

use super::Rig;
use super::retarget::{RetargetReport, retarget_clips};
use crate::baked::Channel;
use crate::error::ImportError;
use crate::import::RawAsset;
use crate::math::normalize_or_identity;

/// [`retarget_clips`] for a source whose joints share the rig's rest pose in world space but
/// not its local frames. For a source joint `n` named like rig joint `j`, with rest world
/// rotations `S` (source) and `T` (rig) and parents `p`, rotation keys become
/// `T_p⁻¹ S_p q S_n⁻¹ T_j` and translation keys `L_p⁻¹ M_p t` (`L`, `M`: the parents' rest
/// world linear parts in the rig and the source). Scale keys are kept. Source nodes that are
/// not joints of the rig (an armature, a scene root) count through their rest transforms and
/// must not be animated for the result to match.
pub fn retarget_clips_by_rest(
    rig: &Rig,
    source: &RawAsset,
) -> Result<(Rig, RetargetReport), ImportError> {
    let source_world = rest_worlds(source);
    let skeleton = &rig.skeleton;
    let mut rig_world: Vec<Affine3A> = Vec::with_capacity(skeleton.joint_count());
    for (j, rest) in skeleton.rest_pose().iter().enumerate() {
        let local = rest.to_affine();
        let parent = skeleton.parents()[j] as usize;
        // Parents always come before their children.
        let world = rig_world.get(parent).map_or(local, |p| *p * local);
        rig_world.push(world);
    }
    let mut aligned = source.clone();
    for clip in &mut aligned.clips {
        for track in &mut clip.tracks {
            let Some(node) = source.nodes.get(track.target) else {
                continue; // retarget_clips reports it.
            };
            let Some(joint) = skeleton.find_joint(&node.name) else {
                continue;
            };
            let source_parent = node
                .parent
                .and_then(|p| source_world.get(p))
                .copied()
                .unwrap_or(Affine3A::IDENTITY);
            let rig_parent = rig_world
                .get(skeleton.parents()[joint] as usize)
                .copied()
                .unwrap_or(Affine3A::IDENTITY);
            match track.channel {
                Channel::Translation => {
                    let map = rig_parent.matrix3.inverse() * source_parent.matrix3;
                    for v in &mut track.values {
                        *v = (map * v.truncate()).extend(v.w);
                    }
                }
                Channel::Rotation => {
                    let before =
                        rotation(&rig_parent.matrix3).inverse() * rotation(&source_parent.matrix3);
                    let after = rotation(&source_world[track.target].matrix3).inverse()
                        * rotation(&rig_world[joint].matrix3);
                    for v in &mut track.values {
                        *v = Vec4::from(before * Quat::from_vec4(*v) * after);
                    }
                }
                Channel::Scale => {}
            }
        }
    }
    retarget_clips(rig, &aligned)
}

/// The rotation part of a linear map (its scale divided out).
fn rotation(m: &Mat3A) -> Quat {
    let (_, r, _) = Affine3A::from_mat3(glam::Mat3::from(*m)).to_scale_rotation_translation();
    normalize_or_identity(r)
}

/// Every node's rest world transform (a node whose parent chain is broken or cyclic counts
/// from where the chain stops).
fn rest_worlds(asset: &RawAsset) -> Vec<Affine3A> {
    (0..asset.nodes.len())
        .map(|n| {
            let mut world = Affine3A::IDENTITY;
            let mut at = Some(n);
            for _ in 0..asset.nodes.len() {
                let Some(node) = at.and_then(|i| asset.nodes.get(i)) else {
                    break;
                };
                world = node.rest.to_affine() * world;
                at = node.parent;
            }
            world
        })
        .collect()
}
