//! Device loss. wgpu drops the work of a lost device (destroyed, reset, removed) without an
//! error, so the calls that submit or read check first and return [`GpuError::DeviceLost`]
//! instead: from the device-lost callback's report where it came, or from a write the queue
//! refuses without a validation error (the one sign a lost device gives at once).

use std::sync::{Arc, OnceLock};

use crate::error::GpuError;

/// What a lost device's error says before wgpu's callback has told why.
const NO_MORE_WORK: &str = "the device accepts no more work";

/// The loss watch of one device: its device-lost callback
/// ([`wgpu::Device::set_device_lost_callback`]) records why the device was lost. A
/// [`crate::GpuContext`] installs one, which replaces any callback the host set; a host that
/// needs its own installs it afterwards and calls [`DeviceLoss::report`] from it.
#[derive(Clone, Debug)]
pub struct DeviceLoss(Arc<Watch>);

#[derive(Debug)]
struct Watch {
    device: wgpu::Device,
    reason: OnceLock<String>,
}

impl DeviceLoss {
    /// Installs the device-lost callback of `device` and returns its watch.
    pub fn watch(device: &wgpu::Device) -> Self {
        let watch = Arc::new(Watch {
            device: device.clone(),
            reason: OnceLock::new(),
        });
        // The device keeps the callback; a strong reference there would keep the device.
        let weak = Arc::downgrade(&watch);
        device.set_device_lost_callback(move |reason, message| {
            if let Some(watch) = weak.upgrade() {
                Self(watch).report(reason, &message);
            }
        });
        Self(watch)
    }

    /// Records that the device is lost (the first report wins).
    pub fn report(&self, reason: wgpu::DeviceLostReason, message: &str) {
        let what = match reason {
            wgpu::DeviceLostReason::Destroyed => "destroyed",
            wgpu::DeviceLostReason::Unknown => "lost for an unknown reason",
        };
        let text = match message.trim() {
            "" => what.to_string(),
            m => format!("{what}: {m}"),
        };
        // A second report of the same loss changes nothing.
        let _ = self.0.reason.set(text);
    }

    /// Why the device is lost, once the loss is reported.
    pub fn reason(&self) -> Option<&str> {
        self.0.reason.get().map(String::as_str)
    }

    /// [`GpuError::DeviceLost`] if the loss is reported, without asking the device.
    pub fn status(&self) -> Result<(), GpuError> {
        match self.reason() {
            Some(_) => Err(self.lost()),
            None => Ok(()),
        }
    }

    /// [`GpuError::DeviceLost`] if the device is lost. A destroyed device reports its loss
    /// from a poll once the work it had been given is done, so a device not known to be lost
    /// is polled (without waiting) first.
    pub fn check(&self) -> Result<(), GpuError> {
        self.status()?;
        // A poll that does not wait cannot time out or name a wrong submission; what matters
        // is the callbacks it runs.
        let _ = self.0.device.poll(wgpu::PollType::Poll);
        self.status()
    }

    /// The error of this device lost, with the reason where it is known.
    pub(crate) fn lost(&self) -> GpuError {
        GpuError::DeviceLost {
            reason: self.reason().unwrap_or(NO_MORE_WORK).to_string(),
        }
    }

    /// `error`, or [`GpuError::DeviceLost`] when the device is lost by now (a failed wait or
    /// mapping on a lost device says less than the loss does).
    pub(crate) fn explain(&self, error: GpuError) -> GpuError {
        match self.status() {
            Err(lost) => lost,
            Ok(()) => error,
        }
    }
}

/// [`GpuError::DeviceLost`] for a device without a watch at hand.
pub(crate) fn refused_work() -> GpuError {
    GpuError::DeviceLost {
        reason: NO_MORE_WORK.to_string(),
    }
}
