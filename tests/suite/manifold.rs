//! Meshes a physics engine or a slicer accepts: on seeded random closed fields (layered noise with
//! overhangs, thin walls, touching blobs, saddles at grid samples, flat layers exactly on the grid,
//! sharp CSG, white noise with samples exactly at iso), surface nets, dual contouring and marching
//! cubes give closed, consistently wound 2-manifolds without degenerate triangles, at several
//! resolutions, and their chunked extractions equal one pass.

use simreel::sim::terrain::dual;
use simreel::sim::terrain::mc::{self, ScalarGrid};
use simreel::sim::terrain::topology::Topology;

use super::marching_cubes::{Rng, box_sdf, sampled, walled};

type Sdf = Box<dyn Fn([f64; 3]) -> f64 + Sync>;

/// The kinds of field, each drawn at random from `rng` for an n³ grid (grid units).
const KINDS: [&str; 7] = [
    "noise terrain with overhangs",
    "thin walls",
    "touching blobs",
    "saddles at samples",
    "flat layers on the grid",
    "sharp CSG",
    "white noise",
];

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit() as f64
}

fn point(rng: &mut Rng, n: usize, margin: f64) -> [f64; 3] {
    std::array::from_fn(|_| uniform(rng, margin, n as f64 - 1.0 - margin))
}

fn direction(rng: &mut Rng) -> [f64; 3] {
    loop {
        let d: [f64; 3] = std::array::from_fn(|_| uniform(rng, -1.0, 1.0));
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        if len > 0.2 && len <= 1.0 {
            return d.map(|c| c / len);
        }
    }
}

fn dist(p: [f64; 3], c: [f64; 3]) -> f64 {
    ((p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2) + (p[2] - c[2]).powi(2)).sqrt()
}

/// A random field of kind `kind` on an n³ grid, not yet walled.
fn field(kind: usize, rng: &mut Rng, n: usize) -> Sdf {
    let nf = n as f64;
    match kind {
        0 => {
            // heights of four octaves up to about a wave every two cells, and an overhang term
            let waves: Vec<[f64; 5]> = (0..4)
                .map(|o| {
                    [
                        nf * 0.12 / (1 << o) as f64,
                        0.25 * (1 << o) as f64 * uniform(rng, 0.6, 1.4),
                        uniform(rng, 0.0, 6.3),
                        uniform(rng, 0.0, 6.3),
                        uniform(rng, 0.5, 2.0),
                    ]
                })
                .collect();
            let (base, over, f) = (nf * uniform(rng, 0.3, 0.6), nf * uniform(rng, 0.03, 0.12), uniform(rng, 0.3, 1.2));
            Box::new(move |p| {
                let h: f64 =
                    base + waves.iter().map(|w| w[0] * (w[1] * p[0] + w[2]).sin() * (w[1] * w[4] * p[2] + w[3]).cos()).sum::<f64>();
                (p[1] - h) + over * (f * (p[0] + p[1]) + 0.5).sin() * (f * (p[2] - p[1]) + 1.1).cos()
            })
        }
        1 => {
            // slabs thinner than a cell, at random angles (union)
            let slabs: Vec<([f64; 3], [f64; 3], f64)> =
                (0..3).map(|_| (point(rng, n, 2.0), direction(rng), uniform(rng, 0.05, 0.6))).collect();
            Box::new(move |p| {
                slabs
                    .iter()
                    .map(|(c, d, w)| ((p[0] - c[0]) * d[0] + (p[1] - c[1]) * d[1] + (p[2] - c[2]) * d[2]).abs() - w)
                    .fold(f64::INFINITY, f64::min)
            })
        }
        2 => {
            // spheres each touching one before it (some touching points on grid samples)
            let mut balls = vec![(point(rng, n, nf * 0.3), uniform(rng, 1.0, nf * 0.2))];
            for k in 1..4 {
                let (c, r) = balls[rng.next() as usize % balls.len()];
                let r2 = uniform(rng, 0.6, nf * 0.15);
                let d = direction(rng);
                let mut at: [f64; 3] = std::array::from_fn(|a| c[a] + d[a] * (r + r2));
                if k == 2 {
                    // move both so that they touch exactly at a sample
                    let touch: [f64; 3] = std::array::from_fn(|a| c[a] + d[a] * r);
                    let shift: [f64; 3] = std::array::from_fn(|a| touch[a].round() - touch[a]);
                    at = std::array::from_fn(|a| at[a] + shift[a]);
                    let moved = std::array::from_fn(|a| c[a] + shift[a]);
                    balls.push((moved, r));
                }
                balls.push((at, r2));
            }
            Box::new(move |p| balls.iter().map(|(c, r)| dist(p, *c) - r).fold(f64::INFINITY, f64::min))
        }
        3 => {
            // a double cone or hyperboloid (x² + y² − z² = k, axes permuted) centred on a sample,
            // cut by a sphere
            let c = point(rng, n, nf * 0.3).map(f64::round);
            let k = [0.0, 0.25, -0.25, 0.5][rng.next() as usize % 4];
            let axis = rng.next() as usize % 3;
            let r = nf * uniform(rng, 0.2, 0.3);
            Box::new(move |p| {
                let q: [f64; 3] = std::array::from_fn(|a| p[a] - c[a]);
                let s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - 2.0 * q[axis] * q[axis];
                (s - k).max(dist(p, c) - r)
            })
        }
        4 => {
            // plates and steps whose faces lie on grid samples (value exactly 0 there), with a
            // round hole bored through
            let mut boxes = Vec::new();
            for _ in 0..3 {
                let lo: [f64; 3] = std::array::from_fn(|_| (uniform(rng, 1.0, nf * 0.5)).round());
                let hi: [f64; 3] = std::array::from_fn(|a| (lo[a] + uniform(rng, 1.0, nf * 0.5)).round().min(nf - 2.0));
                boxes.push((lo, hi));
            }
            let (hole, r) = (point(rng, n, 2.0), uniform(rng, 0.5, nf * 0.15));
            Box::new(move |p| {
                let solid = boxes
                    .iter()
                    .map(|(lo, hi)| (0..3).map(|a| (lo[a] - p[a]).max(p[a] - hi[a])).fold(f64::NEG_INFINITY, f64::max))
                    .fold(f64::INFINITY, f64::min);
                let bore = r - ((p[0] - hole[0]).powi(2) + (p[2] - hole[2]).powi(2)).sqrt();
                solid.max(bore)
            })
        }
        5 => {
            // boxes and spheres, unions and differences, corners off the lattice
            let mut parts = Vec::new();
            for k in 0..5 {
                let c = point(rng, n, 2.0);
                let h: [f64; 3] = std::array::from_fn(|_| uniform(rng, 0.7, nf * 0.25));
                let r = uniform(rng, 0.7, nf * 0.25);
                parts.push((k % 2 == 0, k % 3 == 2, c, h, r));
            }
            Box::new(move |p| {
                let mut f = f64::INFINITY;
                for (is_box, cut, c, h, r) in &parts {
                    let g = if *is_box { box_sdf(p, *c, *h) } else { dist(p, *c) - r };
                    f = if *cut { f.max(-g) } else { f.min(g) };
                }
                f
            })
        }
        _ => {
            // independent samples in {−2, −1, 0, 1, 2} (many exactly at iso), trilinear between
            let values: Vec<f64> = (0..n * n * n).map(|_| (rng.next() % 5) as f64 - 2.0).collect();
            Box::new(move |p| trilinear(&values, n, p))
        }
    }
}

fn trilinear(values: &[f64], n: usize, p: [f64; 3]) -> f64 {
    let base: [usize; 3] = std::array::from_fn(|a| (p[a].floor().max(0.0) as usize).min(n - 2));
    let t: [f64; 3] = std::array::from_fn(|a| p[a] - base[a] as f64);
    let mut v = 0.0;
    for c in 0..8 {
        let o = [c & 1, (c >> 1) & 1, (c >> 2) & 1];
        let w: f64 = (0..3).map(|a| if o[a] == 1 { t[a] } else { 1.0 - t[a] }).product();
        v += w * values[base[0] + o[0] + n * (base[1] + o[1] + n * (base[2] + o[2]))];
    }
    v
}

/// Each field kind drawn `per_kind` times at each of `sizes`, walled so its surface is closed.
fn fields(seed: u64, sizes: &[usize], per_kind: usize) -> Vec<(String, usize, Sdf)> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for &n in sizes {
        for (kind, name) in KINDS.iter().enumerate() {
            for k in 0..per_kind {
                let f = field(kind, &mut rng, n);
                out.push((format!("{name} #{k}, {n}³"), n, Box::new(walled(n, f)) as Sdf));
            }
        }
    }
    out
}

/// Adds `t` to the running totals `sum`.
fn add(sum: &mut Topology, t: &Topology) {
    sum.non_manifold_edges += t.non_manifold_edges;
    sum.non_manifold_vertices += t.non_manifold_vertices;
    sum.open_edges += t.open_edges;
    sum.misoriented_edges += t.misoriented_edges;
    sum.degenerate_triangles += t.degenerate_triangles;
}

#[test]
fn every_mesher_gives_closed_two_manifolds_on_random_fields_in_one_pass_or_in_slabs() {
    use dual::{Placement, Vertices};
    let mut per_cell = Topology::default();
    let mut pinched_fields = 0;
    let fields = fields(37, &[12, 20, 33], 3);
    for (name, n, f) in &fields {
        let data = sampled(*n, f);
        let grid = ScalarGrid::new(&data, [*n, *n, *n]);
        let sn = Placement::Mean;
        let dc = Placement::Qef(f);
        for (algo, place) in [("surface nets", &sn), ("dual contouring", &dc)] {
            let one = dual::extract_parallel(&grid, 0.0, place, Vertices::PerPiece, usize::MAX);
            let t = Topology::of(&one.positions, &one.indices);
            assert!(t.is_closed_manifold(), "{algo} on {name}: {t}");
            assert!(one.triangle_count() > 0, "{algo} on {name}: no surface");
            for layers in [1, 3, 7] {
                let slabs = dual::extract_parallel(&grid, 0.0, place, Vertices::PerPiece, layers);
                assert!(slabs == one, "{algo} on {name}: slabs of {layers} layers differ from one pass");
            }
            // one vertex a cell, as before: the check sees the pinches
            let old = dual::extract_parallel(&grid, 0.0, place, Vertices::PerCell, usize::MAX);
            let t = Topology::of(&old.positions, &old.indices);
            if algo == "surface nets" {
                add(&mut per_cell, &t);
                pinched_fields += (t.non_manifold_edges + t.non_manifold_vertices > 0) as usize;
            }
        }
        let m = mc::extract(&grid, 0.0);
        let t = Topology::of(&m.positions, &m.indices);
        assert!(t.is_closed_manifold(), "marching cubes on {name}: {t}");
        for layers in [1, 4] {
            assert_eq!(mc::extract_parallel(&grid, 0.0, layers), m, "marching cubes on {name}: slabs of {layers} layers");
        }
    }
    eprintln!("one vertex a cell (surface nets): {pinched_fields} of {} fields pinched: {per_cell}", fields.len());
    assert!(pinched_fields * 3 > fields.len(), "the fields should make the per-cell meshers pinch ({pinched_fields})");
}

#[test]
fn the_grids_edge_leaves_the_surface_open_there_and_only_there() {
    // an unwalled terrain: open where it meets the grid's sides, manifold everywhere else
    let n = 24;
    let mut rng = Rng(5);
    let f = field(0, &mut rng, n);
    let data = sampled(n, &f);
    let grid = ScalarGrid::new(&data, [n, n, n]);
    for m in [dual::surface_nets(&grid, 0.0), dual::dual_contouring(&grid, 0.0, &f)] {
        let t = Topology::of(&m.positions, &m.indices);
        assert!(t.open_edges > 0, "{t}");
        assert_eq!(Topology { open_edges: 0, ..t }, Topology::default(), "{t}");
    }
}
