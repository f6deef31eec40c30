//! Compressed clips (section 8, since version 4)

use std::process::Command;

use sinew::bake::file::{FORMAT_VERSION, from_bytes, read_file, to_bytes};
use sinew::{Layer, Rig};

use super::common;
use super::fixtures::{
    VERSION_AT, assert_corrupt, assert_rig_eq, bake, evaluate, kind_of, reseal, section_table,
    sinew_json, temp_path, u32_at,
};

const KIND_COMPRESSED: u32 = 8;

/// The humanoid and the morph rig, with compressed clips.
/// The humanoid (its first clip with a gap in its keys, so framed on segments) and the morph
/// rig, compressed.
fn compressed_rigs() -> Vec<Rig> {
    let mut rigs = bake(&common::repo().join("assets/humanoid.glb"));
    rigs[0] = common::with_key_gap(&rigs[0], 0);
    rigs.extend(bake(&common::repo().join("assets/synthetic/morph.glb")));
    for rig in &mut rigs {
        rig.compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
    }
    rigs
}

#[test]
fn compressed_clips_round_trip_with_their_segments() {
    let rigs = compressed_rigs();
    let bytes = to_bytes(&rigs);
    assert_eq!(u32_at(&bytes, VERSION_AT), FORMAT_VERSION);
    let segmented = rigs[0].compressed.as_ref().unwrap();
    assert!(segmented.segments(0).len() > 1, "clip 0 on segments");
    let sections: Vec<u32> = section_table(&bytes)
        .iter()
        .filter(|e| e.kind == KIND_COMPRESSED)
        .map(|e| e.rig)
        .collect();
    assert_eq!(sections, [0, 1], "one compressed section per rig");
    // Rotation layouts other than "drop w" travel in the channel codes' bit offsets.
    let layouts = |rigs: &[Rig]| -> Vec<u32> {
        rigs.iter()
            .filter_map(|r| r.compressed.as_ref())
            .flat_map(|c| c.channels().iter().map(|code| code.layout()))
            .filter(|&l| l != sinew::ChannelCode::DROP_W)
            .collect()
    };
    assert!(
        !layouts(&rigs).is_empty(),
        "a rotation that drops x, y or z"
    );
    let loaded = from_bytes(&bytes, "compressed.sinew").unwrap();
    assert_eq!(layouts(&loaded), layouts(&rigs));
    for (r, (got, expected)) in loaded.iter().zip(&rigs).enumerate() {
        assert_eq!(
            got.compressed, expected.compressed,
            "rig {r}: compressed clips"
        );
        assert_rig_eq(got, expected, &format!("rig {r}"));
    }
    let plain = bake(&common::repo().join("assets/humanoid.glb"));
    let bytes = to_bytes(&plain);
    assert!(
        section_table(&bytes)
            .iter()
            .all(|e| e.kind != KIND_COMPRESSED)
    );
    assert_eq!(
        from_bytes(&bytes, "plain.sinew").unwrap()[0].compressed,
        None
    );
}

#[test]
fn damaged_compressed_sections_are_corrupt_never_a_panic() {
    let rigs = compressed_rigs();
    let bytes = to_bytes(&rigs);
    let entry = section_table(&bytes)
        .into_iter()
        .find(|e| e.kind == KIND_COMPRESSED && e.rig == 0)
        .unwrap();
    let mut rejected = 0;
    let words = entry.len / 4;
    // Every word of the counts, clip records and channel codes, and a sample of the data.
    let positions = (0..words.min(2000)).chain((2000..words).step_by(97));
    for w in positions {
        let at = entry.offset + w * 4;
        let word = u32_at(&bytes, at);
        for value in [word ^ 1, word.wrapping_add(0x100), u32::MAX, 0x7fc0_0000] {
            let mut damaged = bytes.clone();
            damaged[at..at + 4].copy_from_slice(&value.to_le_bytes());
            reseal(&mut damaged);
            let result = std::panic::catch_unwind(|| from_bytes(&damaged, "test.sinew"));
            match result {
                Err(_) => panic!("word {w} set to {value:#x}: the loader panicked"),
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    assert_corrupt(e.kind, "rig 0 compressed clips");
                    rejected += 1;
                }
            }
        }
    }
    assert!(
        rejected > 100,
        "only {rejected} damaged words were rejected"
    );
    // Each count, shortened by one, is named.
    for (w, what) in [(2, "clip"), (3, "channel"), (4, "data")] {
        let mut damaged = bytes.clone();
        let at = entry.offset + w * 4;
        let count = u32_at(&damaged, at);
        damaged[at..at + 4].copy_from_slice(&(count - 1).to_le_bytes());
        reseal(&mut damaged);
        let reason = assert_corrupt(kind_of(&damaged), "rig 0 compressed clips");
        assert!(!reason.is_empty(), "{what}: {reason}");
    }
}

#[test]
fn version_4_files_load_their_compressed_clips_and_refuse_segment_words() {
    // Version 4 wrote the same section with zero padding where segment tables now live, and
    // no component bit reductions (at a 1 m budget every channel takes one bit, which none can
    // lose).
    let mut rigs = bake(&common::repo().join("assets/synthetic/features.glb"));
    rigs[0]
        .compress(sinew::bake::compressed::MAX_ERROR_BUDGET)
        .unwrap();
    let c = rigs[0].compressed.as_ref().unwrap();
    assert!((0..c.clips().len()).all(|i| c.segments(i).is_empty()));
    assert!(
        c.channels()
            .iter()
            .all(|k| (0..4).all(|i| k.reduction(i) == 0))
    );
    let mut bytes = to_bytes(&rigs);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&4u32.to_le_bytes());
    let loaded = from_bytes(&bytes, "v4.sinew").unwrap();
    assert_eq!(loaded[0].compressed, rigs[0].compressed);
    // Reductions, labelled version 7: those bits were a first bit's, past any record.
    rigs[0].compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
    let c = rigs[0].compressed.as_ref().unwrap();
    assert!(
        c.channels()
            .iter()
            .any(|k| (0..4).any(|i| k.reduction(i) > 0))
    );
    let mut bytes = to_bytes(&rigs);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&7u32.to_le_bytes());
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 compressed clips");
    assert!(reason.contains("version 7"), "reason: {reason}");
    // Clips on segments, labelled version 4: their padding is not zero.
    let segmented = compressed_rigs();
    let mut bytes = to_bytes(&segmented);
    bytes[VERSION_AT..VERSION_AT + 4].copy_from_slice(&4u32.to_le_bytes());
    let reason = assert_corrupt(kind_of(&bytes), "rig 0 compressed clips");
    assert!(reason.contains("version 4"), "reason: {reason}");
}

#[test]
fn compressed_clips_of_other_joints_are_corrupt() {
    let mut rigs = compressed_rigs();
    let other = rigs[1].compressed.clone();
    rigs[0].compressed = other;
    let reason = assert_corrupt(kind_of(&to_bytes(&rigs)), "rig 0 compressed clips");
    assert!(reason.contains("joints"), "reason: {reason}");
}

#[test]
fn the_checked_constructor_rejects_what_the_decoders_cannot_read() {
    use sinew::ChannelCode;
    assert!(common::hand_compressed().build().is_ok());
    type Edit = Box<dyn Fn(&mut common::HandCompressed)>;
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "bad channel offset",
            "clip 0",
            Box::new(|h| h.clips[0].channel_offset = 1),
        ),
        (
            "fewer bits on a raw channel",
            "clip 0 channel 1",
            Box::new(|h| h.channels[1] = h.channels[1].with_reductions([1, 0, 0, 0])),
        ),
        (
            "fewer bits on a component not stored",
            "clip 0 channel 0",
            Box::new(|h| h.channels[0] = h.channels[0].with_reductions([0, 0, 0, 1])),
        ),
        (
            "no bit left to a component",
            "clip 0 channel 6",
            Box::new(|h| h.channels[6] = h.channels[6].with_reductions([0, 4, 0, 0])),
        ),
        (
            "frames past the data",
            "clip 0",
            Box::new(|h| h.clips[0].frame_count = 3),
        ),
        (
            "frame offset past the data",
            "clip 0",
            Box::new(|h| h.clips[0].frame_offset = 100),
        ),
        ("zero rate", "clip 0", Box::new(|h| h.clips[0].rate = 0.0)),
        (
            "NaN duration",
            "clip 0",
            Box::new(|h| h.clips[0].duration = f32::NAN),
        ),
        (
            "frames ending early",
            "clip 0",
            Box::new(|h| h.clips[0].duration = 5.0),
        ),
        (
            "no frames",
            "clip 0",
            Box::new(|h| h.clips[0].frame_count = 0),
        ),
        (
            "segment offset without segments",
            "clip 0",
            Box::new(|h| h.clips[0].segment_offset = 1),
        ),
        (
            "bit rate 25",
            "clip 0 channel 0",
            Box::new(|h| h.channels[0].code += 17),
        ),
        (
            "component past the record",
            "clip 0 channel 6",
            Box::new(|h| h.channels[6].bit_offset = 150),
        ),
        (
            "rotation layout past the whole rotation",
            "clip 0 channel 1",
            Box::new(|h| h.channels[1] = h.channels[1].with_layout(5)),
        ),
        (
            "range past the data",
            "clip 0 channel 0",
            Box::new(|h| h.channels[0] = ChannelCode::animated(8, false, 40, 0)),
        ),
        (
            "raw channel with a range",
            "clip 0 channel 1",
            Box::new(|h| h.channels[1] = ChannelCode::animated(32, false, 3, 24)),
        ),
        (
            "NaN range",
            "clip 0 channel 0",
            Box::new(|h| h.data[3] = 0x7E00),
        ),
        (
            "negative extent",
            "clip 0 channel 0",
            Box::new(|h| h.data[3] = 0xBC00 << 16),
        ),
        (
            "infinite constant",
            "clip 0 channel 2",
            Box::new(|h| h.data[1] = f32::INFINITY.to_bits()),
        ),
        (
            "constant past the data",
            "clip 0 channel 4",
            Box::new(|h| h.channels[4] = ChannelCode::constant(30)),
        ),
        (
            "rest with a value",
            "clip 0 channel 3",
            Box::new(|h| h.channels[3].code |= 5 << 8),
        ),
        (
            "NaN raw frame value",
            "clip 0 channel 1",
            Box::new(|h| {
                let at = h.clips[0].frame_offset as usize;
                h.data[at] |= 0x7fc0_0000 << 24;
                h.data[at + 1] |= 0x7fc0_0000 >> 8;
            }),
        ),
        (
            "channel count",
            "channels",
            Box::new(|h| {
                h.channels.pop();
            }),
        ),
    ];
    for (case, object, edit) in cases {
        let mut h = common::hand_compressed();
        edit(&mut h);
        match h.build() {
            Ok(_) => panic!("{case}: accepted"),
            Err(e) => assert_eq!(e.object, object, "{case}: {}", e.reason),
        }
    }
    let h = common::hand_compressed();
    let bad_budget =
        sinew::CompressedClips::from_parts(2, 1, h.clips, h.channels, h.data, 0.0, 0.0);
    assert_eq!(bad_budget.unwrap_err().object, "budget");
}

#[test]
fn the_checked_constructor_rejects_damaged_segment_tables() {
    assert!(common::hand_segmented().build().is_ok());
    type Edit = Box<dyn Fn(&mut common::HandCompressed)>;
    // Word `w` of segment `k` of the table.
    fn seg(h: &mut common::HandCompressed, k: usize, w: usize) -> &mut u32 {
        let at =
            h.clips[0].segment_offset as usize + k * sinew::bake::compressed::SEGMENT_WORDS + w;
        &mut h.data[at]
    }
    let f = |v: f32| v.to_bits();
    let cases: Vec<(&str, &str, Edit)> = vec![
        (
            "one segment",
            "clip 0 segments",
            Box::new(|h| h.clips[0].segment_count = 1),
        ),
        (
            "more than the cap",
            "clip 0 segments",
            Box::new(|h| {
                h.clips[0].segment_count = sinew::bake::compressed::MAX_SEGMENTS as u32 + 1
            }),
        ),
        (
            "table past the data",
            "clip 0 segments",
            Box::new(|h| h.clips[0].segment_offset = h.data.len() as u32 - 4),
        ),
        (
            "table offset past u32 words",
            "clip 0 segments",
            Box::new(|h| h.clips[0].segment_offset = u32::MAX),
        ),
        (
            "frame count not the segments'",
            "clip 0 segments",
            Box::new(|h| h.clips[0].frame_count = 2),
        ),
        (
            "last segment ends before the duration",
            "clip 0 segments",
            Box::new(|h| h.clips[0].duration = 1.75),
        ),
        (
            "first segment after 0 s",
            "clip 0 segment 0",
            Box::new(move |h| *seg(h, 0, 0) = f(0.5)),
        ),
        (
            "zero rate",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 1) = f(0.0)),
        ),
        (
            "NaN rate",
            "clip 0 segment 0",
            Box::new(move |h| *seg(h, 0, 1) = f(f32::NAN)),
        ),
        (
            "infinite rate",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 1) = f(f32::INFINITY)),
        ),
        (
            "NaN start",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 0) = f(f32::NAN)),
        ),
        (
            "start not increasing",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 0) = f(0.0)),
        ),
        (
            "start away from the previous end",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 0) = f(0.9)),
        ),
        (
            "no interval",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 3) = 0),
        ),
        (
            "first frame not the previous end",
            "clip 0 segment 1",
            Box::new(move |h| *seg(h, 1, 2) = 2),
        ),
        (
            "first frame of segment 0",
            "clip 0 segment 0",
            Box::new(move |h| *seg(h, 0, 2) = u32::MAX),
        ),
    ];
    for (case, object, edit) in cases {
        let mut h = common::hand_segmented();
        edit(&mut h);
        let result = std::panic::catch_unwind(move || h.build());
        match result {
            Err(_) => panic!("{case}: panicked"),
            Ok(Ok(_)) => panic!("{case}: accepted"),
            Ok(Err(e)) => assert_eq!(e.object, object, "{case}: {}", e.reason),
        }
    }
}

#[test]
fn a_version_1_file_from_the_old_writer_still_loads() {
    let path = common::repo().join("tests/data/v1_features.sinew");
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        u32_at(&bytes, VERSION_AT),
        1,
        "written by a version 1 build"
    );
    let rigs = read_file(&path).unwrap();
    assert!(!rigs.is_empty());
    for rig in &rigs {
        assert_eq!(rig.compressed, None);
        let clips = rig.clips.clip_count();
        if clips > 0 {
            let (models, _, _) = evaluate(rig, &[Layer::clip(0, 0.5)]);
            assert!(models.iter().all(|m| m.is_finite()));
        }
    }
}

#[test]
fn bake_compress_stores_what_inspect_reports() {
    let gltf = common::repo().join("assets/humanoid.glb");
    let gltf = gltf.to_str().unwrap();
    let baked = temp_path("cli-compressed.sinew");
    let baked = baked.to_str().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_sinew"))
        .args([
            "bake",
            gltf,
            "-o",
            baked,
            "--compress",
            "--error-budget",
            "0.2",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "sinew bake failed: {output:?}");
    let stored = sinew_json(&["inspect", baked, "--json"]);
    let rigs = read_file(baked).unwrap();
    std::fs::remove_file(baked).unwrap();
    let c = &stored["rigs"][0]["compression"];
    let clips = rigs[0].compressed.as_ref().unwrap();
    assert_eq!(c["stored"], true);
    assert_eq!(c["bytes"], clips.byte_size());
    assert!((c["budget_mm"].as_f64().unwrap() - 0.2).abs() < 1e-6, "{c}");
    assert!(c["max_error_mm"].as_f64().unwrap() <= 0.2, "{c}");
    assert!(c["ratio"].as_f64().unwrap() > 1.0, "{c}");
    // Each component's own bits, below the widest channel rate.
    let mean = clips.mean_component_bits();
    assert!(
        (c["mean_bits"].as_f64().unwrap() - mean).abs() < 1e-9,
        "{c}"
    );
    assert!(mean > 0.0 && mean <= 32.0, "{c}");
    // ACL's figures: 10 f32 per joint per sample at each clip's key rate, the ratio against
    // that, bits per joint-frame, and the error at every sample within the budget.
    let samples: usize = (0..rigs[0].clips.clip_count())
        .map(|i| sinew::bake::compressed::sample_times(&rigs[0], i).len())
        .sum();
    let joints = sinew::bake::compressed::acl_joints(&rigs[0]);
    assert!(joints > 0 && joints <= rigs[0].joint_count());
    let raw = 40 * joints * samples;
    assert_eq!(c["acl_raw_bytes"], raw, "{c}");
    let ratio = raw as f64 / clips.byte_size() as f64;
    assert!(
        (c["acl_ratio"].as_f64().unwrap() - ratio).abs() < 1e-9,
        "{c}"
    );
    let bits = clips.byte_size() as f64 * 8.0 / (joints * samples) as f64;
    assert!(
        (c["bits_per_joint_frame"].as_f64().unwrap() - bits).abs() < 1e-9,
        "{c}"
    );
    let sample_error = c["sample_error_mm"].as_f64().unwrap();
    assert!(sample_error > 0.0 && sample_error <= 0.2, "{c}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains(&format!("ACL raw {raw} bytes, {ratio:.2}:1")),
        "{said}"
    );
    // Each clip's segments as stored.
    let segments = c["segments"].as_array().unwrap();
    assert_eq!(segments.len(), clips.clips().len(), "{c}");
    for (i, s) in segments.iter().enumerate() {
        let s = s.as_array().unwrap();
        assert_eq!(s.len(), clips.segments(i).len(), "clip {i}: {c}");
        for (k, seg) in s.iter().enumerate() {
            assert_eq!(seg["intervals"], clips.segments(i)[k].intervals, "{c}");
        }
    }
    // Fox's Run keys have a gap: its clips go on segments, which inspect lists.
    if let Some(shared) = common::shared() {
        let fox = shared.join("gltf/Fox.glb");
        let fox = fox.to_str().unwrap();
        let text = Command::new(env!("CARGO_BIN_EXE_sinew"))
            .args(["inspect", fox])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains(" segments ["), "{text}");
        let json = sinew_json(&["inspect", fox, "--json"]);
        let segments = json["rigs"][0]["compression"]["segments"]
            .as_array()
            .unwrap();
        assert!(
            segments.iter().any(|s| s.as_array().unwrap().len() > 1),
            "{json}"
        );
    }
    let on_the_fly = sinew_json(&["inspect", gltf, "--json"]);
    let c = &on_the_fly["rigs"][0]["compression"];
    assert_eq!(c["stored"], false);
    assert!((c["budget_mm"].as_f64().unwrap() - 0.1).abs() < 1e-6, "{c}");
}

#[test]
fn pose_resampled_agrees_with_the_exact_pose_within_the_budget() {
    let gltf = common::repo().join("assets/humanoid.glb");
    let gltf = gltf.to_str().unwrap();
    let args = ["pose", gltf, "--anim", "1", "--times", "0,0.37,0.9"];
    let exact = sinew_json(&args);
    let mut resampled_args = args.to_vec();
    resampled_args.push("--resampled");
    let resampled = sinew_json(&resampled_args);
    assert_eq!(resampled["clips"], "compressed");
    assert_eq!(exact["clips"], "exact");
    assert_eq!(
        (&exact["backend"], &resampled["backend"]),
        (&"cpu".into(), &"cpu".into())
    );
    let frames = |v: &serde_json::Value| v["skins"][0]["frames"].as_array().unwrap().clone();
    let (fe, fr) = (frames(&exact), frames(&resampled));
    assert_eq!(fe.len(), 3);
    let mut differs = false;
    for (e, r) in fe.iter().zip(&fr) {
        for (me, mr) in e["world"]
            .as_array()
            .unwrap()
            .iter()
            .zip(r["world"].as_array().unwrap())
        {
            let m = |v: &serde_json::Value| -> Vec<f32> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap() as f32)
                    .collect()
            };
            let (me, mr) = (m(me), m(mr));
            differs |= me != mr;
            // ACL's metric on the world matrix: the origin and vertices 3 cm along each axis.
            let d = |i: usize| me[i] - mr[i];
            let origin = glam::Vec3::new(d(12), d(13), d(14));
            let mut worst = origin.length();
            for axis in 0..3 {
                let col = glam::Vec3::new(d(axis * 4), d(axis * 4 + 1), d(axis * 4 + 2));
                worst = worst.max((origin + col * 0.03).length());
            }
            assert!(
                worst <= common::COMPRESSED_SHIPPED_ERROR_M,
                "error {worst} m"
            );
        }
    }
    assert!(
        differs,
        "the resampled pose comes from the compressed clips"
    );
}

#[test]
fn acl_figures_of_the_cmu_walk_count_its_31_joints_at_120_hz() {
    let Some(mocap) = common::shared_mocap() else {
        return;
    };
    let asset = sinew::import_file(mocap.join("08_02.glb")).unwrap();
    let mut rigs = sinew::bake_rigs(&asset).unwrap();
    let rig = &mut rigs[0];
    rig.compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
    let clips = rig.compressed.as_ref().unwrap();
    let acl = sinew::bake::compressed::AclFigures::of(rig, clips);
    // The README's figure: 31 joints x 309 frames x 40 B.
    assert_eq!((acl.joints, acl.samples, acl.raw_bytes), (31, 309, 383_160));
    assert!(acl.max_error <= sinew::DEFAULT_ERROR_BUDGET, "{acl:?}");
}
