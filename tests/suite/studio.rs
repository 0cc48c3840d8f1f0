//! `simreel studio`: its HTTP surface against hostile requests, one studio per folder, a clean
//! stop, redrawing only what an edit changed, and the page in a real browser (Chromium over the
//! DevTools protocol, see `browser.rs`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{require_gpu, root, scratch, scratch_part, simreel};

/// A studio running in the background, stopped (with Ctrl-C's signal) when dropped.
pub struct Studio {
    child: Child,
    pub port: u16,
    /// The address it printed, token included (`http://127.0.0.1:PORT/?token=…`).
    pub url: String,
    /// The session's token, as the printed address carries it.
    token: String,
    /// What it printed after its address line.
    out: BufReader<std::process::ChildStdout>,
}

impl Studio {
    pub fn start(args: &[&str]) -> Studio {
        Studio::start_in(&root(), args)
    }

    /// A studio started in `dir` (as a user starts it in their own folder).
    pub fn start_in(dir: &std::path::Path, args: &[&str]) -> Studio {
        Studio::start_with(dir, args, &[])
    }

    /// A studio started in `dir` with these environment variables set.
    pub fn start_with(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Studio {
        Studio::spawn(simreel(), dir, args, env)
    }

    /// A studio started in `dir` under an address-space cap of `kib` KiB (`ulimit -v`, as a CI
    /// container or a cluster's login node may set).
    pub fn start_capped(dir: &std::path::Path, args: &[&str], kib: u64) -> Studio {
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c").arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_simreel"));
        sh.env_remove("SIMREEL_BACKEND").env_remove("SIMREEL_ADAPTER");
        Studio::spawn(sh, dir, args, &[])
    }

    fn spawn(mut command: std::process::Command, dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Studio {
        let mut child = command
            .current_dir(dir)
            .arg("studio")
            .args(args)
            .args(["--port", "0"])
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            // what it says on stderr (a warning for an address off loopback, by design) goes to a
            // file beside the folder, not into the test log, where it would read as a failure
            .stderr(std::fs::File::create(dir.with_extension("studio-stderr.log")).map_or(Stdio::inherit(), Stdio::from))
            .spawn()
            .expect("start simreel studio");
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).expect("the studio's first line");
        let url =
            line.split_whitespace().find(|w| w.starts_with("http://")).unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
        let (port, token) = address_and_token(&url, "127.0.0.1");
        Studio { child, port, url, token, out }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGINT (what Ctrl-C sends) and returns the exit status and the rest of its output.
    pub fn interrupt(mut self) -> (std::process::ExitStatus, String) {
        let ok = std::process::Command::new("kill").args(["-INT", &self.child.id().to_string()]).status().expect("kill");
        assert!(ok.success());
        let mut rest = String::new();
        self.out.read_to_string(&mut rest).expect("the studio's output");
        let status = self.child.wait().expect("the studio ends");
        (status, rest)
    }

    /// `GET target` with the session's token, as the page asks.
    pub fn get(&self, target: &str) -> Answer {
        raw(
            self.port,
            &format!(
                "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Simreel-Token: {}\r\nConnection: close\r\n\r\n",
                self.port, self.token
            ),
        )
    }

    pub fn json(&self, target: &str) -> serde_json::Value {
        let a = self.get(target);
        assert_eq!(a.status, 200, "{target}: {}", a.text());
        serde_json::from_slice(&a.body).expect("JSON")
    }

    /// The session's token, as the page has it.
    pub fn token(&self) -> String {
        self.token.clone()
    }
}

impl Drop for Studio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The port and token of an address a studio printed: `http://HOST:PORT/?token=TOKEN`.
pub fn address_and_token(url: &str, host: &str) -> (u16, String) {
    let rest = url.strip_prefix(&format!("http://{host}:")).unwrap_or_else(|| panic!("not an address at {host}: {url}"));
    let (port, token) = rest.split_once("/?token=").unwrap_or_else(|| panic!("no token in the address {url}"));
    assert!(token.len() >= 64 && token.bytes().all(|b| b.is_ascii_hexdigit()), "a long random token: {token}");
    (port.parse().unwrap_or_else(|_| panic!("no port in {url}")), token.to_string())
}

pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends `request` as it is written (nothing normalises its path) and reads the whole answer.
pub fn raw(port: u16, request: &str) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(request.as_bytes()).expect("send");
    // to the end of the answer: its Content-Length, or the connection's end
    let mut bytes = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = s.read(&mut buf).unwrap_or(0);
        bytes.extend_from_slice(&buf[..n]);
        if n == 0 || complete(&bytes) {
            break;
        }
    }
    parse_answer(&bytes)
}

/// An answer as it came over the connection.
pub fn parse_answer(bytes: &[u8]) -> Answer {
    let split =
        bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or_else(|| panic!("no answer: {:?}", String::from_utf8_lossy(bytes)));
    let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let mut body = bytes[split + 4..].to_vec();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    Answer { status, head, body }
}

/// Whether `bytes` hold a whole answer with a Content-Length.
fn complete(bytes: &[u8]) -> bool {
    let Some(split) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&bytes[..split]).to_ascii_lowercase();
    let length = head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse::<usize>().ok());
    length.is_some_and(|n| bytes.len() >= split + 4 + n)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else { return out };
        let n = usize::from_str_radix(std::str::from_utf8(&b[..eol]).unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 4 + n..];
    }
}

/// A folder with a copy of the small terrain scene, and an output folder beside it.
fn workspace(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = scratch_part(name);
    let scenes = dir.join("scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    let scene = scenes.join("small.toml");
    std::fs::copy(root().join("tests/scenes/small_terrain.toml"), &scene).unwrap();
    (scenes, dir.join("out"), scene)
}

pub fn wait_until<T>(what: &str, timeout: Duration, mut f: impl FnMut() -> Option<T>) -> T {
    let t0 = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(t0.elapsed() < timeout, "waited {timeout:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One studio a folder, and a clean stop. (Hostile requests: `studio_security.rs`.)
#[test]
fn a_second_studio_points_to_the_first_and_ctrl_c_stops_it() {
    let (scenes, out, _) = workspace("studio-hostile");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("ok.png"), "inside").unwrap();
    let s = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(s.url.starts_with("http://127.0.0.1:"), "binds the loopback address by default: {}", s.url);
    assert_eq!(s.get("/files/out/ok.png").text(), "inside");
    let page = s.get("/");
    assert!(page.head.contains("Content-Security-Policy"), "{}", page.head);
    // a second studio for the same folder points to the first instead of starting
    let t0 = Instant::now();
    let second = simreel().args(["studio", scenes.to_str().unwrap(), "--port", "0"]).output().unwrap();
    assert!(second.status.success());
    let said = String::from_utf8_lossy(&second.stdout);
    assert!(said.contains("already running") && said.contains(&s.url), "{said}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    // Ctrl-C stops it cleanly, and lets go of the folder
    let (status, rest) = s.interrupt();
    assert!(status.success(), "{status:?}: {rest}");
    assert!(rest.contains("stopped"), "{rest}");
    let again = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(again.get("/files/out/ok.png").status, 200);
}

#[test]
fn a_studio_refuses_what_it_cannot_serve() {
    let o = simreel().args(["studio", "no/such/folder", "--port", "0"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no/such/folder: no such file or folder"));
    // an explicit port that is taken is an error, not another port
    let (scenes, out, _) = workspace("studio-port");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let o = simreel().args(["studio", scenes.to_str().unwrap(), "--out", out.to_str().unwrap(), "--port", &port]).output().unwrap();
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn another_address_only_when_asked_and_with_a_warning() {
    let (scenes, out, _) = workspace("studio-host");
    let mut child = simreel()
        .args(["studio", scenes.to_str().unwrap(), "--out", out.to_str().unwrap(), "--port", "0", "--host", "0.0.0.0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let _ = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let o = child.wait_with_output().unwrap();
    let warned = String::from_utf8_lossy(&o.stderr);
    assert!(warned.contains("warning: listening on 0.0.0.0") && warned.contains("anyone who can reach this machine"), "{warned}");
    assert!(line.contains("at http://127.0.0.1:"), "the address to open is still the loopback one: {line}");
    // what answers: the names it answers to, that other machines need a name given to it, the
    // token, and that writes need --allow-writes
    let (port, _) = address_and_token(line.split_whitespace().find(|w| w.starts_with("http://")).unwrap(), "127.0.0.1");
    for said in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), "--allow-host".into(), "token".into(), "--allow-writes".into()] {
        assert!(warned.contains(&said), "the warning says {said}: {warned}");
    }
}

/// A second studio for the same scenes with another --host or --port says why it points to the
/// first instead.
#[test]
fn a_second_studio_says_why_its_host_and_port_are_not_used() {
    let (scenes, out, _) = workspace("studio-second-port");
    let s = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let second = simreel().args(["studio", scenes.to_str().unwrap(), "--port", &free, "--host", "127.0.0.3"]).output().unwrap();
    assert!(second.status.success());
    let said = String::from_utf8_lossy(&second.stdout);
    let why = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("already running") && said.contains(&s.url), "{said}");
    assert!(
        why.contains(&format!("--port {free}")) && why.contains("--host 127.0.0.3") && why.contains(&format!("127.0.0.1:{}", s.port)),
        "{why}"
    );
    // the same options, or none: nothing to explain
    let quiet = simreel().args(["studio", scenes.to_str().unwrap()]).output().unwrap();
    assert!(String::from_utf8_lossy(&quiet.stderr).trim().is_empty(), "{}", String::from_utf8_lossy(&quiet.stderr));
}

/// The catalog's version and the stamp of the one scene served.
fn stamp(s: &Studio) -> (u64, Option<String>, serde_json::Value) {
    let c = s.json("/api/scenes");
    let e = c["scenes"][0].clone();
    (c["version"].as_u64().unwrap(), e["scene"]["stamp"].as_str().map(str::to_string), e["problem"].clone())
}

/// Saves `text` as an editor does, whole at once (written beside, then renamed over): a plain
/// `std::fs::write` truncates the file first, and the studio may read it empty in between
/// (it shows that, and the next save event brings the full file).
fn save(path: &std::path::Path, text: impl AsRef<[u8]>) {
    let beside = path.with_extension("toml.saving");
    std::fs::write(&beside, text).unwrap();
    std::fs::rename(&beside, path).unwrap();
}

fn drawn(s: &Studio) -> u64 {
    s.json("/api/status")["drawn"].as_u64().unwrap()
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn an_edit_redraws_what_it_changed_and_nothing_else() {
    require_gpu();
    let (scenes, out, scene) = workspace("studio-edits");
    let s = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let id = "scene=".to_string() + &simreel::studio::http::percent_encode(&scenes.join("small.toml").display().to_string());
    let first = s.get(&format!("/api/frame.png?{id}&frame=10"));
    assert_eq!(first.status, 200, "{}", first.text());
    let (v0, stamp0, _) = stamp(&s);
    // prefetching settles: drafts around the frame on screen
    let settled = wait_until("prefetching to settle", Duration::from_secs(60), || {
        let st = s.json("/api/status");
        (st["idle"] == true).then(|| st["drawn"].as_u64().unwrap())
    });
    // a comment and reordered whitespace: the same scene, nothing to draw
    let text = std::fs::read_to_string(&scene).unwrap();
    save(&scene, format!("# edited\n{text}\n\n"));
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(stamp(&s).0, v0, "an edit that changes nothing is not news");
    assert_eq!(s.get(&format!("/api/frame.png?{id}&frame=10")).body, first.body);
    assert_eq!(drawn(&s), settled, "an edit that changes nothing draws nothing");
    // a camera edit: a new drawing, the same simulation
    save(&scene, text.replace("radius = 13.0", "radius = 9.0"));
    let (_, stamp1, _) = wait_until("the camera edit", Duration::from_secs(10), || Some(stamp(&s)).filter(|(v, _, _)| *v > v0));
    let (sim0, draw0) = stamp0.as_deref().unwrap().split_once('-').unwrap();
    let (sim1, draw1) = stamp1.as_deref().unwrap().split_once('-').unwrap();
    assert_eq!(sim0, sim1);
    assert_ne!(draw0, draw1);
    let moved = s.get(&format!("/api/frame.png?{id}&frame=10"));
    assert_eq!(moved.status, 200);
    assert_ne!(moved.body, first.body, "the camera moved");
    // a problem: the last good scene is still served, with the problem beside it
    save(&scene, text.replace("radius = 13.0", "radius = \"far\""));
    let (_, stamp2, problem) = wait_until("the broken file", Duration::from_secs(10), || Some(stamp(&s)).filter(|(_, _, p)| !p.is_null()));
    assert_eq!(stamp2, stamp1, "the last good scene stays");
    let item = &problem["items"][0];
    let line = text.lines().position(|l| l.starts_with("radius = 13.0")).unwrap() as u64 + 1;
    assert_eq!((item["line"].as_u64(), item["key"].as_str()), (Some(line), Some("camera.orbit.radius")), "{problem}");
    assert_eq!(s.get(&format!("/api/frame.png?{id}&frame=10")).body, moved.body);
    // fixed by an editor's atomic save (a swap file, a backup, a new file renamed over the old):
    // one update, the problem gone
    let (v1, _, _) = stamp(&s);
    std::fs::write(scenes.join(".small.toml.swp"), "swap").unwrap();
    std::fs::write(scenes.join("small.toml~"), &text).unwrap();
    let tmp = scenes.join(".small.toml.4913");
    std::fs::write(&tmp, text.replace("radius = 13.0", "radius = 10.0")).unwrap();
    std::fs::rename(&tmp, &scene).unwrap();
    std::fs::remove_file(scenes.join(".small.toml.swp")).unwrap();
    wait_until("the renamed file", Duration::from_secs(10), || (stamp(&s).0 > v1).then_some(()));
    std::thread::sleep(Duration::from_millis(1000));
    let (v2, _, problem) = stamp(&s);
    assert_eq!(v2, v1 + 1, "one save, one update");
    assert!(problem.is_null(), "{problem}");
}

/// The page in Chromium: frame 0 drawn, a camera edit seen, a syntax error shown where it is and
/// cleared when fixed, the last frame reached from the keyboard.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn the_page_shows_frames_edits_problems_and_seeks_in_a_real_browser() {
    require_gpu();
    let (scenes, out, scene) = workspace("studio-browser");
    // a render of a few frames: the page charts its facts and names its identity
    let o = simreel().args(["render", "--quiet", "--frames", "0..3", "--format", "png", "--out"]).arg(&out).arg(&scene).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rendered: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("small_terrain/manifest.json")).unwrap()).unwrap();
    let s = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    let profile = scratch();
    let mut b = crate::browser::Browser::launch(&profile, &s.url);
    let shown = |b: &mut crate::browser::Browser| b.eval("JSON.stringify(window.studio && window.studio.shown)");
    let final_of = |b: &mut crate::browser::Browser, frame: u64| {
        wait_until(&format!("frame {frame}, final, on screen"), Duration::from_secs(60), || {
            let v: serde_json::Value = serde_json::from_str(shown(b).as_str()?).ok()?;
            (v["frame"] == frame && v["quality"] == "final").then_some(v)
        })
    };
    let id = scenes.join("small.toml").display().to_string();
    let frame_png = |frame: u32| {
        let a = s.get(&format!("/api/frame.png?scene={}&frame={frame}", simreel::studio::http::percent_encode(&id)));
        simreel::output::png::decode(&a.body).unwrap()
    };
    let v = final_of(&mut b, 0);
    // the token came in the address and stays in the tab, out of the address
    assert_eq!(b.eval("location.search").as_str(), Some(""), "the token is taken out of the address");
    assert_eq!(b.eval("sessionStorage.getItem('simreel-token')").as_str(), Some(s.token().as_str()));
    let simulation = rendered["identity"]["simulation"].as_str().unwrap()[..8].to_string();
    let note = wait_until("the last render's note", Duration::from_secs(10), || {
        let t = b.eval("document.getElementById('charts').innerText");
        t.as_str().filter(|t| t.contains("from the last render")).map(str::to_string)
    });
    assert!(note.contains("from the last render (4 frames") && note.contains(&format!("simulation {simulation}")), "{note}");
    // the draft/final badge sits on the frame: hidden, so that the frame's pixels are compared alone
    b.eval("document.getElementById('badge').style.visibility = 'hidden'");
    let on_screen = b.element_pixels("frame");
    assert_close(&on_screen, &frame_png(0), "frame 0 on screen");
    assert!(spread(&on_screen) > 40.0, "frame 0 is a picture, not a flat fill");
    // the camera moves on disk: the page shows the new frame
    let text = std::fs::read_to_string(&scene).unwrap();
    save(&scene, text.replace("radius = 13.0", "radius = 8.0"));
    let old = v["stamp"].clone();
    wait_until("the edited frame", Duration::from_secs(60), || {
        let v: serde_json::Value = serde_json::from_str(shown(&mut b).as_str()?).ok()?;
        (v["stamp"] != old && v["quality"] == "final").then_some(())
    });
    let edited = b.element_pixels("frame");
    assert_close(&edited, &frame_png(0), "the edited frame on screen");
    assert!(mean_diff(&edited, &on_screen) > 5.0, "the frame on screen changed");
    // a syntax error: the overlay says where; the frame stays
    save(&scene, text.replace("radius = 13.0", "radius = 8.0").replace("[light]", "[light"));
    let line = text.lines().position(|l| l == "[light]").unwrap() + 1;
    let overlay = wait_until("the problem overlay", Duration::from_secs(10), || {
        let t = b.eval("document.getElementById('overlay').hidden ? '' : document.getElementById('overlay').innerText");
        t.as_str().filter(|t| !t.is_empty()).map(str::to_string)
    });
    assert!(overlay.contains(&format!("small.toml:{line}:")), "{overlay}");
    assert_eq!(b.eval("document.querySelectorAll('#problems li').length").as_u64(), Some(1), "only the syntax error: {overlay}");
    assert!(overlay.contains("TOML syntax"), "{overlay}");
    let shot = b.screenshot();
    let r = b.rect("overlay");
    let px = pixel(&shot, (r.0 + r.2 / 2.0) as u32, (r.1 + r.3 - 3.0) as u32);
    assert!(px[0] > px[2] && px[1] < 80, "the overlay is drawn over the frame: {px:?}");
    // fixed: the overlay goes
    save(&scene, text.replace("radius = 13.0", "radius = 8.0"));
    wait_until("the overlay to go", Duration::from_secs(10), || {
        b.eval("document.getElementById('overlay').hidden").as_bool().filter(|h| *h)
    });
    // End: the last frame
    b.key("End");
    final_of(&mut b, 47);
    assert_close(&b.element_pixels("frame"), &frame_png(47), "the last frame on screen");
    // the address changed by hand: #scene@frame is followed
    b.eval(&format!("location.hash = {}", serde_json::json!(format!("#{id}@20"))));
    final_of(&mut b, 20);
    // a reload comes back with the token the tab kept, to the same scene and frame
    b.eval("location.reload()");
    std::thread::sleep(Duration::from_millis(500));
    final_of(&mut b, 20);
    assert_eq!(b.eval("location.search").as_str(), Some(""));
    // a scene that never loaded: choosing it clears the last scene's frame, badge and facts
    std::fs::write(scenes.join("broken.toml"), "kind = \"terrain\"\n[render\nwidth = 64\n").unwrap();
    let broken = scenes.join("broken.toml").display().to_string();
    wait_until("the broken scene in the list", Duration::from_secs(10), || {
        b.eval(&format!("!!document.querySelector('#scenes button[data-id=\"' + CSS.escape({}) + '\"]')", serde_json::json!(broken)))
            .as_bool()
            .filter(|v| *v)
    });
    b.eval(&format!("document.querySelector('#scenes button[data-id=\"' + CSS.escape({}) + '\"]').click()", serde_json::json!(broken)));
    wait_until("the frame cleared", Duration::from_secs(10), || {
        let cleared = b.eval(
            "!document.getElementById('frame').getAttribute('src') && document.getElementById('badge').textContent === '' && document.querySelectorAll('#facts tr').length === 0 && window.studio.shown === null",
        );
        cleared.as_bool().filter(|v| *v)
    });
    assert!(b.eval("document.getElementById('overlay').hidden").as_bool() == Some(false), "its problem is shown");
}

fn pixel(img: &simreel::output::png::Decoded, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * img.width + x) * 4) as usize;
    img.rgba[i..i + 4].try_into().unwrap()
}

/// Mean absolute difference per channel, over RGB.
fn mean_diff(a: &simreel::output::png::Decoded, b: &simreel::output::png::Decoded) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height), "sizes");
    let sum: u64 = a.rgba.chunks(4).zip(b.rgba.chunks(4)).map(|(p, q)| (0..3).map(|c| p[c].abs_diff(q[c]) as u64).sum::<u64>()).sum();
    sum as f64 / (a.width as f64 * a.height as f64 * 3.0)
}

/// How far the picture's pixels spread from its mean colour (a flat fill: 0).
fn spread(a: &simreel::output::png::Decoded) -> f64 {
    let n = (a.width * a.height) as f64;
    let mean: Vec<f64> = (0..3).map(|c| a.rgba.chunks(4).map(|p| p[c] as f64).sum::<f64>() / n).collect();
    (a.rgba.chunks(4).map(|p| (0..3).map(|c| (p[c] as f64 - mean[c]).powi(2)).sum::<f64>()).sum::<f64>() / n).sqrt()
}

fn assert_close(on_screen: &simreel::output::png::Decoded, served: &simreel::output::png::Decoded, what: &str) {
    let d = mean_diff(on_screen, served);
    if d >= 2.0 {
        let dir = scratch_part(&what.replace(' ', "-"));
        for (name, img) in [("on_screen.png", on_screen), ("served.png", served)] {
            std::fs::write(
                dir.join(name),
                simreel::output::png::encode(&img.rgba, img.width, img.height, simreel::output::png::Effort::Fast),
            )
            .unwrap();
        }
    }
    assert!(d < 2.0, "{what}: the pixels on screen differ from the frame by {d:.2} levels on average");
}

/// A scene with goldens whose frame 20 golden is wrong (frame 0's picture): the last check failed
/// there. Returns the folder, the scene file, the goldens and the output folder.
fn failing_goldens(name: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let dir = scratch_part(name);
    let scenes = dir.join("scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    let (goldens, out) = (dir.join("goldens"), dir.join("out"));
    let text = std::fs::read_to_string(root().join("tests/scenes/small_terrain.toml")).unwrap()
        + "\n[golden]\nframes = \"0,20\"\n[golden.tolerance]\nchannel = 0\nmax_pixels = 0\nreason = \"test: exact on lavapipe\"\n";
    let scene = scenes.join("small.toml");
    save(&scene, text);
    let golden = |args: &[&str]| {
        simreel().arg("golden").args(args).arg("--goldens").arg(&goldens).arg("--out").arg(&out).arg(&scene).output().unwrap()
    };
    assert_eq!(golden(&["check", "--quiet"]).status.code(), Some(4));
    assert!(golden(&["bless", "--from-last-run", "--quiet"]).status.success());
    let g = goldens.join("small_terrain");
    std::fs::copy(g.join("frame_0000.png"), g.join("frame_0020.png")).unwrap();
    assert_eq!(golden(&["check", "--quiet"]).status.code(), Some(4), "frame 20's golden is wrong");
    (scenes, scene, goldens, out)
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn golden_review_in_a_terminal_accepts_rejects_and_skips_and_prints_commands_without_one() {
    require_gpu();
    let (_, scene, goldens, out) = failing_goldens("studio-review-terminal");
    // without a terminal: the commands
    let o = simreel()
        .args(["golden", "review"])
        .arg(&scene)
        .arg("--goldens")
        .arg(&goldens)
        .arg("--out")
        .arg(&out)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("1 image failed") && said.contains("--filter small_terrain:20 --from-last-run"), "{said}");
    // at a terminal: a wrong letter is asked again, `r` keeps the golden, then `a` accepts. The
    // library takes the state folder (where the check recorded what it rendered) from the
    // environment the command line installs; this process installs its own, as a program would.
    let _ = simreel::environment::Environment::read().install();
    let loaded = vec![simreel::scene::load(&scene).unwrap()];
    let mut scenes = || Ok(loaded.clone());
    let paths = simreel::golden::Paths { goldens: goldens.clone(), out: out.clone(), shard: None };
    let (list, _) = simreel::golden::review::failures(&paths).unwrap();
    let frame = simreel::golden::report::Subject::frame("small_terrain", 20);
    assert_eq!(list.iter().map(|f| &f.subject).collect::<Vec<_>>(), [&frame]);
    let check = simreel::golden::review::Last::Check;
    let golden_file = goldens.join("small_terrain/frame_0020.png");
    let before = std::fs::read(&golden_file).unwrap();
    let mut shown = Vec::new();
    let t = simreel::golden::review::interactive(
        &mut scenes,
        &list,
        &paths,
        &simreel::golden::review::report_dir(&paths, check),
        &mut "x\nr\n".as_bytes(),
        &mut shown,
    )
    .unwrap();
    assert_eq!((t.accepted.len(), t.rejected, t.skipped), (0, 1, 0));
    assert_eq!(std::fs::read(&golden_file).unwrap(), before, "rejected: the golden stays");
    let shown = String::from_utf8_lossy(&shown);
    assert!(shown.contains("[1/1] small_terrain:20") && shown.contains("one of a, r, s, o, A, R, q"), "{shown}");
    let t = simreel::golden::review::interactive(
        &mut scenes,
        &list,
        &paths,
        &simreel::golden::review::report_dir(&paths, check),
        &mut "s\n".as_bytes(),
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!((t.accepted.len(), t.rejected, t.skipped), (0, 0, 1));
    let t = simreel::golden::review::interactive(
        &mut scenes,
        &list,
        &paths,
        &simreel::golden::review::report_dir(&paths, check),
        &mut "a\n".as_bytes(),
        &mut Vec::new(),
    )
    .unwrap();
    assert_eq!(t.accepted, [frame]);
    let rendered = crate::common::read_png(&out.join("golden-run/small_terrain/frame_0020.png"));
    assert_eq!(crate::common::read_png(&golden_file).rgba, rendered.rgba, "accepted: the golden is what the check rendered");
    let state = std::fs::read_to_string(goldens.join("small_terrain/frame_0020.state.txt")).unwrap();
    assert!(!state.trim().is_empty());
    let o =
        simreel().args(["golden", "check", "--quiet"]).arg(&scene).arg("--goldens").arg(&goldens).arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "after the review the check passes");
}

/// The Goldens view in Chromium: run the check from the page, accept the failing frame with `a`,
/// and see the golden file change.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn the_goldens_view_accepts_a_failing_frame_in_a_real_browser() {
    require_gpu();
    let (scenes, _, goldens, out) = failing_goldens("studio-review-browser");
    std::fs::remove_dir_all(out.join("golden-report")).unwrap();
    let s = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap(), "--goldens", goldens.to_str().unwrap()]);
    let profile = scratch();
    let mut b = crate::browser::Browser::launch(&profile, &format!("{}#goldens", s.url));
    wait_until("the Goldens view", Duration::from_secs(20), || {
        b.eval("document.getElementById('check') && !document.getElementById('goldens').hidden").as_bool().filter(|v| *v)
    });
    b.eval("document.getElementById('check').click()");
    let current = wait_until("the check's failure on the page", Duration::from_secs(120), || {
        b.eval("window.studio.review.current").as_str().map(str::to_string)
    });
    assert_eq!(current, "small_terrain:20");
    // the golden and the new frame side by side, the changed region boxed
    wait_until("the images", Duration::from_secs(20), || {
        b.eval("[...document.querySelectorAll('#compare img')].every(i => i.complete && i.naturalWidth > 0) && document.querySelectorAll('#compare img').length == 2").as_bool().filter(|v| *v)
    });
    wait_until("the changed region boxed", Duration::from_secs(10), || {
        (b.eval("document.querySelectorAll('#compare .box').length").as_u64()? >= 1).then_some(())
    });
    // the page says what accepting writes before it is asked to
    let effect = b.eval("document.getElementById('reviewEffect').innerText").as_str().unwrap_or_default().to_string();
    assert!(effect.contains("writes the golden image of small_terrain:20") && effect.contains("small_terrain"), "{effect}");
    let golden_file = goldens.join("small_terrain/frame_0020.png");
    let before = std::fs::read(&golden_file).unwrap();
    // a key asks, and only a click on the question's own button says yes: no key does, nor a
    // click made by a script
    b.key("a");
    wait_until("the question", Duration::from_secs(5), || b.eval("!document.getElementById('confirm').hidden").as_bool().filter(|v| *v));
    std::thread::sleep(Duration::from_millis(600));
    for key in ["Enter", "a", "A", " "] {
        b.key(key);
    }
    b.eval("document.getElementById('confirmYes').click()");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(std::fs::read(&golden_file).unwrap(), before, "accepted without a click");
    b.click("confirmYes");
    wait_until("the golden file to change", Duration::from_secs(30), || (std::fs::read(&golden_file).ok()? != before).then_some(()));
    let rendered = crate::common::read_png(&out.join("golden-run/small_terrain/frame_0020.png"));
    assert_eq!(crate::common::read_png(&golden_file).rgba, rendered.rgba);
    let accepted = wait_until("the accepted list", Duration::from_secs(10), || {
        let t = b.eval("document.getElementById('accepted').innerText");
        t.as_str().filter(|t| t.contains("small_terrain:20")).map(str::to_string)
    });
    assert!(accepted.contains("frame_0020.png"), "{accepted}");
    assert!(b.eval("document.getElementById('reviewDone').innerText").as_str().unwrap().contains("decided"));
}

/// Under a memory cap, a scene that does not fit is refused with the limit named, before anything
/// is allocated, and the studio goes on serving the others.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn under_a_memory_cap_a_scene_too_large_is_refused_and_the_others_are_served() {
    require_gpu();
    let dir = scratch();
    let scenes = dir.join("scenes");
    std::fs::create_dir_all(&scenes).unwrap();
    std::fs::copy(root().join("tests/scenes/small_terrain.toml"), scenes.join("small.toml")).unwrap();
    // the largest grid the schema allows: about 9.9 GiB by the estimate
    std::fs::write(scenes.join("huge.toml"), "kind = \"terrain\"\nname = \"huge\"\n[terrain]\nresolution = 1024\n").unwrap();
    let s = Studio::start_capped(&dir, &[scenes.to_str().unwrap(), "--out", "out"], 8 << 20);
    let id = |name: &str| "scene=".to_string() + &simreel::studio::http::percent_encode(&scenes.join(name).display().to_string());
    for _ in 0..2 {
        let huge = s.get(&format!("/api/frame.png?{}&frame=0", id("huge.toml")));
        assert!(huge.status >= 400 && huge.text().contains("ulimit -v"), "{} {}", huge.status, huge.text());
        let small = s.get(&format!("/api/frame.png?{}&frame=0", id("small.toml")));
        assert_eq!(small.status, 200, "{}", small.text());
    }
}

/// `POST target` with the session's token, as the page's buttons send it.
fn post(s: &Studio, target: &str) -> Answer {
    raw(
        s.port,
        &format!(
            "POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Simreel-Token: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            s.port,
            s.token()
        ),
    )
}

/// The Goldens view lists the last `simreel compare` into the studio's output folder beside the
/// check's failures, with its pictures, and accepts (copies the actual file over the expected
/// one) or rejects each; only files the comparison failed can be named.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn the_goldens_view_accepts_and_rejects_a_comparisons_files() {
    require_gpu();
    let dir = scratch();
    let (e, a) = (dir.join("expected"), dir.join("actual"));
    std::fs::create_dir_all(&e).unwrap();
    std::fs::create_dir_all(&a).unwrap();
    let img = |v: u8| {
        let rgba: Vec<u8> = (0..40 * 30).flat_map(|i| [(i % 40 * 6) as u8, v, 120, 255]).collect();
        simreel::output::png::encode(&rgba, 40, 30, simreel::output::png::Effort::Fast)
    };
    for (name, before, after) in [("one.png", 10, 200), ("two.png", 10, 90)] {
        std::fs::write(e.join(name), img(before)).unwrap();
        std::fs::write(a.join(name), img(after)).unwrap();
    }
    let o = simreel().current_dir(&dir).args(["compare", "expected", "actual", "-q"]).output().unwrap();
    assert_eq!(o.status.code(), Some(4), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::create_dir_all(dir.join("scenes")).unwrap();
    std::fs::copy(root().join("tests/scenes/small_terrain.toml"), dir.join("scenes/small.toml")).unwrap();
    let s = Studio::start_in(&dir, &["scenes", "--out", "out"]);
    let state = s.json("/api/golden");
    let failures = state["failures"].as_array().unwrap();
    assert_eq!(failures.iter().map(|f| f["path"].as_str().unwrap()).collect::<Vec<_>>(), ["one.png", "two.png"], "{state}");
    let images = &failures[0]["images"];
    for which in ["expected", "actual", "diff"] {
        let url = images[which].as_str().unwrap_or_else(|| panic!("{which}: {images}"));
        let got = s.get(url);
        assert_eq!(got.status, 200, "{url}");
        assert!(got.body.starts_with(b"\x89PNG"), "{url}");
    }
    // a path the comparison did not fail, or outside its folders, is refused
    for hostile in ["/api/golden/accept?path=same.png", "/api/golden/accept?path=..%2F..%2Fetc%2Fpasswd", "/api/golden/accept?path="] {
        let r = post(&s, hostile);
        assert!(r.status == 404 || r.status == 400, "{hostile}: {} {}", r.status, r.text());
    }
    let before = std::fs::read(e.join("two.png")).unwrap();
    let r = post(&s, &format!("/api/golden/accept?{}", failures[0]["query"].as_str().unwrap()));
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(std::fs::read(e.join("one.png")).unwrap(), std::fs::read(a.join("one.png")).unwrap(), "accepted: copied over");
    let r = post(&s, "/api/golden/reject?path=two.png");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(std::fs::read(e.join("two.png")).unwrap(), before, "rejected: the expected file stays");
    let state = s.json("/api/golden");
    let decided: Vec<(&str, &str)> =
        state["failures"].as_array().unwrap().iter().map(|f| (f["path"].as_str().unwrap(), f["decided"].as_str().unwrap_or("-"))).collect();
    assert_eq!(decided, [("one.png", "accepted"), ("two.png", "rejected")]);
    assert!(state["accepted"][0]["files"][0].as_str().unwrap().ends_with("expected/one.png"), "{state}");
}

/// `frame` of the scene file `scene` (as the catalog names it), draft or final.
fn frame_of(s: &Studio, scene: &std::path::Path, frame: u32, draft: bool) -> Answer {
    let id = simreel::studio::http::percent_encode(&scene.display().to_string());
    s.get(&format!("/api/frame.png?scene={id}&frame={frame}&draft={}", u8::from(draft)))
}

/// A renderer that panics (here on purpose, where the renderer is called: the engine's hook for
/// the suite) fails the frame it was drawing, is made again, and the next request is answered.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn after_a_renderer_panics_the_studio_answers_the_next_frame() {
    use simreel::studio::engine::{Engine, FrameError};
    require_gpu();
    let (_, out, scene) = workspace("studio-panic");
    let scene = std::sync::Arc::new(simreel::scene::load(&scene).unwrap());
    let engine = Engine::start(Default::default(), out);
    engine.serve([(scene.path.clone(), scene.clone())].into_iter().collect());
    engine.panic_at_draw(1);
    let t0 = Instant::now();
    match engine.frame(scene.clone(), 5, false) {
        Err(FrameError::Failed(why)) => assert!(why.contains("panicked") && why.contains("made again"), "{why}"),
        other => panic!("the panic is the frame's failure: {other:?}"),
    }
    let next = engine.frame(scene.clone(), 6, false).expect("the next frame");
    assert!(next.png.starts_with(b"\x89PNG"));
    engine.frame(scene.clone(), 5, false).expect("the frame that failed draws now");
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
    assert_eq!(engine.stats().recovered, 1);
}

/// A frame long to simulate (a flock of 200 000 agents, far into the scene) gives way to a
/// request for another scene, and an edit of its scene ends it.
#[test]
#[cfg_attr(skip_gpu_tests, ignore = "no wgpu adapter on this machine (SIMREEL_SKIP_GPU_TESTS)")]
fn a_long_frame_gives_way_to_another_scene_and_to_an_edit() {
    require_gpu();
    let (scenes, out, small) = workspace("studio-give-way");
    let crowd = scenes.join("crowd.toml");
    let text = "kind = \"flock\"\nseed = 5\n[render]\nwidth = 64\nheight = 48\nfps = 30\nframes = 3000\n[flock]\nagents = 200000\n";
    std::fs::write(&crowd, text).unwrap();
    let s = Studio::start(&[scenes.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(s.json("/api/scenes")["scenes"].as_array().unwrap().iter().all(|e| e["problem"].is_null()), "both load");
    let (port, token, crowd_id) = (s.port, s.token(), simreel::studio::http::percent_encode(&crowd.display().to_string()));
    let long = std::thread::spawn(move || {
        let t0 = Instant::now();
        let a = raw(
            port,
            &format!(
                "GET /api/frame.png?scene={crowd_id}&frame=2900&draft=1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Simreel-Token: {token}\r\nConnection: close\r\n\r\n"
            ),
        );
        (a.status, a.text(), t0.elapsed())
    });
    std::thread::sleep(Duration::from_secs(2));
    let t0 = Instant::now();
    let other = frame_of(&s, &small, 0, true);
    let waited = t0.elapsed();
    assert_eq!(other.status, 200, "{}", other.text());
    assert!(waited < Duration::from_secs(15), "another scene waited {waited:?} behind the long frame");
    assert!(!long.is_finished(), "the long frame was still being simulated (make it longer)");
    // an edit of the long scene ends its frame
    std::fs::write(&crowd, text.replace("seed = 5", "seed = 6")).unwrap();
    let t1 = Instant::now();
    let (status, said, _) = long.join().unwrap();
    assert_eq!(status, 409, "{said}");
    assert!(said.contains("changed"), "{said}");
    assert!(t1.elapsed() < Duration::from_secs(15), "the edit ended the long frame after {:?}", t1.elapsed());
}
