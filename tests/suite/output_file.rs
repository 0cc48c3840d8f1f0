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
    assert_eq!(std::fs::read(dir.join("figs/last.png")).unwrap(), std::fs::read(dir.join("out/hero/frame_0009.png")).unwrap());
    // an animation the render keeps as it was is written all the same
    let o = run(&["-o", "again.gif", "--resume", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(dir.join("again.gif")).unwrap(), std::fs::read(dir.join("hero.gif")).unwrap());
    // refused before anything renders, with what to do
    for (args, said) in [
        (&["-o", "a.webp"][..], "the extension says what to write"),
        (&["-o", "a.png"][..], "a still is one frame, and this render has 10 (name one: --frames -1"),
        (&["-o", "a.apng", "--frames", "0..3"][..], "the apng holds every frame of the scene, and --frames names 4 of its 10"),
        (&["-o", "a.gif", "hero.toml"][..], "names one file, for one scene (2 given)"),
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
    }
    assert!(["a.webp", "a.png", "a.apng", "a.gif"].iter().all(|f| !dir.join(f).exists()));
}
