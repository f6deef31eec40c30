//! `sinew view` and the animated PNGs: the viewer's state driven as its panels drive it, its
//! headless frame against `sinew render`'s image of the same pose, the window itself under a
//! display (`--screenshot --exit-after`), and `render --frames` / `crowd --frames-out`.

use std::path::{Path, PathBuf};

use sinew::render::{RenderTarget, RgbaImage, read_apng_frames};
use sinew::runtime::LoopMode;
use sinew::view::{OrbitCamera, ViewBackend, ViewClips, ViewerFrame, ViewerState};

use super::common;
use super::fixtures::{SAME_SCENE_TOLERANCE, differing_fraction, gpu, output_dir};

/// The shipped humanoid.
fn humanoid_path() -> PathBuf {
    common::repo().join("assets/humanoid.glb")
}

/// A viewer with the humanoid open.
fn humanoid_state() -> ViewerState {
    let mut state = ViewerState::new();
    state.open(&humanoid_path()).unwrap();
    state
}

/// Runs the `sinew` binary with `args` (see [`common::run_sinew`]).
fn sinew(args: &[&str]) -> String {
    common::run_sinew(args)
}

fn out_path(name: &str) -> PathBuf {
    let dir = output_dir();
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

// ---------------------------------------------------------------------------------------------
// The state, as the panels drive it (no GPU).

#[test]
fn view_state_opens_a_file_and_plays_its_first_clip() {
    let state = humanoid_state();
    assert!(!state.clip_list().is_empty());
    assert_eq!(state.clip(), Some(0));
    assert_eq!(state.fade(), Some((false, 1.0)));
    let records = state.animator().unwrap().records();
    assert_eq!(records.len(), 1);
    assert!(!state.framing().is_empty());
}

#[test]
fn view_state_clicking_a_clip_cross_fades_over_the_fade_time() {
    let mut state = humanoid_state();
    assert!(
        state.clip_list().len() >= 2,
        "the humanoid has several clips"
    );
    state.fade_seconds = 0.5;
    state.play_clip(1).unwrap();
    assert_eq!(state.clip(), Some(1));
    state.update(0.25).unwrap();
    let (fading, weight) = state.fade().unwrap();
    assert!(fading, "a quarter of the way into a 0.5 s fade");
    assert!((weight - 0.5).abs() < 1e-3, "weight {weight}");
    // Both clips are in the record while fading.
    let record = state.animator().unwrap().records()[0];
    assert_eq!(record.used_layers().len(), 2);
    state.update(0.3).unwrap();
    assert_eq!(state.fade(), Some((false, 1.0)));
}

#[test]
fn view_state_scrub_pause_step_speed_and_loop_mode() {
    let mut state = humanoid_state();
    state.set_paused(true).unwrap();
    let duration = state.duration();
    state.scrub(duration * 0.5).unwrap();
    assert!((state.time() - duration * 0.5).abs() < 1e-5);
    state.update(1.0).unwrap();
    assert!((state.time() - duration * 0.5).abs() < 1e-5, "paused");
    // The record samples the scrubbed time.
    let animator = state.animator().unwrap();
    let layer = animator.records()[0]
        .layers_at(animator.frame_time())
        .next()
        .unwrap();
    assert!((layer.time - duration * 0.5).abs() < 1e-4, "{layer:?}");

    state.step(1).unwrap();
    assert!((state.time() - (duration * 0.5 + sinew::view::STEP_SECONDS)).abs() < 1e-4);
    state.step(-2).unwrap();
    assert!((state.time() - (duration * 0.5 - sinew::view::STEP_SECONDS)).abs() < 1e-4);
    // Scrubbing clamps to the clip (whose end a looping clock reads as its start).
    state.scrub(duration * 10.0).unwrap();
    let end = state.time();
    assert!((end - duration).abs() < 1e-5 || end.abs() < 1e-5, "{end}");
    assert!(state.scrub(f32::NAN).is_err());

    state.set_paused(false).unwrap();
    state.set_loop_mode(LoopMode::Clamp).unwrap();
    state.set_speed(2.0).unwrap();
    state.scrub(0.0).unwrap();
    state.update(duration * 0.25).unwrap();
    assert!((state.time() - duration * 0.5).abs() < 1e-3, "speed 2");
    state.update(duration * 10.0).unwrap();
    assert!((state.time() - duration).abs() < 1e-4, "clamped at the end");
}

#[test]
fn view_state_layers_characters_backend_and_clips() {
    let mut state = humanoid_state();
    let generation = state.generation();
    state.set_backend(ViewBackend::Gpu);
    assert_eq!(state.backend(), ViewBackend::Gpu);
    assert_ne!(
        state.generation(),
        generation,
        "the frame rebuilds its evaluator"
    );

    state.set_clips(ViewClips::Compressed).unwrap();
    let error = state.compressed_error().unwrap();
    assert!(error <= sinew::DEFAULT_ERROR_BUDGET, "measured {error}");

    let spine = state.rigs()[0].skeleton.names()[1].clone();
    state.add_layer(1, 0.5, Some(&spine)).unwrap();
    state.update(0.0).unwrap();
    let record = state.animator().unwrap().records()[0];
    assert_eq!(record.used_layers().len(), 2);
    assert!(record.used_layers()[1].mask().is_some());
    state.set_layer_weight(0, 2.0).unwrap();
    assert_eq!(state.layers()[0].weight, 1.0, "clamped");
    state.remove_layer(0).unwrap();
    assert!(state.layers().is_empty());

    state.set_characters(9).unwrap();
    assert_eq!(state.animator().unwrap().records().len(), 9);
    assert_eq!(state.clip(), Some(0));
}

#[test]
fn view_state_display_toggles_keep_the_characters_and_evaluator() {
    let mut state = humanoid_state();
    state.set_characters(9).unwrap();
    let generation = state.generation();
    assert!(!state.show_wireframe && !state.lod_colors, "off at first");
    // The panels' checkboxes: the frame reads them, nothing is rebuilt.
    state.show_wireframe = true;
    state.lod_colors = true;
    state.update(0.1).unwrap();
    assert_eq!(state.generation(), generation);
    assert_eq!(state.animator().unwrap().records().len(), 9);
    // The LOD colours' levels come from the policy, not from the records' LOD bits.
    let records = state.animator().unwrap().records();
    assert!(
        records
            .iter()
            .all(|r| r.flags & sinew::InstanceRecord::LOD_BITS == 0)
    );
}

#[test]
fn view_state_keeps_the_open_file_and_reports_errors() {
    let mut state = humanoid_state();
    let missing = common::repo().join("assets/no-such-file.glb");
    let message = state.open(&missing).unwrap_err();
    assert_eq!(state.error.as_deref(), Some(message.as_str()));
    assert_eq!(state.path(), Some(humanoid_path().as_path()), "still open");
    let clips = state.clip_list().len() as u32;
    assert!(state.play_clip(clips).is_err());
    assert!(state.error.is_some());
    // Events placed at the playhead become timeline markers.
    state.set_paused(true).unwrap();
    state.scrub(0.25).unwrap();
    state.add_event_here("step").unwrap();
    let markers = state.event_markers();
    assert_eq!(markers.len(), 1);
    assert!((markers[0].0 - 0.25).abs() < 1e-5 && markers[0].1 == "step");
}

// ---------------------------------------------------------------------------------------------
// The viewer's frame against `sinew render`.

/// The viewer's headless frame of the humanoid paused at `time` of clip 0, framed on its pose
/// as `sinew render` frames it, at `size`².
fn viewer_image(state: &mut ViewerState, time: f32, size: u32) -> RgbaImage {
    let gpu = gpu().unwrap();
    state.set_paused(true).unwrap();
    state.scrub(time).unwrap();
    let mut frame = ViewerFrame::new(gpu.device()).unwrap();
    let target = RenderTarget::new(gpu.device(), frame.renderer(), size, size, 2048).unwrap();
    let first = OrbitCamera::framing(&state.framing(), 1.0).camera(1.0);
    frame.draw(&gpu.context, state, &first, &target).unwrap();
    state.set_framing(frame.pose_bounds());
    let camera = OrbitCamera::framing(&state.framing(), target.aspect());
    frame
        .draw(
            &gpu.context,
            state,
            &camera.camera(target.aspect()),
            &target,
        )
        .unwrap();
    target.read_rgba8(gpu.device(), gpu.queue()).unwrap()
}

#[test]
fn view_frame_draws_the_pixels_sinew_render_draws() {
    let Some(gpu) = gpu() else { return };
    let (time, size) = (0.4, 160);
    let mut state = humanoid_state();
    let viewer = viewer_image(&mut state, time, size);
    let png = out_path(&format!("view-frame-render-{}.png", gpu.backend_name()));
    sinew(&[
        "render",
        humanoid_path().to_str().unwrap(),
        "--anim",
        "0",
        "--time",
        &time.to_string(),
        "--size",
        &size.to_string(),
        "--out",
        png.to_str().unwrap(),
    ]);
    let rendered = RgbaImage::load_png(&png).unwrap();
    viewer
        .save_png(out_path(&format!("view-frame-{}.png", gpu.backend_name())))
        .unwrap();
    let differ = differing_fraction(&viewer, &rendered, super::fixtures::PIXEL_THRESHOLD);
    assert!(
        differ <= SAME_SCENE_TOLERANCE,
        "{differ} of the pixels differ"
    );

    // The GPU evaluator draws the same pose.
    state.set_backend(ViewBackend::Gpu);
    let on_gpu = viewer_image(&mut state, time, size);
    let differ = differing_fraction(&on_gpu, &rendered, super::fixtures::PIXEL_THRESHOLD);
    assert!(
        differ <= SAME_SCENE_TOLERANCE,
        "GPU backend: {differ} differ"
    );
}

// ---------------------------------------------------------------------------------------------
// The window.

/// Whether a display is there for a window.
#[cfg(feature = "view")]
fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}

/// The window is the `view` feature.
#[cfg(feature = "view")]
#[test]
fn view_window_saves_a_screenshot_and_exits() {
    if gpu().is_none() {
        return;
    }
    if !display_available() {
        assert!(
            !(common::gpu_required() || common::in_ci()),
            "REQUIRE_GPU or CI is set but there is no display: run under xvfb-run -a"
        );
        eprintln!("skipping: no DISPLAY or WAYLAND_DISPLAY for a window");
        return;
    }
    let png = out_path("view-window.png");
    let _ = std::fs::remove_file(&png);
    sinew(&[
        "view",
        humanoid_path().to_str().unwrap(),
        "--size",
        "640,400",
        "--screenshot",
        png.to_str().unwrap(),
        "--exit-after",
        "5",
    ]);
    let image = RgbaImage::load_png(&png).unwrap();
    assert_eq!((image.width, image.height), (640, 400));
    // The stage shows the character: its warm body colour (red over green over blue, unlike
    // the grey ground and panels) appears in the window.
    let warm = image
        .pixels
        .chunks_exact(4)
        .filter(|p| p[0] > 100 && p[0] > p[1] + 4 && p[1] > p[2] + 4)
        .count();
    assert!(warm > 200, "{warm} warm pixels: no character in the window");
}

// ---------------------------------------------------------------------------------------------
// Animated PNGs.

fn check_apng(path: &Path, frames: u32, size: (u32, u32)) -> Vec<RgbaImage> {
    let read = read_apng_frames(path).unwrap();
    let images = read.frames;
    assert_eq!(
        read.animation,
        Some((frames, 0)),
        "acTL: frames, loop forever"
    );
    assert_eq!(images.len(), frames as usize);
    for image in &images {
        assert_eq!((image.width, image.height), size);
    }
    images
}

#[test]
fn render_frames_writes_an_animated_png_of_the_clip() {
    let Some(gpu) = gpu() else { return };
    let png = out_path(&format!("render-frames-{}.png", gpu.backend_name()));
    let line = sinew(&[
        "render",
        humanoid_path().to_str().unwrap(),
        "--anim",
        "0",
        "--frames",
        "4",
        "--fps",
        "8",
        "--size",
        "96",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert!(line.contains("4 frames at 8 fps"), "{line}");
    let images = check_apng(&png, 4, (96, 96));
    let moved = differing_fraction(&images[0], &images[2], super::fixtures::PIXEL_THRESHOLD);
    assert!(moved > 0.002, "frames 0 and 2 should differ ({moved})");
}

#[test]
fn crowd_frames_out_writes_an_animated_png_of_every_timed_frame() {
    let Some(gpu) = gpu() else { return };
    let apng = out_path(&format!("crowd-frames-{}.png", gpu.backend_name()));
    let last = out_path(&format!("crowd-last-{}.png", gpu.backend_name()));
    sinew(&[
        "crowd",
        "--characters",
        "4",
        "--frames",
        "3",
        "--backend",
        "cpu",
        "--frames-out",
        apng.to_str().unwrap(),
        "--out",
        last.to_str().unwrap(),
        "--json",
    ]);
    let images = check_apng(&apng, 3, (1024, 768));
    // The characters move from frame to frame (the camera stays as first framed).
    let moved = differing_fraction(&images[0], &images[2], super::fixtures::PIXEL_THRESHOLD);
    assert!(moved > 0.0, "the crowd stands still");
    // The last frame is still rendered to `--out` as well.
    let still = RgbaImage::load_png(&last).unwrap();
    assert_eq!((still.width, still.height), (1024, 768));
}

#[test]
fn view_state_sets_morph_weights_by_hand() {
    let mut state = ViewerState::new();
    state
        .open(&common::repo().join("assets/synthetic/morph.glb"))
        .unwrap();
    let targets = state.morph_targets();
    assert!(!targets.is_empty(), "morph.glb has morph targets");
    let (rig, weight, _) = targets[0].clone();
    assert_eq!(state.morph_weight(rig, weight), None, "animated");
    state.set_morph_weight(rig, weight, 0.75).unwrap();
    assert_eq!(state.morph_weight(rig, weight), Some(0.75));
    assert!(state.set_morph_weight(rig, 10_000, 0.5).is_err());
    assert!(state.set_morph_weight(rig, weight, f32::NAN).is_err());
    state.clear_morph_weights();
    assert_eq!(state.morph_weight(rig, weight), None);
}

#[test]
fn view_frame_draws_a_crowd_in_lod_colours_on_either_backend() {
    let Some(gpu) = gpu() else { return };
    for backend in [ViewBackend::Cpu, ViewBackend::Gpu] {
        let mut state = humanoid_state();
        state.set_backend(backend);
        state.set_characters(256).unwrap();
        state.lod_colors = true;
        state.update(0.5).unwrap();
        let mut frame = ViewerFrame::new(gpu.device()).unwrap();
        let target = RenderTarget::new(gpu.device(), frame.renderer(), 192, 192, 1024).unwrap();
        // From beside the grid's front corner along its diagonal: near and far characters.
        let first = OrbitCamera::framing(&state.framing(), 1.0).camera(1.0);
        frame.draw(&gpu.context, &state, &first, &target).unwrap();
        assert_eq!(frame.bounds().len(), 256);
        let all = frame.pose_bounds();
        let (min, max) = (
            glam::Vec3::from_slice(&all.min[..3]),
            glam::Vec3::from_slice(&all.max[..3]),
        );
        let corner = glam::Vec3::new(min.x, 0.0, max.z);
        let eye = corner + (corner - (min + max) * 0.5).with_y(0.0) * 0.15 + glam::Vec3::Y * 2.0;
        let camera = sinew::render::Camera::look_at(
            eye,
            (min + max) * 0.5,
            glam::Vec3::Y,
            0.8,
            1.0,
            0.1,
            500.0,
        );
        // Enough frames for every level's update interval to come round (the GPU kernel
        // writes the level it chose when it evaluates a character, read back a frame or two
        // later).
        for _ in 0..12 {
            frame.draw(&gpu.context, &state, &camera, &target).unwrap();
        }
        // Each character's level is the one the policy gives it, and its tint that level's.
        let records = state.animator().unwrap().records();
        let policy = sinew::view::view_policy(&camera, records);
        let expected: Vec<usize> = records
            .iter()
            .map(|r| {
                let t = r.world.to_affine().translation;
                policy.level_at(glam::Vec3::from(t)) as usize
            })
            .collect();
        assert_eq!(frame.lod_levels(), expected.as_slice(), "{backend:?}");
        let mut levels = expected.clone();
        levels.sort_unstable();
        levels.dedup();
        assert!(levels.len() >= 3, "{backend:?}: levels {levels:?}");
        for (c, &level) in frame.characters().iter().zip(&expected) {
            assert_eq!(c.tint, sinew::view::LOD_COLORS[level], "{backend:?}");
        }
        let image = target.read_rgba8(gpu.device(), gpu.queue()).unwrap();
        image
            .save_png(out_path(&format!(
                "view-crowd-{backend:?}-{}.png",
                gpu.backend_name()
            )))
            .unwrap();
        // Characters two or more times farther than the nearest are tinted green (LOD 1) or
        // warmer: green above red appears.
        let green = image
            .pixels
            .chunks_exact(4)
            .filter(|p| u16::from(p[1]) > u16::from(p[0]) + 15)
            .count();
        assert!(green > 20, "{backend:?}: {green} LOD-tinted pixels");
    }
}

#[test]
fn view_frame_draws_every_character_of_a_crowd_as_wireframe() {
    let Some(gpu) = gpu() else { return };
    let mut state = humanoid_state();
    state.set_characters(4).unwrap();
    state.set_paused(true).unwrap();
    let mut frame = ViewerFrame::new(gpu.device()).unwrap();
    let size = 160;
    let target = RenderTarget::new(gpu.device(), frame.renderer(), size, size, 1024).unwrap();
    let first = OrbitCamera::framing(&state.framing(), 1.0).camera(1.0);
    frame.draw(&gpu.context, &state, &first, &target).unwrap();
    state.set_framing(frame.pose_bounds());
    let camera = OrbitCamera::framing(&state.framing(), 1.0).camera(1.0);
    let mut image = |state: &ViewerState| {
        frame.draw(&gpu.context, state, &camera, &target).unwrap();
        target.read_rgba8(gpu.device(), gpu.queue()).unwrap()
    };
    let filled = image(&state);
    state.show_wireframe = true;
    let wire = image(&state);
    state.show_wireframe = false;
    let again = image(&state);
    wire.save_png(out_path(&format!(
        "view-wireframe-{}.png",
        gpu.backend_name()
    )))
    .unwrap();
    // Every character's box on screen changes when the wireframe is on.
    let bounds = frame.bounds().to_vec();
    assert_eq!(bounds.len(), 4);
    for (k, b) in bounds.iter().enumerate() {
        let rect = super::fixtures::screen_rect(&camera, b, size);
        let mut changed = 0;
        for y in rect.1.max(0.0) as u32..(rect.3 as u32).min(size) {
            for x in rect.0.max(0.0) as u32..(rect.2 as u32).min(size) {
                let at = ((y * size + x) * 4) as usize;
                let (p, q) = (&filled.pixels[at..at + 3], &wire.pixels[at..at + 3]);
                if p.iter().zip(q).any(|(a, b)| a.abs_diff(*b) > 8) {
                    changed += 1;
                }
            }
        }
        assert!(changed > 20, "character {k}: {changed} pixels changed");
    }
    assert_eq!(
        differing_fraction(&again, &filled, 0),
        0.0,
        "toggled back: the filled frame"
    );
}

#[test]
fn view_frame_times_each_stage_on_the_gpu_or_labels_wall_time() {
    let Some(gpu) = gpu() else { return };
    let timestamps = gpu
        .device()
        .features()
        .contains(wgpu::Features::TIMESTAMP_QUERY);
    if common::gpu_required() {
        // Both Mesa drivers offer timestamp queries (docs: DESIGN's GPU facts).
        assert!(timestamps, "the device lacks TIMESTAMP_QUERY");
    }
    let mut state = humanoid_state();
    state.set_backend(ViewBackend::Gpu);
    state.set_characters(4).unwrap();
    let mut frame = ViewerFrame::new(gpu.device()).unwrap();
    let target = RenderTarget::new(gpu.device(), frame.renderer(), 96, 96, 512).unwrap();
    let camera = OrbitCamera::framing(&state.framing(), 1.0).camera(1.0);
    let check = |times: sinew::view::FrameTimes, clock: &str, count: usize| {
        let stages = times.stages();
        assert_eq!(stages.len(), count, "{stages:?}");
        for (label, ms) in &stages {
            assert!(label.ends_with(clock), "{label} is not {clock} time");
            assert!(ms.is_finite() && *ms >= 0.0, "{label}: {ms} ms");
        }
        stages
    };
    if timestamps {
        // Read without waiting: a few frames until the copies arrive.
        for _ in 0..6 {
            state.update(1.0 / 60.0).unwrap();
            frame.draw(&gpu.context, &state, &camera, &target).unwrap();
        }
        gpu.device()
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        frame.draw(&gpu.context, &state, &camera, &target).unwrap();
        let stages = check(frame.times(), "(GPU)", 4);
        let names: Vec<&str> = stages
            .iter()
            .map(|(l, _)| l.split(' ').next().unwrap())
            .collect();
        assert_eq!(names, ["evaluate", "cull", "shadow", "main"]);
        assert!(
            stages.iter().any(|(_, ms)| *ms > 0.0),
            "no stage took any GPU time: {stages:?}"
        );
    }
    // Without timestamps: wall time, labelled so, one entry per measured stage.
    frame.set_gpu_timing(false);
    for _ in 0..2 {
        frame.draw(&gpu.context, &state, &camera, &target).unwrap();
    }
    let stages = check(frame.times(), "(wall)", 2);
    assert!(stages[0].0.starts_with("evaluate") && stages[1].0.starts_with("draw"));
}
