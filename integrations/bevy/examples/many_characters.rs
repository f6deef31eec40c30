//! N characters of one rig in a grid, each walking through a locomotion state machine (idle,
//! walk, run by speed), animated by sinew or by Bevy's own `AnimationPlayer` on the same file
//! and clips, with the time spent animating measured per frame.
//!
//! ```text
//! cargo run --release -p sinew_bevy --example many_characters -- \
//!     [--headless --frames F --out PNG] [--characters N] [--model FILE] \
//!     --animation sinew-cpu|sinew-gpu|bevy [--json]
//! ```
//!
//! `animation_ms` is the median per frame of: for `sinew-cpu`, the speed control plus the
//! plugin's systems (control, evaluation with the fast CPU backend, palette written, boxes);
//! for `sinew-gpu`, the speed control plus the plugin's systems (control, changed records)
//! plus the render world's GPU evaluation (upload, dispatch, palette copy, and the wait for the
//! boxes read back, so the GPU's time is in it);
//! for `bevy`, the speed control plus Bevy's animation systems through transform propagation,
//! plus the render world's skin extraction. `--headless` renders only the frame it writes to
//! `--out`. Paths are relative to the repository root.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bevy::animation::{
    AnimationPlayer, graph::AnimationGraph, graph::AnimationGraphHandle, graph::AnimationNodeIndex,
    transition::AnimationTransitions,
};
use bevy::app::{AnimationSystems, AppExit, ScheduleRunnerPlugin};
use bevy::camera::RenderTarget;
use bevy::gltf::Gltf;
use bevy::prelude::*;
use bevy::render::render_resource::TextureUsages;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::render::{ExtractSchedule, Render, RenderApp};
use bevy::transform::TransformSystems;
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy::world_serialization::{WorldAssetRoot, WorldInstanceReady};
use sinew::runtime::{StateMotion, Value, locomotion};
use sinew_bevy::{
    SinewAsset, SinewBackend, SinewCharacter, SinewControl, SinewInstance, SinewMotion,
    SinewPlugin, SinewSystems,
};

/// Who animates the characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Mode {
    /// sinew's fast CPU backend.
    SinewCpu,
    /// sinew's GPU backend on Bevy's device.
    SinewGpu,
    /// Bevy's own `AnimationPlayer` on the same file and clips.
    Bevy,
}

/// N characters of one rig, each in a locomotion state machine, animated by sinew or by Bevy.
#[derive(Resource, Clone, Debug, clap::Parser)]
struct Args {
    /// No window: render only the frame written to `--out`.
    #[arg(long)]
    headless: bool,
    /// Frames measured (after ten warm-up frames).
    #[arg(long, default_value_t = 300)]
    frames: u32,
    /// Where to write the last frame as a PNG.
    #[arg(long)]
    out: Option<PathBuf>,
    /// How many characters.
    #[arg(long, default_value_t = 1000)]
    characters: u32,
    /// The model, relative to the repository root.
    #[arg(long, default_value = "assets/humanoid.glb")]
    model: String,
    /// Who animates.
    #[arg(long = "animation", value_enum, default_value_t = Mode::SinewCpu)]
    mode: Mode,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = <Args as clap::Parser>::parse();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut app = App::new();
    let asset = AssetPlugin {
        file_path: root.to_string_lossy().into_owned(),
        ..default()
    };
    if args.headless {
        app.add_plugins(
            DefaultPlugins
                .set(asset)
                .set(WindowPlugin {
                    primary_window: None,
                    exit_condition: ExitCondition::DontExit,
                    close_when_requested: false,
                    ..default()
                })
                .disable::<WinitPlugin>(),
        )
        .add_plugins(ScheduleRunnerPlugin::run_loop(Duration::ZERO));
    } else {
        app.add_plugins(DefaultPlugins.set(asset));
    }
    if args.mode != Mode::Bevy {
        let backend = match args.mode {
            Mode::SinewGpu => SinewBackend::Gpu,
            _ => SinewBackend::FastCpu,
        };
        app.add_plugins(SinewPlugin {
            backend,
            ..default()
        });
        app.add_systems(PostUpdate, mark_start.before(SinewSystems::Animate));
        app.add_systems(PostUpdate, mark_end.after(SinewSystems::Animate));
        if let Some(render) = app.get_sub_app_mut(RenderApp) {
            render.add_systems(
                Render,
                (
                    render_start.before(SinewSystems::EvaluateGpu),
                    render_end.after(SinewSystems::EvaluateGpu),
                ),
            );
        }
    } else {
        app.add_systems(PostUpdate, mark_start.before(AnimationSystems));
        app.add_systems(PostUpdate, mark_end.after(TransformSystems::Propagate));
        if let Some(render) = app.get_sub_app_mut(RenderApp) {
            render.add_systems(
                ExtractSchedule,
                (
                    render_start.before(bevy::pbr::extract_skins),
                    render_end.after(bevy::pbr::extract_skins),
                ),
            );
        }
        app.add_observer(start_player);
        register_scene_types(&mut app);
    }
    app.insert_resource(args.clone())
        .init_resource::<Stats>()
        .add_systems(Startup, setup)
        .add_systems(Update, (spawn_when_loaded, drive, finish).chain());
    if app.run().is_success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Characters whose animation has started: sinew instances or Bevy scenes with a player.
type Animated = Or<(With<SinewInstance>, With<PlayerOf>)>;

/// The component types a glTF scene holds, for Bevy's scene spawner (which copies them by
/// reflection, and Bevy built without `reflect_auto_register` registers few types itself).
fn register_scene_types(app: &mut App) {
    use bevy::animation::{AnimatedBy, AnimationTargetId};
    use bevy::camera::primitives::Aabb;
    use bevy::camera::visibility::{DynamicSkinnedMeshBounds, NoFrustumCulling};
    use bevy::gltf::{GltfExtras, GltfMaterialName, GltfMeshName, GltfSceneName};
    use bevy::mesh::morph::{MeshMorphWeights, MorphWeights};
    use bevy::mesh::skinning::SkinnedMesh;
    app.register_type::<Name>()
        .register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Mesh3d>()
        .register_type::<MeshMaterial3d<StandardMaterial>>()
        .register_type::<SkinnedMesh>()
        .register_type::<DynamicSkinnedMeshBounds>()
        .register_type::<NoFrustumCulling>()
        .register_type::<Aabb>()
        .register_type::<AnimationPlayer>()
        .register_type::<AnimationTargetId>()
        .register_type::<AnimatedBy>()
        .register_type::<MorphWeights>()
        .register_type::<MeshMorphWeights>()
        .register_type::<GltfExtras>()
        .register_type::<GltfMaterialName>()
        .register_type::<GltfMeshName>()
        .register_type::<GltfSceneName>()
        .register_type::<bevy::camera::visibility::VisibilityClass>()
        .register_type::<bevy::transform::components::TransformTreeChanged>()
        .register_type::<bevy::render::sync_world::SyncToRenderWorld>();
}

/// Per-frame timings.
#[derive(Resource, Default)]
struct Stats {
    spawned: bool,
    joints: usize,
    warm: u32,
    frames: Vec<(f64, f64)>,
    last_frame: Option<Instant>,
    shot: Option<u32>,
}

static WINDOW: Mutex<(Option<Instant>, f64)> = Mutex::new((None, 0.0));
static RENDER: Mutex<(Option<Instant>, f64)> = Mutex::new((None, 0.0));

fn add_ms(cell: &Mutex<(Option<Instant>, f64)>, start: bool) {
    let mut c = cell.lock().unwrap_or_else(|e| e.into_inner());
    if start {
        c.0 = Some(Instant::now());
    } else if let Some(t) = c.0.take() {
        c.1 += t.elapsed().as_secs_f64() * 1e3;
    }
}
fn take_ms(cell: &Mutex<(Option<Instant>, f64)>) -> f64 {
    std::mem::take(&mut cell.lock().unwrap_or_else(|e| e.into_inner()).1)
}
fn mark_start() {
    add_ms(&WINDOW, true);
}
fn mark_end() {
    add_ms(&WINDOW, false);
}
fn render_start() {
    add_ms(&RENDER, true);
}
fn render_end() {
    add_ms(&RENDER, false);
}

#[derive(Resource)]
struct Loading {
    sinew: Option<Handle<SinewAsset>>,
    gltf: Option<Handle<Gltf>>,
    image: Option<Handle<Image>>,
}

#[derive(Resource)]
struct BevyClips {
    graph: Handle<AnimationGraph>,
    nodes: [AnimationNodeIndex; 3],
}

/// A character's speed schedule: the band it is in (0 idle, 1 walk, 2 run).
#[derive(Component)]
struct Gait {
    phase: f32,
    band: usize,
}

fn setup(
    mut commands: Commands,
    args: Res<Args>,
    server: Res<AssetServer>,
    mut images: ResMut<Assets<Image>>,
) {
    let side = (args.characters as f32).sqrt().ceil().max(1.0);
    let extent = side * 1.5;
    let image = args.headless.then(|| {
        let mut image = Image::new_target_texture(
            1280,
            720,
            bevy::render::render_resource::TextureFormat::Rgba8UnormSrgb,
            None,
        );
        image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
        images.add(image)
    });
    let mut camera = commands.spawn((
        Camera3d::default(),
        Transform::from_xyz(extent * 0.5, extent * 0.45 + 2.0, extent * 1.1 + 3.0)
            .looking_at(Vec3::new(extent * 0.5, 0.8, extent * 0.4), Vec3::Y),
    ));
    if let Some(image) = &image {
        // Headless: render nothing until the frame written to --out.
        camera.insert((
            RenderTarget::Image(image.clone().into()),
            Camera {
                is_active: false,
                ..default()
            },
        ));
    }
    commands.spawn((
        DirectionalLight {
            shadow_maps_enabled: true,
            illuminance: 8000.0,
            ..default()
        },
        Transform::from_xyz(3.0, 10.0, 6.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let (sinew, gltf) = match args.mode {
        Mode::SinewCpu | Mode::SinewGpu => {
            (Some(server.load::<SinewAsset>(args.model.clone())), None)
        }
        Mode::Bevy => (None, Some(server.load::<Gltf>(args.model.clone()))),
    };
    commands.insert_resource(Loading { sinew, gltf, image });
}

/// For Bevy's player: the clip index of each state of sinew's locomotion machine (idle, walk,
/// run), so both modes play the same clips.
fn band_clips(names: &[String]) -> [usize; 3] {
    let def = locomotion(names);
    let mut picks = [0; 3];
    for (pick, state) in picks.iter_mut().zip(&def.states) {
        if let StateMotion::Clip(clip) = &state.motion {
            *pick = names.iter().position(|n| n == clip).unwrap_or(0);
        }
    }
    picks
}

#[allow(clippy::too_many_arguments)]
fn spawn_when_loaded(
    mut commands: Commands,
    args: Res<Args>,
    loading: Res<Loading>,
    mut stats: ResMut<Stats>,
    sinew_assets: Option<Res<Assets<SinewAsset>>>,
    gltfs: Res<Assets<Gltf>>,
    skins: Res<Assets<bevy::gltf::GltfSkin>>,
    server: Res<AssetServer>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    mut exit: MessageWriter<AppExit>,
) {
    if stats.spawned {
        return;
    }
    let side = (args.characters as f32).sqrt().ceil().max(1.0) as u32;
    let at = |i: u32| Transform::from_xyz((i % side) as f32 * 1.5, 0.0, (i / side) as f32 * 1.5);
    let gait = |i: u32| Gait {
        phase: (i.wrapping_mul(2_654_435_761) % 1000) as f32 / 1000.0 * 9.0,
        band: 0,
    };
    if let Some(handle) = &loading.sinew {
        if let Some(bevy::asset::LoadState::Failed(e)) = server.get_load_state(handle.id()) {
            eprintln!("many_characters: {e}");
            exit.write(AppExit::error());
            return;
        }
        let Some(asset) = sinew_assets.as_ref().and_then(|a| a.get(handle)) else {
            return;
        };
        let rig = &asset.rigs[0];
        let names: Vec<String> = rig.clips.clips().iter().map(|c| c.name.clone()).collect();
        if names.is_empty() {
            eprintln!("many_characters: {} has no clips", args.model);
            exit.write(AppExit::error());
            return;
        }
        let machine = locomotion(&names);
        stats.joints = rig.joint_count();
        for i in 0..args.characters {
            commands.spawn((
                SinewCharacter::new(handle.clone()),
                SinewMotion::StateMachine(machine.clone()),
                at(i),
                gait(i),
            ));
        }
        stats.spawned = true;
    }
    if let Some(handle) = &loading.gltf {
        let Some(gltf) = gltfs.get(handle) else {
            return;
        };
        let Some(scene) = gltf
            .default_scene
            .clone()
            .or_else(|| gltf.scenes.first().cloned())
        else {
            eprintln!("many_characters: {} has no scene", args.model);
            exit.write(AppExit::error());
            return;
        };
        let names: Vec<String> = (0..gltf.animations.len())
            .map(|i| {
                gltf.named_animations
                    .iter()
                    .find(|(_, h)| **h == gltf.animations[i])
                    .map(|(n, _)| n.to_string())
                    .unwrap_or_default()
            })
            .collect();
        if names.is_empty() {
            eprintln!("many_characters: {} has no animations", args.model);
            exit.write(AppExit::error());
            return;
        }
        let picks = band_clips(&names);
        let (graph, nodes) =
            AnimationGraph::from_clips(picks.iter().map(|&c| gltf.animations[c].clone()));
        commands.insert_resource(BevyClips {
            graph: graphs.add(graph),
            nodes: [nodes[0], nodes[1], nodes[2]],
        });
        // Joints: the nodes of the first skin.
        stats.joints = gltf
            .skins
            .first()
            .and_then(|s| skins.get(s))
            .map_or(0, |s| s.joints.len());
        for i in 0..args.characters {
            commands.spawn((WorldAssetRoot(scene.clone()), at(i), gait(i)));
        }
        stats.spawned = true;
    }
}

/// Starts Bevy's player on each spawned scene: idle, switched by `drive`.
fn start_player(
    ready: On<WorldInstanceReady>,
    mut commands: Commands,
    clips: Res<BevyClips>,
    children: Query<&Children>,
    mut players: Query<&mut AnimationPlayer>,
) {
    for e in children.iter_descendants(ready.entity) {
        if let Ok(mut player) = players.get_mut(e) {
            let mut transitions = AnimationTransitions::new();
            transitions
                .play(&mut player, clips.nodes[0], Duration::ZERO)
                .repeat();
            commands
                .entity(e)
                .insert((AnimationGraphHandle(clips.graph.clone()), transitions));
            commands.entity(ready.entity).insert(PlayerOf(e));
        }
    }
}

/// The scene root's animation player entity.
#[derive(Component)]
struct PlayerOf(Entity);

/// Speed over time: idle, walk, run, walk, in a 9 s cycle offset per character.
fn speed_at(t: f32, phase: f32) -> f32 {
    match ((t + phase) % 9.0) as u32 {
        0..=1 => 0.0,
        2..=4 => 1.5,
        5..=6 => 3.5,
        _ => 1.5,
    }
}

fn band_of(speed: f32, band: usize) -> usize {
    // The state machine's thresholds, with its hysteresis.
    match band {
        0 if speed > 0.6 => 1,
        1 if speed > 2.6 => 2,
        1 if speed < 0.4 => 0,
        2 if speed < 2.2 => 1,
        b => b,
    }
}

#[allow(clippy::too_many_arguments)]
fn drive(
    time: Res<Time>,
    args: Res<Args>,
    mut sinew: Option<SinewControl>,
    clips: Option<Res<BevyClips>>,
    mut gaits: Query<(Entity, &mut Gait, Option<&PlayerOf>, Has<SinewInstance>)>,
    mut players: Query<(&mut AnimationPlayer, &mut AnimationTransitions)>,
) {
    let start = Instant::now();
    let t = time.elapsed_secs();
    for (entity, mut gait, player, instanced) in &mut gaits {
        let speed = speed_at(t, gait.phase);
        let band = band_of(speed, gait.band);
        if band == gait.band && !(instanced && t < 0.1) {
            continue;
        }
        match args.mode {
            Mode::SinewCpu | Mode::SinewGpu => {
                if let Some(control) = sinew.as_mut()
                    && instanced
                    && control
                        .set_parameter(entity, "speed", Value::Float(speed as f64))
                        .is_ok()
                {
                    gait.band = band;
                }
            }
            Mode::Bevy => {
                if let (Some(clips), Some(player)) = (&clips, player)
                    && let Ok((mut p, mut transitions)) = players.get_mut(player.0)
                {
                    transitions
                        .play(&mut p, clips.nodes[band], Duration::from_millis(300))
                        .repeat();
                    gait.band = band;
                }
            }
        }
    }
    let mut w = WINDOW.lock().unwrap_or_else(|e| e.into_inner());
    w.1 += start.elapsed().as_secs_f64() * 1e3;
}

#[allow(clippy::too_many_arguments)]
fn finish(
    mut commands: Commands,
    args: Res<Args>,
    mut stats: ResMut<Stats>,
    loading: Res<Loading>,
    mut cameras: Query<&mut Camera>,
    ready: Query<(), Animated>,
    mut exit: MessageWriter<AppExit>,
) {
    let now = Instant::now();
    let frame = stats
        .last_frame
        .replace(now)
        .map(|t| (now - t).as_secs_f64() * 1e3);
    let animation = take_ms(&WINDOW) + take_ms(&RENDER);
    if !stats.spawned || (ready.iter().count() as u32) < args.characters {
        return;
    }
    // A few frames for pipelines and the first transitions before measuring.
    if stats.warm < 10 {
        stats.warm += 1;
        return;
    }
    if let Some(frame) = frame {
        stats.frames.push((animation, frame));
    }
    let measured = stats.frames.len() as u32;
    if measured < args.frames {
        return;
    }
    if let (Some(out), Some(image)) = (&args.out, &loading.image) {
        match stats.shot {
            None => {
                for mut c in &mut cameras {
                    c.is_active = true;
                }
                stats.shot = Some(0);
                return;
            }
            Some(n) if n == 2 => {
                commands
                    .spawn(Screenshot::image(image.clone()))
                    .observe(save_to_disk(out.clone()));
                stats.shot = Some(n + 1);
                return;
            }
            Some(n) if n < 12 => {
                stats.shot = Some(n + 1);
                return;
            }
            _ => {}
        }
    }
    report(&args, &stats);
    exit.write(AppExit::Success);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn report(args: &Args, stats: &Stats) {
    let animation = median(stats.frames.iter().map(|f| f.0).collect());
    let frame = median(stats.frames.iter().map(|f| f.1).collect());
    let mode = match args.mode {
        Mode::SinewCpu => "sinew-cpu",
        Mode::SinewGpu => "sinew-gpu",
        Mode::Bevy => "bevy",
    };
    if args.json {
        let out = serde_json::json!({
            "characters": args.characters,
            "joints_per_character": stats.joints,
            "frames": stats.frames.len(),
            "animation": mode,
            "animation_ms": animation,
            "frame_ms": frame,
            "headless": args.headless,
            "model": args.model,
        });
        println!("{out}");
    } else {
        println!(
            "{mode}: {} characters, {} joints each, {} frames: animation {animation:.3} ms, frame {frame:.3} ms (medians)",
            args.characters,
            stats.joints,
            stats.frames.len()
        );
    }
}
