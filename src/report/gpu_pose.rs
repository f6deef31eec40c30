//! The GPU backend as a [`PoseEvaluator`]: what `sinew pose --backend gpu` runs.

use glam::Affine3A;

use super::PoseEvaluator;
use crate::baked::Rig;
use crate::error::GpuError;
use crate::gpu::{GpuBackend, GpuContext};
use crate::instance::{InstanceRecord, Layer};
use crate::math::Mat3x4Rows;
use crate::palette::PaletteBlock;

/// Evaluates single poses on the GPU and reads them back. Keeps the last rig uploaded, so a
/// report's many frames of one rig cost one upload.
#[derive(Debug)]
pub struct GpuPose {
    context: GpuContext,
    current: Option<(Rig, GpuBackend, PaletteBlock)>,
}

impl GpuPose {
    /// A pose evaluator on `context`'s device.
    pub fn new(context: GpuContext) -> Self {
        Self {
            context,
            current: None,
        }
    }

    /// The device it runs on.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// Evaluates `rig` with `layers` at the identity world transform; returns model matrices and
    /// palette of every joint.
    pub fn evaluate_pose(
        &mut self,
        rig: &Rig,
        layers: &[Layer],
    ) -> Result<(Vec<Affine3A>, Vec<Mat3x4Rows>), GpuError> {
        if self.current.as_ref().is_none_or(|(r, _, _)| r != rig) {
            self.current = None;
            let mut backend = GpuBackend::new(&self.context, std::slice::from_ref(rig), &[])?;
            let block = backend.allocate(0)?;
            self.current = Some((rig.clone(), backend, block));
        }
        let Some((_, backend, block)) = self.current.as_mut() else {
            return Err(GpuError::Validation("no rig uploaded".into()));
        };
        let record = InstanceRecord::new(0, block.offset, &Affine3A::IDENTITY, layers)?;
        let frame = [record];
        backend.evaluate(&frame)?;
        let mut read = backend.read_instances(&frame, &[0])?;
        let instance = read
            .pop()
            .ok_or(GpuError::Readback("nothing read".into()))?;
        Ok((instance.models, instance.palette))
    }
}

impl PoseEvaluator for GpuPose {
    fn evaluate(
        &mut self,
        rig: &Rig,
        layers: &[Layer],
    ) -> Result<(Vec<Affine3A>, Vec<Mat3x4Rows>), String> {
        self.evaluate_pose(rig, layers).map_err(|e| e.to_string())
    }
}
