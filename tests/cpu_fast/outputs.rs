//! What the fast backend writes and reads besides the palette: exact morph weights, and its
//! bytes read per joint counted by hand.

use super::validation::rec;
use super::*;

#[test]
fn fast_backend_writes_the_exact_morph_weights() {
    let mut rigs = rigs_of(&repo().join("assets/synthetic/morph.glb"));
    rigs.extend(
        shared_assets()
            .iter()
            .filter(|p| p.ends_with("RobotExpressive.glb"))
            .flat_map(|p| rigs_of(p)),
    );
    let mask = JointMask::uniform(&rigs[0].skeleton, 0.4);
    let mut exact_backend = CpuBackend::new(rigs.clone(), vec![mask]).unwrap();
    let mut fast_backend = FastCpuBackend::from_exact(&exact_backend, DEFAULT_RATE);
    let mut records = Vec::new();
    let mut offset = 0;
    for (r, rig) in rigs.iter().enumerate() {
        let clips = rig.clips.clip_count() as u32;
        for k in 0..9u32 {
            let t = 0.11 * k as f32;
            let layers = [
                Layer::clip(k % clips, t),
                Layer {
                    weight: 0.35,
                    mask: (r == 0 && k % 2 == 0).then_some(0),
                    mode: if k % 3 == 0 {
                        BlendMode::Additive
                    } else {
                        BlendMode::Override
                    },
                    ..Layer::clip((k + 1) % clips, 0.8 * t)
                },
            ];
            records.push(InstanceRecord::new(r as u32, offset, &world(), &layers).unwrap());
            offset += rig.palette_entries() as u32;
        }
    }
    let len = offset as usize;
    let (mut pe, mut pf) = (
        vec![Mat3x4Rows::IDENTITY; len],
        vec![Mat3x4Rows::IDENTITY; len],
    );
    let mut aabbs = vec![Aabb::EMPTY; records.len()];
    exact_backend
        .evaluate(&records, &mut pe, &mut aabbs)
        .unwrap();
    fast_backend
        .evaluate(&records, &mut pf, &mut aabbs)
        .unwrap();
    let mut moving = 0;
    for (i, rec) in records.iter().enumerate() {
        let rig = &rigs[rec.rig as usize];
        let block =
            rec.palette_offset as usize..rec.palette_offset as usize + rig.palette_entries();
        let we = sinew::cpu::morph_weights(rig, &pe[block.clone()]);
        let wf = sinew::cpu::morph_weights(rig, &pf[block]);
        assert_eq!(
            wf, we,
            "record {i}: fast weights differ from the exact ones"
        );
        moving += usize::from(we.iter().any(|&w| w != 0.0));
    }
    assert!(moving > records.len() / 4, "{moving} records with weights");
    // `evaluate_one` writes them too, after the joint entries.
    let rig = &rigs[0];
    let mut models = vec![Affine3A::IDENTITY; rig.joint_count()];
    let mut block = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
    fast_backend
        .evaluate_one(&records[2], &mut models, &mut block)
        .unwrap();
    let at = records[2].palette_offset as usize;
    assert_eq!(
        sinew::cpu::morph_weights(rig, &block),
        sinew::cpu::morph_weights(rig, &pe[at..at + rig.palette_entries()])
    );
}

/// Bytes of one channel of one joint pre-splatted across the lanes: three `F8` (translation,
/// scale) or four (rotation) of 32 bytes.
fn splatted_bytes(channel: Channel) -> usize {
    if channel == Channel::Rotation {
        128
    } else {
        96
    }
}

/// `bytes_read_per_joint` by hand on rig64, one clip per slot: per group, the records
/// (`InstanceRecord`), per joint its parent (2) and inverse bind in every lane (384), bounds
/// (192) for joints with vertices; per slot of one clip, each joint's channel table (8) and
/// constant channels in every lane, and eight lanes' two frame records; per slot of mixed
/// clips, per lane each joint's table, constant values (16) and animated pairs (32). Shared
/// loads count once per group: a full group spreads them over eight instances.
#[test]
fn bytes_read_per_joint_is_the_hand_count_of_lane_groups() {
    let rig = rigs_of(&repo().join("assets/synthetic/rig64.glb")).remove(0);
    let (n, entries) = (rig.joint_count(), rig.palette_entries());
    let mut backend = FastCpuBackend::new(vec![rig.clone()], Vec::new(), DEFAULT_RATE).unwrap();
    assert_eq!(backend.bytes_read_per_joint(), 0.0);
    let resampled = backend.fast_rigs()[0].clips().clips().to_vec();
    // Per clip: bytes of a slot whose lanes all play it, and of one lane of a mixed slot.
    let slot_bytes = |clip: usize| {
        let (mut uniform, mut lane, mut animated) = (0, 0, 0);
        for j in 0..n {
            uniform += 8;
            lane += 8;
            for channel in Channel::ALL {
                if rig.clips.track(clip, j, channel).key_count > 1 {
                    animated += 1;
                    lane += 32;
                } else {
                    uniform += splatted_bytes(channel);
                    lane += 16;
                }
            }
        }
        let stride = resampled[clip].frame_stride as usize;
        assert_eq!(stride, animated, "clip {clip}: every keyed channel changes");
        (uniform + LANES * 2 * stride * 16, lane)
    };
    let bounds = rig.joint_bounds.iter().filter(|b| !b.is_empty()).count();
    let shared = n * (2 + 384) + bounds * 192;
    let record = size_of::<InstanceRecord>();
    let (uniform0, lane0) = slot_bytes(0);
    let (uniform1, lane1) = slot_bytes(1);
    let evaluate = |backend: &mut FastCpuBackend, layers: &dyn Fn(usize) -> Vec<Layer>, count| {
        let records: Vec<InstanceRecord> = (0..count)
            .map(|i| rec(0, (i * entries) as u32, &layers(i)))
            .collect();
        let mut palette = vec![Mat3x4Rows::IDENTITY; count * entries];
        let mut aabbs = vec![Aabb::EMPTY; count];
        backend
            .evaluate(&records, &mut palette, &mut aabbs)
            .unwrap();
        backend.bytes_read_per_joint()
    };
    let per_joint = |bytes: usize, count: usize| bytes as f64 / (count * n) as f64;
    // One clip, full weight: the rest pose is never read.
    for count in [1, LANES] {
        let got = evaluate(
            &mut backend,
            &|i| vec![Layer::clip(0, 0.1 * i as f32)],
            count,
        );
        let expected = per_joint(count * record + shared + uniform0, count);
        assert_eq!(got, expected, "{count} instances, one clip");
    }
    // A cross-fade: two slots of one clip each.
    let fade = |i: usize| {
        vec![
            Layer::clip(0, 0.1 * i as f32),
            Layer {
                weight: 0.3,
                ..Layer::clip(1, 0.2)
            },
        ]
    };
    let got = evaluate(&mut backend, &fade, LANES);
    let expected = per_joint(LANES * record + shared + uniform0 + uniform1, LANES);
    assert_eq!(got, expected, "cross-fade");
    // Lanes alternating two clips in one slot: each lane samples its own clip.
    let mixed = |i: usize| vec![Layer::clip((i % 2) as u32, 0.1 * i as f32)];
    let got = evaluate(&mut backend, &mixed, LANES);
    let lanes = (LANES / 2) * (lane0 + lane1);
    let expected = per_joint(LANES * record + shared + lanes, LANES);
    assert_eq!(got, expected, "mixed clips");
}
