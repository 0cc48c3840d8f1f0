//! Split renders: `render --shard I/N` (given, or read from Slurm's or Kubernetes' environment)
//! and `simreel merge`, which writes the same bytes as one machine's render, or refuses with the
//! shard named.

use std::path::Path;

use crate::common::{Immutable, require_gpu, root, same_render, same_scene, scratch, simreel};

/// `tests/scenes/flock_30.toml` (the flock scene's first 30 frames) at 96×72, into `out` (extra arguments and environment added).
fn render(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = simreel();
    c.args(["render", "tests/scenes/flock_30.toml", "--size", "96x72", "--quiet", "--out"]).arg(out).args(extra);
    for var in [
        "SLURM_ARRAY_TASK_ID",
        "SLURM_ARRAY_TASK_COUNT",
        "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX",
        "JOB_COMPLETION_INDEX",
        "SIMREEL_SHARDS",
    ] {
        c.env_remove(var);
    }
    c.envs(env.iter().copied());
    c.output().unwrap()
}

fn merge(out: &Path) -> std::process::Output {
    simreel().arg("merge").arg(out).arg("tests/scenes/flock_30.toml").output().unwrap()
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The shards that wrote a manifest for `scene` in `out`, by number.
fn shards_of(out: &Path, scene: &str, count: u32) -> Vec<u32> {
    (1..=count).filter(|i| out.join(scene).join(format!("shard-{i}-of-{count}.json")).is_file()).collect()
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn many_scenes_are_split_by_cost_and_merge_into_the_bytes_of_one_render() {
    require_gpu();
    let dir = scratch();
    let (one, split) = (dir.join("one"), dir.join("split"));
    let run = |out: &Path, extra: &[&str]| {
        let mut c = simreel();
        c.args(["render", "tests/scenes/flock_30.toml", "tests/scenes/dice_30.toml", "--size", "96x72", "--out"]).arg(out).args(extra);
        c.output().unwrap()
    };
    ok(&run(&one, &["--quiet"]));
    // an earlier split of the flock alone left shard 2's manifest; this split gives shard 2 no
    // flock frames, so it removes that manifest rather than leave it to confuse the merge
    ok(&render(&split, &["--shard", "2/4"], &[]));
    assert!(split.join("flock/shard-2-of-4.json").is_file());
    let mut said = Vec::new();
    for i in 1..=4 {
        let o = run(&split, &["--shard", &format!("{i}/4")]);
        ok(&o);
        said.push(String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("").to_string());
    }
    // a dice frame costs about five flock frames (more shading per pixel, a heavier step), so
    // the flock's 30 frames are under a fifth of the work: they stay whole on shard 1, which
    // takes the dice's first frames to make up its share; the other three split the rest evenly
    assert_eq!(shards_of(&split, "flock", 4), [1]);
    assert_eq!(shards_of(&split, "dice", 4), [1, 2, 3, 4]);
    assert!(said[0].starts_with("shard 1/4 renders flock (0..29), dice (0.."), "{said:?}");
    assert!(said[1].starts_with("shard 2/4 renders dice ("), "{said:?}");
    let dice: Vec<usize> = (1..=4)
        .map(|i| {
            let m: serde_json::Value =
                serde_json::from_slice(&std::fs::read(split.join(format!("dice/shard-{i}-of-4.json"))).unwrap()).unwrap();
            m["frames"].as_array().unwrap().len()
        })
        .collect();
    assert_eq!(dice.iter().sum::<usize>(), 30);
    assert!(dice[0] < dice[1] && dice[1..].iter().all(|&n| n.abs_diff(dice[1]) <= 1), "{dice:?}");
    let o = simreel().arg("merge").arg(&split).args(["--shards", "4"]).output().unwrap();
    ok(&o);
    same_scene(&one, &split, "flock", 30);
    same_scene(&one, &split, "dice", 30);
    // a shard that ran with other scenes splits the work differently: merge names it
    let other = dir.join("other");
    ok(&simreel()
        .args(["render", "tests/scenes/dice_30.toml", "--size", "96x72", "--shard", "2/4", "--quiet", "--out"])
        .arg(&other)
        .output()
        .unwrap());
    std::fs::copy(other.join("dice/shard-2-of-4.json"), split.join("dice/shard-2-of-4.json")).unwrap();
    let o = simreel().arg("merge").arg(&split).arg("tests/scenes/dice_30.toml").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("a different split of the frames"), "{err}");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn shards_from_slurm_and_kubernetes_merge_into_the_bytes_of_one_render() {
    require_gpu();
    let dir = scratch();
    let (one, split) = (dir.join("one"), dir.join("split"));
    ok(&render(&one, &[], &[]));
    // shard 1 given; shard 2 from a Slurm array task (--array=4-6: task 5 of min 4); shard 3 from a
    // Kubernetes Indexed Job (completion index 2 of 3)
    ok(&render(&split, &["--shard", "1/3"], &[]));
    let slurm =
        render(&split, &["--shard", "auto"], &[("SLURM_ARRAY_TASK_ID", "5"), ("SLURM_ARRAY_TASK_MIN", "4"), ("SLURM_ARRAY_TASK_MAX", "6")]);
    ok(&slurm);
    let k8s = render(&split, &["--shard", "auto"], &[("JOB_COMPLETION_INDEX", "2"), ("SIMREEL_SHARDS", "3")]);
    ok(&k8s);
    // a shard writes frames and its manifest, no GIF and no manifest.json
    assert!(!split.join("flock.gif").exists() && !split.join("flock/manifest.json").exists());
    let shard: serde_json::Value = serde_json::from_slice(&std::fs::read(split.join("flock/shard-2-of-3.json")).unwrap()).unwrap();
    assert_eq!(shard["shard"]["index"], 2);
    assert_eq!(shard["frames"].as_array().unwrap().len(), 10);
    let o = merge(&split);
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("30 frames from 3 shards"));
    same_render(&one, &split);
    // without scene arguments, merge finds the scenes from the shards' manifests
    std::fs::remove_file(split.join("flock.gif")).unwrap();
    ok(&simreel().arg("merge").arg(&split).output().unwrap());
    same_render(&one, &split);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn merge_names_what_is_missing_or_disagrees_and_a_rerun_shard_finishes_the_job() {
    require_gpu();
    let dir = scratch();
    let (one, split) = (dir.join("one"), dir.join("split"));
    ok(&render(&one, &[], &[]));
    for i in 1..=3 {
        ok(&render(&split, &["--shard", &format!("{i}/3")], &[]));
    }
    let shard2 = split.join("flock/shard-2-of-3.json");
    let kept = std::fs::read(&shard2).unwrap();
    let fail = |words: &str| {
        let o = merge(&split);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(words), "wanted {words:?} in:\n{err}");
        assert!(!split.join("flock.gif").exists() && !split.join("flock/manifest.json").exists(), "nothing is written");
    };
    // a shard that never ran
    std::fs::remove_file(&shard2).unwrap();
    fail("shard 2/3 of flock is missing (frames 10..19)");
    // a shard killed half-way: its manifest lists what it finished
    let mut m: serde_json::Value = serde_json::from_slice(&kept).unwrap();
    m["frames"].as_array_mut().unwrap().truncate(6);
    std::fs::write(&shard2, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    std::fs::remove_file(split.join("flock/frame_0017.png")).unwrap();
    fail("shard 2/3 of flock has not written frames 16, 17, 18, 19");
    // a shard rendered at another size disagrees
    let other = dir.join("other");
    ok(&simreel()
        .args(["render", "tests/scenes/flock_30.toml", "--size", "64x48", "--shard", "3/3", "--quiet", "--out"])
        .arg(&other)
        .output()
        .unwrap());
    let shard3 = split.join("flock/shard-3-of-3.json");
    let good3 = std::fs::read(&shard3).unwrap();
    std::fs::copy(other.join("flock/shard-3-of-3.json"), &shard3).unwrap();
    std::fs::write(&shard2, &kept).unwrap();
    fail("shard 3/3 of flock does not agree with shard 1/3: rendered at 64×48 against 96×72");
    std::fs::write(&shard3, good3).unwrap();
    // shard 2 rerun (its manifest as the killed run left it) as a Slurm rerun of that task alone
    // (`sbatch --array=2`: the array's first and only task, of the plan's SIMREEL_SHARDS): the rest
    // of its frames are written
    std::fs::write(&shard2, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let rerun = [("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_MIN", "2"), ("SLURM_ARRAY_TASK_COUNT", "1"), ("SIMREEL_SHARDS", "3")];
    ok(&render(&split, &["--shard", "auto", "--resume"], &rerun));
    // a merge while another holds the scene (this test's own process stands in for it)
    let lock = split.join("flock/.simreel.lock");
    std::fs::write(&lock, std::process::id().to_string()).unwrap();
    fail("is being written by process");
    std::fs::remove_file(&lock).unwrap();
    ok(&merge(&split));
    same_render(&one, &split);
}

#[test]
fn bad_shards_are_refused_before_anything_renders() {
    let out = scratch();
    for (shard, words) in [("0/3", "out of range"), ("4/3", "out of range"), ("1/0", "at least 1 shard"), ("two", "not a shard")] {
        let o = render(&out, &["--shard", shard], &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{shard}: {err}");
        assert!(err.contains(words), "{shard}: {err}");
    }
    for (env, words) in [
        (vec![], "found no scheduler"),
        (vec![("SLURM_ARRAY_TASK_ID", "3")], "neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX"),
        (vec![("SLURM_ARRAY_TASK_ID", "9"), ("SLURM_ARRAY_TASK_COUNT", "4")], "out of range"),
        (vec![("JOB_COMPLETION_INDEX", "1")], "SIMREEL_SHARDS"),
        (vec![("SLURM_ARRAY_TASK_ID", "9"), ("SIMREEL_SHARDS", "8")], "out of range"),
    ] {
        let o = render(&out, &["--shard", "auto"], &env);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{env:?}: {err}");
        assert!(err.contains(words), "{env:?}: {err}");
    }
    assert!(std::fs::read_dir(&out).unwrap().next().is_none(), "nothing was written");
    // merging a folder with no shards
    let o = simreel().arg("merge").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = root();
}

/// kubernetes-validate (PyPI; scripts/ensure-test-tools puts it in target/test-tools/venv).
fn kubernetes_validate() -> std::process::Command {
    let venv = crate::common::test_tools().join("venv/bin/kubernetes-validate");
    let path = if venv.is_file() { venv } else { std::path::PathBuf::from("kubernetes-validate") };
    std::process::Command::new(path)
}

#[test]
fn the_kubernetes_plan_is_a_valid_indexed_job_and_merge_job() {
    let dir = scratch();
    let o = simreel()
        .args(["plan", "scenes/dice.toml", "scenes/flock.toml", "--shards", "8", "--k8s", "--parallelism", "4", "--gpus", "1"])
        .args(["--cpus", "4", "--memory", "8Gi", "--image", "registry.example/simreel:1.2", "--claim", "renders", "--mount", "/data/out"])
        .args(["--workdir", "/srv/simreel", "--size", "1024x1024", "--format", "png,gif"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let yaml = String::from_utf8(o.stdout).unwrap();
    let file = dir.join("plan.yaml");
    std::fs::write(&file, &yaml).unwrap();
    // against the Job schema, strictly (unknown fields are errors), for an old and the newest API
    for version in ["1.27.0", "1.37.0"] {
        let v = kubernetes_validate()
            .args(["--strict", "-k", version])
            .arg(&file)
            .output()
            .expect("kubernetes-validate: run scripts/ensure-test-tools");
        let said = format!("{}{}", String::from_utf8_lossy(&v.stdout), String::from_utf8_lossy(&v.stderr));
        assert!(v.status.success() && said.matches("passed").count() == 2, "{version}:\n{said}\n{yaml}");
    }
    // the validator does catch a broken Job
    let broken = dir.join("broken.yaml");
    std::fs::write(&broken, yaml.replace("completions: 8", "completions: eight")).unwrap();
    assert!(!kubernetes_validate().arg("--strict").arg(&broken).output().unwrap().status.success());
    // what the Jobs do
    for words in [
        "completionMode: Indexed",
        "completions: 8",
        "parallelism: 4",
        "name: SIMREEL_SHARDS\n          value: \"8\"",
        "\"render\", \"scenes/dice.toml\", \"scenes/flock.toml\", \"--out\", \"/data/out\", \"--shard\", \"auto\", \"--resume\"",
        "\"--size=1024x1024\", \"--format=png,gif\"",
        "\"merge\", \"/data/out\", \"scenes/dice.toml\", \"scenes/flock.toml\", \"--format\", \"png,gif\", \"--shards\", \"8\", \"--wait\"",
        "nvidia.com/gpu: 1",
        "claimName: \"renders\"",
        "workingDir: \"/srv/simreel\"",
        "image: \"registry.example/simreel:1.2\"",
    ] {
        assert!(yaml.contains(words), "missing {words:?} in:\n{yaml}");
    }
    assert_eq!(yaml.matches("kind: Job").count(), 2);
}

#[test]
fn the_slurm_plan_submits_an_array_and_a_merge_after_it_and_bad_plans_are_refused() {
    let o = simreel()
        .args(["plan", "scenes/flock.toml", "--shards", "5", "--slurm", "--partition", "gpu", "--time", "2:00:00", "--gpus", "1"])
        .args(["--cpus", "8", "--memory", "16G", "--out", "/shared/it's here", "--frames", "0..99", "--backend", "vulkan"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = String::from_utf8(o.stdout).unwrap();
    for words in [
        "--array=1-5 --partition=gpu --time=2:00:00 --cpus-per-task=8 --gpus=1 --mem=16G --export=ALL,SIMREEL_SHARDS=5",
        "--dependency=afterok:\"$render\"",
        "render scenes/flock.toml --out '/shared/it'\\\\''s here' --shard auto --resume --frames=0..99 --backend=vulkan",
        "merge '/shared/it'\\\\''s here' scenes/flock.toml --shards 5",
    ] {
        assert!(script.contains(words), "missing {words:?} in:\n{script}");
    }
    // bash reads it
    let syntax = std::process::Command::new("bash").arg("-n").arg("-c").arg(&script).output().unwrap();
    assert!(syntax.status.success(), "{}", String::from_utf8_lossy(&syntax.stderr));
    for (args, words) in [
        (vec!["plan", "scenes/flock.toml", "--shards", "4"], "--slurm"),
        (vec!["plan", "scenes/flock.toml", "--shards", "0", "--slurm"], "0"),
        (vec!["plan", "scenes/flock.toml", "--shards", "2", "--slurm", "--k8s"], "cannot be used with"),
        (vec!["plan", "scenes/flock.toml", "--shards", "2", "--slurm", "--frames", "0..5000"], "--frames"),
        (vec!["plan", "scenes/nope.toml", "--shards", "2", "--slurm"], "nope.toml"),
    ] {
        let o = simreel().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_merge_started_first_waits_for_the_shards() {
    require_gpu();
    let dir = scratch();
    let (one, split) = (dir.join("one"), dir.join("split"));
    ok(&render(&one, &[], &[]));
    std::fs::create_dir_all(&split).unwrap();
    // as the Kubernetes plan's merge Job does: it starts with the shards and waits for them
    let waiting = simreel()
        .arg("merge")
        .arg(&split)
        .args(["tests/scenes/flock_30.toml", "--wait", "120"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    for i in [2, 3, 1] {
        ok(&render(&split, &["--shard", &format!("{i}/3")], &[]));
    }
    let o = waiting.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("waiting up to 120 s for the shards"), "{err}");
    same_render(&one, &split);
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_shard_killed_without_warning_keeps_its_finished_frames_for_the_rerun() {
    require_gpu();
    let dir = scratch();
    let (one, split) = (dir.join("one"), dir.join("split"));
    let long = ["--size", "96x72", "--quiet", "--out"];
    let run = |out: &Path, extra: &[&str]| {
        simreel().args(["render", "tests/scenes/flock_300.toml"]).args(long).arg(out).args(extra).output().unwrap()
    };
    ok(&run(&one, &[]));
    // the shard's manifest is rewritten while it runs (here every 20 ms): kill -9 once one is there
    let mut shard = simreel()
        .args(["render", "tests/scenes/flock_300.toml"])
        .args(long)
        .arg(&split)
        .args(["--shard", "1/1"])
        .env("SIMREEL_CHECKPOINT_MS", "20")
        .spawn()
        .unwrap();
    let manifest = split.join("flock/shard-1-of-1.json");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !manifest.is_file() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    shard.kill().unwrap();
    shard.wait().unwrap();
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let kept = m["frames"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 300, "{kept} frames in the killed shard's manifest");
    // its lock names a dead process: the rerun takes it over and keeps the frames
    assert!(split.join("flock/.simreel-shard-1-of-1.lock").is_file());
    let o = simreel()
        .args(["render", "tests/scenes/flock_300.toml"])
        .args(&long[..2])
        .args(["--out"])
        .arg(&split)
        .args(["--shard", "1/1", "--resume"])
        .output()
        .unwrap();
    ok(&o);
    ok(&simreel().arg("merge").arg(&split).arg("tests/scenes/flock_300.toml").output().unwrap());
    for f in ["flock.gif", "flock/frame_0000.png", "flock/frame_0299.png"] {
        assert!(std::fs::read(one.join(f)).unwrap() == std::fs::read(split.join(f)).unwrap(), "{f} differs");
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_shard_starts_from_a_saved_state_and_draws_the_same_bytes() {
    require_gpu();
    let dir = scratch();
    let (one, split) = (dir.join("one"), dir.join("split"));
    // the first 30 frames of the flock's 390
    let render = |out: &Path, extra: &[&str], _: &[(&str, &str)]| {
        simreel()
            .args(["render", "scenes/flock.toml", "--size", "96x72", "--frames", "0..29", "--quiet", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    ok(&render(&one, &[], &[]));
    // the flock saves its state every 13 frames of its 390 (1/32 of the scene) and at the last
    // frame rendered
    let saved = |d: &Path| {
        let mut v: Vec<String> =
            std::fs::read_dir(d.join("flock/snapshots")).unwrap().flatten().map(|e| e.file_name().to_string_lossy().to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(saved(&one), ["frame_0013.state", "frame_0026.state", "frame_0029.state"]);
    let manifest =
        |d: &Path, file: &str| serde_json::from_slice::<serde_json::Value>(&std::fs::read(d.join("flock").join(file)).unwrap()).unwrap();
    assert!(manifest(&one, "manifest.json").get("simulated_from").is_none(), "the first render simulates from the start");
    let same = |from: Option<u64>| {
        ok(&render(&split, &["--shard", "3/3"], &[]));
        let m = manifest(&split, "shard-3-of-3.json");
        assert_eq!(m["simulated_from"].as_u64(), from);
        let whole = manifest(&one, "manifest.json");
        let states = |m: &serde_json::Value| {
            m["frames"].as_array().unwrap().iter().map(|e| (e["index"].clone(), e["state"].clone())).collect::<Vec<_>>()
        };
        assert_eq!(states(&m), states(&whole)[20..], "the states of frames 20..29");
        assert_eq!(m["final_state"], whole["final_state"]);
        for f in 20..30 {
            let name = format!("flock/frame_{f:04}.png");
            assert!(std::fs::read(one.join(&name)).unwrap() == std::fs::read(split.join(&name)).unwrap(), "{name} differs");
        }
    };
    // shard 3 (frames 20..29) in a folder holding the whole render's states starts from frame 13
    std::fs::create_dir_all(split.join("flock/snapshots")).unwrap();
    for f in saved(&one) {
        std::fs::copy(one.join("flock/snapshots").join(&f), split.join("flock/snapshots").join(&f)).unwrap();
    }
    same(Some(13));
    // a damaged state and one of another version of the scene are passed over
    let path = split.join("flock/snapshots/frame_0013.state");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.truncate(bytes.len() - 5);
    std::fs::write(&path, &bytes).unwrap();
    std::fs::remove_file(split.join("flock/shard-3-of-3.json")).unwrap();
    same(None);
    let other = std::fs::read(one.join("flock/snapshots/frame_0013.state")).unwrap();
    let at = other.iter().position(|&b| b == b'\n').unwrap() + 1;
    let version_end = at + other[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut foreign = other.clone();
    foreign[version_end] ^= 1; // the fingerprint of the scene's simulation
    std::fs::write(&path, &foreign).unwrap();
    std::fs::remove_file(split.join("flock/shard-3-of-3.json")).unwrap();
    same(None);
    // a whole render replaces the foreign state with its own
    ok(&render(&split, &[], &[]));
    assert!(std::fs::read(&path).unwrap() == other, "frame 13's state is this build's again");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn shards_of_two_builds_are_not_merged() {
    require_gpu();
    let out = scratch();
    for i in 1..=2 {
        ok(&render(&out, &["--shard", &format!("{i}/2")], &[]));
    }
    // shard 1 as an earlier build of the same version wrote it
    let msaa = simreel::scene::load(&root().join("scenes/flock.toml")).unwrap().look.msaa;
    crate::render::as_an_earlier_build_wrote_it(&out.join("flock/shard-1-of-2.json"), msaa);
    let o = merge(&out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("does not agree with shard 1/2: rendered by simreel ")
            && err.contains(&format!("against {} (an earlier build)", env!("CARGO_PKG_VERSION"))),
        "{err}"
    );
    assert!(!out.join("flock.gif").exists() && !out.join("flock/manifest.json").exists(), "nothing is written");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
#[cfg_attr(skip_privileged_tests, ignore = "needs root to make a file immutable (SIMREEL_SKIP_PRIVILEGED_TESTS is set)")]
fn a_stale_shard_manifest_that_cannot_be_removed_stops_the_shard() {
    require_gpu();
    // one frame in two shards: shard 2 takes none, and its manifest of an earlier split must go
    let out = scratch();
    std::fs::create_dir_all(out.join("flock")).unwrap();
    let stale = out.join("flock/shard-2-of-2.json");
    std::fs::write(&stale, b"{}").unwrap();
    let _stuck = Immutable::new(&stale);
    let o =
        simreel().args(["render", "scenes/flock.toml", "--frames", "0", "--shard", "2/2", "--quiet", "--out"]).arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot remove") && err.contains("shard-2-of-2.json"), "{err}");
}

#[test]
fn every_command_a_plan_writes_is_read_by_the_real_command_line_parser() {
    use crate::cli::{Cli, Command, ShardArg};
    use clap::Parser;
    let dir = scratch();
    let (bin, args_dir) = (dir.join("bin"), dir.join("args"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&args_dir).unwrap();
    // stand-ins: `simreel` records its arguments (NUL-separated), `sbatch` runs its --wrap command
    // through sh, as Slurm does, and prints a job id
    let script = |name: &str, text: &str| {
        let path = bin.join(name);
        std::fs::write(&path, text).unwrap();
        std::process::Command::new("chmod").arg("+x").arg(&path).status().unwrap();
    };
    script("simreel", "#!/bin/sh\nprintf '%s\\0' \"$@\" > \"$(mktemp \"$ARGS_DIR/args.XXXXXX\")\"\n");
    script("sbatch", "#!/bin/bash\nfor a in \"$@\"; do case \"$a\" in --wrap=*) sh -c \"${a#--wrap=}\" >&2;; esac; done\necho 42\n");
    let plan = |engine: &str| {
        let out = dir.join("it's out");
        let o = simreel()
            .args(["plan", "scenes/flock.toml", "--shards", "3", engine, "--frames=-5..", "--size", "96x72", "--adapter", "it's llvm"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let check = |args: Vec<String>, text: &str| {
        let cli = Cli::try_parse_from(&args).unwrap_or_else(|e| panic!("{args:?} from\n{text}\ndoes not parse: {e}"));
        match cli.command {
            Command::Render(r) => {
                assert!(args.iter().any(|a| a == "--frames=-5.."), "{args:?}");
                assert_eq!(
                    (r.frames.as_deref(), r.shard, r.size, r.adapter.adapter.as_deref()),
                    (Some("-5.."), Some(ShardArg::Auto), Some((96, 72)), Some("it's llvm"))
                );
                "render"
            }
            Command::Merge { shards, .. } => {
                assert_eq!(shards, Some(3));
                "merge"
            }
            other => panic!("a plan ran {other:?}"),
        }
    };
    // Slurm: the script as bash runs it
    let slurm = plan("--slurm");
    let ran = std::process::Command::new("bash")
        .arg("-c")
        .arg(&slurm)
        .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()))
        .env("ARGS_DIR", &args_dir)
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let mut seen = Vec::new();
    for f in std::fs::read_dir(&args_dir).unwrap().flatten() {
        let bytes = std::fs::read(f.path()).unwrap();
        let args: Vec<String> = std::iter::once("simreel".to_string())
            .chain(bytes.split(|&b| b == 0).filter(|a| !a.is_empty()).map(|a| String::from_utf8(a.to_vec()).unwrap()))
            .collect();
        seen.push(check(args, &slurm));
    }
    seen.sort_unstable();
    assert_eq!(seen, ["merge", "render"]);
    // Kubernetes: each container's command, a YAML flow sequence of JSON strings
    let k8s = plan("--k8s");
    let commands: Vec<Vec<String>> =
        k8s.lines().filter_map(|l| l.trim().strip_prefix("command: ")).map(|c| serde_json::from_str(c).unwrap()).collect();
    let mut seen: Vec<&str> = commands.into_iter().map(|c| check(c, &k8s)).collect();
    seen.sort_unstable();
    assert_eq!(seen, ["merge", "render"]);
}
