//! [`SinewPlugin`]: the asset loader, the skinning material, the runtime and palette
//! resources, and the per-frame systems ([`SinewSystems`]).

use bevy::camera::visibility::VisibilitySystems;
use bevy::pbr::MaterialPlugin;
use bevy::prelude::*;
use bevy::render::extract_resource::ExtractResourcePlugin;
use bevy::render::storage::ShaderBuffer;
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::transform::TransformSystems;
use sinew::runtime::Scheduling;

use crate::animate::{forget_socket, sync_in, sync_out, update_and_evaluate};
use crate::assets::{SinewAsset, SinewAssetLoader};
use crate::control::SinewEvent;
use crate::evaluate_gpu::{GpuBounds, GpuFrame, SinewGpu, evaluate_on_gpu};
use crate::material::{SKINNING_SHADER, SinewMaterial, skinning_shader};
use crate::palette::SinewPalette;
use crate::runtime::SinewRuntime;
use crate::scene::adopt_scene;
use crate::spawn::{forget_character, instantiate};
use crate::upload_cpu::upload_cpu_palette;

/// Which sinew backend evaluates the poses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SinewBackend {
    /// sinew's exact CPU evaluator ([`sinew::CpuBackend`], through the animator): the
    /// reference the GPU and fast modes are tested against.
    #[default]
    Cpu,
    /// The resampled SIMD evaluator ([`sinew::FastCpuBackend`]): several times faster, within
    /// the error bound documented there.
    FastCpu,
    /// sinew's compute kernel ([`sinew::GpuBackend`]) on Bevy's own device and queue: records
    /// resident on the GPU (only changed ones go up), one dispatch per frame before Bevy's
    /// passes. Needs Bevy's renderer.
    Gpu,
}

/// The plugin. Add it after Bevy's `DefaultPlugins` (or the asset, render and PBR plugins).
#[derive(Clone, Debug)]
pub struct SinewPlugin {
    /// The evaluator.
    pub backend: SinewBackend,
    /// When characters are updated: event-driven (default; only characters with something
    /// happening, see [`Scheduling::EventDriven`]) or every frame.
    pub scheduling: Scheduling,
    /// The largest palette page in bytes (default `None`: one storage binding of the device).
    /// The palette is split into pages of at most this size, each its own buffer, so the
    /// characters are limited by device memory, not by one binding ([`crate::SinewPalette`]).
    pub palette_page_bytes: Option<u64>,
}

impl Default for SinewPlugin {
    fn default() -> Self {
        Self {
            backend: SinewBackend::Cpu,
            scheduling: Scheduling::EventDriven,
            palette_page_bytes: None,
        }
    }
}

/// The plugin's systems: in `PostUpdate` after transform propagation and before visibility, and
/// the GPU evaluation in the render world.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SinewSystems {
    /// Characters whose files loaded are instantiated.
    Instantiate,
    /// Transforms in, animator update and evaluation, offsets, boxes, root motion and sockets
    /// out.
    Animate,
    /// With [`SinewBackend::Gpu`], in the render world's `Render` schedule (within
    /// `RenderSystems::PrepareResources`): records up, the dispatch, the palette copy, the boxes
    /// read back.
    EvaluateGpu,
}

impl Plugin for SinewPlugin {
    fn build(&self, app: &mut App) {
        let runtime = match SinewRuntime::new(self.scheduling, self.backend) {
            Ok(r) => r,
            Err(e) => {
                error!("sinew: the runtime could not start: {e}");
                return;
            }
        };
        app.init_asset::<SinewAsset>()
            .register_asset_loader(SinewAssetLoader)
            .add_plugins(MaterialPlugin::<SinewMaterial>::default())
            .add_message::<SinewEvent>()
            .insert_resource(runtime)
            .add_observer(forget_character)
            .add_observer(adopt_scene)
            .add_observer(forget_socket);
        let world = app.world_mut();
        let (Some(_), Some(_)) = (
            world.get_resource::<Assets<Shader>>(),
            world.get_resource::<Assets<ShaderBuffer>>(),
        ) else {
            error!("sinew: SinewPlugin needs Bevy's render plugin: add it after DefaultPlugins");
            return;
        };
        let _ = world
            .resource_mut::<Assets<Shader>>()
            .insert(&SKINNING_SHADER, skinning_shader());
        let palette = SinewPalette::new(
            &mut world.resource_mut::<Assets<ShaderBuffer>>(),
            self.palette_page_bytes,
        );
        let cpu = palette.cpu.clone();
        app.insert_resource(palette);
        if self.backend != SinewBackend::Gpu
            && let Some(render) = app.get_sub_app_mut(RenderApp)
        {
            render.insert_resource(cpu).add_systems(
                Render,
                upload_cpu_palette.in_set(RenderSystems::PrepareResources),
            );
        }
        if self.backend == SinewBackend::Gpu {
            let bounds = GpuBounds::default();
            let Some(render) = app.get_sub_app_mut(RenderApp) else {
                error!("sinew: SinewBackend::Gpu needs Bevy's renderer and a GPU adapter");
                return;
            };
            render
                .insert_resource(bounds.clone())
                .init_resource::<SinewGpu>()
                .add_systems(
                    Render,
                    evaluate_on_gpu
                        .in_set(SinewSystems::EvaluateGpu)
                        .in_set(RenderSystems::PrepareResources),
                );
            app.insert_resource(bounds)
                .init_resource::<GpuFrame>()
                .add_plugins(ExtractResourcePlugin::<GpuFrame>::default());
        }
        app.configure_sets(
            PostUpdate,
            (SinewSystems::Instantiate, SinewSystems::Animate)
                .chain()
                .after(TransformSystems::Propagate)
                .before(VisibilitySystems::VisibilityPropagate),
        )
        .add_systems(PostUpdate, instantiate.in_set(SinewSystems::Instantiate))
        .add_systems(
            PostUpdate,
            (sync_in, update_and_evaluate, sync_out)
                .chain()
                .in_set(SinewSystems::Animate),
        );
    }
}
