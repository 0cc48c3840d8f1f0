//! The node graph agents work on: listed in the scene, or spread over the canvas with Mitchell's
//! best-candidate sampling (even, never grid-like) and linked to their nearest neighbours.

use crate::portable;
use crate::sim::rng::Rng;

/// Candidates tried per node: more gives a more even spread.
const CANDIDATES: usize = 12;

/// `count` nodes inside the canvas, keeping a margin of 8 % from its edges.
pub fn spread_nodes(count: usize, canvas: [f32; 2], rng: &mut Rng) -> Vec<[f32; 2]> {
    let margin = [canvas[0] * 0.08, canvas[1] * 0.08];
    let mut nodes: Vec<[f32; 2]> = Vec::with_capacity(count);
    for _ in 0..count {
        let mut best = [0.0; 2];
        let mut best_d = -1.0f32;
        for _ in 0..CANDIDATES {
            let c = [
                margin[0] + (canvas[0] - 2.0 * margin[0]) * rng.unit() as f32,
                margin[1] + (canvas[1] - 2.0 * margin[1]) * rng.unit() as f32,
            ];
            let d = nodes.iter().map(|n| portable::powi(n[0] - c[0], 2) + portable::powi(n[1] - c[1], 2)).fold(f32::INFINITY, f32::min);
            if d > best_d {
                best_d = d;
                best = c;
            }
        }
        nodes.push(best);
    }
    nodes
}

/// Each node linked to its `k` nearest others; pairs deduplicated and sorted.
pub fn nearest_edges(nodes: &[[f32; 2]], k: usize) -> Vec<[u32; 2]> {
    let mut edges = Vec::new();
    for (i, a) in nodes.iter().enumerate() {
        let mut others: Vec<(f32, usize)> = nodes
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .map(|(j, b)| (portable::powi(a[0] - b[0], 2) + portable::powi(a[1] - b[1], 2), j))
            .collect();
        others.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        for &(_, j) in others.iter().take(k) {
            edges.push([i.min(j) as u32, i.max(j) as u32]);
        }
    }
    edges.sort_unstable();
    edges.dedup();
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_spread_and_linked() {
        let nodes = spread_nodes(20, [800.0, 600.0], &mut Rng::new(5));
        assert_eq!(nodes.len(), 20);
        for n in &nodes {
            assert!(n[0] >= 64.0 && n[0] <= 736.0 && n[1] >= 48.0 && n[1] <= 552.0);
        }
        let mut closest = f32::INFINITY;
        for (i, a) in nodes.iter().enumerate() {
            for b in &nodes[i + 1..] {
                closest = closest.min((portable::powi(a[0] - b[0], 2) + portable::powi(a[1] - b[1], 2)).sqrt());
            }
        }
        assert!(closest > 40.0, "best-candidate sampling keeps nodes apart ({closest})");
        let edges = nearest_edges(&nodes, 2);
        assert!(edges.len() >= 20 && edges.len() <= 40);
        let mut degree = [0; 20];
        for e in &edges {
            assert!(e[0] < e[1]);
            degree[e[0] as usize] += 1;
            degree[e[1] as usize] += 1;
        }
        assert!(degree.iter().all(|&d| d >= 2));
        assert_eq!(nodes, spread_nodes(20, [800.0, 600.0], &mut Rng::new(5)));
    }
}
