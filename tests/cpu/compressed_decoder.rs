//! Compressed clips: the decoder on hand-built channels (see `common::hand_compressed`).

use super::common::rigs::rigs_of;
use super::common::{
    COARSE_BUDGET_M, COARSE_ROOT_OFFSET_M, EXACT_TOLERANCE, SLERP_FIT_TOLERANCE,
    SLERP_FIT_WIDE_TOLERANCE, repo,
};
use glam::{Affine3A, Quat, Vec3, Vec3A, Vec4};
use sinew::cpu::decode::interpolate_rotation;
use sinew::{CompressedClips, CpuBackend, DEFAULT_ERROR_BUDGET, InstanceRecord, Layer};

/// The contract's dequantization, written out: `fma(extent, q * (1 / (2^b - 1)), min)`.
fn dq(q: u32, bits: u32, min: f32, extent: f32) -> f32 {
    extent.mul_add(q as f32 * (1.0 / ((1u32 << bits) - 1) as f32), min)
}

#[test]
fn quantized_channels_decode_to_their_range_and_interpolate() {
    let c = super::common::hand_compressed().build().unwrap();
    let rest = glam::Vec4::splat(9.0);
    let at = |t: f32| sinew::cpu::sample_channel(&c, 0, 0, rest, t);
    let f0 = glam::Vec4::new(
        dq(0, 8, 0.0, 2.0),
        dq(255, 8, -1.0, 4.0),
        dq(128, 8, 1.0, 0.0),
        0.0,
    );
    let f1 = glam::Vec4::new(
        dq(255, 8, 0.0, 2.0),
        dq(0, 8, -1.0, 4.0),
        dq(7, 8, 1.0, 0.0),
        0.0,
    );
    assert_eq!(at(0.0), f0);
    assert_eq!(at(1.0), f1);
    assert_eq!(at(0.25), f0 + (f1 - f0) * 0.25);
    // Times clamp to the clip and snap to a frame within 1e-4.
    assert_eq!(at(-3.0), f0);
    assert_eq!(at(7.0), f1);
    assert_eq!(at(1.0 - 5e-5), f1);
    assert!((f0.y - 3.0).abs() < 1e-6 && f1.x > 1.999_999);
}

#[test]
fn raw_rotations_rebuild_w_and_take_the_short_way() {
    let c = super::common::hand_compressed().build().unwrap();
    let at = |t: f32| sinew::cpu::sample_channel(&c, 0, 1, glam::Vec4::W, t);
    let w = (1.0f32 - 0.8 * 0.8).sqrt();
    assert_eq!(at(0.0), glam::Vec4::new(0.8, 0.0, 0.0, w));
    // Frame 1 (-0.8, 0, 0, w) is in the other hemisphere: negated to (0.8, 0, 0, -w), the
    // midpoint is (0.8, 0, 0, 0) normalized (half a turn about x), not the identity.
    assert_eq!(at(0.5), glam::Vec4::X);
    // A quarter of the way (the frames 147° apart): slerp's rotation, not normalized lerp's.
    let q = at(0.25);
    let (a, b) = (
        Quat::from_xyzw(0.8, 0.0, 0.0, w),
        Quat::from_xyzw(0.8, 0.0, 0.0, -w),
    );
    let err = angle_between(Quat::from_vec4(q), a.slerp(b, 0.25));
    assert!(err <= SLERP_FIT_WIDE_TOLERANCE, "{q}: {err} rad");
}

/// The angle (radians) of the rotation between unit quaternions `a` and `b`, in f64.
fn angle_between(a: Quat, b: Quat) -> f32 {
    let (a, b) = (a.as_dquat(), b.as_dquat());
    let d = (a.conjugate() * b).normalize();
    (2.0 * d.xyz().length().atan2(d.w.abs())) as f32
}

#[test]
fn rotations_between_frames_follow_slerp() {
    // Pairs from 0.5° to 90° apart about a tilted axis, at sixteenths of the way.
    let axis = Vec3::new(0.3, -0.5, 0.8).normalize();
    let a = Quat::from_axis_angle(Vec3::new(-0.6, 0.0, 0.8), 0.7);
    for degrees in [0.5f32, 3.0, 10.0, 25.0, 45.0, 60.0, 75.0, 90.0] {
        let b = Quat::from_axis_angle(axis, degrees.to_radians()) * a;
        // Both signs of b: the shorter arc either way.
        for b in [b, -b] {
            for i in 0..=16 {
                let u = i as f32 / 16.0;
                let q = interpolate_rotation(Vec4::from(a), Vec4::from(b), u);
                assert!((q.length() - 1.0).abs() < 1e-6, "{degrees}° u {u}: {q}");
                let err = angle_between(Quat::from_vec4(q), a.slerp(b, u));
                assert!(
                    err <= SLERP_FIT_TOLERANCE,
                    "{degrees}° u {u}: {err} rad from slerp"
                );
            }
        }
    }
    // The ends are the frames themselves.
    let b = Quat::from_rotation_z(1.0) * a;
    for (u, frame) in [(0.0, a), (1.0, b)] {
        let q = interpolate_rotation(a.into(), b.into(), u);
        assert!(
            angle_between(Quat::from_vec4(q), frame) < 1e-6,
            "u {u}: {q}"
        );
    }
}

#[test]
fn constant_and_rest_channels_need_no_frames() {
    let c = super::common::hand_compressed().build().unwrap();
    let rest = glam::Vec4::new(5.0, 6.0, 7.0, 0.0);
    for t in [0.0, 0.4, 1.0] {
        let s = |ch| sinew::cpu::sample_channel(&c, 0, ch, rest, t);
        assert_eq!(s(2), glam::Vec4::new(2.0, 3.0, 4.0, 0.0), "constant scale");
        assert_eq!(s(3), rest, "rest translation");
        assert_eq!(
            s(4),
            glam::Vec4::new(0.0, 0.6, 0.0, 0.8),
            "constant rotation"
        );
        assert_eq!(s(5), rest, "rest scale");
    }
}

#[test]
fn step_channels_hold_each_frame() {
    let c = super::common::hand_compressed().build().unwrap();
    let at = |t: f32| sinew::cpu::sample_channel(&c, 0, 6, glam::Vec4::ZERO, t);
    let f0 = glam::Vec4::new(
        0.0,
        dq(15, 4, 0.0, 1.0),
        dq(5, 4, 0.0, 1.0),
        dq(10, 4, 0.0, 1.0),
    );
    assert_eq!(at(0.0), f0);
    assert_eq!(at(0.99), f0, "held until the next frame");
    assert_eq!(
        at(1.0),
        glam::Vec4::splat(dq(15, 4, 0.0, 1.0)),
        "u == 1 takes frame f + 1"
    );
}

#[test]
fn rest_and_constant_channels_carry_no_frames() {
    let rig = rigs_of(&repo().join("assets/humanoid.glb")).remove(0);
    let c = CompressedClips::build(&rig, DEFAULT_ERROR_BUDGET).unwrap();
    let (mut rest, mut animated) = (0, 0);
    for clip in 0..rig.clips.clip_count() {
        let codes = c.clip_channels(clip);
        for j in 0..rig.joint_count() {
            for ch in sinew::Channel::ALL {
                let code = codes[j * 3 + ch as usize];
                if !rig.clips.is_animated(clip, j, ch) {
                    assert!(code.is_rest(), "clip {clip} joint {j} {ch:?}: {code:?}");
                    rest += 1;
                }
                animated += usize::from(code.is_animated());
            }
        }
        // The record holds the animated channels' bits back to back from bit 0, and ends
        // with the last of them.
        let record = c.clips()[clip];
        let mut spans: Vec<(u32, u32)> = codes
            .iter()
            .enumerate()
            .filter(|(_, code)| code.is_animated())
            .map(|(k, code)| {
                let size = code.record_bits(c.channel_kind(k));
                (code.first_bit(), size)
            })
            .collect();
        spans.sort_unstable();
        let mut end = 0;
        for &(first, size) in &spans {
            assert_eq!(first, end, "clip {clip}: no gap and no overlap");
            end += size;
        }
        assert_eq!(record.frame_words, end.div_ceil(32), "clip {clip}");
    }
    assert!(rest > 0 && animated > 0, "{rest} rest, {animated} animated");
}

#[test]
fn budgets_are_clamped_and_mismatched_compressed_clips_refused() {
    let rig = rigs_of(&repo().join("assets/synthetic/influences.glb")).remove(0);
    let nan = CompressedClips::build(&rig, f32::NAN).unwrap();
    assert_eq!(nan.budget(), DEFAULT_ERROR_BUDGET);
    let tiny = CompressedClips::build(&rig, 0.0).unwrap();
    assert_eq!(tiny.budget(), sinew::bake::compressed::MIN_ERROR_BUDGET);
    assert!(
        tiny.byte_size() > nan.byte_size(),
        "a smaller budget takes more bits"
    );
    let huge = CompressedClips::build(&rig, f32::INFINITY).unwrap();
    assert_eq!(huge.budget(), sinew::bake::compressed::MAX_ERROR_BUDGET);
    let mut other = rig.clone();
    other.compressed = Some(
        CompressedClips::build(&rigs_of(&repo().join("assets/humanoid.glb"))[0], 1e-4).unwrap(),
    );
    let err = CpuBackend::with_compressed(vec![other], Vec::new()).unwrap_err();
    assert!(
        matches!(err, sinew::EvalError::InvalidRig { ref reason, .. } if reason.contains("compressed")),
        "{err:?}"
    );
}

/// One joint whose rotation is stored raw in `layout`: two frames of the stored components
/// `a` and `b` (3, or 4 for the whole rotation), translation and scale at rest.
fn raw_rotation(layout: u32, a: &[f32], b: &[f32]) -> CompressedClips {
    use sinew::ChannelCode;
    let words = (a.len() * 32).div_ceil(32);
    let mut data = vec![0u32; 2 * words];
    for (f, values) in [a, b].into_iter().enumerate() {
        for (c, v) in values.iter().enumerate() {
            super::common::put_bits(&mut data[f * words..], c * 32, 32, v.to_bits());
        }
    }
    let channels = vec![
        ChannelCode::rest(),
        ChannelCode::animated(32, false, 0, 0).with_layout(layout),
        ChannelCode::rest(),
    ];
    let clips = vec![sinew::CompressedClip {
        rate: 1.0,
        duration: 1.0,
        frame_count: 2,
        channel_offset: 0,
        frame_offset: 0,
        frame_words: words as u32,
        segment_offset: 0,
        segment_count: 0,
    }];
    CompressedClips::from_parts(1, 0, clips, channels, data, 1e-4, 0.0).unwrap()
}

#[test]
fn rotations_rebuild_the_dropped_component_in_its_place() {
    use glam::Vec4;
    use sinew::ChannelCode;
    // Stored (0.6, 0, 0) and (0, 0.6, 0): the dropped component is 0.8 at both frames.
    let cases = [
        (
            ChannelCode::DROP_X,
            Vec4::new(0.8, 0.6, 0.0, 0.0),
            Vec4::new(0.8, 0.0, 0.6, 0.0),
        ),
        (
            ChannelCode::DROP_Y,
            Vec4::new(0.6, 0.8, 0.0, 0.0),
            Vec4::new(0.0, 0.8, 0.6, 0.0),
        ),
        (
            ChannelCode::DROP_Z,
            Vec4::new(0.6, 0.0, 0.8, 0.0),
            Vec4::new(0.0, 0.6, 0.8, 0.0),
        ),
        (
            ChannelCode::DROP_W,
            Vec4::new(0.6, 0.0, 0.0, 0.8),
            Vec4::new(0.0, 0.6, 0.0, 0.8),
        ),
    ];
    for (layout, f0, f1) in cases {
        let c = raw_rotation(layout, &[0.6, 0.0, 0.0], &[0.0, 0.6, 0.0]);
        let at = |t: f32| sinew::cpu::sample_channel(&c, 0, 1, Vec4::W, t);
        let w = (1.0f32 - 0.6 * 0.6).sqrt();
        let put = |v: Vec4| v.to_array().map(|x| if x == 0.8 { w } else { x });
        assert_eq!(at(0.0).to_array(), put(f0), "layout {layout} frame 0");
        assert_eq!(at(1.0).to_array(), put(f1), "layout {layout} frame 1");
        let mid = (Vec4::from_array(put(f0)) + Vec4::from_array(put(f1))) * 0.5;
        let q = at(0.5);
        assert!(
            (q - mid.normalize()).abs().max_element() < 1e-7,
            "layout {layout}: {q}"
        );
    }
}

#[test]
fn whole_rotations_are_normalized_and_take_the_short_way() {
    use glam::Vec4;
    // Twice (0, 0, 0.6, 0.8), then the same turn negated and not unit: the second frame
    // is flipped into the first one's hemisphere.
    let c = raw_rotation(
        sinew::ChannelCode::FULL_ROTATION,
        &[0.0, 0.0, 1.2, 1.6],
        &[-0.3, 0.0, 0.0, -0.4],
    );
    let at = |t: f32| sinew::cpu::sample_channel(&c, 0, 1, Vec4::W, t);
    let near = |a: Vec4, b: Vec4| (a - b).abs().max_element() < 1e-7;
    assert!(near(at(0.0), Vec4::new(0.0, 0.0, 0.6, 0.8)), "{}", at(0.0));
    assert!(near(at(1.0), Vec4::new(0.6, 0.0, 0.0, 0.8)), "{}", at(1.0));
    let mid = Vec4::new(0.3, 0.0, 0.3, 0.8).normalize();
    assert!(near(at(0.5), mid), "{}", at(0.5));
}

#[test]
fn rotation_layouts_are_checked() {
    use sinew::ChannelCode;
    let build = |codes: [ChannelCode; 3], frame_words: u32| {
        CompressedClips::from_parts(
            1,
            0,
            vec![sinew::CompressedClip {
                rate: 1.0,
                duration: 1.0,
                frame_count: 2,
                channel_offset: 0,
                frame_offset: 0,
                frame_words,
                segment_offset: 0,
                segment_count: 0,
            }],
            codes.to_vec(),
            vec![0; 2 * frame_words as usize],
            1e-4,
            0.0,
        )
    };
    let raw = ChannelCode::animated(32, false, 0, 0);
    let rest = ChannelCode::rest();
    let full = raw.with_layout(ChannelCode::FULL_ROTATION);
    assert!(build([rest, full, rest], 4).is_ok());
    assert!(build([rest, raw.with_layout(ChannelCode::DROP_Z), rest], 3).is_ok());
    // Four raw components do not fit a 3-word record.
    let err = build([rest, full, rest], 3).unwrap_err();
    assert!(err.to_string().contains("past the 96-bit"), "{err}");
    let err = build([rest, raw.with_layout(5), rest], 4).unwrap_err();
    assert!(err.to_string().contains("layout 5"), "{err}");
    let err = build([raw.with_layout(ChannelCode::DROP_X), rest, rest], 4).unwrap_err();
    assert!(err.to_string().contains("layout 1"), "{err}");
}

/// Root motion on the compressed CPU twin samples the root from the compressed clips: on the
/// humanoid compressed at a coarse budget, where its hips decode measurably off the exact keys,
/// [`CpuBackend::advance_root_motion`] moves the world by the decoded hips' step (taken to
/// model space), not by the exact one.
#[test]
fn compressed_root_motion_samples_the_compressed_root_track() {
    use sinew::cpu::{RootFrame, sample_channel};
    use sinew::{TimeWrap, import::Channel};
    let mut rig = rigs_of(&repo().join("assets/humanoid.glb")).remove(0);
    rig.compress(COARSE_BUDGET_M).unwrap();
    let hips = rig.skeleton.find_joint("Hips").unwrap();
    let clip = (0..rig.clips.clip_count())
        .find(|&c| rig.clips.track(c, hips, Channel::Translation).key_count > 1)
        .unwrap();
    let (prev, now) = (0.1, 0.45);
    assert!(rig.clips.clips()[clip].duration > now);
    let layer = Layer::clip(clip as u32, 0.0).to_record().with_clock(
        0.0,
        0.0,
        1.0,
        TimeWrap::Clamp,
        rig.clips.clips()[clip].duration,
    );
    let mut record = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
    record.layer_count = 1;
    record.layers[0] = layer;
    record.flags = hips as u32 | InstanceRecord::HOLD_ROOT_XYZ | InstanceRecord::gpu_root_motion(1);
    let moved_by = |backend: &CpuBackend| {
        let mut r = record;
        backend.advance_root_motion(&mut r, prev, now).unwrap();
        r.world.to_affine().translation
    };
    let compressed = CpuBackend::with_compressed(vec![rig.clone()], Vec::new()).unwrap();
    let exact = CpuBackend::new(vec![rig.clone()], Vec::new()).unwrap();
    // The decoder's hips, by hand.
    let clips = rig.compressed.as_ref().unwrap();
    let rest = rig.skeleton.rest_pose()[hips].translation.extend(0.0);
    let at = |t: f32| sample_channel(clips, clip, hips * 3, rest, t).truncate();
    let expected = Vec3A::from(RootFrame::of_root(&rig, hips).vector_to_model(at(now) - at(prev)));
    let got = moved_by(&compressed);
    assert!(
        (got - expected).abs().max_element()
            <= EXACT_TOLERANCE * expected.abs().max_element().max(1.0),
        "compressed twin moved {got}, the decoded hips {expected}"
    );
    let off = (moved_by(&exact) - expected).abs().max_element();
    assert!(
        off > COARSE_ROOT_OFFSET_M,
        "the coarse budget moves the decoded hips off the exact ones ({off})"
    );
}
