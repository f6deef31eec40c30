//! Every rig and mask uploaded once into shared storage buffers: several rigs concatenated, with
//! a per-rig descriptor of where its joints, tracks, key times, key values and root frames start.
//! With compressed clips the track table holds each rig's clip words instead
//! ([`super::compressed::clip_words`]) and no key times or key values go up but the morph
//! default weights.

use glam::Affine3A;
use wgpu::util::DeviceExt;

use super::clip_format::ClipFormat;
use super::compressed::{clip_words, compressed_clips};
use super::layout::{JointDesc, LibraryParams, RigDesc, RootFrameDesc};
use super::pipeline::EvaluatePipeline;
use super::retarget::{RetargetBinding, encode_table};
use super::scope::capture;
use super::traffic::{MapReads, RigReads};
use crate::baked::{MAX_JOINTS, Rig, TrackDesc};
use crate::cpu::RootFrame;
use crate::error::{EvalError, GpuError};
use crate::instance::{InstanceRecord, MAX_LAYERS};
use crate::mask::JointMask;
use crate::math::Mat3x4Rows;

/// What the CPU keeps of an uploaded rig: enough to check instance records and to recover
/// model matrices from palette entries.
#[derive(Clone, Debug, PartialEq)]
pub struct RigSummary {
    /// Number of joints.
    pub joint_count: usize,
    /// Palette entries per instance ([`Rig::palette_entries`]).
    pub palette_entries: usize,
    /// Number of clips.
    pub clip_count: usize,
    /// Where an instance's IK entries start in its block ([`Rig::ik_entry_offset`]).
    pub ik_entry_offset: usize,
    /// The rig's name.
    pub name: String,
    /// Inverse bind matrix of each joint, as uploaded.
    pub inverse_binds: Vec<Affine3A>,
    /// What the kernel reads from global memory evaluating one instance.
    pub reads: RigReads,
}

/// The uploaded rigs and masks, and the bind group (group 0) that exposes them to the kernel.
#[derive(Debug)]
pub struct GpuLibrary {
    rigs: Vec<RigSummary>,
    masks: Vec<JointMask>,
    mask_lengths: Vec<usize>,
    bind_group: wgpu::BindGroup,
    bytes: u64,
    retargets: Vec<RetargetBinding>,
    /// Per retarget map, what a layer played through it reads.
    map_reads: Vec<MapReads>,
}

/// The arrays of the library, before upload.
struct LibraryData {
    rigs: Vec<RigDesc>,
    joints: Vec<JointDesc>,
    /// Track descriptors (4 words each), or compressed clip words.
    tracks: Vec<u32>,
    scalars: Vec<f32>,
    values: Vec<[f32; 4]>,
    params: LibraryParams,
    /// Per rig, what the kernel reads evaluating one instance.
    reads: Vec<RigReads>,
}

fn to_u32(n: usize, limit: &'static str) -> Result<u32, GpuError> {
    u32::try_from(n).map_err(|_| GpuError::LimitExceeded {
        limit,
        needed: n as u64,
        available: u64::from(u32::MAX),
    })
}

fn joint_desc(rig: &Rig, j: usize) -> JointDesc {
    let skeleton = &rig.skeleton;
    let rest = skeleton.rest_pose()[j];
    let bounds = rig.joint_bounds.get(j).filter(|b| !b.is_empty());
    let corner = |c: [f32; 4]| [c[0], c[1], c[2]];
    JointDesc {
        rest_translation: rest.translation.to_array(),
        parent: u32::from(skeleton.parents()[j]),
        rest_rotation: rest.rotation.to_array(),
        rest_scale: rest.scale.to_array(),
        has_bounds: u32::from(bounds.is_some()),
        inverse_bind: Mat3x4Rows::from_affine(&skeleton.inverse_binds()[j]),
        bounds_min: bounds.map_or([0.0; 3], |b| corner(b.min)),
        level_start: if j < skeleton.level_count() {
            u32::from(skeleton.level_starts()[j])
        } else {
            0
        },
        bounds_max: bounds.map_or([0.0; 3], |b| corner(b.max)),
        pad: 0,
    }
}

impl LibraryData {
    fn build(
        rigs: &[Rig],
        masks: &[JointMask],
        clips: ClipFormat,
        retargets: &[RetargetBinding],
    ) -> Result<Self, GpuError> {
        let mut data = Self {
            rigs: Vec::with_capacity(rigs.len()),
            joints: Vec::new(),
            tracks: Vec::new(),
            scalars: Vec::new(),
            values: Vec::new(),
            params: LibraryParams::default(),
            reads: Vec::with_capacity(rigs.len()),
        };
        let track_words = size_of::<TrackDesc>() / 4;
        for (index, rig) in rigs.iter().enumerate() {
            let lib = &rig.clips;
            let chunks = lib.weight_chunk_count();
            let compressed = match clips {
                ClipFormat::Exact => None,
                ClipFormat::Compressed { budget } => Some(compressed_clips(rig, index, budget)?),
            };
            // What goes up of the clips: key tracks, times and values, or the clip words and
            // the default weights alone.
            let (track_offset, times, values, default_offset) = match &compressed {
                None => (
                    data.tracks.len() / track_words,
                    lib.times().len(),
                    lib.values().len(),
                    lib.weight_default_offset(),
                ),
                Some(_) => (data.tracks.len(), 0, chunks, 0),
            };
            data.rigs.push(RigDesc {
                joint_offset: to_u32(data.joints.len(), "joint table length")?,
                joint_count: to_u32(rig.joint_count(), "joint count")?,
                level_count: to_u32(rig.skeleton.level_count(), "level count")?,
                clip_count: to_u32(lib.clip_count(), "clip count")?,
                track_offset: to_u32(track_offset, "track table length")?,
                time_offset: to_u32(data.scalars.len(), "key time table length")?,
                value_offset: to_u32(data.values.len(), "key value table length")?,
                frame_offset: to_u32(data.values.len() + values, "key value table length")?,
                weight_chunks: to_u32(chunks, "weight chunk count")?,
                weight_track_offset: to_u32(
                    track_offset + lib.tracks().len(),
                    "track table length",
                )?,
                morph_joint_offset: to_u32(data.scalars.len() + times, "key time table length")?,
                morph_default_offset: to_u32(default_offset, "key value table length")?,
                // Set below, once the root frames are in.
                ik_offset: 0,
                ik_count: to_u32(rig.ik.len(), "IK constraint count")?,
                lod_sampled: (1..4).fold(0, |bits, level| {
                    let sampled = rig.skeleton.lod_sampled_joints(level) as u32;
                    bits | (sampled.min(0x3ff) << (10 * (level - 1)))
                }),
                pad1: 0,
            });
            if let Some(desc) = data.rigs.last() {
                data.reads
                    .push(RigReads::new(rig, desc, compressed.as_deref()));
            }
            data.joints
                .extend((0..rig.joint_count()).map(|j| joint_desc(rig, j)));
            match &compressed {
                None => {
                    data.tracks
                        .extend_from_slice(bytemuck::cast_slice(lib.tracks()));
                    data.tracks
                        .extend_from_slice(bytemuck::cast_slice(lib.weight_tracks()));
                    data.scalars.extend_from_slice(lib.times());
                    data.values.extend_from_slice(lib.values());
                }
                Some(clips) => {
                    data.tracks.extend(clip_words(clips));
                    let defaults = lib.weight_default_offset();
                    let slice = lib.values().get(defaults..defaults + chunks);
                    data.values.extend_from_slice(slice.unwrap_or_default());
                }
            }
            data.scalars
                .extend((0..chunks).map(|k| rig.morph.chunk_joint(k) as f32));
            let frames: Vec<RootFrameDesc> = RootFrame::table(rig)
                .iter()
                .map(RootFrameDesc::from)
                .collect();
            data.values.extend_from_slice(bytemuck::cast_slice(&frames));
            let ik_offset = to_u32(data.values.len(), "key value table length")?;
            if let Some(desc) = data.rigs.last_mut() {
                desc.ik_offset = ik_offset;
            }
            for constraint in rig.ik.constraints() {
                data.values.extend_from_slice(&constraint.encode());
            }
        }
        to_u32(data.values.len(), "key value table length")?;
        data.params = LibraryParams {
            rig_count: to_u32(rigs.len(), "rig count")?,
            mask_count: to_u32(masks.len(), "mask count")?,
            mask_offset: to_u32(data.scalars.len(), "key time table length")?,
            retarget_offset: to_u32(data.values.len(), "key value table length")?,
        };
        let table = encode_table(retargets, data.values.len())?;
        data.values.extend(table);
        to_u32(data.values.len(), "key value table length")?;
        for (m, mask) in masks.iter().enumerate() {
            if !mask.is_valid() {
                return Err(GpuError::Eval(crate::EvalError::BadLayer {
                    reason: format!("mask {m} has a weight that is not a number from 0 to 1"),
                }));
            }
            let start = data.scalars.len();
            data.scalars.resize(start + MAX_JOINTS, 0.0);
            for (slot, w) in data.scalars[start..].iter_mut().zip(&mask.weights) {
                *slot = *w;
            }
        }
        to_u32(data.scalars.len(), "scalar table length")?;
        // Bindings may not be empty.
        if data.rigs.is_empty() {
            data.rigs.push(RigDesc::default());
        }
        if data.joints.is_empty() {
            data.joints.push(JointDesc::default());
        }
        if data.tracks.is_empty() {
            data.tracks.resize(track_words, 0);
        }
        if data.scalars.is_empty() {
            data.scalars.push(0.0);
        }
        if data.values.is_empty() {
            data.values.push([0.0; 4]);
        }
        Ok(data)
    }
}

impl GpuLibrary {
    /// Uploads `rigs` and `masks` (mask indices are positions in `masks`) with `pipeline`'s
    /// library layout, their clips in format `clips` (the one `pipeline` samples). Fails when an
    /// array exceeds the device's storage binding size, or a rig's compressed clips do not fit
    /// it.
    pub fn new(
        device: &wgpu::Device,
        pipeline: &EvaluatePipeline,
        rigs: &[Rig],
        masks: &[JointMask],
        clips: ClipFormat,
        retargets: &[RetargetBinding],
    ) -> Result<Self, GpuError> {
        if pipeline.compressed != clips.is_compressed() {
            return Err(GpuError::Validation(format!(
                "clips {clips:?} uploaded for a pipeline that samples {}",
                if pipeline.compressed {
                    "compressed clips"
                } else {
                    "exact clips"
                }
            )));
        }
        let data = LibraryData::build(rigs, masks, clips, retargets)?;
        let max_binding = device.limits().max_storage_buffer_binding_size;
        let arrays: [(&str, &[u8]); 5] = [
            ("sinew rig table", bytemuck::cast_slice(&data.rigs)),
            ("sinew joint table", bytemuck::cast_slice(&data.joints)),
            ("sinew track table", bytemuck::cast_slice(&data.tracks)),
            (
                "sinew key times and mask weights",
                bytemuck::cast_slice(&data.scalars),
            ),
            ("sinew key values", bytemuck::cast_slice(&data.values)),
        ];
        let mut bytes = 0;
        for (_, contents) in &arrays {
            let len = contents.len() as u64;
            bytes += len;
            if len > max_binding {
                return Err(GpuError::LimitExceeded {
                    limit: "max_storage_buffer_binding_size",
                    needed: len,
                    available: max_binding,
                });
            }
        }
        let bind_group =
            capture(device, || {
                let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("sinew library params"),
                    contents: bytemuck::bytes_of(&data.params),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let buffers: Vec<wgpu::Buffer> = arrays
                    .iter()
                    .map(|(label, contents)| {
                        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some(label),
                            contents,
                            usage: wgpu::BufferUsages::STORAGE,
                        })
                    })
                    .collect();
                let mut entries = vec![wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                }];
                entries.extend(buffers.iter().zip(1..).map(|(buffer, binding)| {
                    wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    }
                }));
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("sinew library bind group"),
                    layout: &pipeline.library_layout,
                    entries: &entries,
                })
            })?;
        let map_reads = retargets
            .iter()
            .map(|b| {
                let reads = |r: u32| data.reads.get(r as usize);
                match (reads(b.source), reads(b.target)) {
                    (Some(source), Some(target)) => source.through_map(target, &b.map),
                    _ => MapReads::default(),
                }
            })
            .collect();
        Ok(Self {
            rigs: rigs
                .iter()
                .zip(data.reads)
                .map(|(rig, reads)| RigSummary {
                    joint_count: rig.joint_count(),
                    palette_entries: rig.palette_entries(),
                    clip_count: rig.clips.clip_count(),
                    ik_entry_offset: rig.ik_entry_offset(),
                    name: rig.name.clone(),
                    inverse_binds: rig.skeleton.inverse_binds().to_vec(),
                    reads,
                })
                .collect(),
            masks: masks.to_vec(),
            mask_lengths: masks.iter().map(|m| m.weights.len()).collect(),
            bind_group,
            bytes,
            retargets: retargets.to_vec(),
            map_reads,
        })
    }

    /// What a layer played through each uploaded retarget map reads ([`MapReads`]).
    pub(crate) fn map_reads(&self) -> &[MapReads] {
        &self.map_reads
    }

    /// The retarget maps uploaded with the library.
    pub fn retargets(&self) -> &[RetargetBinding] {
        &self.retargets
    }

    /// Checks that map `map` exists, drives rig `rig` and its source rig has clip `clip`.
    fn validate_retarget(&self, rig: u32, map: usize, clip: usize) -> Result<(), EvalError> {
        let binding = self.retargets.get(map).ok_or_else(|| EvalError::BadLayer {
            reason: format!("retarget map {map}: {} are uploaded", self.retargets.len()),
        })?;
        if binding.target != rig {
            return Err(EvalError::BadLayer {
                reason: format!(
                    "retarget map {map} drives rig {}, not {rig}",
                    binding.target
                ),
            });
        }
        let clip_count = self
            .rigs
            .get(binding.source as usize)
            .map_or(0, |r| r.clip_count);
        if clip >= clip_count {
            return Err(EvalError::NoSuchClip {
                clip: clip as u32,
                clip_count,
            });
        }
        Ok(())
    }

    /// The bind group of pipeline group 0.
    pub fn bind_group(&self) -> &wgpu::BindGroup {
        &self.bind_group
    }

    /// The uploaded rigs.
    pub fn rigs(&self) -> &[RigSummary] {
        &self.rigs
    }

    /// The uploaded masks.
    pub fn masks(&self) -> &[JointMask] {
        &self.masks
    }

    /// Number of uploaded masks.
    pub fn mask_count(&self) -> usize {
        self.mask_lengths.len()
    }

    /// Bytes of storage the library occupies.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Checks that `record` names an uploaded rig, existing clips and masks (of the rig's
    /// length) and finite numbers; returns the rig.
    pub fn validate(&self, record: &InstanceRecord) -> Result<&RigSummary, EvalError> {
        let rig = self
            .rigs
            .get(record.rig as usize)
            .ok_or(EvalError::NoSuchRig {
                rig: record.rig,
                rig_count: self.rigs.len(),
            })?;
        if record.layer_count as usize > MAX_LAYERS {
            return Err(EvalError::BadLayer {
                reason: format!("{} layers, at most {MAX_LAYERS}", record.layer_count),
            });
        }
        for record_layer in record.used_layers() {
            if !record_layer.is_well_formed() {
                return Err(EvalError::BadLayer {
                    reason: format!(
                        "clip {} has a clock or fade that is not finite, a negative fade rate \
                         or a wrap with a negative period",
                        record_layer.clip
                    ),
                });
            }
            let layer = record_layer.to_layer_at(record_layer.anchor);
            if let Some((map, clip)) = record_layer.retarget() {
                self.validate_retarget(record.rig, map, clip)?;
            } else if layer.clip as usize >= rig.clip_count {
                return Err(EvalError::NoSuchClip {
                    clip: layer.clip,
                    clip_count: rig.clip_count,
                });
            }
            if let Some(m) = layer.mask
                && self.mask_lengths.get(m as usize) != Some(&rig.joint_count)
            {
                return Err(EvalError::NoSuchMask {
                    mask: m,
                    mask_count: self.mask_lengths.len(),
                });
            }
            if !layer.time.is_finite() || !layer.weight.is_finite() {
                return Err(EvalError::BadLayer {
                    reason: format!(
                        "clip {} has time {} weight {}",
                        layer.clip, layer.time, layer.weight
                    ),
                });
            }
        }
        Ok(rig)
    }
}
