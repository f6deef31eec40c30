//! # sinew_bevy
//!
//! sinew in Bevy: [`SinewPlugin`] loads glTF, FBX and `.sinew` files as [`SinewAsset`]s, spawns
//! their rigs as characters whose skinned meshes Bevy's PBR renderer draws (materials of the
//! file kept, lights and shadows), skinned in the vertex shader from sinew's palette
//! ([`SinewMaterial`]), and drives them with sinew's [`sinew::runtime::Animator`] from Bevy
//! components and [`SinewControl`]. Poses are evaluated by sinew's exact or fast CPU backend, or
//! by its GPU backend on Bevy's own device ([`SinewBackend`]). A glTF scene spawned the Bevy way
//! (`WorldAssetRoot`) is taken over with [`SinewScene`].
//!
//! ```no_run
//! use bevy::prelude::*;
//! use sinew_bevy::{SinewCharacter, SinewMotion, SinewPlugin};
//!
//! fn setup(mut commands: Commands, assets: Res<AssetServer>) {
//!     let rig = assets.load("humanoid.glb");
//!     commands.spawn((SinewCharacter::new(rig), SinewMotion::clip("walk"), Transform::default()));
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, SinewPlugin::default()))
//!     .add_systems(Startup, setup)
//!     .run();
//! ```
//!
//! sinew uses glam 0.34 and Bevy 0.19 glam 0.32: values cross between them as plain arrays
//! (`convert.rs`).

mod animate;
mod assets;
mod control;
mod convert;
mod evaluate_gpu;
mod material;
mod materials;
mod mesh;
mod palette;
mod plugin;
mod runtime;
mod scene;
mod spawn;
mod upload_cpu;

pub use assets::{SinewAsset, SinewAssetLoader, SinewLoadError};
pub use control::{SinewControl, SinewControlError, SinewEvent, SinewRootMotion, SinewSocket};
pub use evaluate_gpu::SinewGpu;
pub use material::{SinewMaterial, SinewSkinning};
pub use mesh::{
    ATTRIBUTE_JOINTS_0, ATTRIBUTE_JOINTS_1, ATTRIBUTE_WEIGHTS_0, ATTRIBUTE_WEIGHTS_1, skinned_mesh,
};
pub use palette::SinewPalette;
pub use plugin::{SinewBackend, SinewPlugin, SinewSystems};
pub use runtime::SinewRuntime;
pub use scene::SinewScene;
pub use spawn::{
    SinewCharacter, SinewInstance, SinewMeshOf, SinewMeshes, SinewMotion, SinewSpawnFailed,
};
