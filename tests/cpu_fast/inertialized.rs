//! Inertialized transitions in the fast backend: an instance in transition is evaluated with
//! the exact evaluator and its decaying offset (as `CpuBackend` does), the others in lanes.

use sinew::{Inertialization, LayerRecord, TimeWrap, inertial_block_entries};

use super::*;

/// Twenty humanoids in blocks one after another, every third inertialized at 0.4 s for 0.5 s
/// from another clip (blocks after the characters'); the palette length.
fn transitions(rig: &Rig) -> (Vec<InstanceRecord>, usize) {
    let entries = rig.palette_entries() as u32;
    let clips = rig.clips.clip_count() as u32;
    let mut block = 20 * entries;
    let records = (0..20u32)
        .map(|i| {
            let clip = |c: u32, anchor: f32| {
                let period = rig.clips.clips()[(c % clips) as usize].duration.max(0.1);
                Layer::clip(c % clips, 0.0).to_record().with_clock(
                    0.1 * i as f32,
                    anchor,
                    1.0,
                    TimeWrap::Loop,
                    period,
                )
            };
            let world = Affine3A::from_translation(Vec3::new(i as f32, 0.0, 0.0));
            let mut rec = InstanceRecord::new(0, i * entries, &world, &[]).unwrap();
            rec.layer_count = 1;
            rec.layers[0] = clip(i, 0.4);
            if i % 3 != 0 {
                return rec;
            }
            let t = Inertialization {
                block,
                serial: 1,
                start: 0.4,
                duration: 0.5,
                outgoing: 0,
                chained: false,
            };
            block += inertial_block_entries(rig.joint_count() as u32);
            let outgoing: [LayerRecord; 1] = [clip(i + 1, 0.0)];
            rec.inertialized(&outgoing, t).unwrap()
        })
        .collect();
    (records, block as usize)
}

#[test]
fn instances_in_transition_match_the_exact_backend_and_the_rest_stay_in_lanes() {
    let rig = humanoid();
    let (records, len) = transitions(&rig);
    let mut exact = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    let mut fast = FastCpuBackend::from_exact(&exact, DEFAULT_RATE);
    let (mut e, mut f) = (
        vec![Mat3x4Rows::IDENTITY; len],
        vec![Mat3x4Rows::IDENTITY; len],
    );
    let mut boxes = (vec![Aabb::EMPTY; 20], vec![Aabb::EMPTY; 20]);
    let n = rig.joint_count();
    let entries = rig.palette_entries();
    let block = |p: &[Mat3x4Rows], i: usize| p[i * entries..i * entries + n].to_vec();
    let mut lanes_differ = false;
    // The capture frame, while the offset decays, and after the transition.
    for now in [0.45, 0.7, 1.0] {
        exact
            .evaluate_at(now, &records, &mut e, &mut boxes.0)
            .unwrap();
        fast.evaluate_at(now, &records, &mut f, &mut boxes.1)
            .unwrap();
        for (i, rec) in records.iter().enumerate() {
            let decaying = rec.inertialization().is_some() && now < 0.9;
            if decaying {
                // The exact evaluation with the same offset: the same matrices and box.
                assert_eq!(block(&e, i), block(&f, i), "record {i} at {now}");
                assert_eq!(boxes.0[i], boxes.1[i], "record {i} at {now}");
            } else {
                // Lanes, within the fast mode's error (0.1 mm at 3 cm: a few 1e-3 per element).
                for (a, b) in block(&e, i).iter().zip(&block(&f, i)) {
                    let (a, b) = (a.to_cols_array(), b.to_cols_array());
                    let worst = (0..16).map(|k| (a[k] - b[k]).abs()).fold(0.0f32, f32::max);
                    assert!(worst < 5e-3, "record {i} at {now}: {worst}");
                    lanes_differ |= a != b;
                }
            }
        }
    }
    assert!(lanes_differ, "the other instances ran in lanes");
    // At the capture frame an instance in transition is not at the incoming clip's pose (a
    // cut): it still shows the outgoing one, less a little decay.
    let cut: Vec<InstanceRecord> = records
        .iter()
        .map(|r| r.without_inertialization())
        .collect();
    fast.evaluate_at(0.45, &records, &mut f, &mut boxes.1)
        .unwrap();
    let mut c = vec![Mat3x4Rows::IDENTITY; len];
    fast.evaluate_at(0.45, &cut, &mut c, &mut boxes.1).unwrap();
    let moved = block(&f, 0)
        .iter()
        .zip(&block(&c, 0))
        .map(|(a, b)| (a.to_affine().translation - b.to_affine().translation).length())
        .fold(0.0f32, f32::max);
    assert!(moved > 1e-3, "{moved}");
}
