//! Inverse kinematics set up per rig: two-bone chains with a pole and aim (look-at)
//! constraints, solved by both evaluators after propagation and before skinning
//! (`src/cpu/ik.rs`, `wgsl/ik.wgsl`).
//!
//! A rig's constraints ([`RigIk`]) are checked against its skeleton once. Each instance gives
//! one [`IkTarget`] per constraint in its palette block, after the joint entries and morph
//! weights ([`crate::baked::Rig::ik_entry_offset`]): one 48-byte entry per constraint that the host
//! writes and the evaluators only read. An entry with weight 0 (an identity or zeroed entry)
//! leaves the pose untouched, bit for bit; a rig without constraints has no such entries.
//! Targets and poles are in world space, the space of the instance's model matrices.

use glam::{Vec3, Vec4};

use crate::baked::{NO_PARENT, Skeleton};
use crate::error::IkError;
use crate::math::Mat3x4Rows;

/// Most constraints one rig may carry.
pub const MAX_IK_CONSTRAINTS: usize = 16;

/// `vec4`s of one constraint in the GPU key value table (see [`IkConstraint::encode`]).
pub const IK_VEC4S: usize = 4;

/// Constraint kind code of a two-bone chain in the GPU table.
pub const IK_KIND_TWO_BONE: u32 = 0;
/// Constraint kind code of an aim constraint in the GPU table.
pub const IK_KIND_AIM: u32 = 1;

/// A two-bone chain: `root` → `mid` → `tip`, each an ancestor of the next. The solver turns
/// `root` and then `mid` so that `tip` reaches the target, keeping the distances root–mid and
/// mid–tip, with the chain bending in the plane of root, target and pole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwoBoneIk {
    /// The joint the chain turns about first (a shoulder, a hip).
    pub root: usize,
    /// The joint that bends (an elbow, a knee).
    pub mid: usize,
    /// The joint that reaches the target (a wrist, an ankle).
    pub tip: usize,
}

/// Turns `joint` so that its local `aim_axis` points at the target, then about that axis so
/// that its local `up_axis` leans toward `world_up`. With a `limit` (radians, in (0, π]) the
/// aim turns at most that far from the animated direction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimConstraint {
    /// The joint turned.
    pub joint: usize,
    /// The joint-space axis that points at the target.
    pub aim_axis: Vec3,
    /// The joint-space axis kept toward `world_up` (not parallel to `aim_axis`).
    pub up_axis: Vec3,
    /// The world-space up direction.
    pub world_up: Vec3,
    /// Largest angle the aim axis turns from its animated direction; `None` for no limit.
    pub limit: Option<f32>,
}

/// One IK constraint of a rig.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IkConstraint {
    /// A two-bone chain with a pole.
    TwoBone(TwoBoneIk),
    /// An aim / look-at constraint.
    Aim(AimConstraint),
}

impl IkConstraint {
    /// The constraint as [`IK_VEC4S`] `vec4`s for the GPU: kind and joints (as `u32` bits), the
    /// unit aim axis with the limit's cosine, the unit up axis with the limit's sine, the unit
    /// world up. Axes are zero for a two-bone chain.
    pub fn encode(&self) -> [[f32; 4]; IK_VEC4S] {
        let bits = |k: u32, a: usize, b: usize, c: usize| {
            [k, a as u32, b as u32, c as u32].map(f32::from_bits)
        };
        match *self {
            Self::TwoBone(c) => [
                bits(IK_KIND_TWO_BONE, c.root, c.mid, c.tip),
                [0.0; 4],
                [0.0; 4],
                [0.0; 4],
            ],
            Self::Aim(c) => {
                let (cos, sin) = c.limit.map_or((-1.0, 0.0), |l| (l.cos(), l.sin()));
                [
                    bits(IK_KIND_AIM, c.joint, 0, 0),
                    c.aim_axis.normalize().extend(cos).to_array(),
                    c.up_axis.normalize().extend(sin).to_array(),
                    c.world_up.normalize().extend(0.0).to_array(),
                ]
            }
        }
    }
}

/// A rig's IK constraints, checked against its skeleton. Constraints are solved in order, each
/// on the pose the previous ones left.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RigIk {
    constraints: Vec<IkConstraint>,
}

impl RigIk {
    /// No constraints.
    pub const NONE: Self = Self {
        constraints: Vec::new(),
    };

    /// Checks `constraints` against `skeleton` (named `rig` in errors): at most
    /// [`MAX_IK_CONSTRAINTS`], every joint inside the skeleton, a chain's joints each an
    /// ancestor of the next, axes finite and non-zero, aim and up axes not parallel, a limit in
    /// (0, π].
    pub fn new(
        rig: &str,
        skeleton: &Skeleton,
        constraints: Vec<IkConstraint>,
    ) -> Result<Self, IkError> {
        if constraints.len() > MAX_IK_CONSTRAINTS {
            return Err(IkError::TooMany {
                rig: rig.to_string(),
                count: constraints.len(),
                max: MAX_IK_CONSTRAINTS,
            });
        }
        for (k, c) in constraints.iter().enumerate() {
            check_constraint(rig, skeleton, k, c)?;
        }
        Ok(Self { constraints })
    }

    /// The constraints, in solving order.
    pub fn constraints(&self) -> &[IkConstraint] {
        &self.constraints
    }

    /// Number of constraints (palette entries per instance they take).
    pub fn len(&self) -> usize {
        self.constraints.len()
    }

    /// Whether there are no constraints.
    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }
}

/// Whether `joint` is `ancestor` or lies below it (parents precede children).
pub fn in_subtree(parents: &[u16], joint: usize, ancestor: usize) -> bool {
    let mut j = joint;
    while j > ancestor {
        let p = parents[j];
        if p == NO_PARENT {
            return false;
        }
        j = p as usize;
    }
    j == ancestor
}

fn check_constraint(
    rig: &str,
    skeleton: &Skeleton,
    k: usize,
    c: &IkConstraint,
) -> Result<(), IkError> {
    let n = skeleton.joint_count();
    let joint = |joint: usize| {
        if joint < n {
            Ok(())
        } else {
            Err(IkError::NoSuchJoint {
                rig: rig.to_string(),
                constraint: k,
                joint,
                joint_count: n,
            })
        }
    };
    let axis = |v: Vec3, name: &'static str| {
        if v.is_finite() && v.length_squared() > 1e-12 {
            Ok(())
        } else {
            Err(IkError::BadAxis {
                rig: rig.to_string(),
                constraint: k,
                axis: name,
            })
        }
    };
    match *c {
        IkConstraint::TwoBone(t) => {
            joint(t.root)?;
            joint(t.mid)?;
            joint(t.tip)?;
            let parents = skeleton.parents();
            for (upper, lower) in [(t.root, t.mid), (t.mid, t.tip)] {
                if upper == lower || !in_subtree(parents, lower, upper) {
                    return Err(IkError::NotAChain {
                        rig: rig.to_string(),
                        constraint: k,
                        upper: skeleton.names()[upper].clone(),
                        lower: skeleton.names()[lower].clone(),
                    });
                }
            }
        }
        IkConstraint::Aim(a) => {
            joint(a.joint)?;
            axis(a.aim_axis, "aim axis")?;
            axis(a.up_axis, "up axis")?;
            axis(a.world_up, "world up")?;
            let cos = a.aim_axis.normalize().dot(a.up_axis.normalize());
            if cos.abs() > 0.9999 {
                return Err(IkError::BadAxis {
                    rig: rig.to_string(),
                    constraint: k,
                    axis: "up axis (parallel to the aim axis)",
                });
            }
            if let Some(limit) = a.limit
                && !(limit > 0.0 && limit <= std::f32::consts::PI)
            {
                return Err(IkError::BadLimit {
                    rig: rig.to_string(),
                    constraint: k,
                    limit,
                });
            }
        }
    }
    Ok(())
}

/// How a two-bone chain chooses its bending plane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Pole {
    /// Keep the animated bend (the plane of root, mid joint and target).
    #[default]
    Animated,
    /// Bend toward this world-space point.
    Position(Vec3),
    /// Bend toward this world-space direction.
    Direction(Vec3),
}

/// Pole mode code of [`Pole::Animated`] in an IK palette entry (row 1, `w`).
pub const POLE_ANIMATED: f32 = 0.0;
/// Pole mode code of [`Pole::Position`].
pub const POLE_POSITION: f32 = 1.0;
/// Pole mode code of [`Pole::Direction`].
pub const POLE_DIRECTION: f32 = 2.0;

/// One instance's input to one constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkTarget {
    /// The world-space point a chain's tip reaches for or an aim axis points at.
    pub target: Vec3,
    /// The bending plane of a two-bone chain (ignored by aim constraints).
    pub pole: Pole,
    /// How much of the solution applies, 0 to 1; 0 changes nothing.
    pub weight: f32,
}

impl IkTarget {
    /// A constraint switched off.
    pub const OFF: Self = Self {
        target: Vec3::ZERO,
        pole: Pole::Animated,
        weight: 0.0,
    };

    /// A target at full weight with the animated bend.
    pub fn at(target: Vec3) -> Self {
        Self {
            target,
            pole: Pole::Animated,
            weight: 1.0,
        }
    }

    /// Whether every number is finite and the weight lies in [0, 1].
    pub fn is_valid(&self) -> bool {
        let pole = match self.pole {
            Pole::Animated => Vec3::ZERO,
            Pole::Position(p) | Pole::Direction(p) => p,
        };
        self.target.is_finite() && pole.is_finite() && (0.0..=1.0).contains(&self.weight)
    }

    /// The palette entry it travels in: row 0 the target and weight, row 1 the pole and its
    /// mode (0 animated, 1 position, 2 direction), row 2 unused.
    pub fn to_entry(&self) -> Mat3x4Rows {
        let (pole, mode) = match self.pole {
            Pole::Animated => (Vec3::ZERO, POLE_ANIMATED),
            Pole::Position(p) => (p, POLE_POSITION),
            Pole::Direction(d) => (d, POLE_DIRECTION),
        };
        Mat3x4Rows {
            rows: [
                self.target.extend(self.weight).to_array(),
                pole.extend(mode).to_array(),
                [0.0; 4],
            ],
        }
    }

    /// The target an entry holds (the inverse of [`IkTarget::to_entry`]; an unknown pole mode
    /// reads as the animated bend).
    pub fn from_entry(entry: &Mat3x4Rows) -> Self {
        let row0 = Vec4::from_array(entry.rows[0]);
        let row1 = Vec4::from_array(entry.rows[1]);
        let pole = if row1.w == POLE_POSITION {
            Pole::Position(row1.truncate())
        } else if row1.w == POLE_DIRECTION {
            Pole::Direction(row1.truncate())
        } else {
            Pole::Animated
        };
        Self {
            target: row0.truncate(),
            pole,
            weight: row0.w,
        }
    }
}

/// Writes `targets` (one per IK entry in `entries`, those of an instance of the rig named
/// `rig`) as palette entries. Fails when the counts differ or a target is not finite or
/// weighted outside [0, 1].
pub fn encode_ik_targets(
    rig: &str,
    targets: &[IkTarget],
    entries: &mut [Mat3x4Rows],
) -> Result<(), IkError> {
    if targets.len() != entries.len() {
        return Err(IkError::TargetCount {
            rig: rig.to_string(),
            expected: entries.len(),
            found: targets.len(),
        });
    }
    if let Some(k) = targets.iter().position(|t| !t.is_valid()) {
        return Err(IkError::BadTarget {
            rig: rig.to_string(),
            constraint: k,
        });
    }
    for (entry, target) in entries.iter_mut().zip(targets) {
        *entry = target.to_entry();
    }
    Ok(())
}
