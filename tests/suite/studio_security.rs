//! The studio against hostile requests, one case a test: what it serves and to whom (the token,
//! which only the printed address carries; hidden files, files of the scenes' folders), the names
//! it answers to (on loopback, another loopback address, every address), writes (only with the
//! token in a header; from other machines only with --allow-writes), path traversal, large files
//! streamed with ranges, live pages that close, oversized and slow requests, idle connections
//! that must not lock the page out, and the lock file that holds the address. None of these
//! needs an adapter: the studio answers before it draws.

use std::io::{Read, Write};
use std::net::{IpAddr, TcpStream};
use std::time::{Duration, Instant};

use crate::common::{scratch_part, simreel};
use crate::studio::{Answer, Studio, address_and_token, raw, wait_until};

/// A folder like a user's home: a scene, a `.ssh` folder beside it, and an output folder.
fn home(name: &str) -> std::path::PathBuf {
    let dir = scratch_part(name);
    std::fs::create_dir_all(dir.join(".ssh")).unwrap();
    std::fs::write(dir.join(".ssh/config"), "Host secret").unwrap();
    std::fs::write(dir.join("notes.txt"), "private").unwrap();
    std::fs::copy(crate::common::root().join("tests/scenes/small_terrain.toml"), dir.join("small.toml")).unwrap();
    dir
}

fn get(s: &Studio, target: &str, extra: &str) -> Answer {
    raw(s.port, &format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{extra}Connection: close\r\n\r\n", s.port))
}

#[test]
fn only_the_page_goes_without_the_token_and_only_output_files_are_served() {
    let dir = home("studio-sec-files");
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("small")).unwrap();
    std::fs::write(out.join("small/frame_0000.png"), b"png").unwrap();
    std::fs::write(out.join("small/.hidden.png"), b"png").unwrap();
    std::fs::write(out.join("small/notes.txt"), b"text").unwrap();
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let token = s.token();
    let with_token = format!("X-Simreel-Token: {token}\r\n");
    // the page: with the token of the printed address; no cookie is set (a browser would send it
    // to every port of 127.0.0.1)
    let page = get(&s, &format!("/?token={token}"), "");
    assert_eq!(page.status, 200, "{}", page.text());
    assert!(!page.head.to_ascii_lowercase().contains("set-cookie"), "{}", page.head);
    assert!(!page.text().contains(&token), "the page itself does not hold the token");
    // the same script, style and icon for everyone: nothing of the user's in them
    for target in ["/studio.js", "/studio.css", "/favicon.ico", "/favicon.svg", "/closed.js"] {
        assert_eq!(get(&s, target, "").status, 200, "{target}");
    }
    // everything else: 403 without the token, served with it (a header, or the query of a read)
    for target in ["/api/scenes", "/api/status", "/api/golden", "/files/out/small/frame_0000.png", "/api/live"] {
        assert_eq!(get(&s, target, "").status, 403, "{target} without the token");
        assert_eq!(get(&s, target, &format!("X-Simreel-Token: {}\r\n", "0".repeat(64))).status, 403, "{target} with a wrong token");
        let cookie = format!("Cookie: simreel-{p}={token}; simreel-read-{p}={token}\r\n", p = s.port);
        assert_eq!(get(&s, target, &cookie).status, 403, "{target} with the token in a cookie");
    }
    assert_eq!(get(&s, "/api/scenes", &with_token).status, 200);
    assert_eq!(get(&s, "/api/scenes", &format!("Authorization: token {token}\r\n")).status, 200);
    let by_query = get(&s, &format!("/files/out/small/frame_0000.png?token={token}"), "");
    assert_eq!((by_query.status, by_query.body.as_slice()), (200, &b"png"[..]));
    // the scene's folder (here, a home) is never served: its hidden files least of all
    for target in ["/files/scenes/0/.ssh/config", "/files/scenes/0/small.toml", "/files/scenes/0/notes.txt"] {
        let a = get(&s, target, &with_token);
        assert_eq!(a.status, 404, "{target}: {}", a.text());
        assert!(!a.text().contains("secret") && !a.text().contains("private"), "{target} leaked");
    }
    // in the output folder: no hidden file, nothing simreel does not write for the page
    assert_eq!(get(&s, "/files/out/small/.hidden.png", &with_token).status, 403);
    assert_eq!(get(&s, "/files/out/small/notes.txt", &with_token).status, 404);
    std::os::unix::fs::symlink(dir.join(".ssh/config"), out.join("small/config.png")).unwrap();
    assert_eq!(get(&s, "/files/out/small/config.png", &with_token).status, 403, "a link out of the output folder");
    for target in [
        "/files/out/../.ssh/config",
        "/files/out/%2e%2e/.ssh/config",
        "/files/out/%2E%2E%2F.ssh%2Fconfig",
        "/files/out//etc/passwd",
        "/files/out/%2Fetc%2Fpasswd",
        "/files/out/..%5c.ssh%5cconfig",
        "/files/out/small/%00.png",
    ] {
        let a = get(&s, target, &with_token);
        assert!(matches!(a.status, 400 | 403), "{target}: {} {}", a.status, a.text());
        assert!(!a.text().contains("secret") && !a.text().contains("root:"), "{target} leaked a file");
    }
}

#[test]
fn foreign_names_and_sites_get_nothing_not_even_the_token() {
    let dir = home("studio-sec-hosts");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let p = s.port;
    let token = s.token();
    for host in [format!("evil.example:{p}"), format!("127.0.0.1:{}", p + 1), "127.0.0.1".into(), String::new()] {
        let a = raw(p, &format!("GET /?token={token} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"));
        assert_eq!(a.status, 421, "Host {host:?}: {}", a.text());
        assert!(!a.text().contains(&token) && !a.text().contains("Facts at this frame"), "the page went to Host {host:?}");
    }
    let a = raw(p, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(a.status, 421, "no Host at all");
    for origin in ["http://evil.example", "null", &format!("https://127.0.0.1:{p}")] {
        let a = raw(p, &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n"));
        assert_eq!(a.status, 403, "Origin {origin}");
    }
    let ours = raw(
        p,
        &format!("GET /?token={token} HTTP/1.1\r\nHost: localhost:{p}\r\nOrigin: http://localhost:{p}\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(ours.status, 200);
}

/// `request` sent to `at:port` as it is written; the whole answer.
fn ask_at(at: IpAddr, port: u16, request: &str) -> Answer {
    let mut st = TcpStream::connect((at, port)).unwrap();
    st.write_all(request.as_bytes()).unwrap();
    let mut b = Vec::new();
    st.read_to_end(&mut b).unwrap();
    crate::studio::parse_answer(&b)
}

/// A non-loopback address of this machine, when it has one (the address a packet to a documentation
/// address would leave from; nothing is sent).
fn own_address() -> Option<IpAddr> {
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    Some(s.local_addr().ok()?.ip()).filter(|ip| !ip.is_loopback() && !ip.is_unspecified())
}

#[test]
fn off_loopback_it_answers_its_own_names_and_writes_need_allow_writes() {
    let dir = home("studio-sec-remote");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out", "--host", "0.0.0.0", "--allow-host", "studio.test"]);
    let p = s.port;
    let token = s.token();
    let token_of = |port: u16, host: &str, at: IpAddr| {
        ask_at(at, port, &format!("GET /?token={token} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"))
    };
    let lo: IpAddr = [127, 0, 0, 1].into();
    // the names it was given and the loopback names; no other name, and never the token to one
    assert_eq!(token_of(p, &format!("studio.test:{p}"), lo).status, 200);
    assert_eq!(token_of(p, &format!("localhost:{p}"), lo).status, 200);
    let rebound = token_of(p, &format!("attacker.example:{p}"), lo);
    assert_eq!(rebound.status, 421);
    assert!(!rebound.text().contains(&s.token()));
    let Some(me) = own_address() else {
        eprintln!("studio test: this machine has no address but loopback: writes from another machine not tried");
        return;
    };
    // from this machine's other address (not loopback, as another machine would be): reads with
    // the token, but no writes
    let host = format!("{me}:{p}");
    let a = token_of(p, &host, me);
    assert_eq!(a.status, 421, "an address of 0.0.0.0 must be named: {}", a.text());
    drop(s);
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out", "--host", "0.0.0.0", "--allow-host", &me.to_string()]);
    let p = s.port;
    let host = format!("{me}:{p}");
    let token = s.token();
    let ask = |method: &str, target: &str| {
        let request = format!(
            "{method} {target} HTTP/1.1\r\nHost: {host}\r\nX-Simreel-Token: {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        ask_at(me, p, &request)
    };
    assert_eq!(ask("GET", "/api/scenes").status, 200);
    for target in ["/api/render?scene=x", "/api/golden/check", "/api/golden/accept?scene=x&frame=0", "/api/golden/reject?scene=x&frame=0"] {
        let a = ask("POST", target);
        assert_eq!(a.status, 403, "{target}: {}", a.text());
        assert!(a.text().contains("--allow-writes"), "{}", a.text());
    }
    drop(s);
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out", "--host", "0.0.0.0", "--allow-host", &me.to_string(), "--allow-writes"]);
    let (p, token) = (s.port, s.token());
    let host = format!("{me}:{p}");
    let request = format!(
        "POST /api/render?scene=x HTTP/1.1\r\nHost: {host}\r\nX-Simreel-Token: {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(ask_at(me, p, &request).status, 404, "admitted with --allow-writes; the scene is unknown");
}

#[test]
fn another_loopback_address_is_its_own() {
    let dir = home("studio-sec-127-0-0-2");
    let mut child = simreel()
        .current_dir(&dir)
        .args(["studio", "small.toml", "--out", "out", "--port", "0", "--host", "127.0.0.2"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://127.0.0.2:")).unwrap_or_else(|| panic!("{line}")).to_string();
    let port: u16 = url.trim_start_matches("http://127.0.0.2:").split('/').next().unwrap().parse().unwrap();
    let (port2, token) = address_and_token(&url, "127.0.0.2");
    assert_eq!(port, port2);
    let ask = |target: &str| {
        ask_at([127, 0, 0, 2].into(), port, &format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.2:{port}\r\nConnection: close\r\n\r\n"))
    };
    let (a, closed) = (ask(&format!("/?token={token}")), ask("/"));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(a.status, 200, "{}", a.text());
    assert!(a.text().contains("Facts at this frame"), "the page: {}", a.text());
    assert_eq!(closed.status, 403, "no page without the token");
}

/// Resident memory of a process, bytes.
fn resident(pid: u32) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    s.lines().find(|l| l.starts_with("VmRSS:")).unwrap().split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

#[test]
fn large_files_stream_with_ranges_in_little_memory() {
    let dir = home("studio-sec-stream");
    let out = dir.join("out");
    std::fs::create_dir_all(out.join("big")).unwrap();
    let size: u64 = 256 << 20;
    let file = out.join("big.mp4");
    {
        // a pattern that tells every offset apart
        let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for i in 0..size / 8 {
            w.write_all(&i.to_le_bytes()).unwrap();
        }
    }
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let t = format!("X-Simreel-Token: {}\r\n", s.token());
    let at = |offset: u64| -> Vec<u8> { (offset..offset + 16).map(|o| ((o / 8).to_le_bytes())[(o % 8) as usize]).collect() };
    let a = get(&s, "/files/out/big.mp4", &format!("{t}Range: bytes=1000-1015\r\n"));
    assert_eq!(a.status, 206, "{}", a.head);
    assert!(a.head.contains(&format!("Content-Range: bytes 1000-1015/{size}")), "{}", a.head);
    assert_eq!(a.body, at(1000));
    let a = get(&s, "/files/out/big.mp4", &format!("{t}Range: bytes=-16\r\n"));
    assert_eq!((a.status, a.body.clone()), (206, at(size - 16)));
    let a = get(&s, "/files/out/big.mp4", &format!("{t}Range: bytes={size}-\r\n"));
    assert_eq!(a.status, 416);
    assert!(a.head.contains(&format!("Content-Range: bytes */{size}")), "{}", a.head);
    // four whole downloads at once, read slowly enough to overlap: the server's memory stays put
    let before = resident(s.pid());
    let mut peak = before;
    let downloads: Vec<_> = (0..4)
        .map(|_| {
            let (port, t) = (s.port, t.clone());
            std::thread::spawn(move || {
                let mut st = TcpStream::connect(("127.0.0.1", port)).unwrap();
                write!(st, "GET /files/out/big.mp4 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{t}Connection: close\r\n\r\n").unwrap();
                let (mut total, mut buf) = (0u64, vec![0u8; 1 << 16]);
                loop {
                    match st.read(&mut buf).unwrap() {
                        0 => break total,
                        n => total += n as u64,
                    }
                }
            })
        })
        .collect();
    while downloads.iter().any(|d| !d.is_finished()) {
        peak = peak.max(resident(s.pid()));
        std::thread::sleep(Duration::from_millis(20));
    }
    for d in downloads {
        assert!(d.join().unwrap() > size, "a whole file and its head");
    }
    assert!(peak < before + (64 << 20), "four downloads of {} MiB took the server from {} to {} MiB", size >> 20, before >> 20, peak >> 20);
}

/// A WebSocket to `/api/live`, opened as the page opens it (the token in its query: a browser's
/// WebSocket sends no header of the page's choosing); returns the stream after the hello.
fn open_live(s: &Studio, token: &str) -> Result<TcpStream, Answer> {
    let mut st = TcpStream::connect(("127.0.0.1", s.port)).unwrap();
    st.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        st,
        "GET /api/live?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nOrigin: http://127.0.0.1:{p}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
        p = s.port
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if st.read(&mut byte).unwrap() == 0 {
            break;
        }
        head.push(byte[0]);
    }
    if !head.starts_with(b"HTTP/1.1 101") {
        let mut rest = Vec::new();
        let _ = st.read_to_end(&mut rest);
        head.extend(rest);
        return Err(crate::studio::parse_answer(&head));
    }
    // the hello: one unmasked text frame, short
    let mut h = [0u8; 2];
    st.read_exact(&mut h).unwrap();
    assert_eq!(h[0], 0x81, "a text frame");
    let mut body = vec![0u8; (h[1] & 0x7f) as usize];
    st.read_exact(&mut body).unwrap();
    assert!(String::from_utf8_lossy(&body).contains("catalog"));
    Ok(st)
}

/// Sends a close frame (masked, as a client's are) and waits for the server's.
fn close_live(mut st: TcpStream) {
    st.write_all(&[0x88, 0x82, 1, 2, 3, 4, 0x03 ^ 1, 0xe8 ^ 2]).unwrap();
    let mut h = [0u8; 2];
    st.read_exact(&mut h).unwrap();
    assert_eq!(h[0], 0x88, "the server answers the close");
}

#[test]
fn closed_pages_free_their_connections_at_once_and_a_client_has_a_bounded_share() {
    let dir = home("studio-sec-live");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let token = s.token();
    // 100 pages opened and closed, one after another: none holds a slot once closed
    let t0 = Instant::now();
    for _ in 0..100 {
        close_live(open_live(&s, &token).unwrap_or_else(|a| panic!("{} {}", a.status, a.text())));
    }
    let live = || s.json("/api/status")["connections"]["live"].as_u64().unwrap();
    wait_until("the closed pages to be let go", Duration::from_secs(2), || (live() == 0).then_some(()));
    assert_eq!(get(&s, "/api/status", &format!("X-Simreel-Token: {token}\r\n")).status, 200);
    eprintln!("studio test: 100 live pages opened and closed in {:.2} s", t0.elapsed().as_secs_f64());
    // a client holds at most 8 live pages; the ninth is refused, and requests still go through
    let open: Vec<TcpStream> = (0..8).map(|_| open_live(&s, &token).unwrap_or_else(|a| panic!("{}", a.text()))).collect();
    let ninth = open_live(&s, &token).expect_err("a ninth live page refused");
    assert_eq!(ninth.status, 503, "{}", ninth.text());
    assert_eq!(get(&s, "/api/status", &format!("X-Simreel-Token: {token}\r\n")).status, 200);
    // pages that vanish without a close (the connection dropped) are let go too
    drop(open);
    wait_until("dropped pages to be let go", Duration::from_secs(2), || (live() == 0).then_some(()));
}

#[test]
fn oversized_and_slow_requests_are_answered_and_dropped() {
    let dir = home("studio-sec-slow");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let (p, token) = (s.port, s.token());
    let long = "a".repeat(20_000);
    let a = raw(p, &format!("GET /?{long} HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nConnection: close\r\n\r\n"));
    assert_eq!(a.status, 431);
    let a =
        raw(p, &format!("POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nX-Simreel-Token: {token}\r\nContent-Length: 100000\r\n\r\n"));
    assert_eq!(a.status, 413);
    let a = raw(p, &format!("POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nTransfer-Encoding: chunked\r\n\r\n"));
    assert_eq!(a.status, 413);
    let a = raw(p, &format!("PUT / HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nContent-Length: 0\r\n\r\n"));
    assert_eq!(a.status, 405);
    let a = raw(p, "NOT HTTP AT ALL\r\n\r\n");
    assert_eq!(a.status, 400);
    // slow clients: 40 that send half a request and wait; each is answered 408 after the
    // request deadline (5 s), and meanwhile the studio answers others, the token's holders first
    let t0 = Instant::now();
    let slow: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut st = TcpStream::connect(("127.0.0.1", p)).unwrap();
            st.write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1").unwrap();
            st
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(get(&s, "/api/status", &format!("X-Simreel-Token: {token}\r\n")).status, 200, "slow clients do not keep the page out");
    assert_eq!(get(&s, "/", "").status, 403, "the page that says how to open the studio");
    let mut answered = Vec::new();
    for mut st in slow {
        st.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut b = Vec::new();
        let _ = st.read_to_end(&mut b);
        answered.push(crate::studio::parse_answer(&b).status);
    }
    let waited = t0.elapsed();
    assert_eq!(answered.iter().filter(|s| **s == 408).count(), 40, "{answered:?}");
    assert!(waited < Duration::from_secs(10), "slow requests were held {waited:?}");
    assert_eq!(get(&s, &format!("/?token={token}"), "").status, 200);
}

#[test]
fn the_page_without_the_token_says_only_how_to_open_the_studio() {
    let dir = home("studio-sec-closed");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let token = s.token();
    for target in ["/", "/?token=", &format!("/?token={}", "f".repeat(64)), "/?token=1"] {
        let a = get(&s, target, "");
        assert_eq!(a.status, 403, "{target}: {}", a.text());
        let text = a.text();
        assert!(text.contains("simreel studio") && text.contains("?token="), "it says how to open the studio: {text}");
        for secret in [token.as_str(), "small.toml", "small_terrain", dir.to_str().unwrap(), "/api/"] {
            assert!(!text.contains(secret), "{target} shows {secret}: {text}");
        }
        assert!(!a.head.to_ascii_lowercase().contains("set-cookie"), "{}", a.head);
    }
    assert!(get(&s, &format!("/?token={}", "f".repeat(64)), "").text().contains("not this studio's"), "a stale token is said to be");
}

#[test]
fn a_write_needs_the_token_in_a_header_not_a_cookie_nor_the_address() {
    let dir = home("studio-sec-writes");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let (p, token) = (s.port, s.token());
    let scene = simreel::studio::http::percent_encode(&std::fs::canonicalize(dir.join("small.toml")).unwrap().display().to_string());
    let post = |target: &str, extra: &str| {
        raw(p, &format!("POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\n{extra}Content-Length: 0\r\nConnection: close\r\n\r\n"))
    };
    for target in
        ["/api/golden/check", &format!("/api/render?scene={scene}"), "/api/golden/accept?path=a.png", "/api/golden/reject?path=a.png"]
    {
        for (how, extra, target) in [
            ("a cookie", format!("Cookie: simreel-{p}={token}\r\n"), target.to_string()),
            ("another cookie", format!("Cookie: simreel-read-{p}={token}; token={token}\r\n"), target.to_string()),
            ("the query", String::new(), format!("{target}{}token={token}", if target.contains('?') { "&" } else { "?" })),
            ("nothing", String::new(), target.to_string()),
        ] {
            let a = post(&target, &extra);
            assert_eq!(a.status, 403, "{target} with the token in {how}: {}", a.text());
            assert!(a.text().contains("X-Simreel-Token"), "{}", a.text());
        }
    }
    // with the header: admitted (the path names no failure: 404)
    let a = post("/api/golden/reject?path=a.png", &format!("X-Simreel-Token: {token}\r\n"));
    assert!(a.status != 403, "{} {}", a.status, a.text());
    assert!(!dir.join("out/small_terrain").exists(), "nothing was rendered");
}

#[test]
fn idle_connections_without_the_token_do_not_lock_out_the_page() {
    let dir = home("studio-sec-idle");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let (p, token) = (s.port, s.token());
    let with_token = format!("X-Simreel-Token: {token}\r\n");
    // 40 connections from this machine (every local process is 127.0.0.1) that send nothing
    let idle: Vec<TcpStream> = (0..40).map(|_| TcpStream::connect(("127.0.0.1", p)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let statuses: Vec<u16> = (0..20).map(|_| get(&s, "/api/status", &with_token).status).collect();
    assert!(statuses.iter().all(|s| *s == 200), "with 40 idle connections: {statuses:?}");
    // 200 more, past what may wait at once: the oldest are closed, the page is still answered
    let more: Vec<TcpStream> = (0..200).map(|_| TcpStream::connect(("127.0.0.1", p)).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let statuses: Vec<u16> = (0..20).map(|_| get(&s, "/api/status", &with_token).status).collect();
    assert!(statuses.iter().all(|s| *s == 200), "with 240 idle connections: {statuses:?}");
    let st = s.json("/api/status");
    assert!(st["connections"]["waiting"].as_u64().unwrap() <= 64, "{st}");
    // and the studio's page opens, at once
    let t0 = Instant::now();
    assert_eq!(get(&s, &format!("/?token={token}"), "").status, 200);
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    drop((idle, more));
}

#[test]
fn the_lock_file_holds_the_address_for_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = home("studio-sec-lock");
    let runtime = dir.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    let env = [("XDG_RUNTIME_DIR", runtime.to_str().unwrap())];
    let s = Studio::start_with(&dir, &["small.toml", "--out", "out"], &env);
    let locks: Vec<_> = std::fs::read_dir(&runtime).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(locks.len(), 1, "{locks:?}");
    let lock = &locks[0];
    assert_eq!(std::fs::metadata(lock).unwrap().permissions().mode() & 0o777, 0o600, "{}", lock.display());
    let text = std::fs::read_to_string(lock).unwrap();
    assert_eq!(text, format!("{}\nlistening on 127.0.0.1:{}\n", s.url, s.port), "the address and what it listens on, nothing else");
    // a second studio for the same scenes reads it, and says the address, token included
    let second =
        simreel().current_dir(&dir).args(["studio", "small.toml", "--port", "0"]).env("XDG_RUNTIME_DIR", &runtime).output().unwrap();
    assert!(String::from_utf8_lossy(&second.stdout).contains(&s.url), "{}", String::from_utf8_lossy(&second.stdout));
    drop(s);
    // a lock file someone made readable by all is made private before the token goes in
    std::fs::set_permissions(lock, std::fs::Permissions::from_mode(0o644)).unwrap();
    let again = Studio::start_with(&dir, &["small.toml", "--out", "out"], &env);
    assert_eq!(std::fs::metadata(lock).unwrap().permissions().mode() & 0o777, 0o600);
    drop(again);
}
