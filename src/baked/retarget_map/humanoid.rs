//! The humanoid profile: the bones a biped's clips are matched by, found in a skeleton from
//! the names common conventions give them (Mixamo, Blender, Unreal, VRM and others).

use super::names::{Side, read};
use crate::baked::Skeleton;

/// A bone of the humanoid profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HumanoidBone {
    /// The pelvis: the root of the body, whose translation carries root motion.
    Hips,
    /// The lowest spine joint.
    Spine,
    /// The highest spine joint below the neck.
    Chest,
    /// The neck.
    Neck,
    /// The head.
    Head,
    /// Upper arm of a side.
    UpperArm(Side),
    /// Forearm of a side.
    LowerArm(Side),
    /// Hand of a side.
    Hand(Side),
    /// Thigh of a side.
    UpperLeg(Side),
    /// Shin of a side.
    LowerLeg(Side),
    /// Foot of a side.
    Foot(Side),
    /// Toes of a side.
    Toes(Side),
}

/// How a profile bone is looked for: base names, the first one present wins; a base name
/// shared by several joints (`Spine`, `Spine1`; `Leg01`, `Leg02`) gives the shallowest joint
/// not yet taken, or the deepest with [`Pick::Last`].
#[derive(Clone, Copy)]
enum Pick {
    First,
    Last,
}

/// One bone of the profile: the bone of a side, whether it has sides, its base names and how
/// a shared base name is picked.
type ProfileBone = (
    fn(Side) -> HumanoidBone,
    bool,
    &'static [&'static str],
    Pick,
);

/// The profile in the order bones are looked for (an earlier bone takes its joint first).
const PROFILE: [ProfileBone; 12] = [
    (
        |_| HumanoidBone::Hips,
        false,
        &["hips", "hip", "pelvis"],
        Pick::First,
    ),
    (
        |_| HumanoidBone::Spine,
        false,
        &["spine", "torso", "abdomen"],
        Pick::First,
    ),
    (
        |_| HumanoidBone::Chest,
        false,
        &["chest", "upperchest", "spine", "torso"],
        Pick::Last,
    ),
    (|_| HumanoidBone::Neck, false, &["neck"], Pick::First),
    (|_| HumanoidBone::Head, false, &["head"], Pick::First),
    (
        HumanoidBone::UpperArm,
        true,
        &["upperarm", "arm"],
        Pick::First,
    ),
    (
        HumanoidBone::LowerArm,
        true,
        &["lowerarm", "forearm", "elbow", "arm"],
        Pick::First,
    ),
    (
        HumanoidBone::Hand,
        true,
        &["hand", "wrist", "arm"],
        Pick::First,
    ),
    (
        HumanoidBone::UpperLeg,
        true,
        &["upperleg", "upleg", "thigh", "leg"],
        Pick::First,
    ),
    (
        HumanoidBone::LowerLeg,
        true,
        &["lowerleg", "shin", "calf", "knee", "leg"],
        Pick::First,
    ),
    (
        HumanoidBone::Foot,
        true,
        &["foot", "ankle", "leg"],
        Pick::First,
    ),
    (
        HumanoidBone::Toes,
        true,
        &["toes", "toe", "toebase", "ball", "foot"],
        Pick::First,
    ),
];

/// The profile bones found in `skeleton`, each with its joint, in profile order.
pub fn find_bones(skeleton: &Skeleton) -> Vec<(HumanoidBone, usize)> {
    let names: Vec<_> = skeleton.names().iter().map(|n| read(n)).collect();
    let mut taken = vec![false; names.len()];
    let mut found = Vec::new();
    for (bone, sided, bases, pick) in PROFILE {
        let sides: &[Side] = if sided {
            &[Side::Left, Side::Right]
        } else {
            &[Side::Centre]
        };
        for &side in sides {
            let joint = bases.iter().find_map(|base| {
                // Joints are sorted by depth, so index order is depth order.
                let mut candidates = (0..names.len())
                    .filter(|&j| !taken[j] && names[j].side == side && names[j].base == *base);
                match pick {
                    Pick::First => candidates.next(),
                    Pick::Last => candidates.next_back(),
                }
            });
            if let Some(j) = joint {
                taken[j] = true;
                found.push((bone(side), j));
            }
        }
    }
    found
}
