//! What an inertialized transition saves against a cross-fade: a crowd of humanoids that are
//! all in transition all the time (each starts a new one every `DURATION`, staggered so that a
//! share of them starts on every frame), evaluated as cross-fades (two layers sampled per
//! joint) and as inertialized transitions (one layer, plus the capture on a transition's first
//! frame), and playing one clip without a transition (the floor), frames interleaved so that
//! each mode sees the same machine. Prints the joints each
//! mode samples per transitioning character per frame, the GPU evaluate pass time (timestamp
//! queries, where the adapter has them) and the CPU backend's time per frame.
//!
//! ```text
//! cargo run --release --example inertial_cost -- [CHARACTERS] [FRAMES] [CPU_CHARACTERS]
//! ```
//!
//! Without a GPU adapter it measures the CPU backend alone.

use std::time::{Duration, Instant};

use glam::Affine3A;
use sinew::{
    Aabb, CpuBackend, GpuBackend, GpuContext, Inertialization, InstanceRecord, LayerRecord,
    Mat3x4Rows, TimeWrap, inertial_block_entries,
};

/// Seconds of each transition; characters start one every this long.
const DURATION: f32 = 0.3;
/// Frame step.
const DT: f32 = 1.0 / 60.0;

/// Frames per transition.
fn frames_per_transition() -> usize {
    (DURATION / DT).round() as usize
}

/// Character `i`'s record at frame `frame` in `mode` (0: cross-fade, 1: inertialized): in a
/// transition from `from` to `to` that started at its last start frame; mode 2 plays `to`
/// alone (no transition: the floor).
/// Character `i`'s inertialization block starts at entry `blocks_from + i × (1 + 2n)`.
fn record(
    mode: usize,
    i: usize,
    frame: usize,
    n: usize,
    blocks_from: usize,
    clips: (u32, u32, f32),
) -> InstanceRecord {
    let (from, to, period) = clips;
    let per = frames_per_transition();
    let started = frame - (frame + i) % per;
    let start = started as f32 * DT;
    let serial = (started / per + 1) as u32;
    let layer = |clip: u32, anchor: f32| {
        let mut l =
            LayerRecord::STILL.with_clock(i as f32 * 0.013, anchor, 1.0, TimeWrap::Loop, period);
        l.clip = clip;
        l
    };
    let mut rec = InstanceRecord::new(0, (i * n) as u32, &Affine3A::IDENTITY, &[]).unwrap(); // ok: no layers
    if mode == 2 {
        rec.layer_count = 1;
        rec.layers[0] = layer(to, 0.0);
        return rec;
    }
    if mode == 0 {
        rec.layer_count = 2;
        rec.layers[0] = layer(from, 0.0);
        rec.layers[1] = layer(to, start).with_fade(0.0, start, 1.0 / DURATION, 1.0);
        rec.layers[1].weight = 1.0;
        return rec;
    }
    rec.layer_count = 1;
    rec.layers[0] = layer(to, start);
    let t = Inertialization {
        block: (blocks_from + i * inertial_block_entries(n as u32) as usize) as u32,
        serial,
        start,
        duration: DURATION,
        outgoing: 0,
        chained: false,
    };
    rec.inertialized(&[layer(from, 0.0)], t).unwrap() // ok: three layer slots of four
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let characters: usize = args.next().map_or(Ok(16384), |a| a.parse())?;
    let frames: usize = args.next().map_or(Ok(120), |a| a.parse())?;
    let cpu_characters: usize = args.next().map_or(Ok(1024), |a| a.parse())?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/humanoid.glb");
    let mut rigs = sinew::bake_rigs(&sinew::import_file(path)?)?;
    rigs.truncate(1);
    let n = rigs[0].joint_count();
    if rigs[0].palette_entries() != n {
        return Err("the humanoid's palette blocks hold more than its joints".into());
    }
    let count = rigs[0].clips.clip_count() as u32;
    let clips = (
        0,
        1.min(count - 1),
        rigs[0].clips.clips()[0].duration.max(0.1),
    );
    let per = frames_per_transition();
    println!(
        "humanoid ({n} joints), transitions of {DURATION} s ({per} frames), a new one every \
         {DURATION} s per character"
    );
    println!(
        "joints sampled per transitioning character per frame: cross-fade {}, inertialized {:.1} \
         ({n} + 4 × {n} on the first of {per} frames)",
        2 * n,
        n as f64 * (1.0 + 4.0 / per as f64)
    );
    let names = ["cross-fade", "inertialized", "no transition"];
    match GpuContext::new_headless() {
        Ok(context) => {
            let mut backends = [
                GpuBackend::new(&context, &rigs, &[])?,
                GpuBackend::new(&context, &rigs, &[])?,
                GpuBackend::new(&context, &rigs, &[])?,
            ];
            let mut timed = true;
            for b in &mut backends {
                timed &= b.enable_timing()?;
            }
            let mut gpu_ms = [0.0f64; 3];
            let mut wall = [Duration::ZERO; 3];
            for b in &mut backends {
                b.reserve_palette((characters * (3 * n + 1)) as u32)?;
            }
            for frame in per..per + frames + 2 {
                for (m, backend) in backends.iter_mut().enumerate() {
                    let recs: Vec<_> = (0..characters)
                        .map(|i| record(m, i, frame, n, characters * n, clips))
                        .collect();
                    let start = Instant::now();
                    backend.evaluate_at(frame as f32 * DT, &recs)?;
                    backend.wait()?;
                    if frame >= per + 2 {
                        wall[m] += start.elapsed();
                        gpu_ms[m] += backend.last_gpu_ms()?.unwrap_or(0.0);
                    }
                }
            }
            println!(
                "GPU {} ({characters} characters, {frames} frames per mode, interleaved)",
                context.adapter_info.name
            );
            for m in 0..3 {
                let pass = if timed {
                    format!("{:.3} ms evaluate pass", gpu_ms[m] / frames as f64)
                } else {
                    "no timestamp queries".into()
                };
                println!(
                    "{:>13}: {pass}, {:.3} ms per frame with upload and wait ({:.3}× cross-fade)",
                    names[m],
                    wall[m].as_secs_f64() * 1e3 / frames as f64,
                    gpu_ms[0] / gpu_ms[m]
                );
            }
        }
        Err(e) => println!("no GPU adapter: {e}"),
    }
    let mut cpus = [
        CpuBackend::new(rigs.clone(), Vec::new())?,
        CpuBackend::new(rigs.clone(), Vec::new())?,
        CpuBackend::new(rigs.clone(), Vec::new())?,
    ];
    let mut palette = vec![Mat3x4Rows::IDENTITY; cpu_characters * (3 * n + 1)];
    let mut boxes = vec![Aabb::EMPTY; cpu_characters];
    let mut spent = [Duration::ZERO; 3];
    for frame in per..per + frames + 2 {
        for (m, cpu) in cpus.iter_mut().enumerate() {
            let recs: Vec<_> = (0..cpu_characters)
                .map(|i| record(m, i, frame, n, cpu_characters * n, clips))
                .collect();
            let start = Instant::now();
            cpu.evaluate_at(frame as f32 * DT, &recs, &mut palette, &mut boxes)?;
            if frame >= per + 2 {
                spent[m] += start.elapsed();
            }
        }
    }
    println!(
        "CPU backend ({cpu_characters} characters, {} threads, {frames} frames per mode, interleaved)",
        std::thread::available_parallelism().map_or(1, |p| p.get())
    );
    for m in 0..3 {
        println!(
            "{:>13}: {:.3} ms per frame ({:.3}× cross-fade)",
            names[m],
            spent[m].as_secs_f64() * 1e3 / frames as f64,
            spent[0].as_secs_f64() / spent[m].as_secs_f64()
        );
    }
    Ok(())
}
