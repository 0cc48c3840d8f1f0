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

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::frame::FrameData;
use crate::output::layout::SceneFolder;
use crate::output::png::{Effort, encode};
use crate::render::{AdapterRequest, AdapterSummary, Pool, Renderer};
use crate::scene::{Identity, Scene};
use crate::sim::{Player, Simulation};

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
        let worker = Worker {
            shared: self.shared.clone(),
            request: self.request.clone(),
            out: self.out.clone(),
            renderers: Pool::new(RENDERERS),
            large: Pool::new(1),
            large_in_use: false,
            sims: HashMap::new(),
        };
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

/// One scene's simulation runs: the final's and the draft's (the same simulation, each at the
/// frames its requests ask for, painted at its own size), sharing saved states.
struct Sims {
    simulation: u64,
    saved: BTreeMap<u32, Vec<u8>>,
    facts: BTreeMap<u32, Vec<(String, String)>>,
    runs: [Option<Run>; 2],
}

impl Sims {
    fn new(simulation: u64) -> Sims {
        Sims { simulation, saved: BTreeMap::new(), facts: BTreeMap::new(), runs: [None, None] }
    }

    fn saved_bytes(&self) -> usize {
        self.saved.values().map(Vec::len).sum()
    }
}

/// A simulation with the painter of one look (its drawing's hash), at the last frame it
/// described.
struct Run {
    drawing: u64,
    player: Player,
    at: Option<u32>,
}

struct Worker {
    shared: Arc<Shared>,
    request: AdapterRequest,
    out: PathBuf,
    /// (width, height, samples) → renderer, most recently used last.
    renderers: Pool,
    /// The renderer of a frame past [`LARGE_SAMPLES`], let go when nothing waits.
    large: Pool,
    large_in_use: bool,
    sims: HashMap<PathBuf, Sims>,
}

enum Task {
    Serve(Request),
    Prefetch(FrameKey, Arc<Scene>),
}

/// Why a frame being drawn gave way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Yield {
    /// The engine stops.
    Stop,
    /// Its scene was edited: the frame asked for is not the scene's any more.
    Edited,
    /// A newer request for the same scene and quality: the page moved on.
    Superseded,
    /// A request for something else waits: it goes first, this one waits its turn again.
    Wait,
}

/// Why a frame was not drawn.
enum Failure {
    Yielded(Yield),
    /// The simulation broke (a fault it reports), or its saved state cannot be read.
    Simulation(String),
    /// The renderer failed: it is made again for the next frame.
    Renderer(String),
}

/// Whether the frame `key` being drawn (for the request numbered `serving`, or ahead of the page
/// when `None`) should give way, and why.
fn should_yield(shared: &Shared, key: &FrameKey, serving: Option<u64>) -> Option<Yield> {
    let st = shared.state();
    if st.stop {
        return Some(Yield::Stop);
    }
    if st.identities.get(&key.scene).is_some_and(|now| *now != key.identity) {
        return Some(Yield::Edited);
    }
    let newer = |r: &&Request| serving.is_none_or(|seq| r.seq > seq);
    // a newer request for this very frame is answered from the cache once it is drawn
    let others = st.queue.iter().filter(newer).filter(|r| r.key != *key);
    let mut wait = false;
    for r in others {
        if r.key.scene == key.scene && r.key.draft == key.draft && serving.is_some() {
            return Some(Yield::Superseded);
        }
        wait = true;
    }
    wait.then_some(Yield::Wait)
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with no message".into())
}

impl Worker {
    fn run(mut self) {
        while let Some(task) = self.next_task() {
            let (key, scene, request) = match task {
                Task::Serve(r) => (r.key.clone(), r.scene.clone(), Some(r)),
                Task::Prefetch(k, s) => (k, s, None),
            };
            let cached = self.shared.state().cache.get(&key);
            let result = match cached {
                Some(shot) => Ok(shot),
                None => self.draw_caught(&scene, &key, request.as_ref().map(|r| r.seq)),
            };
            if let Some(r) = request {
                let answer = match result {
                    Ok(shot) => Ok(shot),
                    Err(Failure::Yielded(Yield::Wait)) => {
                        // where it got to is kept: it goes on when its turn comes again
                        let mut st = self.shared.state();
                        let at = st.queue.partition_point(|q| q.seq < r.seq);
                        st.queue.insert(at, r);
                        continue;
                    }
                    Err(Failure::Yielded(Yield::Superseded)) => {
                        Err(FrameError::GaveWay("a newer request for this scene came first".into()))
                    }
                    Err(Failure::Yielded(Yield::Edited)) => {
                        Err(FrameError::GaveWay("the scene changed while this frame was drawn; ask again".into()))
                    }
                    Err(Failure::Yielded(Yield::Stop)) => Err(FrameError::GaveWay("the studio is stopping".into())),
                    Err(Failure::Simulation(why) | Failure::Renderer(why)) => Err(FrameError::Failed(why)),
                };
                let _ = r.reply.send(answer);
            }
            self.forget_unserved();
        }
    }

    /// Draws the frame `key`, a panic caught: the renderers and the scene's simulations are then
    /// made again for the next frame, and the request is answered with the panic's message.
    fn draw_caught(&mut self, scene: &Arc<Scene>, key: &FrameKey, serving: Option<u64>) -> Result<Arc<Shot>, Failure> {
        let drawn = match catch_unwind(AssertUnwindSafe(|| self.draw(scene, key, serving))) {
            Ok(drawn) => drawn,
            Err(payload) => {
                self.sims.remove(&key.scene);
                Err(Failure::Renderer(format!(
                    "drawing frame {} of {} panicked: {}",
                    key.frame,
                    scene.name,
                    panic_message(payload.as_ref())
                )))
            }
        };
        match drawn {
            Ok(shot) => {
                let shot = Arc::new(shot);
                let mut st = self.shared.state();
                // a scene edited while it was drawn: its frame is answered but not kept
                if st.identities.get(&key.scene) == Some(&key.identity) {
                    st.cache.put(key.clone(), shot.clone());
                }
                st.drawn += 1;
                Ok(shot)
            }
            Err(Failure::Renderer(why)) => {
                self.renew_renderers();
                Err(Failure::Renderer(format!("{why} (the renderer is made again for the next frame)")))
            }
            Err(other) => Err(other),
        }
    }

    /// Lets go of every renderer (one failed: its device may be lost or its state broken).
    fn renew_renderers(&mut self) {
        let old = std::mem::replace(&mut self.renderers, Pool::new(RENDERERS));
        let large = std::mem::replace(&mut self.large, Pool::new(1));
        // a broken device may panic as it is dropped too: that is no reason to stop
        let _ = catch_unwind(AssertUnwindSafe(move || drop((old, large))));
        self.shared.state().recovered += 1;
    }

    /// The newest request, else a draft near the frame on screen not drawn yet; waits for one
    /// (letting go of a large frame's renderer first).
    fn next_task(&mut self) -> Option<Task> {
        let shared = self.shared.clone();
        let mut st = shared.state();
        loop {
            st.busy = false;
            if st.stop {
                return None;
            }
            if let Some(r) = st.queue.pop() {
                st.busy = true;
                return Some(Task::Serve(r));
            }
            if let Some((scene, at)) = st.focus.clone() {
                let last = scene.sim.timing.frames - 1;
                let near = (1..=PREFETCH).flat_map(|d| [at.checked_add(d).filter(|&f| f <= last), at.checked_sub(d)]).flatten();
                let wanted = near.map(|f| FrameKey::of(&scene, f, true)).find(|k| !st.cache.frames.contains_key(k));
                match wanted {
                    Some(k) => {
                        st.busy = true;
                        return Some(Task::Prefetch(k, scene));
                    }
                    None => st.focus = None,
                }
            }
            if self.large_in_use {
                drop(st);
                self.large = Pool::new(1);
                self.large_in_use = false;
                st = shared.state();
                continue;
            }
            st = shared.wake.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Drops the simulations of scenes no longer served, or whose simulation changed.
    fn forget_unserved(&mut self) {
        let st = self.shared.state();
        self.sims.retain(|path, s| st.identities.get(path).is_some_and(|now| now.simulation == s.simulation));
    }

    fn draw(&mut self, scene: &Arc<Scene>, key: &FrameKey, serving: Option<u64>) -> Result<Shot, Failure> {
        let (frame, draft) = (key.frame, key.draft);
        // the saved states are the final scene's (a draft is the same simulation)
        let folder = SceneFolder::of(&self.out, scene);
        let drafted;
        let scene: &Scene = if draft {
            drafted = (**scene).clone().into_draft();
            &drafted
        } else {
            scene
        };
        // refused up front, naming the limit, rather than failing for memory halfway (the check
        // is of what this process may still take: its limits, its control group, the machine)
        scene.check_memory(&crate::scene::available_memory()).map_err(|e| Failure::Simulation(e.to_string()))?;
        let shared = self.shared.clone();
        let give_way = || should_yield(&shared, key, serving);
        let t0 = Instant::now();
        let data = self.simulate(scene, frame, draft, &folder, &give_way)?;
        let simulate = t0.elapsed();
        if let Some(why) = give_way() {
            return Err(Failure::Yielded(why));
        }
        let t1 = Instant::now();
        let deliberate = {
            let mut st = self.shared.state();
            st.begun += 1;
            st.panic_at == Some(st.begun)
        };
        let (w, h, samples) = (scene.look.width, scene.look.height, scene.look.msaa);
        let failed = |e: crate::render::RenderError| Failure::Renderer(format!("drawing frame {frame} of {} failed: {e}", scene.name));
        let renderer = self.renderer(w, h, samples).map_err(failed)?;
        if deliberate {
            panic!("a panic asked for by Engine::panic_at_draw");
        }
        let mut image = renderer.submit(&data).map_err(failed)?;
        while image.is_none() {
            image = renderer.next_image().map_err(failed)?;
            if image.is_none() && renderer.in_flight() == 0 {
                return Err(Failure::Renderer("the renderer returned no image".into()));
            }
        }
        let image = image.expect("an image");
        let png = encode(&image.rgba, image.width, image.height, Effort::Fast);
        let facts = self.sims.get(&scene.path).and_then(|s| s.facts.get(&frame).cloned()).unwrap_or_default();
        Ok(Shot { png, facts, simulate, draw: t1.elapsed() })
    }

    /// A renderer for frames of this size: from the pool, or (past [`LARGE_SAMPLES`]) the one kept
    /// apart.
    fn renderer(&mut self, w: u32, h: u32, samples: u32) -> Result<&mut Renderer, crate::render::RenderError> {
        let made = self.renderers.len() + self.large.len();
        let large = u64::from(w) * u64::from(h) * u64::from(samples.max(1)) > LARGE_SAMPLES;
        let r = if large {
            self.large_in_use = true;
            self.large.get(&self.request, w, h, samples)?
        } else {
            self.renderers.get(&self.request, w, h, samples)?
        };
        if made == 0 {
            self.shared.state().adapter = Some(r.adapter().clone());
        }
        Ok(r)
    }

    /// The frame's data, simulated from the nearest state at or before it: the run's own position,
    /// a state saved in memory or by an earlier render, or the start. Gives way between frames
    /// when `give_way` says so (where it got to is kept).
    fn simulate(
        &mut self,
        scene: &Scene,
        frame: u32,
        draft: bool,
        folder: &SceneFolder,
        give_way: &dyn Fn() -> Option<Yield>,
    ) -> Result<FrameData, Failure> {
        let id = scene.identity();
        let sims = self.sims.entry(scene.path.clone()).or_insert_with(|| Sims::new(id.simulation));
        if sims.simulation != id.simulation {
            *sims = Sims::new(id.simulation);
        }
        let run = &mut sims.runs[usize::from(draft)];
        match run {
            None => *run = Some(Run { drawing: id.drawing, player: crate::kinds::build(scene), at: None }),
            // another look of the same simulation: painted anew, from where it is
            Some(r) if r.drawing != id.drawing => {
                crate::kinds::repaint(&mut r.player, scene);
                r.drawing = id.drawing;
            }
            Some(_) => {}
        }
        let run = run.as_mut().expect("a run");
        restore(run, scene, &sims.saved, folder, frame);
        // states are saved where a render saves them: every 1/32 of the scene
        let due = |f: u32| crate::pipeline::snapshots::due(f, scene.sim.timing.frames);
        let broke =
            |fault: crate::sim::SimFault| Failure::Simulation(format!("the simulation broke at frame {}: {}", fault.frame, fault.what));
        // frame by frame up to the one asked for, saving states on the way, giving way between
        let from = run.at.map_or(0, |a| a + 1);
        let mut saved_any = false;
        for f in from..frame {
            if let Some(why) = give_way() {
                return Err(Failure::Yielded(why));
            }
            run.player.sim_mut().advance(f);
            run.at = Some(f);
            if due(f) && !sims.saved.contains_key(&f) {
                note(&mut sims.facts, &mut sims.saved, run.player.sim(), f, true);
                saved_any = true;
            }
            if let Some(fault) = run.player.fault() {
                return Err(broke(fault));
            }
        }
        let data = run.player.frame(frame);
        run.at = Some(frame);
        note(&mut sims.facts, &mut sims.saved, run.player.sim(), frame, due(frame));
        let fault = run.player.fault();
        if saved_any || due(frame) {
            self.bound_saved(&scene.path, frame);
        }
        match fault {
            Some(fault) => Err(broke(fault)),
            None => Ok(data),
        }
    }

    /// Keeps the saved states in memory within [`SAVED_BYTES`]: other scenes' go first (largest
    /// first), then those of `keep` farthest from `near`.
    fn bound_saved(&mut self, keep: &Path, near: u32) {
        let mut total: usize = self.sims.values().map(Sims::saved_bytes).sum();
        if total <= SAVED_BYTES {
            return;
        }
        let mut others: Vec<(usize, PathBuf)> =
            self.sims.iter().filter(|(p, _)| p.as_path() != keep).map(|(p, s)| (s.saved_bytes(), p.clone())).collect();
        others.sort_by_key(|o| std::cmp::Reverse(o.0));
        for (bytes, path) in others {
            if total <= SAVED_BYTES {
                return;
            }
            if let Some(s) = self.sims.get_mut(&path) {
                s.saved.clear();
                total -= bytes;
            }
        }
        if let Some(s) = self.sims.get_mut(keep) {
            while total > SAVED_BYTES {
                let Some(far) = s.saved.keys().copied().max_by_key(|f| f.abs_diff(near)) else { break };
                total -= s.saved.remove(&far).map_or(0, |b| b.len());
            }
        }
    }
}

/// Records the state's facts at `frame`, and its saved state when `save`.
fn note(
    facts: &mut BTreeMap<u32, Vec<(String, String)>>,
    saved: &mut BTreeMap<u32, Vec<u8>>,
    sim: &dyn Simulation,
    frame: u32,
    save: bool,
) {
    facts.insert(frame, sim.digest().facts);
    if save && let Some(state) = sim.snapshot() {
        saved.insert(frame, state);
    }
}

/// Moves `run` to the nearest saved state at or before `frame` (from memory, or from an earlier
/// render's in `frames_dir`) when that is nearer than where it is; to the start when it is past
/// `frame` and no state fits. States lie where renders save them (every 1/32 of the scene), so a
/// step that passes none, such as the next frame of a playback, looks nowhere.
fn restore(run: &mut Run, scene: &Scene, saved: &BTreeMap<u32, Vec<u8>>, folder: &SceneFolder, frame: u32) {
    // a state helps when it lies after the run's position (anywhere, when the run is past the frame)
    let from = run.at.filter(|&at| at <= frame).map_or(0, |at| at + 1);
    let due = |f: u32| crate::pipeline::snapshots::due(f, scene.sim.timing.frames);
    if let Some(best) = (from..=frame).rev().find(|&f| due(f)) {
        let memory = saved.range(from..=frame).next_back().map(|(f, s)| (*f, s.clone()));
        // the folder is read only when memory lacks the best state there could be
        let mut candidates: Vec<(u32, Vec<u8>)> = match memory {
            Some(m) if m.0 == best => vec![m],
            m => m
                .into_iter()
                .chain(crate::pipeline::snapshots::nearest(folder, scene, frame).take_while(|(f, _)| *f >= from).take(1))
                .collect(),
        };
        candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
        for (f, state) in candidates {
            if run.player.restore(f, &state) {
                // the next frame asked for may be f itself
                run.at = Some(f);
                return;
            }
        }
    }
    if run.at.is_some_and(|at| at > frame) {
        run.player = crate::kinds::build(scene);
        run.at = None;
    }
}
