//! What the studio's requests share: who may ask what (the names it answers to, the session's
//! token, whether other machines may write), the catalog and engine, the connections being
//! answered, the live pages, and the state of a golden review.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc::{Receiver, Sender, channel};

use super::catalog::Catalog;
use super::engine::Engine;

/// Everything a request may need.
pub struct Ctx {
    pub access: Access,
    /// The output folder, resolved.
    pub out: PathBuf,
    pub catalog: Mutex<Catalog>,
    /// Bumped whenever the catalog changes.
    pub version: AtomicU64,
    pub engine: Engine,
    pub hub: Hub,
    pub stop: AtomicBool,
    /// Connections being read and answered (live pages included).
    pub clients: Mutex<Clients>,
    /// What `POST /api/render` does: render a scene's frames and animations into the output folder.
    pub render: Box<dyn Fn(PathBuf) -> Result<String, String> + Send + Sync>,
    pub rendering: Mutex<Vec<PathBuf>>,
    /// Where approved images live, and the adapter checks render on.
    pub goldens: PathBuf,
    /// The folders the Goldens view may accept into ([`crate::golden::trust`]).
    pub folders: crate::golden::trust::Folders,
    pub adapter: crate::render::AdapterRequest,
    pub review: Mutex<Review>,
}

/// Who may ask what.
pub struct Access {
    /// The session's token, a secret: the address the studio prints carries it, and every
    /// request but those for the page that says how to open the studio (and the page's script,
    /// style and icon, the same for everyone) must carry it: in the `X-Simreel-Token` header (or
    /// `Authorization: token …`), or, for a request that only reads, in the query (`?token=`).
    /// Never in a cookie: a browser sends a cookie of 127.0.0.1 to every port there.
    pub token: String,
    /// `Host` values this server answers to: its own address, the loopback names when it listens
    /// on loopback (or on every address), and the names given with `--allow-host`.
    pub hosts: Vec<String>,
    /// Whether requests that write (render, accept, reject, check) are taken from other machines.
    pub remote_writes: bool,
}

impl Access {
    /// Access for a server listening at `addr`, also answering to `names` (host names, with or
    /// without a port).
    pub fn new(token: String, addr: SocketAddr, names: &[String], remote_writes: bool) -> Access {
        let port = addr.port();
        let mut hosts = vec![bracketed(addr.ip(), port)];
        if addr.ip().is_loopback() || addr.ip().is_unspecified() {
            hosts.extend([format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")]);
        }
        for n in names {
            let n = n.to_ascii_lowercase();
            hosts.push(if n.contains(':') && !n.ends_with(']') { n.clone() } else { format!("{n}:{port}") });
            if port == 80 {
                hosts.push(n);
            }
        }
        hosts.dedup();
        Access { token, hosts, remote_writes }
    }

    /// Whether `host` (a `Host` header's value) names this server.
    pub fn answers_to(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Whether a request from `peer` may write.
    pub fn may_write(&self, peer: IpAddr) -> bool {
        self.remote_writes || peer.is_loopback() || peer.to_canonical().is_loopback()
    }
}

/// `ip:port`, an IPv6 address in brackets, as a `Host` header writes it.
fn bracketed(ip: IpAddr, port: u16) -> String {
    match ip {
        IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        IpAddr::V4(v4) => format!("{v4}:{port}"),
    }
}

/// Connections being read and answered. Every local client is one address (127.0.0.1), so what
/// one client may hold is counted only once its request showed the token: connections whose
/// request is still being read wait in a pool of their own, where a newcomer closes the oldest.
#[derive(Default)]
pub struct Clients {
    /// Requests with the token being answered, all and (answering, live pages) by client.
    pub all: usize,
    pub by_client: HashMap<IpAddr, (usize, usize)>,
    /// Requests without the token being answered (the page that says how to open the studio,
    /// refusals).
    pub anonymous: usize,
    /// Connections whose request is still being read, oldest first: a number and a handle that
    /// closes it.
    pub waiting: VecDeque<(u64, TcpStream)>,
    pub next_waiting: u64,
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

/// What the page has decided in the Goldens view, and what the check is doing.
#[derive(Default)]
pub struct Review {
    pub running: bool,
    pub error: Option<String>,
    /// Which adapter the check rendered on and why, and any missing adapter.
    pub notes: Vec<String>,
    /// What was accepted (a frame, a compared file) and the files written or removed.
    pub accepted: Vec<(crate::golden::report::Subject, Vec<String>)>,
    pub rejected: Vec<crate::golden::report::Subject>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_answers_to_its_own_address_and_the_names_it_was_given() {
        let on = |a: &str, names: &[&str]| {
            Access::new("t".into(), a.parse().unwrap(), &names.iter().map(|n| n.to_string()).collect::<Vec<_>>(), false)
        };
        let lo = on("127.0.0.2:7770", &[]);
        for h in ["127.0.0.2:7770", "127.0.0.1:7770", "LOCALHOST:7770", "[::1]:7770"] {
            assert!(lo.answers_to(h), "{h}");
        }
        for h in ["127.0.0.2:7771", "evil.example:7770", "127.0.0.2", ""] {
            assert!(!lo.answers_to(h), "{h}");
        }
        let lan = on("192.168.1.5:7770", &["studio.lan"]);
        assert!(lan.answers_to("192.168.1.5:7770") && lan.answers_to("studio.lan:7770"));
        assert!(!lan.answers_to("localhost:7770") && !lan.answers_to("evil.example:7770"), "no loopback names off loopback");
        let any = on("0.0.0.0:80", &["box"]);
        assert!(any.answers_to("localhost:80") && any.answers_to("box") && any.answers_to("box:80"));
        assert!(!any.answers_to("10.0.0.9:80"), "an address of every address must be named");
        let v6 = on("[::1]:9000", &[]);
        assert!(v6.answers_to("[::1]:9000"));
        assert!(!lan.may_write("192.168.1.9".parse().unwrap()) && lan.may_write("127.0.0.1".parse().unwrap()));
        assert!(lan.may_write("::ffff:127.0.0.1".parse().unwrap()));
    }
}
