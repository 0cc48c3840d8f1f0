//! The CI templates in docs/ci, run as a user's project runs them: a throwaway project (scenes and
//! approved images, no simreel source), each template's jobs in order, their shell steps as
//! written (fresh checkout per job, artifacts and the cache passed between jobs as the CI system
//! does). The release download is a local folder (`SIMREEL_RELEASES=file://…`) holding the
//! archive `scripts/dist` makes of this checkout's build; `cargo install` (the fallback where the
//! release has no archive) is this checkout's build copied. A passing run; a failing one, whose
//! downloaded report approves the runner's frames in a fresh clone with the command it prints; the
//! manual approve job; a corrupted archive refused; a release without the archive built instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{copy_tree, require_gpu, root, scratch, scratch_part, simreel, test_tools};

/// A YAML file as JSON (through the test tools' ruamel.yaml, which check-jsonschema brings).
fn yaml(file: &Path) -> Value {
    let py = test_tools().join("venv/bin/python3");
    let o = Command::new(&py)
        .args(["-c", "import sys, json; from ruamel.yaml import YAML; print(json.dumps(YAML(typ='safe').load(open(sys.argv[1]))))"])
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{} ({e}): scripts/ensure-test-tools installs it", py.display()));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The user's project: two small scenes with goldens, approved here (lavapipe), and nothing of
/// simreel's. Returns its folder.
fn project(name: &str) -> PathBuf {
    let dir = scratch_part(name).join("project");
    let scenes = dir.join("scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    let golden =
        "\n[golden]\nframes = \"0,10\"\nsize = [64, 48]\n[golden.tolerance]\nchannel = 2\nmax_pixels = 0.001\nreason = \"lavapipe\"\n";
    for (file, source) in [("terrain.toml", "tests/scenes/small_terrain.toml"), ("flock.toml", "tests/scenes/flock_30.toml")] {
        let text = std::fs::read_to_string(root().join(source)).unwrap();
        std::fs::write(scenes.join(file), text + golden).unwrap();
    }
    let o = simreel().current_dir(&dir).args(["golden", "bless", "scenes", "--quiet"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

/// What the stand-in for the install prints (as two words joined, so that the script's text
/// does not count).
const INSTALLED: &str = "\"simreel installed\"\" from this checkout\"";
const INSTALLED_SAID: &str = "simreel installed from this checkout";

fn base_env(work: &Path, home: &Path) -> BTreeMap<String, String> {
    let path = format!("{}:{}", home.join(".cargo/bin").display(), std::env::var("PATH").unwrap());
    let mut env: BTreeMap<String, String> =
        [("HOME", home.display().to_string()), ("PATH", path), ("CARGO_HOME", home.join(".cargo").display().to_string())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
    for keep in ["VK_ICD_FILENAMES", "XDG_RUNTIME_DIR", "LANG"] {
        if let Ok(v) = std::env::var(keep) {
            env.insert(keep.into(), v);
        }
    }
    env.insert("CI".into(), "true".into());
    env.insert("GITHUB_WORKSPACE".into(), work.display().to_string());
    env
}

/// `from`'s files matching one `path:` line of an upload step (a folder, or `folder/*.ext`),
/// copied into `to` (relative paths kept below the folder).
fn upload(work: &Path, pattern: &str, to: &Path) -> usize {
    let (dir, ext) = match pattern.split_once("/*") {
        Some((d, e)) => (work.join(d), Some(e.to_string())),
        None => (work.join(pattern.trim_end_matches('/')), None),
    };
    let mut n = 0;
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                if ext.is_none() {
                    stack.push(p);
                }
            } else if ext.as_ref().is_none_or(|x| p.to_string_lossy().ends_with(x.as_str())) {
                let dest = to.join(p.strip_prefix(&dir).unwrap());
                std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
                std::fs::copy(&p, dest).unwrap();
                n += 1;
            }
        }
    }
    n
}

/// What the release download folder holds.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Release {
    /// The archive of this checkout's build and its SHA-256, as the release workflow uploads them.
    Archive,
    /// The archive with one byte changed after its sum was taken.
    Corrupt,
    /// No archive for this machine: the templates build simreel.
    Missing,
}

/// Where the emulated CI keeps what outlives a job: artifacts by name, caches by key, the release.
struct Ci {
    base: PathBuf,
    /// The folder whose `bin/simreel` is this checkout's, as `cargo install` would install it.
    install: PathBuf,
    /// The folder standing in for the release download (`SIMREEL_RELEASES`).
    releases: PathBuf,
}

impl Ci {
    fn new(base: PathBuf, archives: &Path, release: Release) -> Ci {
        let install = base.join("installed");
        let bin = install.join("bin/simreel");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_simreel"), &bin).unwrap();
        let releases = base.join("releases");
        let dir = releases.join(format!("v{}", env!("CARGO_PKG_VERSION")));
        std::fs::create_dir_all(&dir).unwrap();
        if release != Release::Missing {
            copy_tree(archives, &dir);
        }
        if release == Release::Corrupt {
            let archive = dir.join(format!("simreel-v{}-{}-unknown-linux-gnu.tar.gz", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH));
            let mut bytes = std::fs::read(&archive).unwrap();
            let k = bytes.len() / 2;
            bytes[k] ^= 0x40;
            std::fs::write(&archive, bytes).unwrap();
        }
        Ci { base, install, releases }
    }

    /// A fresh runner with the project checked out: its folder and home.
    fn runner(&self, project: &Path, job: &str) -> (PathBuf, PathBuf) {
        let dir = self.base.join("runners").join(job);
        let _ = std::fs::remove_dir_all(&dir);
        copy_tree(project, &dir.join("work"));
        std::fs::create_dir_all(dir.join("home")).unwrap();
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        (dir.join("work"), dir.join("home"))
    }

    /// The environment of a job: the runner's, the template's variables, the release folder in
    /// place of the download site.
    fn env(&self, work: &Path, home: &Path, vars: &serde_json::Map<String, Value>) -> BTreeMap<String, String> {
        let mut env = base_env(work, home);
        for (k, v) in vars {
            env.insert(k.clone(), v.as_str().unwrap().replace("$CI_PROJECT_DIR", &work.display().to_string()));
        }
        assert!(env["SIMREEL_RELEASES"].starts_with("https://"), "the release download: {}", env["SIMREEL_RELEASES"]);
        env.insert("SIMREEL_RELEASES".into(), format!("file://{}", self.releases.display()));
        env.insert("RUNNER_TEMP".into(), home.parent().unwrap().join("tmp").display().to_string());
        env
    }

    /// Runs `script` with bash in `work`; its exit code.
    fn sh(&self, script: &str, work: &Path, env: &BTreeMap<String, String>, log: &mut String) -> i32 {
        // the build from the registry: this checkout's build instead
        let stand_in = format!(
            "{{ mkdir -p \"$CARGO_HOME/bin\" && cp {}/bin/simreel \"$CARGO_HOME/bin/simreel\" && echo {INSTALLED}; }}",
            self.install.display()
        );
        let script: String = script
            .lines()
            .map(|l| {
                if l.contains("cargo install") {
                    assert!(l.contains("--locked") && l.contains("simreel"), "the install: {l}");
                    l.replace(&l[l.find("cargo install").unwrap()..], &stand_in)
                } else if l.contains("apt-get install") {
                    // lavapipe: scripts/test installed it on this machine
                    assert!(l.contains("mesa-vulkan-drivers"), "lavapipe: {l}");
                    "true".to_string()
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let o = Command::new("bash").args(["-e", "-c", &script]).current_dir(work).env_clear().envs(env).output().unwrap();
        log.push_str(&format!("$ {script}\n{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)));
        o.status.code().unwrap_or(-1)
    }

    fn artifact(&self, name: &str) -> PathBuf {
        self.base.join("artifacts").join(name)
    }

    fn cache(&self, key: &str) -> PathBuf {
        self.base.join("cache").join(key)
    }
}

/// What a run of a template did: each job's exit code (0 when all its steps passed; absent when
/// it was skipped), its log, and the step summaries written.
#[derive(Default)]
struct Run {
    codes: BTreeMap<String, i32>,
    log: String,
    summary: String,
}

impl Run {
    fn installs(&self) -> usize {
        self.log.matches(INSTALLED_SAID).count()
    }
}

/// Whether a GitHub job runs: its `if` as GitHub reads it (without `always()`, only when every
/// job it needs passed), `approve` the workflow_dispatch input.
fn github_job_runs(name: &str, job: &Value, approve: bool, results: &BTreeMap<String, bool>) -> bool {
    let needs: Vec<String> = match &job["needs"] {
        Value::Null => Vec::new(),
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().map(|n| n.as_str().unwrap().to_string()).collect(),
        other => panic!("{name}: needs {other}"),
    };
    let needed_passed = needs.iter().all(|n| results.get(n) == Some(&true));
    match job["if"].as_str() {
        None => needed_passed,
        Some("${{ !inputs.approve }}") => needed_passed && !approve,
        Some("${{ inputs.approve }}") => needed_passed && approve,
        Some("${{ always() && !inputs.approve && needs.install.result == 'success' }}") => {
            !approve && results.get("install") == Some(&true)
        }
        Some(other) => panic!("{name}: an `if` this emulator does not know: {other}"),
    }
}

/// GitHub Actions: `install`, the `check` job once per shard of its matrix, `report`, `approve`,
/// each job's `if` and each step's as GitHub reads them (a failed step skips the rest but
/// `always()` and `failure()` steps); `approve`: run by hand with the approve input ticked.
fn run_github(ci: &Ci, workflow: &Value, project: &Path, approve: bool) -> Run {
    let mut run = Run::default();
    let names: Vec<&String> = workflow["jobs"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["approve", "check", "install", "report"], "the jobs this emulator knows");
    let mut results: BTreeMap<String, bool> = BTreeMap::new();
    for name in ["install", "check", "report", "approve"] {
        let job = &workflow["jobs"][name];
        if !github_job_runs(name, job, approve, &results) {
            continue;
        }
        let shards: Vec<Option<u64>> = match job["strategy"]["matrix"]["shard"].as_array() {
            Some(list) => list.iter().map(|s| Some(s.as_u64().unwrap())).collect(),
            None => vec![None],
        };
        let mut passed = true;
        for &shard in &shards {
            let label = shard.map_or(name.to_string(), |s| format!("{name}-{s}"));
            let code = github_job(ci, workflow, job, &label, project, (shard, shards.len()), &mut run);
            passed &= code == 0;
            run.codes.insert(label, code);
        }
        results.insert(name.to_string(), passed);
    }
    run
}

/// One GitHub job (one shard of a matrix) on a fresh runner; its exit code.
fn github_job(ci: &Ci, workflow: &Value, job: &Value, label: &str, project: &Path, matrix: (Option<u64>, usize), run: &mut Run) -> i32 {
    let (work, home) = ci.runner(project, label);
    let mut env = ci.env(&work, &home, workflow["env"].as_object().unwrap());
    let summary_file = home.parent().unwrap().join("step-summary.md");
    env.insert("GITHUB_STEP_SUMMARY".into(), summary_file.display().to_string());
    env.insert("GITHUB_RUN_ID".into(), "4242".into());
    let (mut failed, mut code, mut cache_hit) = (false, 0, false);
    let expand = |s: &str| {
        let s = s.replace("${{ matrix.shard }}", &matrix.0.map(|s| s.to_string()).unwrap_or_default());
        let s = s.replace("${{ strategy.job-total }}", &matrix.1.to_string());
        let s = s.replace("${{ runner.os }}", "Linux").replace("${{ runner.arch }}", "X64");
        let s = s.replace("${{ env.SIMREEL_VERSION }}", &env["SIMREEL_VERSION"]).replace("${{ env.GOLDENS }}", &env["GOLDENS"]);
        assert!(!s.contains("${{"), "{label}: an expression this emulator does not know: {s}");
        s
    };
    for step in job["steps"].as_array().unwrap() {
        let runs = match step["if"].as_str().unwrap_or("success()") {
            "always()" => true,
            "failure()" => failed,
            "success()" => !failed,
            "steps.simreel.outputs.cache-hit != 'true'" => !failed && !cache_hit,
            other => panic!("{label}: a step `if` this emulator does not know: {other}"),
        };
        if !runs {
            continue;
        }
        let with = &step["with"];
        let cached = || {
            let path = expand(with["path"].as_str().unwrap()).replace('~', &home.display().to_string());
            (ci.cache(&expand(with["key"].as_str().unwrap())), PathBuf::from(path))
        };
        match (step["run"].as_str(), step["uses"].as_str()) {
            (Some(script), _) => {
                let c = ci.sh(&expand(script), &work, &env, &mut run.log);
                if c != 0 {
                    (failed, code) = (true, c);
                }
            }
            (None, Some(u)) if u.starts_with("actions/checkout@") => {}
            (None, Some(u)) if u.starts_with("actions/cache/restore@") => {
                let (stored, path) = cached();
                cache_hit = stored.is_file();
                if cache_hit {
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::copy(&stored, &path).unwrap();
                } else if with["fail-on-cache-miss"] == true {
                    run.log.push_str(&format!("{label}: no cache {}\n", stored.display()));
                    (failed, code) = (true, 1);
                }
            }
            (None, Some(u)) if u.starts_with("actions/cache/save@") => {
                // saved whatever happens after it (a key that exists is kept as it is)
                let (stored, path) = cached();
                if !stored.exists() && path.is_file() {
                    std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
                    std::fs::copy(path, stored).unwrap();
                }
            }
            (None, Some(u)) if u.starts_with("actions/upload-artifact@") => {
                let to = ci.artifact(&expand(with["name"].as_str().unwrap()));
                let n: usize = with["path"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| upload(&work, &expand(l.trim()), &to))
                    .sum();
                assert!(n > 0, "{label}: `{}` uploads nothing", with["path"]);
            }
            (None, Some(u)) if u.starts_with("actions/download-artifact@") => {
                let prefix = with["pattern"].as_str().unwrap().trim_end_matches('*');
                assert_eq!(with["merge-multiple"], true);
                for a in std::fs::read_dir(ci.base.join("artifacts")).unwrap().flatten() {
                    if a.file_name().to_string_lossy().starts_with(prefix) {
                        upload(&a.path(), "", &work.join(with["path"].as_str().unwrap()));
                    }
                }
            }
            (None, Some(u)) if u.starts_with("mikepenz/action-junit-report@") => {
                let junit =
                    std::fs::read_to_string(work.join(with["report_paths"].as_str().unwrap())).expect("the JUnit file the step publishes");
                assert!(junit.contains("<testsuites"), "{junit}");
            }
            other => panic!("{label}: a step this emulator does not know: {other:?}"),
        }
    }
    run.summary.push_str(&std::fs::read_to_string(&summary_file).unwrap_or_default());
    code
}

/// GitLab CI: `before_script` and `script` of each job in one shell (`after_script` after it),
/// the `golden` job once per `parallel` index, then `golden-report` with its artifacts, or, run by
/// hand (`approve`), the manual `golden-approve`; the cache by key.
fn run_gitlab(ci: &Ci, pipeline: &Value, project: &Path, approve: bool) -> Run {
    let mut run = Run::default();
    let default = &pipeline["default"];
    let parallel = pipeline["golden"]["parallel"].as_u64().unwrap();
    assert_eq!(pipeline["golden-report"]["needs"], serde_json::json!(["golden"]));
    assert_eq!(pipeline["golden-approve"]["when"], "manual", "approving is a job started by hand");
    let jobs: Vec<(String, &Value, Option<u64>)> = if approve {
        vec![("golden-approve".into(), &pipeline["golden-approve"], None)]
    } else {
        let mut j: Vec<(String, &Value, Option<u64>)> =
            (1..=parallel).map(|i| (format!("golden-{i}"), &pipeline["golden"], Some(i))).collect();
        j.push(("golden-report".into(), &pipeline["golden-report"], None));
        j
    };
    // the cache is kept whatever the job's outcome
    assert_eq!(default["cache"]["when"], "always", "a failing pipeline keeps the installed simreel");
    let cached = default["cache"]["paths"][0].as_str().unwrap();
    let vars = pipeline["variables"].as_object().unwrap();
    for (name, job, index) in jobs {
        let (work, home) = ci.runner(project, &name);
        let mut env = ci.env(&work, &home, vars);
        env.insert("CI_PROJECT_DIR".into(), work.display().to_string());
        if let Some(i) = index {
            env.insert("CI_NODE_INDEX".into(), i.to_string());
            env.insert("CI_NODE_TOTAL".into(), parallel.to_string());
        }
        // the artifacts of the jobs it needs, where they were
        if name == "golden-report" {
            for i in 1..=parallel {
                upload(&ci.artifact(&format!("golden-{i}")), "", &work);
            }
        }
        let stored = ci.cache(&format!("gitlab-{}", default["cache"]["key"].as_str().unwrap()));
        if stored.is_file() {
            std::fs::create_dir_all(work.join(cached).parent().unwrap()).unwrap();
            std::fs::copy(&stored, work.join(cached)).unwrap();
        }
        let lines = |v: &Value| v.as_array().map(|a| a.iter().map(|l| format!("{}\n", l.as_str().unwrap())).collect::<String>());
        let script = format!("{}{}", lines(&default["before_script"]).unwrap(), lines(&job["script"]).unwrap());
        let code = ci.sh(&script, &work, &env, &mut run.log);
        if let Some(after) = lines(&job["after_script"]) {
            ci.sh(&after, &work, &env, &mut run.log);
        }
        if index.is_some() {
            assert_eq!(job["allow_failure"]["exit_codes"], serde_json::json!([4]), "a mismatch lets the report job run");
        }
        if work.join(cached).is_file() {
            std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
            std::fs::copy(work.join(cached), &stored).unwrap();
        }
        if job["artifacts"]["when"] == "always" || code == 0 {
            for p in job["artifacts"]["paths"].as_array().unwrap() {
                let p = p.as_str().unwrap().replace("$GOLDENS", &env["GOLDENS"]);
                let to = ci.artifact(&name).join(p.trim_end_matches('/'));
                upload(&work, &p, &to);
            }
        }
        run.codes.insert(name, code);
    }
    run
}

/// The release archives `scripts/dist` makes of this checkout's build (stripped where `strip` is),
/// in a folder of their own.
fn archives(base: &Path) -> PathBuf {
    let bins = base.join("bins");
    std::fs::create_dir_all(&bins).unwrap();
    let built = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().to_path_buf();
    for bin in ["simreel", "simreel-compare"] {
        let from = built.join(bin);
        assert!(from.is_file(), "{} is not built: the test suite builds the workspace (cargo test --workspace)", from.display());
        std::fs::copy(&from, bins.join(bin)).unwrap();
        let _ = Command::new("strip").arg(bins.join(bin)).status();
    }
    let out = base.join("archives");
    let o = Command::new(root().join("scripts/dist"))
        .arg(format!("{}-unknown-linux-gnu", std::env::consts::ARCH))
        .arg(&out)
        .env("SIMREEL_DIST_BINARIES", &bins)
        .output()
        .unwrap();
    assert!(o.status.success(), "scripts/dist: {}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The project and its copy with a wrong approved image (the terrain's frame 10 is its frame 0).
fn projects(base: &Path) -> (PathBuf, PathBuf) {
    let p = project("ci-templates-project");
    let (good, broken) = (base.join("project"), base.join("broken"));
    copy_tree(&p, &good);
    copy_tree(&p, &broken);
    assert!(!good.join("Cargo.toml").exists() && !good.join("src").exists(), "no simreel source in the project");
    let g = broken.join("tests/golden/small_terrain");
    std::fs::copy(g.join("frame_0000.png"), g.join("frame_0010.png")).unwrap();
    (good, broken)
}

/// A fresh clone of `project` where `fill` puts what the developer downloaded, then `command` as
/// the CI printed it (`simreel` on the PATH): after it, the project's check passes.
fn closes_in_a_clone(project: &Path, clone: &Path, fill: impl FnOnce(&Path), command: &str) {
    copy_tree(project, clone);
    fill(clone);
    let bin = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let o = Command::new("sh").arg("-c").arg(command).current_dir(clone).env("PATH", &path).output().unwrap();
    assert!(o.status.success(), "{command}:\n{}", String::from_utf8_lossy(&o.stderr));
    let o = simreel().current_dir(clone).args(["golden", "check", "scenes", "--quiet"]).output().unwrap();
    assert!(o.status.success(), "after `{command}` the check still fails:\n{}", String::from_utf8_lossy(&o.stderr));
}

/// What a failing run's merged report holds, where the upload put it: 4 frames, 1 failed, the
/// pages, the summary and the failed frame as rendered.
fn failed_report(dir: &Path, log: &str) {
    let summary = simreel::golden::summary::Summary::read(&dir.join("summary.json")).unwrap();
    assert_eq!((summary.checked, summary.failed), (4, 1), "{log}");
    for f in ["report.html", "junit.xml", "summary.md", "small_terrain__frame_0010__actual.png"] {
        assert!(dir.join(f).is_file(), "{f} is not in the uploaded report");
    }
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    assert!(junit.contains("<testsuite name=\"small_terrain\" tests=\"3\" failures=\"1\">"), "{junit}");
    assert!(junit.contains("[[ATTACHMENT|out/golden-report/small_terrain__frame_0010__panel.png]]"), "{junit}");
}

/// The command in a ```sh block of `text` that starts with `starts`.
fn printed(text: &str, starts: &str) -> String {
    text.lines().find(|l| l.starts_with(starts)).unwrap_or_else(|| panic!("no `{starts}…` in:\n{text}")).to_string()
}

const ACCEPT: &str = "simreel golden bless scenes/terrain.toml --from-report out/golden-report";

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn the_github_template_installs_checks_reports_and_approves_a_users_project() {
    require_gpu();
    let base = scratch();
    let archives = archives(&base);
    let (good, broken) = projects(&base);
    let workflow = yaml(&root().join("docs/ci/github-actions.yml"));
    assert_eq!(workflow["env"]["SIMREEL_VERSION"], env!("CARGO_PKG_VERSION"), "it installs this version");
    let jobs = |run: &Run| run.codes.keys().cloned().collect::<Vec<_>>().join(" ");

    // passing, from the release's archive: installed once, its sum checked, no build
    let ci = Ci::new(base.join("pass"), &archives, Release::Archive);
    let run = run_github(&ci, &workflow, &good, false);
    assert_eq!(jobs(&run), "check-1 check-2 check-3 check-4 install report", "{}", run.log);
    assert!(run.codes.values().all(|&c| c == 0), "{:?}\n{}", run.codes, run.log);
    assert!(run.log.contains("unknown-linux-gnu.tar.gz: OK") && run.installs() == 0, "{}", run.log);
    assert!(run.summary.contains("all 4 golden frames match"), "{}", run.summary);
    assert!(!ci.artifact("golden-report").exists(), "the report is uploaded on failure only");

    // failing, where the release has no archive for this machine: built once, cached at once
    let ci = Ci::new(base.join("fail"), &archives, Release::Missing);
    let run = run_github(&ci, &workflow, &broken, false);
    let checks: Vec<i32> = (1..=4).map(|i| run.codes[&format!("check-{i}")]).collect();
    assert_eq!(checks.iter().filter(|&&c| c == 4).count(), 1, "one shard holds the terrain: {:?}\n{}", run.codes, run.log);
    assert!(checks.iter().all(|&c| c == 0 || c == 4) && run.codes["install"] == 0, "{:?}\n{}", run.codes, run.log);
    assert_eq!(run.codes["report"], 4, "the merged report fails the workflow: {:?}\n{}", run.codes, run.log);
    assert_eq!(run.installs(), 1, "{}", run.log);
    failed_report(&ci.artifact("golden-report"), &run.log);
    // the job summary: the failure with its picture, how to download the report and accept it
    assert!(run.summary.contains("1 of 4 golden frames failed") && run.summary.contains("<img "), "{}", run.summary);
    let download = printed(&run.summary, "gh run download");
    assert_eq!(download, "gh run download 4242 -n golden-report -D out/golden-report");
    let command = printed(&run.summary, "simreel golden bless");
    assert_eq!(command, ACCEPT);
    // the developer's clone: the report downloaded as the summary says, the printed command
    let report = ci.artifact("golden-report");
    closes_in_a_clone(&broken, &base.join("clone"), |c| copy_tree(&report, &c.join("out/golden-report")), &command);
    // the failing run again: simreel comes from the cache the failing run saved
    let again = run_github(&ci, &workflow, &broken, false);
    assert_eq!((again.installs(), again.codes["report"]), (0, 4), "{}", again.log);

    // approved by hand on the runner: the goldens come back as an artifact that makes the check pass
    let run = run_github(&ci, &workflow, &broken, true);
    assert_eq!(jobs(&run), "approve install", "{}", run.log);
    assert!(run.codes.values().all(|&c| c == 0), "{:?}\n{}", run.codes, run.log);
    assert!(run.summary.contains("gh run download 4242 -n approved-goldens -D tests/golden"), "{}", run.summary);
    let approved = ci.artifact("approved-goldens");
    assert!(approved.join("small_terrain/frame_0010.png").is_file());
    closes_in_a_clone(&broken, &base.join("clone-approved"), |c| copy_tree(&approved, &c.join("tests/golden")), "true");

    // a corrupted archive is refused: nothing installed, nothing cached, nothing checked
    let ci = Ci::new(base.join("corrupt"), &archives, Release::Corrupt);
    let run = run_github(&ci, &workflow, &good, false);
    assert_eq!(jobs(&run), "install", "{}", run.log);
    assert!(run.codes["install"] != 0 && run.log.contains("does not match its SHA-256: refusing it"), "{}", run.log);
    assert!(run.installs() == 0 && !ci.base.join("cache").exists(), "{}", run.log);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn the_gitlab_template_installs_checks_reports_and_approves_a_users_project() {
    require_gpu();
    let base = scratch();
    let archives = archives(&base);
    let (good, broken) = projects(&base);
    let pipeline = yaml(&root().join("docs/ci/gitlab-ci.yml"));
    assert_eq!(pipeline["variables"]["SIMREEL_VERSION"], env!("CARGO_PKG_VERSION"), "it installs this version");
    // lavapipe only where it is used
    let text = std::fs::read_to_string(root().join("docs/ci/gitlab-ci.yml")).unwrap();
    assert!(!pipeline["golden-report"].to_string().contains("mesa-vulkan-drivers") && text.matches("mesa-vulkan-drivers").count() == 2);

    // passing, from the release's archive
    let ci = Ci::new(base.join("pass"), &archives, Release::Archive);
    let run = run_gitlab(&ci, &pipeline, &good, false);
    assert!(run.codes.len() == 5 && run.codes.values().all(|&c| c == 0), "{:?}\n{}", run.codes, run.log);
    assert!(run.log.contains("unknown-linux-gnu.tar.gz: OK") && run.installs() == 0, "{}", run.log);
    let report = ci.artifact("golden-report").join("out/golden-report");
    let summary = simreel::golden::summary::Summary::read(&report.join("summary.json")).unwrap();
    assert_eq!((summary.checked, summary.failed), (4, 0));

    // failing, built where the release has none: the cache is kept though the pipeline fails
    let ci = Ci::new(base.join("fail"), &archives, Release::Missing);
    let run = run_gitlab(&ci, &pipeline, &broken, false);
    let checks: Vec<i32> = (1..=4).map(|i| run.codes[&format!("golden-{i}")]).collect();
    assert_eq!(checks.iter().filter(|&&c| c == 4).count(), 1, "{:?}\n{}", run.codes, run.log);
    assert_eq!(run.codes["golden-report"], 4, "{:?}\n{}", run.codes, run.log);
    assert_eq!(run.installs(), 1, "installed once, then from the cache: {}", run.log);
    let report = ci.artifact("golden-report").join("out/golden-report");
    failed_report(&report, &run.log);
    assert!(run.log.contains("1 of 4 golden frames failed"), "the summary in the job's log");
    let command = printed(&std::fs::read_to_string(report.join("summary.md")).unwrap(), "simreel golden bless");
    assert_eq!(command, ACCEPT);
    // the developer's clone: the artifact unzipped at the project's root, the printed command
    let artifact = ci.artifact("golden-report");
    closes_in_a_clone(&broken, &base.join("clone"), |c| copy_tree(&artifact, c), &command);

    // the manual job: the goldens approved on the runner come back as its artifact
    let run = run_gitlab(&ci, &pipeline, &broken, true);
    assert_eq!(run.codes.get("golden-approve"), Some(&0), "{}", run.log);
    let approved = ci.artifact("golden-approve");
    assert!(approved.join("tests/golden/small_terrain/frame_0010.png").is_file());
    closes_in_a_clone(&broken, &base.join("clone-approved"), |c| copy_tree(&approved, c), "true");

    // a corrupted archive is refused
    let ci = Ci::new(base.join("corrupt"), &archives, Release::Corrupt);
    let run = run_gitlab(&ci, &pipeline, &good, false);
    assert!(run.codes.values().all(|&c| c != 0), "{:?}", run.codes);
    assert!(run.log.contains("does not match its SHA-256: refusing it") && run.installs() == 0, "{}", run.log);
}
