//! `[wind]`: a gusting wind field over grass and trees (seed 003). Metres, seconds, degrees;
//! x and z span the ground, y is up; wind directions are degrees from +x towards +z.
//!
//! The field is `[wind]` itself (mean direction and speed, animatable; gusts, swirl, fronts,
//! blasts), vegetation is `[[wind.grass]]` patches and `[[wind.tree]]`s, scripted walkers and
//! vehicles press the grass, `[wind.lod]` chooses how much is drawn (never what is simulated) and
//! `[wind.overlay]` draws the field itself as arrows.

mod tree;

pub use tree::{FlutterSpec, TreeLook, TreeSpec};
use tree::{TREE, read_tree};

use super::common::RenderSpec;
use super::keys::{Key, Table, Ty};
use super::kind_tables::KindTable;
use super::reader::TableReader;
use super::values::{Animated, Srgb};

const FAR: f64 = 1e6;
const MODEL: Key = Key::choice("model", &["default", "kinematic"]).renamed(&[("seed", "kinematic")]).doc(
    "simreel's advected field and inertial response, or the post's code as written: bends computed straight from the wind at the root",
);
const INHERITED_MODEL: Key = MODEL.said("the wind's").doc("the wind's `model` unless given");

const GUST_AMPLITUDE: Key = Key::float("amplitude", 3.4, 0.0, 200.0).unit("m/s").doc("gust speed per unit of noise");
const GUST_SCALE: Key = Key::float("scale", 18.7, 0.1, 1e5).unit("m").doc("size of a gust (one noise lattice cell)");
const GUST_PERIOD: Key = Key::float("period", 2.9, 0.01, 1e5).unit("s").doc("time for a gust to change shape as it travels");
const GUST_OCTAVES: Key = Key::int("octaves", 2, 1, 6).doc("layers of noise");
const ADVECT: Key =
    Key::flag("advect", true).doc("gusts are carried downwind by the mean wind (off: they evolve in place, as in the post)");
const GUST: Table =
    Table::new("noise on the along-wind speed, carried downwind", &[GUST_AMPLITUDE, GUST_SCALE, GUST_PERIOD, GUST_OCTAVES, ADVECT]);

const SWIRL_AMPLITUDE: Key = Key::float("amplitude", 0.0, 0.0, 200.0).unit("m/s").doc("strength of the cross-flow (0: none)");
const SWIRL_SCALE: Key = Key::float("scale", 6.0, 0.1, 1e5).unit("m").doc("size of a swirl");
const SWIRL_PERIOD: Key = Key::float("period", 5.0, 0.01, 1e5).unit("s").doc("time for a swirl to change shape");
const SWIRL: Table = Table::new("divergence-free cross-flow: the curl of a noise potential", &[SWIRL_AMPLITUDE, SWIRL_SCALE, SWIRL_PERIOD]);

const FRONT_AT: Key = Key::float("at", 0.0, -FAR, FAR).unit("s").doc("when the band crosses the line through the origin across the wind");
const FRONT_STRENGTH: Key = Key::float("strength", 4.0, -200.0, 200.0).unit("m/s").doc("extra wind in the band");
const FRONT_WIDTH: Key = Key::float("width", 6.0, 0.01, 1e5).unit("m").doc("width of the band");
const FRONT_SPEED: Key = Key::float("speed", 5.0, 0.0, 1000.0).unit("m/s").doc("how fast the band travels downwind");
const FRONT: Table = Table::new("a band of stronger wind travelling downwind", &[FRONT_AT, FRONT_STRENGTH, FRONT_WIDTH, FRONT_SPEED]);

const BLAST_AT: Key = Key::float("at", 0.0, 0.0, FAR).unit("s").doc("when it goes off");
const BLAST_CENTER: Key = Key::vector("center", &[0.0, 0.0], -FAR, FAR).unit("m").doc("where, [x, z]");
const BLAST_STRENGTH: Key = Key::float("strength", 10.0, 0.0, 1000.0).unit("m/s").doc("outward wind at the ring");
const BLAST_SPEED: Key = Key::float("speed", 20.0, 0.01, 10_000.0).unit("m/s").doc("how fast the ring expands");
const BLAST_WIDTH: Key = Key::float("width", 2.5, 0.01, 1e4).unit("m").doc("width of the ring");
const BLAST_DECAY: Key = Key::float("decay", 0.8, 0.01, 1e4).unit("s").doc("time for the ring to fade");
const BLAST: Table = Table::new(
    "an explosion: a ring of outward wind expanding from a point",
    &[BLAST_AT, BLAST_CENTER, BLAST_STRENGTH, BLAST_SPEED, BLAST_WIDTH, BLAST_DECAY],
);

const PRESSER_PATH: Key = Key::of("path", Ty::Rows(&[3])).required().doc("keyframes [[seconds, x, z], …]; Hermite between them");
const WALKER_RADIUS: Key = Key::float("radius", 1.12, 0.0, 100.0).unit("m").doc("how far from the path blades are pressed (4 studs)");
const VEHICLE_RADIUS: Key = Key::float("radius", 1.8, 0.0, 100.0).unit("m").doc("how far from the path blades are pressed");
const FLATTEN: Key = Key::float("flatten", 80.0, 0.0, 89.0).unit("°").doc("how far a pressed blade is laid over");
const SHOW: Key = Key::flag("show", true).doc("draw the walker or vehicle");
const WALKER: Table = Table::new("a scripted walker that tramples the grass", &[PRESSER_PATH, WALKER_RADIUS, FLATTEN, SHOW]);
const VEHICLE: Table = Table::new("a scripted vehicle that flattens the grass", &[PRESSER_PATH, VEHICLE_RADIUS, FLATTEN, SHOW]);

/// `[low, high]`, or one number for both, from 0 to `max`.
macro_rules! spread {
    ($name:literal, $max:expr) => {
        Key::of($name, Ty::Either(&[Ty::Float { min: 0.0, max: $max }, Ty::Vector { len: 2, min: 0.0, max: $max }]))
    };
}
const GRASS_HEIGHT: Key = spread!("height", 10.0).numbers(&[0.35, 0.7]).unit("m").doc("[shortest, tallest] blade, or one height for all");
const GRASS_STIFFNESS: Key = spread!("stiffness", 100.0).numbers(&[0.6, 1.0]).doc("[least, most] stiffness, or one for all");
const RECOVER: Key =
    spread!("recover", 600.0).numbers(&[1.5, 2.5]).unit("s").doc("[fastest, slowest] time a pressed blade takes to stand up");
const GRASS_CENTER: Key = Key::vector("center", &[0.0, 0.0], -FAR, FAR).unit("m").doc("middle of the patch, [x, z]");
const AREA: Key = Key::vector("area", &[20.0, 20.0], 0.0, 1e5).unit("m").doc("[width, depth] of the patch");
const DENSITY: Key = Key::float("density", 40.0, 0.0, 100_000.0).unit("blades/m²").doc("blades per square metre");
const BLADE_WIDTH: Key = Key::float("width", 0.014, 1e-4, 1.0).unit("m").doc("width of a blade at its root");
const BEND: Key = Key::float("bend", 0.23, 0.0, 10.0).doc("how far the wind bends a blade");
const ROOT: Key = Key::color("root", crate::srgb!("#2d5a1c")).doc("colour at the root");
const TIP: Key = Key::color("tip", crate::srgb!("#a9c65c")).doc("colour at the tip");
const DRY: Key = Key::color("dry", crate::srgb!("#c8b06a")).doc("colour of the dry blades");
const DRY_SHARE: Key = Key::float("dry_share", 0.12, 0.0, 1.0).doc("share of dry blades");
const CLUMPS: Key = Key::float("clumps", 1.5, 0.0, 1000.0).doc("how much blades gather in clumps");
const WAVELENGTH: Key = Key::float("wavelength", 6.0, 0.05, 1e5).unit("m").doc("length of the waves running over the grass");
const WAVE_SPEED: Key = Key::float("speed", 3.0, 0.0, 1000.0).said("the wind's speed").unit("m/s").doc("how fast the waves run");
const WAVE_AMPLITUDE: Key = Key::float("amplitude", 10.0, 0.0, 60.0).unit("°").doc("how far a wave bends the blades");
const WAVE: Table = Table::new("waves running over the grass with the wind", &[WAVELENGTH, WAVE_SPEED, WAVE_AMPLITUDE]);
const WAVE_KEY: Key = Key::table("wave", &WAVE).doc(WAVE.doc);
const GRASS_DAMPING: Key = Key::float("damping", 0.8, 0.05, 0.999).doc("damping ratio of a blade's spring");
const GRASS_SHADOWS: Key = Key::flag("shadows", true).doc("the blades cast shadows");
const GRASS: Table = Table::new(
    "a patch of grass: instanced blades bent by the wind and pressed by walkers",
    &[
        INHERITED_MODEL,
        GRASS_CENTER,
        AREA,
        DENSITY,
        GRASS_HEIGHT,
        BLADE_WIDTH,
        GRASS_STIFFNESS,
        BEND,
        ROOT,
        TIP,
        DRY,
        DRY_SHARE,
        CLUMPS,
        WAVE_KEY,
        RECOVER,
        GRASS_DAMPING,
        GRASS_SHADOWS,
    ],
);

const LOD_NEAR: Key = Key::float("near", 14.0, 0.0, FAR).unit("m").doc("full detail up to this distance");
const LOD_FAR: Key = Key::float("far", 42.0, 0.0, FAR).unit("m").doc("least detail beyond this distance");
const BLEND: Key = Key::float("blend", 6.0, 0.0, FAR).unit("m").doc("distance over which one level blends into the next");
const SEGMENTS: Key = Key::whole("segments", &[4.0, 3.0, 2.0], 1, 32).doc("segments of a blade near, mid and far");
const THIN: Key = Key::float("thin", 1.0, 0.0, 4.0).doc("how strongly far grass is thinned out");
const CULL: Key = Key::flag("cull", true).doc("skip what the camera cannot see");
const DEBUG: Key = Key::flag("debug", false).doc("tint blades by level of detail");
const LOD: Table = Table::new("how much is drawn (never what is simulated)", &[LOD_NEAR, LOD_FAR, BLEND, SEGMENTS, THIN, CULL, DEBUG]);

const OVERLAY_AREA: Key =
    Key::vector("area", &[20.0, 20.0], 0.0, FAR).said("the grass's extent").unit("m").doc("[width, depth] the arrows cover");
const SPACING: Key = Key::float("spacing", 2.0, 0.05, 1e4).unit("m").doc("distance between arrows");
const OVERLAY_HEIGHT: Key = Key::float("height", 0.05, -1e3, 1e3).unit("m").doc("height of the arrows above the ground");
const OVERLAY_MAX_SPEED: Key = Key::float("max_speed", 8.0, 0.01, 1e4).unit("m/s").doc("wind speed drawn as the longest arrow");
const OVERLAY_LEGEND: Key = Key::choice("legend", crate::scene::common::CORNERS)
    .doc("a legend of the arrows' colours (calm, half of max_speed, max_speed and over, in m/s), in that corner of the frame");
const OVERLAY: Table =
    Table::new("the wind field drawn as arrows", &[OVERLAY_AREA, SPACING, OVERLAY_HEIGHT, OVERLAY_MAX_SPEED, OVERLAY_LEGEND]);

const DIRECTION: Key =
    Key::animated("direction", &[27.0], -3600.0, 3600.0).unit("°").doc("where the mean wind blows to, from +x towards +z");
const SPEED: Key = Key::animated("speed", &[2.5], 0.0, 200.0).unit("m/s").doc("mean wind speed");
const GUST_KEY: Key = Key::table("gust", &GUST).doc(GUST.doc);
const GUST_MIN: Key = Key::float("gust_min", 0.0, -200.0, 200.0).unit("m/s").doc("the slowest the along-wind speed gets");
const SWIRL_KEY: Key = Key::table("swirl", &SWIRL).doc(SWIRL.doc);
const FRONT_KEY: Key = Key::tables("front", &FRONT).doc(FRONT.doc);
const BLAST_KEY: Key = Key::tables("blast", &BLAST).doc(BLAST.doc);
const WALKER_KEY: Key = Key::tables("walker", &WALKER).doc(WALKER.doc);
const VEHICLE_KEY: Key = Key::tables("vehicle", &VEHICLE).doc(VEHICLE.doc);
const GRASS_KEY: Key = Key::tables("grass", &GRASS).doc(GRASS.doc);
const TREE_KEY: Key = Key::tables("tree", &TREE).doc(TREE.doc);
const LOD_KEY: Key = Key::table("lod", &LOD).doc(LOD.doc);
const OVERLAY_KEY: Key = Key::table("overlay", &OVERLAY).doc(OVERLAY.doc);
const GROUND: Key = Key::color("ground", crate::srgb!("#4a5a2e")).doc("colour of the ground");
const STEP_HZ: Key =
    Key::int("step_hz", 60, 1, 2000).unit("steps/s").doc("simulation steps a second (rounded up to a whole number a frame)");

/// `[wind]`.
const WIND: Table = Table::new(
    "grass and trees in a gusting wind field, drawn as instanced batches",
    &[
        MODEL,
        DIRECTION,
        SPEED,
        GUST_KEY,
        GUST_MIN,
        SWIRL_KEY,
        FRONT_KEY,
        BLAST_KEY,
        WALKER_KEY,
        VEHICLE_KEY,
        GRASS_KEY,
        TREE_KEY,
        LOD_KEY,
        OVERLAY_KEY,
        GROUND,
        STEP_HZ,
    ],
);

/// Metres per Roblox stud, the unit of the seed's code.
pub const STUD: f64 = 0.28;

/// Which formulas drive a patch or a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Model {
    /// simreel's field and response: advected gusts that never blow backwards, inertial trees,
    /// blades and trunks that keep their length.
    Default,
    /// `kinematic`: the post's code as written: one noise sample at the root, `W = (8, 0, 4) + n·(1, 0, 0.8)·12`
    /// studs/s, bend `0.18·W·r²`, flutter `sin(0.5(x + z) + 3.5t)·0.3r` (for comparison figures).
    Kinematic,
}

/// Gusts: noise on the along-wind speed, carried downwind by the mean wind.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GustSpec {
    /// m/s per unit of noise.
    pub amplitude: f64,
    /// Size of a gust, m (one noise lattice cell).
    pub scale: f64,
    /// Seconds for a gust to change shape as it travels.
    pub period: f64,
    pub octaves: u32,
    /// Carried downwind by the mean wind (frozen turbulence); off: evolves in place as in the seed.
    pub advect: bool,
}

/// Divergence-free cross-flow: the curl of a noise potential.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SwirlSpec {
    pub amplitude: f64,
    pub scale: f64,
    pub period: f64,
}

/// A band of stronger wind travelling downwind; it crosses the line through the origin
/// perpendicular to the wind at time `at`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FrontSpec {
    pub at: f64,
    pub strength: f64,
    pub width: f64,
    pub speed: f64,
}

/// An explosion: a ring of outward wind expanding from `center` from time `at`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BlastSpec {
    pub at: f64,
    pub center: [f64; 2],
    pub strength: f64,
    pub speed: f64,
    pub width: f64,
    pub decay: f64,
}

/// Something that walks or drives through the grass along keyframes `[t, x, z]` (Catmull–Rom
/// through them); present from the first key's time to the last's.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PresserSpec {
    pub path: Vec<[f64; 3]>,
    pub radius: f64,
    /// How far a blade under its centre is laid down, degrees from upright.
    pub flatten_deg: f64,
    pub vehicle: bool,
}

/// The travelling ripple on the grass.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WaveSpec {
    pub wavelength: f64,
    /// Crest speed, m/s; `None`: the mean wind speed.
    pub speed: Option<f64>,
    pub amplitude_deg: f64,
}

/// One patch of grass.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GrassSpec {
    pub model: Model,
    pub center: [f64; 2],
    pub area: [f64; 2],
    /// Blades per square metre.
    pub density: f64,
    pub height: [f64; 2],
    pub width: f64,
    pub stiffness: [f64; 2],
    /// tan of the lean per m/s of wind at stiffness 1.
    pub bend: f64,
    /// Clump size, m (blades in a clump share facing and height); 0 = none.
    pub clumps: f64,
    pub wave: WaveSpec,
    /// Seconds a flattened blade takes to stand up again (2 % criterion), drawn per blade.
    pub recover: [f64; 2],
    /// Damping ratio of the recovery spring.
    pub damping: f64,
}

/// How a patch of grass is coloured and shaded.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GrassLook {
    pub root: Srgb,
    pub tip: Srgb,
    pub dry: Srgb,
    /// Share of the blades drawn dry (each blade's own draw against it).
    pub dry_share: f64,
    pub shadows: bool,
}

impl GrassSpec {
    /// Columns and rows of blades: one a cell of a jittered grid, √density per metre each way.
    pub fn layout(&self) -> (usize, usize) {
        let per_m = self.density.sqrt();
        let nx = (self.area[0] * per_m).round() as usize;
        let nz = (self.area[1] * per_m).round() as usize;
        if nx == 0 || nz == 0 { (0, 0) } else { (nx, nz) }
    }

    /// How many blades the patch has (about area × density).
    pub fn blades(&self) -> u64 {
        let (nx, nz) = self.layout();
        nx as u64 * nz as u64
    }
}

/// What is drawn, by distance from the camera (never what is simulated).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LodSpec {
    pub near: f64,
    pub far: f64,
    pub blend: f64,
    /// Segments along a blade near, mid-distance and far.
    pub segments: [u32; 3],
    /// How strongly grass thins past `near` (0 = never; 1 = with the square of the distance).
    pub thin: f64,
    pub cull: bool,
    pub debug: bool,
}

/// Arrows on a grid showing the wind, coloured by speed.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OverlaySpec {
    /// Ground the arrows cover (width, depth, centred on the origin); the ground grows to hold it.
    pub area: Option<[f64; 2]>,
    pub spacing: f64,
    pub height: f64,
    /// Speed shown red, m/s.
    pub max_speed: f64,
    /// The corner of the frame a legend of the colours stands in, if any.
    pub legend: Option<crate::frame::Corner>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WindSpec {
    pub model: Model,
    pub direction_deg: Animated<1>,
    pub speed: Animated<1>,
    pub gust: GustSpec,
    pub gust_min: f64,
    pub swirl: SwirlSpec,
    pub fronts: Vec<FrontSpec>,
    pub blasts: Vec<BlastSpec>,
    pub pressers: Vec<PresserSpec>,
    pub grass: Vec<GrassSpec>,
    pub trees: Vec<TreeSpec>,
    /// Simulation steps per second at most (frames fall on steps).
    pub step_hz: u32,
}

/// Most blades a scene may hold (about 2.6 GB of state and frames).
pub const MAX_BLADES: u64 = 10_000_000;
/// Bytes per blade: static state, its placement (the simulation's and its painter's coloured copy)
/// and tone, this frame's motion and copies in frames in flight.
pub const BYTES_PER_BLADE: u64 = 28 + 2 * 32 + 8 + 32 + 4 * 32;

impl WindSpec {
    pub fn blades(&self) -> u64 {
        self.grass.iter().map(GrassSpec::blades).sum()
    }
}

/// What only the wind's drawing reads: colours, what is shown, and the level of detail.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct WindLook {
    /// Per patch of grass, in the order of `WindSpec::grass`.
    pub grass: Vec<GrassLook>,
    /// Per tree, in the order of `WindSpec::trees`.
    pub trees: Vec<TreeLook>,
    /// Per walker or vehicle, in the order of `WindSpec::pressers`: whether it is drawn.
    pub show: Vec<bool>,
    pub lod: LodSpec,
    pub overlay: Option<OverlaySpec>,
    pub ground: Srgb,
}

impl KindTable for WindSpec {
    const NAME: &'static str = "wind";
    const TABLE: &'static Table = &WIND;

    type Look = WindLook;

    fn read(t: &TableReader, _render: &RenderSpec) -> (Self, WindLook) {
        read_wind(t)
    }

    fn frame_cost(&self, _: &WindLook) -> (f64, f64) {
        // wind_meadow: about 145 ms drawing at 640×360, 1.65 ms stepping, culling and batching
        (630.0, 1.65)
    }

    fn memory(&self, _: &WindLook) -> (u64, String) {
        let blades = self.blades();
        let leaves: u64 = self.trees.iter().map(|t| t.leaves as u64).sum();
        let bytes = blades * BYTES_PER_BLADE + leaves * 160 + self.trees.len() as u64 * 64_000 + 1_000_000;
        (bytes, format!("{blades} grass blades, {} trees", self.trees.len()))
    }
}

fn model(t: &TableReader, default: Model) -> Model {
    if !t.has(&MODEL) {
        return default;
    }
    if t.choice(&MODEL) == "kinematic" { Model::Kinematic } else { Model::Default }
}

/// `[low, high]` with 0 < low ≤ high (a single number means both).
fn range(t: &TableReader, key: &Key, unit: &str) -> [f64; 2] {
    let (_, max) = key.float_range();
    let default = key.default_numbers();
    let r = match t.raw(key).and_then(|v| super::reader::number(v.get_ref())) {
        Some(x) => [x, x],
        None => t.numbers_or::<2>(key, default),
    };
    if !(r[0] > 0.0 && r[1] >= r[0] && r[1] <= max) {
        t.error_at(key, format!("expected [smallest, largest] {unit}, both above 0 and at most {max}"));
        return default;
    }
    r
}

fn read_gust(t: &TableReader) -> GustSpec {
    GustSpec {
        amplitude: t.float(&GUST_AMPLITUDE),
        scale: t.float(&GUST_SCALE),
        period: t.float(&GUST_PERIOD),
        octaves: t.int(&GUST_OCTAVES) as u32,
        advect: t.flag(&ADVECT),
    }
}

fn read_presser(t: &TableReader, vehicle: bool) -> (PresserSpec, bool) {
    let path: Vec<[f64; 3]> = t.rows(&PRESSER_PATH, "a keyframe [seconds, x, z]").into_iter().map(|r| [r[0], r[1], r[2]]).collect();
    if path.is_empty() && !t.failed(&PRESSER_PATH) {
        t.error_at(&PRESSER_PATH, "a walker or vehicle needs a path of keyframes [[seconds, x, z], …], at least one");
    }
    if path.windows(2).any(|w| w[1][0] <= w[0][0]) {
        t.error_at(&PRESSER_PATH, "keyframe times must increase along the path");
    }
    let radius_key = if vehicle { &VEHICLE_RADIUS } else { &WALKER_RADIUS };
    let mut radius = t.float(radius_key);
    if radius <= 0.0 {
        t.error_at(radius_key, "the radius is how far from the path blades are pressed: above 0 m");
        radius = radius_key.default_float();
    }
    (PresserSpec { path, radius, flatten_deg: t.float(&FLATTEN), vehicle }, t.flag(&SHOW))
}

fn read_grass(t: &TableReader, default: Model) -> (GrassSpec, GrassLook) {
    let wave = t.table(&WAVE_KEY);
    let spec = GrassSpec {
        model: model(t, default),
        center: t.numbers(&GRASS_CENTER),
        area: t.numbers(&AREA),
        density: t.float(&DENSITY),
        height: range(t, &GRASS_HEIGHT, "metres"),
        width: t.float(&BLADE_WIDTH),
        stiffness: range(t, &GRASS_STIFFNESS, ""),
        bend: t.float(&BEND),
        clumps: t.float(&CLUMPS),
        wave: WaveSpec {
            wavelength: wave.float(&WAVELENGTH),
            speed: wave.has(&WAVE_SPEED).then(|| wave.float(&WAVE_SPEED)),
            amplitude_deg: wave.float(&WAVE_AMPLITUDE),
        },
        recover: range(t, &RECOVER, "seconds"),
        damping: t.float(&GRASS_DAMPING),
    };
    wave.finish();
    let look = GrassLook {
        root: t.color(&ROOT),
        tip: t.color(&TIP),
        dry: t.color(&DRY),
        dry_share: t.float(&DRY_SHARE),
        shadows: t.flag(&GRASS_SHADOWS),
    };
    (spec, look)
}

fn read_lod(t: &TableReader) -> LodSpec {
    let near = t.float(&LOD_NEAR);
    let far = t.float(&LOD_FAR);
    if far < near {
        t.error_at(&LOD_FAR, "far must be at least near");
    }
    let segments = t.numbers::<3>(&SEGMENTS);
    if segments.iter().any(|s| s.fract() != 0.0) {
        t.error_at(&SEGMENTS, "expected three whole numbers of segments from 1 to 32: [near, mid, far]");
    }
    LodSpec {
        near,
        far,
        blend: t.float(&BLEND),
        segments: segments.map(|s| s.clamp(1.0, 32.0) as u32),
        thin: t.float(&THIN),
        cull: t.flag(&CULL),
        debug: t.flag(&DEBUG),
    }
}

fn read_wind(t: &TableReader) -> (WindSpec, WindLook) {
    let model = model(t, Model::Default);
    let gust = t.table(&GUST_KEY);
    let gust_spec = read_gust(&gust);
    gust.finish();
    let swirl = t.table(&SWIRL_KEY);
    let swirl_spec =
        SwirlSpec { amplitude: swirl.float(&SWIRL_AMPLITUDE), scale: swirl.float(&SWIRL_SCALE), period: swirl.float(&SWIRL_PERIOD) };
    swirl.finish();
    let fronts = t
        .tables(&FRONT_KEY)
        .iter()
        .map(|f| {
            let s = FrontSpec {
                at: f.float(&FRONT_AT),
                strength: f.float(&FRONT_STRENGTH),
                width: f.float(&FRONT_WIDTH),
                speed: f.float(&FRONT_SPEED),
            };
            f.finish();
            s
        })
        .collect();
    let blasts = t
        .tables(&BLAST_KEY)
        .iter()
        .map(|b| {
            let s = BlastSpec {
                at: b.float(&BLAST_AT),
                center: b.numbers(&BLAST_CENTER),
                strength: b.float(&BLAST_STRENGTH),
                speed: b.float(&BLAST_SPEED),
                width: b.float(&BLAST_WIDTH),
                decay: b.float(&BLAST_DECAY),
            };
            b.finish();
            s
        })
        .collect();
    let mut pressers = Vec::new();
    let mut show = Vec::new();
    for (key, vehicle) in [(&WALKER_KEY, false), (&VEHICLE_KEY, true)] {
        for p in t.tables(key) {
            let (presser, shown) = read_presser(&p, vehicle);
            pressers.push(presser);
            show.push(shown);
            p.finish();
        }
    }
    let (grass, grass_looks): (Vec<GrassSpec>, Vec<GrassLook>) = t
        .tables(&GRASS_KEY)
        .iter()
        .map(|g| {
            let s = read_grass(g, model);
            g.finish();
            s
        })
        .unzip();
    let blades: u64 = grass.iter().map(GrassSpec::blades).sum();
    if blades > MAX_BLADES {
        let gb = (blades * BYTES_PER_BLADE) as f64 / 1e9;
        let key_of = t.tables(&GRASS_KEY);
        let at = key_of.iter().zip(&grass).max_by_key(|(_, g)| g.blades()).map(|(r, _)| r);
        let msg = format!("{blades} blades would need about {gb:.1} GB; a scene holds at most {MAX_BLADES}");
        match at {
            Some(r) => r.error_at(&DENSITY, msg),
            None => t.error_here(msg),
        }
    }
    let (trees, tree_looks): (Vec<TreeSpec>, Vec<TreeLook>) = t
        .tables(&TREE_KEY)
        .iter()
        .map(|tr| {
            let s = read_tree(tr, model);
            tr.finish();
            s
        })
        .unzip();
    let lod = t.table(&LOD_KEY);
    let lod_spec = read_lod(&lod);
    lod.finish();
    let overlay = t.has(&OVERLAY_KEY).then(|| {
        let o = t.table(&OVERLAY_KEY);
        let s = OverlaySpec {
            area: o.has(&OVERLAY_AREA).then(|| o.numbers(&OVERLAY_AREA)),
            spacing: o.float(&SPACING),
            height: o.float(&OVERLAY_HEIGHT),
            max_speed: o.float(&OVERLAY_MAX_SPEED),
            legend: crate::scene::common::corner(o.choice(&OVERLAY_LEGEND)),
        };
        o.finish();
        s
    });
    let spec = WindSpec {
        model,
        direction_deg: t.animated(&DIRECTION),
        speed: t.animated(&SPEED),
        gust: gust_spec,
        gust_min: t.float(&GUST_MIN),
        swirl: swirl_spec,
        fronts,
        blasts,
        pressers,
        grass,
        trees,
        step_hz: t.int(&STEP_HZ) as u32,
    };
    let look = WindLook { grass: grass_looks, trees: tree_looks, show, lod: lod_spec, overlay, ground: t.color(&GROUND) };
    (spec, look)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::scene::{self, KindSpec, SceneError};

    fn problems(text: &str) -> Vec<String> {
        match scene::parse(text, Path::new("w.toml")) {
            Err(SceneError::Invalid { diagnostics, .. }) => diagnostics
                .iter()
                .map(|d| format!("{}:{}: {}: {} {}", d.line, d.col, d.key, d.message, d.hint.clone().unwrap_or_default()))
                .collect(),
            Ok(_) => Vec::new(),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn bad_input_is_reported_where_it_is() {
        let text = "kind = \"wind\"\n[wind]\nspeeed = 3\n\n[[wind.walker]]\npath = [[2.0, 0.0, 0.0], [1.0, 1.0, 0.0]]\nradius = 0.0\n\n\
                    [[wind.grass]]\narea = [1000.0, 1000.0]\ndensity = 20000\n\n[[wind.tree]]\nheight = 5.0\n";
        let p = problems(text);
        let has = |at: &str, what: &str| p.iter().any(|l| l.starts_with(at) && l.contains(what));
        assert!(has("3:1: wind.speeed", "did you mean `speed`?"), "{p:#?}");
        assert!(has("6:8: wind.walker[0].path", "times must increase"), "{p:#?}");
        assert!(has("7:10: wind.walker[0].radius", "above 0 m"), "{p:#?}");
        assert!(has("11:11: wind.grass[0].density", "19999899241 blades would need about"), "{p:#?}");
        assert!(has("13:1: wind.tree[0]", "needs `at`"), "{p:#?}");
    }

    #[test]
    fn the_post_s_constants_are_the_defaults() {
        let s = scene::parse(
            "kind = \"wind\"\n[[wind.walker]]\npath = [[0.0, 0.0, 0.0]]\n[[wind.vehicle]]\npath = [[0.0, 0.0, 0.0]]\n",
            Path::new("w.toml"),
        )
        .unwrap();
        let KindSpec::Wind(w) = &s.sim.kind else { panic!() };
        // 4 studs of trampling radius; the post's wind (8, 0, 4) studs/s: 2.5 m/s at 26.6°
        assert_eq!(w.pressers[0].radius, 1.12);
        assert!(w.pressers[1].radius > w.pressers[0].radius);
        assert_eq!(w.speed.scalar_at(0.0, 1.0), 2.5);
        assert_eq!(w.direction_deg.scalar_at(0.0, 1.0), 27.0);
        assert!((80f64.sqrt() * super::STUD - 2.5).abs() < 0.01);
        assert!(w.grass.is_empty() && w.trees.is_empty());
    }

    #[test]
    fn the_wind_pages_example_is_the_scene_it_describes() {
        let page = include_str!("../../../docs/kinds/wind.md");
        let start = page.find("```toml\n").expect("an example") + 8;
        let example = &page[start..start + page[start..].find("```").expect("closed")];
        let text = format!("kind = \"wind\"\n{example}");
        let s = scene::parse(&text, Path::new("docs/kinds/wind.md")).unwrap_or_else(|e| panic!("{e}"));
        let KindSpec::Wind(w) = &s.sim.kind else { panic!() };
        assert_eq!((w.grass.len(), w.trees.len(), w.pressers.len(), w.fronts.len(), w.blasts.len()), (1, 1, 1, 1, 1));
        assert_eq!(w.grass[0].blades(), 53_824, "232 × 232 blades");
    }
}
