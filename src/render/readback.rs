//! Getting frames back from the GPU: staging buffers that frames are copied into, so that frame
//! N renders while frame N − 1 is copied out. Rows are padded to wgpu's 256-byte pitch on the GPU
//! side. A finished frame is lent out still mapped ([`Mapped`]): whoever holds it reads the rows
//! straight from the staging buffer (an encoder thread writes its PNG from there), and the
//! buffer takes another frame once the lease is dropped. A caller that wants an owned image copies
//! it out ([`Mapped::to_image`]).

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

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

/// What the staging buffers may take together, beyond the few every renderer has: frames lent
/// out wait for their buffers past this.
const STAGING_BUDGET: u64 = 256 << 20;

type MapResult = Arc<Mutex<Option<Result<(), wgpu::BufferAsyncError>>>>;

enum State {
    Free,
    /// The copy of a frame in flight: its index and submission, and its mapping's outcome.
    Pending(u32, wgpu::SubmissionIndex, MapResult),
    /// Mapped and lent out.
    Lent,
}

/// The slots whose leases were dropped, and a signal for whoever waits for one.
#[derive(Default)]
struct Returns {
    slots: Mutex<Vec<usize>>,
    returned: Condvar,
}

impl Returns {
    fn give_back(&self, slot: usize) {
        if let Ok(mut s) = self.slots.lock() {
            s.push(slot);
        }
        self.returned.notify_all();
    }
}

/// A finished frame still in its staging buffer, lent out: its rows are read in place, and the
/// buffer is unmapped and takes another frame when this is dropped.
pub struct Mapped {
    pub index: u32,
    pub width: u32,
    pub height: u32,
    buffer: wgpu::Buffer,
    slot: usize,
    returns: Arc<Returns>,
}

impl Mapped {
    /// Calls `f` with the frame's tightly packed RGBA8 rows: the staging buffer itself when its
    /// rows need no unpadding (widths a multiple of 64), else an unpadded copy.
    pub fn with_rgba<R>(&self, f: impl FnOnce(&[u8]) -> R) -> Result<R, RenderError> {
        let view = self
            .buffer
            .slice(..)
            .get_mapped_range()
            .map_err(|e| RenderError::DeviceLost(format!("reading back frame {}: {e}", self.index)))?;
        let (pitch, row, rows) = (padded_row(self.width) as usize, self.width as usize * 4, self.height as usize);
        if pitch == row {
            return Ok(f(&view[..row * rows]));
        }
        let mut rgba = Vec::with_capacity(row * rows);
        for y in 0..rows {
            rgba.extend_from_slice(&view[y * pitch..y * pitch + row]);
        }
        drop(view);
        Ok(f(&rgba))
    }

    /// The frame copied out, as an owned image (the buffer is free again once this returns).
    pub fn to_image(self) -> Result<Image, RenderError> {
        let rgba = self.with_rgba(<[u8]>::to_vec)?;
        Ok(Image { index: self.index, width: self.width, height: self.height, rgba })
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        self.buffer.unmap();
        self.returns.give_back(self.slot);
    }
}

pub struct Readback {
    slots: Vec<(wgpu::Buffer, State)>,
    /// The slots with a copy in flight, oldest first (frames come out in submission order).
    pending: VecDeque<usize>,
    returns: Arc<Returns>,
    width: u32,
    height: u32,
    /// Copies in flight at most.
    depth: usize,
    /// Slots at most: `depth` + 2, and frames lent out within [`STAGING_BUDGET`].
    most: usize,
    /// The slot the frame being recorded is copied into.
    next: Option<usize>,
    /// Time spent waiting for the GPU to finish frames, and for lent frames to come back.
    pub waited: Duration,
    pub lent_wait: Duration,
}

impl Readback {
    /// Staging for `width` × `height` frames, `depth` of them in flight at most.
    pub fn new(width: u32, height: u32, depth: usize) -> Self {
        let depth = depth.max(1);
        Readback {
            slots: Vec::new(),
            pending: VecDeque::new(),
            returns: Arc::default(),
            width,
            height,
            depth,
            most: depth + 2,
            next: None,
            waited: Duration::ZERO,
            lent_wait: Duration::ZERO,
        }
    }

    fn frame_bytes(&self) -> u64 {
        padded_row(self.width) as u64 * self.height as u64
    }

    /// Lets up to `frames` finished frames be held by their readers at once (more slots, within
    /// the staging budget), so that rendering goes on while they are read.
    pub fn lend(&mut self, frames: usize) {
        let budget = (STAGING_BUDGET / self.frame_bytes().max(1)) as usize;
        self.most = self.depth + 2 + frames.min(budget);
    }

    /// Copies in flight.
    pub fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// Whether the next copy must first wait for the oldest frame in flight.
    pub fn full(&self) -> bool {
        self.pending.len() >= self.depth
    }

    /// Takes back the slots whose leases were dropped.
    fn collect_returns(&mut self) {
        let returned = std::mem::take(&mut *self.returns.slots.lock().expect("returns"));
        for s in returned {
            self.slots[s].1 = State::Free;
        }
    }

    /// Finds the slot the next copy goes to: a free one, a new one, or the first one handed back.
    fn reserve(&mut self, device: &wgpu::Device) -> usize {
        if let Some(s) = self.next {
            return s;
        }
        self.collect_returns();
        let free = self.slots.iter().position(|(_, s)| matches!(s, State::Free));
        let slot = match free {
            Some(s) => s,
            None if self.slots.len() < self.most => {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("readback {}", self.slots.len())),
                    size: self.frame_bytes(),
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                });
                self.slots.push((buffer, State::Free));
                self.slots.len() - 1
            }
            None => {
                // every slot is in flight or lent: at least two are lent to readers (there are
                // `depth` + 2 slots or more, fewer than `depth` in flight), who give them back
                let waiting = Instant::now();
                let mut back = self.returns.slots.lock().expect("returns");
                while back.is_empty() {
                    back = self.returns.returned.wait(back).expect("returns");
                }
                drop(back);
                self.lent_wait += waiting.elapsed();
                self.collect_returns();
                self.slots.iter().position(|(_, s)| matches!(s, State::Free)).expect("a slot came back")
            }
        };
        self.next = Some(slot);
        slot
    }

    /// Records the copy of `texture` into the next slot; call `submitted` after submitting.
    pub fn encode_copy(&mut self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, texture: &wgpu::Texture) {
        let slot = self.reserve(device);
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo { texture, mip_level: 0, origin: wgpu::Origin3d::ZERO, aspect: wgpu::TextureAspect::All },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.slots[slot].0,
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
        let slot = self.next.take().expect("a copy was recorded");
        let result: MapResult = Arc::new(Mutex::new(None));
        let r = result.clone();
        self.slots[slot].0.slice(..).map_async(wgpu::MapMode::Read, move |res| {
            if let Ok(mut g) = r.lock() {
                *g = Some(res);
            }
        });
        self.slots[slot].1 = State::Pending(index, submission, result);
        self.pending.push_back(slot);
    }

    /// Waits for the oldest frame in flight (at most `patience`) and lends it out, or `None` when
    /// nothing is in flight.
    pub fn wait_oldest(&mut self, device: &wgpu::Device, patience: Duration) -> Result<Option<Mapped>, RenderError> {
        let Some(slot) = self.pending.pop_front() else { return Ok(None) };
        let State::Pending(index, submission, result) = std::mem::replace(&mut self.slots[slot].1, State::Lent) else {
            unreachable!("a slot in flight is pending")
        };
        let waiting = Instant::now();
        let done = device.poll(wgpu::PollType::Wait { submission_index: Some(submission), timeout: Some(patience) }).map_err(|e| match e {
            wgpu::PollError::Timeout => RenderError::Hung { frame: index, seconds: patience.as_secs() },
            e => RenderError::DeviceLost(format!("waiting for frame {index}: {e}")),
        });
        self.waited += waiting.elapsed();
        let status = result.lock().ok().and_then(|mut g| g.take());
        let mapped = done.and_then(|_| match status {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => Err(RenderError::DeviceLost(format!("reading back frame {index}: {e}"))),
            None => Err(RenderError::DeviceLost(format!("frame {index} never finished mapping"))),
        });
        if let Err(e) = mapped {
            // the slot takes frames again (a mapping still under way is cancelled)
            self.slots[slot].0.unmap();
            self.slots[slot].1 = State::Free;
            return Err(e);
        }
        let buffer = self.slots[slot].0.clone();
        Ok(Some(Mapped { index, width: self.width, height: self.height, buffer, slot, returns: self.returns.clone() }))
    }
}
