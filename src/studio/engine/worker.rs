//! The renderer thread's side of the engine: the worker that owns the GPU renderers and the
//! scenes' simulations, takes the next task (a request, else a draft ahead of the page), draws it
//! (catching a renderer's panic and making the renderers again), gives way between frames, and
//! keeps the saved states within their budget.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::Instant;

use super::*;
use crate::frame::FrameData;
use crate::output::layout::SceneFolder;
use crate::output::png::{Effort, encode};
use crate::render::{Pool, Renderer};
use crate::sim::{Player, Simulation};

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

pub(super) struct Worker {
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
    pub(super) fn new(shared: Arc<Shared>, request: AdapterRequest, out: PathBuf) -> Worker {
        Worker { shared, request, out, renderers: Pool::new(RENDERERS), large: Pool::new(1), large_in_use: false, sims: HashMap::new() }
    }

    pub(super) fn run(mut self) {
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
