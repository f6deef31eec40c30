//! Masks

use sinew::{BlendMode, JointMask, Rig, Sqt};

use super::common::assert_quat_close;
use super::fixtures::{assert_v3, blended, joint, layer, mask_fixture, rz};

const UPPER: [&str; 3] = ["Spine", "Chest", "Head"];
const LOWER: [&str; 3] = ["Root", "Hips", "LegL"];

fn assert_pose(rig: &Rig, locals: &[Sqt], names: &[&str], t: [f32; 3], deg: f64, what: &str) {
    for name in names {
        let l = locals[joint(rig, name)];
        assert_v3(l.translation, t, &format!("{what}: {name} translation"));
        assert_quat_close(l.rotation, rz(deg), &format!("{what}: {name} rotation"));
    }
}

#[test]
fn subtree_mask_weights_the_named_joint_and_its_descendants() {
    let rig = mask_fixture().node_rig();
    let mask = JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap();
    for name in UPPER {
        assert_eq!(mask.weights[joint(&rig, name)], 1.0, "{name} weight");
    }
    for name in LOWER {
        assert_eq!(mask.weights[joint(&rig, name)], 0.0, "{name} weight");
    }
}

#[test]
fn masked_override_at_full_weight_changes_only_the_subtree() {
    let rig = mask_fixture().node_rig();
    let masks = [JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap()];
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 1.0, Some(0), BlendMode::Override),
    ];
    let locals = blended(&rig, &masks, &layers);
    assert_pose(&rig, &locals, &UPPER, [2.0, 3.0, 0.0], 60.0, "masked B");
    assert_pose(&rig, &locals, &LOWER, [0.0, 1.0, 0.0], 20.0, "unmasked A");
}

#[test]
fn masked_override_at_half_weight_gives_the_halfway_pose() {
    let rig = mask_fixture().node_rig();
    let masks = [JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap()];
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 0.5, Some(0), BlendMode::Override),
    ];
    let locals = blended(&rig, &masks, &layers);
    // Halfway between (0, 1, 0) and (2, 3, 0); the nlerp midpoint of Rz(20°) and Rz(60°) is
    // exactly Rz(40°).
    assert_pose(&rig, &locals, &UPPER, [1.0, 2.0, 0.0], 40.0, "half B");
    assert_pose(&rig, &locals, &LOWER, [0.0, 1.0, 0.0], 20.0, "unmasked A");
}

#[test]
fn inverted_mask_changes_only_the_joints_outside_the_subtree() {
    let rig = mask_fixture().node_rig();
    let upper = JointMask::from_subtrees(&rig.skeleton, &["Spine"]).unwrap();
    let inverted = upper.inverted();
    for name in UPPER {
        assert_eq!(inverted.weights[joint(&rig, name)], 0.0, "{name} weight");
    }
    let masks = [inverted];
    let layers = [
        layer(0, 1.0, None, BlendMode::Override),
        layer(1, 1.0, Some(0), BlendMode::Override),
    ];
    let locals = blended(&rig, &masks, &layers);
    assert_pose(&rig, &locals, &LOWER, [2.0, 3.0, 0.0], 60.0, "inverted: B");
    assert_pose(&rig, &locals, &UPPER, [0.0, 1.0, 0.0], 20.0, "inverted: A");
}
