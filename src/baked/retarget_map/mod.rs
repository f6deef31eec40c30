//! Retarget maps: how a clip authored on a source skeleton drives a target skeleton of other
//! proportions, bone names or rest frames. Per target joint, a [`RetargetEntry`] names the
//! source joint that drives it and two rest-pose corrections that keep the joint's world
//! rotation *delta from rest* what the source's is (so an A-pose source drives a T-pose target);
//! the hips' translation is scaled by the ratio of hip heights. Joints are matched by a user map
//! ([`UserMap`], JSON), then the humanoid profile ([`HumanoidBone`]), then by name. The entries
//! are read per joint by `wgsl/retarget.wgsl` and its twin (`apply.rs`); a mirror map
//! ([`RetargetMap::mirrored`]) is an entry table of the same form.

mod apply;
mod binding;
mod humanoid;
mod mirror;
mod names;
mod rest;
mod saved;
mod user_map;

pub use apply::{retarget_pose, retarget_sample};
pub use binding::RetargetBinding;
pub use humanoid::{HumanoidBone, find_bones};
pub use mirror::mirror_partners;
pub use names::{JointName, Side};
pub use rest::RestWorld;
pub use saved::SavedEntry;
pub use user_map::{TranslationSource, UserMap};

use glam::{Quat, Vec3};

use crate::baked::Skeleton;
use crate::error::RetargetError;
use crate::math::{MirrorPlane, Sqt};

/// Where a target joint's translation comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Translation {
    /// A fixed translation (the target's rest, or its mirror image).
    Constant(Vec3),
    /// The source joint's translation turned by the entry's `pre` rotation and scaled.
    Source {
        /// The ratio of the target's hip height to the source's.
        scale: f32,
    },
}

/// How one target joint is driven. With a source joint `s` and its sampled local rotation `q`
/// and translation `t`, the target's local transform is rotation `pre · q' · post`,
/// translation `scale · pre · t'` ([`Translation::Source`]) or the constant, and scale the
/// constant (or the source's): `q'`, `t'` are `q`, `t` mirrored by the map's plane when
/// `reflect` is set. Without a source joint the rotation is `pre`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetargetEntry {
    /// The source joint that drives this target joint (`None`: a constant pose).
    pub source: Option<u16>,
    /// Whether the source's sample is mirrored first.
    pub reflect: bool,
    /// Rotation applied before the source rotation: `T_p⁻¹ S_p` for rest world rotations `S`,
    /// `T` of the source's and the target's parents.
    pub pre: Quat,
    /// Rotation applied after it: `S_s⁻¹ T_j`.
    pub post: Quat,
    /// Where the translation comes from.
    pub translation: Translation,
    /// A fixed scale, or `None`: the source's.
    pub scale: Option<Vec3>,
}

impl RetargetEntry {
    /// The entry that holds `rest`.
    pub fn constant(rest: &Sqt) -> Self {
        Self {
            source: None,
            reflect: false,
            pre: rest.rotation,
            post: Quat::IDENTITY,
            translation: Translation::Constant(rest.translation),
            scale: Some(rest.scale),
        }
    }
}

/// How a target joint found its source joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchRule {
    /// The user's map named it.
    User,
    /// Both skeletons have this bone of the humanoid profile.
    Humanoid(HumanoidBone),
    /// The two joints have the same name.
    Name,
}

/// One matched joint, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JointMatch {
    /// The target joint.
    pub target: String,
    /// The source joint driving it.
    pub source: String,
    /// How it was matched.
    pub rule: MatchRule,
}

/// What a map matched and what it did not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RetargetReport {
    /// Matched target joints, in target joint order.
    pub matched: Vec<JointMatch>,
    /// Target joints no source joint drives (they keep their rest pose).
    pub unmatched_target: Vec<String>,
    /// Source joints that drive no target joint.
    pub unused_source: Vec<String>,
    /// The target's and source's hips, when found.
    pub hips: Option<(String, String)>,
    /// The ratio of hip heights that scales the root's translation (1 without hips).
    pub hip_ratio: f32,
}

/// A retarget (or mirror) map: one [`RetargetEntry`] per target joint.
#[derive(Clone, Debug, PartialEq)]
pub struct RetargetMap {
    entries: Vec<RetargetEntry>,
    plane: MirrorPlane,
    source_joints: usize,
    report: RetargetReport,
}

impl RetargetMap {
    /// Matches `target`'s joints to `source`'s (the user's map, then the humanoid profile, then
    /// names) and derives each matched joint's rest corrections. Fails when the user's map names
    /// a joint either skeleton does not have.
    pub fn build(
        source: &Skeleton,
        target: &Skeleton,
        user: Option<&UserMap>,
    ) -> Result<Self, RetargetError> {
        let default_map = UserMap {
            file: "-".into(),
            ..UserMap::default()
        };
        let user = user.unwrap_or(&default_map);
        let n = target.joint_count();
        let mut matched: Vec<Option<(usize, MatchRule)>> = vec![None; n];
        let mut fixed = vec![false; n];
        let find = |skeleton: &Skeleton, name: &str, which: &str| {
            skeleton.find_joint(name).ok_or_else(|| {
                RetargetError::new(
                    &user.file,
                    format!("joint \"{name}\""),
                    format!("the {which} skeleton has no joint of that name"),
                )
            })
        };
        for (t, s) in &user.joints {
            let tj = find(target, t, "target")?;
            fixed[tj] = true;
            if let Some(s) = s {
                matched[tj] = Some((find(source, s, "source")?, MatchRule::User));
            }
        }
        for name in user.translation.keys() {
            find(target, name, "target")?;
        }
        let source_bones = find_bones(source);
        for (bone, tj) in find_bones(target) {
            if fixed[tj] || matched[tj].is_some() {
                continue;
            }
            if let Some(&(_, sj)) = source_bones.iter().find(|(b, _)| *b == bone) {
                matched[tj] = Some((sj, MatchRule::Humanoid(bone)));
            }
        }
        for (tj, m) in matched.iter_mut().enumerate() {
            if m.is_none() && !fixed[tj] {
                *m = source
                    .find_joint(&target.names()[tj])
                    .map(|sj| (sj, MatchRule::Name));
            }
        }

        let target_hips = match &user.hips {
            Some(name) => Some(find(target, name, "target")?),
            None => find_bones(target)
                .into_iter()
                .find(|(b, _)| *b == HumanoidBone::Hips)
                .map(|(_, j)| j),
        };
        let hips = target_hips.and_then(|tj| matched[tj].map(|(sj, _)| (tj, sj)));
        let (s_rest, t_rest) = (RestWorld::of(source), RestWorld::of(target));
        let hip_ratio = hips.map_or(1.0, |(tj, sj)| {
            let (th, sh) = (t_rest.positions[tj].y, s_rest.positions[sj].y);
            if sh.abs() > 1e-6 && (th / sh).is_finite() && th / sh > 0.0 {
                th / sh
            } else {
                1.0
            }
        });

        let mut report = RetargetReport {
            hip_ratio,
            hips: hips.map(|(tj, sj)| (target.names()[tj].clone(), source.names()[sj].clone())),
            ..RetargetReport::default()
        };
        let mut used = vec![false; source.joint_count()];
        let mut entries = Vec::with_capacity(n);
        for tj in 0..n {
            let rest = &target.rest_pose()[tj];
            let Some((sj, rule)) = matched[tj] else {
                report.unmatched_target.push(target.names()[tj].clone());
                entries.push(RetargetEntry::constant(rest));
                continue;
            };
            used[sj] = true;
            report.matched.push(JointMatch {
                target: target.names()[tj].clone(),
                source: source.names()[sj].clone(),
                rule,
            });
            let carries_root = match hips {
                Some((h, _)) => target.is_in_subtree(h, tj),
                None => !has_matched_ancestor(target, &matched, tj),
            };
            let from_source = match user.translation.get(&target.names()[tj]) {
                Some(TranslationSource::Source) => true,
                Some(TranslationSource::Rest) => false,
                None => carries_root,
            };
            entries.push(RetargetEntry {
                source: Some(sj as u16), // skeletons have at most MAX_JOINTS (256) joints
                reflect: false,
                pre: t_rest.parent_rotation(target, tj).inverse()
                    * s_rest.parent_rotation(source, sj),
                post: s_rest.rotations[sj].inverse() * t_rest.rotations[tj],
                translation: if from_source {
                    Translation::Source { scale: hip_ratio }
                } else {
                    Translation::Constant(rest.translation)
                },
                scale: Some(rest.scale),
            });
        }
        report.unused_source = (0..source.joint_count())
            .filter(|&s| !used[s])
            .map(|s| source.names()[s].clone())
            .collect();
        Ok(Self {
            entries,
            plane: MirrorPlane::X,
            source_joints: source.joint_count(),
            report,
        })
    }

    /// The map of a skeleton onto itself that changes nothing (what a mirror map of a rig's own
    /// clips starts from).
    pub fn identity(skeleton: &Skeleton) -> Self {
        let entries = (0..skeleton.joint_count())
            .map(|j| RetargetEntry {
                source: Some(j as u16), // skeletons have at most MAX_JOINTS (256) joints
                reflect: false,
                pre: Quat::IDENTITY,
                post: Quat::IDENTITY,
                translation: Translation::Source { scale: 1.0 },
                scale: None,
            })
            .collect();
        Self {
            entries,
            plane: MirrorPlane::X,
            source_joints: skeleton.joint_count(),
            report: RetargetReport {
                hip_ratio: 1.0,
                ..RetargetReport::default()
            },
        }
    }

    /// Per target joint, the source joint that drives it (`None`: a constant pose).
    pub fn source_joints(&self) -> Vec<Option<usize>> {
        self.entries
            .iter()
            .map(|e| e.source.map(usize::from))
            .collect()
    }

    /// One entry per target joint.
    pub fn entries(&self) -> &[RetargetEntry] {
        &self.entries
    }

    /// The plane reflecting entries mirror by.
    pub fn plane(&self) -> MirrorPlane {
        self.plane
    }

    /// The number of joints of the source skeleton.
    pub fn source_joint_count(&self) -> usize {
        self.source_joints
    }

    /// What matched and what did not.
    pub fn report(&self) -> &RetargetReport {
        &self.report
    }
}

/// Whether a joint above `joint` has a source joint.
fn has_matched_ancestor<T>(skeleton: &Skeleton, matched: &[Option<T>], joint: usize) -> bool {
    let mut at = skeleton.parents()[joint] as usize;
    while let Some(m) = matched.get(at) {
        if m.is_some() {
            return true;
        }
        at = skeleton.parents()[at] as usize;
    }
    false
}
