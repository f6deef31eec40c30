//! glTF extensions: which ones a file declares, how sinew treats each, and the refusal of a
//! required extension sinew cannot honour. Runs on the raw JSON before the gltf crate validates
//! it (the crate refuses every `extensionsRequired` entry it does not implement itself).

use gltf::json;

use super::animation_pointer::ANIMATION_POINTER;
use crate::error::ImportErrorKind;

/// `KHR_mesh_quantization`: integer vertex attributes.
pub const MESH_QUANTIZATION: &str = "KHR_mesh_quantization";
/// `EXT_meshopt_compression`: compressed buffer views.
pub const MESHOPT_COMPRESSION: &str = "EXT_meshopt_compression";

/// Extensions that only describe what sinew does not draw (materials, textures, lights,
/// metadata): a file that requires them still animates and skins correctly without them.
const IGNORED: &[&str] = &[
    "KHR_texture_transform",
    "KHR_texture_basisu",
    "EXT_texture_webp",
    "EXT_texture_avif",
    "MSFT_texture_dds",
    "KHR_lights_punctual",
    "KHR_xmp_json_ld",
];
/// Name prefixes of ignored extension families.
const IGNORED_PREFIXES: &[&str] = &["KHR_materials_"];

/// How sinew treats an extension a file uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExtensionHandling {
    /// sinew reads the data the extension describes (quantized attributes, compressed views).
    Applied,
    /// Known, and only about what sinew does not draw (materials, textures, lights): skipped.
    Ignored,
    /// Not known to sinew; the file does not require it, so it is skipped.
    Unrecognized,
}

impl ExtensionHandling {
    /// A lower-case word for listings: `applied`, `ignored` or `unrecognized`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Applied => "applied",
            Self::Ignored => "ignored",
            Self::Unrecognized => "unrecognized",
        }
    }
}

/// One extension named in a file's `extensionsUsed`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionUse {
    /// The extension's name, as the file spells it.
    pub name: String,
    /// Whether the file also lists it in `extensionsRequired`.
    pub required: bool,
    /// What sinew does with it.
    pub handling: ExtensionHandling,
    /// What sinew left out of what the file uses it for, one line each (for `KHR_animation_pointer`:
    /// the pointers to properties sinew does not animate).
    pub notes: Vec<String>,
}

/// How sinew treats the extension `name`.
pub fn handling_of(name: &str) -> ExtensionHandling {
    if name == MESH_QUANTIZATION || name == MESHOPT_COMPRESSION || name == ANIMATION_POINTER {
        ExtensionHandling::Applied
    } else if IGNORED.contains(&name) || IGNORED_PREFIXES.iter().any(|p| name.starts_with(p)) {
        ExtensionHandling::Ignored
    } else {
        ExtensionHandling::Unrecognized
    }
}

/// Lists the extensions `root` uses, in `extensionsUsed` order (duplicates once), and refuses a
/// required one that sinew does not know or that `extensionsUsed` omits. On success the
/// `extensionsRequired` list is cleared, so that the gltf crate's validation accepts the file.
pub(crate) fn take_extensions(root: &mut json::Root) -> Result<Vec<ExtensionUse>, ImportErrorKind> {
    for (i, name) in root.extensions_required.iter().enumerate() {
        if !root.extensions_used.contains(name) {
            return Err(ImportErrorKind::Gltf(format!(
                "extensionsRequired[{i}] = {name:?} is not listed in extensionsUsed"
            )));
        }
        if handling_of(name) == ExtensionHandling::Unrecognized {
            return Err(ImportErrorKind::UnsupportedExtension { name: name.clone() });
        }
    }
    let mut uses: Vec<ExtensionUse> = Vec::with_capacity(root.extensions_used.len());
    for name in &root.extensions_used {
        if uses.iter().any(|u| &u.name == name) {
            continue;
        }
        uses.push(ExtensionUse {
            name: name.clone(),
            required: root.extensions_required.contains(name),
            handling: handling_of(name),
            notes: Vec::new(),
        });
    }
    root.extensions_required.clear();
    Ok(uses)
}

/// Whether the file declares extension `name`.
pub(crate) fn uses(extensions: &[ExtensionUse], name: &str) -> bool {
    extensions.iter().any(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_families_are_ignored_and_unknown_names_are_not() {
        assert_eq!(
            handling_of("KHR_materials_clearcoat"),
            ExtensionHandling::Ignored
        );
        assert_eq!(handling_of(MESHOPT_COMPRESSION), ExtensionHandling::Applied);
        assert_eq!(
            handling_of("KHR_draco_mesh_compression"),
            ExtensionHandling::Unrecognized
        );
    }
}
