//! Each frame, after Bevy's transform propagation and before its visibility checks: characters'
//! transforms into sinew's runtime, [`sinew::runtime::Animator::update`], evaluation (on the
//! CPU, exact [`sinew::CpuBackend`] through the animator or [`sinew::FastCpuBackend`], into the
//! palette buffer; or the changed records handed to the render world's [`sinew::GpuBackend`],
//! `evaluate_gpu.rs`), and back into Bevy: palette offsets ([`MeshTag`]), animated boxes ([`Aabb`])
//! of the mesh entities, root motion into `Transform`s, sockets, events.

use bevy::camera::primitives::Aabb;
use bevy::mesh::MeshTag;
use bevy::prelude::*;
use bevy::render::renderer::RenderDevice;
use bevy::render::storage::ShaderBuffer;
use sinew::runtime::{Animator, Attachment, Scheduling, Transform as SinewTransform};
use sinew::{FastCpuBackend, Mat3x4Rows};

use crate::control::{SinewEvent, SinewRootMotion, SinewSocket};
use crate::convert::{affine_to_bevy, to_bevy, to_sinew};
use crate::evaluate_gpu::{GpuBounds, GpuFrame};
use crate::palette::SinewPalette;
use crate::plugin::SinewBackend;
use crate::runtime::SinewRuntime;
use crate::spawn::{BevyEntity, SinewInstance, SinewMeshes};

/// A socket's entity in sinew's world.
#[derive(Component, Clone, Copy, Debug)]
pub(crate) struct SocketInstance(hecs::Entity);

/// Characters whose transform changed and that do not own it through root motion.
type MovedWithoutRootMotion = (Changed<GlobalTransform>, Without<SinewRootMotion>);

/// A character's parts that [`sync_out`] writes.
type CharacterOut<'a> = (
    &'a mut SinewInstance,
    Option<&'a SinewMeshes>,
    &'a mut Transform,
    &'a mut GlobalTransform,
    Has<SinewRootMotion>,
);

/// Moved characters (without root motion) carry their transform into sinew's world; new
/// sockets get their attachment.
pub(crate) fn sync_in(
    mut commands: Commands,
    mut runtime: ResMut<SinewRuntime>,
    moved: Query<(&SinewInstance, &GlobalTransform), MovedWithoutRootMotion>,
    instances: Query<&SinewInstance>,
    new_sockets: Query<(Entity, &SinewSocket), Without<SocketInstance>>,
) {
    let rt = &mut *runtime;
    for (instance, global) in &moved {
        let t = to_sinew(&global.compute_transform());
        if let Ok(mut current) = rt.world.get::<&mut SinewTransform>(instance.entity)
            && *current != t
        {
            *current = t;
            rt.animator.touch(instance.entity);
        }
    }
    for (entity, socket) in &new_sockets {
        let Ok(target) = instances.get(socket.character) else {
            continue;
        };
        let offset = &socket.offset;
        let attachment = Attachment::new(target.entity, &socket.joint).with_offset(
            glam::Vec3::from_array(offset.translation.to_array()),
            glam::Quat::from_array(offset.rotation.to_array()),
        );
        let hecs_entity = rt.world.spawn((attachment,));
        commands.entity(entity).insert(SocketInstance(hecs_entity));
    }
}

/// Updates the animator and evaluates the palette on the CPU (or hands the changed records to
/// the GPU backend); adds and grows palette pages as the animator's palette grows.
#[allow(clippy::too_many_arguments)] // A Bevy system: one parameter per resource it touches.
pub(crate) fn update_and_evaluate(
    time: Res<Time>,
    mut runtime: ResMut<SinewRuntime>,
    mut palette: ResMut<SinewPalette>,
    mut buffers: ResMut<Assets<ShaderBuffer>>,
    mut materials: ResMut<Assets<crate::SinewMaterial>>,
    mut events: MessageWriter<SinewEvent>,
    gpu: Option<(ResMut<GpuFrame>, Res<GpuBounds>)>,
    device: Option<Res<RenderDevice>>,
) {
    let rt = &mut *runtime;
    rt.frame += 1;
    if let Err(e) = rt.animator.update(&mut rt.world, time.delta_secs()) {
        warn!("sinew: {e}");
    }
    for event in rt.animator.drain_events() {
        // Each runtime entity carries the Bevy entity it animates.
        if let Ok(owner) = rt.world.get::<&BevyEntity>(event.entity) {
            events.write(SinewEvent {
                entity: owner.0,
                name: event.name.to_string(),
                clip: event.clip,
            });
        }
    }
    palette.grow(
        rt.animator.palette().capacity(),
        device.as_deref(),
        &mut buffers,
        &mut materials,
    );
    if let Some((mut frame, bounds)) = gpu {
        // The render world evaluates and copies its palette into the buffer.
        frame.record(&rt.animator, &palette.table, rt.frame);
        rt.bounds_frame = bounds.take_into(&mut rt.bounds, rt.frame);
        return;
    }
    rt.bounds_frame = rt.frame;
    let result = if rt.backend == SinewBackend::FastCpu {
        evaluate_fast(rt).map(|()| palette.cpu.swap(&mut rt.fast_palette))
    } else {
        match rt.animator.evaluate_cpu() {
            Ok(pose) => {
                palette.cpu.copy_from(pose.palette);
                rt.record_bounds.clear();
                rt.record_bounds.extend_from_slice(pose.bounds);
                by_slot(&rt.animator, &rt.world, &rt.record_bounds, &mut rt.bounds);
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        }
    };
    if let Err(e) = result {
        warn!("sinew: evaluation failed: {e}");
    }
}

/// The exact evaluation's boxes indexed by slot, as the other backends give them: per-frame
/// scheduling evaluates (and boxes) its records in update order.
fn by_slot(
    animator: &Animator,
    world: &hecs::World,
    boxes: &[sinew::Aabb],
    out: &mut Vec<sinew::Aabb>,
) {
    out.clear();
    out.resize(animator.slot_records().len(), sinew::Aabb::EMPTY);
    match animator.scheduling() {
        Scheduling::EventDriven => out[..boxes.len()].copy_from_slice(boxes),
        Scheduling::PerFrame => {
            for (entity, b) in animator.record_entities().iter().zip(boxes) {
                if let Some(slot) = animator.slot_of(world, *entity)
                    && let Some(slot) = out.get_mut(slot as usize)
                {
                    *slot = *b;
                }
            }
        }
    }
}

/// The fast backend's evaluation of the animator's records into `rt.fast_palette`.
fn evaluate_fast(rt: &mut SinewRuntime) -> Result<(), String> {
    if rt.fast.is_none() {
        rt.fast = Some(
            FastCpuBackend::new(
                rt.animator.rigs().to_vec(),
                rt.animator.masks().to_vec(),
                sinew::cpu::fast::DEFAULT_RATE,
            )
            .map_err(|e| e.to_string())?,
        );
    }
    // By slot, whatever the scheduling: the boxes are indexed by slot.
    let records = rt.animator.slot_records();
    let fast = rt.fast.as_mut().ok_or("no fast backend")?;
    let entries = rt.animator.palette().capacity() as usize;
    rt.fast_palette.resize(entries, Mat3x4Rows::IDENTITY);
    rt.bounds.resize(records.len(), sinew::Aabb::EMPTY);
    fast.evaluate_at(
        rt.animator.frame_time(),
        records,
        &mut rt.fast_palette,
        &mut rt.bounds,
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

/// A mesh entity's parts that [`sync_out`] writes.
type PartOut<'a> = (
    &'a mut MeshTag,
    &'a mut MeshMaterial3d<crate::SinewMaterial>,
    &'a mut Visibility,
    &'a mut Aabb,
);

/// Palette pages and offsets of newly placed characters, boxes, root motion and sockets back
/// into Bevy.
pub(crate) fn sync_out(
    runtime: Res<SinewRuntime>,
    mut palette: ResMut<SinewPalette>,
    mut materials: ResMut<Assets<crate::SinewMaterial>>,
    mut characters: Query<CharacterOut, Without<SocketInstance>>,
    mut parts: Query<PartOut>,
    mut sockets: Query<
        (&SocketInstance, &mut Transform, &mut GlobalTransform),
        Without<SinewInstance>,
    >,
) {
    let rt = &*runtime;
    for (mut instance, meshes, mut transform, mut global, root_motion) in &mut characters {
        let placed = instance.palette_offset.is_some();
        if !placed {
            instance.palette_offset = rt
                .animator
                .record_of(&rt.world, instance.entity)
                .map(|r| r.palette_offset);
            instance.placed_frame = rt.frame;
        }
        // Boxes evaluated before the character was placed belong to whoever held its slot.
        let bounds = rt
            .slot_of(instance.entity)
            .filter(|_| rt.bounds_frame >= instance.placed_frame)
            .and_then(|slot| rt.bounds.get(slot as usize))
            .filter(|b| !b.is_empty());
        if let Some(meshes) = meshes {
            for &part in meshes.entities() {
                let Ok((mut tag, mut material, mut visibility, mut aabb)) = parts.get_mut(part)
                else {
                    continue;
                };
                if !placed && let Some(offset) = instance.palette_offset {
                    let (page, local) = palette.place(offset);
                    *tag = MeshTag(local);
                    material.0 = palette.on_page(&material.0, page, &mut materials);
                    *visibility = Visibility::Inherited;
                }
                if let Some(b) = bounds {
                    let (lo, hi) = (b.min3(), b.max3());
                    *aabb = Aabb::from_min_max(
                        Vec3::new(lo.x, lo.y, lo.z),
                        Vec3::new(hi.x, hi.y, hi.z),
                    );
                }
            }
        }
        if root_motion && let Ok(t) = rt.world.get::<&SinewTransform>(instance.entity) {
            let moved = to_bevy(&t);
            if *transform != moved {
                *transform = moved;
                *global = GlobalTransform::from(moved);
            }
        }
    }
    for (socket, mut transform, mut global) in &mut sockets {
        if let Ok(attachment) = rt.world.get::<&Attachment>(socket.0) {
            let m = affine_to_bevy(&attachment.world());
            *global = GlobalTransform::from(m);
            *transform = global.compute_transform();
        }
    }
}

/// A despawned socket leaves sinew's world.
pub(crate) fn forget_socket(
    remove: On<Remove, SocketInstance>,
    sockets: Query<&SocketInstance>,
    mut runtime: ResMut<SinewRuntime>,
) {
    if let Ok(socket) = sockets.get(remove.entity) {
        runtime.world.despawn(socket.0).ok();
    }
}
