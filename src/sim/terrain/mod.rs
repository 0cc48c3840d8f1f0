//! The `terrain` scene kind (seed 002): a scalar field sampled on a grid, polygonised by marching
//! cubes, coloured by height and slope, seen by an orbiting or fixed camera. A field that does not
//! change is meshed once; an animated one (two cliffs growing together, a panning landscape) is
//! resampled and re-meshed every frame.

pub mod chunks;
pub mod cube;
pub mod dual;
pub mod field;
pub mod mc;
pub mod reference_fields;
pub mod resample;
pub mod topology;

use crate::portable;
use rayon::prelude::*;

use std::sync::Arc;

use crate::frame::srgb8;
use crate::frame::{Fill, FrameData, IDENTITY, Material, MeshData, MeshInstance, MeshRef, Wire};
use crate::scene::Timing;
use crate::scene::terrain::{Algorithm, MeshStyle, TerrainLook, TerrainSpec};
use crate::scene::values::smoothstep;
use crate::sim::noise::Noise;
use crate::sim::rng::Rng;
use crate::sim::{Drawing, KindPainter, KindSimulation, SimFault, SimInputs, Simulation, Stage, StateDigest};
use field::{FieldAt, GridFrame};

pub struct TerrainSim {
    spec: TerrainSpec,
    timing: Timing,
    grid: GridFrame,
    height_noise: Noise,
    overhang_noise: Noise,
    field: Vec<f32>,
    iso: mc::IsoMesh,
    /// The surface of the last frame asked for (reused as is when the field does not change) in
    /// world space, uncoloured, with the frame it was built for and a hash of its geometry.
    current: Option<(u32, Arc<MeshData>, mc::McStats, u64)>,
    /// What keeps the surface from being a closed 2-manifold, for a field that does not change
    /// (counted once; an animated field's surface is not counted every frame).
    topology: Option<topology::Topology>,
    /// The block each vertex was meshed in, and how many blocks there are, when meshing in blocks.
    block_of: Vec<u32>,
    blocks: u32,
    /// The samples of `[terrain.cube]` (x fastest), a class resolved to its cube; empty without one.
    cube_values: Vec<f64>,
    /// The last frame asked for.
    frame: u32,
    fault: Option<SimFault>,
    /// The field's constant parts, when only its shapes move (built on the first frame).
    parts: Option<resample::StaticParts>,
    /// Re-sample everything every frame even when only the shapes move (the reference the
    /// partial re-sampling is tested against).
    pub full_resample: bool,
}

impl KindSimulation for TerrainSim {
    type Spec = TerrainSpec;
    type Painter = TerrainPainter;

    fn new(inputs: &SimInputs<TerrainSpec>, _: crate::sim::Builder) -> Self {
        let (spec, seed) = (inputs.spec, inputs.seed);
        TerrainSim {
            spec: spec.clone(),
            timing: inputs.timing,
            grid: GridFrame::of(spec),
            height_noise: Noise::new(&mut Rng::stream(seed, "terrain.height")),
            overhang_noise: Noise::new(&mut Rng::stream(seed, "terrain.overhang")),
            field: Vec::new(),
            iso: mc::IsoMesh::default(),
            current: None,
            topology: None,
            block_of: Vec::new(),
            cube_values: spec.cube.as_ref().map(cube::samples).unwrap_or_default(),
            blocks: 0,
            frame: 0,
            fault: None,
            parts: None,
            full_resample: false,
        }
    }
}

impl TerrainSim {
    /// The world-space surface at frame `frame`, uncoloured (sampled and extracted unless
    /// already current).
    pub fn mesh_at(&mut self, frame: u32) -> Arc<MeshData> {
        self.frame = frame;
        if let Some((f, mesh, _, _)) = &self.current
            && (*f == frame || !self.spec.is_animated())
        {
            return mesh.clone();
        }
        let time = self.timing.time_of(frame);
        let at = FieldAt::new(&self.spec, &self.height_noise, &self.overhang_noise, time, self.timing.duration());
        if self.spec.cube.is_some() {
            self.field = self.cube_values.iter().map(|&v| v as f32).collect();
        } else if let Some(i) = {
            let partial = self.spec.is_animated() && self.spec.ground_is_static() && !self.full_resample;
            sample_field(&at, &self.grid, partial, &mut self.parts, &mut self.field)
        } {
            let [nx, ny, _] = self.grid.dims;
            let (x, y, z) = (i % nx, (i / nx) % ny, i / (nx * ny));
            self.fault.get_or_insert(SimFault { frame, what: format!("the terrain field is not finite at grid sample ({x}, {y}, {z})") });
        }
        let grid = mc::ScalarGrid::new(&self.field, self.grid.dims);
        let iso = self.iso_at(frame);
        self.block_of.clear();
        match self.spec.algorithm {
            Algorithm::MarchingCubes | Algorithm::MarchingCubesClassic if self.spec.chunks.is_some() => {
                let cells = self.spec.chunks.unwrap_or([16; 3]);
                let classic = self.spec.algorithm == Algorithm::MarchingCubesClassic;
                let blocks = chunks::extract(&grid, iso, cells, classic);
                (self.iso, self.block_of, self.blocks) = (blocks.mesh, blocks.block_of, blocks.count);
            }
            Algorithm::MarchingCubes => mc::extract_into(&grid, iso, mc::auto_layers_per_chunk(self.grid.dims[2]), &mut self.iso),
            Algorithm::MarchingCubesClassic => self.iso = mc::extract_classic(&grid, iso),
            Algorithm::SurfaceNets | Algorithm::DualContouring => {
                let layers = mc::auto_layers_per_chunk(self.grid.dims[2]);
                let vertices = if self.spec.per_cell { dual::Vertices::PerCell } else { dual::Vertices::PerPiece };
                let frame = self.grid;
                let cube_field = |g: [f64; 3]| cube::trilinear(self.spec.cube.as_ref().map_or([0; 3], |c| c.dims), &self.cube_values, g);
                let field = |g: [f64; 3]| at.at_grid(&frame, g);
                let place = match (self.spec.algorithm, &self.spec.cube) {
                    (Algorithm::SurfaceNets, _) => dual::Placement::Mean,
                    (_, Some(_)) => dual::Placement::Qef(&cube_field),
                    (_, None) => dual::Placement::Qef(&field),
                };
                dual::extract_into(&grid, iso, &place, vertices, layers, &mut self.iso);
            }
        }
        self.topology = (!self.spec.is_animated()).then(|| topology::Topology::of(&self.iso.positions, &self.iso.indices));
        let mesh = Arc::new(self.world_mesh());
        let mut geometry = crate::frame::Fnv::new();
        geometry.bytes(bytemuck::cast_slice(&mesh.positions));
        geometry.bytes(bytemuck::cast_slice(&mesh.indices));
        self.current = Some((frame, mesh.clone(), self.iso.stats, geometry.finish()));
        mesh
    }

    /// Whether the surface at `frame` is closed, wound outwards and seen from outside, so that its
    /// back faces never show (`Material::closed`): walled in, meshed by an algorithm that leaves
    /// no crack, at an iso level below the walls' value at the grid's edge (half a cell; above
    /// it the block is open at its sides), with the eye outside the block or in its air.
    pub fn seen_closed(&self, frame: u32, eye: [f32; 3]) -> bool {
        let iso = self.iso_at(frame) as f64;
        let g = &self.grid;
        let half_cell = 0.5 * g.spacing.iter().copied().fold(f64::INFINITY, f64::min);
        if !self.spec.walled_without_cracks() || iso >= half_cell {
            return false;
        }
        let eye = eye.map(f64::from);
        let in_block = (0..3).all(|a| eye[a] > g.origin[a] && eye[a] < g.origin[a] + (g.dims[a] - 1) as f64 * g.spacing[a]);
        let time = self.timing.time_of(frame);
        !in_block || FieldAt::new(&self.spec, &self.height_noise, &self.overhang_noise, time, self.timing.duration()).at(eye) > iso
    }

    /// The iso level at `frame`.
    fn iso_at(&self, frame: u32) -> f32 {
        self.spec.iso.scalar_at(self.timing.time_of(frame), self.timing.duration()) as f32
    }

    /// The surface in world space, without colours (its look gives them).
    fn world_mesh(&self) -> MeshData {
        let g = &self.grid;
        let positions: Vec<[f32; 3]> = self.iso.positions.iter().map(|&p| g.world(p)).collect();
        let normals: Vec<[f32; 3]> = self
            .iso
            .normals
            .iter()
            .map(|n| {
                // a gradient in grid units becomes a world gradient by dividing by the spacing
                let w: [f64; 3] = std::array::from_fn(|a| n[a] as f64 / g.spacing[a]);
                let len = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt();
                if len > 0.0 { w.map(|c| (c / len) as f32) } else { [0.0, 1.0, 0.0] }
            })
            .collect();
        MeshData { positions, normals, colors: Vec::new(), indices: self.iso.indices.clone() }
    }
}

/// Colours and draws a terrain's surface: bands by height, rock on steep slopes, the wireframe,
/// a `[terrain.cube]`'s decorations.
pub struct TerrainPainter {
    stage: Stage,
    look: TerrainLook,
    /// The faint noise over the colours (seeded by the scene).
    detail_noise: Noise,
    /// The grid's height, metres (bands are fractions of it).
    height: f64,
    /// The coloured surface of the geometry with this hash.
    colored: Option<(u64, MeshRef)>,
}

impl KindPainter for TerrainPainter {
    type Sim = TerrainSim;

    fn new(sim: &TerrainSim, drawing: &Drawing<TerrainLook>, _: crate::sim::PainterBuilder) -> Self {
        TerrainPainter {
            stage: drawing.stage(),
            look: drawing.kind.clone(),
            detail_noise: Noise::new(&mut Rng::stream(drawing.seed, "terrain.colour")),
            height: sim.spec.size[1],
            colored: None,
        }
    }

    fn paint(&mut self, sim: &TerrainSim, frame: u32) -> FrameData {
        let mesh = self.colored(sim);
        let c = self.look.wire_color.to_linear();
        let wire = Wire { color: [c[0], c[1], c[2], 1.0], width: self.look.wire_width as f32 };
        let (fill, wire) = match self.look.style {
            MeshStyle::Shaded => (Fill::Shaded, None),
            MeshStyle::Wireframe => (Fill::Hidden, Some(wire)),
            MeshStyle::ShadedWire => (Fill::Shaded, Some(wire)),
        };
        let instance = MeshInstance {
            mesh,
            transform: IDENTITY,
            material: Material { roughness: 0.85, specular: 0.06, casts_shadow: fill == Fill::Shaded, fill, wire, ..Material::default() },
            deform: None,
        };
        let mut meshes = vec![instance];
        if let (Some(cube), Some(look)) = (&sim.spec.cube, &self.look.cube) {
            // the cube's frame in the wire colour, never thinner than 1.5 px
            let frame_wire = Wire { color: [c[0], c[1], c[2], 1.0], width: (self.look.wire_width as f32).max(1.5) };
            meshes.extend(cube::decorations(cube.dims, look, &sim.cube_values, &sim.grid, sim.iso_at(frame), frame_wire));
        }
        let legend = self.look.legend.map(|corner| self.legend(corner, f64::from(sim.iso_at(frame))));
        let mut data = self.stage.frame(frame, meshes, legend);
        data.meshes[0].material.closed = sim.seen_closed(frame, data.camera.eye);
        data
    }
}

impl TerrainPainter {
    /// What the colours mean, on a light card in `corner`: each height band from the height where
    /// its colour is full, and the rock that takes over on steep slopes; for a `[terrain.cube]`,
    /// its inside and outside samples (at the iso level `iso`) and its crossings.
    fn legend(&self, corner: crate::frame::Corner, iso: f64) -> crate::frame::Canvas2d {
        use crate::frame::legend_number;
        let swatch = |c: [f32; 3]| [c[0], c[1], c[2], 1.0];
        let entries: Vec<([f32; 4], String)> = match &self.look.cube {
            Some(look) => {
                let mut e = vec![
                    (swatch(cube::INSIDE), format!("inside (value below {})", legend_number(iso, 2))),
                    (swatch(cube::OUTSIDE), "outside".to_string()),
                ];
                if look.crossings {
                    e.push((swatch(cube::crossing_color(look)), "crossing".to_string()));
                }
                e
            }
            None => {
                let c = &self.look.colors;
                let bands = c.bands.iter().map(|&(at, color)| (swatch(color.to_linear()), metres(at * self.height)));
                let rock = (swatch(c.cliff.to_linear()), format!("rock, slopes over {}°", legend_number(c.cliff_start_deg, 2)));
                bands.rev().chain([rock]).collect()
            }
        };
        crate::frame::legend_card([self.stage.width as f32, self.stage.height as f32], corner, &entries)
    }
}

/// A height for a legend: metres to a tenth below 10 m, whole metres above.
fn metres(v: f64) -> String {
    if v.abs() < 10.0 { format!("{v:.1} m") } else { format!("{v:.0} m") }
}

/// A terrain's surface at one frame in the colours the scene draws it with, as `simreel mesh`
/// exports it, and what a slicer or a physics engine will find in it.
pub struct Surface {
    pub mesh: MeshRef,
    pub algorithm: Algorithm,
    pub topology: topology::Topology,
}

impl TerrainPainter {
    /// `sim`'s coloured surface at frame `frame` (a `closed = false` block is open at its sides).
    pub fn surface_at(&mut self, sim: &mut TerrainSim, frame: u32) -> Surface {
        sim.mesh_at(frame);
        let mesh = self.colored(sim);
        let topology = topology::Topology::of(&mesh.data.positions, &mesh.data.indices);
        Surface { mesh, algorithm: sim.spec.algorithm, topology }
    }

    /// The simulation's current surface with its colours (coloured once per geometry).
    pub fn colored(&mut self, sim: &TerrainSim) -> MeshRef {
        let Some((_, mesh, _, geometry)) = &sim.current else { return MeshRef::new(MeshData::default()) };
        if let Some((key, colored)) = &self.colored
            && key == geometry
        {
            return colored.clone();
        }
        let mut colors: Vec<[u8; 4]> = match &self.look.cube {
            Some(c) if sim.spec.cube.is_some() => vec![srgb8(c.color.to_linear(), 255); mesh.positions.len()],
            // each vertex's colour is its own: in parallel, in order
            _ => mesh.positions.par_iter().zip(&mesh.normals).map(|(p, n)| self.color(*p, *n)).collect(),
        };
        if self.look.chunk_tint && sim.block_of.len() == colors.len() {
            for (c, &b) in colors.iter_mut().zip(&sim.block_of) {
                *c = tinted(*c, b);
            }
        }
        let colored = MeshRef::new(MeshData { colors, ..(**mesh).clone() });
        self.colored = Some((*geometry, colored.clone()));
        colored
    }

    /// Height bands, rock on steep slopes, and a faint noise so flat areas do not look plastic.
    fn color(&self, p: [f32; 3], n: [f32; 3]) -> [u8; 4] {
        let c = &self.look.colors;
        let h = (p[1] as f64 / self.height).clamp(0.0, 1.0);
        let bands = &c.bands;
        let base = match bands.iter().position(|(bh, _)| *bh > h) {
            Some(0) => bands[0].1.to_linear(),
            None => bands[bands.len() - 1].1.to_linear(),
            Some(i) => {
                let (h0, c0) = bands[i - 1];
                let (h1, c1) = bands[i];
                let u = smoothstep(0.0, 1.0, (h - h0) / (h1 - h0).max(1e-9)) as f32;
                let (a, b) = (c0.to_linear(), c1.to_linear());
                std::array::from_fn(|k| a[k] + (b[k] - a[k]) * u)
            }
        };
        let slope = portable::acos(n[1].clamp(-1.0, 1.0) as f64).to_degrees();
        let rock = smoothstep(c.cliff_start_deg, c.cliff_end_deg.max(c.cliff_start_deg + 1e-6), slope) as f32;
        let mut cliff = c.cliff.to_linear();
        if c.strata > 0.0 {
            // alternating layers, their boundaries wavy so they read as rock, not stripes
            let wave = 0.6 * self.detail_noise.noise2(p[0] as f64 * 0.3, p[2] as f64 * 0.3);
            let layer = portable::sin((p[1] as f64 / c.strata + wave) * std::f64::consts::PI);
            let k = (1.0 + 0.14 * layer) as f32;
            cliff = cliff.map(|v| v * k);
        }
        let q = [p[0] as f64 * 1.7, p[1] as f64 * 1.7, p[2] as f64 * 1.7];
        let jitter = 1.0 + 0.08 * self.detail_noise.noise3(q[0], q[1], q[2]) as f32;
        let lin: [f32; 3] = std::array::from_fn(|k| (base[k] + (cliff[k] - base[k]) * rock) * jitter);
        srgb8(lin, 255)
    }
}

/// Tints of neighbouring blocks (blocks numbered x fastest; the pattern repeats every 5, so no two
/// blocks next to each other along any axis of a grid share one unless it is 5 blocks wide).
const BLOCK_TINTS: [[f32; 3]; 5] = [[1.0, 0.42, 0.42], [0.42, 0.7, 1.0], [0.5, 1.0, 0.45], [1.0, 0.85, 0.3], [0.78, 0.48, 1.0]];

/// `c` (sRGB) multiplied by the tint of block `b`.
fn tinted(c: [u8; 4], b: u32) -> [u8; 4] {
    let t = BLOCK_TINTS[b as usize % BLOCK_TINTS.len()];
    let lin = [0, 1, 2].map(|k| crate::frame::srgb_to_linear(c[k] as f32 / 255.0) * t[k]);
    srgb8(lin, c[3])
}

impl Simulation for TerrainSim {
    fn advance(&mut self, frame: u32) {
        self.mesh_at(frame);
    }

    fn fault(&self) -> Option<SimFault> {
        self.fault.clone()
    }

    fn digest(&self) -> StateDigest {
        let Some((_, mesh, stats, geometry)) = &self.current else {
            return StateDigest { hash: 0, facts: vec![("frame".into(), "none".into())] };
        };
        // The state is the geometry; colours are appearance, left to the image comparison.
        let mut facts: Vec<(String, String)> = vec![
            ("frame".into(), self.frame.to_string()),
            ("vertices".into(), mesh.positions.len().to_string()),
            ("triangles".into(), (mesh.indices.len() / 3).to_string()),
            ("tunnels".into(), stats.tunnels.to_string()),
        ];
        if let Some(t) = &self.topology {
            // edges of more than two triangles, vertices joining two fans (0 and 0: a 2-manifold)
            facts.push(("non_manifold_edges".into(), t.non_manifold_edges.to_string()));
            facts.push(("non_manifold_vertices".into(), t.non_manifold_vertices.to_string()));
        }
        if self.spec.chunks.is_some() {
            facts.push(("blocks".into(), self.blocks.to_string()));
        }
        if let Some(corners) = self.spec.cube.as_ref().and_then(|c| cube::corners(c.dims, &self.cube_values)) {
            // the cube's case and class, its values and crossings, for captions
            let values = corners.map(|v| v as f32);
            let case = mc::cube::case_index(&values, self.iso_at(self.frame));
            facts.push(("case".into(), case.to_string()));
            facts.push(("class".into(), mc::classes::class_of(case).to_string()));
            let iso = self.iso_at(self.frame);
            facts.push(("iso".into(), iso.to_string()));
            for (k, v) in values.iter().enumerate() {
                facts.push((format!("v{k}"), v.to_string()));
            }
            // where the surface crosses each crossed edge, 0..1 from its lower corner
            for (e, [a, b]) in mc::cube::EDGE_CORNERS.iter().enumerate() {
                let (va, vb) = (values[*a as usize], values[*b as usize]);
                if (va < iso) != (vb < iso) {
                    facts.push((format!("t{e}"), mc::cube::crossing_t(va, vb, iso).to_string()));
                }
            }
        }
        StateDigest { hash: *geometry, facts }
    }
}

/// Samples the field at one moment into `field`: with `partial`, only where shapes reach (the rest
/// of the field stands still, its constant parts kept in `parts`). Returns the first non-finite
/// sample's index, if any.
fn sample_field(
    at: &FieldAt,
    grid: &GridFrame,
    partial: bool,
    parts: &mut Option<resample::StaticParts>,
    field: &mut Vec<f32>,
) -> Option<usize> {
    if !partial {
        return at.sample(grid, field);
    }
    if !parts.as_ref().is_some_and(|p| p.fits(grid)) {
        *parts = Some(resample::StaticParts::new(at, grid));
    }
    parts.as_ref().expect("built above").sample(at, grid, field).0
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::scene;

    /// A small walled terrain: ground at 2 m in a 10 × 6 × 10 m block of 24 × 16 × 24 samples
    /// (half a cell is 0.2 m), with `extra` keys in `[terrain]`.
    fn sim(extra: &str) -> TerrainSim {
        let text = format!(
            "kind = \"terrain\"\n[render]\nframes = 4\nfps = 10\n[terrain]\nresolution = [24, 16, 24]\nsize = [10.0, 6.0, 10.0]\n{extra}\n[terrain.height]\nbase = 2.0\namplitude = 0.5\n"
        );
        let s = scene::parse(&text, Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
        <TerrainSim as crate::kinds::FromScene>::from_scene(&s).expect("a terrain scene")
    }

    #[test]
    fn only_a_walled_crackless_surface_seen_from_outside_is_drawn_closed() {
        let far = [30.0, 20.0, 30.0];
        let walled = sim("");
        assert!(walled.seen_closed(0, far));
        assert!(walled.seen_closed(0, [0.0, 5.0, 0.0]), "an eye in the block's air sees the outside");
        assert!(!walled.seen_closed(0, [0.0, 0.5, 0.0]), "an eye inside the ground sees back faces");
        assert!(sim("algorithm = \"surface_nets\"").seen_closed(0, far));
        assert!(sim("algorithm = \"dual_contouring\"").seen_closed(0, far));
        assert!(sim("iso = 0.1").seen_closed(0, far));
        assert!(!sim("closed = false").seen_closed(0, far));
        assert!(!sim("algorithm = \"marching_cubes_classic\"").seen_closed(0, far), "the classic table leaves cracks");
        assert!(!sim("iso = 0.5").seen_closed(0, far), "above half a cell the walls leave the sides open");
    }

    /// `legend`: each band from the height where its colour is full (highest first), then the
    /// rock; a cube's inside and outside samples and crossings; nothing without the key.
    #[test]
    fn the_legend_says_what_the_colours_mean_in_its_corner() {
        let canvas = |text: &str| {
            let s = scene::parse(text, Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
            crate::kinds::build(&s).frame(0).canvas
        };
        let bands = "kind = \"terrain\"\n[render]\nwidth = 640\nheight = 360\nframes = 1\n[terrain]\nresolution = 16\nsize = [10.0, 6.0, 10.0]\nlegend = \"bottom-right\"\n[terrain.colors]\nbands = [{ height = 0.0, color = \"#c9b27c\" }, { height = 0.5, color = \"#7aa34d\" }]\ncliff_start = 35.0\n";
        let c = canvas(bands).expect("a canvas for the legend");
        let said: Vec<&str> = c.texts.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(said, ["3.0 m", "0.0 m", "rock, slopes over 35°"]);
        for t in &c.texts {
            assert!(t.at[0] > 640.0 * 0.6 && t.at[0] < 640.0 && t.at[1] > 360.0 * 0.6 && t.at[1] < 360.0, "{:?}", t.at);
        }
        // the swatches are the bands' colours, in the order of the texts
        let swatch = |c: crate::scene::values::Srgb| c.to_linear();
        let fills: Vec<[f32; 3]> = c
            .shapes
            .iter()
            .filter_map(|s| match s {
                crate::frame::Shape2d::Circle { color, .. } if color[3] == 1.0 => Some([color[0], color[1], color[2]]),
                _ => None,
            })
            .collect();
        assert_eq!(fills[..2], [swatch(crate::srgb!("#7aa34d")), swatch(crate::srgb!("#c9b27c"))]);
        assert!(canvas(&bands.replace("legend = \"bottom-right\"\n", "")).is_none());
        let cube = "kind = \"terrain\"\n[render]\nframes = 1\n[terrain]\nlegend = \"top-left\"\niso = 0.5\n[terrain.cube]\ncase = 3\n";
        let said: Vec<String> = canvas(cube).expect("a canvas").texts.into_iter().map(|t| t.text).collect();
        assert_eq!(said, ["inside (value below 0.5)", "outside", "crossing"]);
    }
}
