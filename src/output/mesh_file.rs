//! Mesh files for taking a terrain bake elsewhere: binary little-endian PLY (positions, normals,
//! colours, triangles) and Wavefront OBJ (positions with colours, normals, faces).

use std::fmt::Write as _;

use crate::frame::MeshData;

/// A mesh file format, chosen by the file's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshFormat {
    Ply,
    Obj,
}

impl MeshFormat {
    /// The format `path`'s extension names (any case); `None` for any other.
    pub fn of(path: &std::path::Path) -> Option<MeshFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "ply" => Some(MeshFormat::Ply),
            "obj" => Some(MeshFormat::Obj),
            _ => None,
        }
    }

    /// `m` as a file of this format.
    pub fn encode(self, m: &MeshData) -> Vec<u8> {
        match self {
            MeshFormat::Ply => ply(m),
            MeshFormat::Obj => obj(m),
        }
    }
}

/// Binary little-endian PLY 1.0.
pub fn ply(m: &MeshData) -> Vec<u8> {
    let header = format!(
        "ply\nformat binary_little_endian 1.0\ncomment simreel {}\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\n\
         property float nx\nproperty float ny\nproperty float nz\n\
         property uchar red\nproperty uchar green\nproperty uchar blue\n\
         element face {}\nproperty list uchar int vertex_indices\nend_header\n",
        env!("CARGO_PKG_VERSION"),
        m.positions.len(),
        m.indices.len() / 3
    );
    let mut out = Vec::with_capacity(header.len() + m.positions.len() * 27 + m.indices.len() / 3 * 13);
    out.extend_from_slice(header.as_bytes());
    for (i, p) in m.positions.iter().enumerate() {
        let n = m.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]);
        let c = m.colors.get(i).copied().unwrap_or([255; 4]);
        for v in p.iter().chain(&n) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&c[..3]);
    }
    for t in m.indices.chunks_exact(3) {
        out.push(3);
        for &i in t {
            out.extend_from_slice(&(i as i32).to_le_bytes());
        }
    }
    out
}

/// Wavefront OBJ with per-vertex colours (`v x y z r g b`, widely read) and normals.
pub fn obj(m: &MeshData) -> Vec<u8> {
    let mut s = String::with_capacity(m.positions.len() * 64 + m.indices.len() * 8);
    let _ = writeln!(s, "# simreel {}: {} vertices, {} triangles", env!("CARGO_PKG_VERSION"), m.positions.len(), m.indices.len() / 3);
    for (i, p) in m.positions.iter().enumerate() {
        let c = m.colors.get(i).copied().unwrap_or([255; 4]);
        let _ =
            writeln!(s, "v {} {} {} {:.4} {:.4} {:.4}", p[0], p[1], p[2], c[0] as f32 / 255.0, c[1] as f32 / 255.0, c[2] as f32 / 255.0);
    }
    for n in &m.normals {
        let _ = writeln!(s, "vn {} {} {}", n[0], n[1], n[2]);
    }
    for t in m.indices.chunks_exact(3) {
        let (a, b, c) = (t[0] + 1, t[1] + 1, t[2] + 1);
        let _ = writeln!(s, "f {a}//{a} {b}//{b} {c}//{c}");
    }
    s.into_bytes()
}
