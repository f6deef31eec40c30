//! Round trips

use sinew::Layer;
use sinew::bake::file::{FORMAT_VERSION, MAGIC, checksum, from_bytes, to_bytes};

use super::fixtures::{
    CHECKSUM_AT, CHECKSUMMED_FROM, KIND_CLIPS, KIND_MESH, KIND_RIG, KIND_SKELETON, LENGTH_AT,
    VERSION_AT, all_assets, assert_rig_eq, assert_slice_eq, bake, evaluate, section_table,
    shared_rigs, table_end, u32_at, u64_at,
};

#[test]
fn every_asset_round_trips_exactly() {
    for path in all_assets() {
        let rigs = bake(&path);
        let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
        assert_eq!(loaded.len(), rigs.len(), "{}: rig count", path.display());
        for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
            assert_rig_eq(got, expected, &format!("{} rig {r}", path.display()));
        }
    }
}

#[test]
fn loaded_rigs_evaluate_like_the_originals() {
    for path in all_assets() {
        let rigs = bake(&path);
        let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
        for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
            let mut poses: Vec<(String, Vec<Layer>)> = vec![("rest".into(), Vec::new())];
            for (c, info) in expected.clips.clips().iter().enumerate().take(3) {
                for f in [0.0, 0.37, 1.0, 1.5] {
                    let t = f * info.duration;
                    poses.push((format!("clip {c} t={t}"), vec![Layer::clip(c as u32, t)]));
                }
            }
            for (pose, layers) in poses {
                let what = format!("{} rig {r} {pose}", path.display());
                let (gm, gp, ga) = evaluate(got, &layers);
                let (em, ep, ea) = evaluate(expected, &layers);
                assert_slice_eq(&gm, &em, &format!("{what}: model matrices"));
                assert_slice_eq(&gp, &ep, &format!("{what}: skin palette"));
                assert_eq!(ga, ea, "{what}: animated AABB");
            }
        }
    }
}

#[test]
fn no_rigs_round_trip() {
    let loaded = from_bytes(&to_bytes(&[]), "empty.sinew").unwrap();
    assert!(
        loaded.is_empty(),
        "loaded {} rigs from a file of none",
        loaded.len()
    );
}

#[test]
fn tangents_round_trip() {
    let Some(mut rigs) = shared_rigs("RiggedSimple.glb") else {
        return;
    };
    let mesh = &mut rigs[0].meshes[0];
    mesh.tangents = Some(
        (0..mesh.positions.len())
            .map(|v| [v as f32, 0.5, -1.0, 1.0])
            .collect(),
    );
    let loaded = from_bytes(&to_bytes(&rigs), "memory").unwrap();
    assert_rig_eq(&loaded[0], &rigs[0], "RiggedSimple.glb with tangents");
}

#[test]
fn header_and_sections_follow_the_documented_layout() {
    let Some(rigs) = shared_rigs("Fox.glb") else {
        return;
    };
    let bytes = to_bytes(&rigs);
    assert_eq!(bytes[..8], MAGIC, "magic");
    assert_eq!(u32_at(&bytes, VERSION_AT), FORMAT_VERSION, "version");
    assert_eq!(u64_at(&bytes, LENGTH_AT), bytes.len() as u64, "file length");
    assert_eq!(
        u64_at(&bytes, CHECKSUM_AT),
        checksum(&bytes[CHECKSUMMED_FROM..]),
        "checksum"
    );
    let kinds: Vec<(u32, u32, u32)> = section_table(&bytes)
        .iter()
        .map(|e| (e.kind, e.rig, e.index))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (KIND_RIG, 0, 0),
            (KIND_SKELETON, 0, 0),
            (KIND_CLIPS, 0, 0),
            (KIND_MESH, 0, 0)
        ],
        "sections of Fox.glb's one rig"
    );
    for entry in section_table(&bytes) {
        assert_eq!(entry.offset % 16, 0, "{entry:?} is not 16-byte aligned");
        assert!(
            entry.offset >= table_end(&bytes),
            "{entry:?} overlaps the section table"
        );
        assert!(
            entry.offset + entry.len <= bytes.len(),
            "{entry:?} runs past the end"
        );
    }
}

#[test]
fn checksum_changes_with_any_single_bit() {
    let data: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
    let base = checksum(&data);
    for bit in 0..data.len() * 8 {
        let mut flipped = data.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert_ne!(
            checksum(&flipped),
            base,
            "flipping bit {bit} left the checksum {base:#x}"
        );
    }
}
