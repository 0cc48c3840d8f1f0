//! Getting frames back from the GPU: a ring of staging buffers, so that frame N renders while
//! frame N − 1 is copied out; rows are padded to wgpu's 256-byte pitch on the GPU side and
//! unpadded on the way out.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::RenderError;

/// A finished frame: tightly packed RGBA8 rows (sRGB), top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub index: u32,
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Bytes per row padded to `COPY_BYTES_PER_ROW_ALIGNMENT`.
pub fn padded_row(width: u32) -> u32 {
    let unpadded = width * 4;
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

/// How long a frame may take on the GPU before the device is taken as hung, unless the job says
/// otherwise ([`super::Renderer::set_patience`]).
pub const DEFAULT_PATIENCE: Duration = Duration::from_secs(120);

type MapResult = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

struct Slot {
    buffer: wgpu::Buffer,
    /// Frame index and submission of the copy in flight, if any.
    pending: Option<(u32, wgpu::SubmissionIndex, MapResult)>,
}

pub struct Readback {
    slots: Vec<Slot>,
    next: usize,
    width: u32,
    height: u32,
}

impl Readback {
    pub fn new(device: &wgpu::Device, width: u32, height: u32, depth: usize) -> Self {
        let size = padded_row(width) as u64 * height as u64;
        let slots = (0..depth)
            .map(|i| Slot {
                buffer: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("readback {i}")),
                    size,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                }),
                pending: None,
            })
            .collect();
        Readback { slots, next: 0, width, height }
    }

    /// Is the slot the next copy goes to still holding an unread frame?
    pub fn next_is_busy(&self) -> bool {
        self.slots[self.next].pending.is_some()
    }

    /// Index of the slot holding the oldest unread frame.
    fn oldest(&self) -> Option<usize> {
        (0..self.slots.len()).map(|k| (self.next + k) % self.slots.len()).find(|&i| self.slots[i].pending.is_some())
    }

    pub fn in_flight(&self) -> usize {
        self.slots.iter().filter(|s| s.pending.is_some()).count()
    }

    /// Records the copy of `texture` into the next slot; call `submitted` after submitting.
    pub fn encode_copy(&self, encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture) {
        let slot = &self.slots[self.next];
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo { texture, mip_level: 0, origin: wgpu::Origin3d::ZERO, aspect: wgpu::TextureAspect::All },
            wgpu::TexelCopyBufferInfo {
                buffer: &slot.buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row(self.width)),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d { width: self.width, height: self.height, depth_or_array_layers: 1 },
        );
    }

    /// Starts mapping the slot just written for frame `index`.
    pub fn submitted(&mut self, index: u32, submission: wgpu::SubmissionIndex) {
        let slot = &mut self.slots[self.next];
        let result: MapResult = Arc::new(Mutex::new(None));
        let r = result.clone();
        slot.buffer.slice(..).map_async(wgpu::MapMode::Read, move |res| {
            if let Ok(mut g) = r.lock() {
                *g = Some(res);
            }
        });
        slot.pending = Some((index, submission, result));
        self.next = (self.next + 1) % self.slots.len();
    }

    /// Waits for the oldest frame in flight (at most `patience`) and returns it, or `None` when
    /// nothing is in flight.
    pub fn wait_oldest(&mut self, device: &wgpu::Device, patience: Duration) -> Result<Option<Image>, RenderError> {
        let Some(i) = self.oldest() else { return Ok(None) };
        let (index, submission, result) = self.slots[i].pending.take().expect("oldest slot is pending");
        device.poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(patience) }).map_err(|e| match e {
            wgpu::PollError::Timeout => RenderError::Hung { frame: index, seconds: patience.as_secs() },
            e => RenderError::DeviceLost(format!("waiting for frame {index}: {e}")),
        })?;
        let status = result.lock().ok().and_then(|mut g| g.take());
        match status {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(RenderError::DeviceLost(format!("reading back frame {index}: {e}"))),
            None => return Err(RenderError::DeviceLost(format!("frame {index} never finished mapping"))),
        }
        let buffer = &self.slots[i].buffer;
        let pitch = padded_row(self.width) as usize;
        let row = self.width as usize * 4;
        let mut rgba = Vec::with_capacity(row * self.height as usize);
        {
            let view =
                buffer.slice(..).get_mapped_range().map_err(|e| RenderError::DeviceLost(format!("reading back frame {index}: {e}")))?;
            for y in 0..self.height as usize {
                rgba.extend_from_slice(&view[y * pitch..y * pitch + row]);
            }
        }
        buffer.unmap();
        Ok(Some(Image { index, width: self.width, height: self.height, rgba }))
    }
}
