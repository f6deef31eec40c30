//! Joint LOD: the reduced skeletons an instance may be evaluated with. Joints are sorted by
//! depth, so each level's sampled joints are a prefix of the joint order; the joints past it
//! keep their rest local transform (their model matrix is their parent's × rest local), so
//! they follow their parents rigidly and their tracks are not sampled.

use super::skeleton::Skeleton;

/// Joint LOD levels: 0 (every joint sampled) to 3.
pub const LOD_LEVELS: usize = 4;

impl Skeleton {
    /// How many joints (a prefix of the depth order) are sampled at joint LOD `level`: every
    /// joint at level 0; at level `k` (1 to 3, larger clamped) the joints of depth below
    /// `max(1, levels − 2k)`, so each level drops two more of the deepest depth levels (finger
    /// and toe tips first) and the roots are always sampled.
    pub fn lod_sampled_joints(&self, level: u32) -> usize {
        let level = (level as usize).min(LOD_LEVELS - 1);
        if level == 0 {
            return self.joint_count();
        }
        let levels = self.level_count();
        let kept = levels.saturating_sub(2 * level).max(1).min(levels);
        self.level_starts()[kept] as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Sqt;

    #[test]
    fn each_level_drops_two_depth_levels() {
        // A chain of six joints: depth d = joint d.
        let skeleton = Skeleton {
            names: (0..6).map(|j| format!("j{j}")).collect(),
            parents: (0..6u16)
                .map(|j| j.checked_sub(1).unwrap_or(u16::MAX))
                .collect(),
            level_starts: (0..=6).collect(),
            rest: vec![Sqt::IDENTITY; 6],
            inverse_binds: vec![glam::Affine3A::IDENTITY; 6],
            source_nodes: (0..6).collect(),
        };
        let sampled: Vec<usize> = (0..5).map(|l| skeleton.lod_sampled_joints(l)).collect();
        assert_eq!(sampled, [6, 4, 2, 1, 1]);
    }
}
