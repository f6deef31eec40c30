//! Errors and host devices.

use glam::Affine3A;
use sinew::gpu::EvaluateShape;
use sinew::{EvalError, GpuBackend, GpuContext, GpuError, InstanceRecord, JointMask, Layer};

use super::common::Rng;
use super::fixtures::{chain_rig, fan_rig, gpu, random_layers, repo_rig_or};
use super::oracle::{assert_backend_matches_cpu, pack};

#[test]
fn bad_records_are_typed_errors() {
    let Some(ctx) = gpu() else { return };
    let rigs = vec![chain_rig(5)];
    let masks = vec![
        JointMask::uniform(&rigs[0].skeleton, 0.5),
        JointMask {
            weights: vec![1.0; 3],
        },
    ];
    let mut backend = GpuBackend::new(ctx, &rigs, &masks).unwrap();
    let world = Affine3A::IDENTITY;
    let ok = InstanceRecord::new(0, 0, &world, &[Layer::clip(0, 0.1)]).unwrap();
    backend.evaluate(&[ok]).unwrap();
    let eval_err = |backend: &mut GpuBackend, rec: InstanceRecord| match backend.evaluate(&[rec]) {
        Err(GpuError::Eval(e)) => e,
        other => panic!("expected an evaluation error, got {other:?}"),
    };
    let bad_rig = InstanceRecord { rig: 3, ..ok };
    assert!(matches!(
        eval_err(&mut backend, bad_rig),
        EvalError::NoSuchRig { rig: 3, .. }
    ));
    let bad_clip = InstanceRecord::new(0, 0, &world, &[Layer::clip(9, 0.1)]).unwrap();
    assert!(matches!(
        eval_err(&mut backend, bad_clip),
        EvalError::NoSuchClip { clip: 9, .. }
    ));
    let mut masked = Layer::clip(0, 0.1);
    masked.mask = Some(1);
    let wrong_mask = InstanceRecord::new(0, 0, &world, &[masked]).unwrap();
    assert!(matches!(
        eval_err(&mut backend, wrong_mask),
        EvalError::NoSuchMask { mask: 1, .. }
    ));
    let nan = InstanceRecord::new(0, 0, &world, &[Layer::clip(0, f32::NAN)]).unwrap();
    assert!(matches!(
        eval_err(&mut backend, nan),
        EvalError::BadLayer { .. }
    ));
    let beyond = InstanceRecord {
        palette_offset: backend.palette_capacity() - 2,
        ..ok
    };
    assert!(matches!(
        eval_err(&mut backend, beyond),
        EvalError::OutputSize { .. }
    ));
    assert!(
        backend
            .read_palette(0..backend.palette_capacity() + 1)
            .is_err()
    );
    // An empty frame is fine and dispatches nothing.
    backend.evaluate(&[]).unwrap();
    assert_eq!(backend.dispatches_last_frame(), 0);
}

#[test]
fn wgpu_validation_errors_come_back_as_gpu_errors() {
    let Some(ctx) = gpu() else { return };
    let device = &ctx.device;
    let result = sinew::gpu::capture(device, || {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("invalid: map-read storage"),
            size: 16,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        })
    });
    assert!(matches!(result, Err(GpuError::Validation(_))), "{result:?}");
}

#[test]
fn a_host_device_is_used_as_given() {
    let Some(ctx) = gpu() else { return };
    let host = GpuContext::from_device(&ctx.device, &ctx.queue);
    let rigs = vec![fan_rig(9)];
    let mut backend = GpuBackend::new(&host, &rigs, &[]).unwrap();
    let records = pack(
        &rigs,
        &[(
            0,
            0,
            Affine3A::from_rotation_y(0.7),
            vec![Layer::clip(0, 0.8)],
        )],
    );
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|_| {
        "host device".into()
    });
}

/// A host device asked for wgpu's default limits only (16 KiB of workgroup memory) runs the
/// narrow evaluate shape, refuses the wide one with a typed error, and evaluates as the CPU does.
#[test]
fn a_host_device_at_the_default_limits_runs_the_narrow_shape() {
    let Some(_) = gpu() else { return };
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::all());
    let instance = wgpu::Instance::new(desc);
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .unwrap();
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let mut host = GpuContext::from_device(&device, &queue);
    assert_eq!(host.evaluate_shape(), EvaluateShape::NARROW);
    let refused = host.set_evaluate_shape(EvaluateShape::WIDE);
    assert_eq!(host.evaluate_shape(), EvaluateShape::NARROW);
    assert!(
        matches!(
            refused,
            Err(GpuError::LimitExceeded {
                limit: "max_compute_workgroup_storage_size",
                needed: 32768,
                available: 16384,
            })
        ),
        "{refused:?}"
    );
    // Six 64-joint instances: a pass of four and one of two.
    let rigs = vec![repo_rig_or("synthetic/rig64.glb", || chain_rig(64))];
    let mut rng = Rng(33);
    let items: Vec<_> = (0..6)
        .map(|_| {
            let layers = random_layers(&rigs[0], &mut rng, 0, 0, 2);
            (0, 0, rng.world(), layers)
        })
        .collect();
    let records = pack(&rigs, &items);
    let mut backend = GpuBackend::new(&host, &rigs, &[]).unwrap();
    assert_backend_matches_cpu(&mut backend, &rigs, &[], &records, &|i| {
        format!("default-limits device, record {i}: layers {:?}", items[i].3)
    });
}
