//! Split renders: `render --shard I/N` (given, or read from Slurm's or Kubernetes' environment)
//! and `simreel merge`, which writes the same bytes as one machine's render, or refuses with the
//! shard named.

use std::path::Path;

use crate::common::{require_gpu, root, scratch, simreel};

/// `scenes/flock.toml`, 30 frames at 96×72, into `out` (extra arguments and environment added).
fn render(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = simreel();
    c.args(["render", "scenes/flock.toml", "--size", "96x72", "--frames", "0..29", "--quiet", "--out"]).arg(out).args(extra);
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
    simreel().arg("merge").arg(out).arg("scenes/flock.toml").output().unwrap()
}

fn ok(o: &std::process::Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Every file of a render: frames, GIF, and the manifest's frames and final state.
fn same_render(a: &Path, b: &Path) {
    let frames = |d: &Path| {
        let mut v: Vec<_> = std::fs::read_dir(d.join("flock"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .filter(|n| n.to_string_lossy().ends_with(".png"))
            .collect();
        v.sort();
        v
    };
    let names = frames(a);
    assert_eq!(names.len(), 30);
    assert_eq!(names, frames(b));
    for n in &names {
        assert!(std::fs::read(a.join("flock").join(n)).unwrap() == std::fs::read(b.join("flock").join(n)).unwrap(), "{n:?} differs");
    }
    assert!(std::fs::read(a.join("flock.gif")).unwrap() == std::fs::read(b.join("flock.gif")).unwrap(), "the GIFs differ");
    let manifest = |d: &Path| serde_json::from_slice::<serde_json::Value>(&std::fs::read(d.join("flock/manifest.json")).unwrap()).unwrap();
    let (ma, mb) = (manifest(a), manifest(b));
    for key in ["frames", "final_state", "scene_hash", "settings_hash", "frames_in_scene"] {
        assert_eq!(ma[key], mb[key], "{key}");
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn shards_from_slurm_and_kubernetes_merge_into_the_bytes_of_one_render() {
    require_gpu();
    let dir = scratch("shards-merge");
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
    let dir = scratch("shards-faults");
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
        .args(["render", "scenes/flock.toml", "--size", "64x48", "--frames", "0..29", "--shard", "3/3", "--quiet", "--out"])
        .arg(&other)
        .output()
        .unwrap());
    let shard3 = split.join("flock/shard-3-of-3.json");
    let good3 = std::fs::read(&shard3).unwrap();
    std::fs::copy(other.join("flock/shard-3-of-3.json"), &shard3).unwrap();
    std::fs::write(&shard2, &kept).unwrap();
    fail("shard 3/3 of flock does not agree with shard 1/3: settings (size 64×48");
    std::fs::write(&shard3, good3).unwrap();
    // shard 2 rerun (its manifest as the killed run left it): the rest of its frames are written
    std::fs::write(&shard2, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    ok(&render(&split, &["--shard", "2/3", "--resume"], &[]));
    // a merge while another holds the scene (this test's own process stands in for it)
    let lock = split.join("flock/.simreel.lock");
    std::fs::write(&lock, std::process::id().to_string()).unwrap();
    fail("");
    std::fs::remove_file(&lock).unwrap();
    ok(&merge(&split));
    same_render(&one, &split);
}

#[test]
fn bad_shards_are_refused_before_anything_renders() {
    let out = scratch("shards-bad");
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
