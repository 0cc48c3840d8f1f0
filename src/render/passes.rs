//! The passes of a frame: the shadow map (redrawn only when it would change), the main pass
//! into the (multisampled) colour target placed in its view's rectangle (or the background alone,
//! straight into the image, when there is nothing in 3-D), the overlay of a frame's own canvas
//! over the resolved image, and the draw calls of meshes, batches and wireframes.

use super::{Draw, FrameUniforms, Place, Renderer, batches};
use crate::frame::FrameData;

impl Renderer {
    /// Whether the shadow map must be drawn for `frame`: shadows are on and the map holds
    /// something else (another sun matrix, other casters or placements, other bends). Remembers
    /// what it will hold.
    pub(super) fn shadow_is_stale(&mut self, frame: &FrameData, uniforms: &FrameUniforms) -> bool {
        if !frame.lighting.shadows {
            return false;
        }
        let mut h = crate::frame::Fnv::new();
        h.f32s(uniforms.light_view_proj.as_flattened());
        for m in frame.meshes.iter().filter(|m| m.material.casts_shadow) {
            h.bytes(&m.mesh.key.to_le_bytes());
            h.f32s(m.transform.as_flattened());
            if let Some(v) = &m.deform {
                h.f32s(v.control.as_flattened());
            }
        }
        let mut moving = false;
        for b in frame.batches.iter().filter(|b| b.material.casts_shadow) {
            h.bytes(&b.mesh.key.to_le_bytes());
            h.bytes(&b.placements.key.to_le_bytes());
            h.bytes(&[b.deform as u8]);
            // motion changes every frame where there is any: not worth hashing megabytes for
            moving |= !b.motion.is_empty();
        }
        let key = (!moving).then(|| h.finish());
        if key.is_none() {
            self.shadow_key = None;
            return true;
        }
        let stale = key != self.shadow_key;
        self.shadow_key = key;
        stale
    }

    /// Depth of every shadow caster into the shadow map. Returns the draw calls.
    pub(super) fn shadow_pass(&self, encoder: &mut wgpu::CommandEncoder, draws: &[Draw]) -> u32 {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.shadow_view,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Store }),
                stencil_ops: None,
            }),
            ..Default::default()
        });
        pass.set_pipeline(&self.pipelines.shadow);
        pass.set_bind_group(0, &self.frame_group, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        let mut count = 0;
        for d in draws.iter().filter(|d| d.casts_shadow) {
            count += self.draw_one(&mut pass, d);
        }
        pass.set_pipeline(&self.pipelines.batch_shadow);
        let mut bound = None;
        for d in self.batches.draws.iter().filter(|d| d.casts_shadow) {
            count += self.draw_batch(&mut pass, d, &mut bound);
        }
        count
    }

    /// The background, opaque instances (closed ones culled), instanced batches, translucent
    /// instances (back faces, then front faces, farthest first) and, for a view, its 2-D canvas,
    /// into the (multisampled) colour target. Returns the draw calls.
    pub(super) fn main_pass(&self, encoder: &mut wgpu::CommandEncoder, draws: &[Draw], place: &Place, canvas: bool) -> u32 {
        let mut pass = self.colour_pass(encoder, "main", place.clear);
        let [x, y, w, h] = place.rect;
        pass.set_viewport(x, y, w, h, 0.0, 1.0);
        pass.set_scissor_rect(x as u32, y as u32, w as u32, h as u32);
        pass.set_bind_group(0, &self.frame_group, &[]);
        pass.set_pipeline(&self.pipelines.background);
        pass.draw(0..3, 0..1);
        let mut count = 1;
        pass.set_bind_group(1, &self.shadow_group, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        // in frame order (ties in depth go to the first drawn), switching pipelines as needed
        let mut closed = None;
        for d in draws.iter().filter(|d| !d.translucent && !d.hidden) {
            if closed != Some(d.closed) {
                pass.set_pipeline(if d.closed { &self.pipelines.closed_mesh } else { &self.pipelines.mesh });
                closed = Some(d.closed);
            }
            count += self.draw_one(&mut pass, d);
        }
        if draws.iter().any(|d| !d.translucent && d.hidden) {
            pass.set_pipeline(&self.pipelines.hidden);
            for d in draws.iter().filter(|d| !d.translucent && d.hidden) {
                count += self.draw_one(&mut pass, d);
            }
        }
        if !self.batches.draws.is_empty() {
            pass.set_pipeline(&self.pipelines.batch);
            let mut bound = None;
            for d in &self.batches.draws {
                count += self.draw_batch(&mut pass, d, &mut bound);
            }
            // the mesh pipelines read instances from slot 1 again
            pass.set_vertex_buffer(1, self.instances.slice(..));
        }
        count += self.draw_wires(&mut pass, draws.iter().filter(|d| !d.translucent));
        for d in draws.iter().filter(|d| d.translucent) {
            pass.set_pipeline(&self.pipelines.back_faces);
            count += self.draw_one(&mut pass, d);
            pass.set_pipeline(&self.pipelines.front_faces);
            count += self.draw_one(&mut pass, d);
            count += self.draw_wires(&mut pass, std::iter::once(d));
        }
        // the canvas maps itself into the whole image (its layers are image-sized textures);
        // the scissor keeps it inside the view
        pass.set_viewport(0.0, 0.0, self.width as f32, self.height as f32, 0.0, 1.0);
        count + self.canvas.draw(&mut pass, place.slot, canvas, false)
    }

    /// The background alone, one sample a pixel, straight into the resolved image: a frame with
    /// nothing in 3-D (a 2-D canvas over the gradient) has no edge to multisample, and every
    /// sample of a pixel would get the same colour. Returns the draw calls.
    pub(super) fn background_pass(&self, encoder: &mut wgpu::CommandEncoder) -> u32 {
        let mut pass = self.image_pass(encoder, "background", wgpu::LoadOp::Clear(wgpu::Color::BLACK));
        pass.set_bind_group(0, &self.frame_group, &[]);
        pass.set_pipeline(&self.pipelines.background_single);
        pass.draw(0..3, 0..1);
        1
    }

    /// A pass over the whole colour target (multisampled when it is), cleared to black or keeping
    /// what is there; depth cleared.
    pub(super) fn colour_pass<'e>(&self, encoder: &'e mut wgpu::CommandEncoder, label: &str, clear: bool) -> wgpu::RenderPass<'e> {
        let (view, resolve) = match &self.targets.msaa {
            Some(ms) => (ms, Some(&self.targets.resolve_view)),
            None => (&self.targets.resolve_view, None),
        };
        let load = if clear { wgpu::LoadOp::Clear(wgpu::Color::BLACK) } else { wgpu::LoadOp::Load };
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: resolve,
                ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.targets.depth,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(1.0), store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            ..Default::default()
        })
    }

    /// The frame's own canvas (slot 0) over the resolved image, one sample a pixel: its shapes
    /// and layers are anti-aliased by their own coverage, and blending them into four samples
    /// and averaging gives the same colour for four times the work. Returns the draw calls.
    pub(super) fn overlay_pass(&self, encoder: &mut wgpu::CommandEncoder) -> u32 {
        let mut pass = self.image_pass(encoder, "overlay", wgpu::LoadOp::Load);
        self.canvas.draw(&mut pass, 0, true, true)
    }

    /// A pass over the image itself (the resolved target, one sample a pixel), without depth.
    fn image_pass<'e>(&self, encoder: &'e mut wgpu::CommandEncoder, label: &str, load: wgpu::LoadOp<wgpu::Color>) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some(label),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.targets.resolve_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations { load, store: wgpu::StoreOp::Store },
            })],
            ..Default::default()
        })
    }

    /// The wireframes of `draws` (those that have one); returns the draw calls. Leaves the pass
    /// set for further mesh draws when it drew any.
    pub(super) fn draw_wires<'d>(&self, pass: &mut wgpu::RenderPass<'_>, draws: impl Iterator<Item = &'d Draw>) -> u32 {
        let mut count = 0;
        for d in draws {
            let (Some(record), Some(e)) = (d.wire, self.edges.get(&d.key)) else { continue };
            if e.index_count == 0 {
                continue;
            }
            pass.set_pipeline(&self.pipelines.edges);
            pass.set_vertex_buffer(0, e.vertices.slice(..));
            pass.set_index_buffer(e.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..e.index_count, 0, record..record + 1);
            count += 1;
        }
        count
    }

    /// Draws batch `d`; returns the draw calls (0 for an empty mesh).
    pub(super) fn draw_batch(&self, pass: &mut wgpu::RenderPass<'_>, d: &batches::BatchDraw, bound: &mut Option<usize>) -> u32 {
        let g = &self.meshes[&d.mesh];
        if g.index_count == 0 {
            return 0;
        }
        self.batches.draw(pass, d, (&g.vertices, &g.indices, g.index_count), bound);
        1
    }

    /// Draws instance `d`; returns the draw calls (0 for an empty mesh).
    pub(super) fn draw_one(&self, pass: &mut wgpu::RenderPass<'_>, d: &Draw) -> u32 {
        let g = &self.meshes[&d.key];
        if g.index_count == 0 {
            return 0;
        }
        let vertices = match d.bent {
            Some(slot) => self.deformer.vertices(slot),
            None => &g.vertices,
        };
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_index_buffer(g.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..g.index_count, 0, d.instance..d.instance + 1);
        1
    }
}
