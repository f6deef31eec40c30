//! What retargeting costs the GPU kernel: the same crowd of humanoids evaluated playing their
//! own clip, the humanoid's clip through a retarget map (onto itself: every joint matched, its
//! entry read and applied), and through the map's mirror, frames interleaved so that each mode
//! sees the same machine. Prints joints per second per mode.
//!
//! ```text
//! cargo run --example retarget_cost -- [CHARACTERS] [FRAMES]
//! ```
//!
//! Without a GPU adapter it prints why and exits 0.

use std::time::{Duration, Instant};

use glam::Affine3A;
use sinew::baked::retarget_map::RetargetMap;
use sinew::gpu::RetargetBinding;
use sinew::{GpuBackend, GpuContext, InstanceRecord, LayerRecord, TimeWrap};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let characters: usize = args.next().map_or(Ok(4096), |a| a.parse())?;
    let frames: usize = args.next().map_or(Ok(60), |a| a.parse())?;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/humanoid.glb");
    let mut rigs = sinew::bake_rigs(&sinew::import_file(path)?)?;
    rigs.truncate(1);
    let context = match GpuContext::new_headless() {
        Ok(c) => c,
        Err(e) => {
            println!("no GPU adapter: {e}");
            return Ok(());
        }
    };
    let map = RetargetMap::build(&rigs[0].skeleton, &rigs[0].skeleton, None)?;
    let binding = RetargetBinding::new(&rigs, 0, 0, map)?;
    let mut backend = GpuBackend::new(&context, &rigs, &[])?;
    backend.set_retargets(&rigs, &[], &[binding])?;
    let n = rigs[0].joint_count();
    let clip = 1.min(rigs[0].clips.clip_count() - 1);
    let duration = rigs[0].clips.clips()[clip].duration;
    let modes: [(&str, u32, u32); 3] = [
        ("own clip", clip as u32, 0),
        ("retargeted", LayerRecord::retargeted(clip as u16, 0), 0),
        (
            "retargeted, mirrored",
            LayerRecord::retargeted(clip as u16, 0),
            LayerRecord::MIRROR,
        ),
    ];
    let records: Vec<Vec<InstanceRecord>> = modes
        .iter()
        .map(|&(_, word, flags)| {
            (0..characters)
                .map(|i| {
                    let mut r =
                        InstanceRecord::new(0, (i * n) as u32, &Affine3A::IDENTITY, &[]).unwrap(); // ok: no layers
                    r.layer_count = 1;
                    let mut layer = LayerRecord::STILL.with_clock(
                        i as f32 * 0.013,
                        0.0,
                        1.0,
                        TimeWrap::Loop,
                        duration,
                    );
                    layer.clip = word;
                    layer.flags |= flags;
                    r.layers[0] = layer;
                    r
                })
                .collect()
        })
        .collect();
    backend.reserve_palette((characters * n) as u32)?;
    let mut spent = [Duration::ZERO; 3];
    for frame in 0..frames + 2 {
        for (m, recs) in records.iter().enumerate() {
            let start = Instant::now();
            backend.evaluate_at(frame as f32 / 60.0, recs)?;
            backend.read_palette(0..1)?;
            if frame >= 2 {
                spent[m] += start.elapsed();
            }
        }
    }
    let joints = (characters * n * frames) as f64;
    println!("{characters} humanoids ({n} joints), {frames} frames per mode, interleaved");
    for ((name, _, _), t) in modes.iter().zip(spent) {
        let rate = joints / t.as_secs_f64();
        let ratio = spent[0].as_secs_f64() / t.as_secs_f64();
        println!(
            "{name:>22}: {:8.2} M joints/s ({:.3}× own clip)",
            rate / 1e6,
            ratio
        );
    }
    Ok(())
}
