//! What a mesh is, as the tools downstream of a mesher (convex decomposition, slicers, mesh
//! booleans) see it: every edge shared by exactly two triangles, once each way (closed,
//! consistently wound), every vertex's triangles one fan, no triangle without area. `Topology`
//! counts what breaks each rule; a closed 2-manifold has all counts zero.

/// Counts of what keeps a triangle mesh from being a closed, oriented 2-manifold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Topology {
    /// Edges (vertex pairs) with more than two triangles.
    pub non_manifold_edges: usize,
    /// Vertices whose triangles form more than one fan (two sheets touching at a point).
    pub non_manifold_vertices: usize,
    /// Edges with one triangle (holes).
    pub open_edges: usize,
    /// Edges with two triangles that run it the same way (one of them is turned inside out).
    pub misoriented_edges: usize,
    /// Triangles with a repeated vertex or no area.
    pub degenerate_triangles: usize,
}

impl Topology {
    /// The counts for triangles `indices` over `positions`.
    pub fn of(positions: &[[f32; 3]], indices: &[u32]) -> Topology {
        let mut t = Topology::default();
        let tris: Vec<[u32; 3]> = indices.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        t.degenerate_triangles = tris.iter().filter(|tri| degenerate(positions, **tri)).count();
        // every edge as (low, high, runs low → high), sorted so an edge's uses sit together
        let mut edges: Vec<(u32, u32, bool)> = tris
            .iter()
            .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
            .filter(|(a, b)| a != b)
            .map(|(a, b)| (a.min(b), a.max(b), a < b))
            .collect();
        edges.sort_unstable();
        for group in edges.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            match group.len() {
                1 => t.open_edges += 1,
                2 if group[0].2 == group[1].2 => t.misoriented_edges += 1,
                2 => {}
                _ => t.non_manifold_edges += 1,
            }
        }
        t.non_manifold_vertices = fans_over_one(positions.len(), &tris);
        t
    }

    /// Whether the mesh is a closed, consistently wound 2-manifold without degenerate triangles.
    pub fn is_closed_manifold(&self) -> bool {
        *self == Topology::default()
    }
}

impl std::fmt::Display for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_closed_manifold() {
            return write!(f, "closed 2-manifold");
        }
        let parts = [
            (self.non_manifold_edges, "non-manifold edge", "non-manifold edges"),
            (self.non_manifold_vertices, "non-manifold vertex", "non-manifold vertices"),
            (self.open_edges, "open edge", "open edges"),
            (self.misoriented_edges, "misoriented edge", "misoriented edges"),
            (self.degenerate_triangles, "degenerate triangle", "degenerate triangles"),
        ];
        let said: Vec<String> =
            parts.iter().filter(|(n, ..)| *n > 0).map(|&(n, one, many)| format!("{n} {}", if n == 1 { one } else { many })).collect();
        write!(f, "{}", said.join(", "))
    }
}

/// A repeated vertex, or a cross product of exactly zero (in f64, from the f32 positions).
fn degenerate(positions: &[[f32; 3]], [a, b, c]: [u32; 3]) -> bool {
    if a == b || b == c || a == c {
        return true;
    }
    let [p, q, r] = [a, b, c].map(|i| positions[i as usize].map(f64::from));
    let (u, v) = ([q[0] - p[0], q[1] - p[1], q[2] - p[2]], [r[0] - p[0], r[1] - p[1], r[2] - p[2]]);
    let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    n == [0.0; 3]
}

/// How many vertices have triangles in more than one fan: around vertex v, two triangles are in
/// one fan when they share an edge through v; v's link (the far edges of its triangles) must be
/// one connected path or cycle.
fn fans_over_one(vertices: usize, tris: &[[u32; 3]]) -> usize {
    // the triangles of each vertex, as a compressed list
    let mut start = vec![0u32; vertices + 1];
    for t in tris {
        for &v in t {
            start[v as usize + 1] += 1;
        }
    }
    for v in 0..vertices {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut of = vec![0u32; start[vertices] as usize];
    for (k, t) in tris.iter().enumerate() {
        for &v in t {
            of[fill[v as usize] as usize] = k as u32;
            fill[v as usize] += 1;
        }
    }
    let mut link: Vec<(u32, u32)> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    let mut names: Vec<u32> = Vec::new();
    let mut count = 0;
    for v in 0..vertices {
        let around = &of[start[v] as usize..start[v + 1] as usize];
        if around.len() < 2 {
            continue;
        }
        link.clear();
        for &k in around {
            let t = tris[k as usize];
            let i = t.iter().position(|&w| w == v as u32).expect("listed under its own vertex");
            link.push((t[(i + 1) % 3], t[(i + 2) % 3]));
        }
        // the link's vertices, numbered locally, joined by its edges
        names.clear();
        names.extend(link.iter().flat_map(|&(a, b)| [a, b]));
        names.sort_unstable();
        names.dedup();
        parent.clear();
        parent.extend(0..names.len() as u32);
        let local = |w: u32| names.binary_search(&w).expect("a link vertex") as u32;
        let mut pieces = names.len();
        for &(a, b) in &link {
            let (ra, rb) = (root(&mut parent, local(a)), root(&mut parent, local(b)));
            if ra != rb {
                parent[ra.max(rb) as usize] = ra.min(rb);
                pieces -= 1;
            }
        }
        count += (pieces > 1) as usize;
    }
    count
}

fn root(parent: &mut [u32], mut a: u32) -> u32 {
    while parent[a as usize] != a {
        parent[a as usize] = parent[parent[a as usize] as usize];
        a = parent[a as usize];
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tetrahedron, wound outwards.
    fn tetrahedron() -> (Vec<[f32; 3]>, Vec<u32>) {
        let p = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        (p, vec![0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
    }

    #[test]
    fn a_tetrahedron_is_a_closed_manifold_and_each_flaw_is_counted() {
        let (p, i) = tetrahedron();
        assert!(Topology::of(&p, &i).is_closed_manifold(), "{}", Topology::of(&p, &i));
        // one face removed: three open edges
        assert_eq!(Topology::of(&p, &i[3..]).open_edges, 3);
        // one face turned round: its three edges are run twice the same way
        let mut flipped = i.clone();
        flipped.swap(0, 1);
        assert_eq!(Topology::of(&p, &flipped).misoriented_edges, 3);
        // a zero-area triangle
        let mut q = p.clone();
        q.push([2.0, 0.0, 0.0]);
        let mut j = i.clone();
        j.extend([0, 1, 4]);
        assert_eq!(Topology::of(&q, &j).degenerate_triangles, 1);
        // two tetrahedra sharing one vertex: a vertex with two fans
        let mut q = p.clone();
        q.extend([[-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]]);
        let mut j = i.clone();
        j.extend([0, 4, 5, 0, 6, 4, 0, 5, 6, 4, 6, 5]);
        let t = Topology::of(&q, &j);
        assert_eq!((t.non_manifold_vertices, t.non_manifold_edges, t.open_edges), (1, 0, 0), "{t}");
        // two tetrahedra sharing one edge: an edge of four triangles
        let mut q = p.clone();
        q.extend([[0.5, -1.0, 0.0], [0.5, -0.5, -1.0]]);
        let mut j = i.clone();
        j.extend([0, 1, 4, 0, 4, 5, 1, 5, 4, 0, 5, 1]);
        let t = Topology::of(&q, &j);
        assert_eq!(t.non_manifold_edges, 1, "{t}");
        assert!(t.to_string().starts_with("1 non-manifold edge"), "{t}");
        assert_eq!(
            Topology { open_edges: 3, degenerate_triangles: 1, ..Topology::default() }.to_string(),
            "3 open edges, 1 degenerate triangle"
        );
    }
}
