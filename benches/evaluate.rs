//! CPU and GPU evaluators side by side, in joints per second: every instance samples its clips,
//! blends, propagates, writes skin matrices and its animated AABB. One layer (a single clip) and
//! a two-layer cross-fade, at 1 to 100,000 instances, for Fox (`../shared/gltf`) and the 64-joint
//! synthetic rig (`assets/synthetic`). A GPU iteration is one frame: upload the records, one
//! dispatch, and wait for the GPU to finish. The GPU half is skipped without an adapter.

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::{Aabb, CpuBackend, GpuBackend, GpuContext, InstanceRecord, Layer, Mat3x4Rows, Rig};

const COUNTS: [usize; 5] = [1, 100, 1_000, 10_000, 100_000];

fn load(path: &Path) -> Option<Rig> {
    let asset = sinew::import_file(path).ok()?;
    sinew::bake_rigs(&asset).ok()?.into_iter().next()
}

fn rigs() -> Vec<(String, Rig)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("../shared/gltf/Fox.glb"),
        root.join("assets/synthetic/rig64.glb"),
    ]
    .iter()
    .filter_map(|p| {
        let rig = load(p)?;
        Some((p.file_stem()?.to_string_lossy().into_owned(), rig))
    })
    .collect()
}

/// `count` instances at spread-out times: clip 0 alone, or cross-fading into clip 1 at 30 %.
fn instances(rig: &Rig, count: usize, layers: usize) -> Vec<InstanceRecord> {
    let block = rig.palette_entries() as u32;
    let clips = rig.clips.clips();
    let second = u32::from(clips.len() > 1);
    (0..count)
        .map(|i| {
            let phase = (i as f32 * 0.618).fract();
            let all = [
                Layer::clip(0, phase * clips[0].duration),
                Layer {
                    weight: 0.3,
                    ..Layer::clip(second, phase * clips[second as usize].duration)
                },
            ];
            InstanceRecord::new(
                0,
                i as u32 * block,
                &glam::Affine3A::IDENTITY,
                &all[..layers],
            )
            .unwrap()
        })
        .collect()
}

fn gpu_vs_cpu(c: &mut Criterion) {
    let gpu = match GpuContext::new_headless() {
        Ok(ctx) => {
            eprintln!("GPU: {}", ctx.adapter_summary());
            Some(ctx)
        }
        Err(e) => {
            eprintln!("skipping the GPU half: {e}");
            None
        }
    };
    for (name, rig) in rigs() {
        let joints = rig.joint_count();
        let block = rig.palette_entries();
        for (layers, label) in [(1, "1-layer"), (2, "crossfade")] {
            let mut group = c.benchmark_group(format!("{name}/{label}"));
            group.sample_size(10);
            let mut cpu = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
            let mut backend = gpu
                .as_ref()
                .map(|ctx| GpuBackend::new(ctx, std::slice::from_ref(&rig), &[]).unwrap());
            for count in COUNTS {
                let records = instances(&rig, count, layers);
                group.throughput(Throughput::Elements((count * joints) as u64));
                let mut palette = vec![Mat3x4Rows::IDENTITY; count * block];
                let mut bounds = vec![Aabb::EMPTY; count];
                group.bench_with_input(BenchmarkId::new("cpu", count), &records, |b, records| {
                    b.iter(|| cpu.evaluate(records, &mut palette, &mut bounds).unwrap());
                });
                if let Some(backend) = backend.as_mut() {
                    backend.reserve_palette((count * block) as u32).unwrap();
                    group.bench_with_input(
                        BenchmarkId::new("gpu", count),
                        &records,
                        |b, records| {
                            b.iter(|| {
                                backend.evaluate(records).unwrap();
                                backend.wait().unwrap();
                            });
                        },
                    );
                }
            }
            group.finish();
        }
    }
}

criterion_group!(benches, gpu_vs_cpu);
criterion_main!(benches);
