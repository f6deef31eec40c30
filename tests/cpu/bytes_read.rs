//! Bytes read per joint

use glam::Affine3A;
use sinew::{Aabb, Channel, CpuBackend, InstanceRecord, Layer, Mat3x4Rows, Rig, Sqt};

use super::fixtures::{Fixture, additive_fixture, at, linear, xyz};

/// Evaluates one instance of `rig` playing clip 0 at `time` in one and then two layers on
/// `backend` (the top one at half weight), and asserts its read count is
/// `instance + layers × layer` bytes; then with the top layer at full weight, which hides the
/// one under it: `instance + layer`.
fn assert_reads_of_one_and_two_layers(
    backend: &mut CpuBackend,
    rig: &Rig,
    time: f32,
    instance: usize,
    layer: usize,
) {
    let half = Layer {
        weight: 0.5,
        ..Layer::clip(0, time)
    };
    let cases = [
        (vec![Layer::clip(0, time)], 1),
        (vec![Layer::clip(0, time), half], 2),
        (vec![Layer::clip(0, time); 2], 1),
    ];
    for (clips, layers) in cases {
        let record = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &clips).unwrap();
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        let mut aabbs = [Aabb::EMPTY];
        backend
            .evaluate(&[record], &mut palette, &mut aabbs)
            .unwrap();
        assert_eq!(
            backend.bytes_read_per_joint(),
            (instance + layers * layer) as f64,
            "{} layers, {layers} sampled",
            clips.len()
        );
    }
}

/// One joint whose translation moves along X over two seconds of linear keys.
fn one_joint_walk() -> Rig {
    let mut f = Fixture::new();
    let j = f.node("J", None, at([0.0; 3]));
    f.clip(
        "walk",
        vec![linear(
            j,
            Channel::Translation,
            &[0.0, 1.0, 2.0],
            &[xyz(0.0, 0.0, 0.0), xyz(1.0, 0.0, 0.0), xyz(2.0, 0.0, 0.0)],
        )],
    );
    f.node_rig()
}

#[test]
fn bytes_read_per_joint_is_the_hand_count_of_one_and_two_layers() {
    use sinew::bake::TrackDesc;
    let rig = one_joint_walk();
    let mut backend = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    assert_eq!(backend.bytes_read_per_joint(), 0.0);
    let desc = size_of::<TrackDesc>();
    // Record; parent, rest SQT, inverse bind, bounds of the one joint.
    let instance = size_of::<InstanceRecord>() + 2 + size_of::<Sqt>() + 64 + size_of::<Aabb>();
    // Translation: descriptor, first, last and the guessed pair of times, two values;
    // rotation and scale: one-key rest tracks, descriptor and one value.
    let layer = desc + 4 * 4 + 2 * 16 + 2 * (desc + 16);
    assert_reads_of_one_and_two_layers(&mut backend, &rig, 0.5, instance, layer);
}

#[test]
fn bytes_read_per_joint_counts_compressed_constants() {
    use sinew::bake::{ChannelCode, CompressedClip};
    let rig = additive_fixture();
    let mut backend = CpuBackend::with_compressed(vec![rig.clone()], Vec::new()).unwrap();
    let instance = size_of::<InstanceRecord>() + 2 + size_of::<Sqt>() + 64 + size_of::<Aabb>();
    // Clip "base" holds constants: per channel the clip record and code, then 3 + 4 + 3 words.
    let head = size_of::<CompressedClip>() + size_of::<ChannelCode>();
    let layer = 3 * head + (3 + 4 + 3) * 4;
    assert_reads_of_one_and_two_layers(&mut backend, &rig, 0.0, instance, layer);
}

#[test]
fn a_layer_played_through_a_retarget_map_reads_its_entries_and_the_source_channels() {
    use sinew::baked::retarget_map::{RetargetEntry, RetargetMap};
    use sinew::gpu::RetargetBinding;
    use sinew::{LayerRecord, TimeWrap};
    let rig = one_joint_walk();
    let rigs = vec![rig.clone(), rig.clone()];
    let map = RetargetMap::identity(&rig.skeleton);
    let binding = RetargetBinding::new(&rigs, 1, 0, map).unwrap();
    let mut backend = CpuBackend::new(rigs, Vec::new()).unwrap();
    backend.set_retargets(&[binding]).unwrap();
    let evaluate = |backend: &mut CpuBackend, layers: &[LayerRecord]| {
        let mut record = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
        record.layer_count = layers.len() as u32;
        record.layers[..layers.len()].copy_from_slice(layers);
        let mut palette = vec![Mat3x4Rows::IDENTITY; rig.palette_entries()];
        backend
            .evaluate(&[record], &mut palette, &mut [Aabb::EMPTY])
            .unwrap();
        backend.bytes_read_per_joint()
    };
    let own = LayerRecord::STILL.with_clock(0.5, 0.0, 1.0, TimeWrap::Clamp, 2.0);
    let through = LayerRecord {
        clip: LayerRecord::retargeted(0, 0),
        ..own
    };
    let entry = size_of::<RetargetEntry>() as f64;
    // The one joint: the same channels of the source's clip, and the map's entry.
    let one = evaluate(&mut backend, &[own]);
    assert_eq!(evaluate(&mut backend, &[through]), one + entry);
    // Under the own clip at half weight: both layers sampled.
    let half = LayerRecord { weight: 0.5, ..own };
    let two = evaluate(&mut backend, &[own, half]);
    assert_eq!(evaluate(&mut backend, &[through, half]), two + entry);
}
