//! A retarget map written by hand: JSON naming, per target joint, the source joint that drives
//! it and where its translation comes from.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::RetargetError;

/// Where a target joint's translation comes from.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TranslationSource {
    /// The target's rest translation (the default below the hips).
    Rest,
    /// The source's translation, turned into the target's frame and scaled by the ratio of hip
    /// heights (the default for the hips and their ancestors).
    Source,
}

/// A user's retarget map, as read from JSON:
///
/// ```json
/// { "joints": { "upperarm_l": "mixamorig:LeftArm" },
///   "translation": { "pelvis": "source" },
///   "hips": "pelvis" }
/// ```
///
/// `joints` maps target joint names to source joint names (a `null` source leaves the target
/// joint at rest); joints it does not name are matched by the humanoid profile, then by name.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UserMap {
    /// Target joint name → source joint name (or `null`: keep the target's rest).
    #[serde(default)]
    pub joints: BTreeMap<String, Option<String>>,
    /// Target joint name → where its translation comes from.
    #[serde(default)]
    pub translation: BTreeMap<String, TranslationSource>,
    /// The target's hips, when the profile's guess is wrong (its height scales root motion).
    #[serde(default)]
    pub hips: Option<String>,
    /// The file the map was read from (`-` when built in code).
    #[serde(skip)]
    pub file: String,
}

impl UserMap {
    /// Parses a map from JSON text; `file` names it in errors.
    pub fn from_json(text: &str, file: &str) -> Result<Self, RetargetError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let mut map: Self = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            RetargetError::new(file, format!("JSON at {path}"), e.into_inner().to_string())
        })?;
        map.file = file.to_string();
        Ok(map)
    }

    /// Reads and parses a map file.
    pub fn read(path: &std::path::Path) -> Result<Self, RetargetError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| RetargetError::new(&file, "file", e.to_string()))?;
        Self::from_json(&text, &file)
    }
}
