//! `simreel plan`: what to hand a scheduler so that N machines render a split render's shards
//! and one merges them. For Slurm, a shell script that submits a job array of N tasks (each
//! `simreel render … --shard auto`) and a merge job that starts when every task succeeded
//! (`--dependency=afterok`). For Kubernetes, an Indexed Job (`completionMode: Indexed`) and a
//! merge Job that waits for the shards (`simreel merge --wait`), sharing a volume for the output.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::text::count;

/// The render options passed on to every shard, as `render` takes them.
#[derive(Clone, Debug, Default)]
pub struct RenderOptions {
    pub out: PathBuf,
    pub size: Option<(u32, u32)>,
    pub frames: Option<String>,
    pub format: Option<String>,
    pub backend: Option<String>,
    pub adapter: Option<String>,
}

impl RenderOptions {
    /// The options as arguments, `--out` left to the caller. Each is one `--key=value` word, so
    /// a value that starts with `-` (`--frames=-5..`) is never read as an option.
    fn args(&self) -> Vec<String> {
        let mut a = Vec::new();
        let mut put = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                a.push(format!("{k}={v}"));
            }
        };
        put("--size", self.size.map(|(w, h)| format!("{w}x{h}")));
        put("--frames", self.frames.clone());
        put("--format", self.format.clone());
        put("--backend", self.backend.clone());
        put("--adapter", self.adapter.clone());
        a
    }
}

#[derive(Clone, Debug, Default)]
pub struct Slurm {
    pub partition: Option<String>,
    /// Wall-clock limit per task, as sbatch takes it (`2:00:00`).
    pub time: Option<String>,
    pub cpus: Option<u32>,
    pub gpus: Option<u32>,
    /// Memory per task, as sbatch takes it (`8G`).
    pub memory: Option<String>,
}

/// The image `scripts/build-image` builds from the repository's `Containerfile`, tagged with
/// this version: what the Kubernetes plan runs unless `--image` names another.
pub const IMAGE: &str = concat!("simreel:", env!("CARGO_PKG_VERSION"));

#[derive(Clone, Debug)]
pub struct Kubernetes {
    pub image: String,
    /// The PersistentVolumeClaim the shards write into and the merge reads, and where it is
    /// mounted in the containers (the render's `--out` there).
    pub claim: String,
    pub mount: String,
    /// The folder the scene paths are relative to, inside the image.
    pub workdir: Option<String>,
    pub parallelism: Option<u32>,
    pub cpu: Option<String>,
    pub memory: Option<String>,
    pub gpus: Option<u32>,
}

/// A word for a POSIX shell, single-quoted where it needs to be.
pub use simreel_compare::text::sh;

/// A command line inside `--wrap="…"`: its words quoted for the shell that runs it, then the
/// whole escaped for the double quotes it sits in.
fn wrapped(words: &[String]) -> String {
    let line = words.iter().map(|w| sh(w)).collect::<Vec<_>>().join(" ");
    line.replace('\\', r"\\").replace('"', "\\\"").replace('$', r"\$").replace('`', "\\`")
}

fn scene_args(scenes: &[PathBuf]) -> Vec<String> {
    scenes.iter().map(|s| s.display().to_string()).collect()
}

/// A shard's command (`render … --shard auto`) and the merge's, with `out` as the output folder.
fn commands(binary: &str, scenes: &[PathBuf], out: &str, shards: u32, render: &RenderOptions) -> (Vec<String>, Vec<String>) {
    let mut task = vec![binary.to_string(), "render".into()];
    task.extend(scene_args(scenes));
    // --resume: a shard the scheduler retries keeps the frames its killed run finished
    task.extend(["--out".into(), out.to_string(), "--shard".into(), "auto".into(), "--resume".into()]);
    task.extend(render.args());
    let mut merge = vec![binary.to_string(), "merge".into(), out.to_string()];
    merge.extend(scene_args(scenes));
    if let Some(f) = &render.format {
        merge.extend(["--format".into(), f.clone()]);
    }
    // the merge opens shard-i-of-N.json by name (a shared filesystem may list a folder late)
    merge.extend(["--shards".into(), shards.to_string()]);
    (task, merge)
}

/// The Slurm plan: a bash script to run on the login node, from `cwd`.
pub fn slurm(binary: &str, scenes: &[PathBuf], shards: u32, render: &RenderOptions, s: &Slurm, cwd: &Path) -> String {
    let out = render.out.display().to_string();
    let (task, merge) = commands(binary, scenes, &out, shards, render);
    let mut common = String::new();
    if let Some(p) = &s.partition {
        let _ = write!(common, " --partition={}", sh(p));
    }
    if let Some(t) = &s.time {
        let _ = write!(common, " --time={}", sh(t));
    }
    let mut per_task = common.clone();
    if let Some(c) = s.cpus {
        let _ = write!(per_task, " --cpus-per-task={c}");
    }
    if let Some(g) = s.gpus {
        // each array task is a job of one task: its GPUs are the job's
        let _ = write!(per_task, " --gpus={g}");
    }
    if let Some(m) = &s.memory {
        let _ = write!(per_task, " --mem={}", sh(m));
    }
    let names = scenes.iter().filter_map(|s| s.file_stem()).map(|s| s.to_string_lossy()).collect::<Vec<_>>().join(", ");
    let mut o = String::new();
    let _ = writeln!(o, "#!/usr/bin/env bash");
    let _ = writeln!(
        o,
        "# Written by `simreel plan --slurm`: {names} in {} as a Slurm job array, then one job",
        count(shards.into(), "shard", "shards")
    );
    let _ = writeln!(o, "# that merges them once every shard succeeded. Run it where sbatch works: bash <this file>.");
    let _ = writeln!(o, "set -euo pipefail");
    let _ = writeln!(o, "cd {}", sh(&cwd.display().to_string()));
    let _ = writeln!(o, "mkdir -p {}", sh(&out));
    let _ = writeln!(
        o,
        "render=$(sbatch --parsable --job-name=simreel-render --array=1-{shards}{per_task} --export=ALL,SIMREEL_SHARDS={shards} --output={} --wrap=\"exec {}\")",
        sh(&format!("{out}/slurm-render-%A_%a.log")),
        wrapped(&task)
    );
    let _ = writeln!(o, "render=${{render%%;*}}");
    let _ = writeln!(
        o,
        "merge=$(sbatch --parsable --job-name=simreel-merge --dependency=afterok:\"$render\"{common} --output={} --wrap=\"exec {}\")",
        sh(&format!("{out}/slurm-merge-%j.log")),
        wrapped(&merge)
    );
    let _ = writeln!(o, "merge=${{merge%%;*}}");
    let _ = writeln!(o, "echo \"render array $render ({shards} tasks), merge job $merge\"");
    o
}

/// A YAML scalar: a JSON string (YAML reads those as they are).
fn q(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

fn list(words: &[String]) -> String {
    format!("[{}]", words.iter().map(|w| q(w)).collect::<Vec<_>>().join(", "))
}

/// A Job name from the scene names: lowercase letters, digits and dashes, at most 52 characters
/// (63 for a Job less room for the pods' suffixes).
fn job_name(prefix: &str, scenes: &[PathBuf]) -> String {
    let mut name: String = scenes
        .iter()
        .filter_map(|s| s.file_stem())
        .map(|s| s.to_string_lossy().to_lowercase())
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    name = format!("{prefix}-{name}");
    name.truncate(52);
    name.trim_end_matches('-').to_string()
}

/// The container part both Jobs share: image, working folder, the volume mount, resources.
fn container(k: &Kubernetes, name: &str, command: &[String], env: &[(&str, String)], resources: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "      - name: {name}");
    let _ = writeln!(o, "        image: {}", q(&k.image));
    if let Some(w) = &k.workdir {
        let _ = writeln!(o, "        workingDir: {}", q(w));
    }
    let _ = writeln!(o, "        command: {}", list(command));
    if !env.is_empty() {
        let _ = writeln!(o, "        env:");
        for (n, v) in env {
            let _ = writeln!(o, "        - name: {n}\n          value: {}", q(v));
        }
    }
    let mut limits = Vec::new();
    if resources {
        if let Some(c) = &k.cpu {
            limits.push(format!("cpu: {}", q(c)));
        }
        if let Some(m) = &k.memory {
            limits.push(format!("memory: {}", q(m)));
        }
        if let Some(g) = k.gpus {
            limits.push(format!("nvidia.com/gpu: {g}"));
        }
    }
    if !limits.is_empty() {
        let _ = writeln!(o, "        resources:\n          limits:");
        for l in limits {
            let _ = writeln!(o, "            {l}");
        }
    }
    let _ = writeln!(o, "        volumeMounts:\n        - name: out\n          mountPath: {}", q(&k.mount));
    o
}

/// The Kubernetes plan: an Indexed Job of `shards` completions and a merge Job, as YAML for
/// `kubectl apply -f`.
pub fn kubernetes(binary: &str, scenes: &[PathBuf], shards: u32, render: &RenderOptions, k: &Kubernetes) -> String {
    let (task, mut merge) = commands(binary, scenes, &k.mount, shards, render);
    // the merge Job starts at once and waits (up to a day) for every shard to finish
    merge.extend(["--wait".into(), "86400".into()]);
    let volume = format!("      volumes:\n      - name: out\n        persistentVolumeClaim:\n          claimName: {}\n", q(&k.claim));
    let names = scenes.iter().filter_map(|s| s.file_stem()).map(|s| s.to_string_lossy()).collect::<Vec<_>>().join(", ");
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# Written by `simreel plan --k8s`: {names} in {} as an Indexed Job, and a Job that",
        count(shards.into(), "shard", "shards")
    );
    let _ = writeln!(o, "# merges them when all are written. Apply with: kubectl apply -f <this file>");
    let _ = writeln!(
        o,
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {}\n  labels:\n    app.kubernetes.io/name: simreel",
        job_name("simreel-render", scenes)
    );
    let _ = writeln!(
        o,
        "spec:\n  completionMode: Indexed\n  completions: {shards}\n  parallelism: {}",
        k.parallelism.unwrap_or(shards).min(shards)
    );
    // a shard that fails is retried (twice a shard on average); its rerun keeps what it wrote
    let _ = writeln!(o, "  backoffLimit: {}\n  template:\n    spec:\n      restartPolicy: Never\n      containers:", 2 * shards);
    o.push_str(&container(k, "render", &task, &[("SIMREEL_SHARDS", shards.to_string())], true));
    o.push_str(&volume);
    let _ = writeln!(o, "---");
    let _ = writeln!(
        o,
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {}\n  labels:\n    app.kubernetes.io/name: simreel",
        job_name("simreel-merge", scenes)
    );
    let _ = writeln!(o, "spec:\n  backoffLimit: 2\n  template:\n    spec:\n      restartPolicy: Never\n      containers:");
    o.push_str(&container(k, "merge", &merge, &[], false));
    o.push_str(&volume);
    o
}
