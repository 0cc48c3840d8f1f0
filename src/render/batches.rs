//! The GPU side of instanced batches (`InstanceBatch` in `FrameData`): placements uploaded once
//! per key and kept while frames name it, every batch's motion records written into one buffer
//! per frame, and one uniform record per batch (material, deformation, the mesh's height) in an
//! array the shader indexes by the batch number each motion record carries in `a.w`. The array is
//! bound once per pass (per 256 batches): on lavapipe (Mesa 22.3) every bind of a bind group
//! keeps about 100 KB until the device is dropped, so binding per draw grew a long render by
//! tens of megabytes a frame. Each batch is one instanced draw per pass.

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
/// Bytes of one batch's uniform record.
const RECORD: u64 = size_of::<BatchUniforms>() as u64;

use super::pipelines::{BATCH_RECORDS, BatchUniforms};

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
    /// Byte offset of its motion records, and the bind group holding its uniform record.
    motion: u64,
    pub group: usize,
    pub casts_shadow: bool,
    /// A box holding every instance this frame (for fitting the sun's view).
    pub bounds: ([f32; 3], [f32; 3]),
}

pub(super) struct BatchGpu {
    resident: HashMap<u64, Resident>,
    motion: wgpu::Buffer,
    motion_capacity: u64,
    uniforms: wgpu::Buffer,
    /// Records the uniform buffer holds (a whole number of bind groups' worth).
    uniform_capacity: u64,
    /// One bind group per `BATCH_RECORDS` records.
    groups: Vec<wgpu::BindGroup>,
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
        let uniform_capacity = BATCH_RECORDS;
        let uniforms = buffer(device, "batch uniforms", RECORD * uniform_capacity, wgpu::BufferUsages::UNIFORM);
        let groups = Self::groups(device, layout, &uniforms, uniform_capacity);
        BatchGpu {
            resident: HashMap::new(),
            motion: buffer(device, "batch motion", MOTION * 1024, wgpu::BufferUsages::VERTEX),
            motion_capacity: MOTION * 1024,
            uniforms,
            uniform_capacity,
            groups,
            draws: Vec::new(),
            uploads: 0,
        }
    }

    fn groups(device: &wgpu::Device, layout: &wgpu::BindGroupLayout, uniforms: &wgpu::Buffer, records: u64) -> Vec<wgpu::BindGroup> {
        (0..records / BATCH_RECORDS)
            .map(|i| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("batch"),
                    layout,
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: uniforms,
                            offset: i * BATCH_RECORDS * RECORD,
                            size: wgpu::BufferSize::new(BATCH_RECORDS * RECORD),
                        }),
                    }],
                })
            })
            .collect()
    }

    /// Drops the resident placements whose keys are not in `live` (what the frame and its views
    /// name).
    pub fn keep(&mut self, live: &[u64]) {
        self.resident.retain(|k, _| live.contains(k));
    }

    /// Uploads the placements `frame` names for the first time, writes every batch's motion and
    /// uniform records, and lists the draws with their bounds. `shape` describes a mesh by key.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        layout: &wgpu::BindGroupLayout,
        frame: &FrameData,
        shape: impl Fn(u64) -> MeshShape,
    ) {
        for b in &frame.batches {
            if let std::collections::hash_map::Entry::Vacant(slot) = self.resident.entry(b.placements.key) {
                slot.insert(Self::upload(device, queue, b));
                self.uploads += 1;
            }
        }
        let batches = frame.batches.len() as u64;
        if batches > self.uniform_capacity {
            self.uniform_capacity = batches.next_multiple_of(BATCH_RECORDS);
            self.uniforms = buffer(device, "batch uniforms", RECORD * self.uniform_capacity, wgpu::BufferUsages::UNIFORM);
            self.groups = Self::groups(device, layout, &self.uniforms, self.uniform_capacity);
        }
        let records: u64 = frame.batches.iter().map(|b| b.count() as u64).sum();
        if records * MOTION > self.motion_capacity {
            self.motion_capacity = (records * MOTION).next_power_of_two();
            self.motion = buffer(device, "batch motion", self.motion_capacity, wgpu::BufferUsages::VERTEX);
        }
        let mut uniforms: Vec<BatchUniforms> = Vec::with_capacity(batches as usize);
        // every batch's records, gathered so the frame makes one write (each write is a staging
        // allocation of its own)
        let mut records: Vec<Motion> = Vec::with_capacity(records as usize);
        let mut offset = 0;
        self.draws.clear();
        for (i, b) in frame.batches.iter().enumerate() {
            let count = b.count();
            let first = records.len();
            if b.motion.len() == count {
                records.extend_from_slice(&b.motion);
            } else {
                records.resize(first + count, Motion::rest(b.deform));
            }
            // the batch's number within its bind group, where the shader finds its record
            let slot = (i as u64 % BATCH_RECORDS) as f32;
            for r in &mut records[first..] {
                r.a[3] = slot;
            }
            let motion = &records[first..];
            let m = &b.material;
            let mesh = shape(b.mesh.key);
            let record = BatchUniforms {
                tint: m.tint,
                surface: [m.roughness, m.specular, 0.0, if m.receives_shadow { 1.0 } else { 0.0 }],
                deform: [deform_code(b.deform), mesh.height, 0.0, 0.0],
            };
            uniforms.push(record);
            if let Some(r) = self.resident.get(&b.placements.key).filter(|r| r.count > 0 && count > 0) {
                self.draws.push(BatchDraw {
                    mesh: b.mesh.key,
                    placements: b.placements.key,
                    count: count as u32,
                    motion: offset,
                    group: (i as u64 / BATCH_RECORDS) as usize,
                    casts_shadow: m.casts_shadow,
                    bounds: reach_box(r, b.deform, motion, mesh.reach),
                });
            }
            offset += count as u64 * MOTION;
        }
        if !records.is_empty() {
            queue.write_buffer(&self.motion, 0, bytemuck::cast_slice(&records));
        }
        if !uniforms.is_empty() {
            queue.write_buffer(&self.uniforms, 0, bytemuck::cast_slice(&uniforms));
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

    /// Draws batch `d` of this frame with `mesh`'s buffers, binding its records' group unless
    /// `bound` says it already is (and then says it is).
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        d: &BatchDraw,
        mesh: (&wgpu::Buffer, &wgpu::Buffer, u32),
        bound: &mut Option<usize>,
    ) {
        let Some(r) = self.resident.get(&d.placements) else { return };
        let (vertices, indices, index_count) = mesh;
        if *bound != Some(d.group) {
            pass.set_bind_group(2, &self.groups[d.group], &[]);
            *bound = Some(d.group);
        }
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
