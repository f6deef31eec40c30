//! `sinew render`: one character in one pose, lit and shadowed on a ground plane, optionally
//! with its skeleton drawn over it, framed from its animated AABB and written to a PNG.

use glam::{Affine3A, Vec3};

use super::Args;
use sinew::render::{
    BoneOverlay, Camera, RenderTarget, Renderer, Scene, ShadowSettings, SkinnedBatch,
    SkinnedBatchDesc, SkinnedInstance, SkinningMode, StaticMesh, bounding_sphere,
};
use sinew::{Aabb, CpuBackend, GpuBackend, GpuContext, InstanceRecord, Layer, Mat3x4Rows};

/// Mesh colours (linear rgb), one per mesh of the rig, repeating.
const MESH_COLORS: [[f32; 3]; 6] = [
    [0.80, 0.42, 0.26],
    [0.30, 0.50, 0.78],
    [0.42, 0.68, 0.36],
    [0.85, 0.72, 0.30],
    [0.62, 0.40, 0.72],
    [0.80, 0.80, 0.78],
];

const USAGE: &str = "usage: sinew render FILE --anim N --time T --out PNG [--bones] [--size PX] \
                     [--skinning linear|dq] [--backend cpu|gpu]";

pub fn run(args: &[String]) -> Result<(), String> {
    let args = Args::parse(
        args,
        &[
            "--anim",
            "--time",
            "--out",
            "--size",
            "--skinning",
            "--backend",
        ],
        &["--bones"],
    )
    .map_err(|e| format!("{e}\n{USAGE}"))?;
    let file = args.file().map_err(|e| format!("{e}\n{USAGE}"))?;
    let anim: usize = parse(&args, "--anim")?;
    let time: f32 = parse(&args, "--time")?;
    if !time.is_finite() {
        return Err(format!("--time {time} is not a finite number"));
    }
    let out = args
        .value("--out")
        .ok_or_else(|| format!("missing --out PNG\n{USAGE}"))?;
    let size: u32 = match args.value("--size") {
        Some(_) => parse(&args, "--size")?,
        None => 512,
    };
    if !(16..=4096).contains(&size) {
        return Err(format!("--size {size}: expected 16 to 4096 pixels"));
    }
    let skinning = match args.value("--skinning").unwrap_or("linear") {
        "linear" => SkinningMode::Linear,
        "dq" => SkinningMode::DualQuaternion,
        other => return Err(format!("--skinning {other:?}: expected linear or dq")),
    };
    let use_gpu = match args.value("--backend").unwrap_or("cpu") {
        "cpu" => false,
        "gpu" => true,
        other => return Err(format!("--backend {other:?}: expected cpu or gpu")),
    };

    let asset = sinew::import_file(file).map_err(|e| e.to_string())?;
    let rigs = sinew::bake_rigs(&asset).map_err(|e| e.to_string())?;
    // Every rig with a skinned mesh: a character may be split over several skins.
    let drawn: Vec<usize> = (0..rigs.len())
        .filter(|&r| !rigs[r].meshes.is_empty())
        .collect();
    let Some(&first) = drawn.first() else {
        return Err(format!("{file}: no skinned mesh to render"));
    };
    let clip_count = rigs[first].clips.clip_count();
    if anim >= clip_count {
        return Err(format!(
            "--anim {anim}: {file} has {clip_count} animation(s)"
        ));
    }

    let context = GpuContext::new_headless().map_err(|e| e.to_string())?;
    let (device, queue) = (&context.device, &context.queue);
    let renderer = Renderer::new(device).map_err(|e| e.to_string())?;

    // One instance per drawn rig, palette blocks one after another (or allocated by the GPU
    // backend), box k for instance k.
    let mut offsets = Vec::with_capacity(drawn.len());
    let mut next = 0u32;
    for &r in &drawn {
        offsets.push(next);
        next += rigs[r].palette_entries() as u32;
    }
    let mut gpu_backend = if use_gpu {
        Some(GpuBackend::new(&context, &rigs, &[]).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if let Some(backend) = gpu_backend.as_mut() {
        for (k, &r) in drawn.iter().enumerate() {
            offsets[k] = backend
                .allocate(r as u32)
                .map_err(|e| e.to_string())?
                .offset;
        }
    }
    let records = drawn
        .iter()
        .zip(&offsets)
        .map(|(&r, &offset)| {
            InstanceRecord::new(
                r as u32,
                offset,
                &Affine3A::IDENTITY,
                &[Layer::clip(anim as u32, time)],
            )
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;

    // The palette and boxes: evaluated on the GPU straight into its buffers, or on the CPU and
    // uploaded into buffers of the same shape.
    let uploaded;
    let (palette, aabbs, bounds) = match gpu_backend.as_mut() {
        Some(backend) => {
            backend.evaluate(&records).map_err(|e| e.to_string())?;
            let bounds = backend
                .read_bounds(0..records.len())
                .map_err(|e| e.to_string())?;
            let backend = &*backend;
            (backend.palette_buffer(), backend.bounds_buffer(), bounds)
        }
        None => {
            let mut cpu = CpuBackend::new(rigs.clone(), Vec::new());
            let mut palette = vec![Mat3x4Rows::IDENTITY; next as usize];
            let mut bounds = vec![Aabb::EMPTY; records.len()];
            cpu.evaluate(&records, &mut palette, &mut bounds)
                .map_err(|e| e.to_string())?;
            let palette_buffer = sinew::render::create_palette_buffer(device, palette.len())
                .map_err(|e| e.to_string())?;
            sinew::render::write_palette(queue, &palette_buffer, 0, &palette)
                .map_err(|e| e.to_string())?;
            let aabb_buffer = sinew::render::create_aabb_buffer(device, bounds.len())
                .map_err(|e| e.to_string())?;
            sinew::render::write_aabbs(queue, &aabb_buffer, 0, &bounds)
                .map_err(|e| e.to_string())?;
            uploaded = (palette_buffer, aabb_buffer);
            (&uploaded.0, &uploaded.1, bounds)
        }
    };
    let mut aabb = Aabb::EMPTY;
    for b in &bounds {
        aabb.merge(b);
    }
    if aabb.is_empty() {
        return Err(format!(
            "{file}: the animated box is empty; nothing to frame"
        ));
    }

    let mut batches = Vec::with_capacity(drawn.len());
    let mut overlays = Vec::new();
    let mut color = 0;
    for (k, &r) in drawn.iter().enumerate() {
        let rig = &rigs[r];
        let colors: Vec<[f32; 3]> = (0..rig.meshes.len())
            .map(|m| MESH_COLORS[(color + m) % MESH_COLORS.len()])
            .collect();
        color += rig.meshes.len();
        let mut batch = SkinnedBatch::new(
            device,
            &renderer,
            &SkinnedBatchDesc {
                label: &rig.name,
                meshes: &rig.meshes,
                mesh_colors: &colors,
                capacity: 1,
                palette,
                aabbs,
                preskin: false,
            },
        )
        .map_err(|e| e.to_string())?;
        batch
            .write_instances(
                queue,
                &[SkinnedInstance::new(
                    offsets[k],
                    rig.joint_count() as u32,
                    k as u32,
                    [1.0; 3],
                )],
            )
            .map_err(|e| e.to_string())?;
        batches.push(batch);
        if args.has("--bones") {
            overlays.push(
                BoneOverlay::new(
                    device,
                    &renderer,
                    &rig.skeleton,
                    palette,
                    offsets[k],
                    [1.0, 0.85, 0.1],
                )
                .map_err(|e| e.to_string())?,
            );
        }
    }

    let (center, radius) = bounding_sphere(&aabb);
    let floor = Vec3::new(center.x, aabb.min[1], center.z);
    let ground = StaticMesh::ground_plane(
        device,
        queue,
        &renderer,
        floor,
        radius * 2.5,
        [0.55, 0.55, 0.52],
    )
    .map_err(|e| e.to_string())?;
    let mut shadow_bounds = aabb;
    shadow_bounds.grow(floor + Vec3::new(radius, 0.0, radius));
    shadow_bounds.grow(floor - Vec3::new(radius, 0.0, radius));

    let target =
        RenderTarget::new(device, &renderer, size, size, 2048).map_err(|e| e.to_string())?;
    let camera = Camera::frame_aabb(&aabb, Vec3::new(0.45, 0.3, 1.0), 0.7, target.aspect());
    let batch_refs: Vec<&SkinnedBatch> = batches.iter().collect();
    let statics = [&ground];
    let overlay_refs: Vec<&BoneOverlay> = overlays.iter().collect();
    let scene = Scene {
        shadow: Some(ShadowSettings::covering(shadow_bounds)),
        skinned: &batch_refs,
        statics: &statics,
        bones: &overlay_refs,
        skinning,
        ..Scene::new(camera)
    };
    renderer
        .render(device, queue, &target, &scene)
        .map_err(|e| e.to_string())?;
    target
        .save_png(device, queue, out)
        .map_err(|e| e.to_string())?;
    let clip_name = &rigs[first].clips.clips()[anim].name;
    let names: Vec<String> = drawn
        .iter()
        .map(|&r| format!("{:?} ({} joints)", rigs[r].name, rigs[r].joint_count()))
        .collect();
    super::print(&format!(
        "wrote {out} ({size}x{size}): {}, animation {anim} ({clip_name:?}) at {time} s, {} backend, {}",
        names.join(", "),
        if use_gpu { "gpu" } else { "cpu" },
        context.adapter_summary()
    ))
}

fn parse<T: std::str::FromStr>(args: &Args, flag: &str) -> Result<T, String> {
    let value = args
        .value(flag)
        .ok_or_else(|| format!("missing {flag}\n{USAGE}"))?;
    value
        .parse()
        .map_err(|_| format!("{flag} {value:?} is not a valid value"))
}
