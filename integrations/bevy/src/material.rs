//! [`SinewMaterial`]: Bevy's `StandardMaterial` extended with sinew's palette. Its vertex shader
//! (`skinning.wgsl`, main passes and prepasses) skins each vertex from the palette block at the
//! mesh entity's `MeshTag`; the fragment stage is the standard PBR one, so the file's
//! materials, lights and shadows are Bevy's. The characters of a rig on one palette page share
//! its materials and their page's storage buffer, so Bevy batches them.

use bevy::asset::uuid_handle;
use bevy::mesh::MeshVertexBufferLayoutRef;
use bevy::pbr::{
    ExtendedMaterial, MaterialExtension, MaterialExtensionKey, MaterialExtensionPipeline,
    StandardMaterial,
};
use bevy::prelude::*;
use bevy::render::render_resource::{
    AsBindGroup, RenderPipelineDescriptor, SpecializedMeshPipelineError,
};
use bevy::render::storage::ShaderBuffer;
use bevy::shader::ShaderRef;

use crate::mesh::{
    ATTRIBUTE_JOINTS_0, ATTRIBUTE_JOINTS_1, ATTRIBUTE_WEIGHTS_0, ATTRIBUTE_WEIGHTS_1,
};

/// The material sinew's characters are drawn with.
pub type SinewMaterial = ExtendedMaterial<StandardMaterial, SinewSkinning>;

/// The skinning half of [`SinewMaterial`]: the palette buffer, the mesh's morph displacements
/// and where its weights are.
#[derive(Asset, AsBindGroup, TypePath, Debug, Clone)]
pub struct SinewSkinning {
    /// A page of sinew's palette ([`crate::SinewPalette`]): one 3x4 matrix (three rows) per
    /// joint per character, then the character's morph weights.
    #[storage(100, read_only)]
    pub palette: Handle<ShaderBuffer>,
    /// `x`: the rig's joint count (joint indices at or past it weigh nothing); `y`: the index of
    /// the mesh's first morph weight in the rig's weights; `z`: its morph target count (0: none).
    #[uniform(101)]
    pub rig: UVec4,
    /// The mesh's morph displacements as [`sinew::render::pack_deltas`] lays them out (one
    /// shared placeholder for meshes without targets).
    #[storage(102, read_only)]
    pub morph_deltas: Handle<ShaderBuffer>,
}

/// The assembled vertex shader: `skinning.wgsl` followed by sinew's skinning and morph
/// functions.
pub(crate) const SKINNING_SHADER: Handle<Shader> =
    uuid_handle!("6b1f2e0a-5c3d-4e8f-9a71-2d4c6e8f0a13");

/// The shader's source.
pub(crate) fn skinning_shader() -> Shader {
    let source = format!(
        "{}\n{}\n{}",
        include_str!("skinning.wgsl"),
        sinew::render::SKINNING_WGSL,
        sinew::render::MORPH_WGSL
    );
    Shader::from_wgsl(source, "sinew_bevy/skinning.wgsl")
}

/// Shader locations of the influence attributes (after Bevy's, which end at 7).
const SKIN_LOCATIONS: u32 = 10;

impl MaterialExtension for SinewSkinning {
    fn vertex_shader() -> ShaderRef {
        SKINNING_SHADER.into()
    }

    fn prepass_vertex_shader() -> ShaderRef {
        SKINNING_SHADER.into()
    }

    fn specialize(
        _pipeline: &MaterialExtensionPipeline,
        descriptor: &mut RenderPipelineDescriptor,
        layout: &MeshVertexBufferLayoutRef,
        _key: MaterialExtensionKey<Self>,
    ) -> Result<(), SpecializedMeshPipelineError> {
        let skin = layout.0.get_layout(&[
            ATTRIBUTE_JOINTS_0.at_shader_location(SKIN_LOCATIONS),
            ATTRIBUTE_WEIGHTS_0.at_shader_location(SKIN_LOCATIONS + 1),
            ATTRIBUTE_JOINTS_1.at_shader_location(SKIN_LOCATIONS + 2),
            ATTRIBUTE_WEIGHTS_1.at_shader_location(SKIN_LOCATIONS + 3),
        ])?;
        if let Some(buffer) = descriptor.vertex.buffers.first_mut() {
            buffer.attributes.extend(skin.attributes);
        }
        Ok(())
    }
}
