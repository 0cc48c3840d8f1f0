//! `[wind]`: a gusting wind field over grass and trees (seed 003). Metres, seconds, degrees;
//! x and z span the ground, y is up; wind directions are degrees from +x towards +z.
//!
//! The field is `[wind]` itself (mean direction and speed, animatable; gusts, swirl, fronts,
//! blasts), vegetation is `[[wind.grass]]` patches and `[[wind.tree]]`s, scripted walkers and
//! vehicles press the grass, `[wind.lod]` chooses how much is drawn (never what is simulated) and
//! `[wind.overlay]` draws the field itself as arrows.

use super::common::RenderSpec;
use super::kind::KindTable;
use super::reader::TableReader;
use super::values::{Animated, Srgb};

/// Metres per Roblox stud, the unit of the seed's code.
pub const STUD: f64 = 0.28;

/// Which formulas drive a patch or a tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// simreel's field and response: advected gusts that never blow backwards, inertial trees,
    /// blades and trunks that keep their length.
    Default,
    /// The seed's code as written: one noise sample at the root, `W = (8, 0, 4) + n·(1, 0, 0.8)·12`
    /// studs/s, bend `0.18·W·r²`, flutter `sin(0.5(x + z) + 3.5t)·0.3r` (for comparison figures).
    Seed,
}

/// Gusts: noise on the along-wind speed, carried downwind by the mean wind.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct SwirlSpec {
    pub amplitude: f64,
    pub scale: f64,
    pub period: f64,
}

/// A band of stronger wind travelling downwind; it crosses the line through the origin
/// perpendicular to the wind at time `at`.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontSpec {
    pub at: f64,
    pub strength: f64,
    pub width: f64,
    pub speed: f64,
}

/// An explosion: a ring of outward wind expanding from `center` from time `at`.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct PresserSpec {
    pub path: Vec<[f64; 3]>,
    pub radius: f64,
    /// How far a blade under its centre is laid down, degrees from upright.
    pub flatten_deg: f64,
    pub vehicle: bool,
    /// Draw the walker or vehicle.
    pub show: bool,
}

/// The travelling ripple on the grass.
#[derive(Clone, Debug, PartialEq)]
pub struct WaveSpec {
    pub wavelength: f64,
    /// Crest speed, m/s; `None`: the mean wind speed.
    pub speed: Option<f64>,
    pub amplitude_deg: f64,
}

/// One patch of grass.
#[derive(Clone, Debug, PartialEq)]
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
    pub root: Srgb,
    pub tip: Srgb,
    pub dry: Srgb,
    pub dry_share: f64,
    /// Clump size, m (blades in a clump share facing and height); 0 = none.
    pub clumps: f64,
    pub wave: WaveSpec,
    /// Seconds a flattened blade takes to stand up again (2 % criterion), drawn per blade.
    pub recover: [f64; 2],
    /// Damping ratio of the recovery spring.
    pub damping: f64,
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

/// Leaf flutter: smooth triangle waves at `frequencies` (Hz), `amplitude` degrees of leaf turn.
#[derive(Clone, Debug, PartialEq)]
pub struct FlutterSpec {
    pub amplitude_deg: f64,
    pub frequencies: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TreeSpec {
    pub model: Model,
    pub at: [f64; 2],
    pub height: f64,
    /// Divides the lean (the seed's `BendingStiffness`, which its code never uses).
    pub stiffness: f64,
    /// Natural sway frequency (Hz) and damping ratio of the trunk.
    pub frequency: f64,
    pub damping: f64,
    pub crown: f64,
    pub leaves: u32,
    pub flutter: FlutterSpec,
    pub bark: Srgb,
    pub leaf: Srgb,
}

/// What is drawn, by distance from the camera (never what is simulated).
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct OverlaySpec {
    /// Ground the arrows cover (width, depth, centred on the origin); the ground grows to hold it.
    pub area: Option<[f64; 2]>,
    pub spacing: f64,
    pub height: f64,
    /// Speed shown red, m/s.
    pub max_speed: f64,
}

#[derive(Clone, Debug, PartialEq)]
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
    pub lod: LodSpec,
    pub overlay: Option<OverlaySpec>,
    pub ground: Srgb,
    /// Simulation steps per second at most (frames fall on steps).
    pub step_hz: u32,
}

/// Most blades a scene may hold (about 2.6 GB of state and frames).
pub const MAX_BLADES: u64 = 10_000_000;
/// Bytes per blade: static state, placement, this frame's motion and copies in frames in flight.
pub const BYTES_PER_BLADE: u64 = 28 + 32 + 32 + 4 * 32;

impl WindSpec {
    pub fn blades(&self) -> u64 {
        self.grass.iter().map(GrassSpec::blades).sum()
    }
}

impl KindTable for WindSpec {
    const NAME: &'static str = "wind";

    fn read(t: &TableReader, _render: &RenderSpec) -> Self {
        read_wind(t)
    }

    fn memory(&self) -> (u64, String) {
        let blades = self.blades();
        let leaves: u64 = self.trees.iter().map(|t| t.leaves as u64).sum();
        let bytes = blades * BYTES_PER_BLADE + leaves * 160 + self.trees.len() as u64 * 64_000 + 1_000_000;
        (bytes, format!("{blades} grass blades, {} trees", self.trees.len()))
    }
}

fn model(t: &TableReader, default: Model) -> Model {
    if !t.has("model") {
        return default;
    }
    if t.choice("model", &["default", "seed"]) == "seed" { Model::Seed } else { Model::Default }
}

/// `[low, high]` with 0 < low ≤ high (a single number means both).
fn range(t: &TableReader, key: &'static str, default: [f64; 2], max: f64, unit: &str) -> [f64; 2] {
    let r = match t.raw(key).and_then(|v| super::reader::number(v.get_ref())) {
        Some(x) => [x, x],
        None => t.numbers::<2>(key, default),
    };
    if !(r[0] > 0.0 && r[1] >= r[0] && r[1] <= max) {
        t.error_at(key, format!("expected [smallest, largest] {unit}, both above 0 and at most {max}"));
        return default;
    }
    r
}

fn read_gust(t: &TableReader) -> GustSpec {
    GustSpec {
        amplitude: t.f64_in("amplitude", 3.4, 0.0..200.0),
        scale: t.f64_in("scale", 18.7, 0.1..1e5),
        period: t.f64_in("period", 2.9, 0.01..1e5),
        octaves: t.int_in("octaves", 2, 1..=6) as u32,
        advect: t.bool("advect", true),
    }
}

fn read_presser(t: &TableReader, vehicle: bool) -> PresserSpec {
    let path: Vec<[f64; 3]> = t.rows("path", 3, "a keyframe [seconds, x, z]").into_iter().map(|r| [r[0], r[1], r[2]]).collect();
    if path.is_empty() {
        t.error_at("path", "a walker or vehicle needs a path of keyframes [[seconds, x, z], …], at least one");
    }
    if path.windows(2).any(|w| w[1][0] <= w[0][0]) {
        t.error_at("path", "keyframe times must increase along the path");
    }
    let default_radius = if vehicle { 1.8 } else { 1.12 };
    let mut radius = t.f64_in("radius", default_radius, -1e6..100.0);
    if radius <= 0.0 {
        t.error_at("radius", "the radius is how far from the path blades are pressed: above 0 m");
        radius = default_radius;
    }
    PresserSpec { path, radius, flatten_deg: t.f64_in("flatten", 80.0, 0.0..89.0), vehicle, show: t.bool("show", true) }
}

fn read_grass(t: &TableReader, default: Model) -> GrassSpec {
    let wave = t.table("wave");
    let spec = GrassSpec {
        model: model(t, default),
        center: t.numbers("center", [0.0, 0.0]),
        area: t.numbers("area", [20.0, 20.0]),
        density: t.f64_in("density", 40.0, 0.0..100_000.0),
        height: range(t, "height", [0.35, 0.7], 10.0, "metres"),
        width: t.f64_in("width", 0.014, 1e-4..1.0),
        stiffness: range(t, "stiffness", [0.6, 1.0], 100.0, ""),
        bend: t.f64_in("bend", 0.23, 0.0..10.0),
        root: t.color("root", crate::srgb!("#2d5a1c")),
        tip: t.color("tip", crate::srgb!("#a9c65c")),
        dry: t.color("dry", crate::srgb!("#c8b06a")),
        dry_share: t.f64_in("dry_share", 0.12, 0.0..1.0),
        clumps: t.f64_in("clumps", 1.5, 0.0..1000.0),
        wave: WaveSpec {
            wavelength: wave.f64_in("wavelength", 6.0, 0.05..1e5),
            speed: wave.has("speed").then(|| wave.f64_in("speed", 3.0, 0.0..1000.0)),
            amplitude_deg: wave.f64_in("amplitude", 10.0, 0.0..60.0),
        },
        recover: range(t, "recover", [1.5, 2.5], 600.0, "seconds"),
        damping: t.f64_in("damping", 0.8, 0.05..0.999),
        shadows: t.bool("shadows", true),
    };
    wave.finish();
    if spec.area.iter().any(|a| !(0.0..=1e5).contains(a)) {
        t.error_at("area", "expected [width, depth] in metres, from 0 to 10⁵");
    }
    spec
}

fn read_tree(t: &TableReader, default: Model) -> TreeSpec {
    if !t.has("at") {
        t.error_here("a tree needs `at` = [x, z]");
    }
    let height = t.f64_in("height", 7.0, 0.1..200.0);
    let f = t.table("flutter");
    let frequencies = match f.raw("frequencies") {
        Some(v) => {
            let list = super::reader::number_list(v.get_ref()).unwrap_or_default();
            if list.is_empty() || list.len() > 8 || list.iter().any(|x| !(*x > 0.0 && *x < 100.0)) {
                f.error_at("frequencies", "expected 1 to 8 frequencies in Hz, each above 0 and below 100");
            }
            list
        }
        // Crysis's detail-bending wave set (GPU Gems 3, ch. 16)
        None => vec![1.975, 0.793, 0.375, 0.193],
    };
    let flutter = FlutterSpec { amplitude_deg: f.f64_in("amplitude", 18.0, 0.0..90.0), frequencies };
    f.finish();
    TreeSpec {
        model: model(t, default),
        at: t.numbers("at", [0.0, 0.0]),
        height,
        stiffness: t.f64_in("stiffness", 1.0, 0.01..100.0),
        frequency: t.f64_in("frequency", 0.45, 0.01..20.0),
        damping: t.f64_in("damping", 0.3, 0.01..0.999),
        crown: t.f64_in("crown", height * 0.28, 0.01..100.0),
        leaves: t.int_in("leaves", 900, 0..=100_000) as u32,
        flutter,
        bark: t.color("bark", crate::srgb!("#5a4330")),
        leaf: t.color("leaf", crate::srgb!("#4f7d2a")),
    }
}

fn read_lod(t: &TableReader) -> LodSpec {
    let near = t.f64_in("near", 14.0, 0.0..1e6);
    let far = t.f64_in("far", 42.0, 0.0..1e6);
    if far < near {
        t.error_at("far", "far must be at least near");
    }
    let segments = t.numbers::<3>("segments", [4.0, 3.0, 2.0]);
    if segments.iter().any(|s| s.fract() != 0.0 || !(1.0..=32.0).contains(s)) {
        t.error_at("segments", "expected three whole numbers of segments from 1 to 32: [near, mid, far]");
    }
    LodSpec {
        near,
        far,
        blend: t.f64_in("blend", 6.0, 0.0..1e6),
        segments: segments.map(|s| s.clamp(1.0, 32.0) as u32),
        thin: t.f64_in("thin", 1.0, 0.0..4.0),
        cull: t.bool("cull", true),
        debug: t.bool("debug", false),
    }
}

fn read_wind(t: &TableReader) -> WindSpec {
    let model = model(t, Model::Default);
    let gust = t.table("gust");
    let gust_spec = read_gust(&gust);
    gust.finish();
    let swirl = t.table("swirl");
    let swirl_spec = SwirlSpec {
        amplitude: swirl.f64_in("amplitude", 0.0, 0.0..200.0),
        scale: swirl.f64_in("scale", 6.0, 0.1..1e5),
        period: swirl.f64_in("period", 5.0, 0.01..1e5),
    };
    swirl.finish();
    let fronts = t
        .tables("front")
        .iter()
        .map(|f| {
            let s = FrontSpec {
                at: f.f64_in("at", 0.0, -1e6..1e6),
                strength: f.f64_in("strength", 4.0, -200.0..200.0),
                width: f.f64_in("width", 6.0, 0.01..1e5),
                speed: f.f64_in("speed", 5.0, 0.0..1000.0),
            };
            f.finish();
            s
        })
        .collect();
    let blasts = t
        .tables("blast")
        .iter()
        .map(|b| {
            let s = BlastSpec {
                at: b.f64_in("at", 0.0, 0.0..1e6),
                center: b.numbers("center", [0.0, 0.0]),
                strength: b.f64_in("strength", 10.0, 0.0..1000.0),
                speed: b.f64_in("speed", 20.0, 0.01..10_000.0),
                width: b.f64_in("width", 2.5, 0.01..1e4),
                decay: b.f64_in("decay", 0.8, 0.01..1e4),
            };
            b.finish();
            s
        })
        .collect();
    let mut pressers = Vec::new();
    for (key, vehicle) in [("walker", false), ("vehicle", true)] {
        for p in t.tables(key) {
            pressers.push(read_presser(&p, vehicle));
            p.finish();
        }
    }
    let grass: Vec<GrassSpec> = t
        .tables("grass")
        .iter()
        .map(|g| {
            let s = read_grass(g, model);
            g.finish();
            s
        })
        .collect();
    let blades: u64 = grass.iter().map(GrassSpec::blades).sum();
    if blades > MAX_BLADES {
        let gb = (blades * BYTES_PER_BLADE) as f64 / 1e9;
        let key_of = t.tables("grass");
        let at = key_of.iter().zip(&grass).max_by_key(|(_, g)| g.blades()).map(|(r, _)| r);
        let msg = format!("{blades} blades would need about {gb:.1} GB; a scene holds at most {MAX_BLADES}");
        match at {
            Some(r) => r.error_at("density", msg),
            None => t.error_here(msg),
        }
    }
    let trees = t
        .tables("tree")
        .iter()
        .map(|tr| {
            let s = read_tree(tr, model);
            tr.finish();
            s
        })
        .collect();
    let lod = t.table("lod");
    let lod_spec = read_lod(&lod);
    lod.finish();
    let overlay = t.has("overlay").then(|| {
        let o = t.table("overlay");
        let s = OverlaySpec {
            area: o.has("area").then(|| o.numbers("area", [20.0, 20.0])),
            spacing: o.f64_in("spacing", 2.0, 0.05..1e4),
            height: o.f64_in("height", 0.05, -1e3..1e3),
            max_speed: o.f64_in("max_speed", 8.0, 0.01..1e4),
        };
        o.finish();
        s
    });
    WindSpec {
        model,
        direction_deg: t.animated("direction", [27.0], -3600.0..3600.0),
        speed: t.animated("speed", [2.5], 0.0..200.0),
        gust: gust_spec,
        gust_min: t.f64_in("gust_min", 0.0, -200.0..200.0),
        swirl: swirl_spec,
        fronts,
        blasts,
        pressers,
        grass,
        trees,
        lod: lod_spec,
        overlay,
        ground: t.color("ground", crate::srgb!("#4a5a2e")),
        step_hz: t.int_in("step_hz", 60, 1..=2000) as u32,
    }
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
        let text = "kind = \"wind\"\n[wind]\nspeeed = 3\n\n[[wind.walker]]\npath = [[2.0, 0.0, 0.0], [1.0, 1.0, 0.0]]\nradius = -1.0\n\n\
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
        let KindSpec::Wind(w) = &s.kind else { panic!() };
        // 4 studs of trampling radius; the post's wind (8, 0, 4) studs/s: 2.5 m/s at 26.6°
        assert_eq!(w.pressers[0].radius, 1.12);
        assert!(w.pressers[1].radius > w.pressers[0].radius);
        assert_eq!(w.speed.scalar_at(0.0, 1.0), 2.5);
        assert_eq!(w.direction_deg.scalar_at(0.0, 1.0), 27.0);
        assert!((80f64.sqrt() * super::STUD - 2.5).abs() < 0.01);
        assert!(w.grass.is_empty() && w.trees.is_empty());
    }

    #[test]
    fn the_readme_example_is_a_valid_scene() {
        let readme = include_str!("../../README.md");
        let section = &readme[readme.find("### `kind = \"wind\"`").expect("a wind section")..];
        let start = section.find("```toml\n").expect("an example") + 8;
        let example = &section[start..start + section[start..].find("```").expect("closed")];
        let text = format!("kind = \"wind\"\n{example}");
        let s = scene::parse(&text, Path::new("README.md")).unwrap_or_else(|e| panic!("{e}"));
        let KindSpec::Wind(w) = &s.kind else { panic!() };
        assert_eq!((w.grass.len(), w.trees.len(), w.pressers.len(), w.fronts.len(), w.blasts.len()), (1, 1, 1, 1, 1));
        assert_eq!(w.grass[0].blades(), 53_824, "232 × 232 blades");
    }
}
