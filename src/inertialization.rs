//! Inertialized transitions in the instance record: a transition kind beside the cross-fade.
//! At its start the evaluator stores, per joint, the offset between the outgoing pose and the
//! incoming layers and the offset's velocity in an inertialization block (a range of palette
//! entries the host allocates beside the palette blocks, [`crate::PaletteAllocator`], for
//! characters in transition only), then adds the offset, decayed to zero over the transition's
//! duration, to the incoming layers alone ([`crate::cpu::inertial_decay`]).
//!
//! A record under [`InstanceRecord::INERTIAL`] keeps its incoming layers as its used layers
//! (`layers[..layer_count]`: everything that reads layers sees the new motion only), the
//! outgoing layers right after them, and a descriptor ([`Inertialization`]) in the last layer
//! slot. The outgoing layers are read once, on the capture frame: the first evaluation that
//! finds the block's serial differing from the descriptor's. The capture is a function of the
//! record (the outgoing and incoming layers at the start time and one
//! [`INERTIAL_VELOCITY_STEP`] before it), plus, for a transition that interrupts an
//! inertialized one (`chained`), the offset the block held, decayed to the start time.
//!
//! A block is [`inertial_block_entries`] palette entries, read as `vec4`s (three per entry): a
//! header (serial, start, duration; one entry), then [`INERTIAL_JOINT_VEC4S`] per joint.

use crate::error::EvalError;
use crate::instance::{InstanceRecord, LayerRecord, MAX_LAYERS};

/// Frame-time step of the backward difference that gives the captured offset's velocity
/// (1/1024 s: short against a chained offset's acceleration, exact in an `f32`; the step is
/// taken as the difference of the two rounded frame times, so it stays exact at large times).
pub const INERTIAL_VELOCITY_STEP: f32 = 1.0 / 1024.0;

/// `vec4`s per joint in an inertialization block: rotation offset (a rotation vector) and its
/// velocity, translation offset and velocity, scale offset and velocity (`w` unused): two
/// palette entries.
pub const INERTIAL_JOINT_VEC4S: u32 = 6;

/// `vec4`s of a block's header (one palette entry; the first holds serial, start, duration,
/// [`INERTIAL_TAG`]).
pub const INERTIAL_HEADER_VEC4S: u32 = 3;

/// The last number of a captured block's header (2¹²⁷): with the serial, what tells a
/// captured block from palette entries or zeros left in its memory.
pub const INERTIAL_TAG: f32 = f32::from_bits(0x7f00_0000);

/// Most serials: they count 1 to this and wrap to 1 (each exact in an `f32`; 0 is a block
/// never captured).
pub const INERTIAL_SERIAL_MAX: u32 = 0x00ff_ffff;

/// Palette entries of the inertialization block of a rig with `joints` joints.
pub const fn inertial_block_entries(joints: u32) -> u32 {
    1 + 2 * joints
}

/// The descriptor of an inertialized transition.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertialization {
    /// First palette entry of the instance's inertialization block
    /// ([`inertial_block_entries`] of its rig's joints), outside every palette block.
    pub block: u32,
    /// Capture serial, 1 to [`INERTIAL_SERIAL_MAX`]: a block whose header holds another value
    /// captures on the next evaluation. Each transition into a block takes a new serial.
    pub serial: u32,
    /// Frame time at which the transition starts (and the offset is measured).
    pub start: f32,
    /// Seconds over which the offset decays to zero (above 0).
    pub duration: f32,
    /// Number of outgoing layers after the incoming ones.
    pub outgoing: u32,
    /// The outgoing pose is itself inertialized: its offset is the block's, as captured
    /// before.
    pub chained: bool,
}

impl Inertialization {
    /// Bits of the descriptor's `flags` holding the outgoing layer count.
    const OUTGOING: u32 = 3;
    /// Descriptor flag of a chained transition.
    const CHAINED: u32 = 4;

    /// The serial after `serial` (1 after [`INERTIAL_SERIAL_MAX`]).
    pub const fn next_serial(serial: u32) -> u32 {
        if serial >= INERTIAL_SERIAL_MAX {
            1
        } else {
            serial + 1
        }
    }

    /// The descriptor as the record's last layer.
    fn to_layer(self) -> LayerRecord {
        LayerRecord {
            clip: self.block,
            time: self.start,
            weight: self.serial as f32,
            flags: (self.outgoing & Self::OUTGOING) | if self.chained { Self::CHAINED } else { 0 },
            period: self.duration,
            ..LayerRecord::STILL
        }
    }

    fn from_layer(layer: &LayerRecord) -> Self {
        Self {
            block: layer.clip,
            serial: layer.weight as u32,
            start: layer.time,
            duration: layer.period,
            outgoing: layer.flags & Self::OUTGOING,
            chained: layer.flags & Self::CHAINED != 0,
        }
    }

    /// Checks the descriptor of `rec` (an instance of a rig of `joints` joints): layer slots,
    /// finite start, duration above 0, a block that ends within `u32` entries.
    pub(crate) fn check(&self, rec: &InstanceRecord, joints: usize) -> Result<(), EvalError> {
        let needed = rec.used_layers().len() + self.outgoing as usize + 1;
        if needed > MAX_LAYERS {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "inertialized record needs {needed} layer slots (incoming, outgoing, \
                     descriptor), at most {MAX_LAYERS}"
                ),
            });
        }
        if !self.start.is_finite() || !self.duration.is_finite() || self.duration <= 0.0 {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "inertialization starts at {} and lasts {} (finite, above 0 expected)",
                    self.start, self.duration
                ),
            });
        }
        if self.block_end(joints) > u64::from(u32::MAX) {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "inertialization block {} ends past the last entry",
                    self.block
                ),
            });
        }
        Ok(())
    }

    /// The palette entry after the block, for a rig of `joints` joints.
    pub fn block_end(&self, joints: usize) -> u64 {
        u64::from(self.block) + u64::from(inertial_block_entries(joints as u32))
    }

    /// Elapsed part of the transition at frame time `now`, 0 to 1.
    pub fn progress(&self, now: f32) -> f32 {
        ((now - self.start) / self.duration).clamp(0.0, 1.0)
    }
}

impl InstanceRecord {
    /// Flag: the record is an inertialized transition (see [`crate::Inertialization`]): its
    /// last layer slot is the descriptor and its outgoing layers follow the used ones.
    pub const INERTIAL: u32 = 1 << 30;

    /// The record (whose layers are the incoming ones) inertialized from `outgoing` by
    /// `transition` (its `outgoing` count is set here). Fails with [`EvalError::BadLayer`] when
    /// the incoming and outgoing layers and the descriptor exceed [`MAX_LAYERS`], the duration
    /// is not above 0 or the serial is out of range.
    pub fn inertialized(
        mut self,
        outgoing: &[LayerRecord],
        mut transition: Inertialization,
    ) -> Result<Self, EvalError> {
        let incoming = self.used_layers().len();
        if incoming + outgoing.len() + 1 > MAX_LAYERS {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "an inertialized transition from {} layers to {incoming} needs {} layer \
                     slots, at most {MAX_LAYERS}",
                    outgoing.len(),
                    incoming + outgoing.len() + 1
                ),
            });
        }
        if transition.duration.is_nan() || transition.duration <= 0.0 {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "inertialization duration {} is not above 0",
                    transition.duration
                ),
            });
        }
        if transition.serial == 0 || transition.serial > INERTIAL_SERIAL_MAX {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "inertialization serial {} outside 1..={INERTIAL_SERIAL_MAX}",
                    transition.serial
                ),
            });
        }
        transition.outgoing = outgoing.len() as u32;
        self.layers[incoming..incoming + outgoing.len()].copy_from_slice(outgoing);
        self.layers[MAX_LAYERS - 1] = transition.to_layer();
        self.flags |= Self::INERTIAL;
        Ok(self)
    }

    /// The inertialized transition the record describes, if any.
    pub fn inertialization(&self) -> Option<Inertialization> {
        (self.flags & Self::INERTIAL != 0)
            .then(|| Inertialization::from_layer(&self.layers[MAX_LAYERS - 1]))
    }

    /// The outgoing layers of an inertialized record (empty otherwise, or when they would
    /// reach the descriptor).
    pub fn outgoing_layers(&self) -> &[LayerRecord] {
        let Some(t) = self.inertialization() else {
            return &[];
        };
        let start = self.used_layers().len();
        let end = start + t.outgoing as usize;
        if end >= MAX_LAYERS {
            return &[];
        }
        &self.layers[start..end]
    }

    /// The record asking for an inertialized transition over `duration` seconds from the
    /// record its instance held (a descriptor of serial 0, which the animator turns into the
    /// transition before the record leaves it), where its layers leave room for one outgoing
    /// layer and the descriptor; unchanged otherwise (a cut).
    pub(crate) fn with_inertial_request(mut self, duration: f32) -> Self {
        if self.used_layers().len() + 2 <= MAX_LAYERS {
            let request = Inertialization {
                block: 0,
                serial: 0,
                start: 0.0,
                duration,
                outgoing: 0,
                chained: false,
            };
            self.layers[MAX_LAYERS - 1] = request.to_layer();
            self.flags |= Self::INERTIAL;
        }
        self
    }

    /// The duration a request of [`InstanceRecord::with_inertial_request`] asks for.
    pub(crate) fn inertial_request(&self) -> Option<f32> {
        self.inertialization()
            .filter(|t| t.serial == 0)
            .map(|t| t.duration)
    }

    /// The same record without its inertialization (the incoming layers cut in).
    pub fn without_inertialization(mut self) -> Self {
        if self.flags & Self::INERTIAL != 0 {
            self.flags &= !Self::INERTIAL;
            let used = self.used_layers().len();
            for layer in &mut self.layers[used..] {
                *layer = LayerRecord::STILL;
            }
        }
        self
    }
}
