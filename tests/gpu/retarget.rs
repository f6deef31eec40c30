//! Retargeting in the kernel: an instance of one rig plays another rig's clip through a retarget
//! map (and its mirror), and its palette is the CPU twin's (`sinew::cpu::retarget_pose`,
//! propagation and skinning) for the same map.

use glam::{Affine3A, Vec3};
use sinew::baked::retarget_map::RetargetMap;
use sinew::cpu::{local_to_model, retarget_pose, skin_palette};
use sinew::gpu::{ClipFormat, GpuOptions, RetargetBinding};
use sinew::{GpuBackend, InstanceRecord, LayerRecord, Mat3x4Rows, Rig, Sqt};

use super::fixtures::{gpu, load, repo_file, shared_file};

/// The CPU palette of an instance of `target` playing `clip` of `source` through `map` at `time`.
fn cpu_palette(
    target: &Rig,
    source: &Rig,
    map: &RetargetMap,
    clip: usize,
    time: f32,
) -> Vec<Mat3x4Rows> {
    let n = target.joint_count();
    let mut locals = vec![Sqt::IDENTITY; n];
    retarget_pose(map, source, clip, time, &mut locals);
    let mut models = vec![Affine3A::IDENTITY; n];
    local_to_model(&target.skeleton, &Affine3A::IDENTITY, &locals, &mut models);
    let mut palette = vec![Mat3x4Rows::default(); n];
    skin_palette(&target.skeleton, &models, &mut palette);
    palette
}

/// The largest difference between two palette entries' elements.
fn max_difference(a: &Mat3x4Rows, b: &Mat3x4Rows) -> f32 {
    let pairs = a.rows.iter().flatten().zip(b.rows.iter().flatten());
    pairs.map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// The humanoid (rig 0, every pair's target), then the first rig of each of `shared` (the
/// shared glTF assets) that is there: every rig is a source onto the humanoid, the humanoid
/// onto itself included.
fn humanoid_and_sources(shared: &[&str]) -> Vec<Rig> {
    let humanoid = repo_file("humanoid.glb").expect("assets/humanoid.glb");
    let mut rigs = load(&humanoid);
    rigs.truncate(1);
    for name in shared {
        if let Some(path) = shared_file(name).filter(|p| p.is_file()) {
            rigs.push(load(&path).remove(0));
        }
    }
    rigs
}

#[test]
fn retargeted_and_mirrored_layers_match_the_cpu_twin() {
    let Some(ctx) = gpu() else { return };
    // Pairs of (source, target) rigs: the humanoid onto itself (mirrored: a map with reflected
    // samples), and the Fox and CesiumMan onto the humanoid where the shared assets are.
    let rigs = humanoid_and_sources(&["Fox.glb", "CesiumMan.glb"]);
    let pairs: Vec<(u32, u32)> = (0..rigs.len() as u32).map(|s| (s, 0)).collect();
    let mut bindings: Vec<RetargetBinding> = pairs
        .iter()
        .map(|&(s, t)| {
            let map =
                RetargetMap::build(&rigs[s as usize].skeleton, &rigs[t as usize].skeleton, None)
                    .unwrap();
            RetargetBinding::new(&rigs, s, t, map).unwrap()
        })
        .collect();
    // The humanoid onto itself again, mirrored across z = 0: the plane goes up with the row.
    let map = RetargetMap::build(&rigs[0].skeleton, &rigs[0].skeleton, None).unwrap();
    let z =
        RetargetBinding::with_mirror_plane(&rigs, 0, 0, map, sinew::math::MirrorPlane::Z).unwrap();
    assert_ne!(z.mirrored, bindings[0].mirrored);
    bindings.push(z);
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend.set_retargets(&rigs, &[], &bindings).unwrap();
    let n = rigs[0].joint_count();
    let mut records = Vec::new();
    let mut expected = Vec::new();
    for (m, b) in bindings.iter().enumerate() {
        let source = &rigs[b.source as usize];
        for clip in 0..source.clips.clip_count() {
            for (mirror, map) in [(false, &b.map), (true, &b.mirrored)] {
                let time = 0.37 * (clip + 1) as f32;
                let mut layer = LayerRecord {
                    clip: LayerRecord::retargeted(clip as u16, m as u16),
                    time,
                    ..LayerRecord::STILL
                };
                if mirror {
                    layer.flags |= LayerRecord::MIRROR;
                }
                let mut record =
                    InstanceRecord::new(0, (records.len() * n) as u32, &Affine3A::IDENTITY, &[])
                        .unwrap();
                record.layer_count = 1;
                record.layers[0] = layer;
                records.push(record);
                expected.push((
                    cpu_palette(&rigs[0], source, map, clip, time),
                    format!("map {m} clip {clip} mirror {mirror}"),
                ));
            }
        }
    }
    let len = (records.len() * n) as u32;
    backend.reserve_palette(len).unwrap();
    backend.evaluate_at(0.0, &records).unwrap();
    let palette = backend.read_palette(0..len).unwrap();
    let mut rest = vec![Affine3A::IDENTITY; n];
    local_to_model(
        &rigs[0].skeleton,
        &Affine3A::IDENTITY,
        rigs[0].skeleton.rest_pose(),
        &mut rest,
    );
    let mut rest_palette = vec![Mat3x4Rows::default(); n];
    skin_palette(&rigs[0].skeleton, &rest, &mut rest_palette);
    let rest = rest_palette;
    let mut differs_from_rest = 0;
    for (i, (want, what)) in expected.iter().enumerate() {
        let got = &palette[i * n..(i + 1) * n];
        for j in 0..n {
            for r in 0..3 {
                for c in 0..4 {
                    let (g, w) = (got[j].rows[r][c], want[j].rows[r][c]);
                    assert!(
                        (g - w).abs() < 2e-4,
                        "{what} joint {j}: GPU {:?} CPU {:?}",
                        got[j],
                        want[j]
                    );
                }
            }
        }
        let moved = |(a, b): (&Mat3x4Rows, &Mat3x4Rows)| {
            (0..3).any(|r| (0..4).any(|c| (a.rows[r][c] - b.rows[r][c]).abs() > 1e-3))
        };
        if got.iter().zip(&rest).any(moved) {
            differs_from_rest += 1;
        }
    }
    // The clips move the target: the kernel did not just hold the rest pose.
    assert!(
        differs_from_rest * 2 > expected.len(),
        "{differs_from_rest} of {}",
        expected.len()
    );
    // A layer naming a map that does not exist is refused before upload.
    let mut bad = records[0];
    bad.layers[0].clip = LayerRecord::retargeted(0, bindings.len() as u16);
    assert!(backend.evaluate_at(0.0, &[bad]).is_err());
}

#[test]
fn root_motion_follows_a_retargeted_root() {
    use super::root_motion::{assert_world_close, frame_times, root_motion_records, walker_rig};
    let Some(ctx) = gpu() else { return };
    let rig = walker_rig();
    let rigs = [rig.clone()];
    // The walker onto itself: every joint matched, the root's translation scaled by 1.
    let map = RetargetMap::build(&rig.skeleton, &rig.skeleton, None).unwrap();
    assert!((map.report().hip_ratio - 1.0).abs() < 1e-6);
    let binding = RetargetBinding::new(&rigs, 0, 0, map).unwrap();
    let plain = root_motion_records(&rig);
    let mut records = plain.clone();
    for r in &mut records {
        for l in &mut r.layers {
            l.clip = LayerRecord::retargeted(l.clip as u16, 0);
        }
    }
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend.set_retargets(&rigs, &[], &[binding]).unwrap();
    let n = rig.joint_count() as u32;
    backend
        .reserve_palette(n * records.len() as u32 + 64)
        .unwrap();
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut cpu = plain.clone();
    let mut prev = None;
    for &now in &frame_times(90) {
        backend.evaluate_at(now, &records).unwrap();
        for rec in &mut cpu {
            sinew::cpu::advance_root_motion(&rig, rec, prev.unwrap_or(now), now);
        }
        prev = Some(now);
    }
    let worlds = backend.read_worlds(&slots).unwrap();
    for (i, (g, c)) in worlds.iter().zip(&cpu).enumerate() {
        assert_world_close(g, &c.world.to_affine(), &format!("record {i}"));
    }
    assert!(
        cpu[0].world.to_affine().translation.length() > 1.0,
        "the walk moved"
    );
}

/// The animator's retargeted entities (`Retargeted`) reach the kernel: their records, uploaded
/// with the animator's maps in its order, pose as the CPU twin of the map (or its mirror) at
/// the clip time the record gives.
#[test]
fn animator_entities_retarget_in_the_kernel() {
    use hecs::World;
    use sinew::runtime::{Animated, Animator, Playback, Retargeted, Transform};
    let Some(ctx) = gpu() else { return };
    // The humanoid onto itself, and the Fox onto the humanoid where the shared assets are.
    let rigs = humanoid_and_sources(&["Fox.glb"]);
    let sources: Vec<usize> = (0..rigs.len()).collect();
    let mut animator = Animator::new(rigs.clone()).unwrap();
    let mut world = World::new();
    let mut entities = Vec::new();
    for &s in &sources {
        let map = RetargetMap::build(&rigs[s].skeleton, &rigs[0].skeleton, None).unwrap();
        let m = animator.add_retarget_map(s as u32, 0, map).unwrap();
        for clip in 0..rigs[s].clips.clip_count() {
            for mirror in [false, true] {
                let through = match mirror {
                    true => Retargeted::new(m).mirrored(),
                    false => Retargeted::new(m),
                };
                let playback = Playback::new(clip as u32).with_speed(0.8 + 0.1 * clip as f32);
                let e = world.spawn((Animated::new(0), Transform::IDENTITY, playback, through));
                entities.push((e, s, m as usize, clip, mirror));
            }
        }
    }
    for _ in 0..7 {
        animator.update(&mut world, 1.0 / 30.0).unwrap();
    }
    let bindings: Vec<RetargetBinding> = (animator.retarget_maps().iter())
        .map(|m| RetargetBinding::new(animator.rigs(), m.source, m.target, m.map.clone()))
        .collect::<Result<_, _>>()
        .unwrap();
    let (rigs, masks) = (animator.rigs(), animator.masks());
    let mut backend = GpuBackend::new(ctx, rigs, masks).unwrap();
    backend.set_retargets(rigs, masks, &bindings).unwrap();
    let capacity = animator.palette().capacity();
    backend.reserve_palette(capacity).unwrap();
    let now = animator.frame_time();
    backend.evaluate_at(now, animator.records()).unwrap();
    let palette = backend.read_palette(0..capacity).unwrap();
    let n = rigs[0].joint_count();
    for (e, s, m, clip, mirror) in entities {
        let rec = animator.record_of(&world, e).unwrap();
        assert_eq!(rec.layers[0].retarget(), Some((m, clip)));
        let time = rec.layers_at(now).next().unwrap().time;
        let map = if mirror {
            &bindings[m].mirrored
        } else {
            &bindings[m].map
        };
        let want = cpu_palette(&rigs[0], &rigs[s], map, clip, time);
        let start = rec.palette_offset as usize;
        for (j, (g, w)) in palette[start..start + n].iter().zip(&want).enumerate() {
            let worst = max_difference(g, w);
            assert!(
                worst < 2e-4,
                "source {s} clip {clip} mirror {mirror} joint {j}: GPU {g:?} CPU {w:?}"
            );
        }
    }
}

/// The CPU backend reads the same maps (`CpuBackend::set_retargets`): on asset pairs (the
/// humanoid mirrored onto itself, the Fox and CesiumMan onto the humanoid where the shared
/// assets are), records with a retargeted layer (plain and mirrored) under a layer of the
/// target's own clip evaluate to the GPU's palette and bounds, and root motion through the map
/// moves their worlds as the kernel does.
#[test]
fn cpu_backend_retargets_as_the_kernel_does() {
    let Some(ctx) = gpu() else { return };
    cpu_backend_against_kernel(ctx, false);
}

/// The same on compressed clips: the compressed pipeline decodes the source rig's compressed
/// clips through the map (`wgsl/decode.wgsl`), as `CpuBackend::with_compressed` samples them.
#[test]
fn compressed_pipeline_retargets_as_the_cpu_backend_does() {
    let Some(ctx) = gpu() else { return };
    cpu_backend_against_kernel(ctx, true);
}

fn cpu_backend_against_kernel(ctx: &sinew::GpuContext, compressed: bool) {
    use super::root_motion::{assert_world_close, frame_times};
    use sinew::{Aabb, CpuBackend, TimeWrap};
    let mut rigs = humanoid_and_sources(&["Fox.glb", "CesiumMan.glb"]);
    let pairs: Vec<u32> = (0..rigs.len() as u32).collect();
    if compressed {
        // Both backends then decode the same stored clips.
        for rig in &mut rigs {
            rig.compress(sinew::DEFAULT_ERROR_BUDGET).unwrap();
        }
    }
    let bindings: Vec<RetargetBinding> = pairs
        .iter()
        .map(|&s| {
            let map =
                RetargetMap::build(&rigs[s as usize].skeleton, &rigs[0].skeleton, None).unwrap();
            RetargetBinding::new(&rigs, s, 0, map).unwrap()
        })
        .collect();
    let target = &rigs[0];
    let entries = target.palette_entries() as u32;
    let root = sinew::runtime::Animator::new(vec![target.clone()])
        .unwrap()
        .root_joint(0)
        .unwrap() as u32;
    let hold = root | InstanceRecord::HOLD_ROOT_XZ | InstanceRecord::HOLD_ROOT_YAW;
    let mut records = Vec::new();
    for (m, b) in bindings.iter().enumerate() {
        let source = &rigs[b.source as usize];
        for clip in 0..source.clips.clip_count() {
            for mirror in [false, true] {
                let period = source.clips.clips()[clip].duration.max(0.1);
                let mut layer = LayerRecord {
                    clip: LayerRecord::retargeted(clip as u16, m as u16),
                    ..LayerRecord::STILL
                }
                .with_clock(0.1, 0.0, 1.1, TimeWrap::Loop, period);
                if mirror {
                    layer.flags |= LayerRecord::MIRROR;
                }
                let own = LayerRecord {
                    clip: (clip % target.clips.clip_count()) as u32,
                    weight: 0.3,
                    ..LayerRecord::STILL
                };
                let offset = records.len() as u32 * entries;
                let mut rec = InstanceRecord::new(0, offset, &Affine3A::IDENTITY, &[]).unwrap();
                rec.flags = hold | InstanceRecord::gpu_root_motion(1);
                rec.layer_count = 2;
                rec.layers[..2].copy_from_slice(&[layer, own]);
                records.push(rec);
            }
        }
    }
    let len = records.len() as u32 * entries;
    let options = GpuOptions {
        clips: match compressed {
            true => ClipFormat::Compressed {
                budget: sinew::DEFAULT_ERROR_BUDGET,
            },
            false => ClipFormat::Exact,
        },
        ..GpuOptions::default()
    };
    let mut backend = GpuBackend::with_options(ctx, &rigs, &[], options).unwrap();
    backend.set_retargets(&rigs, &[], &bindings).unwrap();
    backend.reserve_palette(len).unwrap();
    let mut cpu = match compressed {
        true => CpuBackend::with_compressed(rigs.clone(), Vec::new()).unwrap(),
        false => CpuBackend::new(rigs.clone(), Vec::new()).unwrap(),
    };
    // Without the maps the CPU backend refuses the records (typed, no panic).
    let mut palette = vec![Mat3x4Rows::IDENTITY; len as usize];
    let mut bounds = vec![Aabb::EMPTY; records.len()];
    let refused = cpu.evaluate_at(0.0, &records, &mut palette, &mut bounds);
    assert!(refused.is_err(), "records naming maps the backend lacks");
    cpu.set_retargets(&bindings).unwrap();
    let slots: Vec<u32> = (0..records.len() as u32).collect();
    let mut moved = records.clone();
    let mut prev = None;
    for &now in &frame_times(40) {
        backend.evaluate_at(now, &records).unwrap();
        for rec in &mut moved {
            cpu.advance_root_motion(rec, prev.unwrap_or(now), now)
                .unwrap();
        }
        prev = Some(now);
    }
    let worlds = backend.read_worlds(&slots).unwrap();
    // Then the pose: the records without root motion, at the last frame time, on both.
    let now = *frame_times(40).last().unwrap();
    let placed: Vec<InstanceRecord> = records
        .iter()
        .map(|r| InstanceRecord {
            flags: r.flags & !InstanceRecord::GPU_ROOT_MOTION,
            ..*r
        })
        .collect();
    backend.evaluate_at(now, &placed).unwrap();
    cpu.evaluate_at(now, &placed, &mut palette, &mut bounds)
        .unwrap();
    let got = backend.read_palette(0..len).unwrap();
    let gpu_bounds = backend.read_bounds(0..records.len()).unwrap();
    let n = target.joint_count();
    for (i, rec) in placed.iter().enumerate() {
        let start = rec.palette_offset as usize;
        for j in start..start + n {
            let worst = max_difference(&got[j], &palette[j]);
            assert!(
                worst < 2e-4,
                "compressed {compressed} record {i} entry {j}: GPU {:?} CPU {:?}",
                got[j],
                palette[j]
            );
        }
        let (g, c) = (&gpu_bounds[i], &bounds[i]);
        for k in 0..3 {
            assert!((g.min[k] - c.min[k]).abs() < 1e-3 && (g.max[k] - c.max[k]).abs() < 1e-3);
        }
    }
    let mut travelled = 0;
    for (i, (g, c)) in worlds.iter().zip(&moved).enumerate() {
        let c = c.world.to_affine();
        assert_world_close(g, &c, &format!("record {i}"));
        if Vec3::from(c.translation).length() > 0.05 {
            travelled += 1;
        }
    }
    assert!(travelled > 0, "some retargeted root moved the world");
}

/// The kernel's read count of a layer played through a retarget map: the humanoid onto itself
/// through the identity map reads what its own clip reads, plus the map's row and the source
/// rig's descriptor once and an entry per joint.
#[test]
fn a_retargeted_layer_reads_its_map_entries_beside_the_source_channels() {
    let Some(ctx) = gpu() else { return };
    let rigs = humanoid_and_sources(&[]);
    let rigs = vec![rigs[0].clone(), rigs[0].clone()];
    let rig = &rigs[0];
    assert_eq!(rig.clips.weight_chunk_count(), 0, "no weights to leave out");
    let map = RetargetMap::identity(&rig.skeleton);
    let binding = RetargetBinding::new(&rigs, 1, 0, map).unwrap();
    let mut backend = GpuBackend::new(ctx, &rigs, &[]).unwrap();
    backend.set_retargets(&rigs, &[], &[binding]).unwrap();
    backend.set_read_counting(true);
    let mut read = |clip: u32| {
        let layer = LayerRecord {
            clip,
            time: 0.4,
            ..LayerRecord::STILL
        };
        let mut rec = InstanceRecord::new(0, 0, &Affine3A::IDENTITY, &[]).unwrap();
        rec.layer_count = 1;
        rec.layers[0] = layer;
        backend.evaluate(&[rec]).unwrap();
        backend.last_frame().bytes_read.unwrap()
    };
    let own = read(0);
    let through = read(LayerRecord::retargeted(0, 0));
    // The row count and row (32), the source rig's descriptor (64); per joint, the entry's
    // four rows and its last row again (80).
    assert_eq!(through, own + 96 + 80 * rig.joint_count() as u64);
}
