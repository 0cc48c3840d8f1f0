//! The studio's HTTP/1.1, small and strict: one request a connection, read within limits and a
//! deadline (a slow or oversized request is answered and dropped, never waited on), answers that
//! carry the headers every answer needs, and files streamed from disk with byte ranges (a video
//! player seeks with them), never read whole into memory. A leaf: it knows nothing of scenes or
//! of the studio's state.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::net::{IpAddr, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

/// The largest request head (request line and headers) taken.
pub const MAX_HEAD: usize = 16 * 1024;
/// The largest request body taken (the API's POSTs carry none).
pub const MAX_BODY: usize = 4096;
/// How long a client has to send its whole request (a browser sends it at once; a connection
/// opened and left idle holds a place in the waiting pool no longer).
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(5);
/// How long writing an answer may stall before the client is dropped (one that stopped reading).
pub const WRITE_STALL: Duration = Duration::from_secs(30);

/// Why a request is not answered as asked: its status and a sentence for the person reading it.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub why: String,
}

pub fn refuse(status: u16, why: impl Into<String>) -> Refusal {
    Refusal { status, why: why.into() }
}

/// A request, read whole: its body (small, and never used) was read and dropped.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The target's path, still %-escaped.
    pub path: String,
    /// The target's `key=value` pairs, decoded.
    pub query: Vec<(String, String)>,
    /// Header names in lower case, in the order sent.
    headers: Vec<(String, String)>,
    /// Who sent it.
    pub peer: IpAddr,
}

impl Request {
    /// The value of the first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// The value of a query's `name=`.
pub fn param<'a>(q: &'a [(String, String)], name: &str) -> Option<&'a str> {
    q.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// Reads one request from `stream` within [`REQUEST_DEADLINE`]. `Err(None)`: the client left
/// before sending one (nothing to answer); `Err(Some(r))`: answer `r` and close.
pub fn read_request(stream: &mut TcpStream, peer: IpAddr) -> Result<Request, Option<Refusal>> {
    let deadline = Instant::now() + REQUEST_DEADLINE;
    let mut buf = Vec::with_capacity(1024);
    let too_long = || Some(refuse(431, format!("the request's head is over {MAX_HEAD} bytes")));
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            if at > MAX_HEAD {
                return Err(too_long());
            }
            break at;
        }
        if buf.len() > MAX_HEAD {
            return Err(too_long());
        }
        match read_some(stream, &mut buf, deadline) {
            Ok(0) if buf.is_empty() => return Err(None),
            Ok(0) => return Err(Some(refuse(400, "the request ended before its head did"))),
            Ok(_) => {}
            Err(e) if is_timeout(&e) => return Err(Some(refuse(408, "the request was not sent in time"))),
            Err(_) => return Err(None),
        }
    };
    let head = std::str::from_utf8(&buf[..end]).map_err(|_| Some(refuse(400, "the request's head is not UTF-8")))?;
    let req = parse_head(head, peer).map_err(Some)?;
    let length = body_length(&req).map_err(Some)?;
    // the body, read and dropped: what was read with the head, then the rest
    let mut left = length.saturating_sub(buf.len() - (end + 4));
    let mut sink = Vec::new();
    while left > 0 {
        sink.clear();
        match read_some(stream, &mut sink, deadline) {
            Ok(0) => return Err(Some(refuse(400, "the request ended before its body did"))),
            Ok(n) => left = left.saturating_sub(n),
            Err(e) if is_timeout(&e) => return Err(Some(refuse(408, "the request was not sent in time"))),
            Err(_) => return Err(None),
        }
    }
    Ok(req)
}

/// One read into `buf` (appended), waiting no later than `deadline`.
fn read_some(stream: &mut TcpStream, buf: &mut Vec<u8>, deadline: Instant) -> io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left))?;
    let mut chunk = [0u8; 4096];
    let n = stream.read(&mut chunk)?;
    buf.extend_from_slice(&chunk[..n]);
    Ok(n)
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

/// The request line and headers.
fn parse_head(head: &str, peer: IpAddr) -> Result<Request, Refusal> {
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or("");
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(refuse(400, "a request line is METHOD TARGET HTTP/1.1"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(refuse(505, "only HTTP/1.x is spoken"));
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(refuse(400, "a request's method is a word in capitals"));
    }
    if !target.starts_with('/') {
        return Err(refuse(400, "a request's target is a path that starts with /"));
    }
    let mut headers = Vec::new();
    for l in lines {
        let (name, value) = l.split_once(':').ok_or_else(|| refuse(400, "a header is NAME: VALUE"))?;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
            return Err(refuse(400, "a header's name is a token (no spaces, no folded lines)"));
        }
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let (path, query) = split_target(target);
    Ok(Request { method: method.to_string(), path: path.to_string(), query, headers, peer })
}

/// How long the body is; a chunked one is refused (nothing here takes one).
fn body_length(req: &Request) -> Result<usize, Refusal> {
    if req.header("transfer-encoding").is_some() {
        return Err(refuse(413, "the studio takes no request bodies (Transfer-Encoding)"));
    }
    let lengths: Vec<&str> = req.headers.iter().filter(|(k, _)| k == "content-length").map(|(_, v)| v.as_str()).collect();
    let Some(first) = lengths.first() else { return Ok(0) };
    if lengths.iter().any(|l| l != first) {
        return Err(refuse(400, "two different Content-Length headers"));
    }
    let n: u64 = first.parse().map_err(|_| refuse(400, "Content-Length is a number"))?;
    if n > MAX_BODY as u64 {
        return Err(refuse(413, "the request's body is too large"));
    }
    Ok(n as usize)
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

/// How long an answer to a request without the token may take to send, whole: the page that
/// says how to open the studio and refusals are a few kilobytes, so a client that reads them
/// slower than that (to hold a place) is dropped.
pub const ANONYMOUS_DEADLINE: Duration = Duration::from_secs(2);

/// A connection written to until `until` and no later, a few kilobytes a write, so that a client
/// that trickles its reads cannot stretch an answer out.
pub struct Deadline<'a> {
    pub stream: &'a mut TcpStream,
    pub until: Instant,
}

impl Write for Deadline<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        self.stream.set_write_timeout(Some(left))?;
        self.stream.write(&buf[..buf.len().min(4096)])
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

/// What an answer's body is.
enum Body {
    Bytes(Vec<u8>),
    /// `len` bytes of `file` from `start`.
    File {
        file: File,
        start: u64,
        len: u64,
    },
}

/// An answer, written by [`Answer::send`].
pub struct Answer {
    pub status: u16,
    headers: Vec<(String, String)>,
    body: Body,
}

impl Answer {
    pub fn bytes(status: u16, kind: &str, body: Vec<u8>) -> Answer {
        Answer { status, headers: vec![("Content-Type".into(), kind.into())], body: Body::Bytes(body) }
    }

    pub fn json(status: u16, v: &serde_json::Value) -> Answer {
        Answer::bytes(status, "application/json", v.to_string().into_bytes())
    }

    pub fn refusal(r: &Refusal) -> Answer {
        Answer::json(r.status, &serde_json::json!({ "error": r.why }))
    }

    /// The answer with one more header.
    pub fn with(mut self, name: &str, value: &str) -> Answer {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The file at `path` (as `kind`), whole or the one byte range `range` (a `Range` header's
    /// value) asks for; streamed when sent. A range that is not understood, or several, gets the
    /// whole file, as HTTP allows; one past the end gets 416.
    pub fn file(path: &Path, kind: &str, range: Option<&str>) -> Result<Answer, Refusal> {
        let file = File::open(path).map_err(|_| refuse(404, "no such file"))?;
        let size = file.metadata().map_err(|_| refuse(404, "no such file"))?.len();
        let answer = |status, start, len| Answer {
            status,
            headers: vec![("Content-Type".into(), kind.into()), ("Accept-Ranges".into(), "bytes".into())],
            body: Body::File { file, start, len },
        };
        match range.map(|r| byte_range(r, size)) {
            None | Some(Range::Ignored) => Ok(answer(200, 0, size)),
            Some(Range::Unsatisfiable) => {
                Ok(Answer::refusal(&refuse(416, format!("the file has {size} bytes"))).with("Content-Range", &format!("bytes */{size}")))
            }
            Some(Range::Bytes(start, end)) => {
                Ok(answer(206, start, end - start + 1).with("Content-Range", &format!("bytes {start}-{end}/{size}")))
            }
        }
    }

    /// Writes the answer and its body (none for `HEAD`), with the headers every answer carries:
    /// never cached, never sniffed, never framed, no referrer, and the connection closed after it.
    pub fn send(self, w: &mut impl Write, head_only: bool) -> io::Result<()> {
        let len = match &self.body {
            Body::Bytes(b) => b.len() as u64,
            Body::File { len, .. } => *len,
        };
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (k, v) in self.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).chain([
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("X-Frame-Options", "DENY"),
            ("Referrer-Policy", "no-referrer"),
            ("Connection", "close"),
        ]) {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!("Content-Length: {len}\r\n\r\n"));
        w.write_all(head.as_bytes())?;
        if !head_only {
            match self.body {
                Body::Bytes(b) => w.write_all(&b)?,
                Body::File { mut file, start, len } => {
                    file.seek(SeekFrom::Start(start))?;
                    let sent = io::copy(&mut file.take(len), w)?;
                    if sent < len {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file got shorter while it was sent"));
                    }
                }
            }
        }
        w.flush()
    }
}

/// What a `Range` header asks of a file of `size` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Range {
    /// Inclusive byte offsets.
    Bytes(u64, u64),
    Unsatisfiable,
    /// Not one byte range understood here: the whole file is sent.
    Ignored,
}

fn byte_range(header: &str, size: u64) -> Range {
    let Some(spec) = header.trim().strip_prefix("bytes=") else { return Range::Ignored };
    if spec.contains(',') {
        return Range::Ignored;
    }
    let Some((a, b)) = spec.trim().split_once('-') else { return Range::Ignored };
    let number = |s: &str| if !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()) { s.parse::<u64>().ok() } else { None };
    match (a.trim(), b.trim()) {
        ("", suffix) => match number(suffix) {
            Some(n) if n > 0 && size > 0 => Range::Bytes(size - n.min(size), size - 1),
            Some(_) => Range::Unsatisfiable,
            None => Range::Ignored,
        },
        (start, end) => match (number(start), if end.is_empty() { Some(None) } else { number(end).map(Some) }) {
            (Some(s), Some(_)) if s >= size => Range::Unsatisfiable,
            (Some(s), Some(None)) => Range::Bytes(s, size - 1),
            (Some(s), Some(Some(e))) if e >= s => Range::Bytes(s, e.min(size - 1)),
            _ => Range::Ignored,
        },
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        101 => "Switching Protocols",
        200 => "OK",
        202 => "Accepted",
        206 => "Partial Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        416 => "Range Not Satisfiable",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
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
/// when it is escaped wrongly, climbs out (`..`), is absolute, names a hidden file or folder (one
/// whose name starts with a dot), or is a link that leads out.
pub fn resolve(root: &Path, raw: &str) -> Result<PathBuf, Refusal> {
    let outside = || refuse(403, "only files inside the output folder are served");
    let decoded = percent_decode(raw).ok_or_else(|| refuse(400, "a broken %-escape in the path"))?;
    if decoded.contains(['\0', '\\']) || decoded.starts_with('/') {
        return Err(outside());
    }
    let rel = Path::new(&decoded);
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(outside());
    }
    if rel.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.')) {
        return Err(refuse(403, "hidden files are never served"));
    }
    let real = std::fs::canonicalize(root.join(rel)).map_err(|_| refuse(404, "no such file"))?;
    if !real.starts_with(root) {
        return Err(outside());
    }
    if real.strip_prefix(root).is_ok_and(|r| r.components().any(|c| c.as_os_str().to_string_lossy().starts_with('.'))) {
        return Err(refuse(403, "hidden files are never served"));
    }
    if !real.is_file() {
        return Err(refuse(404, "no such file"));
    }
    Ok(real)
}

/// Compares secrets in time that does not depend on where they differ.
pub fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_out_of_the_root_or_hidden_are_refused_however_they_are_written() {
        let root = std::env::temp_dir().join(format!("simreel-resolve-{}", std::process::id()));
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("sub/a.png"), b"x").unwrap();
        std::fs::write(root.join(".git/config"), b"x").unwrap();
        std::fs::write(root.join("sub/.secret.png"), b"x").unwrap();
        let root = std::fs::canonicalize(&root).unwrap();
        assert_eq!(resolve(&root, "sub/a.png"), Ok(root.join("sub/a.png")));
        assert_eq!(resolve(&root, "sub%2Fa.png"), Ok(root.join("sub/a.png")));
        for bad in
            ["../etc/passwd", "sub/../../x", "%2e%2e/x", "%2E%2E%2Fx", "/etc/passwd", "%2fetc%2fpasswd", "sub\\..\\..\\x", "a%00b", "%zz"]
        {
            let r = resolve(&root, bad);
            assert!(matches!(&r, Err(Refusal { status: 400 | 403, .. })), "{bad}: {r:?}");
        }
        for hidden in [".git/config", "%2egit/config", "sub/.secret.png", "./sub/.secret.png"] {
            assert_eq!(resolve(&root, hidden).unwrap_err().status, 403, "{hidden}");
        }
        // a visible link to a hidden file is refused too
        std::os::unix::fs::symlink(root.join(".git/config"), root.join("sub/config.png")).unwrap();
        assert_eq!(resolve(&root, "sub/config.png").unwrap_err().status, 403);
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

    #[test]
    fn byte_ranges_as_http_reads_them() {
        assert_eq!(byte_range("bytes=0-99", 1000), Range::Bytes(0, 99));
        assert_eq!(byte_range("bytes=900-", 1000), Range::Bytes(900, 999));
        assert_eq!(byte_range("bytes=-100", 1000), Range::Bytes(900, 999));
        assert_eq!(byte_range("bytes=-5000", 1000), Range::Bytes(0, 999), "a suffix longer than the file is all of it");
        assert_eq!(byte_range("bytes=990-5000", 1000), Range::Bytes(990, 999), "an end past the file is its end");
        assert_eq!(byte_range("bytes=1000-", 1000), Range::Unsatisfiable);
        assert_eq!(byte_range("bytes=-0", 1000), Range::Unsatisfiable);
        assert_eq!(byte_range("bytes=0-", 0), Range::Unsatisfiable);
        for ignored in ["items=0-1", "bytes=5-1", "bytes=0-1,5-6", "bytes=a-b", "bytes=", "bytes=+1-2", "bytes=1"] {
            assert_eq!(byte_range(ignored, 1000), Range::Ignored, "{ignored}");
        }
    }

    #[test]
    fn request_heads_are_read_strictly() {
        let peer: IpAddr = [127, 0, 0, 1].into();
        let r = parse_head("GET /api/frame.png?scene=a%20b&frame=3 HTTP/1.1\r\nHost: x\r\nCookie: a=1; simreel-1=t", peer).unwrap();
        assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/api/frame.png"));
        assert_eq!((param(&r.query, "scene"), param(&r.query, "frame")), (Some("a b"), Some("3")));
        assert_eq!((r.header("HOST"), r.header("cookie"), r.header("b")), (Some("x"), Some("a=1; simreel-1=t"), None));
        for (bad, status) in [
            ("GET / HTTP/2\r\nHost: x", 505),
            ("GET http://evil/ HTTP/1.1\r\nHost: x", 400),
            ("GET  / HTTP/1.1", 400),
            ("get / HTTP/1.1", 400),
            ("GET / HTTP/1.1\r\n folded: x", 400),
            ("GET / HTTP/1.1\r\nno colon", 400),
        ] {
            assert_eq!(parse_head(bad, peer).unwrap_err().status, status, "{bad:?}");
        }
        let twice = parse_head("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2", peer).unwrap();
        assert_eq!(body_length(&twice).unwrap_err().status, 400);
        let chunked = parse_head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked", peer).unwrap();
        assert_eq!(body_length(&chunked).unwrap_err().status, 413);
    }
}
