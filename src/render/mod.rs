//! Headless rendering of [`FrameData`] with wgpu: offscreen sRGB targets with 4× MSAA and depth, a
//! background gradient, a directional shadow map, lit meshes (closed ones without their back
//! faces), the frame's 2-D canvas over the resolved image at one sample a pixel, and readback
//! through a ring of staging buffers. A frame with nothing in 3-D is not multisampled. The
//! renderer draws what the frame says; it knows nothing of scene kinds.

mod batches;
mod canvas;
pub mod deform;
pub mod device;
mod edges;
pub mod faults;
mod passes;
mod pipelines;
#[cfg(feature = "render")]
pub mod pool;
mod present;
pub mod readback;
mod resident;
pub mod shaders;
mod targets;
pub mod text;
mod zoom;

use std::collections::HashMap;

use glam::{Mat4, Vec3};

use crate::frame::{FrameData, Zoom};
pub use device::{AdapterRequest, AdapterSummary, BackendChoice};
use pipelines::{DEPTH_FORMAT, Instance, Pipelines};
#[cfg(feature = "render")]
pub use pool::Pool;
pub use readback::{Image, Mapped};
use resident::{GpuMesh, corner};
use targets::Targets;

/// Side of the square shadow map, texels.
pub const SHADOW_SIZE: u32 = 2048;
/// Frames in flight between submission and readback: on a software adapter, whose frames take
/// the CPU the other stages need, and on a GPU, which finishes frames faster than the CPU hands
/// them over and whose copies back to memory go on behind its drawing.
const READBACK_DEPTH_SOFTWARE: usize = 3;
const READBACK_DEPTH_GPU: usize = 6;

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("no GPU or software adapter is available; {hint}")]
    NoAdapter { hint: String },
    #[error("no adapter matches --adapter \"{filter}\"; available: {}", available.join("; "))]
    AdapterNotFound { filter: String, available: Vec<String> },
    #[error("the {backend} backend has no adapter on this machine; available: {}; use --backend auto or one of these", available.join("; "))]
    BackendUnavailable { backend: String, available: Vec<String> },
    #[error("{variable}={value}: expected {expected}")]
    Preference { variable: &'static str, value: String, expected: String },
    #[error("cannot open a device: {0}")]
    Device(String),
    #[error("the GPU device was lost: {0}")]
    DeviceLost(String),
    #[error("{what} is more than this adapter allows ({limit})")]
    TooLarge { what: String, limit: String },
    #[error("GPU validation error: {0}")]
    Validation(String),
    #[error("the GPU ran out of memory: {0}")]
    OutOfMemory(String),
    #[error("GPU error: {0}")]
    Internal(String),
    #[error("the GPU did not finish frame {frame} within {seconds} s")]
    Hung { frame: u32, seconds: u64 },
}

impl RenderError {
    /// No adapter (or the one asked for is missing or lost): 3; asked too much of one or a bad
    /// preference: 2; the GPU failing otherwise: 1.
    pub fn exit_class(&self) -> crate::exit::ExitClass {
        use crate::exit::ExitClass;
        match self {
            RenderError::NoAdapter { .. }
            | RenderError::AdapterNotFound { .. }
            | RenderError::BackendUnavailable { .. }
            | RenderError::Device(_)
            | RenderError::DeviceLost(_)
            | RenderError::Hung { .. } => ExitClass::NoAdapter,
            RenderError::TooLarge { .. } | RenderError::Preference { .. } => ExitClass::BadInput,
            RenderError::Validation(_) | RenderError::OutOfMemory(_) | RenderError::Internal(_) => ExitClass::Runtime,
        }
    }
}

/// The per-frame uniform block (`Frame` in shaders/common.wgsl).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct FrameUniforms {
    view_proj: [[f32; 4]; 4],
    light_view_proj: [[f32; 4]; 4],
    eye: [f32; 4],
    to_sun: [f32; 4],
    sun: [f32; 4],
    sky: [f32; 4],
    ground: [f32; 4],
    fog: [f32; 4],
    bg_top: [f32; 4],
    bg_bottom: [f32; 4],
    shadow: [f32; 4],
}

/// Where a frame is drawn: a pixel rectangle of the image, its canvas slot, whether the pass
/// clears the target first and whether the frame's canvas is drawn with it.
struct Place {
    rect: [f32; 4],
    slot: usize,
    clear: bool,
    canvas: bool,
    /// Nothing is drawn into the multisampled target after this pass (a frame without views).
    last: bool,
    /// The part of the frame's picture shown in `rect` (an inset), when not all of it.
    zoom: Option<Zoom>,
}

/// View rectangle `rect` (outer canvas units) in whole pixels of a `size` image, the outer canvas
/// drawn at `scale` pixels per unit from `origin`; `None` when nothing of it is on the image.
fn pixel_rect(rect: [f32; 4], scale: f32, origin: [f32; 2], size: (u32, u32)) -> Option<[f32; 4]> {
    let edge = |v: f32, o: f32, max: u32| (o + v * scale).round().clamp(0.0, max as f32);
    let (x0, x1) = (edge(rect[0], origin[0], size.0), edge(rect[0] + rect[2], origin[0], size.0));
    let (y0, y1) = (edge(rect[1], origin[1], size.1), edge(rect[1] + rect[3], origin[1], size.1));
    (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
}

/// How one instance of a frame is drawn.
struct Draw {
    instance: u32,
    key: u64,
    /// Slot of its bent vertices, when it has a Bézier volume.
    bent: Option<usize>,
    translucent: bool,
    casts_shadow: bool,
    /// Depth only (a hidden fill).
    hidden: bool,
    /// Back faces never show (`Material::closed`): drawn culled.
    closed: bool,
    /// The instance record of its wireframe, when it has one.
    wire: Option<u32>,
}

/// A device with everything needed to turn frames into images of one size.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    summary: AdapterSummary,
    width: u32,
    height: u32,
    pipelines: Pipelines,
    targets: Targets,
    shadow_view: wgpu::TextureView,
    uniforms: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    shadow_group: wgpu::BindGroup,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    meshes: HashMap<u64, GpuMesh>,
    /// Edges of the meshes drawn with a wireframe, by mesh key.
    edges: HashMap<u64, edges::GpuEdges>,
    readback: readback::Readback,
    faults: faults::FaultSink,
    canvas: canvas::CanvasRenderer,
    deformer: deform::Deformer,
    /// What the shadow map currently holds (sun matrix, casters and their placement): a frame that
    /// would draw the same map reuses it.
    shadow_key: Option<u64>,
    batches: batches::BatchGpu,
    draws: DrawCounts,
    /// How long a frame may take on the GPU before the device is taken as hung.
    patience: std::time::Duration,
    /// Draws the image onto a canvas that takes no copies, once one asked.
    presenter: Option<present::Presenter>,
    /// What making it took, until a job takes the figures ([`Renderer::take_opening`]).
    opening: Option<Opening>,
}

/// What making a renderer took: finding the adapter, then opening its device and building the
/// pipelines and targets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Opening {
    pub adapter: std::time::Duration,
    pub device: std::time::Duration,
}

/// Where the render stage's time went so far, of what the calls to [`Renderer::submit_mapped`]
/// and [`Renderer::next_mapped`] took: waiting for the GPU to finish frames, and waiting for the
/// readers of lent frames to give their staging buffers back. The rest of it is recording and
/// submitting.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RenderClock {
    pub gpu_wait: std::time::Duration,
    pub lent_wait: std::time::Duration,
}

/// Draw calls issued for the last frame submitted, per pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawCounts {
    /// Into the shadow map (0 when the frame reused the map).
    pub shadow: u32,
    /// Into the colour target, background and 2-D layers included.
    pub main: u32,
    /// Whether the frame's 3-D pass ran (multisampled when the renderer is); without one, only
    /// the background was drawn, straight into the image, under the canvas.
    pub scene_pass: bool,
}

impl Renderer {
    /// Picks an adapter, opens a device and builds targets for `width` × `height` at `samples`
    /// (1 or 4) samples per pixel.
    #[cfg(feature = "render")]
    pub fn new(request: &AdapterRequest, width: u32, height: u32, samples: u32) -> Result<Self, RenderError> {
        let start = std::time::Instant::now();
        let adapter = device::pick(request)?;
        let found = start.elapsed();
        let mut renderer =
            pollster::block_on(Self::on_adapter(&adapter, width, height, samples)).map_err(|e| device::open_failed(&adapter, e))?;
        renderer.opening = Some(Opening { adapter: found, device: start.elapsed() - found });
        Ok(renderer)
    }

    /// [`Renderer::new`] on an adapter found by the caller (a browser's, for a canvas), as a
    /// future: opening a device is asynchronous there.
    pub async fn on_adapter(adapter: &wgpu::Adapter, width: u32, height: u32, samples: u32) -> Result<Self, RenderError> {
        let compute = device::has_compute(adapter);
        let (device, queue) = device::open_async(adapter, width.max(height), compute).await?;
        let summary = AdapterSummary::of(&adapter.get_info());
        let faults = faults::FaultSink::default();
        faults.watch(&device);
        // WebGL2 (GL without compute shaders): GLSL ES 3.0
        let es3 = adapter.get_info().backend == wgpu::Backend::Gl && !compute;
        let pipelines = Pipelines::new(&device, samples, es3);
        let canvas = canvas::CanvasRenderer::new(&device, samples);
        let deformer = deform::Deformer::new(&device, compute);
        let targets = Targets::new(&device, width, height, samples);
        let shadow_tex = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("shadow map"),
            size: wgpu::Extent3d { width: SHADOW_SIZE, height: SHADOW_SIZE, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let shadow_view = shadow_tex.create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame uniforms"),
            size: size_of::<FrameUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame"),
            layout: &pipelines.frame_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() }],
        });
        let shadow_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow map"),
            layout: &pipelines.shadow_layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&shadow_view) },
                wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(&sampler) },
            ],
        });
        let instance_capacity = 16;
        let instances = Self::instance_buffer(&device, instance_capacity);
        let depth = if adapter.get_info().device_type == wgpu::DeviceType::Cpu { READBACK_DEPTH_SOFTWARE } else { READBACK_DEPTH_GPU };
        let readback = readback::Readback::new(width, height, depth);
        let batches = batches::BatchGpu::new(&device, &pipelines.batch_layout);
        Ok(Renderer {
            device,
            queue,
            summary,
            width,
            height,
            pipelines,
            targets,
            shadow_view,
            uniforms,
            frame_group,
            shadow_group,
            instances,
            instance_capacity,
            meshes: HashMap::new(),
            edges: HashMap::new(),
            readback,
            faults,
            shadow_key: None,
            canvas,
            deformer,
            batches,
            draws: DrawCounts::default(),
            patience: readback::DEFAULT_PATIENCE,
            presenter: None,
            opening: None,
        })
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.summary
    }

    /// How long a frame may take on the GPU before the device is taken as hung (2 min unless
    /// set: a job sets it from its scene's estimated cost).
    pub fn set_patience(&mut self, patience: std::time::Duration) {
        self.patience = patience;
    }

    /// What making this renderer took, the first time it is asked (a renderer reused for another
    /// job answers `None`).
    pub fn take_opening(&mut self) -> Option<Opening> {
        self.opening.take()
    }

    /// The render stage's waits and copies so far (figures only grow: a job subtracts its start).
    pub fn clock(&self) -> RenderClock {
        RenderClock { gpu_wait: self.readback.waited, lent_wait: self.readback.lent_wait }
    }

    /// Draw calls of the last frame submitted.
    pub fn last_draws(&self) -> DrawCounts {
        self.draws
    }

    /// Instanced-batch placements uploaded so far (each key once while frames keep naming it).
    pub fn placement_uploads(&self) -> u64 {
        self.batches.uploads
    }

    /// Whether Bézier volumes are evaluated by a compute shader (else on the CPU).
    pub fn deforms_on_gpu(&self) -> bool {
        self.deformer.on_gpu()
    }

    /// Evaluates Bézier volumes on the CPU from now on, even where compute shaders exist (tests
    /// compare the two paths).
    pub fn deform_on_cpu(&mut self) {
        self.deformer = deform::Deformer::new(&self.device, false);
    }

    fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances"),
            size: (capacity * size_of::<Instance>()) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Camera and sun matrices, and the world size of a shadow texel.
    fn uniforms_for(&self, frame: &FrameData, rect: [f32; 4], zoom: Option<Zoom>) -> FrameUniforms {
        let c = &frame.camera;
        // The sun looks at the bounding sphere of everything drawn.
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for m in &frame.meshes {
            let bounds = match &m.deform {
                Some(v) => Some(v.bounds()),
                None => self.meshes.get(&m.mesh.key).and_then(|g| g.bounds),
            };
            let Some(b) = bounds else { continue };
            let model = Mat4::from_cols_array_2d(&m.transform);
            for k in 0..8 {
                let w = model.transform_point3(corner(b, k));
                lo = lo.min(w);
                hi = hi.max(w);
            }
        }
        for d in &self.batches.draws {
            lo = lo.min(Vec3::from(d.bounds.0));
            hi = hi.max(Vec3::from(d.bounds.1));
        }
        let (center, radius) = if lo.x.is_finite() { ((lo + hi) * 0.5, ((hi - lo) * 0.5).length().max(1e-3)) } else { (Vec3::ZERO, 1.0) };
        let to_sun = Vec3::from(frame.lighting.to_sun).normalize_or(Vec3::Y);
        let up = if to_sun.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
        let light_view = Mat4::look_at_rh(center + to_sun * radius * 2.0, center, up);
        let light_proj = Mat4::orthographic_rh(-radius, radius, -radius, radius, radius * 0.5, radius * 3.5);
        let l = &frame.lighting;
        let v4 = |v: [f32; 3], w: f32| [v[0], v[1], v[2], w];
        let (view_proj, (bg_top, bg_bottom)) = match zoom {
            None => (c.view_proj(rect[2] / rect[3]), (frame.background.top, frame.background.bottom)),
            Some(z) => {
                (zoom::matrix(z.region) * c.view_proj(z.aspect), zoom::background(frame.background.top, frame.background.bottom, z.region))
            }
        };
        FrameUniforms {
            view_proj: view_proj.to_cols_array_2d(),
            light_view_proj: (light_proj * light_view).to_cols_array_2d(),
            eye: v4(c.eye, 1.0),
            to_sun: v4(to_sun.to_array(), if l.shadows { 1.0 } else { 0.0 }),
            sun: v4(l.sun, l.shadow_softness),
            sky: v4(l.sky, 0.0),
            ground: v4(l.ground, 0.0),
            fog: v4(l.fog_color, l.fog_density),
            bg_top: v4(bg_top, 1.0),
            bg_bottom: v4(bg_bottom, 1.0),
            shadow: [1.0 / SHADOW_SIZE as f32, 2.0 * radius / SHADOW_SIZE as f32, rect[2], rect[3]],
        }
    }

    /// Encodes and submits `frame`. When as many frames as the renderer keeps in flight are, first
    /// waits for the oldest and returns it; images come out in submission order.
    pub fn submit(&mut self, frame: &FrameData) -> Result<Option<Image>, RenderError> {
        self.submit_mapped(frame)?.map(Mapped::to_image).transpose()
    }

    /// [`Renderer::submit`], the finished frame lent out in its staging buffer: it is read in
    /// place, and the buffer takes another frame once it is dropped. Up to as many frames as
    /// [`Renderer::lend`] allows may be held at once; past that, a submission waits for one.
    ///
    /// A frame with views is drawn in steps, one submission each: its background and meshes, each
    /// view into its rectangle, then its canvas over everything. The frame is recorded before
    /// waiting for the oldest, so the CPU records while the GPU finishes.
    pub fn submit_mapped(&mut self, frame: &FrameData) -> Result<Option<Mapped>, RenderError> {
        let mut encoder = self.record(frame)?;
        let ready = if self.readback.full() { self.readback.wait_oldest(&self.device, self.patience)? } else { None };
        self.readback.encode_copy(&self.device, &mut encoder, &self.targets.resolve);
        let submission = self.queue.submit([encoder.finish()]);
        self.readback.submitted(frame.index, submission);
        self.faults.check()?;
        Ok(ready)
    }

    /// Lets the readers of [`Renderer::submit_mapped`]'s frames hold up to `frames` of them at
    /// once while rendering goes on (staging buffers for them, within a memory budget).
    pub fn lend(&mut self, frames: usize) {
        self.readback.lend(frames);
    }

    /// Records `frame` whole, its views and canvas included, up to the resolved image; the
    /// steps before the last are submitted on the way.
    fn record(&mut self, frame: &FrameData) -> Result<wgpu::CommandEncoder, RenderError> {
        self.keep_meshes(frame)?;
        self.draws = DrawCounts::default();
        let full = [0.0, 0.0, self.width as f32, self.height as f32];
        let new_encoder = |device: &wgpu::Device| device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        let mut encoder = new_encoder(&self.device);
        // the frame's own canvas is drawn last, over the resolved image (`overlay_pass`)
        self.encode_frame(
            &mut encoder,
            frame,
            Place { rect: full, slot: 0, clear: true, canvas: false, last: frame.views.is_empty(), zoom: None },
        );
        if !frame.views.is_empty() {
            self.queue.submit([encoder.finish()]);
            let size = frame.canvas.as_ref().map_or([self.width as f32, self.height as f32], |c| c.size);
            let (scale, origin) = canvas::fit(size, full);
            for (i, view) in frame.views.iter().enumerate() {
                let Some(rect) = pixel_rect(view.rect, scale, origin, (self.width, self.height)) else { continue };
                let mut encoder = new_encoder(&self.device);
                self.encode_frame(
                    &mut encoder,
                    &view.frame,
                    Place { rect, slot: 1 + i, clear: false, canvas: true, last: false, zoom: view.zoom },
                );
                self.queue.submit([encoder.finish()]);
            }
            encoder = new_encoder(&self.device);
        }
        if frame.canvas.is_some() {
            let size = (self.width, self.height);
            self.canvas.prepare(&self.device, &self.queue, &mut encoder, 0, frame.canvas.as_ref(), full, size);
            self.draws.main += self.overlay_pass(&mut encoder);
        }
        Ok(encoder)
    }

    /// Records `frame` (without its views) into `encoder`: bends, shadow map, main pass, placed as
    /// `place` says. Adds its draw calls to the frame's counts.
    fn encode_frame(&mut self, encoder: &mut wgpu::CommandEncoder, frame: &FrameData, place: Place) {
        let meshes = &self.meshes;
        let shape = |key: u64| meshes.get(&key).map_or_else(Default::default, GpuMesh::shape);
        self.batches.prepare(&self.device, &self.queue, &self.pipelines.batch_layout, frame, shape);
        let uniforms = self.uniforms_for(frame, place.rect, place.zoom);
        self.queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
        self.write_instances(frame);
        let draws = self.bend(frame, encoder);
        if self.shadow_is_stale(frame, &uniforms) {
            self.draws.shadow += self.shadow_pass(encoder, &draws);
        }
        if place.canvas {
            let size = (self.width, self.height);
            self.canvas.prepare(
                &self.device,
                &self.queue,
                encoder,
                place.slot,
                frame.canvas.as_ref(),
                zoom::picture(place.rect, place.zoom),
                size,
            );
        }
        let canvas = place.canvas && frame.canvas.is_some();
        if place.last && place.clear && !canvas && draws.is_empty() && self.batches.draws.is_empty() {
            self.draws.main += self.background_pass(encoder);
        } else {
            self.draws.scene_pass = true;
            self.draws.main += self.main_pass(encoder, &draws, &place, canvas);
        }
    }

    /// Packs the per-instance records (model and normal matrices, material), growing the buffer
    /// to the next power of two when needed.
    fn write_instances(&mut self, frame: &FrameData) {
        let mut instances: Vec<Instance> = frame.meshes.iter().map(Instance::of).collect();
        // wireframes after them, in frame order: the model matrix, the wire's colour and width
        for m in frame.meshes.iter().filter(|m| m.deform.is_none()) {
            if let Some(w) = m.material.wire {
                instances.push(Instance { tint: w.color, surface: [w.width, 0.0, 0.0, 0.0], ..Instance::of(m) });
            }
        }
        if instances.len() > self.instance_capacity {
            self.instance_capacity = instances.len().next_power_of_two();
            self.instances = Self::instance_buffer(&self.device, self.instance_capacity);
        }
        if !instances.is_empty() {
            self.queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&instances));
        }
    }

    /// Bends the frame's deformed instances (recorded in `encoder`) and lists what to draw: opaque
    /// instances in frame order, then translucent ones farthest first.
    fn bend(&mut self, frame: &FrameData, encoder: &mut wgpu::CommandEncoder) -> Vec<Draw> {
        let mut draws = Vec::with_capacity(frame.meshes.len());
        let mut jobs = Vec::new();
        let mut wires = frame.meshes.len() as u32;
        for (i, m) in frame.meshes.iter().enumerate() {
            let wire = (m.material.wire.is_some() && m.deform.is_none()).then(|| {
                wires += 1;
                wires - 1
            });
            let bent = m.deform.as_ref().map(|volume| {
                jobs.push(deform::Bend { rest: &self.meshes[&m.mesh.key].vertices, mesh: &m.mesh.data, volume });
                jobs.len() - 1
            });
            draws.push(Draw {
                instance: i as u32,
                key: m.mesh.key,
                bent,
                translucent: m.material.translucent,
                casts_shadow: m.material.casts_shadow,
                hidden: m.material.fill == crate::frame::Fill::Hidden,
                closed: m.material.closed,
                wire,
            });
        }
        self.deformer.prepare(&self.device, &self.queue, encoder, &jobs);
        let eye = Vec3::from(frame.camera.eye);
        let distance = |m: &crate::frame::MeshInstance| -> f32 {
            let (lo, hi) = match &m.deform {
                Some(v) => v.bounds(),
                None => self.meshes.get(&m.mesh.key).and_then(|g| g.bounds).unwrap_or(([0.0; 3], [0.0; 3])),
            };
            let centre = Mat4::from_cols_array_2d(&m.transform).transform_point3((Vec3::from(lo) + Vec3::from(hi)) * 0.5);
            centre.distance(eye)
        };
        let mut keyed: Vec<(f32, Draw)> = draws.into_iter().map(|d| (distance(&frame.meshes[d.instance as usize]), d)).collect();
        // stable: opaque keep their order; translucent farthest first, ties in frame order
        keyed.sort_by(|a, b| match (a.1.translucent, b.1.translucent) {
            (false, false) => std::cmp::Ordering::Equal,
            (false, true) => std::cmp::Ordering::Less,
            (true, false) => std::cmp::Ordering::Greater,
            (true, true) => b.0.total_cmp(&a.0),
        });
        keyed.into_iter().map(|(_, d)| d).collect()
    }

    /// Waits for the oldest frame still in flight; `None` when all are out.
    pub fn next_image(&mut self) -> Result<Option<Image>, RenderError> {
        self.next_mapped()?.map(Mapped::to_image).transpose()
    }

    /// [`Renderer::next_image`], lent out as [`Renderer::submit_mapped`] lends.
    pub fn next_mapped(&mut self) -> Result<Option<Mapped>, RenderError> {
        let img = self.readback.wait_oldest(&self.device, self.patience)?;
        self.faults.check()?;
        Ok(img)
    }

    /// Frames submitted and not yet returned.
    pub fn in_flight(&self) -> usize {
        self.readback.in_flight()
    }
}
