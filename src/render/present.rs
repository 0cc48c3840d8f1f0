//! The finished image onto a page's canvas: copied where the canvas takes copies (WebGPU), else
//! drawn by one triangle that reads each pixel without filtering (WebGL2's canvas takes no
//! copies). Either way the canvas holds the bytes a PNG of the frame would, when the canvas
//! encodes sRGB as the image does; a plain RGBA8 canvas gets sRGB encoded by the shader.

use super::pipelines::COLOR_FORMAT;
use super::{RenderError, Renderer};
use crate::frame::FrameData;

/// What a page draws with: frames onto its canvas, the device and queue its canvas is configured
/// and presented with.
impl Renderer {
    /// Draws `frame` and copies the image into `target` instead of reading it back: a page's
    /// canvas (a surface texture of the renderer's size, RGBA8 with or without the sRGB suffix,
    /// that takes copies). The canvas then holds the bytes a PNG of the frame would.
    ///
    /// A canvas that takes no copies (WebGL2's) gets the image drawn instead ([`Presenter`]).
    pub fn present(&mut self, frame: &FrameData, target: &wgpu::Texture) -> Result<(), RenderError> {
        let mut encoder = self.record(frame)?;
        if target.usage().contains(wgpu::TextureUsages::COPY_DST)
            && target.format().remove_srgb_suffix() == COLOR_FORMAT.remove_srgb_suffix()
        {
            let size = wgpu::Extent3d { width: self.width, height: self.height, depth_or_array_layers: 1 };
            encoder.copy_texture_to_texture(self.targets.resolve.as_image_copy(), target.as_image_copy(), size);
        } else {
            if self.presenter.as_ref().is_none_or(|p| p.format() != target.format()) {
                self.presenter = Some(Presenter::new(&self.device, target.format()));
            }
            if let Some(p) = &self.presenter {
                p.draw(&self.device, &mut encoder, &self.targets.resolve_view, target);
            }
        }
        self.queue.submit([encoder.finish()]);
        self.faults.check()
    }

    /// The device the renderer draws with (a page configures its canvas with it).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// A GPU error so far (a pipeline the adapter refused), as [`Renderer::submit`] reports it: a
    /// page checks it before it takes the adapter.
    pub fn check(&self) -> Result<(), RenderError> {
        self.faults.check()
    }

    /// The queue it submits to (a page presents its canvas's texture there).
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
}

/// The drawing path for one canvas format, built on first use.
pub struct Presenter {
    format: wgpu::TextureFormat,
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
}

impl Presenter {
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat) -> Self {
        let module = super::pipelines::module(device, "present");
        let layout = super::pipelines::texel_layout(device, "present");
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("present"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let entry = if format.is_srgb() { "fs_same" } else { "fs_encode" };
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("present"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::ALL })],
            }),
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        });
        Presenter { format, pipeline, layout }
    }

    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Records the drawing of `image` over the whole of `target`.
    pub fn draw(&self, device: &wgpu::Device, encoder: &mut wgpu::CommandEncoder, image: &wgpu::TextureView, target: &wgpu::Texture) {
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("present"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(image) }],
        });
        let view = target.create_view(&Default::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("present"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(wgpu::Color::BLACK), store: wgpu::StoreOp::Store },
            })],
            ..Default::default()
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.draw(0..3, 0..1);
    }
}
