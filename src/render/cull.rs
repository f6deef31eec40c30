//! GPU frustum culling (`wgsl/render/cull.wgsl`): one dispatch per page of a batch (one page
//! unless its buffers exceed a storage binding) tests every instance's animated AABB against
//! the camera frustum and, when the frame has a shadow map, against the light's, and compacts
//! the instance indices each frustum keeps into two lists, counting them atomically into the
//! `instance_count` of the page's indirect draws for that list: the camera's list feeds the main
//! pass, the light's the shadow pass (so a character outside the view still casts its shadow
//! into it). The CPU never looks at an instance. Each tested box's `max.w` gets the verdict
//! (1.0: in neither list), which the evaluate kernel reads on the next frame to skip instances
//! with [`crate::InstanceRecord::SKIP_CULLED`] ([`crate::lod`]). [`aabb_in_frustum`] is the CPU twin of the
//! test, and [`CullFrusta::keeps`] of the two lists together.
//!
//! Both tests share the dispatch and the box read; the light's costs six more plane tests per
//! instance, its own atomics and list writes, two more storage bindings (six of the default
//! eight per stage) and a second visible list and set of indirect draws per page (4 bytes per
//! instance, 20 per mesh).

use glam::{Vec3, Vec4};

use super::error::{RenderError, capture};
use super::layout::{CullParams, DrawIndexedArgs, SkinnedInstance};
use super::shader::cull_source;
use super::util::{Lazy, shader_module, storage_entry, uniform_entry};
use crate::math::Aabb;

/// Invocations per workgroup of the culling kernel (`WORKGROUP_SIZE` in `cull.wgsl`).
pub const CULL_WORKGROUP_SIZE: u32 = 64;

/// Whether the box may be visible in the frustum `planes` (normals inside, as
/// [`Camera::frustum_planes`](super::Camera::frustum_planes) gives them): false when it is empty
/// or NaN, or lies entirely on the outer side of one plane. Conservative: every box that
/// intersects the frustum passes, and so can a box near a frustum corner that does not. Twin of
/// `aabb_in_frustum` in `cull.wgsl`.
pub fn aabb_in_frustum(planes: &[Vec4; 6], aabb: &Aabb) -> bool {
    let (lo, hi) = (Vec3::from(aabb.min3()), Vec3::from(aabb.max3()));
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    if !(lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z) {
        return false;
    }
    planes.iter().all(|plane| {
        let n = plane.truncate();
        let corner = Vec3::select(n.cmpge(Vec3::ZERO), hi, lo);
        n.dot(corner) + plane.w >= 0.0
    })
}

/// The frusta a frame's GPU culling tests each box against: the camera's, and the light's when
/// the frame draws a shadow map. On the CPU, [`CullFrusta::keeps`] is the twin of the two lists
/// together: what a host must upload for the frame to draw everything it would.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullFrusta {
    /// The camera's planes (as [`Camera::frustum_planes`](super::Camera::frustum_planes)
    /// gives them): its list feeds the main pass.
    pub camera: [Vec4; 6],
    /// The light's planes, from [`Scene::light_view_projection`](super::Scene::light_view_projection): its list feeds the shadow
    /// pass; `None` (no shadow map) leaves that list empty.
    pub light: Option<[Vec4; 6]>,
}

impl CullFrusta {
    /// Whether culling keeps `aabb` in either list: it may be seen, or may cast a shadow into
    /// the view ([`aabb_in_frustum`] against either frustum).
    pub fn keeps(&self, aabb: &Aabb) -> bool {
        aabb_in_frustum(&self.camera, aabb)
            || self
                .light
                .as_ref()
                .is_some_and(|light| aabb_in_frustum(light, aabb))
    }
}

/// Which of a batch's two per-page lists (and their indirect draws) a pass draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DrawList {
    /// Instances in the camera's frustum: the main pass.
    Camera,
    /// Instances in the light's frustum: the shadow pass.
    Light,
}

impl DrawList {
    /// Both lists, in [`DrawList::index`] order.
    pub(crate) const BOTH: [DrawList; 2] = [DrawList::Camera, DrawList::Light];

    /// 0 for the camera's list, 1 for the light's: where per-list arrays keep it.
    pub(crate) fn index(self) -> usize {
        match self {
            DrawList::Camera => 0,
            DrawList::Light => 1,
        }
    }
}

/// The culling kernel's layout and pipeline.
#[derive(Debug)]
pub(crate) struct CullPass {
    pub(crate) layout: wgpu::BindGroupLayout,
    pipeline: Lazy<wgpu::ComputePipeline>,
}

impl CullPass {
    pub(crate) fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("sinew cull layout"),
            entries: &[
                storage_entry(0, c, true, std::mem::size_of::<SkinnedInstance>() as u64),
                storage_entry(1, c, false, std::mem::size_of::<Aabb>() as u64),
                uniform_entry(2, c, std::mem::size_of::<CullParams>() as u64),
                storage_entry(3, c, false, 4),
                storage_entry(4, c, false, std::mem::size_of::<DrawIndexedArgs>() as u64),
                storage_entry(5, c, false, 4),
                storage_entry(6, c, false, std::mem::size_of::<DrawIndexedArgs>() as u64),
            ],
        });
        Self {
            layout,
            pipeline: Lazy::default(),
        }
    }

    pub(crate) fn pipeline(
        &self,
        device: &wgpu::Device,
    ) -> Result<&wgpu::ComputePipeline, RenderError> {
        self.pipeline.get(|| {
            let module = shader_module(device, "sinew cull shader", cull_source())?;
            capture(device, || {
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("sinew cull pipeline layout"),
                    bind_group_layouts: &[Some(&self.layout)],
                    immediate_size: 0,
                });
                Ok(
                    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some("sinew cull pipeline"),
                        layout: Some(&layout),
                        module: &module,
                        entry_point: Some("cull"),
                        compilation_options: Default::default(),
                        cache: None,
                    }),
                )
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Camera;

    fn aabb(lo: Vec3, hi: Vec3) -> Aabb {
        Aabb {
            min: lo.extend(0.0).to_array(),
            max: hi.extend(0.0).to_array(),
        }
    }

    #[test]
    fn boxes_inside_straddling_and_outside() {
        let camera = Camera::look_at(Vec3::Z * 5.0, Vec3::ZERO, Vec3::Y, 1.0, 1.0, 0.1, 50.0);
        let planes = camera.frustum_planes();
        assert!(aabb_in_frustum(
            &planes,
            &aabb(Vec3::splat(-0.5), Vec3::splat(0.5))
        ));
        assert!(aabb_in_frustum(
            &planes,
            &aabb(Vec3::new(-100.0, -0.1, -0.1), Vec3::new(100.0, 0.1, 0.1))
        ));
        assert!(!aabb_in_frustum(
            &planes,
            &aabb(Vec3::new(50.0, 0.0, 0.0), Vec3::new(51.0, 1.0, 1.0))
        ));
        assert!(!aabb_in_frustum(
            &planes,
            &aabb(Vec3::new(0.0, 0.0, 6.0), Vec3::new(1.0, 1.0, 7.0))
        ));
        assert!(!aabb_in_frustum(&planes, &Aabb::EMPTY));
        let nan = aabb(Vec3::splat(f32::NAN), Vec3::ONE);
        assert!(!aabb_in_frustum(&planes, &nan));
    }
}
