//! The fast evaluator's joint LOD against the exact one: each lane samples the joints of its
//! record's LOD level and holds the others at rest, in groups that mix levels.

use glam::{Affine3A, Quat, Vec3};
use sinew::{Aabb, CpuBackend, FastCpuBackend, InstanceRecord, Layer, Mat3x4Rows, UpdateRate};

use super::{Evaluated, assert_within_shipped_bound, humanoid};

#[test]
fn lod_levels_hold_the_dropped_joints_at_rest_as_the_exact_evaluator_does() {
    let rig = humanoid();
    let entries = rig.palette_entries();
    // Eleven instances (a full group and a partial one), LOD levels 0 to 3 mixed in each.
    let records: Vec<InstanceRecord> = (0..11usize)
        .map(|i| {
            let world = Affine3A::from_rotation_translation(
                Quat::from_rotation_y(0.3 * i as f32),
                Vec3::new(i as f32, 0.0, 0.0),
            );
            let layers = [Layer::clip(1 + (i % 2) as u32, 0.11 * i as f32)];
            InstanceRecord::new(0, (i * entries) as u32, &world, &layers)
                .unwrap()
                .with_lod(UpdateRate::EveryFrame, (i % 4) as u32, false)
        })
        .collect();
    let evaluate = |records: &[InstanceRecord]| {
        let mut fast = FastCpuBackend::new(vec![rig.clone()], Vec::new(), 30.0).unwrap();
        let mut palette = vec![Mat3x4Rows::IDENTITY; entries * records.len()];
        let mut boxes = vec![Aabb::EMPTY; records.len()];
        fast.evaluate(records, &mut palette, &mut boxes).unwrap();
        (palette, boxes)
    };
    let (fast_palette, fast_boxes) = evaluate(&records);
    let full: Vec<InstanceRecord> = records
        .iter()
        .map(|r| r.with_lod(UpdateRate::EveryFrame, 0, false))
        .collect();
    let (full_palette, _) = evaluate(&full);

    let mut exact = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    let mut exact_palette = vec![Mat3x4Rows::IDENTITY; entries * records.len()];
    let mut exact_boxes = vec![Aabb::EMPTY; records.len()];
    exact
        .evaluate(&records, &mut exact_palette, &mut exact_boxes)
        .unwrap();

    assert_within_shipped_bound(
        &rig,
        Evaluated {
            palette: &exact_palette,
            boxes: &exact_boxes,
        },
        Evaluated {
            palette: &fast_palette,
            boxes: &fast_boxes,
        },
    );
    for (k, record) in records.iter().enumerate() {
        // Above level 0 some joints are held at rest: the pose differs from the full one.
        let sampled = rig.skeleton.lod_sampled_joints(record.lod_level());
        let block = k * entries..k * entries + rig.joint_count();
        let same = fast_palette[block.clone()] == full_palette[block];
        assert_eq!(
            same,
            sampled == rig.joint_count(),
            "instance {k}: level {}",
            record.lod_level()
        );
    }
}
