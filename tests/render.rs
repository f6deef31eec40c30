//! The render passes: a reference image of the default rig, Fox.glb's silhouette against its
//! animated AABB, GPU culling (the camera's and the light's lists) against the CPU frustum test,
//! the shadow of a character outside the view, dual-quaternion against linear skinning,
//! pre-skinning against CPU skinning, the bone overlay, the velocity target against its CPU twin,
//! and input errors; and all of these on
//! buffers larger than one storage binding (a renderer and a GPU evaluator with a small
//! binding limit, so a few hundred characters span many windows), against one page.
//!
//! One device and two renderers (the device's binding limit, and [`fixtures::PAGED_BINDING`]) serve the
//! whole binary (pipelines compile on first use and are shared). Without an adapter the GPU tests print why and pass, except under `REQUIRE_GPU=1`,
//! where a missing adapter fails them. `WGPU_BACKEND` picks the backend. `SINEW_BLESS=1`
//! rewrites the reference images in `tests/reference/` instead of comparing with them. Every
//! image a test renders is also written to `target/render-tests/` for inspection.

#[path = "render/baked_materials.rs"]
mod baked_materials;
#[path = "render/blend_order.rs"]
mod blend_order;
#[path = "render/bone_overlay.rs"]
mod bone_overlay;
mod common;
#[path = "render/crowd_command.rs"]
mod crowd_command;
#[path = "render/culling.rs"]
mod culling;
#[path = "render/device_loss.rs"]
mod device_loss;
#[path = "render/errors.rs"]
mod errors;
#[path = "render/fbx_materials.rs"]
mod fbx_materials;
#[path = "render/fixtures.rs"]
mod fixtures;
#[path = "render/fox_silhouette.rs"]
mod fox_silhouette;
#[path = "render/materials.rs"]
mod materials;
#[path = "render/morph_targets.rs"]
mod morph_targets;
#[path = "render/normal_maps.rs"]
mod normal_maps;
#[path = "render/paged.rs"]
mod paged;
#[path = "render/pbr.rs"]
mod pbr;
#[path = "render/reference_image.rs"]
mod reference_image;
#[path = "render/render_command.rs"]
mod render_command;
#[path = "render/skinning.rs"]
mod skinning;
#[path = "render/texture_transform.rs"]
mod texture_transform;
#[path = "render/velocity.rs"]
mod velocity;
#[path = "render/view.rs"]
mod view;
#[path = "render/wireframe.rs"]
mod wireframe;
#[path = "render/without_gpu.rs"]
mod without_gpu;
