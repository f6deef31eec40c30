//! Back-to-front order of `BLEND` materials (`wgsl/render/sort.wgsl`): for a batch with a
//! blended mesh, each page's camera list is sorted far to near by the depth of each instance's
//! animated box centre along the camera's view direction (as three.js orders transparent
//! objects), after culling and before the main pass. A draw's instances composite in list
//! order, so overlapping transparent characters of a page blend correctly, whatever their order
//! in the batch's instance list; opaque meshes read the same list and are unaffected.
//!
//! The sort is a bitonic sort of (key, instance) pairs over the page's instance count rounded
//! up to a power of two: one key dispatch, `m (m + 1) / 2` compare-exchange dispatches for
//! `2^m` entries, one write-back dispatch per page and frame, whatever the visible count (the
//! CPU never reads it), and 8 bytes of scratch per entry. Ties break by instance index, so the
//! order is the same on every run. Pages draw one after another, so instances of different
//! pages (or batches) are not sorted among themselves, and a character's blended meshes draw
//! mesh by mesh (each for all its page's instances, far to near). [`blend_order`] is the CPU
//! twin.

use glam::{Vec3, Vec4};

use super::Camera;
use super::error::{RenderError, capture};
use super::layout::{SkinnedInstance, SortParams};
use super::shader::sort_source;
use super::util::{Lazy, shader_module, storage_entry};
use crate::math::Aabb;

/// Invocations per workgroup of the sort kernels (`SORT_WORKGROUP_SIZE` in `sort.wgsl`).
pub const SORT_WORKGROUP_SIZE: u32 = 64;

/// The camera's view direction (xyz) and `-dot(direction, eye)` (w): a point's depth in front
/// of the camera is `dot(xyz, p) + w`.
pub fn view_depth_plane(camera: &Camera) -> Vec4 {
    let forward = -camera.view.row(2).truncate().normalize_or(Vec3::NEG_Z);
    forward.extend(-forward.dot(camera.position()))
}

/// The order `sort.wgsl` draws `boxes` in: indices far to near by the depth of each box's
/// centre in front of `plane` ([`view_depth_plane`]), ties by index, empty or NaN boxes last.
pub fn blend_order(plane: Vec4, boxes: &[Aabb]) -> Vec<u32> {
    let key = |b: &Aabb| {
        let (lo, hi) = (Vec3::from(b.min3()), Vec3::from(b.max3()));
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z) {
            return u32::MAX;
        }
        let depth = plane.truncate().dot((lo + hi) * 0.5) + plane.w;
        let bits = depth.to_bits();
        !(if bits & 0x8000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000
        })
    };
    let mut order: Vec<(u32, u32)> = boxes
        .iter()
        .enumerate()
        .map(|(i, b)| (key(b), i as u32))
        .collect();
    order.sort_unstable();
    order.into_iter().map(|(_, i)| i).collect()
}

/// The bitonic passes `(k, j)` that sort `size` entries (a power of two).
pub(crate) fn bitonic_steps(size: u32) -> Vec<(u32, u32)> {
    let mut steps = Vec::new();
    let mut k = 2;
    while k <= size {
        let mut j = k / 2;
        while j > 0 {
            steps.push((k, j));
            j /= 2;
        }
        k *= 2;
    }
    steps
}

/// The sort's layout and its three pipelines.
#[derive(Debug)]
pub(crate) struct SortPass {
    pub(crate) layout: wgpu::BindGroupLayout,
    module: Lazy<wgpu::ShaderModule>,
    /// `sort_keys`, `sort_step`, `sort_write`.
    pipelines: [Lazy<wgpu::ComputePipeline>; 3],
}

/// The sort kernels' entry points, in [`SortPass`] pipeline order.
pub(crate) const SORT_ENTRY_POINTS: [&str; 3] = ["sort_keys", "sort_step", "sort_write"];

pub(crate) const SORT_PARAMS_SIZE: u64 = std::mem::size_of::<SortParams>() as u64;

impl SortPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew blend sort layout"),
            entries: &[
                storage_entry(0, c, true, std::mem::size_of::<SkinnedInstance>() as u64),
                storage_entry(1, c, true, std::mem::size_of::<Aabb>() as u64),
                storage_entry(2, c, false, 4),
                storage_entry(3, c, true, 4),
                storage_entry(4, c, false, 8),
                wgpu::BindGroupLayoutEntry {
                    binding: 5,
                    visibility: c,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: wgpu::BufferSize::new(SORT_PARAMS_SIZE),
                    },
                    count: None,
                },
            ],
        });
        Self {
            layout,
            module: Lazy::default(),
            pipelines: Default::default(),
        }
    }

    /// The pipelines of [`SORT_ENTRY_POINTS`].
    pub(crate) fn pipelines(
        &self,
        device: &wgpu::Device,
    ) -> Result<[&wgpu::ComputePipeline; 3], RenderError> {
        let module = self
            .module
            .get(|| shader_module(device, "sinew blend sort shader", sort_source()))?;
        let get = |k: usize| {
            self.pipelines[k].get(|| {
                capture(device, || {
                    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("sinew blend sort pipeline layout"),
                        bind_group_layouts: &[Some(&self.layout)],
                        immediate_size: 0,
                    });
                    Ok(
                        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some(SORT_ENTRY_POINTS[k]),
                            layout: Some(&layout),
                            module,
                            entry_point: Some(SORT_ENTRY_POINTS[k]),
                            compilation_options: Default::default(),
                            cache: None,
                        }),
                    )
                })
            })
        };
        Ok([get(0)?, get(1)?, get(2)?])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(z: f32) -> Aabb {
        Aabb {
            min: [-0.5, -0.5, z - 0.5, 0.0],
            max: [0.5, 0.5, z + 0.5, 0.0],
        }
    }

    #[test]
    fn boxes_order_far_to_near_and_ties_by_index() {
        let camera = Camera::look_at(Vec3::Z * 5.0, Vec3::ZERO, Vec3::Y, 1.0, 1.0, 0.1, 50.0);
        let plane = view_depth_plane(&camera);
        assert!((plane.truncate() - Vec3::NEG_Z).length() < 1e-6, "{plane}");
        assert!((plane.w - 5.0).abs() < 1e-5, "{plane}");
        // Behind the camera (z 7) is nearest; an empty box goes last.
        let boxes = [at(0.0), at(-3.0), at(2.0), Aabb::EMPTY, at(7.0), at(0.0)];
        assert_eq!(blend_order(plane, &boxes), [1, 0, 5, 2, 4, 3]);
    }

    #[test]
    fn bitonic_steps_sort_every_order_of_small_lists() {
        for m in 0..5 {
            let size = 1u32 << m;
            let steps = bitonic_steps(size);
            assert_eq!(steps.len() as u32, m * (m + 1) / 2);
            // Reversed and shuffled lists, run through the passes as sort.wgsl does.
            for seed in 0..8u32 {
                let mut v: Vec<u32> = (0..size).map(|i| (i * 7 + seed * 13) % 11).collect();
                for &(k, j) in &steps {
                    for i in 0..size {
                        let p = i ^ j;
                        if p > i && (v[i as usize] > v[p as usize]) == (i & k == 0) {
                            v.swap(i as usize, p as usize);
                        }
                    }
                }
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "{v:?}");
            }
        }
    }
}
