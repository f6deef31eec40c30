//! Layer stacks, masks, additive blending and root-motion flags: the fast evaluator against
//! the exact one at key times.

use super::*;

/// Layer stacks on the humanoid (clips keyed at 30 Hz, so every time below is a key and the two
/// evaluators must agree to rounding).
pub(crate) fn layer_cases(rig: &Rig, masks: &mut Vec<JointMask>) -> Vec<(String, Vec<Layer>)> {
    let upper = JointMask::from_subtrees(&rig.skeleton, &["Spine1"]).unwrap();
    masks.push(upper.clone());
    masks.push(upper.inverted());
    let mut half = JointMask::uniform(&rig.skeleton, 0.5);
    half.weights[0] = 0.0;
    masks.push(half);
    let l = |clip: u32, time: f32, weight: f32, mask: Option<u32>, mode: BlendMode| Layer {
        clip,
        time,
        weight,
        mask,
        mode,
    };
    use BlendMode::{Additive, Override};
    vec![
        ("rest".into(), vec![]),
        ("one clip".into(), vec![l(1, 0.5, 1.0, None, Override)]),
        (
            "cross-fade".into(),
            vec![
                l(1, 0.4, 1.0, None, Override),
                l(2, 0.3, 0.3, None, Override),
            ],
        ),
        (
            "partial base over rest".into(),
            vec![l(0, 1.0, 0.6, None, Override)],
        ),
        (
            "masked upper body".into(),
            vec![
                l(1, 0.5, 1.0, None, Override),
                l(3, 0.8, 1.0, Some(0), Override),
            ],
        ),
        (
            "masked half weights".into(),
            vec![
                l(2, 0.2, 1.0, Some(1), Override),
                l(1, 0.6, 0.8, Some(2), Override),
            ],
        ),
        (
            "additive".into(),
            vec![
                l(1, 0.5, 1.0, None, Override),
                l(3, 1.0, 0.5, None, Additive),
            ],
        ),
        (
            "masked additive over four layers".into(),
            vec![
                l(0, 1.2, 1.0, None, Override),
                l(2, 0.1, 0.5, None, Override),
                l(3, 0.7, 1.0, Some(0), Additive),
                l(1, 0.9, 0.25, Some(2), Additive),
            ],
        ),
        (
            "zero and negative weights".into(),
            vec![
                l(1, 0.5, 0.0, None, Override),
                l(2, 0.5, -1.0, None, Additive),
            ],
        ),
        (
            "weight above one".into(),
            vec![
                l(1, 0.5, 2.0, None, Override),
                l(3, 0.5, 1.5, None, Additive),
            ],
        ),
    ]
}

#[test]
fn layer_stacks_match_the_exact_evaluator_at_key_times() {
    let rig = humanoid();
    let mut masks = Vec::new();
    let cases = layer_cases(&rig, &mut masks);
    let backend = FastCpuBackend::new(vec![rig.clone()], masks.clone(), DEFAULT_RATE).unwrap();
    for (name, layers) in &cases {
        let rec = InstanceRecord::new(0, 0, &world(), layers).unwrap();
        let (_, pe) = exact(&rig, &masks, &rec);
        let (_, pf, _) = fast(&backend, &rec);
        assert_palettes_close(&pf, &pe, name);
    }
}

/// The humanoid as a Z-up export: under a non-joint `Z_UP` node turned a quarter about -X
/// (and a little about its +Z) and scaled, so the root's parent space is not model space.
fn z_up_humanoid() -> Rig {
    let mut asset = import_file(repo().join("assets/humanoid.glb")).unwrap();
    let top = asset.nodes.len();
    for node in asset.nodes.iter_mut().filter(|n| n.parent.is_none()) {
        node.parent = Some(top);
    }
    asset.nodes.push(sinew::import::RawNode {
        name: "Z_UP".to_string(),
        parent: None,
        rest: sinew::Sqt {
            translation: Vec3::new(0.2, 0.0, -0.1),
            rotation: Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2)
                * Quat::from_rotation_z(0.3),
            scale: Vec3::splat(1.5),
        },
    });
    bake_rigs(&asset).unwrap().remove(0)
}

#[test]
fn root_motion_flags_match_the_exact_evaluator() {
    for rig in [humanoid(), z_up_humanoid()] {
        let backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
        let root = rig.skeleton.find_joint("Hips").unwrap() as u32;
        let base = rig.skeleton.find_joint("Root").unwrap() as u32;
        let layers = [
            Layer::clip(1, 0.3),
            Layer {
                weight: 0.4,
                ..Layer::clip(2, 0.6)
            },
        ];
        for hold in [
            InstanceRecord::HOLD_ROOT_XZ,
            InstanceRecord::HOLD_ROOT_XYZ,
            InstanceRecord::HOLD_ROOT_YAW,
            InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW,
        ] {
            for joint in [base, root] {
                let mut rec = InstanceRecord::new(0, 0, &world(), &layers).unwrap();
                rec.flags = hold | joint;
                let what = format!("{}: flags {:#x}", rig.name, rec.flags);
                let (_, pe) = exact(&rig, &[], &rec);
                let (_, pf, _) = fast(&backend, &rec);
                assert_palettes_close(&pf, &pe, &what);
                // And the flags change something.
                rec.flags = 0;
                let (_, free) = exact(&rig, &[], &rec);
                assert!(
                    free.iter().zip(&pf).any(|(a, b)| a != b),
                    "{what}: the hold changed nothing"
                );
            }
        }
    }
}
