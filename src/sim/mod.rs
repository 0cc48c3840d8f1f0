//! Simulations: the [`Simulation`] trait every scene kind implements, built from the simulation's
//! part of a scene alone, and the [`Painter`] that describes its frames from the drawing's part
//! (both through the registry in `src/kinds.rs`); and the shared deterministic tools (seeded RNG,
//! noise). Nothing here knows about the GPU: a painter hands out [`FrameData`], a simulation never
//! fails (broken state is reported as data).

pub mod cargo;
pub mod clock;
pub mod dice;
pub mod duo;
pub mod figure;
pub mod flock;
pub mod noise;
pub mod rng;
pub mod snapshot;
pub mod terrain;
pub mod wind;

pub use clock::FixedClock;

use crate::frame::FrameData;
use crate::scene::{CameraSpec, KindTable, LightSpec, LookSpec, SimSpec, Srgb, Timing};

/// A problem found while stepping (a non-finite value, say), reported as data: which part, which
/// frame, what. The CLI turns it into an error naming the scene and frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimFault {
    pub frame: u32,
    pub what: String,
}

/// A short, readable summary of simulation state, stored beside golden images and compared in
/// determinism tests: a hash of the full state plus a few numbers a person can read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateDigest {
    pub hash: u64,
    /// (name, value) pairs, e.g. ("triangles", "20778").
    pub facts: Vec<(String, String)>,
}

impl std::fmt::Display for StateDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "hash {:016x}", self.hash)?;
        for (k, v) in &self.facts {
            write!(f, ", {k} {v}")?;
        }
        Ok(())
    }
}

/// One scene's simulation: its state, stepped through the frames. Built from the simulation's
/// part of the scene alone ([`SimInputs`]), so nothing it computes can depend on how the scene
/// is drawn; a [`Painter`] describes its frames. Frames are visited in increasing order; a kind
/// whose state is a pure function of time may jump, one with history steps its fixed clock up
/// to the frame.
pub trait Simulation: Send + AsAny {
    /// Moves the state to frame `frame` (at or after the current one).
    fn advance(&mut self, frame: u32);
    /// A fault found so far, if any.
    fn fault(&self) -> Option<SimFault>;
    /// Summary of the current state.
    fn digest(&self) -> StateDigest;
    /// The state after the last frame advanced to, as bytes that [`Simulation::restore`] takes
    /// back: a shard of a split render, or a later render of the scene, starts from the nearest
    /// saved frame instead of replaying from the start. `None`: this kind replays (it is cheap
    /// to).
    fn snapshot(&self) -> Option<Vec<u8>> {
        None
    }
    /// Takes back a [`Simulation::snapshot`] of this simulation taken at `frame`, so the next
    /// frame asked for may be `frame` or any later one. False, with the state untouched, when
    /// the bytes do not fit (their layout is checked against this simulation's own: list
    /// lengths, history kept).
    fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        let _ = (frame, bytes);
        false
    }
}

/// A simulation as [`Any`], so that the painter of its kind can read it as its own type.
pub trait AsAny: std::any::Any {
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: std::any::Any> AsAny for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Describes a simulation's frames as [`FrameData`]: built from the drawing's part of the scene
/// (and whatever of the simulation it needs), it reads the state and never changes it.
pub trait Painter: Send {
    /// Frame `frame` of `sim`, which has just advanced to it.
    fn paint(&mut self, sim: &dyn Simulation, frame: u32) -> FrameData;
}

/// What a kind's simulation is built from: the scene's seed, the timing of its frames and the
/// kind's own simulation spec.
#[derive(Clone, Copy, Debug)]
pub struct SimInputs<'a, K> {
    pub seed: u64,
    pub timing: Timing,
    pub spec: &'a K,
}

/// What a kind's painter draws with: the scene's look and the kind's own, with the timing of
/// the frames (a camera moves over the scene's duration) and the seed (a colour's noise).
#[derive(Clone, Copy, Debug)]
pub struct Drawing<'a, L> {
    pub seed: u64,
    pub timing: Timing,
    pub look: &'a LookSpec,
    pub kind: &'a L,
}

/// What builds the simulation of any scene (the registry's, in `src/kinds.rs`), handed to a
/// simulation that is made of others (a figure's panels) so that no simulation names the
/// registry above it.
pub type Builder = fn(&SimSpec) -> Box<dyn Simulation>;

/// What builds the painter of any scene's simulation (the registry's), for a figure's panels.
pub type PainterBuilder = fn(&dyn Simulation, &SimSpec, &LookSpec) -> Box<dyn Painter>;

/// The look of a kind's simulation's scene.
pub type LookOf<S> = <<S as KindSimulation>::Spec as KindTable>::Look;

/// What a kind's simulation implements (in `src/sim/<kind>/`): it is built from its own spec, so
/// it never meets a scene of another kind, nor anything of how it is drawn. The registry,
/// `src/kinds.rs`, lists which simulation plays which kind.
pub trait KindSimulation: Simulation + Sized + 'static {
    type Spec: KindTable;
    type Painter: KindPainter<Sim = Self>;
    /// The simulation of a scene of this kind. `build` makes the simulation of any other scene
    /// (a figure's panels are scenes of other kinds).
    fn new(inputs: &SimInputs<Self::Spec>, build: Builder) -> Self;
}

/// What a kind's painter implements: built from its simulation and the scene's look, it
/// describes each frame from the state.
pub trait KindPainter: Send + Sized + 'static {
    type Sim: KindSimulation;
    fn new(sim: &Self::Sim, drawing: &Drawing<LookOf<Self::Sim>>, build: PainterBuilder) -> Self;
    fn paint(&mut self, sim: &Self::Sim, frame: u32) -> FrameData;
}

impl<P: KindPainter> Painter for P {
    fn paint(&mut self, sim: &dyn Simulation, frame: u32) -> FrameData {
        let sim = sim.as_any().downcast_ref::<P::Sim>().expect("a painter paints the simulation it was built for");
        KindPainter::paint(self, sim, frame)
    }
}

/// A scene's simulation with its painter: what a render plays, frame by frame.
pub struct Player {
    sim: Box<dyn Simulation>,
    painter: Box<dyn Painter>,
}

impl Player {
    pub fn new(sim: Box<dyn Simulation>, painter: Box<dyn Painter>) -> Self {
        Player { sim, painter }
    }

    /// Advances to frame `frame` and describes it.
    pub fn frame(&mut self, frame: u32) -> FrameData {
        self.sim.advance(frame);
        self.painter.paint(&*self.sim, frame)
    }

    pub fn sim(&self) -> &dyn Simulation {
        &*self.sim
    }

    pub fn sim_mut(&mut self) -> &mut dyn Simulation {
        &mut *self.sim
    }

    /// Draws on with another painter (the same simulation, another look).
    pub fn set_painter(&mut self, painter: Box<dyn Painter>) {
        self.painter = painter;
    }

    pub fn fault(&self) -> Option<SimFault> {
        self.sim.fault()
    }

    pub fn digest(&self) -> StateDigest {
        self.sim.digest()
    }

    pub fn snapshot(&self) -> Option<Vec<u8>> {
        self.sim.snapshot()
    }

    pub fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        self.sim.restore(frame, bytes)
    }
}

/// What every painter draws a frame with besides its kind's own look: the timing of the frames,
/// the size, the camera, the light and the background (owned: a painter keeps it).
#[derive(Clone, Debug, PartialEq)]
pub struct Stage {
    pub timing: Timing,
    pub width: u32,
    pub height: u32,
    pub camera: CameraSpec,
    pub light: LightSpec,
    pub background_top: Srgb,
    pub background_bottom: Srgb,
}

impl Stage {
    /// The lighting and background of the frames.
    pub fn lighting(&self) -> (crate::frame::Lighting, crate::frame::Background) {
        let l = &self.light;
        let sun = l.sun_color.to_linear().map(|c| c * l.sun_intensity as f32);
        let amb = l.ambient as f32;
        let to_sun = l.to_sun().map(|c| c as f32);
        let bottom = self.background_bottom.to_linear();
        let lighting = crate::frame::Lighting {
            to_sun,
            sun,
            sky: l.sky.to_linear().map(|c| c * amb),
            ground: l.ground.to_linear().map(|c| c * amb),
            shadows: l.shadows,
            shadow_softness: l.shadow_softness as f32,
            fog_density: l.fog as f32,
            fog_color: bottom,
        };
        (lighting, crate::frame::Background { top: self.background_top.to_linear(), bottom })
    }

    /// Frame `frame` showing `meshes` and `canvas`, with the scene's camera, light and
    /// background.
    pub fn frame(&self, frame: u32, meshes: Vec<crate::frame::MeshInstance>, canvas: Option<crate::frame::Canvas2d>) -> FrameData {
        let (lighting, background) = self.lighting();
        FrameData {
            index: frame,
            time: self.timing.time_of(frame),
            camera: self.camera(frame),
            background,
            lighting,
            meshes,
            batches: Vec::new(),
            canvas,
            views: Vec::new(),
        }
    }

    /// The scene's camera at frame `frame`.
    pub fn camera(&self, frame: u32) -> crate::frame::Camera {
        self.camera.camera_at(self.timing.time_of(frame), self.timing.duration())
    }
}

impl<L> Drawing<'_, L> {
    /// What every painter draws with (see [`Stage`]).
    pub fn stage(&self) -> Stage {
        let l = self.look;
        Stage {
            timing: self.timing,
            width: l.width,
            height: l.height,
            camera: l.camera.clone(),
            light: l.light.clone(),
            background_top: l.background_top,
            background_bottom: l.background_bottom,
        }
    }
}
