//! Chunked meshing, as a streaming terrain does it: the grid cut into blocks of cells, each block
//! meshed on its own from its samples alone (a block shares its border samples with its
//! neighbours), the meshes put side by side. A vertex on a seam is made by both blocks from the
//! same two samples, so the seams close; each vertex remembers its block, for tinting.

use super::mc::{self, IsoMesh, ScalarGrid};

/// A mesh made block by block.
#[derive(Clone, Debug, Default)]
pub struct Blocks {
    pub mesh: IsoMesh,
    /// The block each vertex was made in (blocks numbered x fastest).
    pub block_of: Vec<u32>,
    pub count: u32,
}

/// The mesh of `grid` at `iso` extracted block by block (`cells` cubes a side). `classic` meshes
/// with the classic table.
pub fn extract(grid: &ScalarGrid<'_>, iso: f32, cells: [usize; 3], classic: bool) -> Blocks {
    let dims = grid.dims;
    let mut out = IsoMesh::default();
    let mut block_of = Vec::new();
    if dims.iter().any(|&n| n < 2) {
        return Blocks::default();
    }
    let starts = |a: usize| (0..dims[a] - 1).step_by(cells[a].max(1)).collect::<Vec<usize>>();
    let (xs, ys, zs) = (starts(0), starts(1), starts(2));
    let mut samples = Vec::new();
    let mut block = 0u32;
    for &z0 in &zs {
        for &y0 in &ys {
            for &x0 in &xs {
                let lo = [x0, y0, z0];
                let hi: [usize; 3] = std::array::from_fn(|a| (lo[a] + cells[a].max(1)).min(dims[a] - 1));
                let sub: [usize; 3] = std::array::from_fn(|a| hi[a] - lo[a] + 1);
                samples.clear();
                for z in lo[2]..=hi[2] {
                    for y in lo[1]..=hi[1] {
                        let row = lo[0] + dims[0] * (y + dims[1] * z);
                        samples.extend_from_slice(&grid.data[row..row + sub[0]]);
                    }
                }
                let part = ScalarGrid::new(&samples, sub);
                let m = if classic { mc::extract_classic(&part, iso) } else { mc::extract(&part, iso) };
                let base = out.positions.len() as u32;
                out.positions.extend(m.positions.iter().map(|p| std::array::from_fn(|a| p[a] + lo[a] as f32)));
                out.normals.extend_from_slice(&m.normals);
                out.indices.extend(m.indices.iter().map(|i| i + base));
                block_of.extend(std::iter::repeat_n(block, m.positions.len()));
                out.stats.cubes += m.stats.cubes;
                out.stats.tunnels += m.stats.tunnels;
                block += 1;
            }
        }
    }
    Blocks { mesh: out, block_of, count: block }
}
