//! The studio's HTTP side: the page, its API, live updates over a WebSocket, and the files simreel
//! wrote in the output folder. Safe by default:
//!
//! - it answers only requests addressed to it by a name it has (its address, the loopback names
//!   on loopback, the names given with `--allow-host`), so a page elsewhere cannot reach it
//!   through DNS rebinding, and refuses requests from other sites (`Origin`);
//! - everything needs the session's token, a secret that only the address the studio printed
//!   carries (the terminal is its only channel): without it, `/` says how to open the studio and
//!   nothing else, and only the page's script, style and icon (the same for everyone) are
//!   served; a request that writes (render, check, accept, reject) carries it in a header, so
//!   that nothing a browser sends on its own (a cookie, a link, a form) can write;
//! - a write from another machine needs `--allow-writes`;
//! - it serves only frames, animations, manifests and reports inside the output folder, never a
//!   hidden file, streamed with byte ranges;
//! - connections whose request is still being read wait in a pool of their own (the oldest is
//!   closed to make room), so that connections opened and left idle by a local process without
//!   the token cannot keep out the page that has it; each client with the token has a bounded
//!   number of connections, and a closed page's live connection ends at once (its close frame is
//!   read).

use std::io::Read;
use std::net::{IpAddr, Shutdown, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::json;

use super::ctx::Ctx;
use super::http::{ANONYMOUS_DEADLINE, Answer, Deadline, Refusal, Request, WRITE_STALL, param, read_request, refuse, resolve, same_secret};

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/studio.js");
const STYLE: &str = include_str!("page/studio.css");
/// What `/` says without the token, and its script (which comes back with a token the tab kept).
const CLOSED: &str = include_str!("page/closed.html");
const CLOSED_SCRIPT: &str = include_str!("page/closed.js");
/// The page's icon: a square in the studio's blue.
const ICON: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f7de1"/><path d="M5 4l7 4-7 4z" fill="#fff"/></svg>"##;

/// Connections answered at once with the token, from all clients (a page needs a handful).
pub const MAX_ACTIVE: usize = 256;
/// Connections answered at once with the token from one client (its live pages included).
pub const MAX_PER_CLIENT: usize = 32;
/// Live pages one client may hold open at once.
pub const MAX_LIVE_PER_CLIENT: usize = 8;
/// Connections whose request is still being read; a new one closes the oldest when this many
/// wait (a request that shows up is read at once, so only idle ones are closed).
pub const MAX_WAITING: usize = 64;
/// Requests without the token answered at once (the page that says how to open the studio, and
/// refusals), in a pool of their own, each sent within [`ANONYMOUS_DEADLINE`]; past it, such a
/// connection is closed unanswered. The page itself needs none of them: its script, style and
/// icon come inside it.
pub const MAX_ANONYMOUS: usize = MAX_WAITING;
/// How often a live connection looks for what the page sent (a close), and pings it.
const LIVE_READ: Duration = Duration::from_millis(50);
const LIVE_PING: Duration = Duration::from_secs(15);

/// The files the page shows: frames, animations, manifests and reports.
const SERVED: [&str; 9] = ["png", "apng", "gif", "webp", "avif", "mp4", "webm", "json", "html"];

/// A connection whose request is being read: in the waiting pool while it lives.
struct Waiting {
    ctx: Arc<Ctx>,
    id: u64,
}

impl Waiting {
    /// Puts `stream` in the waiting pool, closing the connection that has waited longest when
    /// the pool is full. `None` when the connection cannot be tracked (no file handle left).
    fn enter(ctx: &Arc<Ctx>, stream: &TcpStream) -> Option<Waiting> {
        let handle = stream.try_clone().ok()?;
        let mut c = ctx.clients.lock().expect("clients");
        while c.waiting.len() >= MAX_WAITING {
            if let Some((_, oldest)) = c.waiting.pop_front() {
                let _ = oldest.shutdown(Shutdown::Both);
            }
        }
        let id = c.next_waiting;
        c.next_waiting += 1;
        c.waiting.push_back((id, handle));
        Some(Waiting { ctx: ctx.clone(), id })
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.ctx.clients.lock().expect("clients").waiting.retain(|(id, _)| *id != self.id);
    }
}

/// Who sent a request, as far as answering it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    /// It carries the session's token.
    Holder,
    /// It does not: it gets the page that says how to open the studio, static files, or a refusal.
    Anonymous,
}

/// A request being answered: counted in its pool while it lives.
pub struct Slot {
    ctx: Arc<Ctx>,
    peer: IpAddr,
    who: Who,
    live: bool,
}

impl Slot {
    /// A slot for a request from `peer`, unless its pool is full: the token's holders share
    /// [`MAX_ACTIVE`] and [`MAX_PER_CLIENT`] a client, the others [`MAX_ANONYMOUS`].
    fn take(ctx: &Arc<Ctx>, peer: IpAddr, who: Who) -> Result<Slot, Refusal> {
        let mut c = ctx.clients.lock().expect("clients");
        match who {
            Who::Holder => {
                let mine = c.by_client.get(&peer).map_or(0, |m| m.0);
                if c.all >= MAX_ACTIVE || mine >= MAX_PER_CLIENT {
                    return Err(refuse(503, "too many requests at once"));
                }
                c.all += 1;
                c.by_client.entry(peer).or_default().0 += 1;
            }
            Who::Anonymous => {
                if c.anonymous >= MAX_ANONYMOUS {
                    return Err(refuse(503, "too many requests without the token at once"));
                }
                c.anonymous += 1;
            }
        }
        Ok(Slot { ctx: ctx.clone(), peer, who, live: false })
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
        if self.who == Who::Anonymous {
            c.anonymous -= 1;
            return;
        }
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

/// Starts reading a connection's request on its own thread, in the waiting pool.
pub fn dispatch(stream: TcpStream, ctx: &Arc<Ctx>) {
    let Ok(peer) = stream.peer_addr().map(|a| a.ip()) else { return };
    let _ = stream.set_write_timeout(Some(WRITE_STALL));
    let Some(waiting) = Waiting::enter(ctx, &stream) else { return };
    let ctx = ctx.clone();
    let spawned = std::thread::Builder::new().name("studio-request".into()).spawn(move || handle(stream, peer, &ctx, waiting));
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
    let _ = stream.shutdown(Shutdown::Write);
    drain(&mut stream, Duration::from_millis(200));
}

/// Reads, admits and answers one request.
fn handle(mut stream: TcpStream, peer: IpAddr, ctx: &Arc<Ctx>, waiting: Waiting) {
    let read = read_request(&mut stream, peer);
    drop(waiting);
    let admitted = match read {
        Ok(req) => admit(&req, ctx).map(|who| (req, who)),
        Err(Some(r)) => Err(r),
        Err(None) => return,
    };
    let who = admitted.as_ref().map_or(Who::Anonymous, |(_, who)| *who);
    let slot = match Slot::take(ctx, peer, who) {
        Ok(s) => s,
        // no room for another request without the token: closed unanswered
        Err(_) if who == Who::Anonymous => return,
        Err(r) => return refuse_and_close(stream, &r),
    };
    let (req, who) = match admitted {
        Ok(admitted) => admitted,
        Err(r) => return refuse_and_close(stream, &r),
    };
    if req.path == "/api/live" {
        return live(stream, &req, ctx, slot);
    }
    let head_only = req.method == "HEAD";
    let answer = route(&req, ctx, who).unwrap_or_else(|r| Answer::refusal(&r));
    let _ = match who {
        Who::Holder => answer.send(&mut stream, head_only),
        // in time or not at all: a slow reader holds no place for long
        Who::Anonymous => answer.send(&mut Deadline { stream: &mut stream, until: Instant::now() + ANONYMOUS_DEADLINE }, head_only),
    };
}

/// What is answered without the token: the page that says how to open the studio, its script,
/// and the page's own script, style and icon (the same bytes for everyone, nothing of the user's).
fn is_open(req: &Request) -> bool {
    matches!(req.method.as_str(), "GET" | "HEAD")
        && matches!(req.path.as_str(), "/" | "/closed.js" | "/studio.js" | "/studio.css" | "/favicon.ico" | "/favicon.svg")
}

/// Whether `req` carries the session's token: in a header, or (a request that only reads) in
/// the query. Compared in constant time.
fn holds_token(req: &Request, token: &str) -> bool {
    let authorization = req.header("authorization").and_then(|v| {
        let (scheme, value) = v.split_once(' ')?;
        (scheme.eq_ignore_ascii_case("token") || scheme.eq_ignore_ascii_case("bearer")).then_some(value.trim())
    });
    let header = req.header("x-simreel-token").or(authorization);
    let query = matches!(req.method.as_str(), "GET" | "HEAD").then(|| param(&req.query, "token")).flatten();
    header.or(query).is_some_and(|t| same_secret(t.as_bytes(), token.as_bytes()))
}

/// Whether a request may be answered at all, and as whose: addressed to this server by one of its
/// names, from its own page, carrying the session's token unless it asks for what is open to all,
/// the token in a header when it writes, and from this machine unless `--allow-writes`.
fn admit(req: &Request, ctx: &Ctx) -> Result<Who, Refusal> {
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
    if holds_token(req, &a.token) {
        if req.method == "POST" && !a.may_write(req.peer) {
            return Err(refuse(
                403,
                "this studio takes requests that write (render, check, accept, reject) only from its own machine; start it with --allow-writes to take them from others",
            ));
        }
        return Ok(Who::Holder);
    }
    if req.method == "POST" {
        return Err(refuse(
            403,
            "a request that writes (render, check, accept, reject) carries the session's token in its X-Simreel-Token header; a cookie or a token in the address is not enough",
        ));
    }
    if is_open(req) {
        return Ok(Who::Anonymous);
    }
    Err(refuse(403, "this needs the session's token: open the address `simreel studio` printed (it ends in ?token=…)"))
}

/// The answer to an admitted request.
fn route(req: &Request, ctx: &Arc<Ctx>, who: Who) -> Result<Answer, Refusal> {
    let get = matches!(req.method.as_str(), "GET" | "HEAD");
    let q = &req.query;
    match (get, req.path.as_str()) {
        (true, "/") if who == Who::Anonymous => Ok(closed(param(q, "token").is_some())),
        (true, "/") => Ok(page()),
        (true, "/closed.js") => Ok(Answer::bytes(200, "text/javascript; charset=utf-8", CLOSED_SCRIPT.into())),
        (true, "/studio.js") => Ok(Answer::bytes(200, "text/javascript; charset=utf-8", SCRIPT.into())),
        (true, "/studio.css") => Ok(Answer::bytes(200, "text/css; charset=utf-8", STYLE.into())),
        (true, "/favicon.ico" | "/favicon.svg") => Ok(Answer::bytes(200, "image/svg+xml", ICON.into())),
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

/// The page: the same for everyone (the token stays in the address, then in the tab), with its
/// script, style and icon inside it, so that it needs no request without the token (those share a
/// small pool that others may fill); the policy allows those two by their hashes and nothing else.
fn page() -> Answer {
    static PAGE: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    let (html, policy) = PAGE.get_or_init(|| {
        use base64::Engine as _;
        use sha2::Digest as _;
        let hash = |s: &str| base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(s.as_bytes()));
        let icon = format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(ICON));
        let html = INDEX
            .replace(r#"<link rel="icon" href="/favicon.svg">"#, &format!(r#"<link rel="icon" href="{icon}">"#))
            .replace(r#"<link rel="stylesheet" href="/studio.css">"#, &format!("<style>{STYLE}</style>"))
            .replace(r#"<script src="/studio.js"></script>"#, &format!("<script>{SCRIPT}</script>"));
        let policy = format!(
            "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}'; img-src 'self' blob: data:; media-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
            hash(SCRIPT),
            hash(STYLE)
        );
        (html, policy)
    });
    Answer::bytes(200, "text/html; charset=utf-8", html.clone().into_bytes()).with("Content-Security-Policy", policy)
}

/// What `/` says without the token: how to open the studio, and nothing of what it serves.
/// `stale`: the address carried a token that is not this session's (a studio started again).
fn closed(stale: bool) -> Answer {
    let note = if stale {
        "<p>The token in this address is not this studio's: it was started again since. Use the address it printed last.</p>"
    } else {
        ""
    };
    Answer::bytes(403, "text/html; charset=utf-8", CLOSED.replace("{{NOTE}}", note).into_bytes()).with(
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    )
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
        "avif" => "image/avif",
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
