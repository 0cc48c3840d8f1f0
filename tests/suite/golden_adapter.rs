//! Which adapter a golden check uses on a machine where another is preferred. This machine plays
//! "a laptop with a GPU": `SIMREEL_BACKEND=gl` makes llvmpipe through GL the adapter `auto` picks,
//! as a laptop's GPU would be. Hiding lavapipe (`VK_ICD_FILENAMES` pointing at no driver) plays a
//! machine without it. Both adapters are Mesa 22.3's, and GL draws 1 of the 64 shipped golden
//! frames differently (`flock_inset`'s), so checking on the wrong one fails.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{require_gpu, root, scratch, simreel};

/// A scene GL draws differently from lavapipe (with its simulation states identical), and one it
/// draws alike.
const DIFFERING: [&str; 2] = ["scenes/figures/flock_inset.toml", "scenes/dice.toml"];

/// The jelly dice, whose translucent bodies GL and Vulkan drew up to 43 levels apart (their inner
/// faces lying on the table, each adapter's depth arithmetic deciding which was nearer), pass
/// their goldens through GL: the inner faces are pushed behind what they lie on.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn the_jelly_dice_draw_alike_through_gl_and_vulkan() {
    require_gpu();
    require_gl();
    let out = scratch();
    let dice = [
        "scenes/dice.toml",
        "scenes/dice_firmness.toml",
        "scenes/dice_pull.toml",
        "scenes/figures/dice_cocked.toml",
        "scenes/figures/dice_roll.toml",
    ];
    let o = simreel().args(["golden", "check", "--backend", "gl"]).args(dice).arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(summary(&out)["other_adapter"].as_str().is_some_and(|a| a.contains("(gl,")), "{}", text(&o));
}

/// `simreel` on a machine whose preferred adapter is llvmpipe through GL.
fn laptop() -> Command {
    let mut c = simreel();
    c.env("SIMREEL_BACKEND", "gl");
    c
}

/// `simreel` on a machine where the Vulkan loader finds no driver: no lavapipe.
fn without_lavapipe() -> Command {
    let mut c = simreel();
    c.env("VK_ICD_FILENAMES", "/nonexistent/no_icd.json").env_remove("VK_DRIVER_FILES");
    c
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn require_gl() {
    let gl = simreel().args(["adapters", "--backend", "gl"]).output().unwrap();
    assert!(gl.status.success(), "no GL adapter: install libegl1 and libgl1-mesa-dri (scripts/test does)\n{}", text(&gl));
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("golden-report/summary.json")).unwrap()).unwrap()
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_default_check_uses_the_adapter_the_goldens_were_approved_on_where_another_is_preferred() {
    require_gpu();
    require_gl();
    let dir = scratch();
    // the preference is real: a render picks GL
    let o = laptop()
        .args(["render", "scenes/flock.toml", "--frames=0", "--size=64x36", "--format=png", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let manifest = std::fs::read_to_string(dir.join("flock/manifest.json")).unwrap();
    assert!(manifest.contains("\"backend\": \"gl\""), "SIMREEL_BACKEND=gl did not make GL the preferred adapter:\n{manifest}");
    let says = String::from_utf8_lossy(&laptop().arg("adapters").output().unwrap().stdout).into_owned();
    assert!(says.contains("(gl, CPU (software)) (preferred by SIMREEL_BACKEND=gl)"), "{says}");
    assert!(says.contains("golden checks pick: llvmpipe") && says.contains("(vulkan,"), "{says}");

    // the default check renders on lavapipe, says so and why, and passes
    let out = dir.join("default");
    let o = laptop().args(["golden", "check"]).args(DIFFERING).arg("--out").arg(&out).output().unwrap();
    let err = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("golden: both scenes on llvmpipe") && err.contains("(vulkan, CPU (software)"), "{err}");
    assert!(err.contains("the adapter the goldens were approved on (approved-on.toml)"), "{err}");
    assert!(err.contains("golden frames match on llvmpipe"), "{err}");
    assert!(summary(&out)["adapter"].as_str().unwrap().contains("(vulkan,"));

    // asked for GL, it renders there: the same frames fail, each labelled "other adapter"
    let out = dir.join("asked");
    let o = laptop().args(["golden", "check", "--backend", "gl"]).args(DIFFERING).arg("--out").arg(&out).output().unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("as --backend/--adapter asked"), "{err}");
    assert!(err.contains("on another adapter: llvmpipe") && err.contains("not lavapipe, which the goldens were approved on"), "{err}");
    let s = summary(&out);
    assert!(s["other_adapter"].as_str().is_some_and(|o| o.contains("(gl,")), "{s}");
    let frames = s["frames"].as_array().unwrap();
    assert!(frames.iter().any(|f| f["passed"] == false), "GL drew these scenes like lavapipe: pick scenes it draws differently");
    for f in frames {
        assert!(f["verdict"].as_str().unwrap().starts_with("other adapter: "), "{f}");
        // a failure there offers no bless command, which would be refused, and says why
        assert!(f["bless"].is_null(), "{f}");
        assert!(f["passed"] == true || f["cannot_accept"].as_str().unwrap().starts_with("not on this adapter"), "{f}");
    }
    let html = std::fs::read_to_string(out.join("golden-report/report.html")).unwrap();
    assert!(html.contains("<b>Other adapter:</b>"));
    assert!(html.contains("no image to accept here") && !html.contains("accept the new image"), "a bless command on another adapter");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn without_lavapipe_a_check_says_what_to_install_and_labels_its_failures() {
    require_gpu();
    require_gl();
    let dir = scratch();
    let out = dir.join("out");
    let o = without_lavapipe().args(["golden", "check", DIFFERING[0], "--out"]).arg(&out).output().unwrap();
    let err = text(&o);
    assert_eq!(o.status.code(), Some(4), "{err}");
    let install = simreel::render::device::lavapipe_install(simreel::render::device::read_os_release().as_deref());
    let warning = err.find(
        "warning: lavapipe (Mesa's Vulkan driver on the CPU), the adapter the canonical goldens were approved on, is not on this machine",
    );
    let rendering = err.find("golden: flock_inset on llvmpipe");
    assert!(warning.is_some() && rendering.is_some() && warning < rendering, "the warning comes first:\n{err}");
    assert!(err.contains(&format!("install it: {install}")), "{err}");
    assert!(err.contains("overrides: the scenes have none"), "{err}");
    assert!(err.contains("(gl, CPU (software)): the best adapter here"), "{err}");
    assert!(err.contains("FAIL flock_inset frame 0: other adapter: "), "{err}");
    assert!(summary(&out)["other_adapter"].is_string());

    // a scene with an override for GL is checked there, against the override's own images
    let goldens = dir.join("goldens");
    let base = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap();
    let scene = dir.join("over.toml");
    std::fs::write(
        &scene,
        format!(
            "{base}\n[golden]\nframes = [10]\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n\
             [[golden.overrides]]\nbackend = \"gl\"\nvendor = \"mesa\"\nimages = \"gl\"\nchannel = 0\nmax_pixels = 0\nreason = \"test: GL against its own images\"\n"
        ),
    )
    .unwrap();
    // blessing there is refused before anything renders, even a scene GL could take
    let fresh = dir.join("bless");
    let o = without_lavapipe()
        .args(["golden", "bless", "--goldens"])
        .arg(&goldens)
        .arg("--out")
        .arg(&fresh)
        .arg(&scene)
        .arg(DIFFERING[0])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("refusing to bless flock_inset on llvmpipe"), "{}", text(&o));
    assert!(!fresh.join("golden-run").exists() && !goldens.exists(), "it rendered or wrote before refusing");

    let golden = |cmd: &mut Command, verb: &str| {
        cmd.args(["golden", verb, "--goldens"]).arg(&goldens).arg("--out").arg(&out).arg(&scene).output().unwrap()
    };
    let o = golden(&mut simreel(), "bless");
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("(approved on llvmpipe") && text(&o).contains("(vulkan,"), "{}", text(&o));
    let record = std::fs::read_to_string(goldens.join("small_terrain/approved-on.toml")).unwrap();
    assert!(record.contains("backend = \"vulkan\"") && record.contains("driver = \"llvmpipe\""), "{record}");
    let o = golden(&mut without_lavapipe(), "bless");
    let err = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("lavapipe is missing; the override \"gl\" covers this adapter (the canonical images, its tolerance)"), "{err}");
    assert!(err.contains("every scene has an override for an adapter this machine has"), "{err}");
    let record = std::fs::read_to_string(goldens.join("small_terrain/gl/approved-on.toml")).unwrap();
    assert!(record.contains("backend = \"gl\""), "{record}");
    let o = golden(&mut without_lavapipe(), "check");
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("the override \"gl\" holds images approved on this adapter"), "{}", text(&o));
    assert!(summary(&out).get("other_adapter").is_none(), "an override's adapter is not another adapter");
}

#[test]
fn the_install_command_follows_the_system() {
    use simreel::render::device::lavapipe_install;
    if cfg!(not(target_os = "linux")) {
        assert!(lavapipe_install(None).contains("container image"));
        return;
    }
    let cases = [
        ("ID=debian\n", "sudo apt-get install mesa-vulkan-drivers"),
        ("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=debian\n", "sudo apt-get install mesa-vulkan-drivers"),
        ("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", "sudo apt-get install mesa-vulkan-drivers"),
        ("ID=fedora\n", "sudo dnf install mesa-vulkan-drivers"),
        ("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", "sudo dnf install mesa-vulkan-drivers"),
        ("ID=arch\n", "sudo pacman -S vulkan-swrast"),
        ("ID=endeavouros\nID_LIKE=arch\n", "sudo pacman -S vulkan-swrast"),
    ];
    for (release, want) in cases {
        assert_eq!(lavapipe_install(Some(release)), want, "{release}");
    }
    let unknown = lavapipe_install(Some("ID=gentoo\n"));
    for want in ["apt-get", "dnf", "pacman", "container image"] {
        assert!(unknown.contains(want), "{unknown}");
    }
    assert_eq!(lavapipe_install(None), unknown, "no os-release reads as an unknown system");
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn another_lavapipe_than_the_recorded_one_is_named_and_a_partial_bless_keeps_the_record() {
    require_gpu();
    let dir = scratch();
    let (goldens, out) = (dir.join("goldens"), dir.join("out"));
    let base = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap();
    let scene = dir.join("small.toml");
    let golden = "\n[golden]\nframes = [0, 10]\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n";
    std::fs::write(&scene, format!("{base}{golden}")).unwrap();
    let run = |args: &[&str]| {
        simreel().arg("golden").args(args).arg("--goldens").arg(&goldens).arg("--out").arg(&out).arg(&scene).output().unwrap()
    };
    assert!(run(&["bless"]).status.success());
    let path = goldens.join("small_terrain/approved-on.toml");
    let real = std::fs::read_to_string(&path).unwrap();
    assert!(real.contains("driver_info = \"Mesa "), "{real}");
    // as if approved on another Mesa: the check names both, even with --quiet, and still passes
    let other = real
        .lines()
        .map(|l| if l.starts_with("driver_info") { "driver_info = \"Mesa 0.0.1 (LLVM 1.0)\"" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&path, &other).unwrap();
    let o = run(&["check", "--quiet"]);
    let err = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: this machine's lavapipe") && err.contains("is not the one the goldens were approved on: llvmpipe"),
        "{err}"
    );
    assert!(err.contains("Mesa 0.0.1 (LLVM 1.0)"), "{err}");
    // blessing one frame keeps the record (the other image is still the recorded adapter's)
    assert!(run(&["bless", "--filter", "small_terrain:10"]).status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), other);
    // blessing them all records this machine's
    assert!(run(&["bless"]).status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), real);
    assert!(!text(&run(&["check", "--quiet"])).contains("warning"));
}
