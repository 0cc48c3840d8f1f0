//! `[terrain]`: a scalar field (layered noise height, a 3-D overhang term, SDF primitives combined
//! with smooth CSG), the grid it is sampled on, the iso level, and colours by height and slope.
//! Field convention: negative inside the ground, positive in the air.

use super::common::RenderSpec;
use super::kind::KindTable;
use super::reader::TableReader;
use super::values::{Animated, Srgb};

#[derive(Clone, Debug, PartialEq)]
pub struct TerrainSpec {
    /// Samples along x, y, z (default [96, 64, 96]).
    pub resolution: [usize; 3],
    /// World extent in metres along x, y, z; the grid spans x, z ∈ [−size/2, size/2], y ∈ [0, size].
    pub size: [f64; 3],
    /// The surface is where the field equals `iso` (animatable: a threshold sweep).
    pub iso: Animated<1>,
    pub algorithm: Algorithm,
    /// How the mesh is drawn: shaded, a wireframe (hidden lines removed) or both.
    pub style: MeshStyle,
    pub wire_color: Srgb,
    /// Wire width in output pixels.
    pub wire_width: f64,
    /// Close the surface at the grid's sides and bottom (a cut-out block) instead of leaving it
    /// open where it meets them (default true).
    pub closed: bool,
    pub height: HeightSpec,
    pub overhang: OverhangSpec,
    pub shapes: Vec<ShapeSpec>,
    pub colors: ColorSpec,
    /// `[terrain.cube]`: one cube with given corner values instead of the field.
    pub cube: Option<CubeSpec>,
    /// Mesh in blocks of this many cells a side, each on its own, as a streaming terrain does.
    pub chunks: Option<[usize; 3]>,
    /// Tint each block's vertices (shows where blocks meet).
    pub chunk_tint: bool,
}

/// `[terrain.cube]`: a single marching cube (a 2×2×2 grid spanning `size`) with its corner values
/// given — or a few cubes, a small grid of given samples — drawn with its frame, its corners as
/// dots (inside dark, outside light) and the edge crossings as points: the cubes of the seed's
/// case figures.
#[derive(Clone, Debug, PartialEq)]
pub struct CubeSpec {
    /// Samples along x, y, z: [2, 2, 2] for one cube, at most [`MAX_CUBE_GRID`] each.
    pub dims: [usize; 3],
    pub values: CubeValues,
    /// Corner dot radius, as a fraction of the cube's smallest side.
    pub dot: f64,
    pub crossings: bool,
    /// Colour of the surface (sRGB).
    pub color: Srgb,
}

/// What a `[terrain.cube]` holds at its samples.
#[derive(Clone, Debug, PartialEq)]
pub enum CubeValues {
    /// The samples, x fastest (`values`, `case` and `grid` come to this).
    Samples(Vec<f64>),
    /// Lorensen's class 0–14: the simulation puts in the class's smallest case with no more than
    /// four inside corners, inside corners at `iso − 1`, outside at `iso + 1`.
    Class { class: u8, iso: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshStyle {
    Shaded,
    Wireframe,
    ShadedWire,
}

/// How the surface is extracted from the sampled field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Marching cubes with the asymptotic decider and MC33's interior test: watertight 2-manifolds.
    MarchingCubes,
    /// The plain 15-class table (rotations and complement) with no decider: ambiguous faces are
    /// split by the corner count, so neighbouring cubes can disagree and leave cracks.
    MarchingCubesClassic,
    /// One vertex per cell at the mean of its edge crossings, one quad per crossed edge.
    SurfaceNets,
    /// One vertex per cell at the least-squares fit of the tangent planes: sharp corners kept.
    DualContouring,
}

impl Algorithm {
    pub const NAMES: [&'static str; 4] = ["marching_cubes", "marching_cubes_classic", "surface_nets", "dual_contouring"];

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
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct OverhangSpec {
    pub amplitude: Animated<1>,
    pub frequency: f64,
    pub octaves: u32,
}

/// How a primitive combines with the field so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsgOp {
    /// Adds material (smooth minimum).
    Union,
    /// Carves material away (smooth maximum with the negated shape).
    Subtract,
    /// Keeps only what is inside both.
    Intersect,
}

#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeSpec {
    pub primitive: Primitive,
    pub op: CsgOp,
    /// Blend radius of the smooth union/subtraction in metres (0 = sharp). Animate it to make two
    /// cliffs grow into each other.
    pub smooth: Animated<1>,
}

/// `[terrain.colors]`: a gradient by height (fractions of the grid height) and a rock colour that
/// takes over on steep slopes.
#[derive(Clone, Debug, PartialEq)]
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

    fn read(t: &TableReader, _render: &RenderSpec) -> Self {
        read_terrain(t)
    }

    fn memory(&self) -> (u64, String) {
        // field f32 + mesh (about 3 vertices of 28 bytes and 2 triangles per surface cell, a
        // surface cell count of about 2·N² for a height field, bounded by the cube count), held
        // three times: the extraction's buffers, the world-space mesh, the renderer's copy
        let samples = self.samples();
        let [nx, ny, nz] = self.resolution.map(|v| v as u64);
        let surface = (6 * (nx * nz + nx * ny + ny * nz)).min(samples);
        (samples * 4 + 3 * surface * (3 * 28 + 2 * 12), format!("a {nx}×{ny}×{nz} terrain grid"))
    }
}

fn read_terrain(t: &TableReader) -> TerrainSpec {
    let resolution = match t.raw("resolution").map(|v| v.get_ref().is_array()) {
        Some(true) => {
            let r = t.numbers::<3>("resolution", [96.0, 64.0, 96.0]);
            if r.iter().any(|&x| x.fract() != 0.0 || !(2.0..=MAX_RESOLUTION as f64).contains(&x)) {
                t.error_at("resolution", format!("each resolution must be a whole number from 2 to {MAX_RESOLUTION}"));
                [96, 64, 96]
            } else {
                r.map(|x| x as usize)
            }
        }
        Some(false) => {
            let n = t.int_in("resolution", 96, 2..=MAX_RESOLUTION) as usize;
            [n, n, n]
        }
        None => [96, 64, 96],
    };
    let size = t.numbers("size", [12.0, 8.0, 12.0]);
    if size.iter().any(|&s| !(s > 0.0 && s < 1e6)) {
        t.error_at("size", "sizes must be positive metres");
    }
    let iso = t.animated("iso", [0.0], -1e6..1e6);
    let algorithm = Algorithm::from_name(t.choice("algorithm", &Algorithm::NAMES)).unwrap_or(Algorithm::MarchingCubes);
    let closed = t.bool("closed", true);
    let style = match t.choice("style", &["shaded", "wireframe", "shaded+wire"]) {
        "wireframe" => MeshStyle::Wireframe,
        "shaded+wire" => MeshStyle::ShadedWire,
        _ => MeshStyle::Shaded,
    };
    let wire_color = t.color("wire_color", Srgb([0.1, 0.1, 0.11]));
    let wire_width = t.f64_in("wire_width", 1.0, 0.25..32.0);

    let h = t.table("height");
    let height = HeightSpec {
        base: h.animated("base", [size[1] * 0.35], -1e6..1e6),
        amplitude: h.animated("amplitude", [size[1] * 0.25], 0.0..1e6),
        octaves: h.int_in("octaves", 5, 0..=12) as u32,
        frequency: h.f64_in("frequency", 0.12, 1e-6..1e3),
        lacunarity: h.f64_in("lacunarity", 2.0, 1.0..8.0),
        gain: h.f64_in("gain", 0.5, 0.0..1.0),
        offset: h.animated("offset", [0.0, 0.0], -1e6..1e6),
    };
    h.finish();

    let o = t.table("overhang");
    let overhang = OverhangSpec {
        amplitude: o.animated("amplitude", [0.0], 0.0..1e6),
        frequency: o.f64_in("frequency", 0.3, 1e-6..1e3),
        octaves: o.int_in("octaves", 2, 1..=8) as u32,
    };
    o.finish();

    let shapes = t.tables("shapes").iter().filter_map(read_shape).collect();

    let c = t.table("colors");
    let bands = read_bands(&c);
    let colors = ColorSpec {
        bands,
        cliff: c.color("cliff", crate::srgb!("#7a6a5c")),
        cliff_start_deg: c.f64_in("cliff_start", 32.0, 0.0..90.0),
        cliff_end_deg: c.f64_in("cliff_end", 48.0, 0.0..90.0),
        strata: c.f64_in("strata", 0.45, 0.0..1e3),
    };
    if colors.cliff_end_deg < colors.cliff_start_deg {
        c.error_at("cliff_end", "cliff_end must be at least cliff_start");
    }
    c.finish();
    let cube = t.has("cube").then(|| {
        let c = t.table("cube");
        // the shorthands put corners one unit either side of a constant iso (of 0 when it is animated)
        let spec = read_cube(&c, if iso.is_constant() { iso.scalar_at(0.0, 1.0) } else { 0.0 });
        c.finish();
        if t.has("resolution") {
            t.error_at("resolution", "[terrain.cube] sets the grid (one cube: 2×2×2, or its `grid`); remove `resolution`");
        }
        if closed && t.has("closed") {
            t.error_at("closed", "[terrain.cube] shows one open cube; `closed` does not apply");
        }
        spec
    });
    let chunks = t.has("chunks").then(|| {
        let c = t.numbers("chunks", [16.0; 3]);
        if c.iter().any(|&n| n.fract() != 0.0 || !(1.0..=1024.0).contains(&n)) {
            t.error_at("chunks", "blocks of 1 to 1024 cells along each axis");
        }
        if !matches!(algorithm, Algorithm::MarchingCubes | Algorithm::MarchingCubesClassic) {
            t.error_at("chunks", "blocks are meshed by marching cubes; the dual meshers' quads would need the cells beyond a block");
        }
        c.map(|n| n.max(1.0) as usize)
    });
    let chunk_tint = t.bool("chunk_tint", chunks.is_some());
    let (resolution, closed) = match &cube {
        Some(c) => (c.dims, false),
        None => (resolution, closed),
    };
    TerrainSpec {
        resolution,
        size,
        iso,
        algorithm,
        style,
        wire_color,
        wire_width,
        closed,
        height,
        overhang,
        shapes,
        colors,
        cube,
        chunks,
        chunk_tint,
    }
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
fn read_cube(c: &TableReader, iso: f64) -> CubeSpec {
    let given = ["values", "case", "class", "samples"].iter().filter(|k| c.has(k)).count();
    if given > 1 {
        c.error_here("[terrain.cube] takes one of `values` (eight corner values), `case` (0–255), `class` (0–14) or `grid` with `samples`");
    }
    let mut values = if c.has("values") {
        CubeValues::Samples(cube_samples(c.numbers("values", [1.0; 8])))
    } else if c.has("case") {
        CubeValues::Samples(cube_samples(case_corners(c.int_in("case", 0, 0..=255) as u8, iso)))
    } else if c.has("class") {
        CubeValues::Class { class: c.int_in("class", 0, 0..=14) as u8, iso }
    } else {
        CubeValues::Samples(cube_samples(case_corners(0, iso)))
    };
    let mut dims = [2, 2, 2];
    if c.has("grid") || c.has("samples") {
        let g = c.numbers("grid", [2.0; 3]);
        if g.iter().any(|&n| n.fract() != 0.0 || !(2.0..=MAX_CUBE_GRID as f64).contains(&n)) {
            c.error_at("grid", format!("a cube grid has 2 to {MAX_CUBE_GRID} samples along each axis"));
        } else {
            dims = g.map(|n| n as usize);
            let n = dims.iter().product::<usize>();
            match c.raw("samples").and_then(|v| super::reader::number_list(v.get_ref())) {
                Some(v) if v.len() == n => values = CubeValues::Samples(v),
                Some(v) => c.error_at(
                    "samples",
                    format!("{} samples for a {}×{}×{} grid (x fastest): {n} needed", v.len(), dims[0], dims[1], dims[2]),
                ),
                None => c.error_at("samples", format!("`grid` needs `samples`: {n} numbers, x fastest")),
            }
        }
    }
    CubeSpec {
        dims,
        values,
        dot: c.f64_in("dot", 0.06, 0.0..0.5),
        crossings: c.bool("crossings", true),
        color: c.color("color", Srgb([0.84, 0.15, 0.16])),
    }
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
    let tables = c.tables("bands");
    if tables.is_empty() {
        return defaults();
    }
    let mut bands = Vec::new();
    for b in &tables {
        let h = b.f64_in("height", 0.0, 0.0..1.0);
        let col = b.color("color", Srgb([0.5; 3]));
        if !b.has("height") || !b.has("color") {
            b.error_here("each band needs `height` (fraction of the grid height) and `color`");
        }
        bands.push((h, col));
    }
    for b in tables {
        b.finish();
    }
    if bands.windows(2).any(|w| w[1].0 < w[0].0) {
        c.error_at("bands", "band heights must increase");
    }
    bands
}

fn read_shape(s: &TableReader) -> Option<ShapeSpec> {
    const FAR: f64 = 1e6;
    let op = match s.choice("op", &["union", "subtract", "intersect"]) {
        "subtract" => CsgOp::Subtract,
        "intersect" => CsgOp::Intersect,
        _ => CsgOp::Union,
    };
    let smooth = s.animated("smooth", [0.0], 0.0..FAR);
    let Some(kind) = s.string("type") else {
        s.error_here("a shape needs `type` = \"sphere\", \"box\", \"capsule\" or \"plane\"");
        s.finish();
        return None;
    };
    let primitive = match kind.as_str() {
        "sphere" => Primitive::Sphere { center: s.animated("center", [0.0; 3], -FAR..FAR), radius: s.animated("radius", [1.0], 0.0..FAR) },
        "box" => {
            let size = s.numbers("size", [1.0; 3]);
            if size.iter().any(|&v| v <= 0.0) {
                s.error_at("size", "box sizes must be positive");
            }
            Primitive::Box { center: s.animated("center", [0.0; 3], -FAR..FAR), size, rounding: s.f64_in("rounding", 0.0, 0.0..FAR) }
        }
        "capsule" => Primitive::Capsule {
            a: s.animated("a", [0.0; 3], -FAR..FAR),
            b: s.animated("b", [0.0, 1.0, 0.0], -FAR..FAR),
            radius: s.animated("radius", [0.5], 0.0..FAR),
        },
        "plane" => {
            let n = s.numbers("normal", [0.0, 1.0, 0.0]);
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            if len == 0.0 {
                s.error_at("normal", "the normal must not be zero");
            }
            let len = if len == 0.0 { 1.0 } else { len };
            Primitive::Plane { normal: n.map(|c| c / len), offset: s.animated("offset", [0.0], -FAR..FAR) }
        }
        other => {
            let hint = super::reader::did_you_mean(other, ["sphere", "box", "capsule", "plane"]);
            s.error_at(
                "type",
                format!("unknown shape \"{other}\"{}", hint.map(|h| format!("; did you mean \"{h}\"?")).unwrap_or_default()),
            );
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
