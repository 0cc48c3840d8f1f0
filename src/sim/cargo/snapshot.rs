//! The cargo scene's state as a snapshot ([`crate::sim::snapshot`]): everything a game frame reads
//! or changes — the springs, the game clock with the hitches still to come, the exact
//! integrator's frozen interval, the difference input's history, the events applied, the ground
//! jige's timer, the targets, the counters and the chart's recent samples. The route, the rig and
//! the constants come from the scene.

use glam::DVec3;

use super::rig::Targets;
use super::spring::{Dof, Law, Region};
use super::{CargoSim, Counters, Sample, State};
use crate::sim::snapshot::{Reader, Writer};

/// Bumped whenever the layout below changes.
const LAYOUT: u32 = 2;

fn put_state(w: &mut Writer, s: &State) {
    for d in s.dofs() {
        w.f64(d.x).f64(d.v);
    }
}

fn get_dof(r: &mut Reader) -> Option<Dof> {
    Some(Dof { x: r.f64()?, v: r.f64()? })
}

fn get_state(r: &mut Reader, n: usize) -> Option<State> {
    let frame = [get_dof(r)?, get_dof(r)?];
    let links = (0..n).map(|_| Some([get_dof(r)?, get_dof(r)?, get_dof(r)?])).collect::<Option<Vec<_>>>()?;
    Some(State { frame, links })
}

fn put_targets(w: &mut Writer, t: &Targets) {
    for (v, g) in t.frame.iter().chain(t.links.iter().flatten()) {
        w.f64(*v).f64(g.k).f64(g.e).f64(g.c).bool(g.walled);
    }
    for l in t.frame_laws.iter().chain(t.link_laws.iter().flatten()) {
        w.f64(l.omega).f64(l.zeta).f64(l.lo).f64(l.hi).f64(l.wall[0]).f64(l.wall[1]).bool(l.floor);
    }
}

fn get_targets(r: &mut Reader, n: usize) -> Option<Targets> {
    let mut target = || Some((r.f64()?, Region { k: r.f64()?, e: r.f64()?, c: r.f64()?, walled: r.bool()? }));
    let frame = [target()?, target()?];
    let links = (0..n).map(|_| Some([target()?, target()?, target()?])).collect::<Option<Vec<_>>>()?;
    let mut law =
        || Some(Law { omega: r.f64()?, zeta: r.f64()?, lo: r.f64()?, hi: r.f64()?, wall: [r.f64()?, r.f64()?], floor: r.bool()? });
    let frame_laws = [law()?, law()?];
    let link_laws = (0..n).map(|_| Some([law()?, law()?, law()?])).collect::<Option<Vec<_>>>()?;
    Some(Targets { frame, links, frame_laws, link_laws })
}

fn put_vec(w: &mut Writer, v: DVec3) {
    w.f64s(&v.to_array());
}

fn get_vec(r: &mut Reader) -> Option<DVec3> {
    r.f64s().map(DVec3::from_array)
}

/// What a snapshot holds, read whole before any of it is taken.
struct Saved {
    shown: f64,
    clock: (f64, u64, (u32, f64), usize),
    now: f64,
    frozen: Option<(u64, Targets, State)>,
    outside: Vec<bool>,
    history: Vec<Option<(DVec3, DVec3)>>,
    applied: usize,
    awake_until: f64,
    asleep: bool,
    targets: Targets,
    counters: Counters,
    samples: Vec<Sample>,
    state: State,
}

impl CargoSim {
    pub(super) fn save(&self) -> Vec<u8> {
        let n = self.state.links.len();
        let mut w = Writer::new();
        w.u32(self.described).u32(LAYOUT).count(n).f64(self.keep()).f64(self.shown);
        let c = &self.clock;
        w.f64(c.base).u64(c.n).u32(c.hitch.0).f64(c.hitch.1).count(c.hitches.len());
        w.f64(self.now);
        match &self.frozen {
            Some((k, t, s)) => {
                w.u32(1).u64(*k);
                put_targets(&mut w, t);
                put_state(&mut w, s);
            }
            None => {
                w.u32(0);
            }
        }
        for &o in &self.outside {
            w.bool(o);
        }
        for h in &self.history {
            w.bool(h.is_some());
            if let Some((p, v)) = h {
                put_vec(&mut w, *p);
                put_vec(&mut w, *v);
            }
        }
        w.count(self.applied).f64(self.awake_until).bool(self.asleep);
        put_targets(&mut w, &self.targets);
        let k = &self.counters;
        w.u64(k.wall_entries).u64(k.teleports_ignored).u64(k.accel_clamps).f64(k.dropped).u64(k.resets);
        for &p in &k.peak_pitch {
            w.f64(p);
        }
        w.f64(k.beyond).f64(k.frame_peak);
        w.count(self.samples.len());
        for s in &self.samples {
            w.f64(s.t);
            for (a, b) in &s.links {
                for x in a.iter().chain(b) {
                    w.f64(*x);
                }
            }
        }
        put_state(&mut w, &self.state);
        w.finish()
    }

    /// Takes a snapshot of this scene taken at `frame`; false, with the state untouched, when the
    /// bytes do not fit (another layout, frame or scene, or cut short).
    pub(super) fn load(&mut self, frame: u32, bytes: &[u8]) -> bool {
        let Some(s) = self.read(frame, &mut Reader::new(bytes)) else { return false };
        let all = super::hitches_of(&self.spec);
        let (base, n, hitch, left) = s.clock;
        self.clock.base = base;
        self.clock.n = n;
        self.clock.hitch = hitch;
        self.clock.hitches = all[all.len() - left..].to_vec();
        (self.shown, self.now, self.frozen, self.outside, self.history) = (s.shown, s.now, s.frozen, s.outside, s.history);
        (self.applied, self.awake_until, self.asleep, self.targets) = (s.applied, s.awake_until, s.asleep, s.targets);
        (self.counters, self.samples, self.state) = (s.counters, s.samples, s.state);
        self.described = frame;
        true
    }

    fn read(&self, frame: u32, r: &mut Reader) -> Option<Saved> {
        let n = self.state.links.len();
        // the chart's history is kept for as long as this simulation keeps it
        if r.u32()? != frame || r.u32()? != LAYOUT || r.count(0)? != n || r.f64()?.to_bits() != self.keep().to_bits() {
            return None;
        }
        let shown = r.f64()?;
        let clock = (r.f64()?, r.u64()?, (r.u32()?, r.f64()?), r.count(0)?);
        // the game clock is the scene's: it is played again here (no springs, a few thousand
        // ticks at most) and the saved one must be the same to the bit, with the frame it shows
        let (at, expected) = self.clock_at(self.timing.time_of(frame));
        let same = (expected.base.to_bits(), expected.n, expected.hitch.0, expected.hitch.1.to_bits(), expected.hitches.len())
            == (clock.0.to_bits(), clock.1, clock.2.0, clock.2.1.to_bits(), clock.3);
        if !same || shown.to_bits() != at.to_bits() {
            return None;
        }
        let now = r.f64()?;
        // the springs' own time: the shown frame's end, or the grid point a hair after it
        if !(now >= shown - 1e-9 && now <= shown + 1e-9) {
            return None;
        }
        let frozen = match r.bool()? {
            true => Some((r.u64()?, get_targets(r, n)?, get_state(r, n)?)),
            false => None,
        };
        let outside = (0..self.outside.len()).map(|_| r.bool()).collect::<Option<Vec<_>>>()?;
        let history = (0..self.history.len())
            .map(|_| match r.bool()? {
                true => Some(Some((get_vec(r)?, get_vec(r)?))),
                false => Some(None),
            })
            .collect::<Option<Vec<_>>>()?;
        let applied = r.count(0)?;
        if applied > self.spec.events.len() {
            return None;
        }
        // never woken (minus infinity), or until a time of the scene's
        let awake_until = r.f64_any().filter(|&t| t == f64::NEG_INFINITY || t.abs() <= crate::sim::snapshot::BOUND)?;
        let (asleep, targets) = (r.bool()?, get_targets(r, n)?);
        let mut counters = Counters {
            wall_entries: r.u64()?,
            teleports_ignored: r.u64()?,
            accel_clamps: r.u64()?,
            dropped: r.f64()?,
            resets: r.u64()?,
            ..Counters::default()
        };
        counters.peak_pitch = (0..n).map(|_| r.f64()).collect::<Option<Vec<_>>>()?;
        (counters.beyond, counters.frame_peak) = (r.f64()?, r.f64()?);
        let samples = (0..r.count(8 + 48 * n)?)
            .map(|_| {
                let t = r.f64()?;
                let links =
                    (0..n).map(|_| Some(([r.f64()?, r.f64()?, r.f64()?], [r.f64()?, r.f64()?, r.f64()?]))).collect::<Option<Vec<_>>>()?;
                Some(Sample { t, links })
            })
            .collect::<Option<Vec<_>>>()?;
        // and no sample from before it, none after the shown frame, in time order
        if samples.first().is_some_and(|s| s.t < shown - self.keep() - 1e-9)
            || samples.last().is_some_and(|s| s.t > shown + 1e-9)
            || samples.windows(2).any(|w| w[1].t <= w[0].t)
        {
            return None;
        }
        let state = get_state(r, n)?;
        r.done().then_some(Saved {
            shown,
            clock,
            now,
            frozen,
            outside,
            history,
            applied,
            awake_until,
            asleep,
            targets,
            counters,
            samples,
            state,
        })
    }
}
