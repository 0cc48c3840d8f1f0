//! The studio's renderer: one thread that owns the GPU renderers and the scenes' simulations, and
//! draws the frames the page asks for, newest request first. What it keeps:
//!
//! - Frames, as PNG bytes, by everything their pixels depend on: the scene file, its identity
//!   (the simulation's and the drawing's hashes), the frame, draft or final (the build is this
//!   process's). An edit that changes neither finds every frame still there: nothing is drawn
//!   again.
//! - Per scene, the simulation at the last frame it described (one for the finals, one for the
//!   drafts), with saved states along the way (in memory, and the ones a `simreel render` of the
//!   same simulation left in `OUT/<scene>/snapshots/`), kept while the simulation's identity
//!   stays. A camera or colour edit keeps the simulations and paints them anew; a seek backward
//!   restores the nearest saved state.
//!
//! When no request waits, it draws drafts of the frames around the one on screen, nearest first.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
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

type Reply = Sender<Result<Arc<Shot>, String>>;

struct Request {
    key: FrameKey,
    scene: Arc<Scene>,
    reply: Reply,
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
    fn retain(&mut self, current: &HashMap<PathBuf, Arc<Scene>>) {
        let identities: HashMap<&PathBuf, Identity> = current.iter().map(|(p, s)| (p, s.identity())).collect();
        self.frames.retain(|k, _| identities.get(&k.scene) == Some(&k.identity));
        self.bytes = self.frames.values().map(|(s, _)| s.png.len()).sum();
    }
}

#[derive(Default)]
struct State {
    /// Waiting requests; the newest is served first (the page's latest wish).
    queue: Vec<Request>,
    /// The scene and frame on screen: drafts around it are drawn when nothing waits.
    focus: Option<(Arc<Scene>, u32)>,
    cache: Cache,
    /// The scenes served now, by path (their frames in the cache are kept).
    scenes: HashMap<PathBuf, Arc<Scene>>,
    stop: bool,
    /// A frame is being drawn.
    busy: bool,
    /// Counters for the page and the benchmarks.
    drawn: u64,
    adapter: Option<AdapterSummary>,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// The renderer thread and its queue.
pub struct Engine {
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What [`Engine::stats`] says.
pub struct Stats {
    pub drawn: u64,
    pub cached_bytes: usize,
    pub adapter: Option<AdapterSummary>,
    pub idle: bool,
}

/// How long a page's request waits for its frame before it is told to ask again.
const WAIT: Duration = Duration::from_secs(120);

impl Engine {
    /// Starts the thread; renderers are made on the adapter `request` chooses, when first needed,
    /// and saved states are read from `out` (`OUT/<scene>/snapshots/`).
    pub fn start(request: AdapterRequest, out: PathBuf) -> Engine {
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), wake: Condvar::new() });
        let worker = Worker { shared: shared.clone(), request, out, renderers: Pool::new(RENDERERS), sims: HashMap::new() };
        let thread =
            std::thread::Builder::new().name("studio-render".into()).spawn(move || worker.run()).expect("spawn the renderer thread");
        Engine { shared, thread: Some(thread) }
    }

    /// Frame `frame` of `scene`, from the cache or drawn now (before any request made earlier);
    /// it becomes the frame around which drafts are drawn ahead.
    pub fn frame(&self, scene: Arc<Scene>, frame: u32, draft: bool) -> Result<Arc<Shot>, String> {
        let key = FrameKey::of(&scene, frame, draft);
        let rx: Receiver<Result<Arc<Shot>, String>> = {
            let mut st = self.shared.state.lock().expect("studio state");
            st.focus = Some((scene.clone(), frame));
            if let Some(shot) = st.cache.get(&key) {
                self.shared.wake.notify_all();
                return Ok(shot);
            }
            let (tx, rx) = channel();
            st.queue.push(Request { key, scene, reply: tx });
            self.shared.wake.notify_all();
            rx
        };
        rx.recv_timeout(WAIT).unwrap_or_else(|_| Err("the renderer is busy; ask again".into()))
    }

    /// The frame of `key` if it is drawn already.
    pub fn cached(&self, key: &FrameKey) -> Option<Arc<Shot>> {
        self.shared.state.lock().expect("studio state").cache.get(key)
    }

    /// The scenes served now: frames of others, or of their earlier identities, are dropped.
    pub fn serve(&self, scenes: HashMap<PathBuf, Arc<Scene>>) {
        let mut st = self.shared.state.lock().expect("studio state");
        st.cache.retain(&scenes);
        if st.focus.as_ref().is_some_and(|(s, _)| scenes.get(&s.path).is_none_or(|now| now.identity() != s.identity())) {
            st.focus = None;
        }
        st.scenes = scenes;
        self.shared.wake.notify_all();
    }

    /// Frames drawn so far, the PNG bytes cached, the adapter (once a renderer is made), and
    /// whether it is idle (nothing asked for, nothing left to draw ahead).
    pub fn stats(&self) -> Stats {
        let st = self.shared.state.lock().expect("studio state");
        Stats {
            drawn: st.drawn,
            cached_bytes: st.cache.bytes,
            adapter: st.adapter.clone(),
            idle: !st.busy && st.queue.is_empty() && st.focus.is_none(),
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shared.state.lock().expect("studio state").stop = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
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
    sims: HashMap<PathBuf, Sims>,
}

enum Task {
    Serve(Request),
    Prefetch(FrameKey, Arc<Scene>),
}

impl Worker {
    fn run(mut self) {
        while let Some(task) = self.next_task() {
            let (key, scene, reply) = match task {
                Task::Serve(r) => (r.key, r.scene, Some(r.reply)),
                Task::Prefetch(k, s) => (k, s, None),
            };
            let cached = self.shared.state.lock().expect("studio state").cache.get(&key);
            let result = match cached {
                Some(shot) => Ok(shot),
                None => {
                    let drawn = self.draw(&scene, key.frame, key.draft).map(Arc::new);
                    if let Ok(shot) = &drawn {
                        let mut st = self.shared.state.lock().expect("studio state");
                        // a scene edited while it was drawn: its frame is answered but not kept
                        if st.scenes.get(&key.scene).is_some_and(|s| s.identity() == key.identity) {
                            st.cache.put(key.clone(), shot.clone());
                        }
                        st.drawn += 1;
                    }
                    drawn
                }
            };
            if let Some(reply) = reply {
                let _ = reply.send(result);
            }
            self.forget_unserved();
        }
    }

    /// The newest request, else a draft near the frame on screen not drawn yet; waits for one.
    fn next_task(&self) -> Option<Task> {
        let mut st = self.shared.state.lock().expect("studio state");
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
            st = self.shared.wake.wait(st).expect("studio state");
        }
    }

    /// Drops the simulations of scenes no longer served, or whose simulation changed.
    fn forget_unserved(&mut self) {
        let st = self.shared.state.lock().expect("studio state");
        self.sims.retain(|path, s| st.scenes.get(path).is_some_and(|now| now.identity().simulation == s.simulation));
    }

    fn draw(&mut self, scene: &Arc<Scene>, frame: u32, draft: bool) -> Result<Shot, String> {
        // the saved states are the final scene's (a draft is the same simulation)
        let folder = SceneFolder::of(&self.out, scene);
        let drafted;
        let scene: &Scene = if draft {
            drafted = (**scene).clone().into_draft();
            &drafted
        } else {
            scene
        };
        let t0 = Instant::now();
        let data = self.simulate(scene, frame, draft, &folder)?;
        let simulate = t0.elapsed();
        let t1 = Instant::now();
        let (w, h, samples) = (scene.look.width, scene.look.height, scene.look.msaa);
        let renderer = self.renderer(w, h, samples)?;
        let mut image = renderer.submit(&data).map_err(|e| e.to_string())?;
        while image.is_none() {
            image = renderer.next_image().map_err(|e| e.to_string())?;
            if image.is_none() && renderer.in_flight() == 0 {
                return Err("the renderer returned no image".into());
            }
        }
        let image = image.expect("an image");
        let png = encode(&image.rgba, image.width, image.height, Effort::Fast);
        let facts = self.sims.get(&scene.path).and_then(|s| s.facts.get(&frame).cloned()).unwrap_or_default();
        Ok(Shot { png, facts, simulate, draw: t1.elapsed() })
    }

    fn renderer(&mut self, w: u32, h: u32, samples: u32) -> Result<&mut Renderer, String> {
        let made = self.renderers.len();
        let r = self.renderers.get(&self.request, w, h, samples).map_err(|e| e.to_string())?;
        if made == 0 {
            self.shared.state.lock().expect("studio state").adapter = Some(r.adapter().clone());
        }
        Ok(r)
    }

    /// The frame's data, simulated from the nearest state at or before it: the run's own position,
    /// a state saved in memory or by an earlier render, or the start.
    fn simulate(&mut self, scene: &Scene, frame: u32, draft: bool, folder: &SceneFolder) -> Result<FrameData, String> {
        let id = scene.identity();
        let sims = self.sims.entry(scene.path.clone()).or_insert_with(|| Sims {
            simulation: id.simulation,
            saved: BTreeMap::new(),
            facts: BTreeMap::new(),
            runs: [None, None],
        });
        if sims.simulation != id.simulation {
            *sims = Sims { simulation: id.simulation, saved: BTreeMap::new(), facts: BTreeMap::new(), runs: [None, None] };
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
        // step through the frames where states are saved, saving them
        // states are saved where a render saves them: every 1/32 of the scene
        let due = |f: u32| crate::pipeline::snapshots::due(f, scene.sim.timing.frames);
        let from = run.at.map_or(0, |a| a + 1);
        let on_the_way: Vec<u32> = (from..frame).filter(|&f| due(f) && !sims.saved.contains_key(&f)).collect();
        for f in on_the_way {
            run.player.sim_mut().advance(f);
            run.at = Some(f);
            note(&mut sims.facts, &mut sims.saved, run.player.sim(), f, true);
            if let Some(fault) = run.player.fault() {
                return Err(format!("the simulation broke at frame {}: {}", fault.frame, fault.what));
            }
        }
        let data = run.player.frame(frame);
        run.at = Some(frame);
        note(&mut sims.facts, &mut sims.saved, run.player.sim(), frame, due(frame));
        match run.player.fault() {
            Some(fault) => Err(format!("the simulation broke at frame {}: {}", fault.frame, fault.what)),
            None => Ok(data),
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
