//! The device the GPU backend runs on: made headless here, or handed over by a host engine.

use std::sync::{Arc, OnceLock};

use super::lost::DeviceLoss;
use super::pipeline::EvaluatePipeline;
use super::shape::EvaluateShape;
use crate::error::GpuError;

/// A wgpu device and queue, with the adapter's description and the pipelines compiled for it
/// (created on first use and shared by every [`crate::GpuBackend`] made from this context, since
/// some drivers compile a pipeline only at its first dispatch, and slowly). It watches the device
/// for loss ([`DeviceLoss`]); a lost context stays lost: make a new one.
#[derive(Debug)]
pub struct GpuContext {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// What the adapter says about itself.
    pub adapter_info: wgpu::AdapterInfo,
    pipeline: OnceLock<Arc<EvaluatePipeline>>,
    compressed: OnceLock<Arc<EvaluatePipeline>>,
    /// The pipelines keeping the previous palette: exact, compressed.
    previous: [OnceLock<Arc<EvaluatePipeline>>; 2],
    shape: EvaluateShape,
    loss: DeviceLoss,
}

impl GpuContext {
    /// Creates a device without a surface. Honours `WGPU_BACKEND` (`vulkan`, `gl`, ...; a comma
    /// list), otherwise tries Vulkan first and then every other backend. Limits above wgpu's
    /// defaults are asked for only where the adapter offers more (storage binding and buffer
    /// sizes, and the workgroup memory of [`EvaluateShape::WIDE`]); the evaluator works at the
    /// defaults ([`EvaluateShape::NARROW`]).
    pub fn new_headless() -> Result<Self, GpuError> {
        let from_env = wgpu::Backends::from_env();
        let attempts = match from_env {
            Some(backends) => vec![backends],
            None => vec![wgpu::Backends::VULKAN, wgpu::Backends::all()],
        };
        let mut reasons = Vec::new();
        for backends in &attempts {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
            desc.backends = *backends;
            desc.flags = wgpu::InstanceFlags::default().with_env();
            let instance = wgpu::Instance::new(desc);
            let options = wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
            };
            match pollster::block_on(instance.request_adapter(&options)) {
                Ok(adapter) => return Self::from_adapter(&adapter),
                Err(e) => reasons.push(format!("{backends:?}: {e}")),
            }
        }
        Err(GpuError::NoAdapter {
            backends: std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "any".into()),
            reason: reasons.join("; "),
        })
    }

    /// Creates a device on `adapter` with the limits described in [`GpuContext::new_headless`].
    pub fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self, GpuError> {
        let offered = adapter.limits();
        let defaults = wgpu::Limits::default();
        let mut required = defaults.clone();
        required.max_storage_buffer_binding_size = offered
            .max_storage_buffer_binding_size
            .max(defaults.max_storage_buffer_binding_size);
        required.max_buffer_size = offered.max_buffer_size.max(defaults.max_buffer_size);
        // Workgroup memory for the wide evaluate shape, where offered.
        required.max_compute_workgroup_storage_size = offered
            .max_compute_workgroup_storage_size
            .min(EvaluateShape::WIDE_WORKGROUP_BYTES)
            .max(defaults.max_compute_workgroup_storage_size);
        // The pipelines keeping the previous palette bind ten storage buffers, where offered.
        required.max_storage_buffers_per_shader_stage = offered
            .max_storage_buffers_per_shader_stage
            .min(super::pipeline::PREVIOUS_PALETTE_STORAGE_BUFFERS)
            .max(defaults.max_storage_buffers_per_shader_stage);
        // Timestamp queries time the evaluate pass where offered; nothing needs them.
        let desc = wgpu::DeviceDescriptor {
            label: Some("sinew device"),
            required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
            required_limits: required,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&desc))
            .map_err(|e| GpuError::RequestDevice(e.to_string()))?;
        Ok(Self {
            loss: DeviceLoss::watch(&device),
            shape: EvaluateShape::for_limits(&device.limits()),
            device,
            queue,
            adapter_info: adapter.get_info(),
            pipeline: OnceLock::new(),
            compressed: OnceLock::new(),
            previous: Default::default(),
        })
    }

    /// Wraps a device and queue a host engine already has. Nothing is created, but the
    /// device's lost callback is this context's from now on (see [`DeviceLoss`] for hosts with
    /// a callback of their own).
    pub fn from_device(device: &wgpu::Device, queue: &wgpu::Queue) -> Self {
        Self {
            device: device.clone(),
            queue: queue.clone(),
            adapter_info: device.adapter_info(),
            pipeline: OnceLock::new(),
            compressed: OnceLock::new(),
            previous: Default::default(),
            shape: EvaluateShape::for_limits(&device.limits()),
            loss: DeviceLoss::watch(device),
        }
    }

    /// How the evaluate pipelines of this context group instances: the widest shape the
    /// device's limits allow.
    pub fn evaluate_shape(&self) -> EvaluateShape {
        self.shape
    }

    /// Builds this context's evaluate pipelines for `shape` from now on (compiled anew on first
    /// use; backends made earlier keep theirs), e.g. [`EvaluateShape::NARROW`] to match a
    /// device with the default limits. Fails with [`GpuError::LimitExceeded`], the context
    /// unchanged, where the device's workgroup memory is too small for `shape`.
    pub fn set_evaluate_shape(&mut self, shape: EvaluateShape) -> Result<(), GpuError> {
        let available = self.device.limits().max_compute_workgroup_storage_size;
        if available < shape.workgroup_bytes() {
            return Err(GpuError::LimitExceeded {
                limit: "max_compute_workgroup_storage_size",
                needed: u64::from(shape.workgroup_bytes()),
                available: u64::from(available),
            });
        }
        if shape != self.shape {
            self.shape = shape;
            self.pipeline = OnceLock::new();
            self.compressed = OnceLock::new();
            self.previous = Default::default();
        }
        Ok(())
    }

    /// The device's loss watch.
    pub fn device_loss(&self) -> &DeviceLoss {
        &self.loss
    }

    /// `name (backend, driver driver_info)` of the adapter, for reports.
    pub fn adapter_summary(&self) -> String {
        let info = &self.adapter_info;
        format!(
            "{} ({:?}, {} {})",
            info.name, info.backend, info.driver, info.driver_info
        )
    }

    /// The evaluate pipeline of this device ([`GpuContext::evaluate_shape`]), compiled on first
    /// call.
    pub fn evaluate_pipeline(&self) -> Result<Arc<EvaluatePipeline>, GpuError> {
        self.cached(&self.pipeline, EvaluatePipeline::new)
    }

    /// The evaluate pipeline of compressed clips, compiled on first call.
    pub fn compressed_pipeline(&self) -> Result<Arc<EvaluatePipeline>, GpuError> {
        self.cached(&self.compressed, EvaluatePipeline::compressed)
    }

    /// The evaluate pipeline (of compressed clips with `compressed`) that keeps the previous
    /// palette ([`crate::gpu::GpuOptions::previous_palette`]), compiled on first call.
    pub fn previous_palette_pipeline(
        &self,
        compressed: bool,
    ) -> Result<Arc<EvaluatePipeline>, GpuError> {
        if compressed {
            self.cached(&self.previous[1], |d, s| {
                EvaluatePipeline::keeping_previous(d, s, true)
            })
        } else {
            self.cached(&self.previous[0], |d, s| {
                EvaluatePipeline::keeping_previous(d, s, false)
            })
        }
    }

    fn cached(
        &self,
        cell: &OnceLock<Arc<EvaluatePipeline>>,
        create: fn(&wgpu::Device, EvaluateShape) -> Result<EvaluatePipeline, GpuError>,
    ) -> Result<Arc<EvaluatePipeline>, GpuError> {
        self.loss.check()?;
        if let Some(p) = cell.get() {
            return Ok(p.clone());
        }
        let created = Arc::new(create(&self.device, self.shape)?);
        // Another thread may have won the race; either pipeline works, keep the stored one.
        Ok(cell.get_or_init(|| created).clone())
    }
}
