//! The egui panels: functions of the [`ViewerState`] that call its methods. The left panel
//! holds playback, clips, layers, display and crowd controls; the bottom one the timeline
//! with its event markers; the central one the stage, which takes orbit, pan and zoom drags.

use std::collections::VecDeque;

use egui::{Color32, Pos2, Rect, Stroke, Ui, Vec2};
use glam::Vec3;

use super::camera_control::OrbitCamera;
use super::lod::LOD_COLORS;
use super::state::{MAX_CHARACTERS, ViewBackend, ViewClips, ViewerState};
use super::timing::FrameTimes;
use crate::math::Aabb;
use crate::render::{Camera, SkinningMode};
use crate::runtime::LoopMode;

/// Frames of timings the graph shows.
const HISTORY: usize = 120;

/// What the panels keep between frames that is not the viewer's state.
#[derive(Debug, Default)]
pub struct PanelView {
    history: VecDeque<FrameTimes>,
    layer_clip: u32,
    layer_mask: String,
    event_name: String,
}

/// What the user did to the stage this frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Interaction {
    /// Pixels the central panel gives the stage.
    pub stage_size: [u32; 2],
    /// Orbit drag in pixels.
    pub orbit: Vec2,
    /// Pan drag in pixels.
    pub pan: Vec2,
    /// Zoom steps (scroll).
    pub zoom: f32,
    /// Frame the camera and ground on the current pose.
    pub frame: bool,
}

impl Interaction {
    /// Moves `camera` as the user asked, for a stage `height` pixels tall.
    pub fn apply(&self, camera: &mut OrbitCamera, height: f32) {
        if self.orbit != Vec2::ZERO {
            camera.orbit(self.orbit.x, self.orbit.y);
        }
        if self.pan != Vec2::ZERO {
            camera.pan(self.pan.x, self.pan.y, height);
        }
        if self.zoom != 0.0 {
            camera.zoom(self.zoom);
        }
    }
}

/// What the stage showed last frame, for the panels.
#[derive(Clone, Copy, Debug)]
pub struct StageInfo<'a> {
    /// The egui texture of the stage's image.
    pub texture: egui::TextureId,
    /// The camera it was seen by.
    pub camera: Option<OrbitCamera>,
    /// How long its stages took.
    pub times: FrameTimes,
    /// Each character's box.
    pub bounds: &'a [Aabb],
    /// The first character's joints.
    pub joints: &'a [(String, Vec3)],
}

/// Shows every panel; returns what was done to the stage.
pub fn show(
    ui: &mut Ui,
    state: &mut ViewerState,
    view: &mut PanelView,
    stage: &StageInfo<'_>,
) -> Interaction {
    let times = stage.times;
    view.history.push_back(times);
    while view.history.len() > HISTORY {
        view.history.pop_front();
    }
    let mut interaction = Interaction::default();
    keys(ui, state, &mut interaction);
    egui::Panel::left("sinew controls")
        .default_size(270.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                controls(ui, state, view, &mut interaction);
            });
        });
    egui::Panel::bottom("sinew timeline").show(ui, |ui| timeline(ui, state, view));
    egui::CentralPanel::default().show(ui, |ui| {
        let size = ui.available_size();
        let ppp = ui.ctx().pixels_per_point();
        interaction.stage_size = [
            (size.x * ppp).round().max(16.0) as u32,
            (size.y * ppp).round().max(16.0) as u32,
        ];
        let image = egui::Image::new((stage.texture, size)).sense(egui::Sense::click_and_drag());
        let response = ui.add(image);
        if response.dragged_by(egui::PointerButton::Primary) {
            interaction.orbit += response.drag_delta() * ppp;
        }
        if response.dragged_by(egui::PointerButton::Secondary)
            || response.dragged_by(egui::PointerButton::Middle)
        {
            interaction.pan += response.drag_delta() * ppp;
        }
        if response.hovered() {
            interaction.zoom += ui.input(|i| i.smooth_scroll_delta.y) / 40.0;
        }
        if response.double_clicked() {
            interaction.frame = true;
        }
        if let Some(camera) = stage.camera {
            let aspect = size.x / size.y.max(1.0);
            overlays(ui, response.rect, &camera.camera(aspect), state, stage);
        }
        if let Some(error) = &state.error {
            let painter = ui.painter_at(response.rect);
            let red = Color32::from_rgb(255, 110, 90);
            let wrap = (response.rect.width() - 16.0).max(32.0);
            let galley = painter.layout(error.clone(), egui::FontId::proportional(14.0), red, wrap);
            painter.galley(response.rect.left_top() + Vec2::new(8.0, 8.0), galley, red);
        }
    });
    interaction
}

/// Space pauses, the arrow keys step, F frames the pose.
fn keys(ui: &Ui, state: &mut ViewerState, interaction: &mut Interaction) {
    if ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    let (space, left, right, f) = ui.input(|i| {
        (
            i.key_pressed(egui::Key::Space),
            i.key_pressed(egui::Key::ArrowLeft),
            i.key_pressed(egui::Key::ArrowRight),
            i.key_pressed(egui::Key::F),
        )
    });
    if space {
        report(state, |s| s.set_paused(!s.is_paused()));
    }
    if left {
        report(state, |s| s.step(-1));
    }
    if right {
        report(state, |s| s.step(1));
    }
    interaction.frame |= f;
}

/// Runs an action; its error goes to [`ViewerState::error`].
fn report(
    state: &mut ViewerState,
    action: impl FnOnce(&mut ViewerState) -> Result<(), super::ViewError>,
) {
    if let Err(e) = action(state) {
        state.error = Some(e.to_string());
    }
}

fn controls(ui: &mut Ui, state: &mut ViewerState, view: &mut PanelView, i: &mut Interaction) {
    ui.heading("sinew view");
    match state.path() {
        Some(p) => ui.label(p.display().to_string()),
        None => ui.label("Drop a glTF, FBX or .sinew file on the window."),
    };
    if state.error.is_some() && ui.button("Dismiss error").clicked() {
        state.error = None;
    }
    ui.separator();
    ui.horizontal(|ui| {
        let label = if state.is_paused() { "Play" } else { "Pause" };
        if ui.button(label).clicked() {
            report(state, |s| s.set_paused(!s.is_paused()));
        }
        if ui.button("|<").clicked() {
            report(state, |s| s.step(-1));
        }
        if ui.button(">|").clicked() {
            report(state, |s| s.step(1));
        }
        if ui.button("Frame").clicked() {
            i.frame = true;
        }
    });
    let mut speed = state.speed();
    if ui
        .add(egui::Slider::new(&mut speed, -2.0..=3.0).text("speed"))
        .changed()
    {
        report(state, |s| s.set_speed(speed));
    }
    ui.horizontal(|ui| {
        for (mode, name) in [
            (LoopMode::Loop, "loop"),
            (LoopMode::Clamp, "clamp"),
            (LoopMode::PingPong, "ping-pong"),
        ] {
            if ui.radio(state.loop_mode() == mode, name).clicked() {
                report(state, |s| s.set_loop_mode(mode));
            }
        }
    });

    ui.separator();
    ui.label("Clips (click to cross-fade)");
    ui.add(egui::Slider::new(&mut state.fade_seconds, 0.0..=2.0).text("fade s"));
    if let Some((true, weight)) = state.fade() {
        ui.add(egui::ProgressBar::new(weight).text("fading"));
    }
    for (k, (name, duration)) in (0u32..).zip(state.clip_list()) {
        let text = format!("{k}: {name} ({duration:.2} s)");
        if ui.selectable_label(state.clip() == Some(k), text).clicked() {
            report(state, |s| s.play_clip(k));
        }
    }

    ui.separator();
    layers(ui, state, view);
    morphs(ui, state);

    ui.separator();
    ui.label("Display");
    ui.checkbox(&mut state.show_bones, "bones");
    ui.checkbox(&mut state.show_joint_names, "joint names");
    ui.checkbox(&mut state.show_boxes, "animated boxes");
    ui.checkbox(&mut state.show_wireframe, "wireframe");
    ui.horizontal(|ui| {
        ui.radio_value(&mut state.skinning, SkinningMode::Linear, "linear");
        ui.radio_value(
            &mut state.skinning,
            SkinningMode::DualQuaternion,
            "dual quat",
        );
    });
    ui.horizontal(|ui| {
        for (backend, name) in [(ViewBackend::Cpu, "CPU"), (ViewBackend::Gpu, "GPU")] {
            if ui.radio(state.backend() == backend, name).clicked() {
                state.set_backend(backend);
            }
        }
    });
    ui.horizontal(|ui| {
        for (clips, name) in [
            (ViewClips::Exact, "exact"),
            (ViewClips::Compressed, "compressed"),
        ] {
            if ui.radio(state.clips() == clips, name).clicked() {
                report(state, |s| s.set_clips(clips));
            }
        }
    });
    if let (ViewClips::Compressed, Some(error)) = (state.clips(), state.compressed_error()) {
        ui.label(format!("measured error {:.3} mm", error * 1e3));
    }

    ui.separator();
    ui.label("Crowd");
    let mut characters = state.characters();
    if ui
        .add(egui::Slider::new(&mut characters, 1..=MAX_CHARACTERS).text("characters"))
        .changed()
    {
        report(state, |s| s.set_characters(characters));
    }
    ui.checkbox(&mut state.lod_colors, "LOD colours");
    if state.lod_colors {
        ui.horizontal(|ui| {
            for (level, c) in LOD_COLORS.iter().enumerate() {
                ui.colored_label(color(*c), format!("LOD {level}"));
            }
        });
    }
    timings(ui, &view.history);
}

fn layers(ui: &mut Ui, state: &mut ViewerState, view: &mut PanelView) {
    ui.label("Layers");
    let mut remove = None;
    for (k, layer) in state.layers().to_vec().iter().enumerate() {
        ui.horizontal(|ui| {
            let mut weight = layer.weight;
            let mask = layer.mask_root.as_deref().unwrap_or("all joints");
            let text = format!("clip {} on {mask}", layer.clip);
            if ui
                .add(egui::Slider::new(&mut weight, 0.0..=1.0).text(text))
                .changed()
            {
                report(state, |s| s.set_layer_weight(k, weight));
            }
            if ui.small_button("x").clicked() {
                remove = Some(k);
            }
        });
    }
    if let Some(k) = remove {
        report(state, |s| s.remove_layer(k));
    }
    let clips = state.clip_list();
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("layer clip")
            .selected_text(clips.get(view.layer_clip as usize).map_or("", |c| &c.0))
            .show_ui(ui, |ui| {
                for (k, (name, _)) in (0u32..).zip(&clips) {
                    ui.selectable_value(&mut view.layer_clip, k, name.as_str());
                }
            });
        ui.add(egui::TextEdit::singleline(&mut view.layer_mask).hint_text("mask joint"));
    });
    if ui.button("Add layer").clicked() {
        let mask = Some(view.layer_mask.trim()).filter(|m| !m.is_empty());
        let clip = view.layer_clip;
        report(state, |s| s.add_layer(clip, 1.0, mask));
    }
}

fn morphs(ui: &mut Ui, state: &mut ViewerState) {
    let targets = state.morph_targets();
    if targets.is_empty() {
        return;
    }
    ui.separator();
    ui.horizontal(|ui| {
        ui.label("Morph weights");
        if ui.small_button("animated").clicked() {
            state.clear_morph_weights();
        }
    });
    for (rig, weight, name) in targets {
        let mut value = state.morph_weight(rig, weight).unwrap_or(0.0);
        if ui
            .add(egui::Slider::new(&mut value, 0.0..=1.0).text(name))
            .changed()
        {
            report(state, |s| s.set_morph_weight(rig, weight, value));
        }
    }
}

fn timeline(ui: &mut Ui, state: &mut ViewerState, view: &mut PanelView) {
    let duration = state.duration();
    ui.horizontal(|ui| {
        ui.label(format!("{:.3} / {duration:.3} s", state.time()));
        ui.add(egui::TextEdit::singleline(&mut view.event_name).desired_width(100.0));
        if ui.button("Add event here").clicked() && !view.event_name.trim().is_empty() {
            let name = view.event_name.trim().to_string();
            report(state, |s| s.add_event_here(&name));
        }
    });
    let mut time = state.time();
    ui.spacing_mut().slider_width = ui.available_width() - 16.0;
    let response = ui.add(egui::Slider::new(&mut time, 0.0..=duration.max(1e-3)).show_value(false));
    if response.changed() {
        report(state, |s| s.scrub(time));
    }
    // Event markers under the slider's track.
    let rect = response.rect;
    let painter = ui.painter();
    for (t, name) in state.event_markers() {
        let x = rect.left() + rect.width() * (t / duration.max(1e-6));
        let top = Pos2::new(x, rect.bottom());
        painter.line_segment(
            [top, top + Vec2::new(0.0, 8.0)],
            Stroke::new(2.0, Color32::YELLOW),
        );
        painter.text(
            top + Vec2::new(2.0, 8.0),
            egui::Align2::LEFT_TOP,
            name,
            egui::FontId::proportional(10.0),
            Color32::YELLOW,
        );
    }
    ui.add_space(14.0);
}

/// Colours of the timing graph's series, by stage.
const SERIES_COLORS: [Color32; 4] = [
    Color32::from_rgb(110, 200, 255),
    Color32::from_rgb(140, 230, 120),
    Color32::from_rgb(200, 150, 255),
    Color32::from_rgb(255, 170, 90),
];

/// A small graph of the last frames' stage times: per-stage GPU time from timestamp queries
/// where the device has them, else wall time (each label says which).
fn timings(ui: &mut Ui, history: &VecDeque<FrameTimes>) {
    let last = history.back().copied().unwrap_or_default();
    for (k, (label, ms)) in last.stages().into_iter().enumerate() {
        let color = SERIES_COLORS[k % SERIES_COLORS.len()];
        ui.colored_label(color, format!("{label} {ms:.2} ms"));
    }
    let (rect, _) =
        ui.allocate_exact_size(Vec2::new(ui.available_width(), 60.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_gray(24));
    let series: Vec<Vec<f64>> = history
        .iter()
        .map(|t| t.stages().into_iter().map(|(_, ms)| ms).collect())
        .collect();
    let top = series.iter().flatten().copied().fold(1.0, f64::max);
    let point = |k: usize, ms: f64| {
        Pos2::new(
            rect.left() + rect.width() * k as f32 / HISTORY as f32,
            rect.bottom() - rect.height() * (ms / top) as f32,
        )
    };
    let stages = last.stages().len();
    for (s, color) in (0..stages).zip(SERIES_COLORS.iter().cycle()) {
        // A frame whose stages differ (timestamps arriving) breaks no line: it reads 0.
        let points: Vec<Pos2> = series
            .iter()
            .enumerate()
            .map(|(k, t)| point(k, t.get(s).copied().unwrap_or(0.0)))
            .collect();
        painter.add(egui::Shape::line(points, Stroke::new(1.5, *color)));
    }
}

/// Animated boxes and joint names over the stage image.
fn overlays(ui: &Ui, rect: Rect, camera: &Camera, state: &ViewerState, stage: &StageInfo<'_>) {
    let (bounds, joints) = (stage.bounds, stage.joints);
    let painter = ui.painter_at(rect);
    let to_screen = |p: Vec3| {
        let (x, y, visible) = camera.to_pixel(p, rect.width() as u32, rect.height() as u32);
        visible.then(|| rect.left_top() + Vec2::new(x, y))
    };
    if state.show_boxes {
        for b in bounds.iter().filter(|b| !b.is_empty()) {
            let corner = |i: usize| {
                Vec3::new(
                    if i & 1 == 0 { b.min[0] } else { b.max[0] },
                    if i & 2 == 0 { b.min[1] } else { b.max[1] },
                    if i & 4 == 0 { b.min[2] } else { b.max[2] },
                )
            };
            for (a, c) in BOX_EDGES {
                if let (Some(p), Some(q)) = (to_screen(corner(a)), to_screen(corner(c))) {
                    painter.line_segment([p, q], Stroke::new(1.0, Color32::LIGHT_GREEN));
                }
            }
        }
    }
    if state.show_joint_names {
        for (name, p) in joints {
            if let Some(at) = to_screen(*p) {
                painter.circle_filled(at, 2.0, Color32::WHITE);
                painter.text(
                    at + Vec2::new(3.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    name,
                    egui::FontId::proportional(10.0),
                    Color32::WHITE,
                );
            }
        }
    }
}

/// The twelve edges of a box, as pairs of corner indices (bit 0: x, 1: y, 2: z).
const BOX_EDGES: [(usize, usize); 12] = [
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
];

fn color(c: [f32; 3]) -> Color32 {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    Color32::from_rgb(byte(c[0]), byte(c[1]), byte(c[2]))
}
