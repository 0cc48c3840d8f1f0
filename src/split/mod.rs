//! Splitting work across shards (machines) by estimated cost: the frames of many scenes laid end
//! to end and cut into N even shares (`render --shard I/N`), or whole scenes dealt out
//! (`golden check --shard I/N`). Every shard computes the same split from the same arguments, so
//! the machines never talk to each other.

use std::ops::Range;

use crate::output::manifest::{Block, ShardInfo};
use crate::pipeline::Job;

/// The part of one scene's selected frames a shard takes: positions in that selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub scene: usize,
    pub positions: Range<usize>,
}

/// Lays the scenes' selected frames end to end (scene `k` has `work[k].0` frames costing
/// `work[k].1` each) and cuts the line into `n` shares of even cost. A cut that falls within a
/// tenth of a share of a scene's edge moves to that edge, so a small scene stays whole on one
/// machine (it would pay the device start and the simulation's replay twice); otherwise it cuts
/// the scene between frames. Returns each shard's parts in scene order (a shard may have none).
pub fn by_cost(work: &[(usize, f64)], n: u32) -> Vec<Vec<Part>> {
    let n = n.max(1) as usize;
    // scene k's frames start at global frame starts[k] and cost-position edges[k]
    let mut edges = vec![0.0];
    let mut starts = vec![0usize];
    for &(frames, cost) in work {
        edges.push(edges.last().unwrap() + frames as f64 * cost.max(1e-12));
        starts.push(starts.last().unwrap() + frames);
    }
    let total = *edges.last().unwrap();
    let share = total / n as f64;
    // the global frame each cut falls before
    let mut cuts = vec![0usize];
    for i in 1..n {
        let at = share * i as f64;
        let nearest = (0..edges.len()).min_by(|&a, &b| (edges[a] - at).abs().total_cmp(&(edges[b] - at).abs())).unwrap_or(0);
        let cut = if (edges[nearest] - at).abs() <= 0.1 * share {
            starts[nearest]
        } else {
            // inside scene k: between whole frames, rounded to the nearest
            let k = edges.partition_point(|&e| e <= at).saturating_sub(1).min(work.len().saturating_sub(1));
            let (frames, cost) = work[k];
            let within = ((at - edges[k]) / cost.max(1e-12) + 0.5).floor() as usize;
            starts[k] + within.min(frames)
        };
        cuts.push(cut.max(*cuts.last().unwrap()));
    }
    cuts.push(*starts.last().unwrap());
    (0..n)
        .map(|i| {
            let (from, to) = (cuts[i], cuts[i + 1]);
            (0..work.len())
                .filter_map(|k| {
                    let (a, b) = (from.max(starts[k]), to.min(starts[k + 1]));
                    (a < b).then(|| Part { scene: k, positions: a - starts[k]..b - starts[k] })
                })
                .collect()
        })
        .collect()
}

/// Deals whole scenes (costs `costs[k]`) to `n` shards, most expensive first, each to the shard
/// with the least so far (ties to the lowest shard). Returns each shard's scenes in scene order.
pub fn whole(costs: &[f64], n: u32) -> Vec<Vec<usize>> {
    let n = n.max(1) as usize;
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; n];
    let mut shards = vec![Vec::new(); n];
    for k in order {
        let i = (0..n).min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b))).expect("a shard");
        load[i] += costs[k];
        shards[i].push(k);
    }
    for s in &mut shards {
        s.sort_unstable();
    }
    shards
}

/// Shard `i` of `n`'s share of `jobs`: the frames of every scene laid end to end and cut by
/// estimated cost ([`by_cost`]); every shard of a split render gets the same
/// arguments, so they agree on the whole. Scenes this shard takes no frames of are left out, and
/// a manifest this shard left in one of them in an earlier split is removed.
pub fn shard_jobs(jobs: Vec<Job>, i: u32, n: u32) -> Result<Vec<Job>, crate::output::OutputError> {
    let work: Vec<(usize, f64)> = jobs.iter().map(|j| (j.frames.len(), j.scene.frame_cost())).collect();
    let split = by_cost(&work, n);
    let blocks_of = |k: usize| -> Vec<Block> {
        (1..=n)
            .flat_map(|shard| {
                split[shard as usize - 1].iter().filter(|p| p.scene == k).map(move |p| Block {
                    shard,
                    from: p.positions.start as u32,
                    to: p.positions.end as u32,
                })
            })
            .collect()
    };
    let mut mine = Vec::new();
    for (k, mut job) in jobs.into_iter().enumerate() {
        let info = ShardInfo { index: i, count: n, selection: std::mem::take(&mut job.frames), blocks: blocks_of(k) };
        job.frames = info.frames_of(i).to_vec();
        if job.frames.is_empty() {
            // an earlier split's manifest of this shard would look like a part of this one
            crate::output::remove_stale(&crate::output::layout::SceneFolder::of(&job.out_dir, &job.scene).shard_manifest(i, n))?;
            continue;
        }
        job.shard = Some(info);
        mine.push(job);
    }
    Ok(mine)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost_of(work: &[(usize, f64)], parts: &[Part]) -> f64 {
        parts.iter().map(|p| p.positions.len() as f64 * work[p.scene].1).sum()
    }

    #[test]
    fn one_scene_is_cut_into_even_contiguous_blocks() {
        let split = by_cost(&[(30, 0.2)], 3);
        let blocks: Vec<Range<usize>> = split.iter().map(|s| s[0].positions.clone()).collect();
        assert_eq!(blocks, [0..10, 10..20, 20..30]);
        let split = by_cost(&[(10, 1.0)], 4);
        let lens: Vec<usize> = split.iter().map(|s| s.iter().map(|p| p.positions.len()).sum()).collect();
        assert_eq!(lens.iter().sum::<usize>(), 10);
        assert!(lens.iter().all(|&l| (2..=3).contains(&l)), "{lens:?}");
        // more shards than frames: some shards are empty, every frame is taken once
        let split = by_cost(&[(3, 1.0)], 5);
        assert_eq!(split.iter().map(|s| s.iter().map(|p| p.positions.len()).sum::<usize>()).sum::<usize>(), 3);
        assert_eq!(split.iter().filter(|s| s.is_empty()).count(), 2);
    }

    #[test]
    fn many_scenes_are_balanced_by_cost_and_small_ones_stay_whole() {
        // a long expensive scene, a cheap one and six small ones
        let work = [(240, 0.3), (390, 0.01), (20, 0.5), (30, 0.5), (25, 0.5), (30, 0.5), (10, 0.5), (40, 0.4)];
        let total: f64 = work.iter().map(|(f, c)| *f as f64 * c).sum();
        for n in [2u32, 3, 4, 8] {
            let split = by_cost(&work, n);
            assert_eq!(split.len(), n as usize);
            // every frame of every scene exactly once, in order
            for (k, &(frames, _)) in work.iter().enumerate() {
                let mut ranges: Vec<Range<usize>> = split.iter().flatten().filter(|p| p.scene == k).map(|p| p.positions.clone()).collect();
                ranges.sort_by_key(|r| r.start);
                assert_eq!(ranges.first().unwrap().start, 0);
                assert_eq!(ranges.last().unwrap().end, frames);
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start), "scene {k}: {ranges:?}");
            }
            // no shard is far from its share: a cut moves by at most a tenth of a share, or
            // rounds to a frame (0.5 s here)
            let share = total / n as f64;
            for s in &split {
                let c = cost_of(&work, s);
                assert!((c - share).abs() <= 0.2 * share + 0.5, "n {n}: {c} against {share}");
            }
            // fewer scenes are cut than there are cuts
            let cut = (0..work.len()).filter(|&k| split.iter().filter(|s| s.iter().any(|p| p.scene == k)).count() > 1).count();
            assert!(cut < n as usize, "n {n}: {cut} scenes cut");
        }
        // a cut within a tenth of a share of a scene edge moves to it: 2 shards of 51 each; the
        // edge at 54 is 3 away, under a tenth of 51; one at 60 is not
        let split = by_cost(&[(54, 1.0), (46, 1.0), (2, 1.0)], 2);
        assert_eq!(split[0], [Part { scene: 0, positions: 0..54 }]);
        let split = by_cost(&[(60, 1.0), (40, 1.0), (2, 1.0)], 2);
        assert_eq!(split[0], [Part { scene: 0, positions: 0..51 }]);
    }

    #[test]
    fn no_work_and_empty_scenes_give_empty_shares() {
        assert_eq!(by_cost(&[], 3), vec![Vec::<Part>::new(); 3]);
        let split = by_cost(&[(0, 1.0), (4, 1.0), (0, 2.0)], 2);
        assert_eq!(split, [vec![Part { scene: 1, positions: 0..2 }], vec![Part { scene: 1, positions: 2..4 }]]);
        assert_eq!(whole(&[], 2), [Vec::<usize>::new(), Vec::new()]);
    }

    #[test]
    fn whole_scenes_go_to_the_least_loaded_shard_biggest_first() {
        let shards = whole(&[1.0, 8.0, 3.0, 3.0, 2.0, 1.0], 3);
        assert_eq!(shards, [vec![1], vec![2, 4], vec![0, 3, 5]]);
        let loads: Vec<f64> = shards.iter().map(|s| s.iter().map(|&k| [1.0, 8.0, 3.0, 3.0, 2.0, 1.0][k]).sum()).collect();
        assert_eq!(loads, [8.0, 5.0, 5.0]);
        // more shards than scenes: the rest are empty
        assert_eq!(whole(&[1.0, 2.0], 4), [vec![1], vec![0], vec![], vec![]]);
    }
}
