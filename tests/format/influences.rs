//! Influences 5-8 (section 7, since version 3)

use sinew::Rig;
use sinew::bake::file::{from_bytes, to_bytes};

use super::common;
use super::fixtures::{
    KIND_MESH_INFLUENCES, assert_corrupt, assert_rig_eq, bake, kind_of, reseal, section,
    section_table, u32_at,
};
use super::fuzz_corpus::{as_one_skin_rigs, as_one_skin_version};

fn influence_rigs() -> Vec<Rig> {
    bake(&common::repo().join("assets/synthetic/influences.glb"))
}

#[test]
fn influences_past_the_fourth_survive_bake_and_load() {
    let rigs = influence_rigs();
    let beyond_four = |rig: &Rig| {
        rig.meshes
            .iter()
            .map(|m| {
                m.weights
                    .iter()
                    .filter(|w| w[4..].iter().any(|&x| x > 0.0))
                    .count()
            })
            .collect::<Vec<_>>()
    };
    assert!(
        beyond_four(&rigs[0]).iter().all(|&n| n > 0),
        "the asset uses slots 5-8"
    );
    let bytes = to_bytes(&rigs);
    let sections: Vec<(u32, u32)> = section_table(&bytes)
        .iter()
        .filter(|e| e.kind == KIND_MESH_INFLUENCES)
        .map(|e| (e.rig, e.index))
        .collect();
    assert_eq!(
        sections,
        [(0, 0), (0, 1)],
        "one influences section per mesh"
    );
    let loaded = from_bytes(&bytes, "influences.sinew").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "influences.glb");
    assert_eq!(beyond_four(&loaded[0]), beyond_four(&rigs[0]));
    let cut: Vec<usize> = loaded[0].meshes.iter().map(|m| m.influences_cut).collect();
    assert!(cut[0] == 0 && cut[1] > 0, "cut vertices survive: {cut:?}");
}

#[test]
fn four_influence_meshes_write_no_influences_section_and_version_2_files_load() {
    let rigs = bake(&common::repo().join("assets/humanoid.glb"));
    let bytes = to_bytes(&rigs);
    assert!(
        section_table(&bytes)
            .iter()
            .all(|e| e.kind != KIND_MESH_INFLUENCES),
        "no influences section"
    );
    let old = as_one_skin_version(&bytes, &rigs, 2);
    let loaded = from_bytes(&old, "v2.sinew").unwrap();
    assert_rig_eq(&loaded[0], &as_one_skin_rigs(&rigs)[0], "version 2 file");
}

#[test]
fn influences_section_of_the_wrong_length_or_joints_is_corrupt() {
    let mut bytes = to_bytes(&influence_rigs());
    let at = section(&bytes, KIND_MESH_INFLUENCES).offset + 4;
    let joints = u32_at(&bytes, at);
    bytes[at..at + 4].copy_from_slice(&(joints - 1).to_le_bytes());
    reseal(&mut bytes);
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 mesh 0 influences");
    assert!(reason.contains("joints"), "reason: {reason}");

    let mut rigs = influence_rigs();
    rigs[0].meshes[0].joints[3][6] = rigs[0].joint_count() as u16;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 mesh 0 influences");
    assert!(reason.contains("vertex 3"), "reason: {reason}");
}
