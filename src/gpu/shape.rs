//! How the evaluate kernel groups instances: the slots one workgroup takes and the joints of
//! one pass it holds in workgroup memory, chosen from what the device offers.

/// The grouping of the evaluate kernel (`GROUP_INSTANCES` and `PASS_JOINTS` in its WGSL).
///
/// A workgroup takes `group_instances` consecutive slots; consecutive ones of one rig whose
/// joints fit in `pass_joints` model matrices in workgroup memory are evaluated together in a
/// pass, which reads each joint's rig data (rest pose, parent, inverse bind, bounds) once for
/// all of them. A wider shape shares those reads among more instances: eight humanoids (57
/// joints) per pass instead of four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EvaluateShape {
    group_instances: u32,
    pass_joints: u32,
}

impl EvaluateShape {
    /// Four slots, 256 joints: fits wgpu's default limit of 16 KiB of workgroup memory.
    pub const NARROW: Self = Self {
        group_instances: 4,
        pass_joints: 256,
    };
    /// Eight slots, 512 joints: needs [`EvaluateShape::WIDE_WORKGROUP_BYTES`], which
    /// desktop, laptop and most mobile GPUs offer (and Mesa's lavapipe and llvmpipe).
    pub const WIDE: Self = Self {
        group_instances: 8,
        pass_joints: 512,
    };
    /// Workgroup memory the wide shape needs, in bytes.
    pub const WIDE_WORKGROUP_BYTES: u32 = 32768;

    /// Instance slots one workgroup takes.
    pub fn group_instances(self) -> u32 {
        self.group_instances
    }

    /// Joints (summed over a pass's instances) whose model matrices workgroup memory holds.
    pub fn pass_joints(self) -> u32 {
        self.pass_joints
    }

    /// The widest shape a device with `limits` runs.
    pub fn for_limits(limits: &wgpu::Limits) -> Self {
        if limits.max_compute_workgroup_storage_size >= Self::WIDE_WORKGROUP_BYTES {
            Self::WIDE
        } else {
            Self::NARROW
        }
    }

    /// The workgroup memory limit this shape is built for, in bytes (tests/shaders.rs checks
    /// the modules' workgroup variables against it).
    pub fn workgroup_bytes(self) -> u32 {
        if self == Self::NARROW {
            16384
        } else {
            Self::WIDE_WORKGROUP_BYTES
        }
    }

    /// The WGSL declarations of this shape, which the assembled modules start with.
    pub(crate) fn wgsl(self) -> String {
        format!(
            "const GROUP_INSTANCES: u32 = {}u;\nconst PASS_JOINTS: u32 = {}u;\n",
            self.group_instances, self.pass_joints
        )
    }
}

impl Default for EvaluateShape {
    /// [`EvaluateShape::NARROW`], which every device runs.
    fn default() -> Self {
        Self::NARROW
    }
}
