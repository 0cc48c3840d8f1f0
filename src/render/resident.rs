//! What the GPU keeps of the meshes frames name: uploaded once by content key, evicted when no
//! frame names them, with their bounds and the edges of those drawn with a wireframe.

use glam::Vec3;
use wgpu::util::DeviceExt;

use super::pipelines::Vertex;
use super::{RenderError, Renderer, batches, edges};
use crate::frame::{FrameData, MeshData};

/// A mesh resident on the GPU: its vertex and index buffers, and its bounds (none when empty).
pub(super) struct GpuMesh {
    pub(super) vertices: wgpu::Buffer,
    pub(super) indices: wgpu::Buffer,
    pub(super) index_count: u32,
    pub(super) bounds: Option<([f32; 3], [f32; 3])>,
}

/// Corner `k` (0..8) of the box `lo`..`hi`: bit 0 picks x, bit 1 y, bit 2 z.
pub(super) fn corner((lo, hi): ([f32; 3], [f32; 3]), k: usize) -> Vec3 {
    Vec3::from(std::array::from_fn(|a| if k >> a & 1 == 0 { lo[a] } else { hi[a] }))
}

impl GpuMesh {
    /// Its height and its reach from its origin, as instanced batches need them.
    pub(super) fn shape(&self) -> batches::MeshShape {
        self.bounds.map_or_else(Default::default, |b| batches::MeshShape {
            height: b.1[1],
            reach: (0..8).map(|k| corner(b, k).length()).fold(0.0, f32::max),
        })
    }
}

impl Renderer {
    fn upload(&mut self, key: u64, mesh: &MeshData) -> Result<(), RenderError> {
        if self.meshes.contains_key(&key) {
            return Ok(());
        }
        // a buffer past the device's limit would be invalid, and fail the frame later and worse
        let limit = self.device.limits().max_buffer_size;
        let (vertex_bytes, index_bytes) = ((mesh.positions.len() * size_of::<Vertex>()) as u64, (mesh.indices.len() * 4) as u64);
        if vertex_bytes.max(index_bytes) > limit {
            return Err(RenderError::TooLarge {
                what: format!(
                    "a mesh of {} vertices and {} triangles ({} MiB of vertex data, {} MiB of indices)",
                    mesh.positions.len(),
                    mesh.indices.len() / 3,
                    vertex_bytes >> 20,
                    index_bytes >> 20
                ),
                limit: format!("{} MiB a buffer", limit >> 20),
            });
        }
        let vertices: Vec<Vertex> = mesh
            .positions
            .iter()
            .enumerate()
            .map(|(i, &position)| Vertex {
                position,
                normal: mesh.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]),
                color: mesh.colors.get(i).copied().unwrap_or([255; 4]),
            })
            .collect();
        // wgpu rejects empty buffers; an empty mesh keeps a placeholder and draws nothing
        let vbytes: &[u8] = if vertices.is_empty() { &[0u8; 28] } else { bytemuck::cast_slice(&vertices) };
        let ibytes: &[u8] = if mesh.indices.is_empty() { &[0u8; 4] } else { bytemuck::cast_slice(&mesh.indices) };
        let vertices = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh vertices"),
            contents: vbytes,
            usage: self.deformer.rest_usage(),
        });
        let indices = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh indices"),
            contents: ibytes,
            usage: wgpu::BufferUsages::INDEX,
        });
        self.meshes.insert(key, GpuMesh { vertices, indices, index_count: mesh.indices.len() as u32, bounds: mesh.bounds() });
        Ok(())
    }

    /// Uploads the meshes `frame` and its views name that are not resident yet, and evicts the
    /// ones they no longer name (frames in flight keep their buffers alive).
    pub(super) fn keep_meshes(&mut self, frame: &FrameData) -> Result<(), RenderError> {
        let mut frames = vec![frame];
        let mut i = 0;
        while i < frames.len() {
            frames.extend(frames[i].views.iter().map(|v| &*v.frame));
            i += 1;
        }
        let named = || frames.iter().flat_map(|f| f.meshes.iter().map(|m| &m.mesh).chain(f.batches.iter().map(|b| &b.mesh)));
        for m in named() {
            self.upload(m.key, &m.data)?;
        }
        let live: Vec<u64> = named().map(|m| m.key).collect();
        self.meshes.retain(|k, _| live.contains(k));
        let wired: Vec<&crate::frame::MeshRef> = frames
            .iter()
            .flat_map(|f| f.meshes.iter().filter(|m| m.material.wire.is_some() && m.deform.is_none()).map(|m| &m.mesh))
            .collect();
        for m in &wired {
            if !self.edges.contains_key(&m.key) {
                self.edges.insert(m.key, edges::GpuEdges::new(&self.device, &m.data));
            }
        }
        self.edges.retain(|k, _| wired.iter().any(|m| m.key == *k));
        let placements: Vec<u64> = frames.iter().flat_map(|f| f.batches.iter().map(|b| b.placements.key)).collect();
        self.batches.keep(&placements);
        Ok(())
    }
}
