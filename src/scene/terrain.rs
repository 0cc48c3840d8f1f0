//! `[terrain]`: a scalar field (layered noise height, a 3-D overhang term, SDF primitives combined
//! with smooth CSG), the grid it is sampled on, the iso level, and colours by height and slope.
//! Field convention: negative inside the ground, positive in the air.

use super::common::RenderSpec;
use super::keys::{Key, Table, Ty};
use super::kind_tables::KindTable;
use super::reader::TableReader;
use super::values::{Animated, Srgb};

const FAR: f64 = 1e6;

const RESOLUTION_ONE: Key = Key::int("resolution", 96, 2, MAX_RESOLUTION);
const RESOLUTION_XYZ: Key = Key::whole("resolution", &[96.0, 64.0, 96.0], 2, MAX_RESOLUTION);
const RESOLUTION: Key = Key::of("resolution", Ty::Either(&[RESOLUTION_ONE.ty, RESOLUTION_XYZ.ty]))
    .said("[96, 64, 96]")
    .doc("samples along x, y and z (one number: the same along each)");
const SIZE: Key =
    Key::vector("size", &[12.0, 8.0, 12.0], 0.0, FAR).unit("m").doc("extent along x, y, z: x and z centred on 0, y from 0 up");
const ISO: Key =
    Key::animated("iso", &[0.0], -FAR, FAR).doc("the surface is where the field equals this (animate it to sweep a threshold)");
const ALGORITHM: Key = Key::choice("algorithm", &Algorithm::NAMES).doc("how the surface is extracted from the sampled field");
const DUAL_VERTICES: Key = Key::choice("dual_vertices", &["per_piece", "per_cell"]).doc(
    "surface nets and dual contouring (marching cubes ignores it): a vertex for each piece of the surface in a cell (closed 2-manifolds), or one a cell as classic surface nets make them (two sheets through one cell pinch: edges of four triangles)",
);
const CLOSED: Key = Key::flag("closed", true).doc("close the surface at the grid's sides and bottom (a cut-out block)");
const STYLE: Key = Key::choice("style", &["shaded", "wireframe", "shaded+wire"]).doc("how the mesh is drawn");
const WIRE_COLOR: Key = Key::color("wire_color", Srgb([0.1, 0.1, 0.11])).doc("colour of the wireframe");
const WIRE_WIDTH: Key = Key::float("wire_width", 1.0, 0.25, 32.0).unit("px").doc("width of the wireframe's lines");

const BASE: Key = Key::animated("base", &[2.8], -FAR, FAR).said("0.35 × size y").unit("m").doc("height of the ground before the noise");
const AMPLITUDE: Key =
    Key::animated("amplitude", &[2.0], 0.0, FAR).said("0.25 × size y").unit("m").doc("height of the first octave of noise");
const OCTAVES: Key = Key::int("octaves", 5, 0, 12).doc("layers of noise");
const FREQUENCY: Key = Key::float("frequency", 0.12, 1e-6, 1e3).unit("1/m").doc("cycles per metre of the first octave");
const LACUNARITY: Key = Key::float("lacunarity", 2.0, 1.0, 8.0).doc("each octave's frequency over the one before");
const GAIN: Key = Key::float("gain", 0.5, 0.0, 1.0).doc("each octave's amplitude over the one before");
const OFFSET: Key =
    Key::animated("offset", &[0.0, 0.0], -FAR, FAR).unit("m").doc("shifts the noise pattern (animate it to pan the landscape)");
const HEIGHT: Table = Table::new(
    "the ground: base + Σ amplitude · gainᵒ · noise(frequency · lacunarityᵒ · (x, z) + offset)",
    &[BASE, AMPLITUDE, OCTAVES, FREQUENCY, LACUNARITY, GAIN, OFFSET],
);

const OVERHANG_AMPLITUDE: Key = Key::animated("amplitude", &[0.0], 0.0, FAR).unit("m").doc("strength of the 3-D term (0: none)");
const OVERHANG_FREQUENCY: Key = Key::float("frequency", 0.3, 1e-6, 1e3).unit("1/m").doc("cycles per metre of its first octave");
const OVERHANG_OCTAVES: Key = Key::int("octaves", 2, 1, 8).doc("layers of 3-D noise");
const OVERHANG: Table = Table::new(
    "a 3-D noise term added to the whole field: overhangs, arches and caves where it beats the height's slope",
    &[OVERHANG_AMPLITUDE, OVERHANG_FREQUENCY, OVERHANG_OCTAVES],
);

const SHAPES: [&str; 4] = ["sphere", "box", "capsule", "plane"];
const TYPE: Key = Key::choice("type", &SHAPES).required().doc("the primitive");
const OP: Key = Key::choice("op", &["union", "subtract", "intersect"]).doc("how it joins the field: add, carve, or keep only both");
const SMOOTH: Key = Key::animated("smooth", &[0.0], 0.0, FAR).unit("m").doc("blend radius of the join (0: sharp)");
const CENTER: Key = Key::animated("center", &[0.0, 0.0, 0.0], -FAR, FAR).unit("m").doc("centre");
const SPHERE_RADIUS: Key = Key::animated("radius", &[1.0], 0.0, FAR).unit("m").doc("radius");
const BOX_SIZE: Key = Key::vector("size", &[1.0, 1.0, 1.0], 0.0, FAR).unit("m").doc("size along x, y, z");
const ROUNDING: Key = Key::float("rounding", 0.0, 0.0, FAR).unit("m").doc("radius of the rounded edges");
const A: Key = Key::animated("a", &[0.0, 0.0, 0.0], -FAR, FAR).unit("m").doc("one end of the segment");
const B: Key = Key::animated("b", &[0.0, 1.0, 0.0], -FAR, FAR).unit("m").doc("the other end");
const CAPSULE_RADIUS: Key = Key::animated("radius", &[0.5], 0.0, FAR).unit("m").doc("radius swept along the segment");
const NORMAL: Key = Key::vector("normal", &[0.0, 1.0, 0.0], -FAR, FAR).doc("the plane's normal (normalised)");
const PLANE_OFFSET: Key = Key::animated("offset", &[0.0], -FAR, FAR).unit("m").doc("the half-space below n·p = offset");
const SHAPE: Table = Table::tagged(
    "an SDF primitive joined to the field with smooth CSG",
    &[TYPE, OP, SMOOTH],
    "type",
    &[
        ("sphere", &[CENTER, SPHERE_RADIUS]),
        ("box", &[CENTER, BOX_SIZE, ROUNDING]),
        ("capsule", &[A, B, CAPSULE_RADIUS]),
        ("plane", &[NORMAL, PLANE_OFFSET]),
    ],
);

const BAND_HEIGHT: Key = Key::float("height", 0.0, 0.0, 1.0).required().doc("where the colour is full, as a fraction of the grid's height");
const BAND_COLOR: Key = Key::color("color", Srgb([0.5, 0.5, 0.5])).required().doc("the colour");
const BAND: Table = Table::new("one stop of the colour gradient by height", &[BAND_HEIGHT, BAND_COLOR]);
const BANDS: Key = Key::tables("bands", &BAND).said("sand, grass, forest, rock, snow").doc("the gradient by height, heights increasing");
const CLIFF: Key = Key::color("cliff", crate::srgb!("#7a6a5c")).doc("rock colour on steep slopes");
const CLIFF_START: Key = Key::float("cliff_start", 32.0, 0.0, 90.0).unit("°").doc("slope where the rock colour starts");
const CLIFF_END: Key = Key::float("cliff_end", 48.0, 0.0, 90.0).unit("°").doc("slope where the rock colour is complete");
const STRATA: Key = Key::float("strata", 0.45, 0.0, 1e3).unit("m").doc("thickness of the rock's light and dark layers (0: plain rock)");
const COLORS: Table = Table::new("colours by height and slope", &[BANDS, CLIFF, CLIFF_START, CLIFF_END, STRATA]);

const VALUES: Key = Key::vector("values", &[1.0; 8], -FAR, FAR).doc("the values at Bourke's corners 0..7");
const CASE: Key = Key::int("case", 0, 0, 255).doc("or the case: bit i set = corner i inside");
const CLASS: Key = Key::int("class", 0, 0, 14).doc("or Lorensen's class 0–14 (its smallest case)");
const GRID: Key =
    Key::whole("grid", &[2.0, 2.0, 2.0], 2, MAX_CUBE_GRID as i64).doc("or a small grid of samples along x, y, z (with `samples`)");
const SAMPLES: Key = Key::of("samples", Ty::List(&Ty::Float { min: -FAR, max: FAR })).doc("the grid's samples, x fastest");
const DOT: Key = Key::float("dot", 0.06, 0.0, 0.5).doc("corner dot radius, as a fraction of the cube's smallest side");
const CROSSINGS: Key = Key::flag("crossings", true).doc("mark where the surface crosses the cube's edges");
const CUBE_COLOR: Key = Key::color("color", Srgb([0.84, 0.15, 0.16])).doc("colour of the surface");
const CUBE: Table = Table::new(
    "one marching cube (or a few) with given corner values instead of the field: the post's case figures",
    &[VALUES, CASE, CLASS, GRID, SAMPLES, DOT, CROSSINGS, CUBE_COLOR],
);

const HEIGHT_KEY: Key = Key::table("height", &HEIGHT).doc(HEIGHT.doc);
const OVERHANG_KEY: Key = Key::table("overhang", &OVERHANG).doc(OVERHANG.doc);
const SHAPES_KEY: Key = Key::tables("shapes", &SHAPE).doc("SDF primitives joined to the field in order");
const COLORS_KEY: Key = Key::table("colors", &COLORS).doc(COLORS.doc);
const CUBE_KEY: Key = Key::table("cube", &CUBE).doc(CUBE.doc);
const CHUNKS: Key =
    Key::whole("chunks", &[16.0, 16.0, 16.0], 1, 1024).said("none: one mesh").doc("mesh in blocks of this many cells along x, y, z");
const CHUNK_TINT: Key =
    Key::flag("chunk_tint", false).said("true with `chunks`").doc("tint each block's vertices to show where blocks meet");
const LEGEND: Key = Key::choice("legend", super::common::CORNERS).doc(
    "a legend of what the colours mean (each height band from the height where it is full, rock on steep slopes; a cube's inside and outside samples and its crossings), in that corner of the frame",
);

/// `[terrain]`.
const TERRAIN: Table = Table::new(
    "marching cubes over a layered-noise field with SDF shapes",
    &[
        RESOLUTION,
        SIZE,
        ISO,
        ALGORITHM,
        DUAL_VERTICES,
        CLOSED,
        STYLE,
        WIRE_COLOR,
        WIRE_WIDTH,
        HEIGHT_KEY,
        OVERHANG_KEY,
        SHAPES_KEY,
        COLORS_KEY,
        CUBE_KEY,
        CHUNKS,
        CHUNK_TINT,
        LEGEND,
    ],
);

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TerrainSpec {
    /// Samples along x, y, z (default [96, 64, 96]).
    pub resolution: [usize; 3],
    /// World extent in metres along x, y, z; the grid spans x, z ∈ [−size/2, size/2], y ∈ [0, size].
    pub size: [f64; 3],
    /// The surface is where the field equals `iso` (animatable: a threshold sweep).
    pub iso: Animated<1>,
    pub algorithm: Algorithm,
    /// The dual meshers make one vertex a cell, not one a piece of the surface in it.
    pub per_cell: bool,
    /// Close the surface at the grid's sides and bottom (a cut-out block) instead of leaving it
    /// open where it meets them (default true).
    pub closed: bool,
    pub height: HeightSpec,
    pub overhang: OverhangSpec,
    pub shapes: Vec<ShapeSpec>,
    /// `[terrain.cube]`: one cube with given corner values instead of the field.
    pub cube: Option<CubeSpec>,
    /// Mesh in blocks of this many cells a side, each on its own, as a streaming terrain does.
    pub chunks: Option<[usize; 3]>,
}

/// What only a terrain's drawing reads: how the mesh is drawn and coloured.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TerrainLook {
    /// How the mesh is drawn: shaded, a wireframe (hidden lines removed) or both.
    pub style: MeshStyle,
    pub wire_color: Srgb,
    /// Wire width in output pixels.
    pub wire_width: f64,
    pub colors: ColorSpec,
    /// How a `[terrain.cube]` is drawn.
    pub cube: Option<CubeLook>,
    /// Tint each block's vertices (shows where blocks meet).
    pub chunk_tint: bool,
    /// The corner of the frame a legend of the colours stands in, if any.
    pub legend: Option<crate::frame::Corner>,
}

/// `[terrain.cube]`: a single marching cube (a 2×2×2 grid spanning `size`) with its corner values
/// given — or a few cubes, a small grid of given samples — drawn with its frame, its corners as
/// dots (inside dark, outside light) and the edge crossings as points: the cubes of the seed's
/// case figures.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CubeSpec {
    /// Samples along x, y, z: [2, 2, 2] for one cube, at most [`MAX_CUBE_GRID`] each.
    pub dims: [usize; 3],
    pub values: CubeValues,
}

/// How a `[terrain.cube]` is drawn.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CubeLook {
    /// Corner dot radius, as a fraction of the cube's smallest side.
    pub dot: f64,
    pub crossings: bool,
    /// Colour of the surface (sRGB).
    pub color: Srgb,
}

/// What a `[terrain.cube]` holds at its samples.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum CubeValues {
    /// The samples, x fastest (`values`, `case` and `grid` come to this).
    Samples(Vec<f64>),
    /// Lorensen's class 0–14: the simulation puts in the class's smallest case with no more than
    /// four inside corners, inside corners at `iso − 1`, outside at `iso + 1`.
    Class { class: u8, iso: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum MeshStyle {
    Shaded,
    Wireframe,
    ShadedWire,
}

/// How the surface is extracted from the sampled field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Algorithm {
    /// Marching cubes with the asymptotic decider and MC33's interior test: watertight 2-manifolds.
    MarchingCubes,
    /// The plain 15-class table (rotations and complement) with no decider: ambiguous faces are
    /// split by the corner count, so neighbouring cubes can disagree and leave cracks.
    MarchingCubesClassic,
    /// A vertex per piece of the surface in a cell at the mean of its edge crossings, one quad per
    /// crossed edge: closed 2-manifolds.
    SurfaceNets,
    /// A vertex per piece at the least-squares fit of the tangent planes: sharp corners kept,
    /// closed 2-manifolds.
    DualContouring,
}

impl Algorithm {
    pub const NAMES: [&'static str; 4] = ["marching_cubes", "marching_cubes_classic", "surface_nets", "dual_contouring"];
    /// Every algorithm, in the order of `NAMES`.
    pub const ALL: [Algorithm; 4] =
        [Algorithm::MarchingCubes, Algorithm::MarchingCubesClassic, Algorithm::SurfaceNets, Algorithm::DualContouring];

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "marching_cubes" => Algorithm::MarchingCubes,
            "marching_cubes_classic" => Algorithm::MarchingCubesClassic,
            "surface_nets" => Algorithm::SurfaceNets,
            "dual_contouring" => Algorithm::DualContouring,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// `[terrain.height]`: h(x, z) = base + Σₒ amplitude · gainᵒ · noise(frequency · lacunarityᵒ · (x, z) + offset);
/// the ground is where y < h.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HeightSpec {
    pub base: Animated<1>,
    pub amplitude: Animated<1>,
    pub octaves: u32,
    /// Cycles per metre of the first octave.
    pub frequency: f64,
    pub lacunarity: f64,
    pub gain: f64,
    /// Shifts the noise pattern (metres): pans the landscape.
    pub offset: Animated<2>,
}

/// `[terrain.overhang]`: a 3-D noise term added to the whole field (after the shapes, so they get
/// rough too). Where its vertical slope exceeds 1 the field stops being monotonic in y: overhangs,
/// arches and caves.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OverhangSpec {
    pub amplitude: Animated<1>,
    pub frequency: f64,
    pub octaves: u32,
}

/// How a primitive combines with the field so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CsgOp {
    /// Adds material (smooth minimum).
    Union,
    /// Carves material away (smooth maximum with the negated shape).
    Subtract,
    /// Keeps only what is inside both.
    Intersect,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum Primitive {
    Sphere {
        center: Animated<3>,
        radius: Animated<1>,
    },
    /// Axis-aligned box with rounded edges.
    Box {
        center: Animated<3>,
        size: [f64; 3],
        rounding: f64,
    },
    /// Segment from `a` to `b`, swept by `radius`.
    Capsule {
        a: Animated<3>,
        b: Animated<3>,
        radius: Animated<1>,
    },
    /// Half-space below the plane n·p = offset (n normalised).
    Plane {
        normal: [f64; 3],
        offset: Animated<1>,
    },
}

/// `[[terrain.shapes]]`: one SDF primitive and how it joins the field.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ShapeSpec {
    pub primitive: Primitive,
    pub op: CsgOp,
    /// Blend radius of the smooth union/subtraction in metres (0 = sharp). Animate it to make two
    /// cliffs grow into each other.
    pub smooth: Animated<1>,
}

/// `[terrain.colors]`: a gradient by height (fractions of the grid height) and a rock colour that
/// takes over on steep slopes.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ColorSpec {
    /// (height fraction 0..1, colour), increasing.
    pub bands: Vec<(f64, Srgb)>,
    pub cliff: Srgb,
    /// Slope in degrees where the rock colour starts and where it is complete.
    pub cliff_start_deg: f64,
    pub cliff_end_deg: f64,
    /// Thickness in metres of the light and dark rock layers on steep faces (0 = plain rock).
    pub strata: f64,
}

/// Largest grid side; 1024³ samples is 4 GiB of f32 before any mesh.
pub const MAX_RESOLUTION: i64 = 1024;

impl KindTable for TerrainSpec {
    const NAME: &'static str = "terrain";
    const TABLE: &'static Table = &TERRAIN;

    type Look = TerrainLook;

    fn read(t: &TableReader, _render: &RenderSpec) -> (Self, TerrainLook) {
        read_terrain(t)
    }

    fn frame_cost(&self, look: &TerrainLook) -> (f64, f64) {
        // 157 ms a frame at 640×360, 88 ms walled in (its back faces are not drawn); an animated
        // field is re-sampled each frame (cliffs: 33 ms for 645 120 samples), a still one once
        let culled = self.walled_without_cracks() && look.style != MeshStyle::Wireframe;
        (if culled { 380.0 } else { 680.0 }, if self.is_animated() { self.samples() as f64 * 5e-5 } else { 0.0 })
    }

    fn memory(&self, _: &TerrainLook) -> (u64, String) {
        // field f32 + mesh (about 3 vertices of 28 bytes and 2 triangles per surface cell, a
        // surface cell count of about 2·N² for a height field, bounded by the cube count), held
        // three times: the extraction's buffers, the world-space mesh, the renderer's copy
        let samples = self.samples();
        let [nx, ny, nz] = self.resolution.map(|v| v as u64);
        let surface = (6 * (nx * nz + nx * ny + ny * nz)).min(samples);
        (samples * 4 + 3 * surface * (3 * 28 + 2 * 12), format!("a {nx}×{ny}×{nz} terrain grid"))
    }
}

fn read_terrain(t: &TableReader) -> (TerrainSpec, TerrainLook) {
    let resolution = match t.raw(&RESOLUTION).map(|v| v.get_ref().is_array()) {
        Some(true) => {
            let r = t.numbers::<3>(&RESOLUTION_XYZ);
            if r.iter().any(|&x| x.fract() != 0.0) {
                t.error_at(&RESOLUTION, format!("each resolution must be a whole number from 2 to {MAX_RESOLUTION}"));
                [96, 64, 96]
            } else {
                r.map(|x| x as usize)
            }
        }
        Some(false) => {
            let n = t.int(&RESOLUTION_ONE) as usize;
            [n, n, n]
        }
        None => [96, 64, 96],
    };
    let size = t.numbers(&SIZE);
    if size.iter().any(|&s| !(s > 0.0 && s < 1e6)) {
        t.error_at(&SIZE, "sizes must be positive metres");
    }
    let iso = t.animated(&ISO);
    let algorithm = Algorithm::from_name(t.choice(&ALGORITHM)).unwrap_or(Algorithm::MarchingCubes);
    let per_cell = t.choice(&DUAL_VERTICES) == "per_cell";
    let closed = t.flag(&CLOSED);
    let style = match t.choice(&STYLE) {
        "wireframe" => MeshStyle::Wireframe,
        "shaded+wire" => MeshStyle::ShadedWire,
        _ => MeshStyle::Shaded,
    };
    let wire_color = t.color(&WIRE_COLOR);
    let wire_width = t.float(&WIRE_WIDTH);

    let h = t.table(&HEIGHT_KEY);
    let height = HeightSpec {
        base: h.animated_or(&BASE, [size[1] * 0.35]),
        amplitude: h.animated_or(&AMPLITUDE, [size[1] * 0.25]),
        octaves: h.int(&OCTAVES) as u32,
        frequency: h.float(&FREQUENCY),
        lacunarity: h.float(&LACUNARITY),
        gain: h.float(&GAIN),
        offset: h.animated(&OFFSET),
    };
    h.finish();

    let o = t.table(&OVERHANG_KEY);
    let overhang = OverhangSpec {
        amplitude: o.animated(&OVERHANG_AMPLITUDE),
        frequency: o.float(&OVERHANG_FREQUENCY),
        octaves: o.int(&OVERHANG_OCTAVES) as u32,
    };
    o.finish();

    let shapes = t.tables(&SHAPES_KEY).iter().filter_map(read_shape).collect();

    let c = t.table(&COLORS_KEY);
    let bands = read_bands(&c);
    let colors = ColorSpec {
        bands,
        cliff: c.color(&CLIFF),
        cliff_start_deg: c.float(&CLIFF_START),
        cliff_end_deg: c.float(&CLIFF_END),
        strata: c.float(&STRATA),
    };
    if colors.cliff_end_deg < colors.cliff_start_deg {
        c.error_at(&CLIFF_END, "cliff_end must be at least cliff_start");
    }
    c.finish();
    let cube = t.has(&CUBE_KEY).then(|| {
        let c = t.table(&CUBE_KEY);
        // the shorthands put corners one unit either side of a constant iso (of 0 when it is animated)
        let cube = read_cube(&c, if iso.is_constant() { iso.scalar_at(0.0, 1.0) } else { 0.0 });
        c.finish();
        if t.has(&RESOLUTION) {
            t.error_at(&RESOLUTION, "[terrain.cube] sets the grid (one cube: 2×2×2, or its `grid`); remove `resolution`");
        }
        if closed && t.has(&CLOSED) {
            t.error_at(&CLOSED, "[terrain.cube] shows one open cube; `closed` does not apply");
        }
        cube
    });
    let chunks = t.has(&CHUNKS).then(|| {
        let c = t.numbers::<3>(&CHUNKS);
        if c.iter().any(|&n| n.fract() != 0.0) {
            t.error_at(&CHUNKS, "blocks of 1 to 1024 cells along each axis");
        }
        if !matches!(algorithm, Algorithm::MarchingCubes | Algorithm::MarchingCubesClassic) {
            t.error_at(&CHUNKS, "blocks are meshed by marching cubes; the dual meshers' quads would need the cells beyond a block");
        }
        c.map(|n| n.max(1.0) as usize)
    });
    let chunk_tint = t.flag_or(&CHUNK_TINT, chunks.is_some());
    let (resolution, closed) = match &cube {
        Some((c, _)) => (c.dims, false),
        None => (resolution, closed),
    };
    let (cube, cube_look) = cube.unzip();
    let spec = TerrainSpec { resolution, size, iso, algorithm, per_cell, closed, height, overhang, shapes, cube, chunks };
    let legend = super::common::corner(t.choice(&LEGEND));
    (spec, TerrainLook { style, wire_color, wire_width, colors, cube: cube_look, chunk_tint, legend })
}

/// Largest side of a `[terrain.cube]` grid, in samples.
pub const MAX_CUBE_GRID: usize = 8;

/// Where Bourke's corner `c` of a single cube sits in its 2×2×2 samples (x fastest): corner 0 at
/// the low x, y, z; 1 along x; 3 along y; 4 along z.
pub fn corner_sample(c: usize) -> usize {
    // corners 0..3 go round the z = 0 face (x, then y), 4..7 above them
    let (x, y, z) = ([0, 1, 1, 0][c % 4], [0, 0, 1, 1][c % 4], c / 4);
    x + 2 * (y + 2 * z)
}

/// One cube's samples (x fastest) from its values at Bourke's corners 0..7.
pub fn cube_samples(corners: [f64; 8]) -> Vec<f64> {
    let mut samples = vec![0.0; 8];
    for (k, v) in corners.iter().enumerate() {
        samples[corner_sample(k)] = *v;
    }
    samples
}

/// One cube's values at Bourke's corners for `case` (bit i = corner i inside): inside corners
/// `iso − 1`, outside `iso + 1`.
pub fn case_corners(case: u8, iso: f64) -> [f64; 8] {
    std::array::from_fn(|i| if case >> i & 1 == 1 { iso - 1.0 } else { iso + 1.0 })
}

/// `values` (Bourke's corner order), the `case` (bit i = corner i inside) or `class` (Lorensen's
/// 0–14) shorthand (inside corners `iso − 1`, outside `iso + 1`), or a small `grid` with its
/// `samples` (x fastest); none of them: one cube with every corner outside.
fn read_cube(c: &TableReader, iso: f64) -> (CubeSpec, CubeLook) {
    let given = [&VALUES, &CASE, &CLASS, &SAMPLES].iter().filter(|k| c.has(k)).count();
    if given > 1 {
        c.error_here("[terrain.cube] takes one of `values` (eight corner values), `case` (0–255), `class` (0–14) or `grid` with `samples`");
    }
    let mut values = if c.has(&VALUES) {
        CubeValues::Samples(cube_samples(c.numbers(&VALUES)))
    } else if c.has(&CASE) {
        CubeValues::Samples(cube_samples(case_corners(c.int(&CASE) as u8, iso)))
    } else if c.has(&CLASS) {
        CubeValues::Class { class: c.int(&CLASS) as u8, iso }
    } else {
        CubeValues::Samples(cube_samples(case_corners(0, iso)))
    };
    let mut dims = [2, 2, 2];
    if c.has(&GRID) || c.has(&SAMPLES) {
        let g = c.numbers::<3>(&GRID);
        if c.failed(&GRID) {
            // its own problem is reported: what `samples` needs follows from a grid
        } else if g.iter().any(|&n| n.fract() != 0.0) {
            c.error_at(&GRID, format!("a cube grid has 2 to {MAX_CUBE_GRID} samples along each axis"));
        } else {
            dims = g.map(|n| n as usize);
            let n = dims.iter().product::<usize>();
            match c.raw(&SAMPLES).and_then(|v| super::reader::number_list(v.get_ref())) {
                Some(v) if v.len() == n => values = CubeValues::Samples(v),
                Some(v) => c.error_at(
                    &SAMPLES,
                    format!("{} samples for a {}×{}×{} grid (x fastest): {n} needed", v.len(), dims[0], dims[1], dims[2]),
                ),
                None => c.error_at(&SAMPLES, format!("`grid` needs `samples`: {n} numbers, x fastest")),
            }
        }
    }
    (CubeSpec { dims, values }, CubeLook { dot: c.float(&DOT), crossings: c.flag(&CROSSINGS), color: c.color(&CUBE_COLOR) })
}

fn read_bands(c: &TableReader) -> Vec<(f64, Srgb)> {
    let defaults = || {
        vec![
            (0.0, crate::srgb!("#c8b68a")),
            (0.22, crate::srgb!("#6f9a4a")),
            (0.55, crate::srgb!("#3f6b35")),
            (0.8, crate::srgb!("#8a8a80")),
            (0.93, crate::srgb!("#f2f4f7")),
        ]
    };
    let tables = c.tables(&BANDS);
    if tables.is_empty() {
        return defaults();
    }
    let mut bands = Vec::new();
    for b in &tables {
        let h = b.float(&BAND_HEIGHT);
        let col = b.color(&BAND_COLOR);
        if !b.has(&BAND_HEIGHT) || !b.has(&BAND_COLOR) {
            b.error_here("each band needs `height` (fraction of the grid height) and `color`");
        }
        bands.push((h, col));
    }
    for b in tables {
        b.finish();
    }
    if bands.windows(2).any(|w| w[1].0 < w[0].0) {
        c.error_at(&BANDS, "band heights must increase");
    }
    bands
}

fn read_shape(s: &TableReader) -> Option<ShapeSpec> {
    let op = match s.choice(&OP) {
        "subtract" => CsgOp::Subtract,
        "intersect" => CsgOp::Intersect,
        _ => CsgOp::Union,
    };
    let smooth = s.animated(&SMOOTH);
    let Some(kind) = s.string(&TYPE) else {
        s.error_here("a shape needs `type` = \"sphere\", \"box\", \"capsule\" or \"plane\"");
        s.finish();
        return None;
    };
    let primitive = match kind.as_str() {
        "sphere" => Primitive::Sphere { center: s.animated(&CENTER), radius: s.animated(&SPHERE_RADIUS) },
        "box" => {
            let size = s.numbers(&BOX_SIZE);
            if size.iter().any(|&v| v <= 0.0) {
                s.error_at(&BOX_SIZE, "box sizes must be positive");
            }
            Primitive::Box { center: s.animated(&CENTER), size, rounding: s.float(&ROUNDING) }
        }
        "capsule" => Primitive::Capsule { a: s.animated(&A), b: s.animated(&B), radius: s.animated(&CAPSULE_RADIUS) },
        "plane" => {
            let n = s.numbers::<3>(&NORMAL);
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if len == 0.0 {
                s.error_at(&NORMAL, "the normal must not be zero");
            }
            let len = if len == 0.0 { 1.0 } else { len };
            Primitive::Plane { normal: n.map(|c| c / len), offset: s.animated(&PLANE_OFFSET) }
        }
        other => {
            let hint = super::reader::did_you_mean(other, SHAPES);
            s.error_at(&TYPE, format!("unknown shape \"{other}\"{}", hint.map(|h| format!("; did you mean \"{h}\"?")).unwrap_or_default()));
            s.finish();
            return None;
        }
    };
    s.finish();
    Some(ShapeSpec { primitive, op, smooth })
}

impl TerrainSpec {
    /// Whether the walls close the surface and the algorithm leaves no crack in it (the classic
    /// table can); whether it is closed at a given frame also depends on the iso level.
    pub fn walled_without_cracks(&self) -> bool {
        self.closed && self.cube.is_none() && self.algorithm != Algorithm::MarchingCubesClassic
    }

    /// Does anything in the field change over time?
    pub fn is_animated(&self) -> bool {
        let h = &self.height;
        !(h.base.is_constant()
            && h.amplitude.is_constant()
            && h.offset.is_constant()
            && self.overhang.amplitude.is_constant()
            && self.iso.is_constant())
            || self.shapes.iter().any(|s| {
                !s.smooth.is_constant()
                    || match &s.primitive {
                        Primitive::Sphere { center, radius } => !center.is_constant() || !radius.is_constant(),
                        Primitive::Box { center, .. } => !center.is_constant(),
                        Primitive::Capsule { a, b, radius } => !a.is_constant() || !b.is_constant() || !radius.is_constant(),
                        Primitive::Plane { offset, .. } => !offset.is_constant(),
                    }
            })
    }

    /// Whether the ground's height and its 3-D term are the same at every moment (only shapes or
    /// the iso level may move).
    pub fn ground_is_static(&self) -> bool {
        let h = &self.height;
        h.base.is_constant() && h.amplitude.is_constant() && h.offset.is_constant() && self.overhang.amplitude.is_constant()
    }

    /// Samples in the grid.
    pub fn samples(&self) -> u64 {
        self.resolution.iter().map(|&n| n as u64).product()
    }
}
