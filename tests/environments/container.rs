//! The container image, built for real from this checkout: Debian's podman builds the
//! Containerfile with `--isolation=chroot` (through `scripts/build-image`, with the binary these
//! tests run where this host is bookworm) on a bookworm base made
//! by `debootstrap --variant=minbase` and brought in with `podman import`, so no registry is
//! needed. Running containers is not permitted on CI machines, so the image's filesystem is
//! exported and simreel runs inside it with `chroot`: its frames must be byte for byte the host's
//! lavapipe render, and its golden check must pass on its own lavapipe. Each step's time is
//! printed (`-- --nocapture`), since this is the suite's most expensive test.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::common::{require_gpu, root, scratch, simreel};

/// The imported base, kept between runs (a second run skips debootstrap).
const BASE: &str = "localhost/simreel-test-base:bookworm";
/// The image's scenes rendered and compared, with their frames: a translucent die and a
/// marching-cubes figure, two of the scenes llvmpipe through GL draws differently.
const SCENES: [(&str, &str); 2] = [("scenes/dice.toml", "0,-1"), ("scenes/figures/mc_chunks.toml", "0")];

/// Runs `cmd`, failing the test with its output when it fails; returns its stdout. Says how long
/// it took.
fn step(what: &str, cmd: &mut Command) -> String {
    let t = Instant::now();
    let out = cmd.stdin(Stdio::null()).output().unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    eprintln!("container test: {what}: {:.1} s", t.elapsed().as_secs_f64());
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn podman(args: &[&str]) -> Command {
    let mut c = Command::new("podman");
    c.args(args);
    c
}

/// The base image: a minimal bookworm from debootstrap, imported once (the tests that need it
/// take turns).
fn ensure_base(dir: &Path) {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if podman(&["image", "exists", BASE]).status().is_ok_and(|s| s.success()) {
        eprintln!("container test: base {BASE} is already imported");
        return;
    }
    let rootfs = dir.join("base");
    let mirror = std::env::var("SIMREEL_DEBIAN_MIRROR").unwrap_or_else(|_| apt_mirror());
    eprintln!("container test: debootstrap from {mirror}");
    step(
        "debootstrap --variant=minbase bookworm",
        Command::new("debootstrap").args(["--variant=minbase", "bookworm"]).arg(&rootfs).arg(&mirror),
    );
    let import = format!("tar -C '{}' -c . | podman import - {BASE}", rootfs.display());
    step("podman import", Command::new("sh").args(["-c", &import]));
    std::fs::remove_dir_all(&rootfs).expect("remove the base's folder");
}

/// The Debian mirror this machine's apt uses (a CI machine may reach only its own), else Debian's.
fn apt_mirror() -> String {
    let mut sources: Vec<String> = std::fs::read_dir("/etc/apt/sources.list.d")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    sources.extend(std::fs::read_to_string("/etc/apt/sources.list").ok());
    let uris = sources.iter().flat_map(|text| text.lines()).flat_map(|l| {
        let l = l.trim();
        let words: Vec<&str> = match l.strip_prefix("URIs:") {
            Some(rest) => rest.split_whitespace().collect(),
            None if l.starts_with("deb ") => l.split_whitespace().filter(|w| w.contains("://")).take(1).collect(),
            None => Vec::new(),
        };
        words.into_iter().map(str::to_string).collect::<Vec<_>>()
    });
    let mut main = uris.filter(|u| u.trim_end_matches('/').ends_with("/debian"));
    main.next().unwrap_or_else(|| "http://deb.debian.org/debian".into())
}

/// Whether this machine runs Debian bookworm, the image's base: a binary built here runs there.
fn host_is_bookworm() -> bool {
    let release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    release.lines().any(|l| l == "ID=debian") && release.lines().any(|l| l == "VERSION_CODENAME=bookworm")
}

/// The built image's filesystem, exported into `into`.
fn export(image: &str, into: &Path) {
    let name = &format!("simreel-test-export-{}", into.file_name().unwrap().to_string_lossy());
    let _ = podman(&["rm", "--force", name]).output();
    step("podman create (not run)", &mut podman(&["create", "--name", name, image, "true"]));
    std::fs::create_dir_all(into).unwrap();
    let unpack = format!("podman export {name} | tar -x -C '{}'", into.display());
    step("podman export, unpacked", Command::new("bash").args(["-c", &format!("set -o pipefail; {unpack}")]));
    let _ = podman(&["rm", "--force", name]).output();
}

/// `simreel ARGS` inside the image's filesystem, in its working folder `/simreel`.
fn in_image(rootfs: &Path, what: &str, args: &str) -> (String, String) {
    let t = Instant::now();
    let out = Command::new("chroot")
        .arg(rootfs)
        .args(["/bin/sh", "-c", &format!("cd /simreel && simreel {args}")])
        .env_clear()
        .env("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        .env("HOME", "/root")
        .stdin(Stdio::null())
        .output()
        .expect("run chroot");
    eprintln!("container test: {what} in the image: {:.1} s", t.elapsed().as_secs_f64());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "simreel {args} failed in the image ({}):\n{stdout}\n{stderr}", out.status);
    (stdout, stderr)
}

/// Every PNG under `dir`, by name, with its bytes.
fn pngs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    found.sort();
    found
}

#[test]
#[cfg_attr(
    skip_container_tests,
    ignore = "needs root, podman and debootstrap (SIMREEL_SKIP_CONTAINER_TESTS is set; scripts/test installs them as root)"
)]
fn the_image_builds_from_this_checkout_and_renders_the_hosts_bytes() {
    require_gpu();
    let started = Instant::now();
    let dir = scratch();
    ensure_base(&dir);
    let image = simreel::plan::IMAGE;
    // the binary these tests run goes into the image when it was built on the image's system
    // (bookworm, as on CI): the image is then what was tested, and no second build of simreel
    // runs inside it; elsewhere the image builds its own
    let mut build = Command::new(root().join("scripts/build-image"));
    if host_is_bookworm() {
        build.args(["--binary", env!("CARGO_BIN_EXE_simreel")]);
    } else {
        eprintln!("container test: this host is not Debian bookworm: the image builds simreel itself");
    }
    build
        .args(["--isolation=chroot", "--build-arg", &format!("BASE={BASE}")])
        .env("CONTAINER_ENGINE", "podman")
        .env_remove("SIMREEL_IMAGE");
    step("scripts/build-image (podman build --isolation=chroot)", &mut build);
    assert!(podman(&["image", "exists", image]).status().unwrap().success(), "scripts/build-image did not tag {image}");
    // the Kubernetes plan runs that image unless told otherwise
    let plan = step("simreel plan --k8s", simreel().args(["plan", SCENES[0].0, "--shards", "2", "--k8s"]));
    assert!(plan.contains(&format!("image: \"{image}\"")), "the plan's default image is not {image}:\n{plan}");

    let rootfs = dir.join("rootfs");
    export(image, &rootfs);
    let size = "--size=160x90";
    for (scene, frames) in SCENES {
        let name = Path::new(scene).file_stem().unwrap().to_string_lossy().into_owned();
        let args = format!("render {scene} --frames={frames} {size} --out /tmp/out --quiet");
        in_image(&rootfs, &format!("render {name}"), &args);
        let host_out = dir.join("host");
        step(
            &format!("render {name} on the host's lavapipe"),
            simreel()
                .args(["render", scene, "--frames=0,-1", size, "--backend", "vulkan", "--adapter", "llvmpipe", "--quiet", "--out"])
                .arg(&host_out),
        );
        let (inside, host) = (pngs(&rootfs.join("tmp/out").join(&name)), pngs(&host_out.join(&name)));
        // the same bytes need the same lavapipe: bookworm's, as on CI; a host with another Mesa
        // can only run the check inside the image below
        let driver = |dir: &Path| -> String {
            let m: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
            format!("{} {}", m["adapter_info"]["name"], m["adapter_info"]["driver_info"])
        };
        let (image_driver, host_driver) = (driver(&rootfs.join("tmp/out").join(&name)), driver(&host_out.join(&name)));
        if image_driver != host_driver {
            eprintln!(
                "container test: the host's lavapipe is {host_driver}, the image's {image_driver}: frames not compared byte for byte"
            );
            continue;
        }
        assert_eq!(inside.len(), frames.split(',').count(), "{name}: the image rendered {} frames", inside.len());
        assert_eq!(inside.iter().map(|f| &f.0).collect::<Vec<_>>(), host.iter().map(|f| &f.0).collect::<Vec<_>>());
        for ((file, a), (_, b)) in inside.iter().zip(&host) {
            assert!(a == b, "{name}/{file}: the image's frame differs from the host's lavapipe render");
        }
    }
    // the image's golden check passes on its own lavapipe, and says that is why it uses it
    let (_, said) = in_image(&rootfs, "golden check", &format!("golden check {} {} --out /tmp/golden", SCENES[0].0, SCENES[1].0));
    assert!(said.contains("the adapter the goldens were approved on (approved-on.toml)"), "{said}");
    assert!(!said.contains("warning:"), "{said}");
    assert!(said.contains("golden frames match"), "{said}");
    // and it holds ffmpeg for MP4: a whole scene (animations are made only from every frame of
    // one), six frames long
    std::fs::write(
        rootfs.join("tmp/flock.toml"),
        "kind = \"flock\"\nname = \"flock\"\nseed = 4\n[render]\nwidth = 160\nheight = 90\nfps = 30\nduration = 0.2\n",
    )
    .expect("write a short scene into the image");
    in_image(&rootfs, "render an MP4", "render /tmp/flock.toml --format mp4 --out /tmp/mp4 --quiet");
    let mp4 = rootfs.join("tmp/mp4/flock.mp4");
    assert!(std::fs::metadata(&mp4).is_ok_and(|m| m.len() > 1000), "no MP4 at {}", mp4.display());
    std::fs::remove_dir_all(&rootfs).expect("remove the exported filesystem");
    eprintln!("container test: {:.0} s in all", started.elapsed().as_secs_f64());
}

/// The Linux release archives `scripts/dist` makes, in a fresh Debian bookworm (the debootstrap
/// base: no Rust, no Mesa, nothing of this machine's): their SHA-256 sums check, they unpack, and
/// the binaries run there: `--version`, a scene validated, two pictures compared (exit 0 for the
/// same, 4 for different ones), and a render that says which Vulkan driver to install; the
/// README's render from inside the unpacked archive then renders on this machine.
#[test]
#[cfg_attr(
    skip_container_tests,
    ignore = "needs root, podman and debootstrap (SIMREEL_SKIP_CONTAINER_TESTS is set; scripts/test installs them as root)"
)]
fn the_release_archives_run_in_a_fresh_bookworm() {
    let dir = scratch();
    ensure_base(&dir);
    let bins = dir.join("bins");
    std::fs::create_dir_all(&bins).unwrap();
    let built = Path::new(env!("CARGO_BIN_EXE_simreel")).parent().unwrap().to_path_buf();
    for bin in ["simreel", "simreel-compare"] {
        std::fs::copy(built.join(bin), bins.join(bin)).unwrap_or_else(|e| panic!("{bin} is built with the workspace: {e}"));
        let _ = Command::new("strip").arg(bins.join(bin)).status();
    }
    let rootfs = dir.join("fresh");
    export(BASE, &rootfs);
    let release = rootfs.join("tmp/release");
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    step(
        "scripts/dist (the archives of this checkout's build)",
        Command::new(root().join("scripts/dist")).arg(&target).arg(&release).env("SIMREEL_DIST_BINARIES", &bins),
    );
    std::fs::copy(root().join("scenes/flock.toml"), release.join("flock.toml")).unwrap();
    let golden = root().join("tests/golden/cargo_hitch");
    std::fs::copy(golden.join("frame_0060.png"), release.join("a.png")).unwrap();
    std::fs::copy(golden.join("frame_0170.png"), release.join("b.png")).unwrap();
    let v = env!("CARGO_PKG_VERSION");
    let script = format!(
        "cd /tmp/release && sha256sum -c ./*.sha256 && for a in ./*.tar.gz; do tar -xzf \"$a\"; done
         S=./simreel-v{v}-{target}/simreel; C=./simreel-compare-v{v}-{target}/simreel-compare
         $S --version && $S validate flock.toml
         (cd ./simreel-v{v}-{target} && ./simreel validate scenes >/dev/null; echo \"the archive's scenes: $?\"
          ./simreel render scenes/terrain.toml --frames 0 -q; echo \"archive render: $?\")
         $C compare a.png a.png -q; echo \"same: $?\"; $C compare a.png b.png -q; echo \"different: $?\"
         $S render flock.toml --frames 0 -q; echo \"render: $?\""
    );
    let t = Instant::now();
    let out = Command::new("chroot")
        .arg(&rootfs)
        .args(["/bin/sh", "-c", &script])
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("HOME", "/root")
        .stdin(Stdio::null())
        .output()
        .expect("run chroot");
    eprintln!("container test: the archives in a fresh bookworm: {:.1} s", t.elapsed().as_secs_f64());
    let (said, err) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}\n{err}");
    for line in [
        format!("simreel-v{v}-{target}.tar.gz: OK"),
        format!("simreel-compare-v{v}-{target}.tar.gz: OK"),
        format!("simreel {v}"),
        "flock.toml: ok".into(),
        "same: 0".into(),
        "different: 4".into(),
        "render: 3".into(),
        // the README's command from inside the archive: its scenes are there (no Vulkan here)
        "the archive's scenes: 0".into(),
        "archive render: 3".into(),
    ] {
        assert!(said.contains(&line), "no `{line}` in:\n{said}\n{err}");
    }
    assert!(err.contains("apt-get install mesa-vulkan-drivers"), "a render without Vulkan says what to install:\n{err}");
    // and the README's command renders where Vulkan is (this machine: lavapipe), from inside the
    // archive the chroot unpacked, as a user who downloaded it runs it
    let unpacked = release.join(format!("simreel-v{v}-{target}"));
    let o =
        Command::new("./simreel").args(["render", "scenes/terrain.toml", "--frames", "0", "-q"]).current_dir(&unpacked).output().unwrap();
    assert!(o.status.success(), "the archive's README command on this machine:\n{}", String::from_utf8_lossy(&o.stderr));
    let frame = unpacked.join("out/terrain/frame_0000.png");
    let png = simreel_compare::image::decode(&std::fs::read(&frame).unwrap_or_else(|e| panic!("{}: {e}", frame.display()))).unwrap();
    assert!(png.width >= 64 && png.rgba.chunks_exact(4).any(|p| p != &png.rgba[..4]), "a frame with a picture in it");
    binstall_finds(&release, &target);
    std::fs::remove_dir_all(&rootfs).ok();
}

/// `[package.metadata.binstall]` of each crate, expanded for `target` as `cargo binstall` expands
/// it, names an archive `scripts/dist` made in `dir` (the file after the release's tag) and a
/// binary inside it; Windows' override names the `.zip`.
fn binstall_finds(dir: &Path, target: &str) {
    for (manifest, bin) in [("Cargo.toml", "simreel"), ("crates/simreel-compare/Cargo.toml", "simreel-compare")] {
        let text = std::fs::read_to_string(root().join(manifest)).unwrap();
        let cargo: toml::Table = toml::from_str(&text).unwrap();
        let package = cargo["package"].as_table().unwrap();
        let version = package["version"].as_str().unwrap();
        let meta = package["metadata"]["binstall"].as_table().unwrap();
        let expand = |t: &str, target: &str, ext: &str| {
            t.replace("{ repo }", package["repository"].as_str().unwrap())
                .replace("{ version }", version)
                .replace("{ target }", target)
                .replace("{ bin }", bin)
                .replace("{ binary-ext }", ext)
        };
        let url = expand(meta["pkg-url"].as_str().unwrap(), target, "");
        let prefix = format!("{}/releases/download/v{version}/", package["repository"].as_str().unwrap());
        let archive = url.strip_prefix(&prefix).unwrap_or_else(|| panic!("{manifest}: {url} is not a release download"));
        assert!(dir.join(archive).is_file(), "{manifest}: binstall looks for {archive}, which scripts/dist does not make");
        let listed = Command::new("tar").arg("-tzf").arg(dir.join(archive)).output().unwrap();
        let inside = expand(meta["bin-dir"].as_str().unwrap(), target, "");
        assert!(String::from_utf8_lossy(&listed.stdout).lines().any(|l| l == inside), "{manifest}: no {inside} in {archive}");
        let windows = &meta["overrides"]["x86_64-pc-windows-msvc"];
        assert_eq!(windows["pkg-fmt"].as_str(), Some("zip"));
        let zip = expand(windows["pkg-url"].as_str().unwrap(), "x86_64-pc-windows-msvc", ".exe");
        assert!(zip.ends_with(&format!("/{bin}-v{version}-x86_64-pc-windows-msvc.zip")), "{manifest}: {zip}");
    }
}

/// The comparator as `scripts/dist` builds it for Linux (`scripts/build-static-compare`: glibc
/// linked in, static-pie) runs in a root that holds nothing but itself and two pictures: no libc,
/// no loader, no /proc. What runs there runs on Alpine, Debian 11 and every other Linux.
#[test]
#[cfg_attr(skip_container_tests, ignore = "needs root for chroot (SIMREEL_SKIP_CONTAINER_TESTS is set; scripts/test runs as root)")]
fn the_static_comparator_runs_in_an_empty_root() {
    let built = step("scripts/build-static-compare", &mut Command::new(root().join("scripts/build-static-compare")));
    let binary = Path::new(built.trim());
    assert!(binary.is_file(), "scripts/build-static-compare printed {built:?}");
    let elf = std::fs::read(binary).unwrap();
    // a 64-bit ELF without a PT_INTERP program header: nothing loads it but the kernel
    assert!(elf.starts_with(b"\x7fELF\x02"), "not a 64-bit ELF");
    let u16_at = |i: usize| u16::from_le_bytes([elf[i], elf[i + 1]]) as usize;
    let (ph, size, count) = (u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize, u16_at(0x36), u16_at(0x38));
    let types: Vec<u32> = (0..count).map(|k| u32::from_le_bytes(elf[ph + k * size..][..4].try_into().unwrap())).collect();
    assert!(!types.is_empty() && !types.contains(&3), "program headers {types:?}: PT_INTERP (3) names a dynamic loader");
    let empty = scratch().join("empty-root");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::copy(binary, empty.join("simreel-compare")).unwrap();
    let judged = root().join("crates/simreel-compare/tests/fixtures/judgement/square-corners");
    std::fs::copy(judged.join("expected.png"), empty.join("a.png")).unwrap();
    std::fs::copy(judged.join("actual.png"), empty.join("b.png")).unwrap();
    let run = |args: &[&str]| {
        Command::new("chroot")
            .arg(&empty)
            .arg("/simreel-compare")
            .args(args)
            .env_clear()
            .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
            .stdin(Stdio::null())
            .output()
            .expect("run chroot")
    };
    let v = run(&["--version"]);
    assert!(v.status.success() && String::from_utf8_lossy(&v.stdout).starts_with("simreel-compare "), "{v:?}");
    assert_eq!(run(&["compare", "/a.png", "/a.png", "--out", "/same", "-q"]).status.code(), Some(0));
    let differ = run(&["compare", "/a.png", "/b.png", "--out", "/differ"]);
    assert_eq!(differ.status.code(), Some(4), "{}", String::from_utf8_lossy(&differ.stderr));
    assert!(String::from_utf8_lossy(&differ.stderr).contains("compact difference"), "{}", String::from_utf8_lossy(&differ.stderr));
    assert!(empty.join("differ/compare-report/report.html").is_file(), "the report is written in the empty root");
    eprintln!("the static comparator: {} bytes", elf.len());
}
