//! `simreel studio`: a local page that shows scenes while they are written. It serves the scene
//! files named (and those under the folders named), watches them and the files they read, and
//! shows each frame as a draft and then final, redrawing only what an edit changed: the scene's
//! fingerprints say whether the simulation or only the drawing depends on what changed, and saved
//! states make a seek cost at most the distance from the nearest one.
//!
//! Threads: the HTTP server's accept loop, one per request being answered (a live page holds
//! one), the renderer ([`engine`]), and the watcher's.

mod api;
pub mod catalog;
pub mod ctx;
pub mod engine;
pub mod goldens;
pub mod http;
pub mod lock;
pub mod server;
pub mod watch;

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::render::AdapterRequest;

/// The port a studio listens on unless told otherwise, or the next free one after it.
pub const PORT: u16 = 7770;
/// How many ports after [`PORT`] are tried.
const PORTS_TRIED: u16 = 20;

/// What `simreel studio` was asked.
#[derive(Clone, Debug)]
pub struct Options {
    /// Scene files and folders of scene files.
    pub inputs: Vec<PathBuf>,
    pub out: PathBuf,
    /// Exactly this port (0: any free one); default [`PORT`] or the next free one.
    pub port: Option<u16>,
    /// Listen on this address instead of 127.0.0.1.
    pub host: Option<IpAddr>,
    /// Names other than its address that requests may address it by.
    pub allow_hosts: Vec<String>,
    /// Take writes from other machines.
    pub allow_writes: bool,
    pub open: bool,
    pub poll: bool,
    pub adapter: AdapterRequest,
    /// Where approved images live (the Goldens view checks against them and accepts into them).
    pub goldens: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    #[error("{0}: no such file or folder")]
    Missing(PathBuf),
    #[error("cannot listen on {addr}: {why}")]
    Listen { addr: String, why: String },
    #[error("the lock file {path}: {source}")]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot watch the scene files: {0}")]
    Watch(String),
    #[error("Ctrl-C cannot be caught ({0})")]
    Signal(String),
    #[error("the output folder {path}: {source}")]
    Out {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// `simreel studio`: serves until Ctrl-C.
pub fn serve(opts: Options) -> Result<(), StudioError> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)).map_err(|e| StudioError::Signal(e.to_string()))?;
    run(opts, stop)
}

/// The folders the Goldens view may accept into: where the studio was started, its output and
/// golden folders, and the folders of the scenes it serves. A report in the output folder names
/// files to write, and it is read back: nothing it names elsewhere is touched.
fn own_folders(opts: &Options, out: &std::path::Path) -> crate::golden::trust::Folders {
    let here = std::env::current_dir().unwrap_or_default();
    let scenes = opts.inputs.iter().map(|p| if p.is_dir() { p.as_path() } else { p.parent().unwrap_or(p) });
    let home = crate::environment::Environment::current().home.clone();
    crate::golden::trust::Folders::new(
        [here.as_path(), out, opts.out.as_path(), opts.goldens.as_path()].into_iter().chain(scenes),
        home.as_deref(),
    )
}

/// Serves the studio until Ctrl-C (or `stop` is set).
pub fn run(opts: Options, stop: Arc<AtomicBool>) -> Result<(), StudioError> {
    if let Some(missing) = opts.inputs.iter().find(|p| !p.exists()) {
        return Err(StudioError::Missing(missing.clone()));
    }
    let lock_path = lock::path_for(&opts.inputs).map_err(|source| StudioError::Lock { path: std::env::temp_dir(), source })?;
    let mut held = match lock::Lock::take(&lock_path).map_err(|source| StudioError::Lock { path: lock_path.clone(), source })? {
        Ok(l) => l,
        Err(first) => {
            let url = if first.url.is_empty() { "an address it is still choosing".to_string() } else { first.url.clone() };
            println!("simreel studio is already running for these scenes at {url}");
            if let Some(why) = not_used(&opts, &first) {
                eprintln!("{why}");
            }
            if opts.open && url.starts_with("http") {
                open_browser(&lock_path, &url);
            }
            return Ok(());
        }
    };
    simreel_compare::fs::Folder::create(&opts.out).map_err(|source| StudioError::Out { path: opts.out.clone(), source })?;
    let out = std::fs::canonicalize(&opts.out).map_err(|source| StudioError::Out { path: opts.out.clone(), source })?;
    let (listener, addr) = listen(opts.host, opts.port)?;
    let access = ctx::Access::new(token(), addr, &opts.allow_hosts, opts.allow_writes);
    // the terminal is the token's only channel: the address printed carries it
    let url = format!("http://{}/?token={}", display_addr(addr), access.token);
    let _ = held.announce(&url, addr);
    if opts.host.is_some_and(|h| !h.is_loopback()) {
        eprintln!("{}", off_loopback_warning(addr, &access, opts.allow_writes));
    }
    let skip = vec![opts.out.clone(), out.clone()];
    let catalog = catalog::Catalog::new(opts.inputs.clone(), skip);
    let engine = engine::Engine::start(opts.adapter.clone(), out.clone());
    engine.serve(catalog.scenes());
    let cancel = Arc::new(AtomicBool::new(false));
    let ctx = Arc::new(ctx::Ctx {
        access,
        out: out.clone(),
        catalog: Mutex::new(catalog),
        version: AtomicU64::new(1),
        engine,
        hub: ctx::Hub::default(),
        stop: AtomicBool::new(false),
        clients: Mutex::new(ctx::Clients::default()),
        render: render_into(opts.out.clone(), opts.adapter.clone(), cancel.clone()),
        rendering: Mutex::new(Vec::new()),
        goldens: opts.goldens.clone(),
        folders: own_folders(&opts, &out),
        adapter: opts.adapter.clone(),
        review: Mutex::new(ctx::Review::default()),
    });

    let watching = watch_files(&ctx, opts.poll, stop.clone())?;

    let (count, problems) = {
        let c = ctx.catalog.lock().expect("catalog");
        (c.entries.len(), c.entries.values().filter(|e| e.problem.is_some()).count())
    };
    println!(
        "simreel studio: {} ({} with problems) at {url} (Ctrl-C stops it)",
        crate::text::count(count as u64, "scene", "scenes"),
        problems
    );
    if opts.open {
        open_browser(&lock_path, &url);
    }
    unblock_on_stop(addr, stop.clone());
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        if let Ok(s) = stream {
            server::dispatch(s, &ctx);
        }
    }
    ctx.stop.store(true, Ordering::SeqCst);
    cancel.store(true, Ordering::SeqCst);
    ctx.hub.close();
    let _ = watching.join();
    // (said where it can be: the terminal may be gone)
    let _ = writeln!(std::io::stdout(), "simreel studio: stopped");
    drop(held);
    Ok(())
}

/// Starts watching the served files: each settled change reads the catalog again.
fn watch_files(ctx: &Arc<ctx::Ctx>, poll: bool, stop: Arc<AtomicBool>) -> Result<std::thread::JoinHandle<()>, StudioError> {
    let (tx, rx) = channel();
    let mut watcher = watch::Watcher::start(poll, tx).map_err(StudioError::Watch)?;
    watcher.set(&ctx.catalog.lock().expect("catalog").watched());
    let ctx = ctx.clone();
    Ok(std::thread::spawn(move || {
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(paths) => changed(&ctx, &mut watcher, &paths),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if stop.load(Ordering::SeqCst) {
                break;
            }
        }
    }))
}

/// Wakes the accept loop once `stop` is set (by Ctrl-C), so that it ends: a connection to itself.
fn unblock_on_stop(addr: SocketAddr, stop: Arc<AtomicBool>) {
    std::thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
        let ip = match addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        let _ = std::net::TcpStream::connect_timeout(&SocketAddr::new(ip, addr.port()), Duration::from_secs(1));
    });
}

/// Reads the catalog again after files changed, and tells the pages what changed.
fn changed(ctx: &ctx::Ctx, watcher: &mut watch::Watcher, paths: &[PathBuf]) {
    let mut catalog = ctx.catalog.lock().expect("catalog");
    if !paths.iter().any(|p| catalog.concerns(p)) {
        return;
    }
    let changed = catalog.reload();
    if changed.is_empty() {
        return;
    }
    watcher.set(&catalog.watched());
    ctx.engine.serve(catalog.scenes());
    let version = ctx.version.fetch_add(1, Ordering::SeqCst) + 1;
    drop(catalog);
    let ids: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
    ctx.hub.send(json!({ "type": "catalog", "version": version, "changed": ids }));
}

/// Listens on `host` (127.0.0.1 by default) at `port`, or at [`PORT`] or the next free port.
fn listen(host: Option<IpAddr>, port: Option<u16>) -> Result<(std::net::TcpListener, SocketAddr), StudioError> {
    let ip = host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let ports: Vec<u16> = match port {
        Some(p) => vec![p],
        None => (PORT..PORT + PORTS_TRIED).collect(),
    };
    let mut last = String::new();
    for p in &ports {
        match std::net::TcpListener::bind(SocketAddr::new(ip, *p)) {
            Ok(l) => {
                let addr = l.local_addr().map_err(|e| StudioError::Listen { addr: format!("{ip}:{p}"), why: e.to_string() })?;
                return Ok((l, addr));
            }
            Err(e) => last = e.to_string(),
        }
    }
    let addr = match port {
        Some(p) => format!("{ip}:{p}"),
        None => format!("{ip}, ports {PORT} to {}", PORT + PORTS_TRIED - 1),
    };
    Err(StudioError::Listen { addr, why: last })
}

fn display_addr(a: SocketAddr) -> String {
    match a.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => format!("127.0.0.1:{}", a.port()),
        _ => a.to_string(),
    }
}

/// Why a second studio's `--host` and `--port` are not used, when it was given others than the
/// first one's: one studio serves a set of scenes.
fn not_used(opts: &Options, first: &lock::Held) -> Option<String> {
    let listening: SocketAddr = first.listening.as_deref()?.parse().ok()?;
    let mut ignored = Vec::new();
    if let Some(h) = opts.host.filter(|h| *h != listening.ip()) {
        ignored.push(format!("--host {h}"));
    }
    if let Some(p) = opts.port.filter(|p| *p != 0 && *p != listening.port()) {
        ignored.push(format!("--port {p}"));
    }
    (!ignored.is_empty()).then(|| {
        format!(
            "note: {} not used: the studio already serving these scenes listens on {listening}, and one studio serves a set of scenes; stop that one (Ctrl-C where it runs) to serve them elsewhere",
            ignored.join(" and ")
        )
    })
}

/// What a studio listening off loopback (at `addr`) answers, and to whom.
fn off_loopback_warning(addr: SocketAddr, access: &ctx::Access, allow_writes: bool) -> String {
    let ip = addr.ip();
    let every = ip.is_unspecified();
    let named: Vec<&str> =
        access.hosts.iter().map(String::as_str).filter(|h| !h.starts_with("0.0.0.0:") && !h.starts_with("[::]:")).collect();
    let from_others = if every && access.hosts.iter().all(|h| is_loopback_name(h) || h.starts_with("0.0.0.0:") || h.starts_with("[::]:")) {
        " From other machines, a request must name this machine by a name given with --allow-host (none given), so only this machine (and a tunnel to it) gets answers.".to_string()
    } else {
        String::new()
    };
    format!(
        "warning: listening on {ip}{}, port {}: anyone who can reach this machine there and has the address printed below (its token) sees the scenes and the output folder. It answers requests addressed to {} (--allow-host adds a name).{from_others} {} The connection is plain HTTP: on a network you do not trust, the token can be read on the way.",
        if every { " (every address of this machine)" } else { "" },
        addr.port(),
        named.join(", "),
        if allow_writes {
            "With --allow-writes, they can also render, run the golden check and accept or reject goldens."
        } else {
            "Writes (render, golden check, accept, reject) come only from this machine: --allow-writes takes them from others."
        }
    )
}

/// Whether a `Host` value names a loopback address.
fn is_loopback_name(host: &str) -> bool {
    host.starts_with("127.") || host.starts_with("localhost:") || host.starts_with("[::1]:")
}

/// A fresh secret for this session: 256 random bits, hex.
fn token() -> String {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).expect("the operating system's random numbers");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// What the page's Render button does: the scene's frames, GIF and animations into `out`, as
/// `simreel render` (resuming what is there).
fn render_into(
    out: PathBuf,
    adapter: AdapterRequest,
    cancel: Arc<AtomicBool>,
) -> Box<dyn Fn(PathBuf) -> Result<String, String> + Send + Sync> {
    Box::new(move |path: PathBuf| {
        let scene = crate::scene::load(&path).map_err(|e| e.to_string())?;
        let job = crate::pipeline::Job::new(scene, &out).adapter(adapter.clone()).resume(true);
        let o = crate::pipeline::run(&job, crate::pipeline::ProgressMode::Quiet, &cancel).map_err(|e| e.to_string())?;
        Ok(format!("{} rendered, {} kept", crate::text::count(o.rendered as u64, "frame", "frames"), o.reused))
    })
}

/// Opens `url` in the system's browser (said, not fatal, when it cannot), through a page beside
/// the lock file `lock` that leads there: the token stays off the browser's command line, which
/// every user of the machine can read.
fn open_browser(lock: &std::path::Path, url: &str) {
    let opener = match lock::write_opener(lock, url) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot open a browser (the page that leads to the studio: {e}); open the address above");
            return;
        }
    };
    let target = opener.display().to_string();
    let (cmd, args): (&str, Vec<&str>) =
        if cfg!(target_os = "macos") { ("open", vec![target.as_str()]) } else { ("xdg-open", vec![target.as_str()]) };
    if let Err(e) =
        std::process::Command::new(cmd).args(&args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn()
    {
        eprintln!("cannot open a browser ({cmd}: {e}); open the address above");
    }
}
