//! Clip sync markers: baked from the raw clips, stored in their own section, loaded back into
//! the clips and into an animator; a damaged section is a typed error.

use sinew::bake::file::{from_bytes, to_bytes};
use sinew::runtime::Animator;
use sinew::{ClipMarker, ImportErrorKind};

use super::fixtures::{assert_corrupt, kind_of, reseal, section};

/// The section kind of clip markers.
const KIND_MARKERS: u32 = 11;

fn marker(time: f32, name: &str) -> ClipMarker {
    ClipMarker {
        time,
        name: name.to_string(),
    }
}

fn humanoid() -> sinew::RawAsset {
    sinew::import_file(super::common::repo().join("assets/humanoid.glb")).unwrap()
}

/// The shipped humanoid with foot markers on its walk (given out of order) and run.
fn marked_asset() -> sinew::RawAsset {
    let mut asset = humanoid();
    for clip in &mut asset.clips {
        match clip.name.as_str() {
            "walk" => clip.markers = vec![marker(0.55, "right"), marker(0.05, "left")],
            "run" => clip.markers = vec![marker(0.1, "left"), marker(0.4, "right")],
            _ => {}
        }
    }
    asset
}

#[test]
fn markers_bake_in_time_order_and_round_trip_into_an_animator() {
    let rigs = sinew::bake_rigs(&marked_asset()).unwrap();
    let walk = rigs[0]
        .clips
        .clips()
        .iter()
        .find(|c| c.name == "walk")
        .unwrap();
    assert_eq!(walk.markers, [marker(0.05, "left"), marker(0.55, "right")]);
    let loaded = from_bytes(&to_bytes(&rigs), "markers.sinew").unwrap();
    assert_eq!(loaded[0].clips.clips(), rigs[0].clips.clips());
    let animator = Animator::new(loaded).unwrap();
    assert_eq!(
        animator.sync_markers(0, "run").unwrap(),
        [(0.1, "left"), (0.4, "right")]
    );
    // A rig without markers writes no markers section.
    let plain = sinew::bake_rigs(&humanoid()).unwrap();
    let bytes = to_bytes(&plain);
    assert!(
        super::fixtures::section_table(&bytes)
            .iter()
            .all(|e| e.kind != KIND_MARKERS)
    );
}

#[test]
fn a_marker_outside_its_clip_does_not_bake() {
    let mut asset = marked_asset();
    asset.clips[0].markers = vec![marker(1e6, "late")];
    let err = sinew::bake_rigs(&asset).unwrap_err();
    assert!(
        matches!(
            err.kind,
            ImportErrorKind::SyncMarker {
                animation: 0,
                marker: 0,
                ..
            }
        ),
        "{err}"
    );
    asset.clips[0].markers = vec![marker(0.1, "")];
    assert!(sinew::bake_rigs(&asset).is_err());
}

#[test]
fn a_damaged_markers_section_is_corrupt() {
    let rigs = sinew::bake_rigs(&marked_asset()).unwrap();
    let bytes = to_bytes(&rigs);
    let entry = section(&bytes, KIND_MARKERS);
    // The first marker's clip (the array after the count, at the next 16-byte boundary).
    let at = entry.offset as usize + 16;
    for (value, what) in [
        (9999u32, "does not exist"),
        (0x7fc0_0000, "outside the clip"),
    ] {
        let mut damaged = bytes.clone();
        if what == "does not exist" {
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
        } else {
            // The first marker's time (after four clip indices) becomes NaN.
            let times = at + 16;
            damaged[times..times + 4].copy_from_slice(&value.to_le_bytes());
        }
        reseal(&mut damaged);
        let reason = assert_corrupt(kind_of(&damaged), "rig 0 clip markers");
        assert!(reason.contains(what), "{reason}");
    }
}
