//! The studio's door for those without the token, and its token in the browser. Requests without
//! the token (the page that says how to open the studio, refusals) are answered from a small pool
//! of their own and within a short deadline, and the page needs none of them: a crowd of slow
//! readers cannot keep it from opening. A window that another site opens carries a copy of the
//! tab's sessionStorage: the studio never takes the token from it. And an accept is never a
//! keystroke: a key asks, a click of the pointer answers.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::fd::OwnedFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::common::scratch_part;
use crate::studio::{Answer, Studio, raw, wait_until};

fn project(name: &str) -> std::path::PathBuf {
    let dir = scratch_part(name);
    std::fs::copy(crate::common::root().join("tests/scenes/small_terrain.toml"), dir.join("small.toml")).unwrap();
    dir
}

fn get(s: &Studio, target: &str, extra: &str) -> Answer {
    raw(s.port, &format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{extra}Connection: close\r\n\r\n", s.port))
}

/// A connection to 127.0.0.1:`port` with a receive buffer of a few kilobytes, that asks for
/// `target` without the token: the answer can only come as fast as it is read.
fn slow_reader(port: u16, target: &str) -> TcpStream {
    use rustix::net::{AddressFamily, SocketAddrV4, SocketType, sockopt};
    let fd: OwnedFd = rustix::net::socket(AddressFamily::INET, SocketType::STREAM, None).unwrap();
    sockopt::set_socket_recv_buffer_size(&fd, 1024).unwrap();
    rustix::net::connect(&fd, &SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, port)).unwrap();
    let mut s = TcpStream::from(fd);
    s.write_all(format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").as_bytes()).unwrap();
    s
}

#[test]
fn readers_that_trickle_without_the_token_cannot_keep_the_page_from_opening() {
    let dir = project("studio-door-trickle");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    // 70 connections ask for the page's script without the token and read a byte every 10 ms:
    // each answer would take minutes
    let mut slow: Vec<TcpStream> = (0..70).map(|_| slow_reader(s.port, "/studio.js")).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let trickle = {
        let stop = stop.clone();
        let mut streams: Vec<TcpStream> = slow.iter().map(|t| t.try_clone().unwrap()).collect();
        std::thread::spawn(move || {
            let mut byte = [0u8; 1];
            while !stop.load(Ordering::Relaxed) {
                for t in &mut streams {
                    let _ = t.set_read_timeout(Some(Duration::from_millis(1)));
                    let _ = t.read(&mut byte);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    // the page, with the token: one request, its script, style and icon inside it
    let started = Instant::now();
    let page = get(&s, &format!("/?token={}", s.token()), "");
    assert_eq!(page.status, 200, "{}", page.text());
    let html = page.text();
    assert!(html.contains("<script>") && html.contains("<style>"), "the script and style are not inside the page");
    assert!(!html.contains(r#"src="/studio.js""#) && !html.contains(r#"href="/studio.css""#) && !html.contains(r#"href="/favicon.svg""#));
    let policy = page.head.lines().find(|l| l.to_ascii_lowercase().starts_with("content-security-policy")).unwrap_or("").to_string();
    assert!(policy.contains("script-src 'sha256-") && !policy.contains("unsafe-inline"), "{policy}");
    let with_token = format!("X-Simreel-Token: {}\r\n", s.token());
    assert_eq!(get(&s, "/api/scenes", &with_token).status, 200);
    assert!(started.elapsed() < Duration::from_secs(2), "the page took {:?}", started.elapsed());
    // past the deadline the slow readers are dropped: the door answers again
    std::thread::sleep(Duration::from_millis(2500));
    let door = get(&s, "/", "");
    assert_eq!(door.status, 403, "{}", door.text());
    assert!(door.text().contains("To open the studio"), "{}", door.text());
    stop.store(true, Ordering::Relaxed);
    trickle.join().unwrap();
    slow.clear();
}

/// A page of another site (another port of 127.0.0.1 is another origin) that opens the studio
/// in a new window, as a site the studio's tab went on to could.
fn opener_site(studio: u16) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let body = format!(
                "<!doctype html><title>elsewhere</title><script>window.open('http://127.0.0.1:{studio}/#goldens', '_blank')</script>"
            );
            let _ = c.write_all(
                format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len())
                    .as_bytes(),
            );
        }
    });
    port
}

#[test]
fn a_window_another_site_opens_never_takes_the_token_the_tab_kept() {
    let dir = project("studio-door-opener");
    let s = Studio::start_in(&dir, &["small.toml", "--out", "out"]);
    let profile = scratch_part("studio-door-opener-profile");
    let mut b = crate::browser::Browser::launch_with(&profile, &s.url, &["--disable-popup-blocking"]);
    wait_until("the studio's page", Duration::from_secs(20), || b.eval("!!window.studio").as_bool().filter(|v| *v));
    assert_eq!(b.eval("sessionStorage.getItem('simreel-token')").as_str(), Some(s.token().as_str()), "the tab keeps the token");
    // the tab goes on to another site, which opens the studio in a window of its own
    let site = opener_site(s.port);
    b.call("Page.navigate", serde_json::json!({ "url": format!("http://127.0.0.1:{site}/") }));
    let studio_root = format!("http://127.0.0.1:{}/", s.port);
    let (_, socket) = wait_until("the window the site opened", Duration::from_secs(20), || {
        b.pages().into_iter().find(|(url, _)| url.starts_with(&studio_root))
    });
    // it stays at the door: no studio, and the copied token forgotten
    std::thread::sleep(Duration::from_millis(1500));
    let opened = crate::browser::Browser::eval_in(
        &socket,
        "JSON.stringify([!!window.studio, location.search, sessionStorage.getItem('simreel-token')])",
    );
    assert_eq!(opened.as_str(), Some("[false,\"\",null]"), "the opened window: {opened}");
    let text = crate::browser::Browser::eval_in(&socket, "document.body.innerText");
    assert!(text.as_str().is_some_and(|t| t.contains("To open the studio")), "{text}");
}
