//! [`SinewAsset`]: a file sinew imported and baked into rigs, loaded through Bevy's asset server.
//!
//! The loader claims no file extension, so Bevy's own glTF loader keeps `.glb` and `.gltf`:
//! load a file as a sinew asset by type, `asset_server.load::<SinewAsset>("x.glb")`. glTF
//! (embedded or data-URI buffers), FBX (recognised by content) and `.sinew` files load.

use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext};
use bevy::prelude::*;
use sinew::Rig;

/// A file's rigs, baked, and for each rig mesh the index of its glTF material.
#[derive(Asset, TypePath, Debug)]
pub struct SinewAsset {
    /// The rigs, as [`sinew::bake_rigs`] or the `.sinew` file gives them.
    pub rigs: Vec<Rig>,
    /// Per rig, per mesh ([`Rig::meshes`]): the glTF material of its primitive (`None`: glTF's
    /// default material, or a file without glTF materials).
    pub materials: Vec<Vec<Option<usize>>>,
    /// Whether the file is glTF, so its materials come from Bevy's glTF loader.
    pub gltf: bool,
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
        return finish(rigs, None, path);
    }
    let import = |source| SinewLoadError::Import {
        path: path.to_string(),
        source,
    };
    let raw = sinew::import_bytes(bytes, path, None).map_err(import)?;
    let rigs = sinew::bake_rigs(&raw).map_err(import)?;
    // FBX has no glTF document; a glTF the importer accepted parses here too.
    let document = gltf::Gltf::from_slice(bytes).ok();
    finish(rigs, document.as_ref(), path)
}

fn finish(
    rigs: Vec<Rig>,
    document: Option<&gltf::Gltf>,
    path: &str,
) -> Result<SinewAsset, SinewLoadError> {
    if rigs.is_empty() {
        return Err(SinewLoadError::NoRig {
            path: path.to_string(),
        });
    }
    let materials = rigs
        .iter()
        .map(|rig| match document {
            Some(doc) => mesh_materials(rig, doc),
            None => vec![None; rig.meshes.len()],
        })
        .collect();
    Ok(SinewAsset {
        rigs,
        materials,
        gltf: document.is_some(),
    })
}

/// The glTF material of each rig mesh: the importer makes one mesh per triangle-list primitive
/// of a node's mesh, in order, so the k-th rig mesh of node n is the k-th such primitive.
fn mesh_materials(rig: &Rig, doc: &gltf::Gltf) -> Vec<Option<usize>> {
    let mut seen: Vec<(u32, usize)> = Vec::new();
    rig.meshes
        .iter()
        .map(|m| {
            let node = m.node?;
            let k = match seen.iter_mut().find(|(n, _)| *n == node) {
                Some((_, k)) => {
                    *k += 1;
                    *k
                }
                None => {
                    seen.push((node, 0));
                    0
                }
            };
            let mesh = doc.nodes().nth(node as usize)?.mesh()?;
            let primitive = mesh
                .primitives()
                .filter(|p| p.mode() == gltf::mesh::Mode::Triangles)
                .nth(k)?;
            primitive.material().index()
        })
        .collect()
}
