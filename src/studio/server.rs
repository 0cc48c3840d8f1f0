//! The studio's HTTP side: the page, its API, live updates over a WebSocket, and the files simreel
//! wrote in the output folder. Safe by default:
//!
//! - it answers only requests addressed to it by a name it has (its address, the loopback names
//!   on loopback, the names given with `--allow-host`), so a page elsewhere cannot reach it
//!   through DNS rebinding, and refuses requests from other sites (`Origin`);
//! - everything but the page itself needs the session's token, which only the page has (in the
//!   page for the API's requests, in a same-site cookie for its images and videos);
//! - a write (render, check, accept, reject) from another machine needs `--allow-writes`;
//! - it serves only frames, animations, manifests and reports inside the output folder, never a
//!   hidden file, streamed with byte ranges;
//! - each client has a bounded number of connections, and a closed page's live connection ends
//!   at once (its close frame is read).

use std::io::Read;
use std::net::{IpAddr, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::json;

use super::ctx::Ctx;
use super::http::{Answer, Refusal, Request, WRITE_STALL, read_request, refuse, resolve, same_secret};

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/studio.js");
const STYLE: &str = include_str!("page/studio.css");

/// Connections answered at once, from all clients (a page needs a handful).
pub const MAX_ACTIVE: usize = 256;
/// Connections answered at once from one client (its live pages included).
pub const MAX_PER_CLIENT: usize = 32;
/// Live pages one client may hold open at once.
pub const MAX_LIVE_PER_CLIENT: usize = 8;
/// How often a live connection looks for what the page sent (a close), and pings it.
const LIVE_READ: Duration = Duration::from_millis(50);
const LIVE_PING: Duration = Duration::from_secs(15);

/// The files the page shows: frames, animations, manifests and reports.
const SERVED: [&str; 8] = ["png", "apng", "gif", "webp", "mp4", "webm", "json", "html"];

/// A connection being answered: counted for its client while it lives.
pub struct Slot {
    ctx: Arc<Ctx>,
    peer: IpAddr,
    live: bool,
}

impl Slot {
    /// A slot for a connection from `peer`, unless the server or that client has too many.
    fn take(ctx: &Arc<Ctx>, peer: IpAddr) -> Result<Slot, Refusal> {
        let mut c = ctx.clients.lock().expect("clients");
        let mine = c.by_client.get(&peer).map_or(0, |m| m.0);
        if c.all >= MAX_ACTIVE || mine >= MAX_PER_CLIENT {
            return Err(refuse(503, "too many requests at once"));
        }
        c.all += 1;
        c.by_client.entry(peer).or_default().0 += 1;
        Ok(Slot { ctx: ctx.clone(), peer, live: false })
    }

    /// The slot becomes a live page's, unless its client holds too many.
    fn go_live(&mut self) -> Result<(), Refusal> {
        let mut c = self.ctx.clients.lock().expect("clients");
        let mine = c.by_client.entry(self.peer).or_default();
        if mine.1 >= MAX_LIVE_PER_CLIENT {
            return Err(refuse(503, format!("at most {MAX_LIVE_PER_CLIENT} live pages a client")));
        }
        mine.1 += 1;
        self.live = true;
        Ok(())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = self.ctx.clients.lock().expect("clients");
        c.all -= 1;
        if let Some(m) = c.by_client.get_mut(&self.peer) {
            m.0 -= 1;
            m.1 -= self.live as usize;
            if m.0 == 0 {
                c.by_client.remove(&self.peer);
            }
        }
    }
}

/// Starts answering a connection on its own thread, unless too many are being answered.
pub fn dispatch(stream: TcpStream, ctx: &Arc<Ctx>) {
    let Ok(peer) = stream.peer_addr().map(|a| a.ip()) else { return };
    let _ = stream.set_write_timeout(Some(WRITE_STALL));
    let slot = match Slot::take(ctx, peer) {
        Ok(s) => s,
        Err(r) => {
            // answered on a short-lived thread, so that the refusal reaches the client whole
            // (its unread request would otherwise reset the connection) and accepting goes on
            let _ = std::thread::Builder::new().name("studio-refusal".into()).spawn(move || {
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                refuse_and_close(stream, &r);
            });
            return;
        }
    };
    let ctx = ctx.clone();
    let spawned = std::thread::Builder::new().name("studio-request".into()).spawn(move || handle(stream, peer, &ctx, slot));
    if spawned.is_err() {
        eprintln!("simreel studio: cannot start a thread for a request");
    }
}

/// Answers `r` and closes the connection gently: what the client still sends (the rest of a
/// request refused before it was read) is read and dropped for a moment, so that closing does not
/// reset the connection before the client has read the answer.
fn refuse_and_close(mut stream: TcpStream, r: &Refusal) {
    let drain = |s: &mut TcpStream, wait: Duration| {
        let _ = s.set_read_timeout(Some(wait));
        let (mut buf, mut taken) = ([0u8; 4096], 0usize);
        while taken < 1 << 20 {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => taken += n,
            }
        }
    };
    drain(&mut stream, Duration::from_millis(20));
    let _ = Answer::refusal(r).send(&mut stream, false);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    drain(&mut stream, Duration::from_millis(200));
}

/// Reads, admits and answers one request.
fn handle(mut stream: TcpStream, peer: IpAddr, ctx: &Arc<Ctx>, slot: Slot) {
    let req = match read_request(&mut stream, peer) {
        Ok(r) => r,
        Err(Some(r)) => return refuse_and_close(stream, &r),
        Err(None) => return,
    };
    if let Err(r) = admit(&req, ctx) {
        return refuse_and_close(stream, &r);
    }
    if req.path == "/api/live" {
        return live(stream, &req, ctx, slot);
    }
    let head_only = req.method == "HEAD";
    let answer = route(&req, ctx).unwrap_or_else(|r| Answer::refusal(&r));
    let _ = answer.send(&mut stream, head_only);
}

/// The page itself: all that is answered without the token.
fn is_page(req: &Request) -> bool {
    matches!(req.method.as_str(), "GET" | "HEAD") && matches!(req.path.as_str(), "/" | "/studio.js" | "/studio.css")
}

/// Whether a request may be answered at all: addressed to this server by one of its names, from
/// its own page, carrying the session's token unless it asks for the page, and (when it writes)
/// from this machine unless `--allow-writes`.
fn admit(req: &Request, ctx: &Ctx) -> Result<(), Refusal> {
    let a = &ctx.access;
    let host = req.header("host").unwrap_or("");
    if !a.answers_to(host) {
        return Err(refuse(
            421,
            format!("this studio answers only requests addressed to {} (--allow-host adds a name)", a.hosts.join(", ")),
        ));
    }
    if let Some(origin) = req.header("origin")
        && !origin.eq_ignore_ascii_case(&format!("http://{host}"))
    {
        return Err(refuse(403, "requests from other sites are refused"));
    }
    if !matches!(req.method.as_str(), "GET" | "HEAD" | "POST") {
        return Err(refuse(405, "only GET, HEAD and POST are answered"));
    }
    if is_page(req) {
        return Ok(());
    }
    let token = req.header("x-simreel-token").or_else(|| req.cookie(&a.cookie)).unwrap_or("");
    if !same_secret(token.as_bytes(), a.token.as_bytes()) {
        return Err(refuse(403, "this needs the session's token, which the studio's page has: open the page first"));
    }
    if req.method == "POST" && !a.may_write(req.peer) {
        return Err(refuse(
            403,
            "this studio takes requests that write (render, check, accept, reject) only from its own machine; start it with --allow-writes to take them from others",
        ));
    }
    Ok(())
}

/// The answer to an admitted request.
fn route(req: &Request, ctx: &Arc<Ctx>) -> Result<Answer, Refusal> {
    let get = matches!(req.method.as_str(), "GET" | "HEAD");
    let q = &req.query;
    match (get, req.path.as_str()) {
        (true, "/") => Ok(page(ctx)),
        (true, "/studio.js") => Ok(Answer::bytes(200, "text/javascript; charset=utf-8", SCRIPT.into())),
        (true, "/studio.css") => Ok(Answer::bytes(200, "text/css; charset=utf-8", STYLE.into())),
        (true, "/api/scenes") => Ok(Answer::json(200, &super::api::scenes(ctx))),
        (true, "/api/status") => Ok(Answer::json(200, &super::api::status(ctx))),
        (true, "/api/frame.png") => super::api::frame(ctx, q).map(|png| Answer::bytes(200, "image/png", png)),
        (true, "/api/facts") => super::api::facts(ctx, q).map(|v| Answer::json(200, &v)),
        (true, "/api/golden") => Ok(Answer::json(200, &super::goldens::state(ctx))),
        (true, p) if p.starts_with("/files/") => file(ctx, &p["/files/".len()..], req.header("range")),
        (false, "/api/render") => super::api::render(ctx, q).map(|v| Answer::json(202, &v)),
        (false, "/api/golden/check") => super::goldens::start_check(ctx).map(|v| Answer::json(202, &v)),
        (false, "/api/golden/accept") => super::goldens::accept(ctx, q).map(|v| Answer::json(200, &v)),
        (false, "/api/golden/reject") => super::goldens::reject(ctx, q).map(|v| Answer::json(200, &v)),
        _ => Err(refuse(404, "no such page")),
    }
}

/// The page, with the session's token in it and in a same-site cookie (for its images and videos).
fn page(ctx: &Ctx) -> Answer {
    let a = &ctx.access;
    let html = INDEX.replace("{{TOKEN}}", &a.token);
    Answer::bytes(200, "text/html; charset=utf-8", html.into_bytes())
        .with(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        )
        .with("Set-Cookie", &format!("{}={}; Path=/; HttpOnly; SameSite=Strict", a.cookie, a.token))
}

/// `/files/out/<path>`: a frame, animation, manifest or report in the output folder.
fn file(ctx: &Ctx, rest: &str, range: Option<&str>) -> Result<Answer, Refusal> {
    let rel = rest.strip_prefix("out/").ok_or_else(|| refuse(404, "the studio serves files of the output folder only (/files/out/…)"))?;
    let real = resolve(&ctx.out, rel)?;
    let ext = real.extension().and_then(|x| x.to_str()).unwrap_or("").to_ascii_lowercase();
    if !SERVED.contains(&ext.as_str()) {
        return Err(refuse(404, "the studio serves only frames, animations, manifests and reports"));
    }
    Answer::file(&real, content_type(&real), range)
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|x| x.to_str()).unwrap_or("") {
        "png" | "apng" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "json" => "application/json",
        // a report (HTML) as text: a served page never runs in the studio's origin
        _ => "text/plain; charset=utf-8",
    }
}

/// `/api/live`: a WebSocket that carries the catalog's changes and renders' progress to the page,
/// and ends as soon as the page closes it.
fn live(mut stream: TcpStream, req: &Request, ctx: &Ctx, mut slot: Slot) {
    use tungstenite::{Message, protocol::Role, protocol::WebSocketConfig};
    let upgrade = req.header("upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    let version = req.header("sec-websocket-version") == Some("13");
    let Some(key) = req.header("sec-websocket-key").filter(|_| upgrade && version && req.method == "GET") else {
        let _ = Answer::refusal(&refuse(400, "/api/live is a WebSocket (version 13)")).send(&mut stream, false);
        return;
    };
    if let Err(r) = slot.go_live() {
        let _ = Answer::refusal(&r).send(&mut stream, false);
        return;
    }
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let head =
        format!("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n");
    if std::io::Write::write_all(&mut stream, head.as_bytes()).is_err() || stream.set_read_timeout(Some(LIVE_READ)).is_err() {
        return;
    }
    let config = WebSocketConfig::default().max_message_size(Some(64 << 10)).max_frame_size(Some(64 << 10));
    let mut ws = tungstenite::WebSocket::from_raw_socket(stream, Role::Server, Some(config));
    let rx = ctx.hub.subscribe();
    let hello = json!({ "type": "catalog", "version": ctx.version.load(Ordering::SeqCst) });
    if ws.send(Message::text(hello.to_string())).is_err() {
        return;
    }
    let mut pinged = Instant::now();
    while !ctx.stop.load(Ordering::SeqCst) {
        let sent = match rx.recv_timeout(LIVE_READ) {
            Ok(m) => ws.send(Message::text(m)),
            Err(RecvTimeoutError::Timeout) if pinged.elapsed() >= LIVE_PING => {
                pinged = Instant::now();
                ws.send(Message::Ping(Vec::new().into()))
            }
            Err(RecvTimeoutError::Timeout) => Ok(()),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if sent.is_err() {
            return;
        }
        // what the page sent: its close ends the connection now (answered); the rest is dropped
        match ws.read() {
            Ok(Message::Close(_)) => {
                let _ = ws.flush();
                return;
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e)) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return,
        }
    }
    let _ = ws.close(None);
    let _ = ws.flush();
}
