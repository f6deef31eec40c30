//! Blend-space input ramps from the animator, evaluated by the kernel: the records that carry
//! them evaluate on the GPU as on the CPU, and go up once per region of the space.

use glam::Vec2;
use hecs::World;
use sinew::GpuBackend;
use sinew::runtime::{
    Animated, Animator, BlendSample, BlendSpaceDef, InputRamp, RecordChanges, Transform,
};

use super::fixtures::gpu;
use super::oracle::assert_evaluated_matches_cpu;
use super::root_motion::walker_rig;

/// Samples of a blend space: clip names at points.
fn samples(points: &[(&str, f32, f32)]) -> Vec<BlendSample> {
    let sample = |&(clip, x, y): &(&str, f32, f32)| BlendSample {
        clip: clip.to_string(),
        x,
        y,
    };
    points.iter().map(sample).collect()
}

#[test]
fn ramped_records_evaluate_on_the_gpu_as_on_the_cpu_and_upload_once_per_region() {
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let mut a = Animator::new(vec![rig.clone()]).unwrap();
    let line = BlendSpaceDef {
        x: "speed".to_string(),
        y: None,
        samples: samples(&[("walk", 0.0, 0.0), ("run", 1.0, 0.0), ("turn", 2.0, 0.0)]),
    };
    let plane = BlendSpaceDef {
        x: "speed".to_string(),
        y: Some("turn".to_string()),
        samples: samples(&[("walk", 0.0, 0.0), ("run", 1.0, 0.0), ("turn", 0.0, 1.0)]),
    };
    let spaces = [
        a.add_blend_space(0, "line", &line).unwrap(),
        a.add_blend_space(0, "plane", &plane).unwrap(),
    ];
    let mut world = World::new();
    let mut entities = Vec::new();
    for k in 0..12 {
        let space = spaces[k % 2];
        let value = Vec2::new(0.1 * k as f32 % 1.0, 0.05 * k as f32 % 0.5);
        let e = world.spawn((
            Animated::new(0),
            Transform::from_translation(glam::Vec3::X * k as f32),
            a.blend_space_fade(0, space, value).unwrap(),
        ));
        let rate = Vec2::new(0.4 - 0.07 * k as f32, 0.1 + 0.03 * k as f32);
        let ramp = InputRamp::new(value, rate, 1.0 + 0.2 * k as f32).unwrap();
        a.set_blend_input_ramp(&mut world, e, space, ramp).unwrap();
        entities.push(e);
    }
    let mut backend = GpuBackend::new(ctx, &[rig], &[]).unwrap();
    let mut changes = RecordChanges::default();
    let (frames, mut uploaded) = (150, 0);
    for frame in 0..frames {
        a.update(&mut world, 1.0 / 60.0).unwrap();
        changes.take_from(&a);
        changes.apply(&mut backend).unwrap();
        backend.evaluate_resident(changes.frame_time()).unwrap();
        if frame > 0 {
            uploaded += backend.last_frame().records_uploaded;
        }
        if frame % 25 == 24 {
            let records = a.slot_records().to_vec();
            assert_evaluated_matches_cpu(
                &mut backend,
                a.rigs(),
                &[],
                &records,
                a.frame_time(),
                &|i| format!("frame {frame}, slot {i}: {:?}", records[i].used_layers()),
            );
        }
    }
    // Per frame, the inputs would write every record every frame.
    let every_frame = (entities.len() * (frames - 1)) as u64;
    assert!(
        uploaded * 10 < every_frame,
        "{uploaded} records uploaded (every frame: {every_frame})"
    );
}
