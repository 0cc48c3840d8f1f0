//! The studio's HTTP side: the page, its API, live updates over a WebSocket, and files of the
//! served and output folders. Safe by default: it answers only requests addressed to the loopback
//! name it listens on (a page elsewhere cannot reach it through DNS rebinding), writes only on a
//! POST that carries the session's token (which only the page it served has), and serves a file
//! only when its real path lies inside a served folder or the output folder.

use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use tiny_http::{Header, Method, Request, Response, StatusCode};

use super::catalog::Catalog;
use super::engine::Engine;

const INDEX: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/studio.js");
const STYLE: &str = include_str!("page/studio.css");

/// Requests answered at once; more wait for a thread (a page needs a handful).
pub const MAX_ACTIVE: usize = 64;
/// The largest request body taken (the API's POSTs carry none).
const MAX_BODY: usize = 4096;

/// Everything a request may need.
pub struct Ctx {
    /// The session's token: every request that writes carries it.
    pub token: String,
    /// `Host` values this server answers to (empty: any, when `--host` chose another address).
    pub hosts: Vec<String>,
    /// The output folder and the served folders, resolved.
    pub out: PathBuf,
    pub folders: Vec<PathBuf>,
    pub catalog: Mutex<Catalog>,
    /// Bumped whenever the catalog changes.
    pub version: AtomicU64,
    pub engine: Engine,
    pub hub: Hub,
    pub stop: AtomicBool,
    pub active: AtomicUsize,
    /// What `POST /api/render` does: render a scene's frames and animations into the output folder.
    pub render: Box<dyn Fn(PathBuf) -> Result<String, String> + Send + Sync>,
    pub rendering: Mutex<Vec<PathBuf>>,
    /// Where approved images live, and the adapter checks render on.
    pub goldens: PathBuf,
    pub adapter: crate::render::AdapterRequest,
    pub review: Mutex<super::goldens::Review>,
}

/// The live pages: each gets every message sent.
#[derive(Default)]
pub struct Hub(Mutex<Vec<Sender<String>>>);

impl Hub {
    pub fn subscribe(&self) -> Receiver<String> {
        let (tx, rx) = channel();
        self.0.lock().expect("hub").push(tx);
        rx
    }

    pub fn send(&self, message: serde_json::Value) {
        let text = message.to_string();
        self.0.lock().expect("hub").retain(|tx| tx.send(text.clone()).is_ok());
    }

    /// Ends every live connection.
    pub fn close(&self) {
        self.0.lock().expect("hub").clear();
    }
}

/// An answer that is not the thing asked for.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub why: String,
}

pub(super) fn refuse(status: u16, why: impl Into<String>) -> Refusal {
    Refusal { status, why: why.into() }
}

/// `%XX` escapes decoded; `None` for a broken escape or bytes that are not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `s` with everything but unreserved characters escaped (for a path segment or a query value).
pub fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|c| if c.is_ascii_alphanumeric() || b"-._~".contains(&c) { (c as char).to_string() } else { format!("%{c:02X}") })
        .collect()
}

/// The file `raw` (a URL path below a root, still escaped) names inside `root` (resolved): refused
/// when it is escaped wrongly, climbs out (`..`), is absolute, or is a link that leads out.
pub fn resolve(root: &Path, raw: &str) -> Result<PathBuf, Refusal> {
    let decoded = percent_decode(raw).ok_or_else(|| refuse(400, "a broken %-escape in the path"))?;
    if decoded.contains(['\0', '\\']) || decoded.starts_with('/') {
        return Err(refuse(403, "only paths inside the served folders are served"));
    }
    let rel = Path::new(&decoded);
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(refuse(403, "only paths inside the served folders are served"));
    }
    let real = std::fs::canonicalize(root.join(rel)).map_err(|_| refuse(404, "no such file"))?;
    if !real.starts_with(root) {
        return Err(refuse(403, "only paths inside the served folders are served"));
    }
    if !real.is_file() {
        return Err(refuse(404, "no such file"));
    }
    Ok(real)
}

/// The value of a request's header (first one; case-insensitive name).
fn header<'a>(req: &'a Request, name: &'static str) -> Option<&'a str> {
    req.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str())
}

/// `path` and the decoded `key=value` pairs of a request's target.
fn split_target(url: &str) -> (&str, Vec<(String, String)>) {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((percent_decode(&k.replace('+', " "))?, percent_decode(&v.replace('+', " "))?))
        })
        .collect();
    (path, pairs)
}

/// The value of a query's `name=`.
pub(super) fn param<'a>(q: &'a [(String, String)], name: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn head(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

/// What every answer carries: never cached, never sniffed, never framed, no referrer.
fn secured<R: Read>(r: Response<R>) -> Response<R> {
    r.with_header(head("Cache-Control", "no-store"))
        .with_header(head("X-Content-Type-Options", "nosniff"))
        .with_header(head("X-Frame-Options", "DENY"))
        .with_header(head("Referrer-Policy", "no-referrer"))
}

fn bytes(status: u16, kind: &str, body: Vec<u8>) -> Response<std::io::Cursor<Vec<u8>>> {
    secured(Response::from_data(body).with_status_code(StatusCode(status)).with_header(head("Content-Type", kind)))
}

fn json_answer(status: u16, v: &serde_json::Value) -> Response<std::io::Cursor<Vec<u8>>> {
    bytes(status, "application/json", v.to_string().into_bytes())
}

fn refusal(r: &Refusal) -> Response<std::io::Cursor<Vec<u8>>> {
    json_answer(r.status, &json!({ "error": r.why }))
}

/// Answers one request.
pub fn handle(mut req: Request, ctx: &Arc<Ctx>) {
    if let Err(r) = admit(&mut req, ctx) {
        let _ = req.respond(refusal(&r));
        return;
    }
    let url = req.url().to_string();
    let (path, query) = split_target(&url);
    if path == "/api/live" {
        return live(req, ctx);
    }
    let answer = match (req.method(), path) {
        (Method::Get, "/") => Ok(page(ctx)),
        (Method::Get, "/studio.js") => Ok(bytes(200, "text/javascript; charset=utf-8", SCRIPT.into())),
        (Method::Get, "/studio.css") => Ok(bytes(200, "text/css; charset=utf-8", STYLE.into())),
        (Method::Get, "/api/scenes") => Ok(json_answer(200, &super::api::scenes(ctx))),
        (Method::Get, "/api/status") => Ok(json_answer(200, &super::api::status(ctx))),
        (Method::Get, "/api/frame.png") => super::api::frame(ctx, &query).map(|png| bytes(200, "image/png", png)),
        (Method::Get, "/api/facts") => super::api::facts(ctx, &query).map(|v| json_answer(200, &v)),
        (Method::Post, "/api/render") => super::api::render(ctx, &query).map(|v| json_answer(202, &v)),
        (Method::Get, "/api/golden") => Ok(json_answer(200, &super::goldens::state(ctx))),
        (Method::Post, "/api/golden/check") => super::goldens::start_check(ctx).map(|v| json_answer(202, &v)),
        (Method::Post, "/api/golden/accept") => super::goldens::accept(ctx, &query).map(|v| json_answer(200, &v)),
        (Method::Post, "/api/golden/reject") => super::goldens::reject(ctx, &query).map(|v| json_answer(200, &v)),
        (Method::Get, p) if p.starts_with("/files/") => file(ctx, &p["/files/".len()..]),
        (Method::Get | Method::Post, _) => Err(refuse(404, "no such page")),
        _ => Err(refuse(405, "only GET and POST are answered")),
    };
    let _ = req.respond(answer.unwrap_or_else(|r| refusal(&r)));
}

/// Whether a request may be answered at all: addressed to this server, and (when it writes)
/// carrying the session's token and no body to speak of.
fn admit(req: &mut Request, ctx: &Ctx) -> Result<(), Refusal> {
    let host = header(req, "Host").map(str::to_ascii_lowercase);
    if !ctx.hosts.is_empty() && !host.as_ref().is_some_and(|h| ctx.hosts.contains(h)) {
        return Err(refuse(421, "this server answers only requests addressed to it by its loopback address"));
    }
    if let Some(origin) = header(req, "Origin") {
        let host = host.unwrap_or_default();
        if !ctx.hosts.is_empty() && origin != format!("http://{host}") {
            return Err(refuse(403, "requests from other sites are refused"));
        }
    }
    if *req.method() == Method::Post {
        let token = header(req, "X-Simreel-Token").unwrap_or("");
        if !same_secret(token.as_bytes(), ctx.token.as_bytes()) {
            return Err(refuse(403, "a request that writes needs the session's token, which the studio's page has"));
        }
        let chunked = req.body_length().is_none() && header(req, "Transfer-Encoding").is_some();
        if chunked || req.body_length().is_some_and(|n| n > MAX_BODY) {
            return Err(refuse(413, "the request's body is too large"));
        }
    }
    Ok(())
}

/// Compares secrets in time that does not depend on where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The page, with the session's token in it.
fn page(ctx: &Ctx) -> Response<std::io::Cursor<Vec<u8>>> {
    let html = INDEX.replace("{{TOKEN}}", &ctx.token);
    bytes(200, "text/html; charset=utf-8", html.into_bytes()).with_header(head(
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ))
}

/// `/files/out/<path>` (the output folder) or `/files/scenes/<n>/<path>` (the n-th served folder).
fn file(ctx: &Ctx, rest: &str) -> Result<Response<std::io::Cursor<Vec<u8>>>, Refusal> {
    let (root, rel) = if let Some(rel) = rest.strip_prefix("out/") {
        (&ctx.out, rel)
    } else if let Some(r) = rest.strip_prefix("scenes/") {
        let (n, rel) = r.split_once('/').ok_or_else(|| refuse(404, "no such file"))?;
        let root = n.parse::<usize>().ok().and_then(|n| ctx.folders.get(n)).ok_or_else(|| refuse(404, "no such folder"))?;
        (root, rel)
    } else {
        return Err(refuse(404, "no such file"));
    };
    let real = resolve(root, rel)?;
    let body = std::fs::read(&real).map_err(|_| refuse(404, "no such file"))?;
    Ok(bytes(200, content_type(&real), body))
}

fn content_type(p: &Path) -> &'static str {
    match p.extension().and_then(|x| x.to_str()).unwrap_or("") {
        "png" | "apng" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "mp4" => "video/mp4",
        "webm" => "video/webm",
        "json" => "application/json",
        // everything else (HTML included) as text: a served page never runs in the studio's origin
        _ => "text/plain; charset=utf-8",
    }
}

/// `/api/live`: a WebSocket that carries the catalog's changes and renders' progress to the page.
fn live(req: Request, ctx: &Ctx) {
    let upgrade = header(&req, "Upgrade").is_some_and(|u| u.eq_ignore_ascii_case("websocket"));
    let Some(key) = header(&req, "Sec-WebSocket-Key").filter(|_| upgrade).map(str::to_string) else {
        let _ = req.respond(refusal(&refuse(400, "/api/live is a WebSocket")));
        return;
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let stream = req.upgrade("websocket", Response::empty(StatusCode(101)).with_header(head("Sec-WebSocket-Accept", &accept)));
    let mut ws = tungstenite::WebSocket::from_raw_socket(stream, tungstenite::protocol::Role::Server, None);
    let rx = ctx.hub.subscribe();
    let hello = json!({ "type": "catalog", "version": ctx.version.load(Ordering::SeqCst) });
    if ws.send(tungstenite::Message::text(hello.to_string())).is_err() {
        return;
    }
    while !ctx.stop.load(Ordering::SeqCst) {
        let sent = match rx.recv_timeout(Duration::from_secs(15)) {
            Ok(m) => ws.send(tungstenite::Message::text(m)),
            Err(RecvTimeoutError::Timeout) => ws.send(tungstenite::Message::Ping(Vec::new().into())),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if sent.is_err() {
            return;
        }
    }
    let _ = ws.close(None);
    let _ = ws.flush();
}

/// Starts answering `req` on its own thread, unless too many are being answered.
pub fn dispatch(req: Request, ctx: &Arc<Ctx>) {
    if ctx.active.fetch_add(1, Ordering::SeqCst) >= MAX_ACTIVE {
        ctx.active.fetch_sub(1, Ordering::SeqCst);
        let _ = req.respond(refusal(&refuse(503, "too many requests at once")));
        return;
    }
    let ctx = ctx.clone();
    let spawned = std::thread::Builder::new().name("studio-request".into()).spawn(move || {
        handle(req, &ctx);
        ctx.active.fetch_sub(1, Ordering::SeqCst);
    });
    if spawned.is_err() {
        eprintln!("simreel studio: cannot start a thread for a request");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_out_of_the_root_are_refused_however_they_are_written() {
        let root = std::env::temp_dir().join(format!("simreel-resolve-{}", std::process::id()));
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.png"), b"x").unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        assert_eq!(resolve(&root, "sub/a.png"), Ok(root.join("sub/a.png")));
        assert_eq!(resolve(&root, "sub%2Fa.png"), Ok(root.join("sub/a.png")));
        for bad in
            ["../etc/passwd", "sub/../../x", "%2e%2e/x", "%2E%2E%2Fx", "/etc/passwd", "%2fetc%2fpasswd", "sub\\..\\..\\x", "a%00b", "%zz"]
        {
            let r = resolve(&root, bad);
            assert!(matches!(&r, Err(Refusal { status: 400 | 403, .. })), "{bad}: {r:?}");
        }
        assert_eq!(resolve(&root, "nothing.png").unwrap_err().status, 404);
        assert_eq!(resolve(&root, "sub").unwrap_err().status, 404, "a folder is not served");
        std::os::unix::fs::symlink("/etc", root.join("sub/link")).unwrap();
        assert_eq!(resolve(&root, "sub/link/passwd").unwrap_err().status, 403, "a link out of the root");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn percent_escapes_round_trip_and_broken_ones_are_refused() {
        for s in ["scenes/a b.toml", "ü/%/?&=#", ""] {
            assert_eq!(percent_decode(&percent_encode(s)).as_deref(), Some(s));
        }
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%ff"), None, "not UTF-8");
    }

    #[test]
    fn secrets_compare_equal_only_when_equal() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
    }
}
