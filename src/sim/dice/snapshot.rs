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

/// Longest list a dice snapshot holds (dice, readings): far beyond any table.
const MOST: usize = 4096;

pub fn put_f64s(w: &mut Writer, v: &[f64]) {
    for &x in v {
        w.f64(x);
    }
}

pub fn get_f64s<const N: usize>(r: &mut Reader) -> Option<[f64; N]> {
    let mut out = [0.0; N];
    for x in &mut out {
        *x = r.f64()?;
    }
    Some(out)
}

pub fn put_bool(w: &mut Writer, b: bool) {
    w.u32(b as u32);
}

pub fn get_bool(r: &mut Reader) -> Option<bool> {
    match r.u32()? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    }
}

pub fn put_bools(w: &mut Writer, v: &[bool]) {
    w.count(v.len());
    for &b in v {
        put_bool(w, b);
    }
}

pub fn get_bools(r: &mut Reader) -> Option<Vec<bool>> {
    let n = r.count(4)?;
    (n <= MOST).then_some(())?;
    (0..n).map(|_| get_bool(r)).collect()
}

pub fn put_opt_f64(w: &mut Writer, v: Option<f64>) {
    put_bool(w, v.is_some());
    w.f64(v.unwrap_or(0.0));
}

pub fn get_opt_f64(r: &mut Reader) -> Option<Option<f64>> {
    let some = get_bool(r)?;
    let v = r.f64()?;
    Some(some.then_some(v))
}

pub fn put_pack(w: &mut Writer, p: &Pack) {
    for field in [&p.x, &p.prev, &p.v] {
        for particle in field.iter() {
            for lane in particle {
                put_f64s(w, lane);
            }
        }
    }
    for lane in p.w.iter().chain([&p.edge_compliance, &p.gravity, &p.arena]) {
        put_f64s(w, lane);
    }
    for q in &p.q {
        put_f64s(w, q);
    }
    for m in &p.r {
        for row in m {
            put_f64s(w, row);
        }
    }
    for c in &p.centroid {
        put_f64s(w, c);
    }
}

pub fn get_pack(r: &mut Reader) -> Option<Pack> {
    let mut p = Pack::default();
    for field in [&mut p.x, &mut p.prev, &mut p.v] {
        for particle in field.iter_mut() {
            for lane in particle {
                *lane = get_f64s(r)?;
            }
        }
    }
    for lane in p.w.iter_mut() {
        *lane = get_f64s(r)?;
    }
    (p.edge_compliance, p.gravity, p.arena) = (get_f64s(r)?, get_f64s(r)?, get_f64s(r)?);
    for q in &mut p.q {
        *q = get_f64s(r)?;
    }
    for m in &mut p.r {
        for row in m.iter_mut() {
            *row = get_f64s(r)?;
        }
    }
    for c in &mut p.centroid {
        *c = get_f64s(r)?;
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
    put_bool(w, g.is_some());
    let g = g.unwrap_or(Grab { die: 0, particle: 0, target: [0.0; 3] });
    w.u64(g.die as u64).u64(g.particle as u64);
    put_f64s(w, &g.target);
}

pub fn get_grab(r: &mut Reader, dice: usize) -> Option<Option<Grab>> {
    let some = get_bool(r)?;
    let (die, particle) = (usize::try_from(r.u64()?).ok()?, usize::try_from(r.u64()?).ok()?);
    let target = get_f64s(r)?;
    if !some {
        return Some(None);
    }
    (die < dice && particle < PARTICLES).then_some(Some(Grab { die, particle, target }))
}

pub fn put_outcome(w: &mut Writer, o: Option<&RollOutcome>) {
    put_bool(w, o.is_some());
    if let Some(o) = o {
        put_readings(w, &o.readings);
        w.f64(o.first_settle_s).f64(o.settle_s).u32(o.nudges).u32(o.fence_contacts);
        put_bools(w, &o.die_contacts);
        put_bool(w, o.settled);
    }
}

pub fn get_outcome(r: &mut Reader) -> Option<Option<RollOutcome>> {
    if !get_bool(r)? {
        return Some(None);
    }
    let readings = get_readings(r)?;
    let (first_settle_s, settle_s, nudges, fence_contacts) = (r.f64()?, r.f64()?, r.u32()?, r.u32()?);
    let (die_contacts, settled) = (get_bools(r)?, get_bool(r)?);
    Some(Some(RollOutcome { readings, first_settle_s, settle_s, nudges, fence_contacts, die_contacts, settled }))
}

pub fn put_particles(w: &mut Writer, p: Option<&[V3; PARTICLES]>) {
    put_bool(w, p.is_some());
    if let Some(p) = p {
        for x in p {
            put_f64s(w, x);
        }
    }
}

#[allow(clippy::type_complexity)]
pub fn get_particles(r: &mut Reader) -> Option<Option<Box<[V3; PARTICLES]>>> {
    if !get_bool(r)? {
        return Some(None);
    }
    let mut p = Box::new([[0.0; 3]; PARTICLES]);
    for x in p.iter_mut() {
        *x = get_f64s(r)?;
    }
    Some(Some(p))
}
