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

/// Largest grid side in cells; a wider spread of positions gets larger cells (still exact).
const MAX_CELLS_PER_SIDE: usize = 2048;

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
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

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
        let smallest = (span / MAX_CELLS_PER_SIDE as f32).max(f32::MIN_POSITIVE);
        // cells holding about CELL_SHARE · k agents of an even spread over the occupied box;
        // then smaller by how much more crowded an agent's own cell is on average (crowds
        // gather: around a flock's nodes the density is many times the mean)
        let target = CELL_SHARE * k.max(1) as f32;
        let area = ((hi[0] - lo[0]) * (hi[1] - lo[1])).max(f32::MIN_POSITIVE);
        let even = (target * area / n.max(1) as f32).sqrt();
        self.size(lo, hi, radius.min(even).max(smallest), xs, ys);
        let crowded = self.starts[1..].iter().map(|&c| (c as f64).powi(2)).sum::<f64>() / n.max(1) as f64;
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
        let k = k.clamp(1, MAX_NEIGHBOURS);
        if self.items.is_empty() {
            return;
        }
        let r2 = radius * radius;
        let (cx, cy) = self.coords(x, y);
        // how far (x, y) is from its own cell's nearest side: ring r of cells lies at least
        // (r − 1) cells and this much away; a hundredth of a cell less, for the rounding of the
        // binning's division
        let (ox, oy) = (x - self.origin[0] - cx as f32 * self.cell, y - self.origin[1] - cy as f32 * self.cell);
        let inset = ox.min(self.cell - ox).min(oy).min(self.cell - oy).max(0.0) - 0.01 * self.cell;
        // a key must come before this to be kept: within the radius, and before the k-th kept
        let mut limit = key(r2, 0);
        let (px, py, items, starts) = (&self.px[..], &self.py[..], &self.items[..], &self.starts[..]);
        let scan = |first: usize, last: usize, out: &mut Nearest, limit: &mut u64| {
            let range = starts[first] as usize..starts[last + 1] as usize;
            for ((&qx, &qy), &j) in px[range.clone()].iter().zip(&py[range.clone()]).zip(&items[range]) {
                let (dx, dy) = (x - qx, y - qy);
                let candidate = key(dx * dx + dy * dy, j);
                if candidate < *limit && j as usize != i {
                    out.insert(k, candidate);
                    if out.len == k {
                        *limit = out.keys[k - 1];
                    }
                }
            }
        };
        // the agent's own cell and the ring around it first, a row at a time: every key within
        // the radius gathered without branching, then the k smallest picked at once
        let (x0, x1) = (cx.saturating_sub(1), (cx + 1).min(self.cols - 1));
        let gathered = &mut out.gathered;
        let mut m = 0;
        let mut overflow = false;
        for row in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
            let range = starts[row * self.cols + x0] as usize..starts[row * self.cols + x1 + 1] as usize;
            if m + range.len() > GATHER {
                overflow = true;
                break;
            }
            for ((&qx, &qy), &j) in px[range.clone()].iter().zip(&py[range.clone()]).zip(&items[range]) {
                let (dx, dy) = (x - qx, y - qy);
                let candidate = key(dx * dx + dy * dy, j);
                gathered[m] = candidate;
                m += (candidate < limit && j as usize != i) as usize;
            }
        }
        if overflow {
            for row in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
                scan(row * self.cols + x0, row * self.cols + x1, out, &mut limit);
            }
        } else {
            if m > 2 * k {
                // picking among them all costs more than gathering them: if k are nearer than
                // NEAR_SHARE of the k-th squared distance the block's mean density predicts (most
                // often), the k nearest are among those, and only those need picking
                let rows = (cy + 1).min(self.rows - 1) - cy.saturating_sub(1) + 1;
                let area = ((x1 - x0 + 1) * rows) as f32 * self.cell * self.cell;
                let near = key(NEAR_SHARE * k as f32 * area / (std::f32::consts::PI * m as f32), 0);
                let mut c = 0;
                for r in 0..m {
                    let g = out.gathered[r];
                    out.gathered[c] = g;
                    c += (g < near) as usize;
                }
                if c >= k {
                    m = c;
                } else {
                    // too few: those compacted away are gone, so gather again
                    m = 0;
                    for row in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
                        let range = starts[row * self.cols + x0] as usize..starts[row * self.cols + x1 + 1] as usize;
                        for ((&qx, &qy), &j) in px[range.clone()].iter().zip(&py[range.clone()]).zip(&items[range]) {
                            let (dx, dy) = (x - qx, y - qy);
                            let candidate = key(dx * dx + dy * dy, j);
                            out.gathered[m] = candidate;
                            m += (candidate < limit && j as usize != i) as usize;
                        }
                    }
                }
            }
            if m > k {
                out.gathered[..m].select_nth_unstable(k - 1);
            }
            let n = m.min(k);
            out.gathered[..n].sort_unstable();
            out.keys[..n].copy_from_slice(&out.gathered[..n]);
            out.len = n;
            if out.len == k {
                limit = out.keys[k - 1];
            }
        }
        for ring in 2usize.. {
            let near = ((ring - 1) as f32 * self.cell + inset).max(0.0);
            let near2 = near * near;
            // nothing in this ring or beyond is within the radius, or closer than the k-th
            if near2 >= r2 || (out.len == k && near2 > f32::from_bits((out.keys[k - 1] >> 32) as u32)) {
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
                scan(base + x0, base + x1, out, &mut limit);
            }
            if top < self.rows {
                scan(top * self.cols + x0, top * self.cols + x1, out, &mut limit);
            }
            for row in (bottom + 1).max(0) as usize..top.min(self.rows) {
                if left >= 0 {
                    scan(row * self.cols + left as usize, row * self.cols + left as usize, out, &mut limit);
                }
                if right < self.cols {
                    scan(row * self.cols + right, row * self.cols + right, out, &mut limit);
                }
            }
        }
    }
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
