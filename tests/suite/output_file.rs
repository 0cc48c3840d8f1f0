//! `render -o FILE`: the result a blog uses, written where the user says, by its extension.

use crate::common::{require_gpu, scratch, simreel};

#[test]
fn o_writes_the_animation_or_the_still_the_extension_names() {
    require_gpu();
    let dir = scratch();
    let scene = dir.join("hero.toml");
    std::fs::write(
        &scene,
        "kind = \"flock\"\nname = \"hero\"\nseed = 3\n[render]\nwidth = 160\nheight = 90\nfps = 10\nduration = 1.0\n[flock]\nagents = 20\n",
    )
    .unwrap();
    let run = |args: &[&str]| simreel().current_dir(&dir).arg("render").arg(&scene).args(args).output().unwrap();
    let o = run(&["-o", "hero.gif"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("hero: wrote hero.gif (from out/hero.gif)"));
    assert_eq!(std::fs::read(dir.join("hero.gif")).unwrap(), std::fs::read(dir.join("out/hero.gif")).unwrap());
    // a still: the frame --frames names, kept from the render before
    let o = run(&["-o", "figs/last.png", "--frames", "-1", "--resume", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the frame's pixels, written as small as the encoder makes them (this flat 2-D drawing: at
    // least a quarter smaller than the frame the render keeps)
    let (still, frame) = (dir.join("figs/last.png"), dir.join("out/hero/frame_0009.png"));
    assert_eq!(crate::common::read_png(&still).rgba, crate::common::read_png(&frame).rgba);
    let (a, b) = (std::fs::metadata(&still).unwrap().len(), std::fs::metadata(&frame).unwrap().len());
    assert!(a * 4 <= b * 3, "-o a.png is {a} bytes, the frame {b}");
    // an animation the render keeps as it was is written all the same
    let o = run(&["-o", "again.gif", "--resume", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(dir.join("again.gif")).unwrap(), std::fs::read(dir.join("hero.gif")).unwrap());
    // refused before anything renders, with what to do
    for (args, said) in [
        (&["-o", "a.txt"][..], "the extension says what to write"),
        (&["-o", "a.png"][..], "a still is one frame, and this render has 10 (name one: --frames -1"),
        (
            &["-o", "a.apng", "--frames", "0,3"][..],
            "the apng holds every frame of the scene or a run of them (--frames 0..29), and --frames names 2 of its 10 that are not one run",
        ),
        (&["-o", "a.gif", "hero.toml"][..], "names one file, for one scene (2 given)"),
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    assert!(["a.txt", "a.png", "a.apng", "a.gif"].iter().all(|f| !dir.join(f).exists()));
}

/// `--scale 2`: twice the pixels of the same picture (the same simulation, the same layout: a
/// 2× frame averaged 2×2 is the 1× frame but for its finer edges), in `<scene>@2x`.
#[test]
fn scale_renders_the_same_picture_at_n_times_the_pixels_named_at_nx() {
    require_gpu();
    let dir = scratch();
    for scene in ["scenes/flock.toml", "scenes/terrain.toml"] {
        let name = std::path::Path::new(scene).file_stem().unwrap().to_str().unwrap();
        let run = |extra: &[&str]| {
            let mut cmd = simreel();
            cmd.arg("render").arg(crate::common::root().join(scene));
            cmd.args(["--frames", "5", "--format", "png", "-q", "--set", "render.width=160", "--set", "render.height=96", "--out"]);
            let o = cmd.arg(&dir).args(extra).output().unwrap();
            assert!(o.status.success(), "{scene}: {}", String::from_utf8_lossy(&o.stderr));
        };
        run(&[]);
        run(&["--scale", "2"]);
        let one = crate::common::read_png(&dir.join(format!("{name}/frame_0005.png")));
        let two = crate::common::read_png(&dir.join(format!("{name}@2x/frame_0005.png")));
        assert_eq!((two.width, two.height), (320, 192), "{scene}");
        let (w, h) = (one.width as usize, one.height as usize);
        let mut sum = 0.0;
        for y in 0..h {
            for x in 0..w {
                for c in 0..3 {
                    let at = |xx: usize, yy: usize| two.rgba[(yy * 2 * w + xx) * 4 + c] as f64;
                    let avg = (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1)) / 4.0;
                    sum += (avg - one.rgba[(y * w + x) * 4 + c] as f64).abs();
                }
            }
        }
        let mean = sum / (w * h * 3) as f64;
        assert!(mean < 3.0, "{scene}: the 2× frame averaged differs from the 1× by {mean:.2} levels on average");
        let manifest = |d: &str| -> serde_json::Value {
            serde_json::from_str(&std::fs::read_to_string(dir.join(d).join("manifest.json")).unwrap()).unwrap()
        };
        let (m1, m2) = (manifest(name), manifest(&format!("{name}@2x")));
        assert_eq!(m1["identity"]["simulation"], m2["identity"]["simulation"], "{scene}: the same simulation");
        assert_eq!(m1["frames"][0]["state"], m2["frames"][0]["state"], "{scene}");
    }
}
