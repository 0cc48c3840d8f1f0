//! `--set KEY=VALUE`: a value over the scene file's, read as the file's own would be.

use std::path::Path;

use simreel::scene::overrides::Override;

use crate::common::{require_gpu, root, scratch, shipped_scenes, simreel};

/// Every value a table gives, as `(key path, TOML text)`, lists of tables by index.
fn leaves(table: &toml::Table, at: &str, out: &mut Vec<(String, String)>) {
    for (k, v) in table {
        let path = if at.is_empty() { k.clone() } else { format!("{at}.{k}") };
        match v {
            toml::Value::Table(t) => leaves(t, &path, out),
            toml::Value::Array(a) if !a.is_empty() && a.iter().all(toml::Value::is_table) => {
                for (i, t) in a.iter().enumerate() {
                    leaves(t.as_table().expect("a table"), &format!("{path}[{i}]"), out);
                }
            }
            v => out.push((path, v.to_string())),
        }
    }
}

/// Every value of every shipped scene, given again by `--set` as the file gives it, reads to the
/// same scene: the edited text is the file's, the key found where the file puts it (at the top,
/// in a header table, a dotted key, an inline table, a list of tables).
#[test]
fn every_value_of_every_shipped_scene_set_to_itself_reads_to_the_same_scene() {
    let mut checked = 0;
    for path in shipped_scenes() {
        let text = std::fs::read_to_string(&path).unwrap();
        let plain = simreel::scene::parse(&text, &path).unwrap();
        let mut all = Vec::new();
        leaves(&text.parse::<toml::Table>().unwrap(), "", &mut all);
        for (key, value) in all {
            let o: Override = format!("{key}={value}").parse().unwrap_or_else(|e| panic!("{}: {key}={value}: {e}", path.display()));
            let mut set = simreel::scene::overrides::parse_with(&text, &path, std::slice::from_ref(&o))
                .unwrap_or_else(|e| panic!("{}: --set {key}={value}: {e}", path.display()));
            assert_eq!(set.overrides, vec![o.to_string()]);
            set.overrides.clear();
            assert!(set == plain, "{}: --set {key}={value} read to another scene", path.display());
            checked += 1;
        }
    }
    assert!(checked > 500, "only {checked} values checked");
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn a_set_value_renders_is_recorded_and_changes_the_frames_identity() {
    require_gpu();
    let dir = scratch();
    let scene = root().join("scenes/flock.toml");
    let render = |sets: &[&str]| {
        let mut cmd = simreel();
        cmd.arg("render").arg(&scene).args(["--frames", "0..1", "--size", "160x90", "--format", "png", "-q", "--out"]).arg(&dir);
        for s in sets {
            cmd.args(["--set", s]);
        }
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    render(&[]);
    // a shell takes the quotes off: a plain word is a string
    render(&["name=flock-dark", "flock.theme=dark"]);
    let (light, dark) = (manifest(&dir.join("flock")), manifest(&dir.join("flock-dark")));
    assert!(light.get("overrides").is_none(), "{light}");
    assert_eq!(dark["overrides"], serde_json::json!(["name=\"flock-dark\"", "flock.theme=\"dark\""]));
    assert_ne!(light["identity"]["drawing"], dark["identity"]["drawing"]);
    assert_eq!(light["identity"]["simulation"], dark["identity"]["simulation"], "the theme is the drawing's");
    // the light frame is mostly light, the dark one mostly dark
    let mean = |d: &str| {
        let png = crate::common::read_png(&dir.join(d).join("frame_0001.png"));
        png.rgba.chunks(4).map(|p| p[0] as f64 + p[1] as f64 + p[2] as f64).sum::<f64>() / (png.rgba.len() / 4) as f64 / 3.0
    };
    let (l, d) = (mean("flock"), mean("flock-dark"));
    assert!(l > 180.0 && d < 80.0, "mean levels: light {l:.0}, dark {d:.0}");
}

#[test]
fn a_value_the_file_could_not_give_is_refused_by_key_before_anything_renders() {
    let dir = scratch();
    let o = simreel()
        .arg("render")
        .arg(root().join("scenes/flock.toml"))
        .args(["--set", "flock.theme=lite", "--set", "render.fps=0", "--set", "flock.agentz=4", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for said in [
        "flock.toml with --set flock.theme=\"lite\" render.fps=0 flock.agentz=4 has 3 problems",
        "flock.theme: \"lite\" is not one of",
        "render.fps: 0 is out of range",
        "flock.agentz: unknown key `agentz` in [flock] (did you mean `agents`?)",
    ] {
        assert!(err.contains(said), "{said:?} not in:\n{err}");
    }
    assert!(!dir.join("flock").exists(), "something rendered");
    // not KEY=VALUE, not a key path, not TOML: refused as the argument is read
    for bad in ["flock", "flock..theme=1", "render.fps=[1,"] {
        let o = simreel().args(["validate", "scenes/flock.toml", "--set", bad]).current_dir(root()).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "--set {bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--set <KEY=VALUE>"), "--set {bad}");
    }
    // a path through a value: said by its key
    let o = simreel().args(["validate", "scenes/flock.toml", "--set", "render.fps.x=1"]).current_dir(root()).output().unwrap();
    assert!(String::from_utf8_lossy(&o.stderr).contains("render.fps.x: render.fps holds a value (integer), not a table"));
}
