//! The CI templates in docs/ci, run as a user's project runs them: a throwaway project (scenes and
//! approved images, no simreel source), each template's jobs in order, their shell steps as
//! written (fresh checkout per job, artifacts and the cache passed between jobs as the CI system
//! does), with this checkout's simreel standing in for the install from the registry. A passing
//! run, and a failing one: exit code 4 and the report where the upload step looks.

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

/// Where the emulated CI keeps what outlives a job: artifacts by name, caches by key.
struct Ci {
    base: PathBuf,
    /// The folder whose `bin/simreel` is this checkout's, installed once per test run.
    install: PathBuf,
}

impl Ci {
    fn new(base: PathBuf) -> Ci {
        let install = base.join("installed");
        // this checkout, installed as `cargo install` would from the registry
        let bin = install.join("bin/simreel");
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_simreel"), &bin).unwrap();
        Ci { base, install }
    }

    /// A fresh runner with the project checked out: its folder and home.
    fn runner(&self, project: &Path, job: &str) -> (PathBuf, PathBuf) {
        let dir = self.base.join("runners").join(job);
        let _ = std::fs::remove_dir_all(&dir);
        copy_tree(project, &dir.join("work"));
        std::fs::create_dir_all(dir.join("home")).unwrap();
        (dir.join("work"), dir.join("home"))
    }

    /// Runs `script` with bash in `work`; its exit code.
    fn sh(&self, script: &str, work: &Path, env: &BTreeMap<String, String>, log: &mut String) -> i32 {
        // the install from the registry: this checkout's build instead
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
}

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

/// What a run of a template did: each job's exit code (0 when all its steps passed) and its log.
#[derive(Default)]
struct Run {
    codes: BTreeMap<String, i32>,
    log: String,
}

/// GitHub Actions: the `check` job once per shard of its matrix, then `report`, each step's `if`
/// as GitHub reads it (a failed step skips the rest but `always()` and `failure()` steps).
fn run_github(ci: &Ci, workflow: &Value, project: &Path) -> Run {
    let mut run = Run::default();
    let shards: Vec<u64> =
        workflow["jobs"]["check"]["strategy"]["matrix"]["shard"].as_array().unwrap().iter().map(|s| s.as_u64().unwrap()).collect();
    let mut jobs: Vec<(String, &Value, Option<u64>)> =
        shards.iter().map(|&s| (format!("check-{s}"), &workflow["jobs"]["check"], Some(s))).collect();
    assert_eq!(workflow["jobs"]["report"]["needs"], "check");
    assert_eq!(workflow["jobs"]["report"]["if"], "always()", "the report runs when a shard failed");
    jobs.push(("report".into(), &workflow["jobs"]["report"], None));
    for (name, job, shard) in jobs {
        let (work, home) = ci.runner(project, &name);
        let mut env = base_env(&work, &home);
        for (k, v) in workflow["env"].as_object().unwrap() {
            env.insert(k.clone(), v.as_str().unwrap().to_string());
        }
        let (mut failed, mut code, mut cache_hit, mut cache_to_save) = (false, 0, false, None);
        for step in job["steps"].as_array().unwrap() {
            let cond = step["if"].as_str().unwrap_or("success()");
            let runs = match cond {
                "always()" => true,
                "failure()" => failed,
                "success()" => !failed,
                "steps.simreel.outputs.cache-hit != 'true'" => !failed && !cache_hit,
                other => panic!("{name}: an `if` this emulator does not know: {other}"),
            };
            if !runs {
                continue;
            }
            let with = &step["with"];
            let expand = |s: &str| {
                let s = s.replace("${{ matrix.shard }}", &shard.map(|s| s.to_string()).unwrap_or_default());
                let s = s.replace("${{ runner.os }}", "Linux").replace("${{ env.SIMREEL_VERSION }}", &env["SIMREEL_VERSION"]);
                assert!(!s.contains("${{"), "{name}: an expression this emulator does not know: {s}");
                s
            };
            match (step["run"].as_str(), step["uses"].as_str()) {
                (Some(script), _) => {
                    let c = ci.sh(&expand(script), &work, &env, &mut run.log);
                    if c != 0 {
                        (failed, code) = (true, c);
                    }
                }
                (None, Some(u)) if u.starts_with("actions/checkout@") => {}
                (None, Some(u)) if u.starts_with("actions/cache@") => {
                    let key = expand(with["key"].as_str().unwrap());
                    let path = PathBuf::from(expand(with["path"].as_str().unwrap()).replace('~', &home.display().to_string()));
                    let stored = ci.base.join("cache").join(&key);
                    cache_hit = stored.is_file();
                    if cache_hit {
                        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                        std::fs::copy(&stored, &path).unwrap();
                    } else {
                        cache_to_save = Some((stored, path));
                    }
                }
                (None, Some(u)) if u.starts_with("actions/upload-artifact@") => {
                    let to = ci.artifact(&expand(with["name"].as_str().unwrap()));
                    let n: usize =
                        with["path"].as_str().unwrap().lines().filter(|l| !l.trim().is_empty()).map(|l| upload(&work, l.trim(), &to)).sum();
                    assert!(n > 0, "{name}: `{}` uploads nothing", with["path"]);
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
                    let junit = std::fs::read_to_string(work.join(with["report_paths"].as_str().unwrap()))
                        .expect("the JUnit file the step publishes");
                    assert!(junit.contains("<testsuites"), "{junit}");
                }
                other => panic!("{name}: a step this emulator does not know: {other:?}"),
            }
        }
        // the cache is saved when the job passed (as actions/cache does)
        if let (Some((stored, path)), false) = (cache_to_save, failed)
            && path.is_file()
        {
            std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
            std::fs::copy(path, stored).unwrap();
        }
        run.codes.insert(name, code);
    }
    run
}

/// GitLab CI: `before_script` and `script` of each job in one shell, the `golden` job once per
/// `parallel` index, then `golden-report` with its artifacts; the cache by key.
fn run_gitlab(ci: &Ci, pipeline: &Value, project: &Path) -> Run {
    let mut run = Run::default();
    let default = &pipeline["default"];
    let parallel = pipeline["golden"]["parallel"].as_u64().unwrap();
    let mut jobs: Vec<(String, &Value, Option<u64>)> =
        (1..=parallel).map(|i| (format!("golden-{i}"), &pipeline["golden"], Some(i))).collect();
    assert_eq!(pipeline["golden-report"]["needs"], serde_json::json!(["golden"]));
    jobs.push(("golden-report".into(), &pipeline["golden-report"], None));
    let cached = default["cache"]["paths"][0].as_str().unwrap();
    for (name, job, index) in jobs {
        let (work, home) = ci.runner(project, &name);
        let mut env = base_env(&work, &home);
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
        let stored = ci.base.join("cache").join(format!("gitlab-{}", default["cache"]["key"].as_str().unwrap()));
        if stored.is_file() {
            std::fs::create_dir_all(work.join(cached).parent().unwrap()).unwrap();
            std::fs::copy(&stored, work.join(cached)).unwrap();
        }
        let mut script = String::new();
        for (k, v) in pipeline["variables"].as_object().unwrap() {
            script.push_str(&format!("export {k}=\"{}\"\n", v.as_str().unwrap()));
        }
        for line in default["before_script"].as_array().unwrap().iter().chain(job["script"].as_array().unwrap()) {
            script.push_str(line.as_str().unwrap());
            script.push('\n');
        }
        let code = ci.sh(&script, &work, &env, &mut run.log);
        if index.is_some() {
            assert_eq!(job["allow_failure"]["exit_codes"], serde_json::json!([4]), "a mismatch lets the report job run");
        }
        // GitLab saves the cache of a job that succeeded (an allowed failure is still a failure)
        if work.join(cached).is_file() && code == 0 {
            std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
            std::fs::copy(work.join(cached), &stored).unwrap();
        }
        assert_eq!(job["artifacts"]["when"], "always");
        for p in job["artifacts"]["paths"].as_array().unwrap() {
            let p = p.as_str().unwrap();
            let to = ci.artifact(&name).join(p.trim_end_matches('/'));
            upload(&work, p, &to);
        }
        run.codes.insert(name, code);
    }
    run
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn the_ci_templates_pass_and_fail_a_users_project_as_written() {
    require_gpu();
    let base = scratch();
    let project = {
        let p = project("ci-templates-project");
        copy_tree(&p, &base.join("project"));
        base.join("project")
    };
    assert!(!project.join("Cargo.toml").exists() && !project.join("src").exists(), "no simreel source in the project");
    let github = yaml(&root().join("docs/ci/github-actions.yml"));
    let gitlab = yaml(&root().join("docs/ci/gitlab-ci.yml"));
    // they install this version
    assert_eq!(github["env"]["SIMREEL_VERSION"], env!("CARGO_PKG_VERSION"));
    assert_eq!(gitlab["variables"]["SIMREEL_VERSION"], env!("CARGO_PKG_VERSION"));
    let broken = |p: &Path| {
        // a wrong approved image: the terrain's frame 10 is its frame 0
        let g = p.join("tests/golden/small_terrain");
        std::fs::copy(g.join("frame_0000.png"), g.join("frame_0010.png")).unwrap();
    };
    for (template, failing) in [("github", false), ("github", true), ("gitlab", false), ("gitlab", true)] {
        let ci = Ci::new(base.join(format!("{template}-{failing}")));
        let work = base.join(format!("{template}-{failing}-project"));
        copy_tree(&project, &work);
        if failing {
            broken(&work);
        }
        let run = if template == "github" { run_github(&ci, &github, &work) } else { run_gitlab(&ci, &gitlab, &work) };
        let log = &run.log;
        let (checks, report): (Vec<i32>, i32) = {
            let report_job = if template == "github" { "report" } else { "golden-report" };
            (run.codes.iter().filter(|(k, _)| *k != report_job).map(|(_, c)| *c).collect(), run.codes[report_job])
        };
        assert_eq!(checks.len(), 4, "four shards: {:?}", run.codes);
        let (uploaded, report_dir) = if template == "github" {
            (ci.artifact("golden-report"), ci.artifact("golden-report"))
        } else {
            (ci.artifact("golden-report"), ci.artifact("golden-report").join("out/golden-report"))
        };
        if failing {
            assert_eq!(checks.iter().filter(|&&c| c == 4).count(), 1, "one shard holds the terrain: {:?}\n{log}", run.codes);
            assert!(checks.iter().all(|&c| c == 0 || c == 4), "{:?}\n{log}", run.codes);
            assert_eq!(report, 4, "the merged report fails the pipeline: {:?}\n{log}", run.codes);
            let summary = simreel::golden::summary::Summary::read(&report_dir.join("summary.json")).unwrap();
            assert_eq!((summary.checked, summary.failed), (4, 1), "{log}");
            assert!(
                report_dir.join("report.html").is_file() && report_dir.join("junit.xml").is_file(),
                "the report where the upload step looks"
            );
            let junit = std::fs::read_to_string(report_dir.join("junit.xml")).unwrap();
            assert!(junit.contains("<testsuite name=\"small_terrain\" tests=\"3\" failures=\"1\">"), "{junit}");
        } else {
            assert!(checks.iter().all(|&c| c == 0) && report == 0, "{:?}\n{log}", run.codes);
            if template == "github" {
                assert!(!uploaded.exists(), "the HTML report is uploaded on failure only");
            } else {
                let summary = simreel::golden::summary::Summary::read(&report_dir.join("summary.json")).unwrap();
                assert_eq!((summary.checked, summary.failed), (4, 0));
            }
        }
        // the install ran once when every job passed: later jobs took simreel from the cache (a
        // job that failed saves no cache, so a failing run may install again)
        let installs = log.matches(INSTALLED_SAID).count();
        assert!(if failing { installs >= 1 } else { installs == 1 }, "{installs} installs: {log}");
    }
}
