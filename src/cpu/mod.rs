//! The CPU evaluator: the test oracle for the GPU pipeline and the backend where no adapter is
//! present. One module per stage, named like the WGSL stages (sample, decode and propagate are
//! shared with the compressed clip encoder, so they live in [`crate::baked`] and are re-exported
//! here); [`CpuBackend`] runs all instances in parallel across the cores.

mod aabb;
mod backend;
mod blend;
mod checked;
pub(crate) use checked::validate_record;
mod clip_source;
mod clock;
pub mod fast;
mod frame_order;
mod ik;
mod inertial;
mod inertial_copies;
mod morph;
mod previous_palette;
mod reads;
mod retarget;
mod root_frame;

pub(crate) use blend::blend_joint_with;
pub(crate) use retarget::{LayerClips, layer_channel, playing_clips};
mod root_motion;
mod skin;

pub use crate::baked::compressed::decode::{
    self as decode, sample_channel, sample_joint_compressed, sample_weight_chunk_compressed,
};
pub use crate::baked::propagate::{local_to_model, propagate_joint};
pub use crate::baked::retarget_map::{retarget_pose, retarget_sample};
pub use crate::baked::sample::{find_key, sample_clip, sample_joint, sample_track};
pub use aabb::{animated_aabb, grow_joint_aabb};
pub use backend::CpuBackend;
pub(crate) use backend::check_rigs;
pub use blend::{
    blend_joint, blend_joint_from, blend_layers, hold_root, hold_root_in_frame, validate_layers,
};
pub use clip_source::{
    ClipSource, sample_channel_from, sample_joint_from, sample_weight_chunk_from,
};
pub use clock::{
    layer_fade, layer_rate, layer_time, layer_unwrapped_time, layer_weight, wrap_time,
};
pub use fast::FastCpuBackend;
pub(crate) use frame_order::FrameOrder;
pub use ik::{
    IK_EPSILON, aim_correction, rotation_about, rotation_arc, solve_constraints, solve_ik,
    two_bone_corrections,
};
pub use inertial::{
    InertialView, InertialWords, JointOffset, capture_inertialization, capture_joint, decayed,
    inertial_decay, joint_offset, quat_exp, quat_log,
};
pub use morph::{
    blend_weight_chunk, blend_weight_chunk_from, morph_weights, write_morph_weights,
    write_morph_weights_from,
};
pub use previous_palette::PreviousPalette;
pub use root_frame::RootFrame;
pub use root_motion::{
    advance_root_motion, advance_root_motion_from, layer_root_motion, move_world,
    root_motion_delta, root_translation, root_translation_from, root_yaw, root_yaw_from,
    short_angle,
};
pub use skin::{skin_joint, skin_palette};

use glam::Affine3A;

use crate::baked::Rig;
use crate::instance::{InstanceRecord, Layer};
use crate::mask::JointMask;
use crate::math::Aabb;
use crate::math::Mat3x4Rows;

/// Evaluates one instance: blend → propagate → skin → bounds, fused per joint (parents come
/// first, so one pass suffices), then the morph weights. A rig with IK constraints propagates
/// every joint first, solves them ([`solve_ik`], targets read from the block's IK entries,
/// [`Rig::ik_entry_offset`]) and then skins. Writes `models` (one per joint) and
/// `palette` (the instance's block: one entry per joint, then the morph weights of a rig with
/// morph targets, [`Rig::palette_entries`] in all; entries past the slice's end are not
/// written) and returns the animated AABB. Layers must be valid.
pub fn evaluate_pose(
    rig: &Rig,
    masks: &[JointMask],
    layers: &[Layer],
    world: &Affine3A,
    models: &mut [Affine3A],
    palette: &mut [Mat3x4Rows],
) -> Aabb {
    evaluate_pose_with_flags(rig, masks, layers, 0, world, models, palette)
}

/// [`evaluate_pose`] with [`InstanceRecord::flags`] applied: root-motion removal, and the
/// joint LOD level ([`InstanceRecord::LOD_LEVEL`]): joints past
/// [`crate::Skeleton::lod_sampled_joints`] take their rest local transform (no layer, no
/// root hold), so their model matrix is their parent's × rest local.
pub fn evaluate_pose_with_flags(
    rig: &Rig,
    masks: &[JointMask],
    layers: &[Layer],
    flags: u32,
    world: &Affine3A,
    models: &mut [Affine3A],
    palette: &mut [Mat3x4Rows],
) -> Aabb {
    evaluate_pose_from(
        rig,
        ClipSource::Exact,
        masks,
        layers,
        flags,
        world,
        models,
        palette,
    )
}

/// [`evaluate_pose_with_flags`] with the clips sampled from `source`.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_pose_from(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    flags: u32,
    world: &Affine3A,
    models: &mut [Affine3A],
    palette: &mut [Mat3x4Rows],
) -> Aabb {
    evaluate_pose_with(
        rig,
        source,
        masks,
        layers,
        &[],
        flags,
        None,
        world,
        models,
        palette,
    )
}

/// [`evaluate_pose_from`] with an inertialized transition's offsets (`inertial`) added to each
/// sampled joint's blended pose before root-motion removal.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_pose_inertial(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    flags: u32,
    inertial: Option<&InertialView>,
    world: &Affine3A,
    models: &mut [Affine3A],
    palette: &mut [Mat3x4Rows],
) -> Aabb {
    evaluate_pose_with(
        rig,
        source,
        masks,
        layers,
        &[],
        flags,
        inertial,
        world,
        models,
        palette,
    )
}

/// [`evaluate_pose_inertial`] with layer `i` sampled from `clips[i]` (retargeted layers).
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_pose_with(
    rig: &Rig,
    source: ClipSource,
    masks: &[JointMask],
    layers: &[Layer],
    clips: &[retarget::LayerClips],
    flags: u32,
    inertial: Option<&InertialView>,
    world: &Affine3A,
    models: &mut [Affine3A],
    palette: &mut [Mat3x4Rows],
) -> Aabb {
    let skeleton = &rig.skeleton;
    let sampled = skeleton
        .lod_sampled_joints((flags & InstanceRecord::LOD_LEVEL) >> InstanceRecord::LOD_LEVEL_SHIFT);
    let local_pose = |j: usize| match j < sampled {
        true => {
            let pose = blend::blend_joint_with(rig, source, masks, layers, clips, j);
            let pose = match inertial {
                Some(view) => view.apply(j, &pose),
                None => pose,
            };
            hold_root(rig, flags, j, pose)
        }
        false => skeleton.rest_pose()[j],
    };
    let mut aabb = Aabb::EMPTY;
    if rig.ik.is_empty() {
        for j in 0..rig.joint_count() {
            let local = local_pose(j);
            models[j] = propagate_joint(skeleton.parents()[j], world, models, &local);
            palette[j] = skin_joint(&models[j], &skeleton.inverse_binds()[j]);
            grow_joint_aabb(&mut aabb, &rig.joint_bounds[j], &models[j]);
        }
    } else {
        // IK needs every model matrix before it turns subtrees, then skinning reads them.
        for j in 0..rig.joint_count() {
            let local = local_pose(j);
            models[j] = propagate_joint(skeleton.parents()[j], world, models, &local);
        }
        let inputs = palette.get(rig.ik_entry_offset()..).unwrap_or(&[]);
        solve_ik(rig, inputs, models);
        for j in 0..rig.joint_count() {
            palette[j] = skin_joint(&models[j], &skeleton.inverse_binds()[j]);
            grow_joint_aabb(&mut aabb, &rig.joint_bounds[j], &models[j]);
        }
    }
    if let Some(entries) = palette.get_mut(rig.joint_count()..) {
        write_morph_weights_from(rig, source, masks, layers, entries);
    }
    aabb
}
