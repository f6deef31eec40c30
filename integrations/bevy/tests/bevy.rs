//! sinew_bevy headless: the plugin's palette against sinew's exact CPU backend, a refused file,
//! spawn/despawn churn, and (with a GPU adapter) a rendered frame.

#[path = "../../../tests/common/env.rs"]
mod env;

use std::path::PathBuf;
use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::log::LogPlugin;
use bevy::prelude::*;
use bevy::render::pipelined_rendering::PipelinedRenderingPlugin;
use bevy::render::settings::{RenderCreation, WgpuSettings};
use bevy::render::{RenderApp, RenderPlugin};
use bevy::time::TimeUpdateStrategy;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use sinew::runtime::{Playback, Scheduling};
use sinew::{Aabb, CpuBackend, InstanceRecord, Layer, Mat3x4Rows};
use sinew_bevy::{
    SinewAsset, SinewBackend, SinewCharacter, SinewControl, SinewEvent, SinewGpu, SinewInstance,
    SinewMaterial, SinewMeshOf, SinewMeshes, SinewMotion, SinewPalette, SinewPlugin,
    SinewRootMotion, SinewRuntime, SinewScene, SinewSocket, SinewSpawnFailed,
};

const DT: f32 = 1.0 / 60.0;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A windowless app with the plugin; `render` starts Bevy's renderer (needs an adapter).
fn app(root: PathBuf, plugin: SinewPlugin, render: bool) -> App {
    let mut app = App::new();
    let backends = if render {
        WgpuSettings::default().backends
    } else {
        None
    };
    app.add_plugins(
        DefaultPlugins
            .set(AssetPlugin {
                file_path: root.to_string_lossy().into_owned(),
                ..default()
            })
            .set(WindowPlugin {
                primary_window: None,
                exit_condition: ExitCondition::DontExit,
                close_when_requested: false,
                ..default()
            })
            .set(RenderPlugin {
                render_creation: RenderCreation::Automatic(Box::new(WgpuSettings {
                    backends,
                    ..default()
                })),
                ..default()
            })
            .disable::<WinitPlugin>()
            // Rendered in the same update as the main world's, so a test reads one frame.
            .disable::<PipelinedRenderingPlugin>()
            // One global logger per process; the tests run several apps.
            .disable::<LogPlugin>(),
    )
    .add_plugins(ScheduleRunnerPlugin::default())
    .add_plugins(plugin)
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        DT,
    )));
    // What `App::run` does before the first update: wait for the renderer's device, then let
    // plugins finish (the renderer moves its resources into the worlds there).
    while app.plugins_state() == bevy::app::PluginsState::Adding {
        std::thread::sleep(Duration::from_millis(5));
    }
    app.finish();
    app.cleanup();
    app
}

/// Runs updates until `done` holds (assets load on other threads), at most ~20 s.
fn run_until(app: &mut App, mut done: impl FnMut(&mut App) -> bool) -> bool {
    for _ in 0..4000 {
        app.update();
        if done(app) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

fn spawn(app: &mut App, path: &'static str, motion: SinewMotion, at: Vec3) -> Entity {
    let handle: Handle<SinewAsset> = app.world().resource::<AssetServer>().load(path);
    app.world_mut()
        .spawn((
            SinewCharacter::new(handle),
            motion,
            Transform::from_translation(at),
        ))
        .id()
}

fn placed(app: &mut App, e: Entity) -> bool {
    app.world()
        .get::<SinewInstance>(e)
        .is_some_and(|i| i.palette_offset.is_some())
}

/// The palette the vertex shader reads for a character (joint matrices and morph weights)
/// equals sinew's exact CPU backend's for the same clip, time and world transform.
#[test]
fn palette_matches_cpu_backend() {
    let mut cases = vec![
        (SinewBackend::Cpu, "assets/humanoid.glb", "walk"),
        (SinewBackend::FastCpu, "assets/humanoid.glb", "walk"),
        (SinewBackend::Cpu, "assets/synthetic/morph.glb", "linear"),
        (SinewBackend::Cpu, "assets/synthetic/influences.glb", "bend"),
    ];
    if adapter_available() {
        cases.push((SinewBackend::Gpu, "assets/humanoid.glb", "walk"));
        cases.push((SinewBackend::Gpu, "assets/synthetic/morph.glb", "linear"));
    } else {
        assert!(!env::gpu_required(), "REQUIRE_GPU=1 but no GPU adapter");
        eprintln!("no GPU adapter: SinewBackend::Gpu not compared");
    }
    for (backend, path, clip) in cases {
        let plugin = SinewPlugin {
            backend,
            scheduling: Scheduling::PerFrame,
            ..default()
        };
        let gpu = backend == SinewBackend::Gpu;
        let mut app = app(repo(), plugin, gpu);
        let at = Vec3::new(1.5, 0.0, -2.0);
        let e = spawn(&mut app, path, SinewMotion::clip(clip), at);
        assert!(
            run_until(&mut app, |a| placed(a, e)),
            "{path}: character never placed"
        );
        for _ in 0..37 {
            app.update();
        }
        let instance = *app.world().get::<SinewInstance>(e).unwrap();
        let runtime = app.world().resource::<SinewRuntime>();
        let rig = runtime.animator.rigs()[instance.rig as usize].clone();
        let (clip, time) = {
            let p = runtime.world.get::<&Playback>(instance.entity).unwrap();
            (p.clip, p.clock.time)
        };
        assert!(time > 0.5, "the clip did not advance ({time} s)");
        let entries = rig.palette_entries();
        let offset = instance.palette_offset.unwrap() as usize;
        let got = if gpu {
            // The render world evaluated this frame (rendering is not pipelined in the tests).
            let render = app.sub_app(RenderApp).world();
            let backend = render
                .resource::<SinewGpu>()
                .backend()
                .expect("GPU backend");
            let range = offset as u32..(offset + entries) as u32;
            backend.read_palette(range).unwrap()
        } else {
            let palette = app.world().resource::<SinewPalette>();
            palette.read(offset, entries).expect("palette block")
        };

        let world = glam::Affine3A::from_translation(glam::Vec3::new(at.x, at.y, at.z));
        let record = InstanceRecord::new(0, 0, &world, &[Layer::clip(clip, time)]).unwrap();
        let mut reference = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
        let mut want = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        let mut bounds = [Aabb::EMPTY];
        reference
            .evaluate(&[record], &mut want, &mut bounds)
            .unwrap();
        // The fast mode resamples clips: its bound is documented on `FastCpuBackend`.
        // The kernel's float order differs from the CPU twin's: within 2e-4, as sinew's own GPU
        // tests allow.
        let tolerance = match backend {
            SinewBackend::Cpu => 1e-4,
            SinewBackend::FastCpu => 2e-3,
            SinewBackend::Gpu => 2e-4,
        };
        let mut worst = 0.0f32;
        for (g, w) in got.iter().zip(&want) {
            for (a, b) in g.rows.iter().flatten().zip(w.rows.iter().flatten()) {
                worst = worst.max((a - b).abs());
            }
        }
        assert!(
            worst <= tolerance,
            "{backend:?} {path}: palette differs from CpuBackend by {worst}"
        );
        // Bevy's culling tests the mesh entities' boxes: they hold the animated pose (the GPU's
        // are a frame old, widened for it).
        let meshes = app.world().get::<SinewMeshes>(e).expect("mesh entities");
        for &mesh in meshes.entities() {
            let aabb = app
                .world()
                .get::<bevy::camera::primitives::Aabb>(mesh)
                .unwrap();
            let (lo, hi) = (aabb.min(), aabb.max());
            let slack = 1e-3;
            for i in 0..3 {
                assert!(
                    lo[i] <= bounds[0].min[i] + slack && hi[i] >= bounds[0].max[i] - slack,
                    "{backend:?} {path}: Bevy's box {lo}..{hi} misses the pose's {:?}",
                    bounds[0]
                );
            }
        }
        let moving = got
            .iter()
            .zip(&rig_rest(&rig, &world))
            .any(|(g, r)| g.rows != r.rows);
        assert!(moving, "{backend:?} {path}: the palette is the rest pose");
    }
}

fn rig_rest(rig: &sinew::Rig, world: &glam::Affine3A) -> Vec<Mat3x4Rows> {
    let record = InstanceRecord::new(0, 0, world, &[]).unwrap();
    let mut backend = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    backend
        .evaluate(&[record], &mut palette, &mut [Aabb::EMPTY])
        .unwrap();
    palette
}

/// A file sinew refuses marks the character failed with the reason and spawns nothing.
#[test]
fn refused_file_spawns_nothing() {
    let dir = std::env::temp_dir().join(format!("sinew_bevy_refused_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A GLB header whose JSON chunk runs past the end of the file.
    let mut bytes = b"glTF".to_vec();
    bytes.extend_from_slice(&2u32.to_le_bytes());
    bytes.extend_from_slice(&40u32.to_le_bytes());
    bytes.extend_from_slice(&1000u32.to_le_bytes());
    bytes.extend_from_slice(b"JSON{\"asset\":");
    std::fs::write(dir.join("broken.glb"), &bytes).unwrap();

    let mut app = app(dir.clone(), SinewPlugin::default(), false);
    let e = spawn(
        &mut app,
        "broken.glb",
        SinewMotion::clip("walk"),
        Vec3::ZERO,
    );
    assert!(
        run_until(&mut app, |a| a.world().get::<SinewSpawnFailed>(e).is_some()),
        "the refused file was never reported"
    );
    let reason = app.world().get::<SinewSpawnFailed>(e).unwrap().0.clone();
    assert!(
        reason.contains("broken.glb"),
        "reason names the file: {reason}"
    );
    for _ in 0..5 {
        app.update();
    }
    let world = app.world_mut();
    assert!(world.get::<SinewInstance>(e).is_none());
    assert_eq!(world.query::<&SinewMeshOf>().iter(world).count(), 0);
    assert_eq!(world.resource::<SinewRuntime>().world.len(), 0);
    std::fs::remove_dir_all(&dir).ok();
}

/// The panel's material reaches Bevy's `StandardMaterial` with its metallic-roughness model:
/// factors, the packed metallic-roughness and occlusion texture (linear), the emissive factor
/// and texture (sRGB, on the base colour's UV set).
#[test]
fn materials_carry_metallic_roughness_occlusion_and_emission() {
    let mut app = app(repo(), SinewPlugin::default(), false);
    let e = spawn(
        &mut app,
        "assets/synthetic/normal_map.glb",
        SinewMotion::clip("sway"),
        Vec3::ZERO,
    );
    assert!(
        run_until(&mut app, |a| placed(a, e)),
        "the panel was never placed"
    );
    let world = app.world_mut();
    let handles: Vec<Handle<SinewMaterial>> = world
        .query::<(&SinewMeshOf, &MeshMaterial3d<SinewMaterial>)>()
        .iter(world)
        .map(|(_, m)| m.0.clone())
        .collect();
    assert_eq!(handles.len(), 1, "one mesh");
    let material = &world
        .resource::<Assets<SinewMaterial>>()
        .get(&handles[0])
        .unwrap()
        .base;
    assert_eq!(material.metallic, 0.5);
    assert_eq!(material.perceptual_roughness, 0.875);
    assert_eq!(material.emissive, LinearRgba::rgb(0.125, 0.0625, 0.0));
    assert_eq!(material.emissive_channel, bevy::mesh::UvChannel::Uv1);
    let images = world.resource::<Assets<Image>>();
    let format = |h: &Option<Handle<Image>>| {
        images
            .get(h.as_ref().expect("a texture"))
            .unwrap()
            .texture_descriptor
            .format
    };
    use bevy::render::render_resource::TextureFormat;
    assert_eq!(
        format(&material.metallic_roughness_texture),
        TextureFormat::Rgba8Unorm
    );
    assert_eq!(
        material.metallic_roughness_texture,
        material.occlusion_texture
    );
    assert_eq!(
        format(&material.emissive_texture),
        TextureFormat::Rgba8UnormSrgb
    );
    // The emissive texture is the base colour's image in the same colour space: one upload.
    assert_eq!(material.emissive_texture, material.base_color_texture);
}

/// A glTF scene spawned the Bevy way, with `SinewScene` beside its root, becomes a sinew
/// character of the same file that plays its motion: Bevy's own spawn of the scene (joint
/// entities, skinned meshes) is never made.
#[test]
fn bevy_scene_is_taken_over() {
    use bevy::gltf::GltfAssetLabel;
    use bevy::mesh::skinning::SkinnedMesh;
    use bevy::world_serialization::{WorldAssetRoot, WorldInstance};

    let mut app = app(repo(), SinewPlugin::default(), false);
    let scene = app
        .world()
        .resource::<AssetServer>()
        .load(GltfAssetLabel::Scene(0).from_asset("assets/humanoid.glb"));
    let e = app
        .world_mut()
        .spawn((
            WorldAssetRoot(scene),
            SinewScene::default(),
            SinewMotion::clip("walk"),
        ))
        .id();
    assert!(run_until(&mut app, |a| placed(a, e)), "never placed");
    let offset = app.world().get::<SinewInstance>(e).unwrap().palette_offset;
    let block = |app: &App| {
        let palette = app.world().resource::<SinewPalette>();
        palette
            .read(offset.unwrap() as usize, 57)
            .expect("palette block")
    };
    let before = block(&app);
    for _ in 0..20 {
        app.update();
    }
    assert_ne!(
        before,
        block(&app),
        "the character does not play its motion"
    );
    let world = app.world_mut();
    assert!(world.get::<WorldAssetRoot>(e).is_none());
    assert!(
        world.get::<WorldInstance>(e).is_none(),
        "Bevy spawned the scene"
    );
    assert_eq!(world.query::<&SkinnedMesh>().iter(world).count(), 0);
    assert!(!world.get::<SinewMeshes>(e).unwrap().entities().is_empty());
}

/// 10,000 characters spawned and despawned in rounds leave nothing behind and do not grow the
/// palette past the first round's.
#[test]
fn spawn_and_despawn_keep_memory_flat() {
    let mut app = app(repo(), SinewPlugin::default(), false);
    let mut entities_after_first = None;
    let (mut capacity, mut allocated) = (None, None);
    for round in 0..10 {
        let spawned: Vec<Entity> = (0..1000)
            .map(|i| {
                let at = Vec3::new((i % 40) as f32, 0.0, (i / 40) as f32);
                spawn(
                    &mut app,
                    "assets/humanoid.glb",
                    SinewMotion::clip("run"),
                    at,
                )
            })
            .collect();
        let last = *spawned.last().unwrap();
        let ok = run_until(&mut app, |a| placed(a, last));
        let world = app.world_mut();
        let instances = world.query::<&SinewInstance>().iter(world).count();
        let failed: Vec<String> = world
            .query::<&SinewSpawnFailed>()
            .iter(world)
            .map(|f| f.0.clone())
            .take(1)
            .collect();
        let runtime = world.resource::<SinewRuntime>();
        assert!(
            ok,
            "round {round} never placed: {instances} instances, {} runtime entities, {} tracked, failed: {failed:?}",
            runtime.world.len(),
            runtime.animator.tracked_entities()
        );
        app.update();
        let runtime = app.world().resource::<SinewRuntime>();
        assert_eq!(runtime.animator.tracked_entities(), 1000);
        let cap = runtime.animator.palette().capacity();
        assert!(
            cap <= *capacity.get_or_insert(cap),
            "palette grew in round {round}"
        );
        for e in spawned {
            app.world_mut().despawn(e);
        }
        app.update();
        app.update();
        // Entity indices are reused: the world's table does not grow after the first round.
        let indices = app.world().entities().len();
        assert!(
            indices <= *allocated.get_or_insert(indices),
            "entities grew in round {round}"
        );
        let runtime = app.world().resource::<SinewRuntime>();
        assert_eq!(
            runtime.world.len(),
            0,
            "round {round} left runtime entities"
        );
        assert_eq!(runtime.animator.tracked_entities(), 0);
        // Mesh entities leave with their characters; meshes and materials are shared per rig.
        let world = app.world_mut();
        assert_eq!(world.query::<&SinewMeshOf>().iter(world).count(), 0);
        let count = (
            world.entity_count(),
            world.resource::<Assets<Mesh>>().len(),
            world.resource::<Assets<sinew_bevy::SinewMaterial>>().len(),
        );
        assert_eq!(
            count,
            *entities_after_first.get_or_insert(count),
            "round {round} left entities, meshes or materials"
        );
    }
}

/// Whether to skip a rendering test because wgpu finds no adapter (Bevy's renderer panics
/// without one); a failure under `REQUIRE_GPU=1`.
fn no_adapter(what: &str) -> bool {
    if adapter_available() {
        return false;
    }
    assert!(!env::gpu_required(), "REQUIRE_GPU=1 but no GPU adapter");
    eprintln!("no GPU adapter: {what} skipped");
    true
}

/// Whether wgpu finds an adapter (Bevy's renderer panics without one).
fn adapter_available() -> bool {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).is_ok()
}

const SIZE: u32 = 192;

/// Three characters playing `motion`, rendered by Bevy's PBR pipeline into an image: its RGBA
/// bytes.
fn render_frame(backend: SinewBackend, path: &'static str, motion: SinewMotion) -> Vec<u8> {
    let plugin = SinewPlugin {
        backend,
        ..default()
    };
    render_with(plugin, path, motion)
}

/// [`render_frame`] with `plugin`.
fn render_with(plugin: SinewPlugin, path: &'static str, motion: SinewMotion) -> Vec<u8> {
    use bevy::camera::RenderTarget;
    use bevy::render::render_resource::{TextureFormat, TextureUsages};
    use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
    use std::sync::{Arc, Mutex};

    let plugin_pages = plugin.palette_page_bytes;
    let mut app = app(repo(), plugin, true);
    let mut image = Image::new_target_texture(SIZE, SIZE, TextureFormat::Rgba8UnormSrgb, None);
    image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let target = app.world_mut().resource_mut::<Assets<Image>>().add(image);
    app.world_mut().spawn((
        Camera3d::default(),
        RenderTarget::Image(target.clone().into()),
        Transform::from_xyz(0.0, 1.2, 4.5).looking_at(Vec3::new(0.0, 0.9, 0.0), Vec3::Y),
    ));
    app.world_mut().spawn((
        DirectionalLight {
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(2.0, 6.0, 4.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let characters: Vec<Entity> = [-1.2f32, 0.0, 1.2]
        .iter()
        .map(|&x| spawn(&mut app, path, motion.clone(), Vec3::new(x, 0.0, 0.0)))
        .collect();
    assert!(run_until(&mut app, |a| characters
        .iter()
        .all(|&e| placed(a, e))));
    if plugin_pages.is_some() {
        let palette = app.world().resource::<SinewPalette>();
        assert!(
            palette.page_buffers().count() >= 3,
            "one page per character"
        );
    }
    for _ in 0..30 {
        app.update();
    }
    // Bevy compiles pipelines in the background and draws a mesh once its pipeline is ready:
    // capture until something other than the clear colour is drawn (a busy machine may take
    // many frames), then once more a few frames later so every mesh's pipeline is in.
    let capture = |app: &mut App| {
        let captured: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
        let sink = captured.clone();
        app.world_mut()
            .spawn(Screenshot::image(target.clone()))
            .observe(move |shot: On<ScreenshotCaptured>| {
                *sink.lock().unwrap() = shot.image.data.clone();
            });
        assert!(
            run_until(app, |_| captured.lock().unwrap().is_some()),
            "no frame captured"
        );
        let bytes = captured.lock().unwrap().take();
        bytes.expect("captured")
    };
    for _ in 0..100 {
        if covered(&capture(&mut app)) > 0 {
            for _ in 0..10 {
                app.update();
            }
            return capture(&mut app);
        }
        for _ in 0..5 {
            app.update();
        }
    }
    panic!("{path}: nothing was drawn");
}

/// Pixels that differ from the clear colour (the top-left pixel's).
fn covered(frame: &[u8]) -> usize {
    let background = [frame[0], frame[1], frame[2]];
    frame
        .chunks_exact(4)
        .filter(|p| differs(&p[..3], &background))
        .count()
}

/// Pixels that differ between two frames.
fn pixels_differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(a, b)| differs(a, b))
        .count()
}

fn differs(a: &[u8], b: &[u8]) -> bool {
    a.iter().zip(b).any(|(x, y)| x.abs_diff(*y) > 24)
}

/// A frame Bevy renders shows the characters (pixels other than the clear color), posed by the
/// clip (it differs from the rest pose's frame).
#[test]
fn rendered_frame_shows_animated_characters() {
    if no_adapter("rendered frame test skipped") {
        return;
    }
    for backend in [SinewBackend::Cpu, SinewBackend::Gpu] {
        let walk = render_frame(backend, "assets/humanoid.glb", SinewMotion::clip("walk"));
        let rest = render_frame(backend, "assets/humanoid.glb", SinewMotion::Rest);
        assert_eq!(walk.len(), (SIZE * SIZE * 4) as usize);
        let covered = covered(&walk);
        assert!(
            covered > 200,
            "{backend:?}: the characters cover only {covered} pixels"
        );
        let changed = pixels_differing(&walk, &rest);
        assert!(
            changed > 100,
            "{backend:?}: the walk frame is the rest pose ({changed} pixels differ)"
        );
    }
}

/// A palette split into many pages (one per character here: pages of 16 KiB start every 48
/// entries, a humanoid's block has 57) draws what one page draws, on both the CPU and the GPU
/// backend (a page left empty or bound at the wrong offset would draw nothing or a crumpled
/// character).
#[test]
fn paged_palette_renders_like_one_page() {
    if no_adapter("paged palette test skipped") {
        return;
    }
    for backend in [SinewBackend::Cpu, SinewBackend::Gpu] {
        // Held at one pose: the two apps run different numbers of frames.
        let walk = || SinewMotion::Clip {
            name: "walk".into(),
            speed: 0.0,
        };
        let one = render_frame(backend, "assets/humanoid.glb", walk());
        let paged = SinewPlugin {
            backend,
            palette_page_bytes: Some(16 << 10),
            ..default()
        };
        let many = render_with(paged, "assets/humanoid.glb", walk());
        let changed = pixels_differing(&one, &many);
        assert!(
            covered(&many) > 200,
            "{backend:?}: nothing drawn from pages"
        );
        assert!(
            changed <= 20,
            "{backend:?}: {changed} pixels differ between one page and many"
        );
    }
}

/// Morph targets deform the drawn mesh: the synthetic column's `linear` and `still` clips bend
/// it alike, but only `linear` animates its weights, so the frames differ only by the
/// displacements the vertex shader applies.
#[test]
fn rendered_frame_applies_morph_targets() {
    if no_adapter("morph render test skipped") {
        return;
    }
    let column = "assets/synthetic/morph.glb";
    let morphed = render_frame(SinewBackend::Gpu, column, SinewMotion::clip("linear"));
    let still = render_frame(SinewBackend::Gpu, column, SinewMotion::clip("still"));
    let changed = pixels_differing(&morphed, &still);
    assert!(
        changed > 100,
        "morph weights did not change the frame ({changed} pixels differ)"
    );
}

#[derive(Resource, Default)]
struct Heard(Vec<String>);

fn hear(mut events: MessageReader<SinewEvent>, mut heard: ResMut<Heard>) {
    heard.0.extend(events.read().map(|e| e.name.clone()));
}

/// Control from Bevy: clip events arrive as messages, root motion moves the `Transform`, a
/// socket follows its joint, a cross-fade and a pause take effect.
#[test]
fn control_events_root_motion_and_sockets() {
    use bevy::ecs::system::RunSystemOnce;

    let mut app = app(repo(), SinewPlugin::default(), false);
    app.init_resource::<Heard>().add_systems(Last, hear);
    let handle: Handle<SinewAsset> = app
        .world()
        .resource::<AssetServer>()
        .load("assets/humanoid.glb");
    let e = app
        .world_mut()
        .spawn((
            SinewCharacter::new(handle),
            SinewMotion::clip("walk"),
            SinewRootMotion::default(),
            Transform::default(),
        ))
        .id();
    assert!(run_until(&mut app, |a| placed(a, e)));
    app.world_mut()
        .run_system_once(move |mut control: SinewControl| control.add_event(e, "walk", 0.5, "step"))
        .unwrap()
        .unwrap();
    let socket = app
        .world_mut()
        .spawn((
            SinewSocket {
                character: e,
                joint: "RightHand".into(),
                offset: Transform::IDENTITY,
            },
            Transform::default(),
        ))
        .id();
    for _ in 0..90 {
        app.update();
    }
    let heard = &app.world().resource::<Heard>().0;
    assert!(
        heard.iter().any(|n| n == "step"),
        "no step event: {heard:?}"
    );
    let body = app.world().get::<Transform>(e).unwrap().translation;
    assert!(
        body.length() > 0.2,
        "root motion did not move the character: {body}"
    );
    let hand = app
        .world()
        .get::<GlobalTransform>(socket)
        .unwrap()
        .translation();
    assert!(
        (hand - body).length() < 2.0 && hand.y > 0.5,
        "the socket is not at the hand: {hand} (character at {body})"
    );

    app.world_mut()
        .run_system_once(move |mut control: SinewControl| control.cross_fade(e, "run", 0.2))
        .unwrap()
        .unwrap();
    for _ in 0..30 {
        app.update();
    }
    app.world_mut()
        .run_system_once(move |mut control: SinewControl| control.set_paused(e, true))
        .unwrap()
        .unwrap();
    app.update();
    let read = |app: &App| {
        let offset = app
            .world()
            .get::<SinewInstance>(e)
            .unwrap()
            .palette_offset
            .unwrap();
        let palette = app.world().resource::<SinewPalette>();
        palette.read(offset as usize, 57).unwrap()
    };
    let before = read(&app);
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(before, read(&app), "a paused character kept moving");
}
