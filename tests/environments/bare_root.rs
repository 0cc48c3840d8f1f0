//! A system root without `/dev/stdout` (a chroot into an exported image, a minimal build
//! sandbox): ffmpeg writes into the temporary file through that name where it leads to the open
//! file, and elsewhere into a private folder of simreel's own whose file is copied in. Here a
//! mount namespace puts an empty `/dev` (with only `/dev/null`) over the system's, and each
//! ffmpeg format renders the bytes it does with `/dev` in place (the muxers write no random
//! identifiers: `-fflags +bitexact`), leaving no folder behind.

use std::path::Path;
use std::process::Command;

use crate::common::{require_gpu, root, scratch};

/// `simreel render` of the flock test scene into `out` as `formats`, with `TMPDIR` at `tmp`,
/// under `/dev` emptied by `unshare` (`bare`) or as it is.
fn render(out: &Path, tmp: &Path, formats: &str, bare: bool) {
    let binary = env!("CARGO_BIN_EXE_simreel");
    let scene = root().join("tests/scenes/flock_30.toml");
    let render = format!("'{binary}' render '{}' --size 64x36 --format {formats} --out '{}' --quiet", scene.display(), out.display());
    let script = if bare {
        format!("mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 && test ! -e /dev/stdout && {render}")
    } else {
        render
    };
    let mut c = if bare { Command::new("unshare") } else { Command::new("sh") };
    if bare {
        c.args(["--mount", "--propagation", "private", "sh"]);
    }
    let o = c.args(["-c", &script]).env("TMPDIR", tmp).env_remove("SIMREEL_BACKEND").output().expect("run sh or unshare");
    assert!(o.status.success(), "{script} (bare: {bare}):\n{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
#[cfg_attr(skip_privileged_tests, ignore = "needs root to mount a tmpfs over /dev (SIMREEL_SKIP_PRIVILEGED_TESTS is set)")]
fn videos_render_the_same_bytes_where_dev_stdout_leads_nowhere() {
    require_gpu();
    let dir = scratch();
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let formats = "mp4,webm,webp,avif";
    render(&dir.join("plain"), &tmp, formats, false);
    render(&dir.join("bare"), &tmp, formats, true);
    for ext in ["mp4", "webm", "webp", "avif"] {
        let name = format!("flock.{ext}");
        let (plain, bare) = (std::fs::read(dir.join("plain").join(&name)).unwrap(), std::fs::read(dir.join("bare").join(&name)).unwrap());
        assert!(plain.len() > 1000, "{name}: {} bytes", plain.len());
        assert!(plain == bare, "{name}: {} bytes with /dev, {} bytes without", plain.len(), bare.len());
    }
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");
}
