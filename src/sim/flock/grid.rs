//! Fixed-radius neighbour search on a uniform grid: agents are counting-sorted into cells no
//! smaller than the radius, so every neighbour lies in the 3 × 3 cells around an agent. Cells are
//! visited in a fixed order and agents within a cell in index order, so the neighbour sequence
//! (and any sum over it) is the same on every run and thread count; it is exactly the brute-force
//! set.

/// Largest grid side in cells; a wider spread of positions gets larger cells (still exact).
const MAX_CELLS_PER_SIDE: usize = 2048;

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
}

impl NeighbourGrid {
    /// Sorts `xs`/`ys` into cells for queries of radius `radius` (> 0).
    pub fn build(&mut self, xs: &[f32], ys: &[f32], radius: f32) {
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
        self.cell = radius.max(span / MAX_CELLS_PER_SIDE as f32).max(f32::MIN_POSITIVE);
        self.origin = lo;
        self.cols = (((hi[0] - lo[0]) / self.cell) as usize + 1).min(MAX_CELLS_PER_SIDE);
        self.rows = (((hi[1] - lo[1]) / self.cell) as usize + 1).min(MAX_CELLS_PER_SIDE);
        let cells = self.cols * self.rows;
        self.starts.clear();
        self.starts.resize(cells + 1, 0);
        self.cell_of.clear();
        for i in 0..n {
            let c = self.cell_index(xs[i], ys[i]);
            self.cell_of.push(c as u32);
            self.starts[c + 1] += 1;
        }
        for c in 0..cells {
            self.starts[c + 1] += self.starts[c];
        }
        self.items.clear();
        self.items.resize(n, 0);
        self.px.clear();
        self.px.resize(n, 0.0);
        self.py.clear();
        self.py.resize(n, 0.0);
        let mut next: Vec<u32> = self.starts[..cells].to_vec();
        for (i, &c) in self.cell_of.iter().enumerate() {
            let slot = &mut next[c as usize];
            let k = *slot as usize;
            self.items[k] = i as u32;
            self.px[k] = xs[i];
            self.py[k] = ys[i];
            *slot += 1;
        }
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

    /// Calls `f(j, dx, dy, d²)` for every agent j ≠ `i` within `radius` of (x, y), where
    /// (dx, dy) = (x − xⱼ, y − yⱼ). `radius` must not exceed the radius the grid was built for.
    #[inline]
    pub fn for_each_neighbour(&self, i: usize, x: f32, y: f32, radius: f32, mut f: impl FnMut(usize, f32, f32, f32)) {
        if self.items.is_empty() {
            return;
        }
        let r2 = radius * radius;
        let (cx, cy) = self.coords(x, y);
        for gy in cy.saturating_sub(1)..=(cy + 1).min(self.rows - 1) {
            // the three cells of a row are contiguous in cell order
            let first = gy * self.cols + cx.saturating_sub(1);
            let last = gy * self.cols + (cx + 1).min(self.cols - 1);
            let range = self.starts[first] as usize..self.starts[last + 1] as usize;
            for k in range {
                let (dx, dy) = (x - self.px[k], y - self.py[k]);
                let d2 = dx * dx + dy * dy;
                if d2 < r2 {
                    let j = self.items[k] as usize;
                    if j != i {
                        f(j, dx, dy, d2);
                    }
                }
            }
        }
    }
}

/// The same set by checking every pair (for tests).
pub fn brute_force(i: usize, radius: f32, xs: &[f32], ys: &[f32]) -> Vec<usize> {
    let r2 = radius * radius;
    (0..xs.len())
        .filter(|&j| {
            let (dx, dy) = (xs[i] - xs[j], ys[i] - ys[j]);
            j != i && dx * dx + dy * dy < r2
        })
        .collect()
}
