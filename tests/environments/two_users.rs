//! Safe beside a hostile neighbour. Two throwaway accounts in one group: the victim works in a
//! folder of mode 2775 that the attacker can write too (a shared `/tmp` project, a CI workspace,
//! a cluster's output folder), with a umask of 002 as such groups use; the attacker
//! (`attacker.py`) sprays links to the victim's files under every temporary name a simreel
//! process could use, plants links under the names simreel writes and reads back, replaces the
//! victim's files with links and swaps every folder for a link to one of the victim's folders
//! and back, in a loop, while the victim renders, resumes, merges shards, blesses, checks,
//! reviews and accepts (report, pending images, a comparison, `--from-report`, the studio).
//! Afterwards the victim's home must be byte-, mode- and owner-identical, with no file added.
//! The victim's commands may fail (a folder swapped under them is refused): that is the defence.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{require_gpu, root};

const TINY: &str = r#"kind = "flock"
seed = 4

[render]
width = 48
height = 32
fps = 30
frames = 6

[output]
formats = ["png", "gif", "apng"]

[flock]
agents = 12
nodes = 4

[golden]
frames = [0, 4]

[golden.tolerance]
channel = 2
reason = "lavapipe renders bit for bit; 2 levels for another Mesa"
"#;

const TINY_CARGO: &str = "kind = \"cargo\"\nseed = 1\n\n[render]\nwidth = 48\nheight = 32\nfps = 30\nframes = 40\n";

/// Two accounts and a group made for the test, and its folders; all gone when dropped.
struct Accounts {
    victim: String,
    attacker: String,
    group: String,
    base: PathBuf,
}

fn run(cmd: &mut Command) -> Output {
    let o = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(o.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&o.stderr));
    o
}

fn id(flag: &str, user: &str) -> u32 {
    String::from_utf8_lossy(&run(Command::new("id").args([flag, user])).stdout).trim().parse().unwrap()
}

impl Accounts {
    fn create() -> Accounts {
        let tag = std::process::id() % 100_000;
        let (victim, attacker, group) = (format!("srvictim{tag}"), format!("srattack{tag}"), format!("srshare{tag}"));
        let base = std::env::temp_dir().join(format!("simreel-two-users-{tag}"));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
        run(Command::new("groupadd").arg(&group));
        let accounts = Accounts { victim, attacker, group, base };
        for user in [&accounts.victim, &accounts.attacker] {
            run(Command::new("useradd")
                .args(["-M", "-N", "-G", &accounts.group, "-s", "/bin/sh", "-d"])
                .arg(accounts.base.join(user))
                .arg(user));
        }
        accounts
    }

    /// `program args` as `user`, in `dir`, with umask 002, the environment given and no other.
    fn command(&self, user: &str, dir: &Path, program: &Path, env: &[(&str, &Path)]) -> Command {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid",
            user,
            "--regid",
            &id("-g", user).to_string(),
            "--init-groups",
            "--",
            "sh",
            "-c",
            "umask 002; exec \"$0\" \"$@\"",
        ])
        .arg(program)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LANG", "C.UTF-8");
        for (k, v) in env {
            c.env(k, v);
        }
        c
    }
}

impl Drop for Accounts {
    fn drop(&mut self) {
        for user in [&self.victim, &self.attacker] {
            // every process of the account ended (the studio, a command a failure left) before
            // the account goes
            for _ in 0..50 {
                let _ = Command::new("pkill").args(["-KILL", "-u", user]).status();
                if Command::new("pgrep").args(["-u", user]).output().is_ok_and(|o| o.stdout.is_empty()) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = Command::new("userdel").arg(user).status();
        }
        let _ = Command::new("groupdel").arg(&self.group).status();
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// Everything under `dir`: kind, content, link target, mode, owner and group.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (String, Vec<u8>, u32, u32, u32)> {
    let mut all = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            let (kind, body) = if m.file_type().is_symlink() {
                ("link".to_string(), std::fs::read_link(e.path()).unwrap().into_os_string().into_encoded_bytes())
            } else if m.is_dir() {
                stack.push(e.path());
                ("folder".to_string(), Vec::new())
            } else {
                ("file".to_string(), std::fs::read(e.path()).unwrap())
            };
            all.insert(e.path(), (kind, body, m.mode(), m.uid(), m.gid()));
        }
    }
    all
}

fn picture(shade: u8) -> Vec<u8> {
    let rgba: Vec<u8> = (0..40 * 30).flat_map(|i| [(i % 40 * 6) as u8, shade, 120, 255]).collect();
    simreel::output::png::encode(&rgba, 40, 30, simreel::output::png::Effort::Fast)
}

/// An HTTP request to the studio on 127.0.0.1 (the connection closed after it), its status and
/// body.
fn http(port: u16, method: &str, target: &str, token: &str) -> (u16, String) {
    let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return (0, "no connection".into()) };
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let request = format!(
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Simreel-Token: {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    if s.write_all(request.as_bytes()).is_err() {
        return (0, "not sent".into());
    }
    let mut bytes = Vec::new();
    let _ = s.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (head, mut body) = text.split_once("\r\n\r\n").map(|(h, b)| (h.to_ascii_lowercase(), b.to_string())).unwrap_or_default();
    if head.contains("transfer-encoding: chunked") {
        let (mut whole, mut rest) = (String::new(), body.as_str());
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
            if n == 0 || after.len() < n {
                break;
            }
            whole.push_str(&after[..n]);
            rest = after[n..].trim_start_matches("\r\n");
        }
        body = whole;
    }
    (status, body)
}

/// One try of one of the victim's commands: what it was and how it ended.
struct Try {
    what: &'static str,
    ok: bool,
    said: String,
}

#[test]
#[cfg_attr(skip_privileged_tests, ignore = "needs root, to make two throwaway accounts (SIMREEL_SKIP_PRIVILEGED_TESTS)")]
#[cfg_attr(skip_gpu_tests, ignore = "needs a wgpu adapter (SIMREEL_SKIP_GPU_TESTS)")]
fn a_second_user_who_can_write_the_folder_gets_nothing_into_the_victims_home() {
    require_gpu();
    let users = Accounts::create();
    let base = users.base.clone();
    let (victim_uid, victim_gid, share_gid) = (id("-u", &users.victim), id("-g", &users.victim), {
        let line = String::from_utf8_lossy(&run(Command::new("getent").args(["group", &users.group])).stdout).into_owned();
        line.split(':').nth(2).unwrap().parse::<u32>().unwrap()
    });
    let own = |p: &Path, mode: u32| {
        std::os::unix::fs::chown(p, Some(victim_uid), Some(victim_gid)).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    };

    // the victim's home: keys, a shell profile, pictures, credentials
    let home = base.join(&users.victim);
    for (path, body, mode) in [
        (".bashrc", b"# VICTIM bashrc\n".to_vec(), 0o644),
        (".ssh/id_ed25519", b"-----BEGIN OPENSSH PRIVATE KEY----- VICTIM".to_vec(), 0o600),
        ("Pictures/holiday.png", picture(77), 0o644),
        (".cargo/credentials.toml", b"[registry]\ntoken = \"VICTIM\"\n".to_vec(), 0o600),
    ] {
        let p = home.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, body).unwrap();
        own(&p, mode);
    }
    std::fs::create_dir_all(home.join(".local/share")).unwrap();
    for (d, mode) in [("", 0o755), (".ssh", 0o700), ("Pictures", 0o755), (".cargo", 0o700), (".local", 0o755), (".local/share", 0o755)] {
        own(&home.join(d), mode);
    }
    // the victim's runtime folder (the studio's lock), cache (Mesa's shaders) and state (what
    // their checks rendered), outside the home, so that the home must not change at all
    let (runtime, cache, state) = (base.join("run-victim"), base.join("cache-victim"), base.join("state-victim"));
    for d in [&runtime, &cache, &state] {
        std::fs::create_dir_all(d).unwrap();
        own(d, 0o700);
    }

    // the programs, where both accounts can run them
    let bin = base.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let simreel = bin.join("simreel");
    std::fs::copy(env!("CARGO_BIN_EXE_simreel"), &simreel).unwrap();
    let attacker_script = bin.join("attacker.py");
    std::fs::copy(root().join("tests/environments/attacker.py"), &attacker_script).unwrap();

    // the shared folder: the group's, setgid, group-writable, not sticky
    let shared = base.join("shared");
    let project = shared.join("project");
    for (file, text) in [("scenes/tiny.toml", TINY.to_string()), ("scenes/tiny_cargo.toml", TINY_CARGO.to_string())] {
        std::fs::create_dir_all(project.join(file).parent().unwrap()).unwrap();
        std::fs::write(project.join(file), text).unwrap();
    }
    // the same scene drawn otherwise: its check fails against the goldens of the first
    std::fs::create_dir_all(project.join("changed")).unwrap();
    std::fs::write(project.join("changed/tiny.toml"), TINY.replace("nodes = 4", "nodes = 4\ntheme = \"dark\"")).unwrap();
    let mut stack = vec![shared.clone()];
    while let Some(d) = stack.pop() {
        std::os::unix::fs::chown(&d, Some(victim_uid), Some(share_gid)).unwrap();
        let dir = std::fs::metadata(&d).unwrap().is_dir();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(if dir { 0o2775 } else { 0o664 })).unwrap();
        if dir {
            stack.extend(std::fs::read_dir(&d).unwrap().flatten().map(|e| e.path()));
        }
    }

    let env: Vec<(&str, &Path)> =
        vec![("HOME", &home), ("XDG_RUNTIME_DIR", &runtime), ("XDG_CACHE_HOME", &cache), ("XDG_STATE_HOME", &state)];
    // (the project folder itself may be swapped away at the moment a command starts in it)
    let victim = |args: &[&str]| {
        for _ in 0..200 {
            match users.command(&users.victim, &project, &simreel, &env).args(args).output() {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => std::thread::sleep(Duration::from_millis(5)),
                o => return o.unwrap(),
            }
        }
        panic!("the project folder stayed away")
    };
    // the pictures the accepts take, written by simreel itself (a still of a frame, `-o`): the
    // victim's own shell would follow the links the attacker plants
    let still = |path: &str, frame: &str| {
        victim(&["render", "scenes/tiny.toml", "--out", "out", "-q", "--frames", frame, "-o", path]).status.success()
    };

    // the studio, the victim's, serving the shared project
    let mut studio: Child = users
        .command(&users.victim, &project, &simreel, &env)
        .args(["studio", "scenes", "--out", "out", "--goldens", "goldens", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(studio.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("{line}")).to_string();
    let port: u16 = url.split(':').nth(2).unwrap().split('/').next().unwrap().parse().unwrap();
    let token = url.split("token=").nth(1).unwrap().to_string();

    // every command that writes, once
    let round = |tries: &mut Vec<Try>| {
        let mut go = |what: &'static str, args: &[&str], ok: &dyn Fn(Option<i32>) -> bool| {
            let o = victim(args);
            tries.push(Try { what, ok: ok(o.status.code()), said: String::from_utf8_lossy(&o.stderr).into_owned() });
        };
        let zero = |c: Option<i32>| c == Some(0);
        let checked = |c: Option<i32>| c == Some(0) || c == Some(4);
        go("render", &["render", "scenes/tiny.toml", "--out", "out", "-q"], &zero);
        go("render (snapshots)", &["render", "scenes/tiny_cargo.toml", "--out", "out", "--format", "png", "-q"], &zero);
        go("render --resume", &["render", "scenes/tiny.toml", "--out", "out", "--resume", "-q"], &zero);
        go("render --shard 1/2", &["render", "scenes/tiny.toml", "--out", "shards", "--shard", "1/2", "-q"], &zero);
        go("render --shard 2/2", &["render", "scenes/tiny.toml", "--out", "shards", "--shard", "2/2", "-q"], &zero);
        go("merge", &["merge", "shards", "scenes/tiny.toml", "-q"], &zero);
        go("golden bless", &["golden", "bless", "scenes/tiny.toml", "--goldens", "goldens", "--out", "out", "-q"], &zero);
        go("golden check", &["golden", "check", "changed/tiny.toml", "--goldens", "goldens", "--out", "out", "-q"], &checked);
        go(
            "golden bless --from-report",
            &["golden", "bless", "changed/tiny.toml", "--goldens", "goldens", "--from-report", "out/golden-report"],
            &zero,
        );
        go("golden bless (back)", &["golden", "bless", "scenes/tiny.toml", "--goldens", "goldens", "--out", "out", "-q"], &zero);
        go("golden check (again)", &["golden", "check", "changed/tiny.toml", "--goldens", "goldens", "--out", "out", "-q"], &checked);
        go(
            "golden review --accept-all",
            &["golden", "review", "changed/tiny.toml", "--goldens", "goldens", "--out", "out", "--accept-all"],
            &zero,
        );
        for shard in ["1/2", "2/2"] {
            go(
                "golden check --shard",
                &["golden", "check", "scenes/tiny.toml", "--goldens", "goldens", "--out", "gshards", "--shard", shard, "-q"],
                &checked,
            );
        }
        go("golden merge", &["golden", "merge", "--out", "gshards", "-q"], &checked);
        let wrote = still("tests/goldens/button.png", "0") && still("tests/goldens/button.new.png", "4");
        go("pending --accept-all", &["golden", "review", "--pending", "tests", "--accept-all"], &|c| wrote && c == Some(0));
        let wrote = still("cmp/a/x.png", "0") && still("cmp/b/x.png", "4");
        go("compare", &["compare", "cmp/a", "cmp/b", "--out", "out", "-q"], &|c| wrote && c == Some(4));
        go("review --compare --accept-all", &["golden", "review", "--compare", "--out", "out", "--accept-all"], &zero);
        // the studio accepts the comparison's failure, as the Goldens view does
        let wrote = still("cmp/a/x.png", "0");
        let compared = victim(&["compare", "cmp/a", "cmp/b", "--out", "out", "-q"]).status.code() == Some(4);
        let (status, body) = http(port, "GET", "/api/golden", &token);
        // the comparison's failure (the check's frames are listed too)
        let query = serde_json::from_str::<serde_json::Value>(&body).ok().and_then(|v| {
            let failures = v["failures"].as_array()?.clone();
            failures.iter().find(|f| f["path"] == "x.png").and_then(|f| f["query"].as_str().map(str::to_string))
        });
        let accepted = match query {
            Some(q) => http(port, "POST", &format!("/api/golden/accept?{q}"), &token),
            None => (status, body),
        };
        tries.push(Try { what: "studio accept", ok: wrote && compared && accepted.0 == 200, said: accepted.1 });
    };

    let before = snapshot(&home);
    // without the attacker, every command works here
    let mut clean = Vec::new();
    round(&mut clean);
    for t in &clean {
        assert!(t.ok, "{} failed with no attacker at work:\n{}", t.what, t.said);
    }
    assert_eq!(snapshot(&home), before, "the victim's home changed with no attacker at work");

    // the attacker at work, as long as the victim runs these rounds
    let attacker_dir = base.join("attacker");
    std::fs::create_dir_all(&attacker_dir).unwrap();
    let attacker_uid = id("-u", &users.attacker);
    std::os::unix::fs::chown(&attacker_dir, Some(attacker_uid), None).unwrap();
    let (stop, stats) = (base.join("stop"), attacker_dir.join("stats.json"));
    let attacker = users
        .command(&users.attacker, &shared, Path::new("/usr/bin/python3"), &[])
        .arg(&attacker_script)
        .arg(&shared)
        .arg(&home)
        .arg(&stop)
        .arg(&stats)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut tries = Vec::new();
    let mut rounds = 0;
    // three rounds at least, and a minute of attack
    while rounds < 3 || started.elapsed() < Duration::from_secs(60) {
        round(&mut tries);
        rounds += 1;
    }
    std::fs::write(&stop, "").unwrap();
    let waited = attacker.wait_with_output().unwrap();
    let _ = studio.kill();
    let _ = studio.wait();
    assert!(waited.status.success(), "the attacker failed: {}", String::from_utf8_lossy(&waited.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();

    let after = snapshot(&home);
    let changed: Vec<String> = after
        .iter()
        .filter(|(p, v)| before.get(*p) != Some(v))
        .map(|(p, _)| p.display().to_string())
        .chain(before.keys().filter(|p| !after.contains_key(*p)).map(|p| format!("{} (removed)", p.display())))
        .collect();
    let mut table = BTreeMap::<&str, (usize, usize)>::new();
    for t in &tries {
        let e = table.entry(t.what).or_default();
        e.0 += 1;
        e.1 += !t.ok as usize;
    }
    println!(
        "two users: {rounds} rounds in {:.0} s; attacker: {} rounds, {} temporary-name links sprayed, {} links planted under output names, {} files replaced by links, {} folder swaps",
        started.elapsed().as_secs_f64(),
        stats["rounds"],
        stats["spray_links"],
        stats["planted_links"],
        stats["replaced_files"],
        stats["swaps"]
    );
    println!("| command | tries | failed (refused or disturbed) | got through |");
    for (what, (n, failed)) in &table {
        println!("| {what} | {n} | {failed} | 0 |");
    }
    for t in tries.iter().filter(|t| !t.ok) {
        let first = t.said.lines().find(|l| l.starts_with("error") || l.contains("refus") || l.contains("link")).unwrap_or("");
        println!("  {} failed: {}", t.what, first.chars().take(300).collect::<String>());
    }
    assert!(changed.is_empty(), "the victim's home changed: {changed:?}");
    assert!(stats["swaps"].as_u64().unwrap() >= 1000, "too few folder swaps to mean anything: {stats}");
    assert!(stats["spray_links"].as_u64().unwrap() >= 1000, "too few links sprayed: {stats}");
    // the commands ran under attack: most still did their work
    let worked = tries.iter().filter(|t| t.ok).count();
    assert!(worked * 4 >= tries.len(), "only {worked} of {} commands worked under attack", tries.len());
}
