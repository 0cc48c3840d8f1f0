//! The 2-D layer: `Canvas2d` shapes as instanced quads with analytic anti-aliasing, mapped from the
//! logical canvas to the image (uniform scale, centred), a static layer drawn once into a texture
//! and composited every frame until its key changes, and text rasterized into a texture the same
//! way (redrawn only when the text changes).

use wgpu::util::DeviceExt;

use super::pipelines::COLOR_FORMAT;
use super::shaders;
use crate::frame::{Canvas2d, SHAPE_MARGIN_PX, Shape2d};

/// One shape as the shader reads it.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ShapeInstance {
    rect: [f32; 4],
    p0: [f32; 4],
    p1: [f32; 4],
    c0: [f32; 4],
    c1: [f32; 4],
    kind: u32,
    _pad: [u32; 3],
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct CanvasUniforms {
    transform: [f32; 4],
    px: [f32; 4],
}

const ATTRS: [wgpu::VertexAttribute; 6] =
    wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Uint32];

/// Quad covering the shape plus `margin` (room for the anti-aliased edge); a segment's quad is
/// turned along it by the shader (`rect` is its bounding box).
fn instance(s: &Shape2d, margin: f32) -> ShapeInstance {
    let z = [0.0; 4];
    let (rect, p0, p1, c0, c1, kind) = match *s {
        Shape2d::Circle { center: c, radius, color } => {
            let r = radius + margin;
            ([c[0] - r, c[1] - r, c[0] + r, c[1] + r], [c[0], c[1], radius, 0.0], z, color, color, 0)
        }
        Shape2d::Arc { center: c, radius, width, start, sweep, color } => {
            let r = radius + width / 2.0 + margin;
            ([c[0] - r, c[1] - r, c[0] + r, c[1] + r], [c[0], c[1], radius, width / 2.0], [start, sweep, 0.0, 0.0], color, color, 1)
        }
        Shape2d::Line { a, b, width, color_a, color_b, dash } => {
            let r = width / 2.0 + margin;
            let rect = [a[0].min(b[0]) - r, a[1].min(b[1]) - r, a[0].max(b[0]) + r, a[1].max(b[1]) + r];
            let (on, off, phase) = dash.map_or((0.0, 0.0, 0.0), |d| (d.on, d.off, d.phase));
            (rect, [a[0], a[1], b[0], b[1]], [width / 2.0, on, off, phase], color_a, color_b, 2)
        }
        Shape2d::Rect { min, max, radius, border, color } => {
            let rect = [min[0] - margin, min[1] - margin, max[0] + margin, max[1] + margin];
            (rect, [min[0], min[1], max[0], max[1]], [radius, border, 0.0, 0.0], color, color, 3)
        }
    };
    ShapeInstance { rect, p0, p1, c0, c1, kind, _pad: [0; 3] }
}

pub use crate::frame::fit;

/// Canvas → NDC transform (of the whole `width` × `height` image, the canvas fitted into `rect`)
/// and the size of an output pixel and of the edge margin ([`SHAPE_MARGIN_PX`]) in canvas units.
fn uniforms(size: [f32; 2], rect: [f32; 4], width: u32, height: u32) -> CanvasUniforms {
    let (w, h) = (width as f32, height as f32);
    let (s, [ox, oy]) = fit(size, rect);
    CanvasUniforms {
        transform: [2.0 * s / w, -2.0 * s / h, 2.0 * ox / w - 1.0, 1.0 - 2.0 * oy / h],
        px: [1.0 / s, SHAPE_MARGIN_PX * (1.0 / s), 0.0, 0.0],
    }
}

struct StaticTexture {
    key: u64,
    size: (u32, u32),
    group: wgpu::BindGroup,
}

/// What one canvas of a frame (the frame's own, or a view's) keeps between frames.
struct Slot {
    uniforms: wgpu::Buffer,
    uniform_group: wgpu::BindGroup,
    /// This frame's shapes, in vertex buffers within the device's limit ([`shape_buffers`]).
    instances: Vec<(wgpu::Buffer, u32)>,
    /// The vertex buffers the shapes are written into, kept from frame to frame with what each
    /// holds at most (shapes), and the packing space.
    shape_pool: Vec<(wgpu::Buffer, usize)>,
    packed: Vec<ShapeInstance>,
    static_texture: Option<StaticTexture>,
    /// This frame's text, rasterized; kept while the text stays the same.
    text_texture: Option<StaticTexture>,
    /// The texture the text is drawn into, kept from frame to frame: a frame whose text changed
    /// uploads the part its text and the last one's cover, no more.
    text_layer: Option<TextLayer>,
}

struct TextLayer {
    texture: wgpu::Texture,
    group: wgpu::BindGroup,
    size: (u32, u32),
    /// The part that holds ink.
    inked: Option<super::text::Region>,
}

pub struct CanvasRenderer {
    shapes: wgpu::RenderPipeline,
    shapes_single: wgpu::RenderPipeline,
    layer: wgpu::RenderPipeline,
    /// `layer` for a single-sampled pass without depth (the frame's own canvas, drawn over the
    /// resolved image).
    layer_single: wgpu::RenderPipeline,
    layer_layout: wgpu::BindGroupLayout,
    uniform_layout: wgpu::BindGroupLayout,
    /// Slot 0 is the frame's own canvas, slot 1 + i that of view i.
    slots: Vec<Slot>,
}

impl CanvasRenderer {
    pub fn new(device: &wgpu::Device, samples: u32) -> Self {
        let uniform_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("canvas"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer { ty: wgpu::BufferBindingType::Uniform, has_dynamic_offset: false, min_binding_size: None },
                count: None,
            }],
        });
        let layer_layout = super::pipelines::texel_layout(device, "canvas layer");
        let module = |name: &str| {
            let src = shaders::module_source(name).unwrap_or_else(|| panic!("shader {name} is not in the registry"));
            device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(src.into()) })
        };
        let shapes_module = module("shapes");
        let layer_module = module("layer");
        let shapes_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("shapes"),
            bind_group_layouts: &[Some(&uniform_layout)],
            immediate_size: 0,
        });
        let layer_pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("layer"),
            bind_group_layouts: &[Some(&layer_layout)],
            immediate_size: 0,
        });
        // The main pass has a depth attachment; 2-D ignores it.
        let depth = Some(wgpu::DepthStencilState {
            format: super::pipelines::DEPTH_FORMAT,
            depth_write_enabled: Some(false),
            depth_compare: Some(wgpu::CompareFunction::Always),
            stencil: Default::default(),
            bias: Default::default(),
        });
        // One 2-D pipeline: `module`'s vs_main and fs_main blended into the colour target, at
        // `samples` samples, in a pass with depth (the main pass) when `with_depth`, else without.
        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        module: &wgpu::ShaderModule,
                        buffers: &[Option<wgpu::VertexBufferLayout>],
                        blend: wgpu::BlendState,
                        (samples, with_depth): (u32, bool)| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState { module, entry_point: Some("vs_main"), compilation_options: Default::default(), buffers },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: if with_depth { depth.clone() } else { None },
                multisample: wgpu::MultisampleState { count: samples, mask: !0, alpha_to_coverage_enabled: false },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend: Some(blend),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let instances = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<ShapeInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &ATTRS,
        })];
        let shapes_pipeline = |at| pipeline("shapes", &shapes_layout, &shapes_module, &instances, wgpu::BlendState::ALPHA_BLENDING, at);
        let layer_pipeline =
            |at| pipeline("canvas layer", &layer_pipeline_layout, &layer_module, &[], wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING, at);
        CanvasRenderer {
            shapes: shapes_pipeline((samples, true)),
            shapes_single: shapes_pipeline((1, false)),
            layer: layer_pipeline((samples, true)),
            layer_single: layer_pipeline((1, false)),
            layer_layout,
            uniform_layout,
            slots: Vec::new(),
        }
    }

    fn slot(device: &wgpu::Device, layout: &wgpu::BindGroupLayout) -> Slot {
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("canvas uniforms"),
            size: size_of::<CanvasUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let uniform_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("canvas"),
            layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() }],
        });
        Slot {
            uniforms,
            uniform_group,
            instances: Vec::new(),
            shape_pool: Vec::new(),
            packed: Vec::new(),
            static_texture: None,
            text_texture: None,
            text_layer: None,
        }
    }

    /// Uploads the shapes of canvas `slot` and, when its static layer changed, redraws it into its
    /// texture (recorded in `encoder` ahead of the main pass). The canvas is fitted into the pixel
    /// rectangle `rect` of the `width` × `height` image.
    #[allow(clippy::too_many_arguments)] // the device, the queue, the encoder, then what and where
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        slot: usize,
        canvas: Option<&Canvas2d>,
        rect: [f32; 4],
        (width, height): (u32, u32),
    ) {
        while self.slots.len() <= slot {
            self.slots.push(Self::slot(device, &self.uniform_layout));
        }
        let Some(canvas) = canvas else {
            self.slots[slot].instances = Vec::new();
            self.slots[slot].text_texture = None;
            return;
        };
        self.prepare_text(device, queue, slot, canvas, rect, (width, height));
        let u = uniforms(canvas.size, rect, width, height);
        let this = &self.slots[slot];
        queue.write_buffer(&this.uniforms, 0, bytemuck::bytes_of(&u));
        let margin = u.px[1];
        self.slots[slot].write_shapes(device, queue, &canvas.shapes, margin);

        let Some(layer) = &canvas.static_layer else {
            self.slots[slot].static_texture = None;
            return;
        };
        let key = placed_key(layer.key, rect);
        if self.slots[slot].static_texture.as_ref().is_some_and(|t| t.key == key && t.size == (width, height)) {
            return;
        }
        let texture = device.create_texture(&layer_texture(
            "canvas static layer",
            width,
            height,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        ));
        let view = texture.create_view(&Default::default());
        let shapes = shape_buffers(device, &layer.shapes, margin);
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("canvas static layer"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT), store: wgpu::StoreOp::Store },
                })],
                ..Default::default()
            });
            if !shapes.is_empty() {
                pass.set_pipeline(&self.shapes_single);
                pass.set_bind_group(0, &self.slots[slot].uniform_group, &[]);
            }
            for (buf, n) in &shapes {
                pass.set_vertex_buffer(0, buf.slice(..));
                pass.draw(0..6, 0..*n);
            }
        }
        self.slots[slot].static_texture = Some(self.layer_texture(device, &view, key, (width, height)));
    }

    /// A cached full-frame layer drawn from `view`.
    fn layer_texture(&self, device: &wgpu::Device, view: &wgpu::TextureView, key: u64, size: (u32, u32)) -> StaticTexture {
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("canvas layer"),
            layout: &self.layer_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(view) }],
        });
        StaticTexture { key, size, group }
    }

    fn prepare_text(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slot: usize,
        canvas: &Canvas2d,
        rect: [f32; 4],
        (width, height): (u32, u32),
    ) {
        if canvas.texts.is_empty() {
            self.slots[slot].text_texture = None;
            return;
        }
        let mut h = crate::frame::Fnv::new();
        h.f32s(&canvas.size);
        for t in &canvas.texts {
            t.hash_into(&mut h);
        }
        let key = placed_key(h.finish(), rect);
        if self.slots[slot].text_texture.as_ref().is_some_and(|t| t.key == key && t.size == (width, height)) {
            return;
        }
        let (scale, offset) = fit(canvas.size, rect);
        let drawn = super::text::rasterize_region(&canvas.texts, scale, offset, width, height);
        if self.slots[slot].text_layer.as_ref().is_none_or(|l| l.size != (width, height)) {
            // a new texture is transparent until written (wgpu clears what was never written)
            let texture = device.create_texture(&layer_texture(
                "canvas text",
                width,
                height,
                wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            ));
            let view = texture.create_view(&Default::default());
            let group = self.layer_texture(device, &view, 0, (width, height)).group;
            self.slots[slot].text_layer = Some(TextLayer { texture, group, size: (width, height), inked: None });
        }
        let layer = self.slots[slot].text_layer.as_mut().expect("a text layer");
        // the last text's ink is cleared and this one's drawn in one upload (queue writes land
        // between the frames submitted before and after them)
        let new = drawn.as_ref().map(|(r, _)| *r);
        let upload = match (layer.inked, new) {
            (Some(a), Some(b)) => Some(a.union(b)),
            (a, b) => a.or(b),
        };
        if let Some(u) = upload {
            let mut pixels = vec![0u8; (u.width * u.height * 4) as usize];
            if let Some((r, ink)) = &drawn {
                let row = r.width as usize * 4;
                for (y, src) in ink.chunks_exact(row).enumerate() {
                    let at = ((r.y - u.y) as usize + y) * u.width as usize * 4 + (r.x - u.x) as usize * 4;
                    pixels[at..at + row].copy_from_slice(src);
                }
            }
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &layer.texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x: u.x, y: u.y, z: 0 },
                    aspect: wgpu::TextureAspect::All,
                },
                &pixels,
                wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(u.width * 4), rows_per_image: Some(u.height) },
                wgpu::Extent3d { width: u.width, height: u.height, depth_or_array_layers: 1 },
            );
        }
        layer.inked = new;
        let group = layer.group.clone();
        self.slots[slot].text_texture = Some(StaticTexture { key, size: (width, height), group });
    }

    /// Draws the layers of canvas `slot` (static layer, shapes, text) into a pass: the main pass,
    /// or with `single` a single-sampled pass without depth; returns the draw calls.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, slot: usize, has_canvas: bool, single: bool) -> u32 {
        let Some(this) = self.slots.get(slot).filter(|_| has_canvas) else { return 0 };
        let (layer, shapes) = if single { (&self.layer_single, &self.shapes_single) } else { (&self.layer, &self.shapes) };
        let composite = |pass: &mut wgpu::RenderPass<'_>, t: &StaticTexture| {
            pass.set_pipeline(layer);
            pass.set_bind_group(0, &t.group, &[]);
            pass.draw(0..3, 0..1);
            1
        };
        let mut count = 0;
        if let Some(t) = &this.static_texture {
            count += composite(pass, t);
        }
        if !this.instances.is_empty() {
            pass.set_pipeline(shapes);
            pass.set_bind_group(0, &this.uniform_group, &[]);
        }
        for (buf, n) in &this.instances {
            pass.set_vertex_buffer(0, buf.slice(..));
            pass.draw(0..6, 0..*n);
            count += 1;
        }
        if let Some(t) = &this.text_texture {
            count += composite(pass, t);
        }
        count
    }
}

/// The most bytes of shapes one vertex buffer holds: a canvas of more (a million agents and their
/// marks) is uploaded and drawn in several, each within the device's `max_buffer_size` (256 MiB
/// by default) and small enough that packing one costs little memory beside the frame's own.
const SHAPE_BUFFER_BYTES: u64 = 32 << 20;

/// `shapes` packed into vertex buffers of at most [`SHAPE_BUFFER_BYTES`] (and the device's limit),
/// each with its count; none for no shapes.
fn shape_buffers(device: &wgpu::Device, shapes: &[Shape2d], margin: f32) -> Vec<(wgpu::Buffer, u32)> {
    shapes
        .chunks(shapes_per_buffer(device))
        .map(|chunk| {
            let packed: Vec<ShapeInstance> = chunk.iter().map(|s| instance(s, margin)).collect();
            let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("shapes"),
                contents: bytemuck::cast_slice(&packed),
                usage: wgpu::BufferUsages::VERTEX,
            });
            (buffer, chunk.len() as u32)
        })
        .collect()
}

impl Slot {
    /// This frame's shapes written into the slot's vertex buffers (queue writes land between the
    /// frames submitted before and after them); a buffer is made only when the shapes outgrow
    /// the ones there are.
    fn write_shapes(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, shapes: &[Shape2d], margin: f32) {
        let per = shapes_per_buffer(device);
        self.instances.clear();
        for (i, chunk) in shapes.chunks(per).enumerate() {
            if self.shape_pool.get(i).is_none_or(|(_, holds)| *holds < chunk.len()) {
                let holds = chunk.len().next_power_of_two().min(per);
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("shapes"),
                    size: (holds * size_of::<ShapeInstance>()) as u64,
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                if i < self.shape_pool.len() {
                    self.shape_pool[i] = (buffer, holds);
                } else {
                    self.shape_pool.push((buffer, holds));
                }
            }
            self.packed.clear();
            self.packed.extend(chunk.iter().map(|s| instance(s, margin)));
            queue.write_buffer(&self.shape_pool[i].0, 0, bytemuck::cast_slice(&self.packed));
            self.instances.push((self.shape_pool[i].0.clone(), chunk.len() as u32));
        }
    }
}

/// Shapes a vertex buffer holds at most: [`SHAPE_BUFFER_BYTES`], or the device's limit.
fn shapes_per_buffer(device: &wgpu::Device) -> usize {
    let bytes = device.limits().max_buffer_size.min(SHAPE_BUFFER_BYTES);
    (bytes / size_of::<ShapeInstance>() as u64).max(1) as usize
}

/// A layer's cache key: its content and where in the image it is drawn.
fn placed_key(content: u64, rect: [f32; 4]) -> u64 {
    let mut h = crate::frame::Fnv::new();
    h.bytes(&content.to_le_bytes());
    h.f32s(&rect);
    h.finish()
}

/// A full-frame colour texture for one of the canvas layers.
fn layer_texture(label: &str, width: u32, height: u32, usage: wgpu::TextureUsages) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: COLOR_FORMAT,
        usage,
        view_formats: &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canvas_fits_the_image_centred() {
        // 200×100 canvas in a 400×400 image: 2 px per unit, 100 px bars above and below
        let u = uniforms([200.0, 100.0], [0.0, 0.0, 400.0, 400.0], 400, 400);
        let ndc = |x: f32, y: f32| (x * u.transform[0] + u.transform[2], y * u.transform[1] + u.transform[3]);
        assert_eq!(ndc(0.0, 0.0), (-1.0, 0.5));
        assert_eq!(ndc(200.0, 100.0), (1.0, -0.5));
        assert_eq!(u.px[0], 0.5);
        // the same canvas in the right half of an 800×400 image
        let u = uniforms([200.0, 100.0], [400.0, 0.0, 400.0, 400.0], 800, 400);
        let ndc = |x: f32, y: f32| (x * u.transform[0] + u.transform[2], y * u.transform[1] + u.transform[3]);
        assert_eq!(ndc(0.0, 0.0), (0.0, 0.5));
        assert_eq!(ndc(200.0, 100.0), (1.0, -0.5));
    }

    #[test]
    fn quads_cover_shapes_and_their_edge() {
        let i = instance(&Shape2d::Circle { center: [10.0, 20.0], radius: 3.0, color: [1.0; 4] }, 1.0);
        assert_eq!(i.rect, [6.0, 16.0, 14.0, 24.0]);
        let i =
            instance(&Shape2d::Line { a: [5.0, 1.0], b: [1.0, 9.0], width: 2.0, color_a: [1.0; 4], color_b: [0.0; 4], dash: None }, 0.5);
        assert_eq!(i.rect, [-0.5, -0.5, 6.5, 10.5]);
        assert_eq!(i.kind, 2);
    }
}
