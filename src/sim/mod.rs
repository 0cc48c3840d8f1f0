//! Simulations: the [`Simulation`] trait every scene kind implements, building one from a scene
//! (through the registry in `src/kinds.rs`), and the shared deterministic tools (seeded RNG,
//! noise). Nothing here knows about the GPU: a simulation hands out [`FrameData`] and never fails;
//! broken state is reported as data.

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
use crate::scene::Scene;

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

/// One scene kind's simulation. Frames are visited in increasing order; a kind whose state is a
/// pure function of time may jump, one with history steps its fixed clock up to the frame.
pub trait Simulation: Send {
    /// Moves the state to frame `frame` (at or after the current one) and describes it.
    fn frame(&mut self, frame: u32) -> FrameData;
    /// A fault found so far, if any.
    fn fault(&self) -> Option<SimFault>;
    /// Summary of the current state.
    fn digest(&self) -> StateDigest;
    /// The state after the last frame described, as bytes that [`Simulation::restore`] takes
    /// back: a shard of a split render, or a later render of the scene, starts from the nearest
    /// saved frame instead of replaying from the start. The state must depend on the scene file
    /// alone, not on the size or the adapter. `None`: this kind replays (it is cheap to).
    fn snapshot(&self) -> Option<Vec<u8>> {
        None
    }
    /// Takes back a [`Simulation::snapshot`] of this scene taken at `frame`, so the next frame
    /// asked for may be `frame` or any later one. False, with the state untouched, when the bytes
    /// do not fit.
    fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        let _ = (frame, bytes);
        false
    }
}

/// What builds the simulation of any scene (the registry's `build`, in `src/kinds.rs`), handed to a simulation that
/// is made of others (a figure's panels) so that no simulation names the registry above it.
pub type Builder = fn(&Scene) -> Box<dyn Simulation>;

/// What a kind's simulation implements (in `src/sim/<kind>/`): it is built from its own spec, so
/// it never meets a scene of another kind. The registry, `src/kinds.rs`, lists which simulation plays which kind.
pub trait KindSimulation: Simulation + Sized + 'static {
    type Spec: crate::scene::KindTable;
    /// The simulation of `scene`, whose kind table is `spec`. `build` makes the simulation of any
    /// other scene (a figure's panels are scenes of other kinds).
    fn new(scene: &Scene, spec: &Self::Spec, build: Builder) -> Self;
}

/// The lighting, background and camera every kind takes from the shared scene tables.
pub fn scene_lighting(scene: &Scene) -> (crate::frame::Lighting, crate::frame::Background) {
    let l = &scene.light;
    let sun = l.sun_color.to_linear().map(|c| c * l.sun_intensity as f32);
    let amb = l.ambient as f32;
    let to_sun = l.to_sun().map(|c| c as f32);
    let bottom = scene.render.background_bottom.to_linear();
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
    (lighting, crate::frame::Background { top: scene.render.background_top.to_linear(), bottom })
}

/// Frame `frame` of `scene` showing `meshes` and `canvas`, with the scene's camera, light and
/// background.
pub fn scene_frame(
    scene: &Scene,
    frame: u32,
    meshes: Vec<crate::frame::MeshInstance>,
    canvas: Option<crate::frame::Canvas2d>,
) -> FrameData {
    let (lighting, background) = scene_lighting(scene);
    FrameData {
        index: frame,
        time: scene.render.time_of(frame),
        camera: scene_camera(scene, frame),
        background,
        lighting,
        meshes,
        batches: Vec::new(),
        canvas,
        views: Vec::new(),
    }
}

/// The camera of `scene` at frame `frame`.
pub fn scene_camera(scene: &Scene, frame: u32) -> crate::frame::Camera {
    scene.camera.camera_at(scene.render.time_of(frame), scene.render.duration())
}
