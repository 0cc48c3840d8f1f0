//! What a cargo frame shows: a checkered ground with its ramp, a stylised carrier whose legs
//! swing with the gait, the wooden jige, three loads (sack, crate, cloth bundle), the skinned
//! straps, dust where a load lands, optional rest-pose ghosts, and a strip chart of each load's
//! pitch, roll or lift over time with its target (dashed) and limits.

use crate::portable;
use glam::{DMat3, DVec3};

use super::CargoSim;
use super::rig::{Poses, Rig};
use super::route::{FEET, Frame, HIP, Hold, Script, axes, ground_height};
use super::straps::Straps;
use crate::frame::font::{ascent_descent, text_box, text_width};
use crate::frame::{Align, Canvas2d, Dash, FrameData, Material, MeshData, MeshInstance, MeshRef, Shape2d, Text2d, srgb8};
use crate::scene::cargo::{CargoLook, CargoSpec, EventKind, GroundLook, Leg, LinkLook, PlotLook, Shape, Trace};
use crate::sim::rng::Rng;
use crate::sim::{Drawing, KindPainter, Stage};

/// How long a load takes to drop onto the stack before its event, and dust lives after it.
const DROP: f64 = 0.35;
const DUST_LIFE: f64 = 1.1;
const DUST_GRAINS: usize = 24;

/// Draws a cargo scene: the meshes built once, in the look's colours and shapes, posed by the
/// simulation's state each frame, and the strip chart.
pub struct CargoPainter {
    stage: Stage,
    look: CargoLook,
    art: Art,
}

/// Meshes built once.
struct Art {
    ground: MeshRef,
    torso: MeshRef,
    leg: MeshRef,
    jige: MeshRef,
    loads: Vec<MeshRef>,
    rod: MeshRef,
    grain: MeshRef,
    straps: Straps,
}

fn rgb(c: [f32; 3]) -> [u8; 4] {
    srgb8(c, 255)
}

/// A colour of the code as opaque 8-bit sRGB, as meshes take it.
fn rgba8(c: crate::scene::values::Srgb) -> [u8; 4] {
    srgb8(c.to_linear(), 255)
}

/// Most ground tiles drawn: a route longer than they cover at the scene's `grid` (legs reach a
/// million metres) gets tiles twice as large, as often as it takes, rather than billions of them.
const MAX_TILES: f64 = 65_536.0;

/// Ground tiles over the route's extent, checkered, following the ramp.
fn ground_mesh(spec: &CargoSpec, look: &GroundLook, script: &Script) -> MeshData {
    let mut xs = vec![spec.route.start[0]];
    let mut zs = vec![spec.route.start[1]];
    for leg in &spec.route.legs {
        if let Leg::To { to, .. } | Leg::Teleport(to) = leg {
            xs.push(to[0]);
            zs.push(to[1]);
        }
    }
    let (width, depth) = (
        xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - xs.iter().cloned().fold(f64::INFINITY, f64::min) + 17.0,
        zs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) - zs.iter().cloned().fold(f64::INFINITY, f64::min) + 14.0,
    );
    let mut g = look.grid;
    while (width / g + 1.0) * (depth / g + 1.0) > MAX_TILES {
        g *= 2.0;
    }
    let snap = |v: f64, up: bool| if up { (v / g).ceil() * g } else { (v / g).floor() * g };
    let lo = [
        snap(xs.iter().cloned().fold(f64::INFINITY, f64::min) - 8.0, false),
        snap(zs.iter().cloned().fold(f64::INFINITY, f64::min) - 8.0, false),
    ];
    let hi = [
        snap(xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 8.0, true),
        snap(zs.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 5.0, true),
    ];
    let colors = look.colors.map(|c| rgb(c.to_linear()));
    let (nx, nz) = (((hi[0] - lo[0]) / g).round() as usize, ((hi[1] - lo[1]) / g).round() as usize);
    // finer than a tile along x where the ramp bends
    let sub = if spec.ground.ramp.is_some() { 4 } else { 1 };
    let mut m = MeshData::default();
    for i in 0..nx {
        for j in 0..nz {
            let color = colors[(i + j) % 2];
            for s in 0..sub {
                let x0 = lo[0] + (i as f64 + s as f64 / sub as f64) * g;
                let x1 = x0 + g / sub as f64;
                let (z0, z1) = (lo[1] + j as f64 * g, lo[1] + (j + 1) as f64 * g);
                let (h0, h1) = (ground_height(&script.ground, x0), ground_height(&script.ground, x1));
                let n = DVec3::new(-(h1 - h0), x1 - x0, 0.0).normalize().as_vec3().to_array();
                let base = m.positions.len() as u32;
                for (x, h, z) in [(x0, h0, z0), (x1, h1, z0), (x1, h1, z1), (x0, h0, z1)] {
                    m.positions.push([x as f32, h as f32, z as f32]);
                    m.normals.push(n);
                    m.colors.push(color);
                }
                m.indices.extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
            }
        }
    }
    m
}

/// The carrier's torso, arms and head about the hips (x forward, y up, z right).
fn torso_mesh() -> MeshData {
    let (shirt, skin, sleeve) = (rgba8(crate::srgb!("#3f6f9f")), rgba8(crate::srgb!("#e0b48f")), rgba8(crate::srgb!("#35597d")));
    let mut m = MeshData::default();
    m.push_box([-0.11, 0.0, -0.19], [0.11, 0.62, 0.19], shirt);
    for z in [-0.25, 0.25] {
        m.push_box([-0.05, 0.08, z - 0.05], [0.07, 0.6, z + 0.05], sleeve);
        m.push_box([-0.03, -0.02, z - 0.04], [0.06, 0.08, z + 0.04], skin);
    }
    m.push_box([-0.04, 0.62, -0.05], [0.04, 0.68, 0.05], skin);
    let head = MeshData::sphere([0.01, 0.8, 0.0], 0.115, 8, skin);
    append(&mut m, &head);
    m
}

fn append(m: &mut MeshData, other: &MeshData) {
    let base = m.positions.len() as u32;
    m.positions.extend_from_slice(&other.positions);
    m.normals.extend_from_slice(&other.normals);
    m.colors.extend_from_slice(&other.colors);
    m.indices.extend(other.indices.iter().map(|i| i + base));
}

/// One leg hanging from the hip joint, with its foot.
fn leg_mesh() -> MeshData {
    let mut m = MeshData::default();
    m.push_box([-0.07, -(HIP as f32) + 0.06, -0.07], [0.07, 0.0, 0.07], rgba8(crate::srgb!("#4a4038")));
    m.push_box([-0.07, -(HIP as f32), -0.07], [0.16, -(HIP as f32) + 0.06, 0.07], rgba8(crate::srgb!("#2b2622")));
    m
}

/// The wooden frame about its contact point with the back: uprights, crossbars, prongs with a
/// slatted platform, a back pad and shoulder straps.
fn jige_mesh() -> MeshData {
    let (wood, dark, pad, strap) =
        (rgba8(crate::srgb!("#8a5a32")), rgba8(crate::srgb!("#6b4426")), rgba8(crate::srgb!("#c9b27c")), rgba8(crate::srgb!("#5b4a3a")));
    let mut m = MeshData::default();
    let feet = -(FEET as f32);
    for z in [-0.22f32, 0.22] {
        m.push_box([-0.09, feet, z - 0.025], [-0.04, 0.62, z + 0.025], wood);
        m.push_box([-0.56, -0.47, z - 0.025], [-0.04, -0.42, z + 0.025], dark);
        m.push_box([-0.02, 0.22, z - 0.04], [0.3, 0.26, z + 0.04], strap);
        m.push_box([0.26, -0.12, z - 0.04], [0.3, 0.26, z + 0.04], strap);
    }
    for y in [-0.15f32, 0.2, 0.5] {
        m.push_box([-0.085, y, -0.22], [-0.045, y + 0.04, 0.22], wood);
    }
    for k in 0..5 {
        let x = -0.52 + k as f32 * 0.11;
        m.push_box([x, -0.46, -0.2], [x + 0.07, -0.43, 0.2], wood);
    }
    m.push_box([-0.045, -0.2, -0.15], [-0.01, 0.3, 0.15], pad);
    m
}

/// A load's mesh about its base centre.
fn load_mesh(shape: Shape, size: [f64; 3], color: [f32; 3]) -> MeshData {
    let [d, h, w] = size.map(|v| v as f32);
    let main = rgb(color);
    let dark = rgb(color.map(|c| c * 0.55));
    let mut m = MeshData::default();
    match shape {
        Shape::Sack => {
            let s = MeshData::sphere([0.0, 0.0, 0.0], 1.0, 10, main);
            let half = [0.5 * d, 0.5 * h, 0.5 * w];
            for (p, n) in s.positions.iter().zip(&s.normals) {
                // a rounded block: the sphere pushed toward its bounding box
                let q: [f32; 3] = std::array::from_fn(|k| p[k].signum() * portable::powf(p[k].abs(), 0.45) * half[k]);
                m.positions.push([q[0], q[1] + 0.5 * h, q[2]]);
                let nn = glam::Vec3::from_array(std::array::from_fn(|k| n[k] / half[k])).normalize();
                m.normals.push(nn.to_array());
                m.colors.push(main);
            }
            m.indices = s.indices;
            append(&mut m, &MeshData::sphere([0.0, h * 0.98, 0.0], 0.045, 6, dark));
        }
        Shape::Crate => {
            m.push_box([-0.5 * d, 0.0, -0.5 * w], [0.5 * d, h, 0.5 * w], main);
            for x in [-0.5 * d - 0.006, 0.5 * d - 0.03] {
                for z in [-0.5 * w - 0.006, 0.5 * w - 0.03] {
                    m.push_box([x, 0.0, z], [x + 0.036, h, z + 0.036], dark);
                }
            }
            m.push_box([-0.5 * d - 0.004, 0.45 * h, -0.5 * w - 0.004], [0.5 * d + 0.004, 0.55 * h, 0.5 * w + 0.004], dark);
        }
        Shape::Bundle => {
            m.push_box([-0.5 * d, 0.0, -0.5 * w], [0.5 * d, h, 0.5 * w], main);
            m.push_box([-0.5 * d - 0.005, -0.005, -0.06], [0.5 * d + 0.005, h + 0.005, 0.06], dark);
            append(&mut m, &MeshData::sphere([0.0, h + 0.02, 0.0], 0.05, 6, dark));
        }
    }
    m
}

/// A unit rod along +y from 0 to 1, radius 1, eight sides.
fn rod_mesh(color: [u8; 4]) -> MeshData {
    let mut m = MeshData::default();
    for k in 0..=8 {
        let a = std::f32::consts::TAU * k as f32 / 8.0;
        let n = [portable::cos(a), 0.0, portable::sin(a)];
        for y in [0.0, 1.0] {
            m.positions.push([n[0], y, n[2]]);
            m.normals.push(n);
            m.colors.push(color);
        }
    }
    for k in 0..8u32 {
        let (a, b, c, d) = (2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3);
        m.indices.extend_from_slice(&[a, b, c, b, d, c]);
    }
    m
}

/// A transform putting the unit rod from `a` to `b` with radius `r`.
fn rod_between(a: DVec3, b: DVec3, r: f64) -> [[f32; 4]; 4] {
    let y = b - a;
    let x = y.any_orthonormal_vector() * r;
    let z = y.normalize().cross(x.normalize()) * r;
    Frame { origin: a, rot: DMat3::from_cols(x, y, z) }.matrix()
}

impl Art {
    fn new(spec: &CargoSpec, look: &CargoLook, rig: &Rig, script: &Script) -> Self {
        Art {
            ground: MeshRef::new(ground_mesh(spec, &look.ground, script)),
            torso: MeshRef::new(torso_mesh()),
            leg: MeshRef::new(leg_mesh()),
            jige: MeshRef::new(jige_mesh()),
            loads: spec.links.iter().zip(&look.links).map(|(l, k)| MeshRef::new(load_mesh(k.shape, l.size, k.color.to_linear()))).collect(),
            rod: MeshRef::new(rod_mesh(rgba8(crate::srgb!("#7a5230")))),
            grain: MeshRef::new(MeshData::sphere([0.0; 3], 1.0, 5, rgba8(crate::srgb!("#d8cbb0")))),
            straps: Straps::new(&spec.links, &rig.rest_height),
        }
    }
}

fn instance(mesh: &MeshRef, transform: [[f32; 4]; 4], material: Material) -> MeshInstance {
    MeshInstance { mesh: mesh.clone(), transform, material, deform: None }
}

/// When a load first arrives (its first load event), if it is put on during the scene.
pub fn arrival(spec: &CargoSpec, link: usize) -> Option<f64> {
    spec.events.iter().find_map(|e| match e.kind {
        EventKind::Load { link: l, .. } if l == link => Some(e.at),
        _ => None,
    })
}

/// The carrier's body meshes at `t`.
fn carrier(sim: &CargoSim, art: &Art, t: f64, out: &mut Vec<MeshInstance>) {
    let b = sim.script().body(t);
    let hips = Frame { origin: b.hips, rot: b.axes() };
    let upright = Frame { origin: b.hips, rot: axes(b.heading, 0.0) };
    let swing = 0.45 * b.stride * portable::sin(std::f64::consts::PI * b.phase);
    for (side, sign) in [(-0.1, 1.0), (0.1, -1.0)] {
        let hip = upright.then(&Frame { origin: DVec3::new(0.0, 0.0, side), rot: DMat3::from_rotation_z(sign * swing) });
        out.push(instance(&art.leg, hip.matrix(), Material::default()));
    }
    out.push(instance(&art.torso, hips.matrix(), Material { roughness: 0.7, ..Default::default() }));
}

/// Dust grains of the load events within their lifetime at `t`.
fn dust(sim: &CargoSim, art: &Art, poses: &Poses, t: f64, out: &mut Vec<MeshInstance>) {
    for (k, e) in sim.spec().events.iter().enumerate() {
        let EventKind::Load { link, .. } = e.kind else { continue };
        let age = t - e.at;
        if !(0.0..DUST_LIFE).contains(&age) {
            continue;
        }
        let base = poses.bases[link];
        let mut rng = Rng::stream(k as u64, "cargo-dust");
        let size = sim.spec().links[link].size;
        for _ in 0..DUST_GRAINS {
            let a = std::f64::consts::TAU * rng.unit();
            let speed = 0.4 + 0.5 * rng.unit();
            let dir = DVec3::new(portable::cos(a), 0.25 + 0.5 * rng.unit(), portable::sin(a));
            // drag: distance grows as (1 − e^(−4·age))/4
            let reach = speed * (1.0 - portable::exp(-4.0 * age)) / 4.0;
            let local = DVec3::new(0.5 * size[0] * portable::cos(a), 0.02, 0.5 * size[2] * portable::sin(a)) + dir * reach;
            let p = base.point(local) + DVec3::Y * 0.05 * age;
            let r = 0.018 + 0.04 * age;
            let fade = portable::powi(1.0 - age / DUST_LIFE, 2) as f32;
            let m = Material { tint: [1.0, 1.0, 1.0, 0.55 * fade], translucent: true, casts_shadow: false, ..Default::default() };
            let tf = Frame { origin: p, rot: DMat3::from_diagonal(DVec3::splat(r)) };
            out.push(instance(&art.grain, tf.matrix(), m));
        }
    }
}

impl KindPainter for CargoPainter {
    type Sim = CargoSim;

    fn new(sim: &CargoSim, drawing: &Drawing<CargoLook>, _: crate::sim::PainterBuilder) -> Self {
        let art = Art::new(sim.spec(), drawing.kind, sim.rig(), sim.script());
        CargoPainter { stage: drawing.stage(), look: drawing.kind.clone(), art }
    }

    /// The frame at `t` (the state is the last game frame's).
    fn paint(&mut self, sim: &CargoSim, index: u32) -> FrameData {
        let (art, look) = (&self.art, &self.look);
        let t = sim.shown_time();
        let spec = sim.spec();
        let (jige, authored) = sim.script().jige(t);
        let poses = sim.rig().poses(jige, authored, sim.state(), sim.sway_weight(t));
        let mut meshes = vec![instance(
            &art.ground,
            Frame { origin: DVec3::ZERO, rot: DMat3::IDENTITY }.matrix(),
            Material { roughness: 0.95, ..Default::default() },
        )];
        carrier(sim, art, t, &mut meshes);
        meshes.push(instance(&art.jige, poses.frame.matrix(), Material { roughness: 0.8, ..Default::default() }));
        if sim.script().hold(t) == Hold::Ground {
            let top = poses.frame.point(DVec3::new(-0.08, 0.45, 0.0));
            let foot = jige.point(DVec3::new(-0.75, -FEET, 0.0));
            let foot = DVec3::new(foot.x, ground_height(&sim.script().ground, foot.x), foot.z);
            meshes.push(instance(&art.rod, rod_between(foot, top, 0.018), Material::default()));
        }
        for (i, load) in poses.loads.iter().enumerate() {
            let mut placed = *load;
            if let Some(at) = arrival(spec, i) {
                if t < at - DROP {
                    continue;
                }
                if t < at {
                    let u = (at - t) / DROP;
                    placed.origin += poses.bases[i].rot.y_axis * (0.6 * u * u);
                }
            }
            meshes.push(instance(&art.loads[i], placed.matrix(), Material { roughness: 0.85, ..Default::default() }));
            if look.ghost {
                let ghost = Material { tint: [1.0, 1.0, 1.0, 0.28], translucent: true, casts_shadow: false, ..Default::default() };
                meshes.push(instance(&art.loads[i], rest_pose(&poses, sim.rig(), i).matrix(), ghost));
            }
        }
        let all_on = (0..spec.links.len()).all(|i| arrival(spec, i).is_none_or(|at| t >= at));
        if all_on {
            let straps = MeshRef::new(art.straps.mesh(&poses, rgba8(crate::srgb!("#3b2f25"))));
            meshes.push(instance(
                &straps,
                Frame { origin: DVec3::ZERO, rot: DMat3::IDENTITY }.matrix(),
                Material { roughness: 0.9, ..Default::default() },
            ));
        }
        if look.dust {
            dust(sim, art, &poses, t, &mut meshes);
        }
        let canvas = look.plot.as_ref().zip(spec.history).map(|(plot, seconds)| chart(sim, &look.links, plot, seconds, &self.stage));
        let mut f = self.stage.frame(index, meshes, canvas);
        if let Some(follow) = &look.follow {
            let b = sim.script().body(t);
            let at = DVec3::new(b.feet.x, b.feet.y, b.feet.z);
            f.camera.eye = (at + DVec3::from_array(follow.offset)).as_vec3().to_array();
            f.camera.target = (at + DVec3::from_array(follow.look)).as_vec3().to_array();
        }
        f
    }
}

/// A load's rest pose: its place with no sway anywhere.
fn rest_pose(poses: &Poses, rig: &Rig, i: usize) -> Frame {
    let root = poses.jige.then(&Frame { origin: super::rig::ROOT, rot: DMat3::IDENTITY });
    root.then(&Frame { origin: DVec3::Y * rig.rest_height[i], rot: DMat3::IDENTITY })
}

/// A straight line segment of one colour.
fn line(a: [f32; 2], b: [f32; 2], width: f32, color: [f32; 4], dash: Option<Dash>) -> Shape2d {
    Shape2d::Line { a, b, width, color_a: color, color_b: color, dash }
}

const INK: [f32; 4] = [0.15, 0.15, 0.17, 1.0];

/// Smallest text the strip chart shrinks its spring labels to, pixels; below it they are
/// shortened instead.
const MIN_TEXT: f32 = 7.0;

/// The strip chart's frame: where time and each lane go, and the texts placed so far (which
/// later labels keep clear of).
struct Strip {
    left: f32,
    right: f32,
    /// The top of the first lane (below the spring labels).
    top: f32,
    bottom: f32,
    pad: f32,
    /// Em size of the lane names and the events' words, and of the limits in the margin.
    text: f32,
    value: f32,
    t0: f64,
    seconds: f64,
    shapes: Vec<Shape2d>,
    texts: Vec<Text2d>,
}

impl Strip {
    fn x_of(&self, t: f64) -> f32 {
        self.left + (self.right - self.left) * ((t - self.t0) / self.seconds) as f32
    }

    fn label(&mut self, at: [f32; 2], size: f32, align: Align, color: [f32; 4], text: String) {
        self.texts.push(Text2d { at, size, align, color, text });
    }

    /// Whether a text at `at` would overlap one already placed.
    fn clear(&self, text: &str, size: f32, at: [f32; 2], align: Align) -> bool {
        let (a0, a1) = text_box(text, size, at, align);
        self.texts.iter().all(|t| {
            let (b0, b1) = text_box(&t.text, t.size, t.at, t.align);
            a1[0] <= b0[0] || b1[0] <= a0[0] || a1[1] <= b0[1] || b1[1] <= a0[1]
        })
    }

    /// One lane from `y0` to `y1`: component `k` (pitch, roll, lift) of every load, its target and
    /// its limits, on a scale that holds every load's range. The limits are written in the margin
    /// inside the lane's height; the name stands at the lane's top left on a light box.
    fn lane(&mut self, sim: &CargoSim, links: &[LinkLook], laws: &[[super::spring::Law; 3]], k: usize, name: &str, y: (f32, f32)) {
        let (y0, y1) = y;
        let lo = laws.iter().map(|l| l[k].lo).fold(0.0, f64::min);
        let hi = laws.iter().map(|l| l[k].hi).fold(0.0, f64::max);
        let span = (hi - lo).max(1e-6) * 1.25;
        let mid = 0.5 * (hi + lo);
        let y_of = |v: f64| y1 - (y1 - y0) * (((v - mid) / span + 0.5).clamp(-0.05, 1.05)) as f32;
        let (left, right, pad) = (self.left, self.right, self.pad);
        self.shapes.push(line([left, y_of(0.0)], [right, y_of(0.0)], 1.0, [0.6, 0.6, 0.6, 1.0], None));
        let (ascent, descent) = ascent_descent(self.value);
        let hi_at = (y_of(hi) + 0.35 * self.value).max(y0 + ascent);
        let lo_at = (y_of(lo) + 0.35 * self.value).min(y1 - descent);
        self.label([left - pad, hi_at], self.value, Align::Right, INK, format!("{hi:.1}"));
        self.label([left - pad, lo_at], self.value, Align::Right, INK, format!("{lo:.1}"));
        for (i, link) in links.iter().enumerate() {
            let c = link.color.to_linear();
            let (solid, faint) = ([c[0], c[1], c[2], 1.0], [c[0], c[1], c[2], 0.45]);
            for limit in [laws[i][k].lo, laws[i][k].hi].into_iter().filter(|l| *l != 0.0) {
                let dash = Some(Dash { on: 2.0, off: 4.0, phase: 0.0 });
                self.shapes.push(line([left, y_of(limit)], [right, y_of(limit)], 1.0, faint, dash));
            }
            for pair in sim.samples.windows(2).filter(|p| p[0].t >= self.t0) {
                let (a, b) = (&pair[0], &pair[1]);
                let (xa, xb) = (self.x_of(a.t), self.x_of(b.t));
                self.shapes.push(line([xa, y_of(a.links[i].1[k])], [xb, y_of(b.links[i].1[k])], 1.0, faint, None));
                self.shapes.push(line([xa, y_of(a.links[i].0[k])], [xb, y_of(b.links[i].0[k])], 2.0, solid, None));
            }
        }
        let size = self.text.min((y1 - y0) * 0.55);
        let at = [left + pad, y0 + ascent_descent(size).0];
        let (min, max) = text_box(name, size, at, Align::Left);
        let backing = [0.97, 0.96, 0.94, 0.85];
        let (min, max) = ([min[0] - 2.0, min[1] - 1.0], [max[0] + 2.0, max[1] + 1.0]);
        self.shapes.push(Shape2d::Rect { min, max, radius: 2.0, border: 0.0, color: backing });
        self.label(at, size, Align::Left, INK, name.to_string());
    }

    /// A dashed line at each event shown, and its word where that keeps clear of the others.
    fn events(&mut self, spec: &CargoSpec, now: f64) {
        let t0 = self.t0;
        for e in spec.events.iter().filter(|e| e.at >= t0 && e.at <= now) {
            let label = match e.kind {
                EventKind::Load { .. } => "load",
                EventKind::Action { .. } => "action ×0.3",
                EventKind::Hitch { .. } => "hitch",
                EventKind::PutDown => "put down",
                EventKind::PickUp => "pick up",
            };
            let x = self.x_of(e.at);
            let dash = Some(Dash { on: 3.0, off: 3.0, phase: 0.0 });
            // from the first lane down: the spring labels above stay clear
            self.shapes.push(line([x, self.top], [x, self.bottom - self.pad], 1.0, [0.35, 0.35, 0.4, 0.8], dash));
            let (size, at) = (self.value, [x + 3.0, self.bottom - self.pad - 2.0]);
            let inside = text_box(label, size, at, Align::Left).1[0] <= self.right;
            if inside && self.clear(label, size, at, Align::Left) {
                self.label(at, size, Align::Left, INK, label.to_string());
            }
        }
    }

    /// The springs in force, one label per load in a row along the top: shrunk to fit the width,
    /// and shortened (without the gain, then without ζ, then the name alone) where shrinking
    /// would take them below [`MIN_TEXT`].
    fn springs(&mut self, spec: &CargoSpec, looks: &[LinkLook], laws: &[[super::spring::Law; 3]], gains: &[[f64; 3]], baseline: f32) {
        let gap = 3.0 * self.pad;
        let forms = |short: usize| -> Vec<String> {
            spec.links
                .iter()
                .enumerate()
                .map(|(i, link)| {
                    let hz = laws[i][0].omega / std::f64::consts::TAU;
                    match short {
                        0 => format!("{} {hz:.2} Hz ζ {:.2} gain {:.2}", link.name, laws[i][0].zeta, gains[i][0]),
                        1 => format!("{} {hz:.2} Hz ζ {:.2}", link.name, laws[i][0].zeta),
                        2 => format!("{} {hz:.2} Hz", link.name),
                        _ => link.name.clone(),
                    }
                })
                .collect()
        };
        let room = self.right - self.left;
        let fit = |labels: &[String]| {
            let gaps = gap * labels.len().saturating_sub(1) as f32;
            let total = labels.iter().map(|l| text_width(l, self.text)).sum::<f32>();
            self.text * ((room - gaps).max(0.0) / total.max(1e-6)).min(1.0)
        };
        let sized = |short: usize| {
            let labels = forms(short);
            let size = fit(&labels);
            (labels, size)
        };
        let (labels, size) = (0..3).map(sized).find(|(_, size)| *size >= MIN_TEXT).unwrap_or_else(|| sized(3));
        let mut x = self.left;
        for (link, label) in looks.iter().zip(labels) {
            let c = link.color.to_linear().map(|v| v * 0.8);
            let width = text_width(&label, size);
            self.label([x, baseline], size, Align::Left, [c[0], c[1], c[2], 1.0], label);
            x += width + gap;
        }
    }
}

/// Which component of a load's motion a trace shows (pitch, roll, lift), and its lane's name.
fn trace_row(trace: Trace) -> (usize, &'static str) {
    match trace {
        Trace::Pitch => (0, "pitch°"),
        Trace::Roll => (1, "roll°"),
        Trace::Lift => (2, "lift cm"),
    }
}

/// The strip chart along the bottom of the image: one lane per trace, each load's value (solid),
/// its target (thin), its limits (dashed), events marked, labels with the constants in force.
/// Every label fits the chart at any size: the margin is as wide as the widest limit, the limits
/// shrink to the lanes' height, the spring labels to the width.
fn chart(sim: &CargoSim, links: &[LinkLook], plot: &PlotLook, seconds: f64, stage: &Stage) -> Canvas2d {
    let spec = sim.spec();
    let (w, h) = (stage.width as f32, stage.height as f32);
    let top = h * (1.0 - plot.height as f32);
    let pad = (h * 0.012).max(3.0);
    let text = (h * 0.028).max(9.0);
    let now = sim.shown_time();
    let header = if plot.labels { text + pad } else { 0.0 };
    let lane_h = (h - top - pad - header) / plot.traces.len() as f32;
    // two limits a lane, one above the other, each the font's full height
    let (a, d) = ascent_descent(1.0);
    let value = (text * 0.85).min((lane_h - pad) / (2.0 * (a + d) + 0.1));
    let (_, laws, gains) = super::rig::laws(spec, now, stage.timing.duration());
    let widest = plot
        .traces
        .iter()
        .flat_map(|t| {
            let (k, _) = trace_row(*t);
            let lo = laws.iter().map(|l| l[k].lo).fold(0.0, f64::min);
            let hi = laws.iter().map(|l| l[k].hi).fold(0.0, f64::max);
            [format!("{hi:.1}"), format!("{lo:.1}")]
        })
        .map(|v| text_width(&v, value))
        .fold(0.0, f32::max);
    let mut strip = Strip {
        left: pad + widest + pad,
        right: w - pad,
        top: top + header + pad,
        bottom: h,
        pad,
        text,
        value,
        t0: (now - seconds).max(0.0),
        seconds,
        shapes: vec![Shape2d::Rect { min: [0.0, top], max: [w, h], radius: 0.0, border: 0.0, color: [0.97, 0.96, 0.94, 0.92] }],
        texts: Vec::new(),
    };
    if plot.labels {
        strip.springs(spec, links, &laws, &gains, top + pad + ascent_descent(text).0);
    }
    for (lane, trace) in plot.traces.iter().enumerate() {
        let (k, name) = trace_row(*trace);
        let y0 = top + header + pad + lane as f32 * lane_h;
        strip.lane(sim, links, &laws, k, name, (y0, y0 + lane_h - pad));
    }
    strip.events(spec, now);
    Canvas2d { size: [w, h], static_layer: None, shapes: strip.shapes, texts: strip.texts }
}
