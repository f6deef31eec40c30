//! Attachments solved after the update: each follows a joint of its target's record, and an
//! animated attachment's own record moves with it.

use hecs::{Entity, World};

use super::{Animated, Animator};
use crate::math::Mat3x4Rows;
use crate::runtime::RuntimeError;
use crate::runtime::attachment::Attachment;
use crate::runtime::registry::no_entity;
use crate::runtime::transform::Transform;

impl Animator {
    /// Sets every attachment's world matrix from its target's record (see
    /// [`crate::runtime::Attachment`]).
    pub(super) fn solve_attachments(&mut self, world: &World) -> Result<(), RuntimeError> {
        let mut first_error = None;
        let mut query = world.query::<(Entity, &mut Attachment, Option<&mut Transform>)>();
        for (entity, attachment, transform) in query.iter() {
            let target = world
                .get::<&Animated>(attachment.target)
                .ok()
                .and_then(|a| self.current_record(attachment.target, a.slot));
            let Some(record) = target else {
                first_error.get_or_insert_with(|| no_entity(attachment.target, "Animated"));
                continue;
            };
            let rig = &self.backend.rigs()[record.rig as usize];
            let Some(joint) = attachment.joint_index(record.rig, rig) else {
                first_error.get_or_insert_with(|| RuntimeError::UnknownJoint {
                    rig: rig.name.clone(),
                    joint: attachment.joint.clone(),
                });
                continue;
            };
            let now = self.frame_time();
            let maps = (self.backend.rigs(), self.backend.retargets());
            let masks = self.backend.masks();
            let world_matrix = attachment.solve(maps, rig, masks, &record, now, joint);
            if let Some(transform) = transform {
                *transform = Transform::from_affine(&world_matrix);
            }
            // An animated attachment is drawn where it is attached, this frame.
            if let Ok(a) = world.get::<&Animated>(entity) {
                let world_matrix = Mat3x4Rows::from_affine(&world_matrix);
                if let Some(own) = self.record_index(entity, a.slot) {
                    self.records[own].world = world_matrix;
                } else if let Some(mut held) = self.current_record(entity, a.slot) {
                    // Not updated this time (event-driven): its held record moves.
                    held.world = world_matrix;
                    self.records.push(held);
                    self.record_entities.push(entity);
                    self.record_slots.push(a.slot);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
