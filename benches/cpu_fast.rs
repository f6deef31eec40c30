//! Exact, fast and compressed-clip CPU evaluation, side by side, in joints per second: sample 2
//! clips + cross-fade blend + local-to-model + skin matrices + animated AABB, every instance at
//! its own time, on all cores (`RAYON_NUM_THREADS=1` for one). The fast backend resamples clips
//! at 30 Hz, with the fastest kernel the CPU runs ("fast") and with the portable one
//! ("fast-portable"); "compressed" is the exact backend sampling the compressed clips the GPU decodes.
//!
//! Rigs: the 64-joint synthetic rig (the closest to ozz-animation's 67-joint sample skeleton)
//! and the shipped humanoid, at 10,000 and 100,000 instances.

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::cpu::fast::DEFAULT_RATE;
use sinew::{Aabb, CpuBackend, FastCpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig};

fn load(path: &Path) -> Rig {
    let asset = sinew::import_file(path).unwrap();
    sinew::bake_rigs(&asset).unwrap().remove(0)
}

/// `count` instances, each cross-fading clip 0 into clip 1 at 30 %, at its own phase.
fn crossfade_instances(rig: &Rig, count: usize) -> Vec<InstanceRecord> {
    let block = rig.palette_entries() as u32;
    let clips = rig.clips.clips();
    let second = (clips.len() > 1) as u32;
    (0..count)
        .map(|i| {
            let phase = (i as f32 * 0.618).fract();
            let layers = [
                Layer::clip(0, phase * clips[0].duration),
                Layer {
                    weight: 0.3,
                    ..Layer::clip(second, phase * clips[second as usize].duration)
                },
            ];
            InstanceRecord::new(0, i as u32 * block, &glam::Affine3A::IDENTITY, &layers).unwrap()
        })
        .collect()
}

fn exact_vs_fast(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["assets/synthetic/rig64.glb", "assets/humanoid.glb"] {
        let path = root.join(file);
        let rig = load(&path);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let joints = rig.joint_count();
        let block = rig.palette_entries();
        let mut exact = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
        let mut fast = FastCpuBackend::from_exact(&exact, DEFAULT_RATE);
        // The kernel built for the compile target alone, where the CPU would run a faster one.
        let mut portable = fast.clone();
        portable.use_portable_kernel();
        // The compressed clips the GPU decodes, sampled by the exact evaluator's stages: the
        // layout the fast mode is measured against.
        let mut compressed = CpuBackend::with_compressed(vec![rig.clone()], Vec::new()).unwrap();
        let mut group = c.benchmark_group(format!("cpu_fast/{name}/crossfade"));
        group.sample_size(10);
        for count in [10_000usize, 100_000] {
            let instances = crossfade_instances(&rig, count);
            let mut palette = vec![Mat3x4Rows::IDENTITY; count * block];
            let mut aabbs = vec![Aabb::EMPTY; count];
            group.throughput(Throughput::Elements((count * joints) as u64));
            group.bench_function(BenchmarkId::new("exact", count), |b| {
                b.iter(|| {
                    exact
                        .evaluate(&instances, &mut palette, &mut aabbs)
                        .unwrap()
                })
            });
            group.bench_function(BenchmarkId::new("fast", count), |b| {
                b.iter(|| fast.evaluate(&instances, &mut palette, &mut aabbs).unwrap())
            });
            group.bench_function(BenchmarkId::new("fast-portable", count), |b| {
                b.iter(|| {
                    portable
                        .evaluate(&instances, &mut palette, &mut aabbs)
                        .unwrap()
                })
            });
            group.bench_function(BenchmarkId::new("compressed", count), |b| {
                b.iter(|| {
                    compressed
                        .evaluate(&instances, &mut palette, &mut aabbs)
                        .unwrap()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, exact_vs_fast);
criterion_main!(benches);
