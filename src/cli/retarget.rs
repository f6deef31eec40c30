//! `--clips-from SOURCE [--retarget-map MAP.json] [--mirror]`: a command's model playing
//! another file's clips through a retarget map.

use std::fmt::Write;
use std::path::PathBuf;

use clap::Args;
use sinew::Rig;
use sinew::baked::retarget_map::{MatchRule, RetargetMap, UserMap};

/// The retargeting flags shared by `pose` and `inspect`.
#[derive(Debug, Args)]
pub struct RetargetFlags {
    /// Play the clips of this file (glTF, FBX or `.sinew`; its first rig) on the model,
    /// retargeted: `--anim N` is the source's animation.
    #[arg(long, value_name = "SOURCE")]
    pub clips_from: Option<PathBuf>,
    /// A JSON retarget map (target joint → source joint, translations, hips); joints it does not
    /// name are matched by the humanoid profile, then by name.
    #[arg(long, value_name = "MAP.json", requires = "clips_from")]
    pub retarget_map: Option<PathBuf>,
    /// Mirror the retargeted clip (left and right swapped across the X = 0 plane).
    #[arg(long, requires = "clips_from")]
    pub mirror: bool,
}

/// The source file's first rig and the user's map, when `--clips-from` is given.
pub struct RetargetSource {
    /// The source's first rig.
    pub rig: Rig,
    /// The user's map.
    pub user: Option<UserMap>,
}

impl RetargetFlags {
    /// Reads the source and the map. Fails when a file cannot be read or the source has no rig.
    pub fn source(
        &self,
        settings: &sinew::ImportSettings,
    ) -> super::Result<Option<RetargetSource>> {
        let Some(path) = &self.clips_from else {
            return Ok(None);
        };
        let rig = super::load_rigs(path, settings)?
            .into_iter()
            .next()
            .ok_or_else(|| super::error::CliError::unusable(path, "it has no rig"))?;
        let user = self
            .retarget_map
            .as_deref()
            .map(UserMap::read)
            .transpose()?;
        Ok(Some(RetargetSource { rig, user }))
    }
}

/// How a target joint was matched, as the report names it.
fn rule_name(rule: &MatchRule) -> String {
    match rule {
        MatchRule::User => "map".to_string(),
        MatchRule::Humanoid(bone) => format!("humanoid {bone:?}"),
        MatchRule::Name => "name".to_string(),
    }
}

/// The map's report as JSON (what `describe_map` writes as text), for `inspect --json`.
pub fn map_json(target: &Rig, map: &RetargetMap, mirror: bool) -> serde_json::Value {
    let report = map.report();
    serde_json::json!({
        "rig": target.name,
        "mirror": mirror,
        "hips": report.hips.as_ref().map(|(t, s)| serde_json::json!({"target": t, "source": s})),
        "root_translation_scale": report.hip_ratio,
        "matched": report.matched.iter().map(|m| serde_json::json!({
            "target": m.target,
            "source": m.source,
            "rule": rule_name(&m.rule),
        })).collect::<Vec<_>>(),
        "target_at_rest": report.unmatched_target,
        "source_unused": report.unused_source,
    })
}

/// The map's report as text: what each target joint plays and what did not match.
pub fn describe_map(text: &mut String, target: &Rig, map: &RetargetMap) {
    let report = map.report();
    let _ = writeln!(text, "retarget onto rig {:?}:", target.name);
    if let Some((t, s)) = &report.hips {
        let _ = writeln!(
            text,
            "  hips {t} <- {s}, root translation × {:.4}",
            report.hip_ratio
        );
    }
    for m in &report.matched {
        let rule = rule_name(&m.rule);
        let _ = writeln!(text, "  {} <- {} ({rule})", m.target, m.source);
    }
    let _ = writeln!(
        text,
        "  target joints at rest ({}): {}",
        report.unmatched_target.len(),
        report.unmatched_target.join(", ")
    );
    let _ = writeln!(
        text,
        "  source joints unused ({}): {}",
        report.unused_source.len(),
        report.unused_source.join(", ")
    );
}
