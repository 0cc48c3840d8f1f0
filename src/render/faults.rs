//! Failures the device reports on its own time (uncaptured errors, device loss), recorded by kind
//! as they happen and raised as a [`RenderError`] at the renderer's next check. The kind comes
//! from the report itself, never from the wording of its message.

use std::sync::{Arc, Mutex};

use super::RenderError;

/// One reported failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuFault {
    /// The device is gone (driver reset, GPU removed, out of resources): nothing more renders.
    Lost(String),
    /// A use of the API that wgpu rejected: a bug in simreel, or a limit not checked before.
    Validation(String),
    OutOfMemory(String),
    /// Anything else the implementation reports.
    Internal(String),
}

impl GpuFault {
    /// The kind of an uncaptured wgpu error.
    pub fn of_error(e: &wgpu::Error) -> Self {
        match e {
            wgpu::Error::OutOfMemory { .. } => GpuFault::OutOfMemory(e.to_string()),
            wgpu::Error::Validation { description, .. } => GpuFault::Validation(description.clone()),
            wgpu::Error::Internal { description, .. } => GpuFault::Internal(description.clone()),
        }
    }
}

impl From<GpuFault> for RenderError {
    fn from(f: GpuFault) -> Self {
        match f {
            GpuFault::Lost(m) => RenderError::DeviceLost(m),
            GpuFault::Validation(m) => RenderError::Validation(m),
            GpuFault::OutOfMemory(m) => RenderError::OutOfMemory(m),
            GpuFault::Internal(m) => RenderError::Internal(m),
        }
    }
}

/// Where the device's callbacks record faults: the first one is kept, except that losing the
/// device outranks anything recorded before it (errors that follow a loss are its echoes).
#[derive(Clone, Default)]
pub struct FaultSink(Arc<Mutex<Option<GpuFault>>>);

impl FaultSink {
    /// Routes `device`'s uncaptured errors and its loss here.
    pub fn watch(&self, device: &wgpu::Device) {
        let errors = self.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| errors.record(GpuFault::of_error(&e))));
        let lost = self.clone();
        device.set_device_lost_callback(move |reason, msg| {
            // dropping the device on purpose reports `Destroyed`: not a failure
            if reason != wgpu::DeviceLostReason::Destroyed {
                lost.record(GpuFault::Lost(format!("device lost ({reason:?}): {msg}")));
            }
        });
    }

    pub fn record(&self, fault: GpuFault) {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match (&*slot, &fault) {
            (None, _) | (Some(GpuFault::Validation(_) | GpuFault::OutOfMemory(_) | GpuFault::Internal(_)), GpuFault::Lost(_)) => {
                *slot = Some(fault)
            }
            _ => {}
        }
    }

    /// The fault recorded since the last check, as an error.
    pub fn check(&self) -> Result<(), RenderError> {
        match self.0.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(f) => Err(f.into()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validation(text: &str) -> wgpu::Error {
        wgpu::Error::Validation { source: Box::new(std::io::Error::other(text.to_string())), description: text.to_string() }
    }

    #[test]
    fn faults_are_classified_by_kind_not_by_wording() {
        // a validation message that happens to mention "lost" is still a validation error
        let sink = FaultSink::default();
        sink.record(GpuFault::of_error(&validation("buffer lost its mapping")));
        assert!(matches!(sink.check(), Err(RenderError::Validation(m)) if m.contains("lost")));
        assert!(sink.check().is_ok(), "a fault is reported once");
        let oom = wgpu::Error::OutOfMemory { source: Box::new(std::io::Error::other("no memory")) };
        sink.record(GpuFault::of_error(&oom));
        assert!(matches!(sink.check(), Err(RenderError::OutOfMemory(_))));
    }

    #[test]
    fn a_lost_device_outranks_earlier_errors_and_nothing_outranks_it() {
        let sink = FaultSink::default();
        sink.record(GpuFault::Validation("first".into()));
        sink.record(GpuFault::Internal("second".into()));
        sink.record(GpuFault::Lost("gone".into()));
        sink.record(GpuFault::Validation("echo".into()));
        assert!(matches!(sink.check(), Err(RenderError::DeviceLost(m)) if m == "gone"));
        sink.record(GpuFault::Validation("first".into()));
        sink.record(GpuFault::Internal("second".into()));
        assert!(matches!(sink.check(), Err(RenderError::Validation(m)) if m == "first"));
    }
}
