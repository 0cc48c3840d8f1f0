//! How much memory this process may still take: the least of what the system has free
//! (`MemAvailable`), what the process's address-space limit leaves (`ulimit -v`, RLIMIT_AS, less
//! what it maps already) and what its control group's limit leaves (cgroup v2 `memory.max` of its
//! group and every group above it, or v1 `memory.limit_in_bytes`, less what the group uses) — the
//! last is what a CI container or a Slurm job has. Scenes are refused up front by it
//! ([`super::Scene::check_memory`]), naming the limit that decided.

use std::path::Path;

/// Address space the renderer maps without using it (a software adapter's threads and code):
/// counted against `ulimit -v`, not against memory. Measured on lavapipe: a render's peak mapped
/// memory stood about 1.1 GB above its peak resident memory.
const RENDERER_MAPPED: u64 = 1_200 << 20;

/// Memory this process may still take, and which limit says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Available {
    pub bytes: u64,
    /// The limit that decided, in words ("free memory (MemAvailable)", …).
    pub by: String,
}

/// What this machine and this process's limits leave (8 GiB where the system says nothing).
pub fn available_memory() -> Available {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let mut limits = Vec::new();
    if let Some(kb) = read("/proc/meminfo").and_then(|s| field_kb(&s, "MemAvailable:")) {
        limits.push(Available { bytes: kb * 1024, by: "the memory this machine has free (MemAvailable)".into() });
    }
    if let (Some(limit), Some(mapped)) =
        (read("/proc/self/limits").and_then(|s| address_space_limit(&s)), read("/proc/self/status").and_then(|s| field_kb(&s, "VmSize:")))
    {
        let by = format!("what this process's address-space limit (ulimit -v, {}) leaves", super::error::human_bytes(limit));
        limits.push(Available { bytes: limit.saturating_sub(mapped * 1024 + RENDERER_MAPPED), by });
    }
    if let Some(c) = read("/proc/self/cgroup").and_then(|s| cgroup_room(&s, Path::new("/sys/fs/cgroup"))) {
        limits.push(c);
    }
    limits.into_iter().min_by_key(|a| a.bytes).unwrap_or(Available { bytes: 8 << 30, by: "a guess (the system does not say)".into() })
}

/// A `Name:   1234 kB` line's number.
fn field_kb(text: &str, name: &str) -> Option<u64> {
    text.lines().find(|l| l.starts_with(name))?.split_whitespace().nth(1)?.parse().ok()
}

/// The soft limit of `Max address space` in /proc/self/limits, bytes; none when unlimited.
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

/// What the control groups of this process (as /proc/self/cgroup names them, under `root`) leave:
/// the least of each limit less its usage, from the process's group up to the root.
fn cgroup_room(cgroups: &str, root: &Path) -> Option<Available> {
    let number = |p: &Path| std::fs::read_to_string(p).ok().and_then(|s| s.trim().parse::<u64>().ok());
    let mut best: Option<Available> = None;
    let mut consider = |limit: Option<u64>, used: Option<u64>, file: &Path| {
        // v1 writes "no limit" as a number near 2^63
        let Some(limit) = limit.filter(|&l| l < 1 << 60) else { return };
        let bytes = limit.saturating_sub(used.unwrap_or(0));
        if best.as_ref().is_none_or(|b| bytes < b.bytes) {
            let by = format!("what the control group's limit ({}, {}) leaves", file.display(), super::error::human_bytes(limit));
            best = Some(Available { bytes, by });
        }
    };
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = path.trim_start_matches('/');
        if controllers.is_empty() {
            // v2: the group and every group above it
            let mut dir = root.join(rel);
            loop {
                let max = dir.join("memory.max");
                consider(number(&max), number(&dir.join("memory.current")), &max);
                if dir == root || !dir.pop() || !dir.starts_with(root) {
                    break;
                }
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let dir = root.join("memory").join(rel);
            let limit = dir.join("memory.limit_in_bytes");
            consider(number(&limit), number(&dir.join("memory.usage_in_bytes")), &limit);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_space_limit_is_read_unless_unlimited() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max address space         8589934592           unlimited            bytes\n";
        assert_eq!(address_space_limit(limits), Some(8 << 30));
        assert_eq!(address_space_limit(&limits.replace("8589934592", "unlimited ")), None);
    }

    #[test]
    fn the_tightest_control_group_up_the_tree_decides() {
        let root = std::env::temp_dir().join(format!("simreel-cgroup-{}", std::process::id()));
        let job = root.join("slurm/job_7");
        std::fs::create_dir_all(&job).unwrap();
        std::fs::write(root.join("slurm/memory.max"), "4294967296\n").unwrap();
        std::fs::write(root.join("slurm/memory.current"), "1073741824\n").unwrap();
        std::fs::write(job.join("memory.max"), "max\n").unwrap();
        let room = cgroup_room("0::/slurm/job_7\n", &root).unwrap();
        assert_eq!(room.bytes, 3 << 30);
        assert!(room.by.contains("slurm/memory.max"), "{}", room.by);
        std::fs::write(job.join("memory.max"), "1073741824\n").unwrap();
        std::fs::write(job.join("memory.current"), "536870912\n").unwrap();
        assert_eq!(cgroup_room("0::/slurm/job_7\n", &root).unwrap().bytes, 512 << 20);
        assert!(cgroup_room("0::/elsewhere\n", &root).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
