//! CPU evaluator throughput in joints per second: sample 2 clips + cross-fade blend +
//! local-to-model + skin matrices + animated AABB, every instance at its own time, all cores.
//!
//! Rigs: the 64-joint synthetic rig and the shipped humanoid from `assets/`, plus Fox from
//! `../shared/gltf` when present.

use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sinew::{Aabb, CpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig};

fn load(path: &Path) -> Option<Rig> {
    let asset = sinew::import_file(path).ok()?;
    sinew::bake_rigs(&asset).ok()?.into_iter().next()
}

fn rigs() -> Vec<(String, Rig)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("assets/synthetic/rig64.glb"),
        root.join("assets/humanoid.glb"),
        root.join("../shared/gltf/Fox.glb"),
    ]
    .iter()
    .filter_map(|p| {
        let rig = load(p)?;
        Some((p.file_stem()?.to_string_lossy().into_owned(), rig))
    })
    .collect()
}

/// `count` instances, each cross-fading clip 0 into clip 1 (or clip 0 with itself) at 30 %.
fn crossfade_instances(rig: &Rig, count: usize) -> Vec<InstanceRecord> {
    let joints = rig.joint_count() as u32;
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
            InstanceRecord::new(0, i as u32 * joints, &glam::Affine3A::IDENTITY, &layers).unwrap()
        })
        .collect()
}

fn evaluate(c: &mut Criterion) {
    for (name, rig) in rigs() {
        let mut group = c.benchmark_group(format!("cpu/{name}/crossfade"));
        group.sample_size(10);
        let joints = rig.joint_count();
        let mut backend = CpuBackend::new(vec![rig.clone()], Vec::new());
        for count in [1usize, 100, 1_000, 10_000, 100_000] {
            let instances = crossfade_instances(&rig, count);
            let mut palette = vec![Mat3x4Rows::IDENTITY; count * joints];
            let mut aabbs = vec![Aabb::EMPTY; count];
            group.throughput(Throughput::Elements((count * joints) as u64));
            group.bench_function(BenchmarkId::from_parameter(count), |b| {
                b.iter(|| backend.evaluate(&instances, &mut palette, &mut aabbs).unwrap())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, evaluate);
criterion_main!(benches);
