//! Every asset: every clip at sampled times.

use glam::{Affine3A, Mat4};
use sinew::{GpuBackend, Layer, Mat3x4Rows};

use super::common::Rng;
use super::fixtures::{all_assets, every_clip_items, gpu, load};
use super::oracle::{assert_backend_matches_cpu, assert_transform_close, pack};

#[test]
fn every_asset_matches_cpu_on_every_clip_and_time() {
    let Some(ctx) = gpu() else { return };
    let mut rng = Rng(1);
    let files = all_assets();
    assert!(!files.is_empty());
    for path in files {
        let rigs = load(&path);
        let items = every_clip_items(&rigs, &mut rng);
        let records = pack(&rigs, &items);
        let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
            let (r, _, _, layers) = &items[i];
            format!("{name} rig {r} layers {layers:?}")
        });
        // Model matrices recovered by readback agree with the CPU's.
        let chosen: Vec<usize> = (0..records.len()).step_by(7).collect();
        for read in backend.read_instances(&records, &chosen).unwrap() {
            let rec = &records[read.record];
            let rig = &rigs[rec.rig as usize];
            let n = rig.joint_count();
            let mut models = vec![Affine3A::IDENTITY; n];
            let mut palette = vec![Mat3x4Rows::IDENTITY; n];
            let layers: Vec<Layer> = rec.layers_at(0.0).collect();
            sinew::cpu::evaluate_pose(
                rig,
                &[],
                &layers,
                &rec.world.to_affine(),
                &mut models,
                &mut palette,
            );
            assert_eq!(read.models.len(), n);
            for (j, (got, expected)) in read.models.iter().zip(&models).enumerate() {
                assert_transform_close(
                    &Mat4::from(*got).to_cols_array(),
                    &Mat4::from(*expected).to_cols_array(),
                    &format!("{name} record {} joint {j} model", read.record),
                );
            }
        }
    }
}
