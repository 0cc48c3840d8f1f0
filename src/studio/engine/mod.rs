//! The studio's renderer: one thread that owns the GPU renderers and the scenes' simulations, and
//! draws the frames the page asks for, newest request first. What it keeps:
//!
//! - Frames, as PNG bytes, by everything their pixels depend on: the scene file, its identity
//!   (the simulation's and the drawing's hashes), the frame, draft or final (the build is this
//!   process's). An edit that changes neither finds every frame still there: nothing is drawn
//!   again.
//! - Per scene, the simulation at the last frame it described (one for the finals, one for the
//!   drafts), with saved states along the way (in memory, up to [`SAVED_BYTES`] in all, and the
//!   ones a `simreel render` of the same simulation left in `OUT/<scene>/snapshots/`), kept while
//!   the simulation's identity stays. A camera or colour edit keeps the simulations and paints
//!   them anew; a seek backward restores the nearest saved state.
//! - Renderers, one per size and sample count, [`RENDERERS`] at most; one for a frame larger than
//!   [`LARGE_SAMPLES`] is kept apart and let go as soon as nothing waits, so that the memory of a
//!   huge frame is given back.
//!
//! A frame long to simulate gives way between frames: to a newer request for the same scene and
//! quality (it is answered as superseded), to an edit of its scene (answered as changed), and to
//! any request for another scene (it waits its turn again, where it got to kept). A renderer that
//! fails, or panics, is made again for the next frame; the request it failed is answered with why.
//!
//! When no request waits, it draws drafts of the frames around the one on screen, nearest first.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::render::{AdapterRequest, AdapterSummary};
use crate::scene::{Identity, Scene};

mod worker;

/// PNG bytes the cache may hold; the least recently used frames go first.
const CACHE_BYTES: usize = 256 << 20;
/// Drafts drawn ahead of (and behind) the frame on screen while nothing else waits.
const PREFETCH: u32 = 12;
/// Renderers kept (one per size and sample count: the draft and the final of a scene or two).
const RENDERERS: usize = 4;
/// Samples (width × height × MSAA samples) past which a frame's renderer is kept apart and let go
/// when the engine idles: its targets take about 8 bytes a sample, and more to read them back
/// (16 Mi samples: 2048 × 2048 at 4×, 128 MiB and up).
const LARGE_SAMPLES: u64 = 16 << 20;
/// Bytes of saved simulation states kept in memory, all scenes together: past it, other scenes'
/// go first, then the focused scene's farthest from the frame asked for.
pub const SAVED_BYTES: usize = 512 << 20;

/// What a frame's pixels depend on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FrameKey {
    pub scene: PathBuf,
    pub identity: Identity,
    pub frame: u32,
    pub draft: bool,
}

impl FrameKey {
    pub fn of(scene: &Scene, frame: u32, draft: bool) -> FrameKey {
        FrameKey { scene: scene.path.clone(), identity: scene.identity(), frame, draft }
    }
}

/// A drawn frame.
#[derive(Debug)]
pub struct Shot {
    pub png: Vec<u8>,
    /// The simulation's state digest at this frame (name, value).
    pub facts: Vec<(String, String)>,
    /// Time spent simulating up to it and drawing it (zero for both when it came from the cache).
    pub simulate: Duration,
    pub draw: Duration,
}

/// Why a frame asked for was not answered with its picture.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// It gave way (a newer request for its scene, an edit, the studio stopping): ask again if
    /// it is still wanted.
    #[error("{0}")]
    GaveWay(String),
    /// The simulation broke, or the renderer failed (it is made again for the next frame).
    #[error("{0}")]
    Failed(String),
    /// Not answered in time.
    #[error("{0}")]
    Busy(String),
}

type Reply = Sender<Result<Arc<Shot>, FrameError>>;

struct Request {
    key: FrameKey,
    scene: Arc<Scene>,
    reply: Reply,
    /// When it was asked, in order: the newest is served first.
    seq: u64,
}

#[derive(Default)]
struct Cache {
    frames: HashMap<FrameKey, (Arc<Shot>, u64)>,
    bytes: usize,
    tick: u64,
}

impl Cache {
    fn get(&mut self, key: &FrameKey) -> Option<Arc<Shot>> {
        self.tick += 1;
        let tick = self.tick;
        self.frames.get_mut(key).map(|(shot, used)| {
            *used = tick;
            shot.clone()
        })
    }

    fn put(&mut self, key: FrameKey, shot: Arc<Shot>) {
        self.tick += 1;
        self.bytes += shot.png.len();
        if let Some((old, _)) = self.frames.insert(key, (shot, self.tick)) {
            self.bytes -= old.png.len();
        }
        while self.bytes > CACHE_BYTES {
            let Some(oldest) = self.frames.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone()) else { break };
            if let Some((old, _)) = self.frames.remove(&oldest) {
                self.bytes -= old.png.len();
            }
        }
    }

    /// Forgets the frames of scene files no longer served, and of identities they no longer have.
    fn retain(&mut self, identities: &HashMap<PathBuf, Identity>) {
        self.frames.retain(|k, _| identities.get(&k.scene) == Some(&k.identity));
        self.bytes = self.frames.values().map(|(s, _)| s.png.len()).sum();
    }
}

#[derive(Default)]
struct State {
    /// Waiting requests, in the order asked; the newest is served first (the page's latest wish).
    queue: Vec<Request>,
    next_seq: u64,
    /// The scene and frame on screen: drafts around it are drawn when nothing waits.
    focus: Option<(Arc<Scene>, u32)>,
    cache: Cache,
    /// The scenes served now, by path (their frames in the cache are kept), and their identities.
    scenes: HashMap<PathBuf, Arc<Scene>>,
    identities: HashMap<PathBuf, Identity>,
    stop: bool,
    /// A frame is being drawn.
    busy: bool,
    /// Counters for the page and the benchmarks.
    drawn: u64,
    /// Renderers made again after one failed or panicked.
    recovered: u64,
    /// Frames handed to a renderer so far, and the one that panics on purpose
    /// ([`Engine::panic_at_draw`]).
    begun: u64,
    panic_at: Option<u64>,
    adapter: Option<AdapterSummary>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // a panic is caught where it happens (a frame's), never while this is held; should one
        // slip through, the state is still whole
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The renderer thread and its queue.
pub struct Engine {
    shared: Arc<Shared>,
    /// The thread, started again should it ever end on its own.
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    request: AdapterRequest,
    out: PathBuf,
}

/// What [`Engine::stats`] says.
pub struct Stats {
    pub drawn: u64,
    pub cached_bytes: usize,
    pub adapter: Option<AdapterSummary>,
    pub idle: bool,
    /// Times a renderer was made again after it failed or panicked.
    pub recovered: u64,
}

/// How long a page's request waits for its frame before it is told to ask again.
const WAIT: Duration = Duration::from_secs(120);

impl Engine {
    /// Starts the thread; renderers are made on the adapter `request` chooses, when first needed,
    /// and saved states are read from `out` (`OUT/<scene>/snapshots/`).
    pub fn start(request: AdapterRequest, out: PathBuf) -> Engine {
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), wake: Condvar::new() });
        let engine = Engine { shared, thread: Mutex::new(None), request, out };
        engine.ensure_thread();
        engine
    }

    /// Starts the renderer thread unless it runs.
    fn ensure_thread(&self) {
        let mut thread = self.thread.lock().unwrap_or_else(|p| p.into_inner());
        if thread.as_ref().is_some_and(|t| !t.is_finished()) || self.shared.state().stop {
            return;
        }
        let worker = worker::Worker::new(self.shared.clone(), self.request.clone(), self.out.clone());
        *thread = std::thread::Builder::new().name("studio-render".into()).spawn(move || worker.run()).ok();
    }

    /// Frame `frame` of `scene`, from the cache or drawn now (before any request made earlier);
    /// it becomes the frame around which drafts are drawn ahead.
    pub fn frame(&self, scene: Arc<Scene>, frame: u32, draft: bool) -> Result<Arc<Shot>, FrameError> {
        self.ensure_thread();
        let key = FrameKey::of(&scene, frame, draft);
        let rx: Receiver<Result<Arc<Shot>, FrameError>> = {
            let mut st = self.shared.state();
            st.focus = Some((scene.clone(), frame));
            if let Some(shot) = st.cache.get(&key) {
                self.shared.wake.notify_all();
                return Ok(shot);
            }
            let (tx, rx) = channel();
            let seq = st.next_seq;
            st.next_seq += 1;
            st.queue.push(Request { key, scene, reply: tx, seq });
            self.shared.wake.notify_all();
            rx
        };
        rx.recv_timeout(WAIT).unwrap_or_else(|e| match e {
            RecvTimeoutError::Timeout => Err(FrameError::Busy("the renderer is busy; ask again".into())),
            RecvTimeoutError::Disconnected => Err(FrameError::Busy("the renderer stopped before it answered; ask again".into())),
        })
    }

    /// Makes the `n`th frame drawn from now on (counted from 1) panic where the renderer is
    /// called, as a renderer that panics would: the suite tests the engine's recovery with it,
    /// whatever the machine's renderer does.
    pub fn panic_at_draw(&self, n: u64) {
        let mut st = self.shared.state();
        st.panic_at = Some(st.begun + n);
    }

    /// The frame of `key` if it is drawn already.
    pub fn cached(&self, key: &FrameKey) -> Option<Arc<Shot>> {
        self.shared.state().cache.get(key)
    }

    /// The scenes served now: frames of others, or of their earlier identities, are dropped, and
    /// a frame of an earlier identity being drawn gives way.
    pub fn serve(&self, scenes: HashMap<PathBuf, Arc<Scene>>) {
        let mut st = self.shared.state();
        let identities: HashMap<PathBuf, Identity> = scenes.iter().map(|(p, s)| (p.clone(), s.identity())).collect();
        st.cache.retain(&identities);
        if st.focus.as_ref().is_some_and(|(s, _)| identities.get(&s.path).is_none_or(|now| *now != s.identity())) {
            st.focus = None;
        }
        st.scenes = scenes;
        st.identities = identities;
        self.shared.wake.notify_all();
    }

    /// Frames drawn so far, the PNG bytes cached, the adapter (once a renderer is made), whether
    /// it is idle (nothing asked for, nothing left to draw ahead), and renderers made again.
    pub fn stats(&self) -> Stats {
        let st = self.shared.state();
        Stats {
            drawn: st.drawn,
            cached_bytes: st.cache.bytes,
            adapter: st.adapter.clone(),
            idle: !st.busy && st.queue.is_empty() && st.focus.is_none(),
            recovered: st.recovered,
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shared.state().stop = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = t.join();
        }
    }
}
