//! [`SinewScene`]: a glTF scene that Bevy spawns with a `WorldAssetRoot`, animated by sinew
//! instead of by Bevy's joint entities and `AnimationPlayer`.

use bevy::prelude::*;
use bevy::world_serialization::WorldAssetRoot;

use crate::assets::SinewAsset;
use crate::spawn::{SinewCharacter, SinewSpawnFailed};

/// Put beside a `WorldAssetRoot` of a glTF scene (`"x.glb#Scene0"`), in the same spawn or
/// insert. The plugin then takes the scene's file over. It loads the file as a [`SinewAsset`]
/// and makes the entity a [`SinewCharacter`] of rig `rig`, with any [`crate::SinewMotion`]
/// beside it. Bevy's own spawn of the scene (joint entities, skinned meshes) is never made.
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct SinewScene {
    /// Which of the file's rigs (default 0).
    pub rig: usize,
}

/// Turns a [`SinewScene`]'s `WorldAssetRoot` into a [`SinewCharacter`] of the same file before
/// Bevy's scene spawner sees it.
pub(crate) fn adopt_scene(
    add: On<Add, SinewScene>,
    mut commands: Commands,
    roots: Query<(Option<&WorldAssetRoot>, &SinewScene)>,
    server: Res<AssetServer>,
) {
    let entity = add.entity;
    let Ok((root, scene)) = roots.get(entity) else {
        return;
    };
    let path = root.and_then(|r| server.get_path(r.id()));
    let Some(path) = path else {
        let reason = "SinewScene without the WorldAssetRoot of a loaded file".to_string();
        error!("sinew: {entity} not spawned: {reason}");
        commands.entity(entity).insert(SinewSpawnFailed(reason));
        return;
    };
    let file: Handle<SinewAsset> = server.load(path.without_label().into_owned());
    commands
        .entity(entity)
        .remove::<WorldAssetRoot>()
        .insert(SinewCharacter::new(file).with_rig(scene.rig));
}
