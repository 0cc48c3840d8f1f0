//! Nearest-neighbour search on a uniform grid: agents are counting-sorted into square cells sized
//! so that an average cell holds about as many agents as a query wants (never larger than the
//! query radius), and a query for the k nearest agents within a radius walks rings of cells
//! outwards from the agent's own, stopping once no closer agent can lie beyond. The cost of a
//! query is bounded by k and the crowd's local density relative to its mean, not by how many
//! agents the radius holds, so a crowd ten times as dense costs about the same per agent.
//!
//! The answer is exact: the k nearest by (squared distance, index), ties broken by the lower
//! index, the same set in the same order as checking every pair ([`brute_force`]), whatever the
//! cell size, thread count or visiting order.

use crate::portable;
use std::ops::RangeInclusive;

/// Largest grid side in cells, and most cells an agent (at least `MIN_CELL_CAP` in all); a wider
/// spread of positions gets larger cells (still exact).
const MAX_CELLS_PER_SIDE: usize = 16384;
const CELLS_PER_AGENT: usize = 4;
const MIN_CELL_CAP: usize = 1 << 16;

/// Candidates the first 3 × 3 cells of a query gather before picking (more: one at a time).
const GATHER: usize = 256;

/// The share of the k-th squared distance a block's mean density predicts within which a query
/// first looks for its k nearest.
const NEAR_SHARE: f32 = 1.5;

/// Most neighbours a query can ask for.
pub const MAX_NEIGHBOURS: usize = 64;

/// Agents per cell the sizing aims at, for each neighbour asked for: about one k-th of the
/// nearest k in an average cell, so the own cell and its first ring usually settle a query.
const CELL_SHARE: f32 = 0.5;

#[derive(Clone, Debug, Default)]
pub struct NeighbourGrid {
    origin: [f32; 2],
    cell: f32,
    cols: usize,
    rows: usize,
    /// `starts[c]..starts[c + 1]` indexes `items`, `px` and `py` for cell c.
    starts: Vec<u32>,
    items: Vec<u32>,
    /// Positions in cell order, so a query reads memory front to back.
    px: Vec<f32>,
    py: Vec<f32>,
    cell_of: Vec<u32>,
    /// Each agent's place in cell order (`items`' inverse).
    slots: Vec<u32>,
    next: Vec<u32>,
}

/// The nearest agents a query found, nearest first, as keys: the squared distance's bits above
/// the agent's index (a non-negative f32's bits order as its value does), so one integer
/// comparison orders by distance, then index.
#[derive(Clone, Debug)]
pub struct Nearest {
    len: usize,
    keys: [u64; MAX_NEIGHBOURS],
    /// Room for a query's first candidates (reused: clearing 2 KB a query cost a fifth of it).
    gathered: [u64; GATHER],
}

impl Default for Nearest {
    fn default() -> Self {
        Nearest { len: 0, keys: [0; MAX_NEIGHBOURS], gathered: [0; GATHER] }
    }
}

/// The key of agent `j` at squared distance `d2`.
#[inline(always)]
fn key(d2: f32, j: u32) -> u64 {
    (d2.to_bits() as u64) << 32 | j as u64
}

impl Nearest {
    /// (index, d²) of each, nearest first.
    pub fn iter(&self) -> impl Iterator<Item = (usize, f32)> + '_ {
        self.keys[..self.len].iter().map(|&k| ((k & 0xffff_ffff) as usize, f32::from_bits((k >> 32) as u32)))
    }

    /// Inserts `key`, known to come before the k-th kept (or fewer than `k` kept), in order.
    #[inline(always)]
    fn insert(&mut self, k: usize, key: u64) {
        let mut at = self.len.min(k - 1);
        while at > 0 && self.keys[at - 1] > key {
            self.keys[at] = self.keys[at - 1];
            at -= 1;
        }
        self.keys[at] = key;
        self.len = (self.len + 1).min(k);
    }
}

impl NeighbourGrid {
    /// Sorts `xs`/`ys` into cells for queries of at most `radius` (> 0) and `k` neighbours.
    pub fn build(&mut self, xs: &[f32], ys: &[f32], radius: f32, k: usize) {
        let n = xs.len();
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for (&x, &y) in xs.iter().zip(ys) {
            lo = [lo[0].min(x), lo[1].min(y)];
            hi = [hi[0].max(x), hi[1].max(y)];
        }
        if n == 0 {
            lo = [0.0; 2];
            hi = [0.0; 2];
        }
        let span = (hi[0] - lo[0]).max(hi[1] - lo[1]).max(0.0);
        let box_area = (hi[0] - lo[0]) * (hi[1] - lo[1]);
        let most_cells = (CELLS_PER_AGENT * n).max(MIN_CELL_CAP) as f32;
        let smallest = (span / MAX_CELLS_PER_SIDE as f32).max((box_area / most_cells).sqrt()).max(f32::MIN_POSITIVE);
        // cells holding about CELL_SHARE · k agents of an even spread over the occupied box;
        // then smaller by how much more crowded an agent's own cell is on average (crowds
        // gather: around a flock's nodes the density is many times the mean)
        let target = CELL_SHARE * k.max(1) as f32;
        let area = box_area.max(f32::MIN_POSITIVE);
        let even = (target * area / n.max(1) as f32).sqrt();
        self.size(lo, hi, radius.min(even).max(smallest), xs, ys);
        let crowded = self.starts[1..].iter().map(|&c| portable::powi(c as f64, 2)).sum::<f64>() / n.max(1) as f64;
        if crowded > target as f64 {
            let finer = (self.cell * (target as f64 / crowded).sqrt() as f32).max(smallest);
            self.size(lo, hi, finer, xs, ys);
        }
        let cells = self.cols * self.rows;
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(n, 0);
        self.px.clear();
        self.px.resize(n, 0.0);
        self.py.clear();
        self.py.resize(n, 0.0);
        self.slots.clear();
        self.slots.resize(n, 0);
        // where each cell's next agent goes (kept between builds: a fresh one of 100 KB or more
        // came from the kernel zeroed, every step)
        let mut next = std::mem::take(&mut self.next);
        next.clear();
        next.extend_from_slice(&self.starts[..cells]);
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut next[c as usize];
            let k = *slot as usize;
            self.items[k] = i as u32;
            self.slots[i] = k as u32;
            self.px[k] = xs[i];
            self.py[k] = ys[i];
            *slot += 1;
        }
    }

    /// Cells of side `cell` over the box `lo`..`hi`, and how many agents each holds (`starts`,
    /// as prefix sums; `cell_of` each agent's cell).
    fn size(&mut self, lo: [f32; 2], hi: [f32; 2], cell: f32, xs: &[f32], ys: &[f32]) {
        self.cell = cell;
        self.origin = lo;
        self.cols = (((hi[0] - lo[0]) / self.cell) as usize + 1).min(MAX_CELLS_PER_SIDE);
        self.rows = (((hi[1] - lo[1]) / self.cell) as usize + 1).min(MAX_CELLS_PER_SIDE);
        let cells = self.cols * self.rows;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        self.cell_of.clear();
        for (&x, &y) in xs.iter().zip(ys) {
            let c = self.cell_index(x, y);
            self.cell_of.push(c as u32);
            self.starts[c + 1] += 1;
        }
    }

    /// The agents in cell order (cell by cell, each cell's in index order).
    pub fn order(&self) -> &[u32] {
        &self.items
    }

    /// Each agent's place in [`order`](Self::order).
    pub fn slots(&self) -> &[u32] {
        &self.slots
    }

    fn coords(&self, x: f32, y: f32) -> (usize, usize) {
        let cx = (((x - self.origin[0]) / self.cell).max(0.0) as usize).min(self.cols - 1);
        let cy = (((y - self.origin[1]) / self.cell).max(0.0) as usize).min(self.rows - 1);
        (cx, cy)
    }

    fn cell_index(&self, x: f32, y: f32) -> usize {
        let (cx, cy) = self.coords(x, y);
        cy * self.cols + cx
    }

    /// The `k` (1..=`MAX_NEIGHBOURS`) agents nearest to agent `i` at (x, y) within `radius`
    /// (not beyond the radius the grid was built for), agent `i` left out, into `out`.
    pub fn nearest(&self, i: usize, x: f32, y: f32, radius: f32, k: usize, out: &mut Nearest) {
        out.len = 0;
        if self.items.is_empty() {
            return;
        }
        let (cx, cy) = self.coords(x, y);
        let q = Query { i: i as u32, at: [x, y], k: k.clamp(1, MAX_NEIGHBOURS), r2: radius * radius, cell: [cx, cy] };
        // a key must come before this to be kept: within the radius, and before the k-th kept
        let mut limit = key(q.r2, 0);
        // the agent's own cell and the ring around it first: every key within the radius
        // gathered without branching, then the k smallest picked at once
        let (x0, x1) = (cx.saturating_sub(1), (cx + 1).min(self.cols - 1));
        let rows = cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1);
        match self.gather(&q, x0..=x1, rows.clone(), limit, out) {
            Some(m) => {
                let area = (x1 - x0 + 1) as f32 * rows.clone().count() as f32 * self.cell * self.cell;
                self.pick(&q, m, area, (x0..=x1, rows), limit, out);
                if out.len == q.k {
                    limit = out.keys[q.k - 1];
                }
            }
            None => {
                for row in rows {
                    self.scan(&q, row * self.cols + x0, row * self.cols + x1, out, &mut limit);
                }
            }
        }
        self.rings(&q, out, &mut limit);
    }

    /// The keys of the agents in columns `xs` of rows `ys` that come before `limit` (agent `q.i`
    /// left out) into `out.gathered`, without a branch a candidate; how many, or `None` when
    /// there are more than `GATHER` candidates.
    fn gather(&self, q: &Query, xs: RangeInclusive<usize>, ys: RangeInclusive<usize>, limit: u64, out: &mut Nearest) -> Option<usize> {
        let [x, y] = q.at;
        let mut m = 0;
        for row in ys {
            let range = self.starts[row * self.cols + xs.start()] as usize..self.starts[row * self.cols + xs.end() + 1] as usize;
            if m + range.len() > GATHER {
                return None;
            }
            for ((&qx, &qy), &j) in self.px[range.clone()].iter().zip(&self.py[range.clone()]).zip(&self.items[range]) {
                let (dx, dy) = (x - qx, y - qy);
                let candidate = key(dx * dx + dy * dy, j);
                out.gathered[m] = candidate;
                m += (candidate < limit && j != q.i) as usize;
            }
        }
        Some(m)
    }

    /// The `q.k` smallest of the `m` gathered keys (from `block`, of `area` square units), nearest
    /// first, into `out.keys`.
    fn pick(
        &self,
        q: &Query,
        mut m: usize,
        area: f32,
        block: (RangeInclusive<usize>, RangeInclusive<usize>),
        limit: u64,
        out: &mut Nearest,
    ) {
        let k = q.k;
        if m > 2 * k {
            // picking among them all costs more than gathering them: if k are nearer than
            // NEAR_SHARE of the k-th squared distance the block's mean density predicts (most
            // often), the k nearest are among those, and only those need picking
            let near = key(NEAR_SHARE * k as f32 * area / (std::f32::consts::PI * m as f32), 0);
            let mut c = 0;
            for r in 0..m {
                let g = out.gathered[r];
                out.gathered[c] = g;
                c += (g < near) as usize;
            }
            // too few: those compacted away are gone, so gather them again
            m = if c >= k { c } else { self.gather(q, block.0, block.1, limit, out).expect("it fitted the first time") };
        }
        if m > k {
            out.gathered[..m].select_nth_unstable(k - 1);
        }
        let n = m.min(k);
        out.gathered[..n].sort_unstable();
        out.keys[..n].copy_from_slice(&out.gathered[..n]);
        out.len = n;
    }

    /// Offers every agent of cells `first..=last` (one row) that comes before `limit` to `out`,
    /// tightening `limit` to the k-th kept once there are k.
    fn scan(&self, q: &Query, first: usize, last: usize, out: &mut Nearest, limit: &mut u64) {
        let [x, y] = q.at;
        let range = self.starts[first] as usize..self.starts[last + 1] as usize;
        for ((&qx, &qy), &j) in self.px[range.clone()].iter().zip(&self.py[range.clone()]).zip(&self.items[range]) {
            let (dx, dy) = (x - qx, y - qy);
            let candidate = key(dx * dx + dy * dy, j);
            if candidate < *limit && j != q.i {
                out.insert(q.k, candidate);
                if out.len == q.k {
                    *limit = out.keys[q.k - 1];
                }
            }
        }
    }

    /// The rings of cells beyond the first, outwards, while one could hold a nearer agent.
    fn rings(&self, q: &Query, out: &mut Nearest, limit: &mut u64) {
        let ([x, y], [cx, cy], k) = (q.at, q.cell, q.k);
        // how far (x, y) is from its own cell's nearest side: ring r of cells lies at least
        // (r − 1) cells and this much away; a hundredth of a cell less, for the rounding of the
        // binning's division
        let (ox, oy) = (x - self.origin[0] - cx as f32 * self.cell, y - self.origin[1] - cy as f32 * self.cell);
        let inset = ox.min(self.cell - ox).min(oy).min(self.cell - oy).max(0.0) - 0.01 * self.cell;
        for ring in 2usize.. {
            let near = ((ring - 1) as f32 * self.cell + inset).max(0.0);
            let near2 = near * near;
            // nothing in this ring or beyond is within the radius, or closer than the k-th
            if near2 >= q.r2 || (out.len == k && near2 > f32::from_bits((out.keys[k - 1] >> 32) as u32)) {
                break;
            }
            let (left, right) = (cx as isize - ring as isize, cx + ring);
            let (bottom, top) = (cy as isize - ring as isize, cy + ring);
            if left < 0 && bottom < 0 && right >= self.cols && top >= self.rows {
                break; // the ring is wholly outside the grid, and so is every later one
            }
            let (x0, x1) = (left.max(0) as usize, right.min(self.cols - 1));
            // the ring's bottom and top rows whole, its sides one cell a row between them
            if bottom >= 0 {
                let base = bottom as usize * self.cols;
                self.scan(q, base + x0, base + x1, out, limit);
            }
            if top < self.rows {
                self.scan(q, top * self.cols + x0, top * self.cols + x1, out, limit);
            }
            for row in (bottom + 1).max(0) as usize..top.min(self.rows) {
                if left >= 0 {
                    self.scan(q, row * self.cols + left as usize, row * self.cols + left as usize, out, limit);
                }
                if right < self.cols {
                    self.scan(q, row * self.cols + right, row * self.cols + right, out, limit);
                }
            }
        }
    }
}

/// One query: the agent, where it is, how many neighbours, the squared radius, its cell.
struct Query {
    i: u32,
    at: [f32; 2],
    k: usize,
    r2: f32,
    cell: [usize; 2],
}

/// The same answer by checking every pair (for tests): the `k` nearest within `radius`, by
/// (squared distance, index), nearest first.
pub fn brute_force(i: usize, radius: f32, k: usize, xs: &[f32], ys: &[f32]) -> Vec<usize> {
    let r2 = radius * radius;
    let mut all: Vec<(f32, usize)> = (0..xs.len())
        .filter(|&j| j != i)
        .map(|j| {
            let (dx, dy) = (xs[i] - xs[j], ys[i] - ys[j]);
            (dx * dx + dy * dy, j)
        })
        .filter(|(d2, _)| *d2 < r2)
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    all.into_iter().take(k.clamp(1, MAX_NEIGHBOURS)).map(|(_, j)| j).collect()
}
