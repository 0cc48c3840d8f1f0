//! Marching cubes (Lorensen & Cline 1987) with topological guarantees: the asymptotic decider on
//! ambiguous faces, MC33's interior test for tunnels, vertices shared through a global edge key,
//! normals from the field gradient, degenerate triangles dropped, and a chunked parallel scan that
//! gives the same mesh as a single pass. Everything here works in grid units: sample (x, y, z) sits
//! at position (x, y, z); callers map to world space.

pub mod classes;
mod classic;
pub mod cube;
mod extract;
mod interior;
pub mod tables;
mod triangulate;

pub use classic::{classic_face_joins, extract_classic};
pub use extract::auto_layers_per_chunk;
pub(crate) use extract::classify_row;

/// A read-only scalar field sampled on a regular grid, x fastest: sample (x, y, z) is
/// `data[x + nx * (y + ny * z)]`.
#[derive(Clone, Copy, Debug)]
pub struct ScalarGrid<'a> {
    pub data: &'a [f32],
    pub dims: [usize; 3],
}

impl<'a> ScalarGrid<'a> {
    /// Panics if `data` does not hold exactly `dims` samples.
    pub fn new(data: &'a [f32], dims: [usize; 3]) -> Self {
        assert_eq!(data.len(), dims[0] * dims[1] * dims[2], "grid data does not match its dimensions");
        ScalarGrid { data, dims }
    }
}

/// Counters from one extraction (for tests, benchmarks and the manifest).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct McStats {
    /// Cubes the surface passes through.
    pub cubes: u64,
    /// Cubes decided from their values (ambiguous face or several loops).
    pub general_cubes: u64,
    /// Tunnels added by the interior test.
    pub tunnels: u32,
    /// Tunnels the interior test found but no tube could be drawn for (closed as disks instead).
    pub tunnel_fallbacks: u32,
    /// Extra vertices inside cubes (long loops' centroids, tunnel rings).
    pub centre_vertices: u32,
    /// Triangles dropped as degenerate.
    pub degenerate_dropped: u32,
}

impl McStats {
    fn add(&mut self, o: &McStats) {
        self.cubes += o.cubes;
        self.general_cubes += o.general_cubes;
        self.tunnels += o.tunnels;
        self.tunnel_fallbacks += o.tunnel_fallbacks;
        self.centre_vertices += o.centre_vertices;
        self.degenerate_dropped += o.degenerate_dropped;
    }
}

/// An indexed triangle mesh in grid units; triangles are counter-clockwise seen from outside
/// (the side of larger values), normals point outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IsoMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub indices: Vec<u32>,
    pub stats: McStats,
    /// Per-chunk buffers kept for the next extraction into this mesh (not part of its value).
    pool: ChunkPool,
}

#[derive(Clone, Default)]
struct ChunkPool(Vec<extract::ChunkMesh>);

impl PartialEq for ChunkPool {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for ChunkPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ChunkPool({} buffers)", self.0.len())
    }
}

impl IsoMesh {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// Total triangle area, in grid units squared (f64 accumulation).
    pub fn area(&self) -> f64 {
        self.indices
            .chunks_exact(3)
            .map(|t| {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| glam::DVec3::from(self.positions[i as usize].map(f64::from)));
                0.5 * (b - a).cross(c - a).length()
            })
            .sum()
    }
}

/// Extracts in one pass on the calling thread.
pub fn extract(grid: &ScalarGrid<'_>, iso: f32) -> IsoMesh {
    let mut m = IsoMesh::default();
    extract::extract_into(grid, iso, usize::MAX, false, &mut m);
    m
}

/// Extracts slabs of `layers_per_chunk` cube layers in parallel on the rayon pool and stitches them;
/// the mesh is identical to [`extract`]'s.
pub fn extract_parallel(grid: &ScalarGrid<'_>, iso: f32, layers_per_chunk: usize) -> IsoMesh {
    let mut m = IsoMesh::default();
    extract_into(grid, iso, layers_per_chunk, &mut m);
    m
}

/// [`extract_parallel`] into a caller-owned mesh whose buffers are reused.
pub fn extract_into(grid: &ScalarGrid<'_>, iso: f32, layers_per_chunk: usize, out: &mut IsoMesh) {
    extract::extract_into(grid, iso, layers_per_chunk, true, out);
}

/// The same chunking as [`extract_parallel`], run sequentially (tests compare the two).
pub fn extract_chunked_serial(grid: &ScalarGrid<'_>, iso: f32, layers_per_chunk: usize) -> IsoMesh {
    let mut m = IsoMesh::default();
    extract::extract_into(grid, iso, layers_per_chunk, false, &mut m);
    m
}
