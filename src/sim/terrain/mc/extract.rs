//! The marching-cubes scan over a whole grid: inside bits packed 64 to a word so that uniform runs
//! of cubes are skipped 64 at a time, the per-case lookup (or the per-cube path for ambiguous
//! cubes), vertices deduplicated through per-plane edge slots (a global edge key, without a hash
//! map), and chunks of z-layers extracted in parallel and stitched into exactly the mesh a single
//! pass would produce.

use rayon::prelude::*;

use super::cube::{self, CENTRE, CubeSurface, EDGE_AXIS, EDGE_CORNERS};
use super::tables::CASES;
use super::{IsoMesh, McStats, ScalarGrid};

/// Where each edge's vertex id lives: lower corner offset (dx, dy) and slot kind: 0 = an x/y edge
/// of the lower sample plane, 1 = of the upper plane, 2 = a z edge of the layer.
const EDGE_SLOT: [(u8, u8, u8); 12] = {
    let mut t = [(0u8, 0u8, 0u8); 12];
    let mut e = 0;
    while e < 12 {
        let c = cube::CORNERS[EDGE_CORNERS[e][0] as usize];
        let kind = if EDGE_AXIS[e] == 2 { 2 } else { c[2] };
        t[e] = (c[0], c[1], kind);
        e += 1;
    }
    t
};

/// Boundary vertex key for stitching chunks: (y * nx + x) * 2 + axis, axis 0 (x) or 1 (y); also the
/// index of the edge in a plane's slot array.
type PlaneKey = u32;

/// The mesh of one slab of cube layers `z0..z1`, with local vertex ids, and the vertices it shares
/// with its neighbours (its first and last sample planes).
#[derive(Clone, Default)]
pub(super) struct ChunkMesh {
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    indices: Vec<u32>,
    bottom: Vec<(PlaneKey, u32)>,
    top: Vec<(PlaneKey, u32)>,
    stats: McStats,
    /// Stitching: each local vertex's rank among the chunk's own (non-bottom) vertices, or
    /// `SHARED` for a bottom-plane vertex; then its id in the whole mesh.
    rank: Vec<u32>,
    global: Vec<u32>,
}

impl ChunkMesh {
    fn clear(&mut self) {
        for v in [&mut self.indices, &mut self.rank, &mut self.global] {
            v.clear();
        }
        self.positions.clear();
        self.normals.clear();
        self.bottom.clear();
        self.top.clear();
        self.stats = McStats::default();
    }
}

const SHARED: u32 = u32::MAX;

/// Packs `v < iso` for one row of samples into bits (bit i of word i / 64).
#[inline]
pub(crate) fn classify_row(row: &[f32], iso: f32, out: &mut [u64]) {
    let mut chunks = row.chunks_exact(64);
    for (w, ch) in out.iter_mut().zip(&mut chunks) {
        *w = mask64(ch.try_into().expect("64 samples"), iso);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut bits = 0u64;
        for (i, &v) in rest.iter().enumerate() {
            bits |= ((v < iso) as u64) << i;
        }
        out[row.len() / 64] = bits;
    }
}

/// 64 comparisons to one word. On x86-64, SSE2 (always present) compares four lanes at a time and
/// `movmskps` packs their sign bits.
#[inline(always)]
fn mask64(v: &[f32; 64], iso: f32) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmplt_ps, _mm_loadu_ps, _mm_movemask_ps, _mm_set1_ps};
        // SAFETY: SSE2 is part of the x86-64 baseline; loads are unaligned and within `v`.
        unsafe {
            let t = _mm_set1_ps(iso);
            let mut bits = 0u64;
            for k in 0..16 {
                let m = _mm_movemask_ps(_mm_cmplt_ps(_mm_loadu_ps(v.as_ptr().add(4 * k)), t));
                bits |= (m as u64) << (4 * k);
            }
            bits
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut bits = 0u64;
        for (i, &x) in v.iter().enumerate() {
            bits |= ((x < iso) as u64) << i;
        }
        bits
    }
}

/// Buffers a thread reuses from chunk to chunk and call to call.
#[derive(Default)]
struct Scratch {
    dims: [usize; 3],
    /// Inside bits of sample planes z, z + 1 and z + 2.
    bits: [Vec<u64>; 3],
    /// Vertex ids of the x and y edges of the lower and upper sample planes, indexed by `PlaneKey`.
    plane_slots: [Vec<u32>; 2],
    /// Vertex ids of the layer's z edges, two rows: index (y & 1) * nx + x.
    z_slots: Vec<u32>,
    /// A slot holds `base + 1 + local id`; anything at or below `base` is from an earlier chunk.
    base: u32,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl Scratch {
    /// Ready for a chunk of `cells` cubes of a grid with `dims`.
    fn prepare(&mut self, dims: [usize; 3], cells: usize) {
        let [nx, ny, _] = dims;
        let words = nx.div_ceil(64) * ny;
        // at most 3 new vertices per cube plus a few inside ambiguous ones: stay clear of u32 wrap
        let budget = self.base as u64 + 8 * cells as u64 + 16;
        if self.dims != dims || budget >= u32::MAX as u64 {
            self.dims = dims;
            for b in &mut self.bits {
                b.clear();
                b.resize(words, 0);
            }
            for p in &mut self.plane_slots {
                p.clear();
                p.resize(2 * nx * ny, 0);
            }
            self.z_slots.clear();
            self.z_slots.resize(2 * nx, 0);
            self.base = 0;
        }
    }
}

struct Scan<'g> {
    grid: &'g ScalarGrid<'g>,
    iso: f32,
    scratch: &'g mut Scratch,
}

/// What the current cube row needs to look up and create vertices.
struct Row {
    y: usize,
    z: usize,
    /// A stored slot value below this is stale, per slot kind; z edges of row y and of row y + 1.
    min_stored: [u32; 4],
    record_bottom: bool,
    record_top: bool,
}

impl Scan<'_> {
    /// Gradient by central differences (one-sided at the grid border), in grid units.
    #[inline(always)]
    fn gradient(&self, c: [usize; 3], i: usize) -> [f32; 3] {
        let d = self.grid.data;
        let [nx, ny, nz] = self.grid.dims;
        #[inline(always)]
        fn diff(d: &[f32], i: usize, s: usize, c: usize, n: usize) -> f32 {
            if c == 0 {
                d[i + s] - d[i]
            } else if c + 1 == n {
                d[i] - d[i - s]
            } else {
                0.5 * (d[i + s] - d[i - s])
            }
        }
        [diff(d, i, 1, c[0], nx), diff(d, i, nx, c[1], ny), diff(d, i, nx * ny, c[2], nz)]
    }

    /// Position and normal of the crossing on the edge from sample (x, y, z) along `axis`.
    #[inline]
    fn crossing(&self, x: usize, y: usize, z: usize, axis: usize) -> ([f32; 3], [f32; 3]) {
        let g = self.grid;
        let [nx, ny, _] = g.dims;
        let stride = [1, nx, nx * ny][axis];
        let i0 = x + nx * (y + ny * z);
        let i1 = i0 + stride;
        let t = cube::crossing_t(g.data[i0], g.data[i1], self.iso);
        let mut p = [x as f32, y as f32, z as f32];
        p[axis] += t;
        let mut c1 = [x, y, z];
        c1[axis] += 1;
        let g0 = self.gradient([x, y, z], i0);
        let g1 = self.gradient(c1, i1);
        let n = [g0[0] + t * (g1[0] - g0[0]), g0[1] + t * (g1[1] - g0[1]), g0[2] + t * (g1[2] - g0[2])];
        let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        let n = if len2 > 0.0 && len2.is_finite() {
            let r = 1.0 / len2.sqrt();
            [n[0] * r, n[1] * r, n[2] * r]
        } else {
            // flat field at the crossing: the edge direction, pointing to the larger sample
            let mut a = [0.0; 3];
            a[axis] = if g.data[i1] >= g.data[i0] { 1.0 } else { -1.0 };
            a
        };
        (p, n)
    }

    /// The vertex on edge `e` of cube (x, row.y, row.z): found in its slot, or created now.
    #[inline]
    fn edge_vertex(&mut self, e: usize, x: usize, row: &Row, out: &mut ChunkMesh) -> u32 {
        let nx = self.grid.dims[0];
        let (dx, dy, kind) = EDGE_SLOT[e];
        let (ex, ey) = (x + dx as usize, row.y + dy as usize);
        let axis = EDGE_AXIS[e] as usize;
        let key = 2 * (ey * nx + ex) + axis;
        let (stored, min) = match kind {
            0 | 1 => (self.scratch.plane_slots[kind as usize][key], row.min_stored[kind as usize]),
            _ => (self.scratch.z_slots[(ey & 1) * nx + ex], row.min_stored[2 + dy as usize]),
        };
        if stored >= min {
            return stored - self.scratch.base - 1;
        }
        let ez = row.z + (kind == 1) as usize;
        let (pos, n) = self.crossing(ex, ey, ez, axis);
        let id = out.positions.len() as u32;
        out.positions.push(pos);
        out.normals.push(n);
        let value = self.scratch.base + 1 + id;
        match kind {
            0 | 1 => self.scratch.plane_slots[kind as usize][key] = value,
            _ => self.scratch.z_slots[(ey & 1) * nx + ex] = value,
        }
        if row.record_bottom && kind == 0 {
            out.bottom.push((key as PlaneKey, id));
        } else if row.record_top && kind == 1 {
            out.top.push((key as PlaneKey, id));
        }
        id
    }

    /// The per-cube path: face decisions, interior test, loops triangulated from the values.
    fn general_cube(&mut self, x: usize, row: &Row, surf: &mut CubeSurface, out: &mut ChunkMesh) {
        let g = self.grid;
        let [nx, ny, _] = g.dims;
        let base = x + nx * (row.y + ny * row.z);
        let values: [f32; 8] = std::array::from_fn(|c| {
            let o = cube::CORNERS[c];
            g.data[base + o[0] as usize + nx * (o[1] as usize + ny * o[2] as usize)]
        });
        cube::polygonise(&values, self.iso, surf);
        let mut ids = [u32::MAX; 16];
        for k in 0..surf.triangles().len() {
            let tri = surf.tris[k];
            for &r in &tri {
                let r = r as usize;
                if ids[r] != u32::MAX {
                    continue;
                }
                ids[r] = if r < CENTRE as usize {
                    self.edge_vertex(r, x, row, out)
                } else {
                    let local = surf.extra[r - CENTRE as usize];
                    let g = cube::trilinear_gradient(&values, local);
                    let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
                    let id = out.positions.len() as u32;
                    let origin = [x as f32, row.y as f32, row.z as f32];
                    out.positions.push([0, 1, 2].map(|a| origin[a] + local[a]));
                    out.normals.push(if len > 0.0 && len.is_finite() { g.map(|c| c / len) } else { [0.0, 1.0, 0.0] });
                    id
                };
            }
            push_triangle(out, [ids[tri[0] as usize], ids[tri[1] as usize], ids[tri[2] as usize]]);
        }
        out.stats.general_cubes += 1;
        out.stats.centre_vertices += surf.n_extra as u32;
        out.stats.tunnels += surf.tunnel as u32;
        out.stats.tunnel_fallbacks += surf.tunnel_fallback as u32;
    }
}

/// Extracts cube layers `z0..z1` into `out`.
fn scan_chunk(grid: &ScalarGrid<'_>, iso: f32, z0: usize, z1: usize, out: &mut ChunkMesh) {
    SCRATCH.with_borrow_mut(|scratch| {
        let [nx, ny, _] = grid.dims;
        scratch.prepare(grid.dims, nx * ny * (z1 - z0));
        scan_chunk_with(grid, iso, z0, z1, scratch, out);
        scratch.base += 1 + out.positions.len() as u32;
    })
}

fn scan_chunk_with(grid: &ScalarGrid<'_>, iso: f32, z0: usize, z1: usize, scratch: &mut Scratch, out: &mut ChunkMesh) {
    let [nx, ny, nz] = grid.dims;
    let words = nx.div_ceil(64);
    let mut bits = std::mem::take(&mut scratch.bits);
    let classify = |z: usize, bits: &mut [u64]| {
        for y in 0..ny {
            let row = &grid.data[(z * ny + y) * nx..][..nx];
            classify_row(row, iso, &mut bits[y * words..][..words]);
        }
    };
    classify(z0, &mut bits[0]);
    classify(z0 + 1, &mut bits[1]);
    // Bits of cube x are valid for x < nx - 1.
    let last_word_mask = {
        let cubes_in_last = (nx - 1) - 64 * (words - 1);
        if cubes_in_last >= 64 { u64::MAX } else { (1u64 << cubes_in_last) - 1 }
    };
    let base = scratch.base;
    let mut scan = Scan { grid, iso, scratch };
    let mut prev_layer_start = 0u32;
    let mut surf = CubeSurface::default();
    for z in z0..z1 {
        // Classifying one plane ahead also pulls plane z + 2 into the cache before the gradients of
        // this layer's upper vertices read it.
        if z + 2 < nz {
            classify(z + 2, &mut bits[2]);
        }
        let layer_start = out.positions.len() as u32;
        let lower_min = base + 1 + if z == z0 { 0 } else { prev_layer_start };
        let mut prev_row_start = layer_start;
        for y in 0..ny - 1 {
            let row_start = out.positions.len() as u32;
            let row = Row {
                y,
                z,
                // z edges of row y appeared in cube row y - 1 or y, those of row y + 1 in row y
                min_stored: [lower_min, base + 1 + layer_start, base + 1 + prev_row_start, base + 1 + row_start],
                record_bottom: z == z0 && z0 > 0,
                record_top: z + 1 == z1 && z1 < nz - 1,
            };
            prev_row_start = row_start;
            let r0 = &bits[0][y * words..][..words];
            let r1 = &bits[0][(y + 1) * words..][..words];
            let r2 = &bits[1][y * words..][..words];
            let r3 = &bits[1][(y + 1) * words..][..words];
            for w in 0..words {
                let any = r0[w] | r1[w] | r2[w] | r3[w];
                let all = r0[w] & r1[w] & r2[w] & r3[w];
                let (any_n, all_n) = if w + 1 < words {
                    (r0[w + 1] | r1[w + 1] | r2[w + 1] | r3[w + 1], r0[w + 1] & r1[w + 1] & r2[w + 1] & r3[w + 1])
                } else {
                    (0, 0)
                };
                // cube x mixes inside and outside if its corners at x and x + 1 are not all alike
                let any2 = any | (any >> 1) | (any_n << 63);
                let all2 = all & ((all >> 1) | (all_n << 63));
                let mut mixed = any2 & !all2;
                if w + 1 == words {
                    mixed &= last_word_mask;
                }
                while mixed != 0 {
                    let b = mixed.trailing_zeros() as usize;
                    mixed &= mixed - 1;
                    let x = 64 * w + b;
                    let bit = |r: &[u64], xx: usize| ((r[xx / 64] >> (xx % 64)) & 1) as u8;
                    let case = bit(r0, x)
                        | bit(r0, x + 1) << 1
                        | bit(r1, x + 1) << 2
                        | bit(r1, x) << 3
                        | bit(r2, x) << 4
                        | bit(r2, x + 1) << 5
                        | bit(r3, x + 1) << 6
                        | bit(r3, x) << 7;
                    out.stats.cubes += 1;
                    let entry = &CASES[case as usize];
                    if entry.needs_values {
                        scan.general_cube(x, &row, &mut surf, out);
                        continue;
                    }
                    let mut ids = [0u32; 12];
                    for &e in &entry.uses[..entry.n_uses as usize] {
                        ids[e as usize] = scan.edge_vertex(e as usize, x, &row, out);
                    }
                    for t in &entry.tris[..entry.n_tris as usize] {
                        push_triangle(out, [ids[t[0] as usize], ids[t[1] as usize], ids[t[2] as usize]]);
                    }
                }
            }
        }
        bits.rotate_left(1);
        scan.scratch.plane_slots.swap(0, 1);
        prev_layer_start = layer_start;
    }
    scan.scratch.bits = bits;
}

/// Appends a triangle unless it is degenerate (a repeated vertex, or exactly zero area in f32).
#[inline(always)]
fn push_triangle(out: &mut ChunkMesh, t: [u32; 3]) {
    let p = &out.positions;
    let (a, b, c) = (p[t[0] as usize], p[t[1] as usize], p[t[2] as usize]);
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let cx = u[1] * v[2] - u[2] * v[1];
    let cy = u[2] * v[0] - u[0] * v[2];
    let cz = u[0] * v[1] - u[1] * v[0];
    if (cx == 0.0 && cy == 0.0 && cz == 0.0) || t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
        out.stats.degenerate_dropped += 1;
        return;
    }
    out.indices.extend_from_slice(&t);
}

/// Cube layers per chunk: enough chunks to balance the threads, few enough that stitching stays
/// negligible.
pub fn auto_layers_per_chunk(nz: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    let layers = nz.saturating_sub(1).max(1);
    layers.div_ceil(threads * 4).max(8)
}

/// Extracts the iso-surface of `grid` at `iso` into `out` (cleared first). `layers_per_chunk`
/// splits the z-range into slabs extracted in parallel; the result does not depend on it.
pub fn extract_into(grid: &ScalarGrid<'_>, iso: f32, layers_per_chunk: usize, parallel: bool, out: &mut IsoMesh) {
    out.positions.clear();
    out.normals.clear();
    out.indices.clear();
    out.stats = McStats::default();
    let [nx, ny, nz] = grid.dims;
    if nx < 2 || ny < 2 || nz < 2 {
        return;
    }
    let layers = nz - 1;
    let per = layers_per_chunk.max(1);
    let ranges: Vec<(usize, usize)> = (0..layers).step_by(per).map(|z0| (z0, (z0 + per).min(layers))).collect();
    if ranges.len() == 1 {
        let mut chunk = ChunkMesh {
            positions: std::mem::take(&mut out.positions),
            normals: std::mem::take(&mut out.normals),
            indices: std::mem::take(&mut out.indices),
            ..Default::default()
        };
        scan_chunk(grid, iso, 0, layers, &mut chunk);
        out.positions = chunk.positions;
        out.normals = chunk.normals;
        out.indices = chunk.indices;
        out.stats = chunk.stats;
        return;
    }
    // Chunk buffers live in `out` between calls, so steady-state extraction allocates nothing.
    let mut chunks = std::mem::take(&mut out.pool.0);
    chunks.resize_with(ranges.len().max(chunks.len()), ChunkMesh::default);
    let run = |(c, &(z0, z1)): (&mut ChunkMesh, &(usize, usize))| {
        c.clear();
        scan_chunk(grid, iso, z0, z1, c);
    };
    if parallel {
        chunks.par_iter_mut().zip(ranges.par_iter()).for_each(run);
    } else {
        chunks.iter_mut().zip(ranges.iter()).for_each(run);
    }
    stitch(&mut chunks[..ranges.len()], out, parallel);
    out.pool.0 = chunks;
}

/// A chunk and the parts of the output (positions, normals, indices) it fills.
type ChunkOutput<'a> = (&'a ChunkMesh, &'a mut [[f32; 3]], &'a mut [[f32; 3]], &'a mut [u32]);

/// Joins chunk meshes: a chunk's bottom-plane vertices are the previous chunk's top-plane vertices
/// (same edge keys), every other vertex keeps its creation order, so the result equals the
/// single-pass mesh vertex for vertex and triangle for triangle. Every step is per chunk and runs in
/// parallel when `parallel` is set.
fn stitch(chunks: &mut [ChunkMesh], out: &mut IsoMesh, parallel: bool) {
    fn each<T: Send>(items: &mut [T], parallel: bool, f: impl Fn(usize, &mut T) + Sync + Send) {
        if parallel {
            items.par_iter_mut().enumerate().for_each(|(i, t)| f(i, t));
        } else {
            items.iter_mut().enumerate().for_each(|(i, t)| f(i, t));
        }
    }
    // 1. Ranks of each chunk's own vertices; boundary lists sorted by edge key.
    each(chunks, parallel, |_, c| {
        c.bottom.sort_unstable();
        c.top.sort_unstable();
        c.rank.clear();
        c.rank.resize(c.positions.len(), 0);
        for &(_, local) in &c.bottom {
            c.rank[local as usize] = SHARED;
        }
        let mut next = 0;
        for r in c.rank.iter_mut() {
            if *r != SHARED {
                *r = next;
                next += 1;
            }
        }
    });
    // 2. Where each chunk's vertices and indices start in the whole mesh.
    let mut v_off = Vec::with_capacity(chunks.len() + 1);
    let mut i_off = Vec::with_capacity(chunks.len() + 1);
    let (mut v, mut i) = (0usize, 0usize);
    for c in chunks.iter() {
        v_off.push(v);
        i_off.push(i);
        v += c.positions.len() - c.bottom.len();
        i += c.indices.len();
    }
    // 3. Global ids: own vertices by rank, bottom vertices through the previous chunk's top.
    let globals: Vec<Vec<u32>> = {
        let chunks_ref: &[ChunkMesh] = chunks;
        let build = |k: usize| {
            let c = &chunks_ref[k];
            let mut g: Vec<u32> = c.rank.iter().map(|&r| if r == SHARED { SHARED } else { (v_off[k] + r as usize) as u32 }).collect();
            if k > 0 {
                let prev = &chunks_ref[k - 1];
                debug_assert_eq!(c.bottom.len(), prev.top.len(), "chunk planes disagree");
                for (&(kb, local), &(kt, prev_local)) in c.bottom.iter().zip(&prev.top) {
                    debug_assert_eq!(kb, kt);
                    g[local as usize] = (v_off[k - 1] + prev.rank[prev_local as usize] as usize) as u32;
                }
            }
            g
        };
        if parallel { (0..chunks_ref.len()).into_par_iter().map(build).collect() } else { (0..chunks_ref.len()).map(build).collect() }
    };
    for (c, g) in chunks.iter_mut().zip(globals) {
        c.global = g;
    }
    // 4. Copy, each chunk into its own part of the output.
    out.positions.resize(v, [0.0; 3]);
    out.normals.resize(v, [0.0; 3]);
    out.indices.resize(i, 0);
    let mut parts = Vec::with_capacity(chunks.len());
    {
        let (mut pos, mut nrm, mut idx) = (&mut out.positions[..], &mut out.normals[..], &mut out.indices[..]);
        for c in chunks.iter() {
            let nv = c.positions.len() - c.bottom.len();
            let (p, prest) = std::mem::take(&mut pos).split_at_mut(nv);
            let (n, nrest) = std::mem::take(&mut nrm).split_at_mut(nv);
            let (ix, irest) = std::mem::take(&mut idx).split_at_mut(c.indices.len());
            (pos, nrm, idx) = (prest, nrest, irest);
            parts.push((c, p, n, ix));
        }
    }
    let copy = |(c, p, n, ix): ChunkOutput<'_>| {
        let mut k = 0;
        for (local, &r) in c.rank.iter().enumerate() {
            if r != SHARED {
                p[k] = c.positions[local];
                n[k] = c.normals[local];
                k += 1;
            }
        }
        for (dst, &src) in ix.iter_mut().zip(&c.indices) {
            *dst = c.global[src as usize];
        }
    };
    if parallel {
        parts.into_par_iter().for_each(copy);
    } else {
        parts.into_iter().for_each(copy);
    }
    for c in chunks.iter() {
        out.stats.add(&c.stats);
    }
}
