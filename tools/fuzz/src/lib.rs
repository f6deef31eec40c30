//! What the fuzz targets feed sinew and what they check. An input may be rejected with a typed
//! error; anything else (a panic, an overflow, a hang, memory past the limit) is a crash that
//! libFuzzer reports. Rigs that load are used the way the engine uses them: written to and read
//! back from `.sinew` bytes (which must encode to the same bytes again), and evaluated by the
//! exact and the fast CPU backends at times around and past every clip's keys, with override,
//! additive and masked layers and running clocks.

use glam::Affine3A;
use sinew::bake::file::{checksum, from_bytes, to_bytes};
use sinew::cpu::fast::DEFAULT_RATE;
use sinew::{
    Aabb, BlendMode, CpuBackend, FastCpuBackend, InstanceRecord, JointMask, Layer, LayerRecord,
    Mat3x4Rows, Rig, TimeWrap,
};

/// Clips per rig that are evaluated (each at several times).
const CLIPS_PER_RIG: usize = 8;

/// Imports `data` as glTF or FBX, whichever its content is (no base folder: external URIs are
/// refused), bakes its rigs and uses them.
pub fn import_gltf(data: &[u8]) {
    let Ok(asset) = sinew::import_bytes(data, "fuzz.gltf", None) else {
        return;
    };
    let Ok(rigs) = sinew::bake_rigs(&asset) else {
        return;
    };
    round_trip(&rigs, "baked rigs");
    use_rigs(rigs);
}

/// Loads `data` as a `.sinew` file and uses its rigs; then the same with the header's length
/// and checksum rewritten to match the bytes, so that mutations get past the envelope to the
/// section table, the decoders and the validation of baked invariants.
pub fn load_sinew(data: &[u8]) {
    load(data);
    if let Some(sealed) = reseal(data) {
        load(&sealed);
    }
}

/// Offset of the length field, where the checksummed bytes start.
const LENGTH_AT: usize = 20;
/// Offset of the checksum.
const CHECKSUM_AT: usize = 12;

/// `data` with its length and checksum fields set to match it (`None` when it is too short to
/// hold them, or already matches).
fn reseal(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < LENGTH_AT + 8 {
        return None;
    }
    let mut sealed = data.to_vec();
    sealed[LENGTH_AT..LENGTH_AT + 8].copy_from_slice(&(data.len() as u64).to_le_bytes());
    let sum = checksum(&sealed[LENGTH_AT..]);
    sealed[CHECKSUM_AT..LENGTH_AT].copy_from_slice(&sum.to_le_bytes());
    (sealed != data).then_some(sealed)
}

fn load(data: &[u8]) {
    let Ok(rigs) = from_bytes(data, "fuzz.sinew") else {
        return;
    };
    round_trip(&rigs, "loaded rigs");
    use_rigs(rigs);
}

/// Rigs that bake or load are valid: their `.sinew` bytes must load, and encode to the same
/// bytes again (compared as bytes, so NaN in unchecked vertex attributes compares equal).
fn round_trip(rigs: &[Rig], what: &str) {
    let bytes = to_bytes(rigs);
    let reloaded = match from_bytes(&bytes, "round-trip.sinew") {
        Ok(reloaded) => reloaded,
        Err(e) => panic!("{what} do not load back from their own .sinew bytes: {e}"),
    };
    let again = to_bytes(&reloaded);
    if let Some(at) = (0..bytes.len().max(again.len())).find(|&i| bytes.get(i) != again.get(i)) {
        panic!(
            "{what} change through a .sinew round trip: the bytes differ from offset {at} ({} vs {} bytes)",
            bytes.len(),
            again.len()
        );
    }
}

/// Evaluates every rig on both CPU backends.
fn use_rigs(rigs: Vec<Rig>) {
    let masks: Vec<JointMask> = rigs
        .iter()
        .map(|rig| JointMask::uniform(&rig.skeleton, 0.5))
        .collect();
    let instances = instances(&rigs);
    let entries: usize = instances
        .iter()
        .map(|i| rigs[i.rig as usize].palette_entries())
        .sum();
    let mut palette = vec![Mat3x4Rows::IDENTITY; entries];
    let mut bounds = vec![Aabb::EMPTY; instances.len()];

    let mut exact = match CpuBackend::new(rigs.clone(), masks.clone()) {
        Ok(backend) => backend,
        Err(e) => panic!("the exact backend rejects baked rigs: {e}"),
    };
    for now in [0.0, 0.75] {
        if let Err(e) = exact.evaluate_at(now, &instances, &mut palette, &mut bounds) {
            panic!("the exact backend rejects well-formed records: {e}");
        }
    }
    let mut fast = match FastCpuBackend::new(rigs, masks, DEFAULT_RATE) {
        Ok(backend) => backend,
        Err(e) => panic!("the fast backend rejects baked rigs: {e}"),
    };
    for now in [0.0, 0.75] {
        if let Err(e) = fast.evaluate_at(now, &instances, &mut palette, &mut bounds) {
            panic!("the fast backend rejects well-formed records: {e}");
        }
    }
}

/// Instances of every rig: the rest pose, then for each of its first clips one override layer
/// at times before, inside, at the end of and past the keys, a masked additive layer over an
/// override one, and looping and ping-pong clocks (where the clip has a positive duration).
fn instances(rigs: &[Rig]) -> Vec<InstanceRecord> {
    let world = Affine3A::IDENTITY;
    let mut records = Vec::new();
    let mut offset = 0u32;
    let mut push = |rig: usize, layers: &[Layer], clocks: &[LayerRecord]| {
        let Ok(mut record) = InstanceRecord::new(rig as u32, offset, &world, layers) else {
            return;
        };
        for (slot, clock) in record.layers.iter_mut().zip(clocks) {
            *slot = *clock;
        }
        if !clocks.is_empty() {
            record.layer_count = clocks.len() as u32;
        }
        records.push(record);
        offset += rigs[rig].palette_entries() as u32;
    };
    for (r, rig) in rigs.iter().enumerate() {
        push(r, &[], &[]);
        for (c, clip) in rig.clips.clips().iter().enumerate().take(CLIPS_PER_RIG) {
            let c = c as u32;
            let d = clip.duration;
            for t in [-1.0, 0.0, 0.37 * d, d, d + 1.0] {
                push(r, &[Layer::clip(c, t)], &[]);
            }
            let additive = Layer {
                weight: 0.5,
                mask: Some(r as u32),
                mode: BlendMode::Additive,
                ..Layer::clip(c, 0.6 * d)
            };
            push(r, &[Layer::clip(c, 0.2 * d), additive], &[]);
            if !(d > 0.0 && d.is_finite()) {
                // A wrapping clock needs a positive period.
                continue;
            }
            let looping =
                Layer::clip(c, 0.0)
                    .to_record()
                    .with_clock(0.1, 0.0, 1.3, TimeWrap::Loop, d);
            let ping_pong = Layer::clip(c, 0.0)
                .to_record()
                .with_clock(0.2, 0.0, 0.9, TimeWrap::PingPong, d)
                .with_fade(0.0, 0.0, 2.0, 1.0);
            push(r, &[], &[looping, ping_pong]);
        }
    }
    records
}
