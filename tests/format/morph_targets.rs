//! Morph targets and versions

use sinew::Layer;
use sinew::bake::file::{from_bytes, to_bytes};

use super::fixtures::{
    KIND_CLIPS, KIND_MESH, KIND_MESH_MORPH, KIND_MORPH, KIND_RIG, KIND_SKELETON, assert_corrupt,
    assert_rig_eq, evaluate, kind_of, morph_rigs, reseal, section, section_table,
};

#[test]
fn morph_targets_round_trip_in_sections_of_their_own() {
    let rigs = morph_rigs();
    let bytes = to_bytes(&rigs);
    let kinds: Vec<(u32, u32)> = section_table(&bytes)
        .iter()
        .map(|e| (e.kind, e.index))
        .collect();
    let mut expected = vec![
        (KIND_RIG, 0),
        (KIND_SKELETON, 0),
        (KIND_CLIPS, 0),
        (KIND_MORPH, 0),
    ];
    for m in 0..4 {
        expected.extend([(KIND_MESH, m), (KIND_MESH_MORPH, m)]);
    }
    assert_eq!(kinds, expected, "sections of morph.glb's one rig");
    let loaded = from_bytes(&bytes, "morph.sinew").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "morph.glb");
    let (_, gp, _) = evaluate(&loaded[0], &[Layer::clip(0, 0.25)]);
    let weights = sinew::cpu::morph_weights(&loaded[0], &gp);
    assert_eq!(
        &weights[..3],
        &[0.5, 0.25, 0.0],
        "weights of the loaded rig"
    );
}

#[test]
fn morph_section_with_the_wrong_chunk_count_is_corrupt() {
    let mut bytes = to_bytes(&morph_rigs());
    let at = section(&bytes, KIND_MORPH).offset + 4;
    bytes[at..at + 4].copy_from_slice(&3u32.to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 morph");
    assert!(reason.contains("weight chunks"), "reason: {reason}");
}

#[test]
fn mesh_morph_targets_of_the_wrong_length_or_weights_are_corrupt() {
    let mut rigs = morph_rigs();
    rigs[0].meshes[1].morph.normals.pop();
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 1 morph targets");
    assert!(reason.contains("normal deltas"), "reason: {reason}");
    let mut rigs = morph_rigs();
    rigs[0].meshes[0].morph.first_weight = 8;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0 morph targets");
    assert!(reason.contains("no morph node"), "reason: {reason}");
}
