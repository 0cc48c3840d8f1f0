use std::os::unix::fs::{PermissionsExt, symlink};

use super::*;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("simreel-fs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn temporary_names_are_unguessable_and_say_their_process() {
    let a = temp_name(OsStr::new("frame_0001.png"));
    let b = temp_name(OsStr::new("frame_0001.png"));
    assert_ne!(a, b);
    let a = a.to_str().unwrap();
    assert!(a.starts_with(&format!("frame_0001.png.{}-", std::process::id())) && a.ends_with(".tmp"), "{a}");
    assert_eq!(temp_owner(a), Some(std::process::id()));
    // the names of earlier versions are still a dead run's
    assert_eq!(temp_owner("frame_0001.png.4242.tmp"), Some(4242));
    assert_eq!(temp_owner("wind.gif.17-00112233aabbccdd.tmp"), Some(17));
    for not in ["notes.tmp", "a.b12.tmp", "a.12-xyz.tmp", "a.12-00112233aabbccd.tmp", "a.-00112233aabbccdd.tmp", "frame.png"] {
        assert_eq!(temp_owner(not), None, "{not}");
    }
}

#[test]
fn a_write_replaces_a_planted_link_and_never_writes_through_one() {
    let dir = scratch("planted");
    let victim = dir.join("victim");
    std::fs::write(&victim, b"secret").unwrap();
    let shared = dir.join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    // a link under the file's own name, and under every name of the old temporary pattern
    symlink(&victim, shared.join("a.png")).unwrap();
    for pid in std::process::id().saturating_sub(5)..std::process::id() + 5 {
        symlink(&victim, shared.join(format!("a.png.{pid}.tmp"))).unwrap();
    }
    write_renaming(&shared.join("a.png"), b"new", true).unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"secret");
    assert!(!std::fs::symlink_metadata(shared.join("a.png")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(shared.join("a.png")).unwrap(), b"new");
    // reading back what a file named: never through a link
    symlink(&victim, shared.join("b.png")).unwrap();
    let e = read_plain(&shared.join("b.png")).unwrap_err();
    assert!(e.to_string().contains("symbolic link"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_swapped_for_a_link_after_it_was_opened_takes_nothing() {
    let dir = scratch("swap");
    let (work, elsewhere) = (dir.join("work"), dir.join("elsewhere"));
    std::fs::create_dir_all(work.join("out")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let folder = Folder::open(&work.join("out")).unwrap();
    std::fs::rename(work.join("out"), work.join("moved")).unwrap();
    symlink(&elsewhere, work.join("out")).unwrap();
    folder.write(OsStr::new("x.png"), b"x", false).unwrap();
    let mut file = folder.atomic(OsStr::new("y.png")).unwrap();
    file.write_all(b"y").unwrap();
    file.commit().unwrap();
    folder.remove(OsStr::new("x.png")).unwrap();
    assert!(names(&elsewhere).is_empty(), "{:?}", names(&elsewhere));
    assert_eq!(names(&work.join("moved")), ["y.png"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn links_of_ones_own_are_followed_and_links_of_another_user_are_not() {
    let dir = scratch("owners");
    std::fs::create_dir_all(dir.join("real/sub")).unwrap();
    symlink(dir.join("real"), dir.join("mine")).unwrap();
    symlink("real/sub", dir.join("relative")).unwrap();
    write_renaming(&dir.join("mine/sub/a.txt"), b"a", false).unwrap();
    write_renaming(&dir.join("relative/b.txt"), b"b", false).unwrap();
    write_renaming(&dir.join("mine/../relative/../c.txt"), b"c", false).unwrap();
    assert_eq!(names(&dir.join("real/sub")), ["a.txt", "b.txt"]);
    assert_eq!(names(&dir.join("real")), ["c.txt", "sub"]);
    // a loop of links ends
    symlink(dir.join("loop"), dir.join("loop")).unwrap();
    assert!(Folder::create(&dir.join("loop/x")).is_err());
    // a link that another user owns (only root can make one to try)
    if sys::me() == 0 {
        symlink(dir.join("real"), dir.join("theirs")).unwrap();
        std::os::unix::fs::lchown(dir.join("theirs"), Some(65534), Some(65534)).unwrap();
        let e = write_renaming(&dir.join("theirs/d.txt"), b"d", false).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        assert!(e.to_string().contains("another user's (uid 65534)"), "{e}");
        assert!(!dir.join("real/d.txt").exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_plain_files_are_read_back_and_a_fifo_does_not_block() {
    let dir = scratch("plain");
    let folder = Folder::open(&dir).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let fifo = std::process::Command::new("mkfifo").arg(dir.join("pipe")).status();
    if fifo.is_ok_and(|s| s.success()) {
        let e = folder.read(OsStr::new("pipe")).unwrap_err();
        assert!(e.to_string().contains("not a plain file"), "{e}");
    }
    assert!(folder.read(OsStr::new("sub")).is_err());
    assert_eq!(folder.read(OsStr::new("missing")).unwrap_err().kind(), std::io::ErrorKind::NotFound);
    for bad in ["", ".", "..", "a/b"] {
        assert_eq!(folder.read(OsStr::new(bad)).unwrap_err().kind(), std::io::ErrorKind::InvalidInput, "{bad:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn removing_a_folder_removes_links_in_it_and_not_what_they_lead_to() {
    let dir = scratch("remove");
    std::fs::create_dir_all(dir.join("keep")).unwrap();
    std::fs::write(dir.join("keep/k"), b"k").unwrap();
    std::fs::create_dir_all(dir.join("stale/deep")).unwrap();
    std::fs::write(dir.join("stale/deep/f"), b"f").unwrap();
    symlink(dir.join("keep"), dir.join("stale/to-folder")).unwrap();
    symlink(dir.join("keep/k"), dir.join("stale/deep/to-file")).unwrap();
    remove_stale(&dir.join("stale")).unwrap();
    remove_stale(&dir.join("stale")).unwrap();
    assert_eq!(names(&dir), ["keep"]);
    assert_eq!(std::fs::read(dir.join("keep/k")).unwrap(), b"k");
    // a link itself goes, not what it leads to
    symlink(dir.join("keep"), dir.join("link")).unwrap();
    remove_stale(&dir.join("link")).unwrap();
    assert_eq!(names(&dir.join("keep")), ["k"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_atomic_file_appears_whole_on_commit_and_its_temporary_goes_otherwise() {
    let dir = scratch("atomic");
    let folder = Folder::create(&dir.join("made/here")).unwrap();
    let mut f = folder.atomic(OsStr::new("a.bin")).unwrap();
    f.write_all(b"half").unwrap();
    assert_eq!(names(folder.path()).len(), 1);
    assert!(!folder.path().join("a.bin").exists(), "visible before the commit");
    f.commit().unwrap();
    let g = folder.atomic(OsStr::new("a.bin")).unwrap();
    drop(g);
    assert_eq!(names(folder.path()), ["a.bin"]);
    assert_eq!(std::fs::read(folder.path().join("a.bin")).unwrap(), b"half");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn folders_others_can_write_are_told_apart() {
    let dir = scratch("shared");
    let mode = |m: u32| {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(m)).unwrap();
        Folder::open(&dir).unwrap().shared().map(|s| s.why.clone())
    };
    assert_eq!(mode(0o755), None);
    assert_eq!(mode(0o777).as_deref(), Some("writable by every user"));
    // sticky and one's own: others may add names but not replace one's files
    assert_eq!(mode(0o1777), None);
    if sys::me() == 0 {
        std::os::unix::fs::chown(&dir, Some(65534), None).unwrap();
        assert!(mode(0o755).is_some_and(|w| w.starts_with("owned by another user (uid 65534")));
        // a sticky folder of another user's (as /tmp is root's: root is trusted)
        assert!(mode(0o1777).is_some_and(|w| w.starts_with("owned by another user (uid 65534")));
    }
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_temporary_folder_is_private_unguessable_and_gone_when_dropped() {
    let a = TempFolder::new("simreel-fs-test").unwrap();
    let b = TempFolder::new("simreel-fs-test").unwrap();
    assert_ne!(a.folder.path(), b.folder.path());
    let name = a.folder.path().file_name().unwrap().to_str().unwrap().to_string();
    assert!(
        name.starts_with(&format!("simreel-fs-test-{}-", std::process::id()))
            && name.len() == "simreel-fs-test-".len() + std::process::id().to_string().len() + 17,
        "{name}"
    );
    assert_eq!(std::fs::metadata(a.folder.path()).unwrap().permissions().mode() & 0o777, 0o700);
    a.folder.write(OsStr::new("x.json"), b"{}", false).unwrap();
    let path = a.folder.path().to_path_buf();
    drop(a);
    assert!(!path.exists());
}

#[test]
fn the_implementation_without_openat_writes_reads_and_removes_the_same_way() {
    use super::portable_here as p;
    let dir = scratch("portable");
    let root = p::open_dir(&dir.join("a/b"), true).unwrap();
    let (tmp, mut f) = p::create_temp(&root, OsStr::new("x.png")).unwrap();
    f.write_all(b"x").unwrap();
    drop(f);
    p::rename(&root, &tmp, OsStr::new("x.png")).unwrap();
    assert_eq!(std::io::read_to_string(p::open_file(&root, OsStr::new("x.png"), &dir).unwrap()).unwrap(), "x");
    assert_eq!(p::kind(&root, OsStr::new("x.png")).unwrap(), Kind::File);
    symlink(dir.join("a/b/x.png"), dir.join("a/b/l.png")).unwrap();
    assert!(p::open_file(&root, OsStr::new("l.png"), &dir).is_err(), "a link is not read as a plain file");
    p::remove(&root, OsStr::new("l.png")).unwrap();
    let sub = p::child_dir(&root, OsStr::new("c"), true).unwrap();
    p::create_new(&sub, OsStr::new("lock"), true).unwrap();
    assert!(p::create_new(&sub, OsStr::new("lock"), true).is_err());
    p::make_private_dir(&root, OsStr::new("d")).unwrap();
    let mut names = p::names(&root, &dir).unwrap();
    names.sort();
    assert_eq!(names, ["c", "d", "x.png"]);
    p::remove(&root, OsStr::new("c")).unwrap();
    assert!(p::trusted_link(&dir) && p::clone(&root).is_ok() && p::open_or_create(&root, OsStr::new("e"), true).is_ok());
    assert!(p::open_trusted(&root, OsStr::new("x.png"), &dir).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}
