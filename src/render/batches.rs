//! The GPU side of instanced batches (`InstanceBatch` in `FrameData`): placements uploaded once
//! per key and kept while frames name it, every batch's motion records written into one buffer
//! per frame, and one uniform record per batch (material, deformation, the mesh's height) at a
//! dynamic offset. Each batch is one instanced draw per pass.

use std::collections::HashMap;

use crate::frame::{Deform, FrameData, InstanceBatch, Motion, Placement};

/// What the batches need of a mesh: its height (largest y) and its reach (the farthest a vertex
/// is from the mesh's origin).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct MeshShape {
    pub height: f32,
    pub reach: f32,
}

/// Bytes of one motion record and of one placement.
const MOTION: u64 = size_of::<Motion>() as u64;
const PLACEMENT: u64 = size_of::<Placement>() as u64;

use super::pipelines::BatchUniforms;

/// Placements resident on the GPU.
struct Resident {
    buffer: wgpu::Buffer,
    count: u32,
    /// Box around the roots, and the largest scale component (for reach).
    roots: ([f32; 3], [f32; 3]),
    max_scale: f32,
}

/// One batch of this frame, ready to draw.
pub(super) struct BatchDraw {
    pub mesh: u64,
    placements: u64,
    count: u32,
    /// Byte offsets of its motion records and of its uniform record.
    motion: u64,
    uniform: u32,
    pub casts_shadow: bool,
    /// A box holding every instance this frame (for fitting the sun's view).
    pub bounds: ([f32; 3], [f32; 3]),
}

pub(super) struct BatchGpu {
    resident: HashMap<u64, Resident>,
    motion: wgpu::Buffer,
    motion_capacity: u64,
    uniforms: wgpu::Buffer,
    uniform_capacity: u64,
    group: wgpu::BindGroup,
    /// Distance between uniform records (the device's offset alignment).
    stride: u64,
    pub draws: Vec<BatchDraw>,
    /// Placement uploads since the renderer started (a key is uploaded once while it stays).
    pub uploads: u64,
}

fn buffer(device: &wgpu::Device, label: &str, size: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
    // wgpu refuses empty buffers
    let size = size.max(MOTION);
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

impl BatchGpu {
    pub fn new(device: &wgpu::Device, layout: &wgpu::BindGroupLayout) -> Self {
        let stride = (size_of::<BatchUniforms>() as u64).next_multiple_of(device.limits().min_uniform_buffer_offset_alignment as u64);
        let uniform_capacity = 4;
        let uniforms = buffer(device, "batch uniforms", stride * uniform_capacity, wgpu::BufferUsages::UNIFORM);
        let group = Self::group(device, layout, &uniforms);
        BatchGpu {
            resident: HashMap::new(),
            motion: buffer(device, "batch motion", MOTION * 1024, wgpu::BufferUsages::VERTEX),
            motion_capacity: MOTION * 1024,
            uniforms,
            uniform_capacity,
            group,
            stride,
            draws: Vec::new(),
            uploads: 0,
        }
    }

    fn group(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, uniforms: &wgpu::Buffer) -> wgpu::BindGroup {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("batch"),
            layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: uniforms,
                    offset: 0,
                    size: wgpu::BufferSize::new(size_of::<BatchUniforms>() as u64),
                }),
            }],
        })
    }

    /// Uploads the placements `frame` names for the first time, drops those it no longer names,
    /// writes every batch's motion and uniform records, and lists the draws with their bounds.
    /// `shape` describes a mesh by key.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &wgpu::BindGroupLayout,
        frame: &FrameData,
        shape: impl Fn(u64) -> MeshShape,
    ) {
        let live: Vec<u64> = frame.batches.iter().map(|b| b.placements.key).collect();
        self.resident.retain(|k, _| live.contains(k));
        for b in &frame.batches {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.resident.entry(b.placements.key) {
                slot.insert(Self::upload(device, queue, b));
                self.uploads += 1;
            }
        }
        let batches = frame.batches.len() as u64;
        if batches > self.uniform_capacity {
            self.uniform_capacity = batches.next_power_of_two();
            self.uniforms = buffer(device, "batch uniforms", self.stride * self.uniform_capacity, wgpu::BufferUsages::UNIFORM);
            self.group = Self::group(device, layout, &self.uniforms);
        }
        let records: u64 = frame.batches.iter().map(|b| b.placements.data.len() as u64).sum();
        if records * MOTION > self.motion_capacity {
            self.motion_capacity = (records * MOTION).next_power_of_two();
            self.motion = buffer(device, "batch motion", self.motion_capacity, wgpu::BufferUsages::VERTEX);
        }
        let mut uniforms = vec![0u8; (self.stride * batches) as usize];
        let mut offset = 0;
        self.draws.clear();
        for (i, b) in frame.batches.iter().enumerate() {
            let count = b.placements.data.len();
            // the frame's own records go straight into the buffer; rest records are made here
            let motion = if b.motion.len() == count { &b.motion[..] } else { &vec![Motion::rest(b.deform); count][..] };
            if count > 0 {
                queue.write_buffer(&self.motion, offset, bytemuck::cast_slice(motion));
            }
            let m = &b.material;
            let mesh = shape(b.mesh.key);
            let record = BatchUniforms {
                tint: m.tint,
                surface: [m.roughness, m.specular, 0.0, if m.receives_shadow { 1.0 } else { 0.0 }],
                deform: [deform_code(b.deform), mesh.height, 0.0, 0.0],
            };
            let at = i * self.stride as usize;
            uniforms[at..at + size_of::<BatchUniforms>()].copy_from_slice(bytemuck::bytes_of(&record));
            if let Some(r) = self.resident.get(&b.placements.key).filter(|r| r.count > 0) {
                self.draws.push(BatchDraw {
                    mesh: b.mesh.key,
                    placements: b.placements.key,
                    count: count as u32,
                    motion: offset,
                    uniform: at as u32,
                    casts_shadow: m.casts_shadow,
                    bounds: reach_box(r, b.deform, motion, mesh.reach),
                });
            }
            offset += count as u64 * MOTION;
        }
        if !uniforms.is_empty() {
            queue.write_buffer(&self.uniforms, 0, &uniforms);
        }
    }

    fn upload(device: &wgpu::Device, queue: &wgpu::Queue, b: &InstanceBatch) -> Resident {
        let data = &b.placements.data;
        let buffer = buffer(device, "batch placements", data.len() as u64 * PLACEMENT, wgpu::BufferUsages::VERTEX);
        if !data.is_empty() {
            queue.write_buffer(&buffer, 0, bytemuck::cast_slice(data));
        }
        let mut roots = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        let mut max_scale = 0.0f32;
        for p in data.iter() {
            for a in 0..3 {
                roots.0[a] = roots.0[a].min(p.position[a]);
                roots.1[a] = roots.1[a].max(p.position[a]);
                max_scale = max_scale.max(p.scale[a].abs());
            }
        }
        Resident { buffer, count: data.len() as u32, roots, max_scale }
    }

    /// Binds and draws batch `d` of this frame with `mesh`'s buffers.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, d: &BatchDraw, vertices: &wgpu::Buffer, indices: &wgpu::Buffer, index_count: u32) {
        let Some(r) = self.resident.get(&d.placements) else { return };
        pass.set_bind_group(2, &self.group, &[d.uniform]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_vertex_buffer(1, r.buffer.slice(..));
        pass.set_vertex_buffer(2, self.motion.slice(d.motion..d.motion + d.count as u64 * MOTION));
        pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..index_count, 0, 0..d.count);
    }
}

/// A box holding every instance of a batch: its roots, widened by the farthest any vertex can get
/// from its root: the mesh's `reach` times the largest scale, stretched by the longest spine
/// control or vertical scale, plus the largest rigid offset or lean.
fn reach_box(r: &Resident, deform: Deform, motion: &[Motion], reach: f32) -> ([f32; 3], [f32; 3]) {
    let len = |v: &[f32; 4], n: usize| v[..n].iter().map(|x| x * x).sum::<f32>().sqrt();
    let (mut stretch, mut shift) = (1.0f32, 0.0f32);
    for m in motion {
        match deform {
            Deform::Rigid => shift = shift.max(len(&m.a, 3)),
            Deform::Spine => stretch = stretch.max(len(&m.a, 3)).max(len(&m.b, 3)),
            Deform::Bend => {
                stretch = stretch.max(m.a[2].abs());
                shift = shift.max(len(&m.a, 2));
            }
        }
    }
    let grow = reach * r.max_scale * stretch + shift;
    (r.roots.0.map(|v| v - grow), r.roots.1.map(|v| v + grow))
}

fn deform_code(d: Deform) -> f32 {
    match d {
        Deform::Rigid => 0.0,
        Deform::Spine => 1.0,
        Deform::Bend => 2.0,
    }
}
