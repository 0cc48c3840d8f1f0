//! The textures a renderer draws one size of frame into: the multisampled colour (at 4×), the
//! resolved image every frame ends in (copied out to be read back, or onto a page's canvas) and
//! the depth buffer.

use super::pipelines::{COLOR_FORMAT, DEPTH_FORMAT};

pub struct Targets {
    pub msaa: Option<wgpu::TextureView>,
    pub resolve: wgpu::Texture,
    pub resolve_view: wgpu::TextureView,
    pub depth: wgpu::TextureView,
}

impl Targets {
    pub fn new(device: &wgpu::Device, width: u32, height: u32, samples: u32) -> Targets {
        let size = wgpu::Extent3d { width, height, depth_or_array_layers: 1 };
        let tex = |label, format, samples, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        // read by a page's canvas where it takes no copies (`present`)
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::TEXTURE_BINDING;
        let resolve = tex("colour", COLOR_FORMAT, 1, usage);
        let msaa = (samples > 1)
            .then(|| tex("colour msaa", COLOR_FORMAT, samples, wgpu::TextureUsages::RENDER_ATTACHMENT).create_view(&Default::default()));
        let depth = tex("depth", DEPTH_FORMAT, samples, wgpu::TextureUsages::RENDER_ATTACHMENT).create_view(&Default::default());
        let resolve_view = resolve.create_view(&Default::default());
        Targets { msaa, resolve, resolve_view, depth }
    }
}
