//! [`SinewAsset`]: a file sinew imported and baked into rigs, loaded through Bevy's asset server.
//!
//! The loader claims `.sinew` and `.fbx` and leaves `.glb` and `.gltf` to Bevy's own glTF
//! loader: load a glTF file as a sinew asset by type, `asset_server.load::<SinewAsset>("x.glb")`.
//! glTF (binary, or with embedded or data-URI buffers), FBX (recognised by content) and
//! `.sinew` files load.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::prelude::*;
use sinew::Rig;

/// A file's rigs, baked, each mesh with the material the file gives it.
#[derive(Asset, TypePath, Debug)]
pub struct SinewAsset {
    /// The rigs, as [`sinew::bake_rigs`] or the `.sinew` file gives them.
    pub rigs: Vec<Rig>,
}

/// Why a file did not load as a [`SinewAsset`].
#[derive(Debug, thiserror::Error)]
pub enum SinewLoadError {
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        /// The asset path.
        path: String,
        /// The reader's error.
        source: std::io::Error,
    },
    /// sinew refused the glTF or FBX file.
    #[error("sinew refused {path}: {source}")]
    Import {
        /// The asset path.
        path: String,
        /// The importer's error (names the object and the reason).
        source: sinew::ImportError,
    },
    /// sinew refused the `.sinew` file.
    #[error("sinew refused {path}: {source}")]
    Format {
        /// The asset path.
        path: String,
        /// The loader's error.
        source: sinew::FormatError,
    },
    /// The file holds no rig.
    #[error("{path} holds no rig (no skin and no animated node)")]
    NoRig {
        /// The asset path.
        path: String,
    },
}

/// Loads glTF, FBX and `.sinew` files as [`SinewAsset`]s (by type only: see the module docs).
#[derive(Default, TypePath)]
pub struct SinewAssetLoader;

impl AssetLoader for SinewAssetLoader {
    type Asset = SinewAsset;
    type Settings = ();
    type Error = SinewLoadError;

    fn extensions(&self) -> &[&str] {
        &["sinew", "fbx"]
    }

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<SinewAsset, SinewLoadError> {
        let path = load_context.path().to_string();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|source| SinewLoadError::Io {
                path: path.clone(),
                source,
            })?;
        load_bytes(&bytes, &path)
    }
}

/// Imports and bakes `bytes` (named `path` in errors).
pub(crate) fn load_bytes(bytes: &[u8], path: &str) -> Result<SinewAsset, SinewLoadError> {
    if path.ends_with(".sinew") {
        let rigs = sinew::bake::file::from_bytes(bytes, path).map_err(|source| {
            SinewLoadError::Format {
                path: path.to_string(),
                source,
            }
        })?;
        return finish(rigs, path);
    }
    let import = |source| SinewLoadError::Import {
        path: path.to_string(),
        source,
    };
    let raw = sinew::import_bytes(bytes, path, None).map_err(import)?;
    let rigs = sinew::bake_rigs(&raw).map_err(import)?;
    finish(rigs, path)
}

fn finish(rigs: Vec<Rig>, path: &str) -> Result<SinewAsset, SinewLoadError> {
    if rigs.is_empty() {
        return Err(SinewLoadError::NoRig {
            path: path.to_string(),
        });
    }
    Ok(SinewAsset { rigs })
}
