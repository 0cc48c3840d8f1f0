//! The dice's state as a snapshot ([`crate::sim::snapshot`]): every pack's particles (positions,
//! previous positions, velocities, inverse masses) and orientations, every roller's roll (its
//! phase, timers, readings, grab, contacts, outcome, random stream, sleeping dice) and the table's
//! clock; the driver adds its script's progress. Meshes and constants come from the scene. The
//! pieces here are the plain ones; each type writes its private fields itself.

use super::math::V3;
use super::model::PARTICLES;
use super::pack::Pack;
use super::roller::{Grab, Reading, RollOutcome};
use crate::sim::snapshot::{Reader, Writer};

/// Bumped whenever the layout of any dice snapshot changes.
pub const LAYOUT: u32 = 1;

pub fn put_bools(w: &mut Writer, v: &[bool]) {
    w.count(v.len());
    for &b in v {
        w.bool(b);
    }
}

pub fn get_bools(r: &mut Reader) -> Option<Vec<bool>> {
    (0..r.count(4)?).map(|_| r.bool()).collect()
}

pub fn put_opt_f64(w: &mut Writer, v: Option<f64>) {
    w.bool(v.is_some());
    w.f64(v.unwrap_or(0.0));
}

pub fn get_opt_f64(r: &mut Reader) -> Option<Option<f64>> {
    let some = r.bool()?;
    let v = r.f64()?;
    Some(some.then_some(v))
}

pub fn put_pack(w: &mut Writer, p: &Pack) {
    for field in [&p.x, &p.prev, &p.v] {
        for particle in field.iter() {
            for lane in particle {
                w.f64s(lane);
            }
        }
    }
    for lane in p.w.iter().chain([&p.edge_compliance, &p.gravity, &p.arena]) {
        w.f64s(lane);
    }
    for q in &p.q {
        w.f64s(q);
    }
    for m in &p.r {
        for row in m {
            w.f64s(row);
        }
    }
    for c in &p.centroid {
        w.f64s(c);
    }
}

pub fn get_pack(r: &mut Reader) -> Option<Pack> {
    let mut p = Pack::default();
    for field in [&mut p.x, &mut p.prev, &mut p.v] {
        for particle in field.iter_mut() {
            for lane in particle {
                *lane = r.f64s()?;
            }
        }
    }
    for lane in p.w.iter_mut() {
        *lane = r.f64s()?;
    }
    (p.edge_compliance, p.gravity, p.arena) = (r.f64s()?, r.f64s()?, r.f64s()?);
    for q in &mut p.q {
        *q = r.f64s()?;
    }
    for m in &mut p.r {
        for row in m.iter_mut() {
            *row = r.f64s()?;
        }
    }
    for c in &mut p.centroid {
        *c = r.f64s()?;
    }
    Some(p)
}

pub fn put_readings(w: &mut Writer, v: &[Reading]) {
    w.count(v.len());
    for x in v {
        w.u32(x.value as u32).f64(x.confidence);
    }
}

pub fn get_readings(r: &mut Reader) -> Option<Vec<Reading>> {
    let n = r.count(12)?;
    (0..n).map(|_| Some(Reading { value: u8::try_from(r.u32()?).ok()?, confidence: r.f64()? })).collect()
}

pub fn put_grab(w: &mut Writer, g: Option<Grab>) {
    w.bool(g.is_some());
    let g = g.unwrap_or(Grab { die: 0, particle: 0, target: [0.0; 3] });
    w.u64(g.die as u64).u64(g.particle as u64);
    w.f64s(&g.target);
}

pub fn get_grab(r: &mut Reader, dice: usize) -> Option<Option<Grab>> {
    let some = r.bool()?;
    let (die, particle) = (usize::try_from(r.u64()?).ok()?, usize::try_from(r.u64()?).ok()?);
    let target = r.f64s()?;
    if !some {
        return Some(None);
    }
    (die < dice && particle < PARTICLES).then_some(Some(Grab { die, particle, target }))
}

pub fn put_outcome(w: &mut Writer, o: Option<&RollOutcome>) {
    w.bool(o.is_some());
    if let Some(o) = o {
        put_readings(w, &o.readings);
        w.f64(o.first_settle_s).f64(o.settle_s).u32(o.nudges).u32(o.fence_contacts);
        put_bools(w, &o.die_contacts);
        w.bool(o.settled);
    }
}

pub fn get_outcome(r: &mut Reader) -> Option<Option<RollOutcome>> {
    if !r.bool()? {
        return Some(None);
    }
    let readings = get_readings(r)?;
    let (first_settle_s, settle_s, nudges, fence_contacts) = (r.f64()?, r.f64()?, r.u32()?, r.u32()?);
    let (die_contacts, settled) = (get_bools(r)?, r.bool()?);
    Some(Some(RollOutcome { readings, first_settle_s, settle_s, nudges, fence_contacts, die_contacts, settled }))
}

pub fn put_particles(w: &mut Writer, p: Option<&[V3; PARTICLES]>) {
    w.bool(p.is_some());
    if let Some(p) = p {
        for x in p {
            w.f64s(x);
        }
    }
}

#[allow(clippy::type_complexity)]
pub fn get_particles(r: &mut Reader) -> Option<Option<Box<[V3; PARTICLES]>>> {
    if !r.bool()? {
        return Some(None);
    }
    let mut p = Box::new([[0.0; 3]; PARTICLES]);
    for x in p.iter_mut() {
        *x = r.f64s()?;
    }
    Some(Some(p))
}
