//! A golden check split across machines: which scenes a shard checks (`golden check --shard
//! I/N`), and `golden merge`, which puts the shards' reports together into the report one
//! machine's check would have written.

use std::path::PathBuf;

use super::report;
use super::{GoldenError, Paths};
use crate::output::OutputError;
use crate::scene::Scene;

/// The folder of shard `i` of `n`'s report, under the merged report's.
pub(super) fn shard_report_name(i: u32, n: u32) -> String {
    crate::output::manifest::ShardInfo::stem(i, n)
}

/// The scenes shard `i` of `n` checks: whole scenes dealt by estimated cost (the golden frames
/// drawn at the golden size, and the simulation up to the last of them), most expensive first;
/// and what the shard's report records of the deal.
pub fn shard_scenes(scenes: Vec<Scene>, i: u32, n: u32) -> (Vec<Scene>, report::ReportShard) {
    let costs: Vec<f64> = scenes
        .iter()
        .map(|s| {
            let Some(spec) = &s.golden else { return 0.0 };
            let (draw, simulate) = s.costs(spec.size.0, spec.size.1);
            let last = spec.frames.iter().max().map_or(0, |&f| f + 1);
            spec.frames.len() as f64 * draw + last as f64 * simulate
        })
        .collect();
    let mine = crate::split::whole(&costs, n).swap_remove(i as usize - 1);
    let all = scenes.iter().map(|s| (s.name.clone(), s.identity().to_string())).collect();
    let mine: Vec<Scene> = scenes.into_iter().enumerate().filter(|(k, _)| mine.contains(k)).map(|(_, s)| s).collect();
    let info = report::ReportShard {
        index: i,
        count: n,
        simreel: crate::BUILD.to_string(),
        scenes: all,
        checked: mine.iter().map(|s| s.name.clone()).collect(),
    };
    (mine, info)
}

/// Checks that the shards' reports are of one split check: each where its folder says, one
/// version and list of scenes, every scene checked by exactly one shard.
fn one_check(parts: &[(PathBuf, report::Report)], n: u32) -> Result<(), GoldenError> {
    let bad = |what: String| Err(GoldenError::Shards(what));
    let mut by: std::collections::BTreeMap<&str, u32> = std::collections::BTreeMap::new();
    let mut first: Option<&report::ReportShard> = None;
    for (k, (dir, part)) in parts.iter().enumerate() {
        let i = k as u32 + 1;
        let Some(s) = &part.shard else { return bad(format!("{}: not a shard's report", dir.display())) };
        if (s.index, s.count) != (i, n) {
            return bad(format!("{}: the report says it is shard {}/{}", dir.display(), s.index, s.count));
        }
        let f = *first.get_or_insert(s);
        if (&s.simreel, &s.scenes) != (&f.simreel, &f.scenes) {
            return bad(format!(
                "shard {i}/{n} checked {} with simreel {}, shard 1/{n} {} with simreel {}: the reports are of different checks; rerun the stale shard",
                names(&s.scenes),
                s.simreel,
                names(&f.scenes),
                f.simreel
            ));
        }
        for scene in &s.checked {
            if let Some(other) = by.insert(scene, i) {
                return bad(format!("{scene} was checked by shards {other}/{n} and {i}/{n}"));
            }
        }
    }
    if let Some((scene, _)) = first.and_then(|f| f.scenes.iter().find(|(name, _)| !by.contains_key(name.as_str()))) {
        return bad(format!("no shard checked {scene}"));
    }
    Ok(())
}

fn names(scenes: &[(String, String)]) -> String {
    scenes.iter().map(|(name, hash)| format!("{name} ({hash})")).collect::<Vec<_>>().join(", ")
}

/// Puts the reports of a split check's shards (`golden check --shard I/N`, in
/// `out/golden-report/shard-I-of-N/`) together into `out/golden-report/`: the `summary.json`,
/// `junit.xml` and `report.html` one machine's check of every scene would have written, and the
/// failing frames' images. `count` opens the shards by name; otherwise the folder is listed.
pub fn merge_reports(paths: &Paths, count: Option<u32>) -> Result<(u32, report::Report), GoldenError> {
    let base = paths.merged_report_dir();
    let n = match count {
        Some(n) => n,
        None => {
            let mut counts: Vec<u32> = std::fs::read_dir(&base)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| match crate::output::manifest::ShardInfo::parse_stem(&e.file_name().to_string_lossy()) {
                    Some((_, n, "")) => Some(n),
                    _ => None,
                })
                .collect();
            counts.sort_unstable();
            counts.dedup();
            match counts.as_slice() {
                [n] => *n,
                [] => {
                    return Err(GoldenError::Shards(format!(
                        "{} holds no shard reports (shard-I-of-N): run `simreel golden check --shard I/N --out {}` first",
                        base.display(),
                        paths.out.display()
                    )));
                }
                _ => {
                    return Err(GoldenError::Shards(format!(
                        "{} holds reports of different splits ({}): remove the stale ones, or give --shards N",
                        base.display(),
                        counts.iter().map(|n| format!("of {n}")).collect::<Vec<_>>().join(", ")
                    )));
                }
            }
        }
    };
    let mut parts = Vec::new();
    for i in 1..=n {
        let dir = base.join(shard_report_name(i, n));
        let file = dir.join("report.json");
        let text = crate::output::read_plain(&file).map_err(|_| {
            GoldenError::Shards(format!(
                "the report of shard {i}/{n} is missing ({}): run `simreel golden check … --shard {i}/{n}`",
                file.display()
            ))
        })?;
        let part: report::Report = serde_json::from_slice(&text)
            .map_err(|e| GoldenError::Shards(format!("{}: not a report simreel can read ({e})", file.display())))?;
        parts.push((dir, part));
    }
    one_check(&parts, n)?;
    // the merged folder's own files are replaced; the shards' folders stay. Every file is read
    // and written relative to its folder's handle: the folders may be shared with other users.
    let read_err = |dir: &std::path::Path| {
        let path = dir.to_path_buf();
        move |source: std::io::Error| OutputError::Read { path, source }
    };
    let merged_folder = crate::output::folder(&base)?;
    for name in merged_folder.names().map_err(read_err(&base))? {
        if merged_folder.kind(&name).is_ok_and(|k| k != simreel_compare::fs::Kind::Folder) {
            merged_folder.remove(&name).map_err(|source| OutputError::Remove { path: base.join(&name), source })?;
        }
    }
    for (dir, part) in &parts {
        let shard = simreel_compare::fs::Folder::open(dir).map_err(read_err(dir))?;
        let names = shard.names().map_err(read_err(dir))?;
        for r in part.records.iter().filter(|r| !r.passed) {
            let stem = format!("{}__", r.subject.stem());
            for name in names.iter().filter(|n| n.to_string_lossy().starts_with(&stem)) {
                // a shard's folder is read back: only its own plain files, never a link elsewhere
                let Ok(bytes) = shard.read(name) else { continue };
                merged_folder.write(name, &bytes, false).map_err(|source| OutputError::Write { path: base.join(name), source })?;
            }
        }
    }
    let merged = report::Report::merged(parts.into_iter().map(|(_, p)| p).collect());
    merged.write_files(&base)?;
    Ok((n, merged))
}
