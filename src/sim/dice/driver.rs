//! The scene driver, `DiceSim`: a dice scene played out: throws at the scene's roll times, scripted
//! hands that grab, drag and release, and the results strip, all on the fixed 1/120 s clock of
//! [`Table`].

use crate::portable;
use std::sync::Arc;

use glam::DVec3;

use crate::frame::{Align, BezierVolume, Canvas2d, Fnv, FrameData, IDENTITY, Material, MeshInstance, MeshRef, Shape2d, Text2d};
use crate::scene::Timing;
use crate::scene::dice::{DiceLook, DiceSpec, Hold};
use crate::sim::{Drawing, KindPainter, KindSimulation, SimFault, SimInputs, Simulation, Stage, StateDigest};

use super::math::V3;
use super::orientation::corner_particle;
use super::roller::Phase;
use super::table::Table;
use super::throw::throw_stream;

/// The turn of a placed die: face `up` to +y, then `turn` about the vertical, then `tilt` toward
/// azimuth `toward`.
pub fn placed_rotation(p: &crate::scene::dice::PlaceSpec) -> super::math::Quat {
    use super::math::{quat_axis_angle, quat_mul, quat_normalize};
    let face = super::orientation::FACE_VALUE.iter().position(|&v| v == p.up).unwrap_or(2);
    let mut local = [0.0; 3];
    local[face / 2] = if face % 2 == 0 { 1.0 } else { -1.0 };
    // the shortest turn taking that local axis to +y (half a turn about x for −y)
    let up = if local[1] > 0.5 {
        [0.0, 0.0, 0.0, 1.0]
    } else if local[1] < -0.5 {
        quat_axis_angle([1.0, 0.0, 0.0], std::f64::consts::PI)
    } else {
        // axis = local × y, angle 90°
        let axis = [-local[2], 0.0, local[0]];
        quat_axis_angle(axis, std::f64::consts::FRAC_PI_2)
    };
    let turn = quat_axis_angle([0.0, 1.0, 0.0], p.turn.to_radians());
    // leaning toward azimuth a: the top moves along (cos a, 0, sin a), a turn about (sin a, 0, −cos a)·(−1)
    let a = p.toward.to_radians();
    let tilt = quat_axis_angle([-portable::sin(a), 0.0, portable::cos(a)], -p.tilt.to_radians());
    quat_normalize(quat_mul(tilt, quat_mul(turn, up)))
}

/// Spacing of the dice before the first throw.
const ROW_SPACING: f64 = 1.25;

/// Where die `i` of `n` rests before the first throw: rows of up to four, centred on the table.
pub fn resting_place(i: usize, n: usize, lift: f64) -> V3 {
    let cols = n.min(4);
    let rows = n.div_ceil(cols);
    let (r, c) = (i / cols, i % cols);
    let in_row = if r + 1 == rows { n - r * cols } else { cols };
    let x = (c as f64 - (in_row as f64 - 1.0) / 2.0) * ROW_SPACING;
    let z = (r as f64 - (rows as f64 - 1.0) / 2.0) * ROW_SPACING;
    [x, super::model::SIZE / 2.0 + lift, z]
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum HandState {
    Waiting,
    /// Holding; the held point started at `origin`.
    Holding {
        origin: V3,
    },
    Done,
}

pub struct DiceSim {
    spec: DiceSpec,
    timing: Timing,
    table: Table,
    rolls_done: usize,
    hands: Vec<HandState>,
    fault: Option<SimFault>,
    frame: u32,
    /// Whether the dice have been read at least once (before that the strip shows dashes).
    read_once: bool,
}

impl KindSimulation for DiceSim {
    type Spec = DiceSpec;
    type Painter = DicePainter;

    fn new(inputs: &SimInputs<DiceSpec>, _: crate::sim::Builder) -> Self {
        let spec = inputs.spec;
        let mut table = Table::single(&spec.firmness, throw_stream(inputs.seed));
        let n = spec.count;
        for i in 0..n {
            table.place(0, i, resting_place(i, n, spec.drop), [0.0, 0.0, 0.0, 1.0]);
        }
        for p in &spec.places {
            table.place(0, p.die, p.at, placed_rotation(p));
            if p.asleep {
                table.sleep(0, p.die);
            }
        }
        if spec.places.is_empty() {
            table.settle_in_place(0, spec.drop == 0.0);
        } else {
            // staged dice are read, and nudged if cocked, once they have come to rest
            table.roll_from_here(0);
        }
        DiceSim {
            spec: spec.clone(),
            timing: inputs.timing,
            table,
            rolls_done: 0,
            hands: vec![HandState::Waiting; spec.grabs.len()],
            fault: None,
            frame: 0,
            read_once: spec.drop == 0.0,
        }
    }
}

impl DiceSim {
    /// The table (for tests and tools).
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// Each die's centre now, metres (a page picks the die under its pointer by them).
    pub fn centres(&self) -> Vec<[f64; 3]> {
        (0..self.spec.count).map(|d| self.table.pose(0, d).1).collect()
    }

    /// How far the most tipped die's up face leans from the vertical, degrees.
    pub fn lean_deg(&self) -> f64 {
        (0..self.spec.count)
            .map(|d| portable::acos(super::orientation::top_face(&self.table.pose(0, d).0).1.clamp(-1.0, 1.0)).to_degrees())
            .fold(0.0, f64::max)
    }

    /// Throws, grabs, drags and releases due at the table's current time. Calling it again at the
    /// same time changes nothing (a grab sets its drag target at once), so the state at a frame
    /// does not depend on which frames were asked for on the way: `advance_to` calls it once more
    /// at the frame's time, and again before the next step.
    fn apply_script(&mut self) {
        let now = self.table.time() + 1e-9;
        while self.rolls_done < self.spec.rolls.len() && self.spec.rolls[self.rolls_done] <= now {
            self.table.throw(0);
            self.rolls_done += 1;
            // a throw takes every die out of any hand
            for h in &mut self.hands {
                if matches!(h, HandState::Holding { .. }) {
                    *h = HandState::Done;
                }
            }
        }
        for (k, g) in self.spec.grabs.iter().enumerate() {
            match self.hands[k] {
                HandState::Waiting if g.at <= now => {
                    let pos = self.table.particles(0, g.die);
                    let p = match g.hold {
                        Hold::Particle(p) => p as usize,
                        Hold::Corner(c) => corner_particle(c.map(|x| x as usize)),
                        Hold::TopCorner => (0..8)
                            .map(|c| corner_particle([c & 1, (c >> 1) & 1, (c >> 2) & 1]))
                            .max_by(|&a, &b| pos[a][1].total_cmp(&pos[b][1]))
                            .unwrap_or(0),
                    };
                    let lattice = self.table.roller(0).particle_at(g.die, p);
                    self.table.grab(0, g.die, lattice);
                    self.hands[k] = HandState::Holding { origin: pos[p] };
                    let off = path_offset(&g.path, now);
                    self.table.drag(0, [pos[p][0] + off[0], (pos[p][1] + off[1]).max(0.02), pos[p][2] + off[2]]);
                }
                HandState::Holding { .. } if g.release <= now => {
                    self.table.release(0);
                    self.hands[k] = HandState::Done;
                }
                HandState::Holding { origin } => {
                    let off = path_offset(&g.path, now);
                    self.table.drag(0, [origin[0] + off[0], (origin[1] + off[1]).max(0.02), origin[2] + off[2]]);
                }
                _ => {}
            }
        }
    }

    fn advance_to(&mut self, time: f64) {
        while self.table.clock().is_behind(time) {
            self.apply_script();
            self.table.step();
            let roller = self.table.roller(0);
            self.read_once |= roller.phase() == Phase::Settled && !roller.is_stale();
        }
        self.apply_script();
        // a non-finite position never heals, so one look per frame finds it
        if self.fault.is_none() {
            let bad = (0..self.spec.count).find(|&d| self.table.particles(0, d).iter().flatten().any(|x| !x.is_finite()));
            if let Some(d) = bad {
                self.fault = Some(SimFault { frame: self.frame, what: format!("die {} has a non-finite particle position", d + 1) });
            }
        }
    }

    /// What each die reads (die by die), and whether that reading is stale: while rolling,
    /// before the first reading, or when a die was moved after it.
    pub fn readings(&self) -> (Vec<u8>, bool) {
        let roller = self.table.roller(0);
        let stale = roller.is_stale() || roller.phase() != Phase::Settled || !self.read_once;
        (roller.readings().iter().map(|r| r.value).collect(), stale)
    }
}

/// Draws the dice: jelly bodies in their colours, pips, the floor, and the results strip read
/// left to right as the camera sees them.
pub struct DicePainter {
    stage: Stage,
    look: DiceLook,
    body: MeshRef,
    pips: MeshRef,
    floor: MeshRef,
}

impl KindPainter for DicePainter {
    type Sim = DiceSim;

    fn new(_: &DiceSim, drawing: &Drawing<DiceLook>, _: crate::sim::PainterBuilder) -> Self {
        let pip = drawing.kind.pip_color.to_linear();
        let floor_color = drawing.look.background_bottom.to_linear().map(|c| c * 0.82);
        DicePainter {
            stage: drawing.stage(),
            look: drawing.kind.clone(),
            body: MeshRef::new(super::mesh::body()),
            pips: MeshRef::new(super::mesh::pips(pip)),
            floor: MeshRef::new(super::mesh::floor(7.0, floor_color)),
        }
    }

    fn paint(&mut self, sim: &DiceSim, frame: u32) -> FrameData {
        let mut meshes = vec![MeshInstance {
            mesh: self.floor.clone(),
            transform: IDENTITY,
            material: Material { roughness: 0.9, specular: 0.04, casts_shadow: false, ..Material::default() },
            deform: None,
        }];
        let volumes: Vec<BezierVolume> = (0..sim.spec.count)
            .map(|d| {
                let p = sim.table.particles(0, d);
                BezierVolume { control: Arc::new(std::array::from_fn(|i| p[i].map(|x| x as f32))) }
            })
            .collect();
        for v in &volumes {
            meshes.push(MeshInstance {
                mesh: self.pips.clone(),
                transform: IDENTITY,
                material: Material { roughness: 0.5, specular: 0.2, casts_shadow: false, receives_shadow: false, ..Material::default() },
                deform: Some(v.clone()),
            });
        }
        let opacity = self.look.opacity as f32;
        for (d, v) in volumes.into_iter().enumerate() {
            let c = self.look.colors[d].to_linear();
            meshes.push(MeshInstance {
                mesh: self.body.clone(),
                transform: IDENTITY,
                material: Material {
                    tint: [c[0], c[1], c[2], opacity],
                    roughness: 0.7,
                    specular: 0.3,
                    casts_shadow: true,
                    translucent: opacity < 1.0,
                    rim: 0.6,
                    receives_shadow: true,
                    ..Material::default()
                },
                deform: Some(v),
            });
        }
        self.stage.frame(frame, meshes, self.look.results.then(|| self.strip(sim, frame)))
    }
}

impl DicePainter {
    /// Die indices ordered left to right as the camera sees their centres at `frame`.
    pub fn screen_order(&self, sim: &DiceSim, frame: u32) -> Vec<usize> {
        let cam = self.stage.camera(frame);
        let world = |v: [f32; 3]| DVec3::from(v.map(f64::from));
        let eye = world(cam.eye);
        let unit = |a: DVec3| a / a.length().max(1e-12);
        let fwd = unit(world(cam.target) - eye);
        let right = unit(fwd.cross(world(cam.up)));
        let mut keyed: Vec<(f64, usize)> = (0..sim.spec.count)
            .map(|d| {
                let c = DVec3::from(sim.table.pose(0, d).1) - eye;
                (c.dot(right) / c.dot(fwd).max(1e-6), d)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().map(|(_, d)| d).collect()
    }

    /// What the results strip shows: (die, value) left to right, and whether it is stale.
    pub fn results(&self, sim: &DiceSim, frame: u32) -> (Vec<(usize, u8)>, bool) {
        let (values, stale) = sim.readings();
        (self.screen_order(sim, frame).into_iter().map(|d| (d, values[d])).collect(), stale)
    }

    fn strip(&self, sim: &DiceSim, frame: u32) -> Canvas2d {
        let (w, h) = (self.stage.width as f32, self.stage.height as f32);
        let (values, stale) = self.results(sim, frame);
        // dashes until the dice have been read, and while a throw has not produced its result
        let roller = sim.table.roller(0);
        let never_read = !sim.read_once || (roller.phase() == Phase::Rolling && roller.outcome().is_none());
        let chip = (h * 0.075).clamp(10.0, 64.0);
        let gap = chip * 0.45;
        let n = values.len() as f32;
        let y = h - chip * 1.05;
        let span = n * chip + (n - 1.0) * gap;
        let x0 = (w - span) / 2.0 + chip / 2.0;
        let mut shapes = vec![Shape2d::Line {
            a: [x0 - chip * 0.2, y],
            b: [x0 + span - chip * 0.8, y],
            width: chip * 1.45,
            color_a: [0.02, 0.02, 0.03, 0.42],
            color_b: [0.02, 0.02, 0.03, 0.42],
            dash: None,
        }];
        let mut texts = Vec::new();
        let alpha = if stale { 0.35 } else { 1.0 };
        for (k, &(die, value)) in values.iter().enumerate() {
            let cx = x0 + k as f32 * (chip + gap);
            let c = self.look.colors[die].to_linear();
            shapes.push(Shape2d::Circle { center: [cx, y], radius: chip / 2.0, color: [c[0], c[1], c[2], alpha] });
            let label = if never_read { "–".to_string() } else { value.to_string() };
            texts.push(Text2d {
                at: [cx, y + chip * 0.24],
                size: chip * 0.66,
                align: Align::Center,
                color: [1.0, 1.0, 1.0, if stale { 0.55 } else { 1.0 }],
                text: label,
            });
        }
        if !stale && !never_read {
            let total: u32 = values.iter().map(|v| v.1 as u32).sum();
            texts.push(Text2d {
                at: [x0 + span - chip * 0.5 + gap * 1.2, y + chip * 0.2],
                size: chip * 0.5,
                align: Align::Left,
                color: [0.05, 0.05, 0.07, 0.9],
                text: format!("= {total}"),
            });
        }
        Canvas2d { size: [w, h], static_layer: None, shapes, texts }
    }
}

/// The held point's offset at `time` along a path of (time, offset) keys, linear in between; zero
/// before the first key is reached (the hand starts where it grabbed).
pub fn path_offset(path: &[(f64, [f64; 3])], time: f64) -> [f64; 3] {
    let mut prev = (f64::NEG_INFINITY, [0.0; 3]);
    for &(t, off) in path {
        if time < t {
            if prev.0 == f64::NEG_INFINITY {
                return [0.0; 3];
            }
            let u = (time - prev.0) / (t - prev.0);
            return std::array::from_fn(|a| prev.1[a] + (off[a] - prev.1[a]) * u);
        }
        prev = (t, off);
    }
    prev.1
}

impl Simulation for DiceSim {
    fn advance(&mut self, frame: u32) {
        self.frame = frame;
        self.advance_to(self.timing.time_of(frame));
    }

    fn fault(&self) -> Option<SimFault> {
        self.fault.clone()
    }

    fn snapshot(&self) -> Option<Vec<u8>> {
        use super::snapshot::LAYOUT;
        if self.fault.is_some() {
            return None; // a broken state is not worth carrying on from
        }
        let mut w = crate::sim::snapshot::Writer::new();
        w.u32(self.frame).u32(LAYOUT);
        self.table.save(&mut w);
        w.count(self.rolls_done).count(self.hands.len());
        for h in &self.hands {
            let (tag, origin) = match h {
                HandState::Waiting => (0, [0.0; 3]),
                HandState::Holding { origin } => (1, *origin),
                HandState::Done => (2, [0.0; 3]),
            };
            w.u32(tag);
            w.f64s(&origin);
        }
        w.bool(self.read_once);
        Some(w.finish())
    }

    fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        use super::snapshot::LAYOUT;
        let mut r = crate::sim::snapshot::Reader::new(bytes);
        // the clock after describing `frame`: the last step at or before its time
        let steps = self.table.clock().steps_at(self.timing.time_of(frame));
        let read = (|| {
            if r.u32()? != frame || r.u32()? != LAYOUT || self.fault.is_some() {
                return None;
            }
            let table = self.table.read(&mut r, steps)?;
            let rolls_done = r.count(0)?;
            if r.count(0)? != self.hands.len() {
                return None;
            }
            let hands = (0..self.hands.len())
                .map(|_| match (r.u32()?, r.f64s::<3>()?) {
                    (0, _) => Some(HandState::Waiting),
                    (1, origin) => Some(HandState::Holding { origin }),
                    (2, _) => Some(HandState::Done),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()?;
            let read_once = r.bool()?;
            r.done().then_some((table, rolls_done, hands, read_once))
        })();
        let Some((table, rolls_done, hands, read_once)) = read else { return false };
        self.table.take(steps, table);
        (self.rolls_done, self.hands, self.read_once, self.frame) = (rolls_done, hands, read_once, frame);
        true
    }

    fn digest(&self) -> StateDigest {
        let mut h = Fnv::new();
        for d in 0..self.spec.count {
            for p in self.table.particles(0, d) {
                for x in p {
                    h.bytes(&x.to_bits().to_le_bytes());
                }
            }
        }
        let roller = self.table.roller(0);
        // die by die: the order on screen is the drawing's
        let (values, stale) = self.readings();
        let shown: Vec<String> = values.iter().map(u8::to_string).collect();
        let mut facts: Vec<(String, String)> = vec![
            ("time".into(), format!("{:.4}", self.table.time())),
            ("phase".into(), format!("{:?}", roller.phase()).to_lowercase()),
            ("faces".into(), shown.join(" ")),
            ("stale".into(), stale.to_string()),
            ("nudges".into(), roller.total_nudges().to_string()),
        ];
        if !self.spec.places.is_empty() {
            // how far the most tipped die leans from lying flat, degrees: what a staged scene is
            // about (thrown scenes keep the digest they always had)
            facts.push(("lean".into(), format!("{:.0}", self.lean_deg())));
        }
        StateDigest { hash: h.finish(), facts }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::frame::Shape2d;
    use crate::kinds::Played;
    use crate::scene::{self, Scene};
    use crate::sim::dice::math::{norm, sub};
    use crate::sim::dice::model::TOPOLOGY;
    use crate::sim::dice::orientation::top_face;
    use crate::sim::dice::stats::{self, StudySpec};

    fn sim(text: &str) -> (Scene, Played<DiceSim>) {
        let s = scene::parse(text, Path::new("test.toml")).unwrap_or_else(|e| panic!("{e}"));
        let d = Played::of(&s).expect("a dice scene");
        (s, d)
    }

    fn shipped(name: &str) -> (Scene, Played<DiceSim>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name);
        sim(&std::fs::read_to_string(path).unwrap())
    }

    /// Longest and shortest link of die `d` relative to rest length.
    fn stretch(t: &Table, d: usize) -> (f64, f64) {
        let (pk, lane) = t.die(0, d);
        let mut range = (0.0f64, f64::INFINITY);
        for l in &TOPOLOGY.links {
            let a = pk.x_of(lane, l.a as usize);
            let b = pk.x_of(lane, l.b as usize);
            let r = norm(sub(a, b)) / l.rest;
            range = (range.0.max(r), range.1.min(r));
        }
        range
    }

    #[test]
    fn a_scene_replays_the_study_roll_of_its_seed() {
        // `dice stats --seeds 7 --dice 3` rolls the same first throw as a scene with seed 7
        let spec = StudySpec { dice: 3, seeds: (7, 7), rolls_per_seed: 1, firmness: 55.0 };
        let study = stats::run(&spec, &|| {});
        let expected: Vec<u8> = study.rolls[0].outcome.readings.iter().map(|r| r.value).collect();
        let (_, mut d) =
            sim("kind = \"dice\"\nseed = 7\n[render]\nfps = 30\nduration = 12.0\n[dice]\ncount = 3\nrolls = [0.0]\nresults = false\n");
        d.frame(359);
        let roller = d.table().roller(0);
        assert_eq!(roller.phase(), Phase::Settled);
        let got: Vec<u8> = roller.readings().iter().map(|r| r.value).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn the_strip_lists_the_physics_readings_left_to_right() {
        let (s, mut d) = shipped("dice.toml");
        let last = s.sim.timing.frames - 1;
        let frame = d.frame(last);
        let (values, stale) = d.painter.results(&d.sim, last);
        assert!(!stale, "the dice have settled by the last frame");
        // each value is what top_face reads from that die's rotation
        for &(die, value) in &values {
            let (r, _) = d.table().pose(0, die);
            assert_eq!(top_face(&r).0, value, "die {die}");
        }
        // left to right on screen: project the centres with the frame's camera
        let cam = frame.camera;
        let view = glam::Mat4::look_at_rh(cam.eye.into(), cam.target.into(), cam.up.into());
        let xs: Vec<f32> = values
            .iter()
            .map(|&(die, _)| {
                let c = d.table().pose(0, die).1;
                let v = view.transform_point3(glam::Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32));
                v.x / -v.z
            })
            .collect();
        assert!(xs.windows(2).all(|w| w[0] <= w[1]), "not left to right: {xs:?}");
        // one chip and one number per die, plus the total
        let canvas = frame.canvas.expect("results strip");
        let chips = canvas.shapes.iter().filter(|s| matches!(s, Shape2d::Circle { .. })).count();
        assert_eq!(chips, 5);
        let labels: Vec<&str> = canvas.texts.iter().map(|t| t.text.as_str()).collect();
        let shown: Vec<String> = values.iter().map(|v| v.1.to_string()).collect();
        assert_eq!(&labels[..5], &shown.iter().map(String::as_str).collect::<Vec<_>>()[..]);
        let total: u32 = values.iter().map(|v| v.1 as u32).sum();
        assert_eq!(labels[5], format!("= {total}"));
    }

    #[test]
    fn the_strip_dims_while_rolling_and_before_the_first_reading() {
        let (_, mut d) = shipped("dice.toml");
        let f = d.frame(30); // 1 s: the dice are in the air
        assert!(d.painter.results(&d.sim, 30).1, "stale while rolling");
        let canvas = f.canvas.unwrap();
        assert!(canvas.texts.iter().all(|t| t.color[3] < 0.6), "numbers are dimmed while stale");
        assert!(canvas.texts.len() == 5, "no total while stale");
        // the values read before the throw are not this roll's: dashes until it settles
        assert!(canvas.texts.iter().all(|t| t.text == "–"), "{:?}", canvas.texts);
        let (s, mut d) = shipped("dice.toml");
        let before = d.frame(0).canvas.unwrap();
        assert!(before.texts.iter().take(5).all(|t| t.text == "1" && t.color[3] == 1.0), "at rest, read: 1s");
        let last = d.frame(s.sim.timing.frames - 1).canvas.unwrap();
        assert!(last.texts.iter().take(5).all(|t| t.text.parse::<u8>().is_ok_and(|v| (1..=6).contains(&v))));
    }

    #[test]
    fn a_pull_stretches_the_die_marks_results_stale_and_it_recovers() {
        let (s, mut d) = shipped("dice_pull.toml");
        let fps = s.sim.timing.fps as f64;
        d.frame(0);
        assert!(!d.painter.results(&d.sim, 0).1, "a die at rest is read");
        let hold = (1.5 * fps) as u32;
        d.frame(hold);
        assert!(d.painter.results(&d.sim, hold).1, "grabbed: stale");
        let (long, short) = stretch(d.table(), 0);
        eprintln!("pull: longest link {long:.3}×, shortest {short:.3}×");
        assert!(long > 1.15, "the pull stretches the die: longest link {long:.3}×");
        assert!(long <= crate::sim::dice::model::STRETCH_MAX * 1.01 && short >= crate::sim::dice::model::STRETCH_MIN * 0.99);
        let last = s.sim.timing.frames - 1;
        d.frame(last);
        let (long, short) = stretch(d.table(), 0);
        assert!(long < 1.03 && short > 0.97, "wobbled back to its rest shape: {short:.3}..{long:.3}");
        let (values, stale) = d.painter.results(&d.sim, last);
        assert!(!stale, "re-read once still");
        assert_eq!(values[0].1, top_face(&d.table().pose(0, 0).0).0);
    }

    #[test]
    fn soft_dice_give_more_than_firm_ones() {
        let (s, mut d) = shipped("dice_firmness.toml");
        // both pulled the same way: the soft one stretches further
        let at = |t: f64| (t * s.sim.timing.fps as f64) as u32;
        d.frame(at(3.2));
        let soft = stretch(d.table(), 0).0;
        d.frame(at(5.2));
        let firm = stretch(d.table(), 1).0;
        eprintln!("pull stretch: soft {soft:.3}× vs firm {firm:.3}×");
        assert!(soft > firm + 0.05, "soft {soft:.3}× vs firm {firm:.3}×");
    }

    #[test]
    fn dice_frames_are_identical_run_to_run_and_on_any_thread_count() {
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
                let (_, mut d) = shipped("dice.toml");
                [0u32, 40, 100, 179].map(|f| (d.frame(f).digest(), d.digest().to_string()))
            })
        };
        let one = run(1);
        assert_eq!(one, run(1));
        assert_eq!(one, run(2));
        assert!(one[3].1.contains("faces"), "{}", one[3].1);
        assert_ne!(one[0].0, one[1].0);
    }

    #[test]
    fn path_offsets_interpolate_and_hold() {
        let path = [(1.0, [0.0, 0.0, 0.0]), (2.0, [1.0, 2.0, 0.0])];
        assert_eq!(path_offset(&path, 0.5), [0.0; 3]);
        assert_eq!(path_offset(&path, 1.5), [0.5, 1.0, 0.0]);
        assert_eq!(path_offset(&path, 9.0), [1.0, 2.0, 0.0]);
        assert_eq!(path_offset(&[], 3.0), [0.0; 3]);
    }

    #[test]
    fn resting_places_stay_inside_the_fence() {
        for n in 1..=crate::scene::dice::MAX_DICE {
            for i in 0..n {
                let p = resting_place(i, n, 0.0);
                // the die's far corner (half diagonal of its footprint) stays inside
                assert!(
                    portable::hypot(p[0].abs() + 0.5, p[2].abs() + 0.5) < crate::sim::dice::table::ARENA_R,
                    "{n} dice: die {i} at {p:?}"
                );
            }
        }
    }

    #[test]
    fn placed_dice_show_the_face_asked_for_and_lean_as_told() {
        for up in 1..=6u8 {
            for turn in [0.0, 37.0] {
                let p = crate::scene::dice::PlaceSpec { die: 0, at: [0.0; 3], up, turn, tilt: 0.0, toward: 0.0, asleep: false };
                let (value, confidence) = top_face(&crate::sim::dice::math::quat_to_matrix(placed_rotation(&p)));
                assert_eq!(value, up, "turn {turn}");
                assert!((confidence - 1.0).abs() < 1e-12);
            }
        }
        // 40° toward +x: the up face tips by 40°, its top toward +x
        let p = crate::scene::dice::PlaceSpec { die: 0, at: [0.0; 3], up: 1, turn: 0.0, tilt: 40.0, toward: 0.0, asleep: false };
        let r = crate::sim::dice::math::quat_to_matrix(placed_rotation(&p));
        let (_, confidence) = top_face(&r);
        assert!((confidence - portable::cos(40f64.to_radians())).abs() < 1e-12);
        // the die's +y axis (face 1) now points up and toward +x
        assert!(r[0][1] > 0.6 && r[1][1] > 0.7 && r[2][1].abs() < 1e-12, "{r:?}");
    }

    #[test]
    fn a_sleeping_die_stays_put_until_it_is_read_cocked_and_nudged() {
        let (scene, mut d) = shipped_figure_part("dice_fence.toml");
        let start = d.table.particles(0, 0);
        d.frame(6);
        assert_eq!(d.table.particles(0, 0), start, "asleep: not a particle moved in 0.2 s");
        assert_eq!(d.lean_deg().round(), 40.0);
        let end = scene.sim.timing.frames - 1;
        d.frame(end);
        let roller = d.table.roller(0);
        assert_eq!(roller.total_nudges(), 1, "read as cocked and nudged once");
        assert!(d.lean_deg() < 5.0, "flat after the nudge: {}", d.lean_deg());
        assert_eq!(roller.phase(), Phase::Settled);
    }

    fn shipped_figure_part(name: &str) -> (Scene, Played<DiceSim>) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/figures/parts").join(name);
        sim(&std::fs::read_to_string(path).unwrap())
    }

    #[test]
    fn places_are_checked() {
        let problems = |body: &str| match scene::parse(&format!("kind = \"dice\"\n[dice]\ncount = 2\n{body}"), Path::new("p.toml")) {
            Err(crate::scene::SceneError::Invalid { diagnostics, .. }) => {
                diagnostics.into_iter().map(|d| d.message).collect::<Vec<_>>().join("\n")
            }
            Ok(_) => String::new(),
            Err(e) => panic!("{e}"),
        };
        assert!(problems("[[dice.place]]\ndie = 3\nat = [0, 1, 0]").contains("die 3 does not exist"));
        assert!(problems("[[dice.place]]\ndie = 1").contains("needs `at"));
        assert!(problems("[[dice.place]]\ndie = 1\nat = [0, -1, 0]").contains("on or above the table"));
        assert!(problems("[[dice.place]]\ndie = 1\nat = [0, 1, 0]\n[[dice.place]]\ndie = 1\nat = [1, 1, 0]").contains("placed twice"));
        assert!(problems("[[dice.place]]\ndie = 1\nat = [0, 1, 0]\nup = 7").contains("out of range"));
        assert_eq!(problems("[[dice.place]]\ndie = 2\nat = [0, 1, 0]\nup = 6\nasleep = true"), "");
    }
}
