//! Wireframes: a mesh's unique edges, each uploaded once per mesh as a quad of four corner
//! vertices (both ends, both sides) that `edges.wgsl` widens in screen space.

use wgpu::util::DeviceExt;

use crate::frame::MeshData;

/// One corner of an edge's quad. 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct EdgeVertex {
    pub a: [f32; 3],
    pub b: [f32; 3],
    /// x: 0 at end a, 1 at end b; y: the side, −1 or +1.
    pub corner: [f32; 2],
}

pub const EDGE_ATTRS: [wgpu::VertexAttribute; 3] = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2];

/// A mesh's edges on the GPU.
pub struct GpuEdges {
    pub vertices: wgpu::Buffer,
    pub indices: wgpu::Buffer,
    pub index_count: u32,
}

/// Every edge of the triangles `indices`, once, as (lower, higher) vertex index, sorted.
pub fn unique_edges(indices: &[u32]) -> Vec<(u32, u32)> {
    let mut edges: Vec<(u32, u32)> = indices
        .chunks_exact(3)
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .filter(|(a, b)| a != b)
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    edges
}

impl GpuEdges {
    pub fn new(device: &wgpu::Device, mesh: &MeshData) -> Self {
        let edges = unique_edges(&mesh.indices);
        let mut vertices = Vec::with_capacity(edges.len() * 4);
        let mut indices = Vec::with_capacity(edges.len() * 6);
        for (a, b) in edges {
            let (pa, pb) = (mesh.positions[a as usize], mesh.positions[b as usize]);
            let base = vertices.len() as u32;
            for corner in [[0.0, -1.0], [0.0, 1.0], [1.0, -1.0], [1.0, 1.0]] {
                vertices.push(EdgeVertex { a: pa, b: pb, corner });
            }
            indices.extend_from_slice(&[base, base + 2, base + 1, base + 1, base + 2, base + 3]);
        }
        // wgpu rejects empty buffers: a mesh without edges keeps a placeholder and draws nothing
        let index_count = indices.len() as u32;
        if vertices.is_empty() {
            vertices.push(EdgeVertex { a: [0.0; 3], b: [0.0; 3], corner: [0.0; 2] });
            indices.push(0);
        }
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("edges"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("edge indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        GpuEdges { vertices, indices, index_count }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_edges_are_drawn_once() {
        // two triangles sharing the edge 1–2, and a degenerate one
        assert_eq!(unique_edges(&[0, 1, 2, 2, 1, 3, 4, 4, 5]), vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3), (4, 5)]);
    }
}
