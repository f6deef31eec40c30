//! A retarget map as saved in an animator's configuration: its entries by joint name, with
//! the corrections they were built with, and the checked way back ([`RetargetMap::from_saved`]).

use glam::{Quat, Vec3};

use super::{JointMatch, MatchRule, RetargetEntry, RetargetMap, RetargetReport, Translation};
use crate::baked::Skeleton;
use crate::error::RetargetError;
use crate::math::MirrorPlane;

/// One target joint of a saved map.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SavedEntry {
    /// The target joint's name.
    pub joint: String,
    /// The source joint driving it (`None`: it holds a constant pose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Whether the source's sample is mirrored first.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reflect: bool,
    /// The rotation before the source's, `[x, y, z, w]`.
    pub pre: [f32; 4],
    /// The rotation after it, `[x, y, z, w]`.
    pub post: [f32; 4],
    /// A fixed translation, or `None`: the source's, scaled by `translation_scale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub translation: Option<[f32; 3]>,
    /// The scale of the source's translation (with no fixed translation).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub translation_scale: f32,
    /// A fixed scale, or `None`: the source's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<[f32; 3]>,
}

fn one() -> f32 {
    1.0
}

fn is_one(x: &f32) -> bool {
    *x == 1.0
}

impl RetargetMap {
    /// The map's entries by joint name: `source`'s and `target`'s skeletons are those it was
    /// built for.
    pub fn saved(&self, source: &Skeleton, target: &Skeleton) -> Vec<SavedEntry> {
        let name = |names: &[String], j: usize| names.get(j).cloned().unwrap_or_default();
        (self.entries.iter().enumerate())
            .map(|(j, e)| {
                let (translation, translation_scale) = match e.translation {
                    Translation::Constant(t) => (Some(t.to_array()), 1.0),
                    Translation::Source { scale } => (None, scale),
                };
                SavedEntry {
                    joint: name(target.names(), j),
                    source: e.source.map(|s| name(source.names(), s as usize)),
                    reflect: e.reflect,
                    pre: e.pre.to_array(),
                    post: e.post.to_array(),
                    translation,
                    translation_scale,
                    scale: e.scale.map(|s| s.to_array()),
                }
            })
            .collect()
    }

    /// The map `saved` describes from `source` to `target` (mirrored across X = 0 where an entry
    /// reflects), one entry per target joint in any order. Fails, naming `file` and the entry,
    /// when a joint is missing, repeated or unknown, or a number is not finite or a rotation not
    /// of unit length.
    pub fn from_saved(
        file: &str,
        source: &Skeleton,
        target: &Skeleton,
        saved: &[SavedEntry],
    ) -> Result<Self, RetargetError> {
        let mut entries: Vec<Option<RetargetEntry>> = vec![None; target.joint_count()];
        let mut matched = Vec::new();
        for s in saved {
            let object = format!("joint {:?}", s.joint);
            let fail = |reason: String| RetargetError::new(file, object.clone(), reason);
            let j = target
                .find_joint(&s.joint)
                .ok_or_else(|| fail("the target rig has no such joint".into()))?;
            let source_joint = match &s.source {
                None => None,
                Some(name) => Some(
                    source
                        .find_joint(name)
                        .ok_or_else(|| fail(format!("the source rig has no joint {name:?}")))?,
                ),
            };
            let rotation = |q: [f32; 4], what: &str| {
                let q = Quat::from_array(q);
                (q.is_finite() && (q.length() - 1.0).abs() <= 1e-3)
                    .then_some(q)
                    .ok_or_else(|| fail(format!("{what} is not a unit rotation")))
            };
            let vector = |v: [f32; 3], what: &str| {
                let v = Vec3::from_array(v);
                v.is_finite()
                    .then_some(v)
                    .ok_or_else(|| fail(format!("{what} is not finite")))
            };
            if !s.translation_scale.is_finite() {
                return Err(fail("translation_scale is not finite".into()));
            }
            let entry = RetargetEntry {
                source: source_joint.map(|s| s as u16), // skeletons have at most MAX_JOINTS
                reflect: s.reflect,
                pre: rotation(s.pre, "pre")?,
                post: rotation(s.post, "post")?,
                translation: match s.translation {
                    Some(t) => Translation::Constant(vector(t, "translation")?),
                    None => Translation::Source {
                        scale: s.translation_scale,
                    },
                },
                scale: s.scale.map(|v| vector(v, "scale")).transpose()?,
            };
            if entries[j].replace(entry).is_some() {
                return Err(fail("named twice".into()));
            }
            if let Some(name) = &s.source {
                matched.push((j, name.clone()));
            }
        }
        let entries = (entries.into_iter().enumerate())
            .map(|(j, e)| {
                e.ok_or_else(|| {
                    let name = target.names()[j].clone();
                    RetargetError::new(file, format!("joint {name:?}"), "has no entry")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        matched.sort();
        let hip_ratio = (entries.iter())
            .find_map(|e| match e.translation {
                Translation::Source { scale } if e.source.is_some() => Some(scale),
                _ => None,
            })
            .unwrap_or(1.0);
        let used: Vec<bool> = (0..source.joint_count())
            .map(|s| entries.iter().any(|e| e.source == Some(s as u16)))
            .collect();
        let report = RetargetReport {
            matched: (matched.into_iter())
                .map(|(j, source)| JointMatch {
                    target: target.names()[j].clone(),
                    source,
                    rule: MatchRule::User,
                })
                .collect(),
            unmatched_target: (entries.iter().enumerate())
                .filter(|(_, e)| e.source.is_none())
                .map(|(j, _)| target.names()[j].clone())
                .collect(),
            unused_source: (used.iter().enumerate())
                .filter(|(_, u)| !**u)
                .map(|(s, _)| source.names()[s].clone())
                .collect(),
            hips: None,
            hip_ratio,
        };
        Ok(Self {
            entries,
            plane: MirrorPlane::X,
            source_joints: source.joint_count(),
            report,
        })
    }
}
