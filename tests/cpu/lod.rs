//! Joint LOD on the CPU twin: at level k the joints past `Skeleton::lod_sampled_joints(k)` keep
//! their rest local transform, so their model matrix is their parent's × rest local, and the
//! sampled joints are posed as at level 0.

use glam::{Affine3A, Vec3};
use sinew::lod::UpdateRate;
use sinew::{InstanceRecord, Layer, Mat3x4Rows, TimeWrap};

#[test]
fn joint_lod_levels_hold_rest_below_the_cut() {
    let asset = sinew::import_file(super::common::repo().join("assets/humanoid.glb")).unwrap();
    let rig = sinew::bake_rigs(&asset).unwrap().remove(0);
    let n = rig.joint_count();
    assert!(rig.skeleton.lod_sampled_joints(1) < n, "LOD 1 drops joints");
    let world = Affine3A::from_translation(Vec3::new(1.0, 0.0, -2.0));
    let period = rig.clips.clips()[0].duration.max(0.1);
    let layer = Layer::clip(0, 0.0)
        .to_record()
        .with_clock(0.0, 0.0, 1.0, TimeWrap::Loop, period);
    let now = 0.4;
    let pose = |level: u32| {
        let rec = InstanceRecord::new(0, 0, &world, &[]).unwrap().with_lod(
            UpdateRate::EveryFrame,
            level,
            false,
        );
        let mut models = vec![Affine3A::IDENTITY; n];
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        sinew::cpu::evaluate_pose_with_flags(
            &rig,
            &[],
            &[layer.to_layer_at(now)],
            rec.flags,
            &world,
            &mut models,
            &mut palette,
        );
        models
    };
    let full = pose(0);
    for level in 1..4u32 {
        let models = pose(level);
        let sampled = rig.skeleton.lod_sampled_joints(level);
        for j in 0..n {
            let expected = if j < sampled {
                full[j]
            } else {
                let rest = rig.skeleton.rest_pose()[j].to_affine();
                match rig.skeleton.parents()[j] {
                    sinew::NO_PARENT => world * rest,
                    p => models[p as usize] * rest,
                }
            };
            super::common::assert_matrix_close(
                &Mat3x4Rows::from_affine(&models[j]).to_cols_array(),
                &Mat3x4Rows::from_affine(&expected).to_cols_array(),
                &format!("LOD {level} joint {j} (sampled: {sampled})"),
            );
        }
        assert_ne!(models, full, "LOD {level} changes the pose");
    }
}
