//! The carrier's route as a scene says it: legs walked one after another, hands that lead it
//! off them (`drags`), its gait; read from `[cargo.route]`.

use super::keys::*;
use super::portable;
use crate::scene::reader::TableReader;

/// One part of the route.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum Leg {
    /// Walk in a straight line to (x, z), starting and stopping at rest.
    To { to: [f64; 2], cruise: f64 },
    /// Stand still.
    Wait(f64),
    /// Vanish and reappear at (x, z) at once.
    Teleport([f64; 2]),
}

/// A hand leading the carrier off its route: from `at` it comes to rest (finishing a start or a
/// turn under way), turns and walks to `to`; the legs after that moment are dropped.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Drag {
    pub at: f64,
    pub to: [f64; 2],
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GaitSpec {
    /// Steps a second at cruise speed.
    pub step_hz: f64,
    /// Vertical bob once a step and lateral sway once a stride, metres at cruise speed.
    pub bob: f64,
    pub sway: f64,
    /// Forward lean per m/s² of acceleration, degrees.
    pub lean: f64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RouteSpec {
    pub start: [f64; 2],
    /// Heading at the start, degrees from +x toward +z.
    pub heading: f64,
    pub cruise: f64,
    /// Peak acceleration of a start or a stop, m/s².
    pub accel: f64,
    pub legs: Vec<Leg>,
    /// In time order.
    pub drags: Vec<Drag>,
    pub gait: GaitSpec,
}

pub(super) fn read_route(r: &TableReader) -> RouteSpec {
    let cruise = r.float(&CRUISE);
    let gait_t = r.table(&GAIT_KEY);
    let gait = GaitSpec { step_hz: gait_t.float(&STEP_HZ), bob: gait_t.float(&BOB), sway: gait_t.float(&SWAY), lean: gait_t.float(&LEAN) };
    gait_t.finish();
    // the legs before the first whose place could not be read (its problem is reported): from
    // there on where a leg starts is unknown, and "goes nowhere" would only echo that problem
    let (mut legs, mut placed) = (Vec::new(), None);
    for l in r.tables(&LEGS) {
        let n = [&TO, &WAIT, &TELEPORT].iter().filter(|k| l.has(k)).count();
        if n != 1 {
            l.error_here("a leg is one of { to = [x, z] }, { wait = seconds } or { teleport = [x, z] }");
        }
        if l.has(&LEG_CRUISE) && !l.has(&TO) {
            l.error_at(&LEG_CRUISE, "`cruise` is the walking speed of a `to` leg");
        }
        if l.has(&TO) {
            legs.push(Leg::To { to: l.numbers(&TO), cruise: l.float_or(&LEG_CRUISE, cruise) });
        } else if l.has(&WAIT) {
            legs.push(Leg::Wait(l.float(&WAIT)));
        } else if l.has(&TELEPORT) {
            legs.push(Leg::Teleport(l.numbers(&TELEPORT)));
        }
        if placed.is_none() && [&TO, &TELEPORT].iter().any(|k| l.failed(k)) {
            placed = Some(legs.len().saturating_sub(1));
        }
        l.finish();
    }
    let start = r.numbers(&START);
    let mut at = start;
    for (i, leg) in legs.iter().enumerate().take(placed.unwrap_or(legs.len())) {
        match leg {
            Leg::To { to, .. } if portable::hypot(to[0] - at[0], to[1] - at[1]) < 1e-3 => {
                r.error_at(&LEGS, format!("leg {i} goes nowhere: it ends where it starts ({:.2}, {:.2})", at[0], at[1]));
            }
            Leg::To { to, .. } | Leg::Teleport(to) => at = *to,
            Leg::Wait(_) => {}
        }
    }
    let mut drags: Vec<Drag> = Vec::new();
    for d in r.tables(&DRAGS) {
        if !d.has(&DRAG_AT) || !d.has(&DRAG_TO) {
            d.error_here("a drag is { at = seconds, to = [x, z] }");
        }
        let drag = Drag { at: d.float(&DRAG_AT), to: d.numbers(&DRAG_TO) };
        if drags.last().is_some_and(|last| drag.at <= last.at) {
            d.error_at(&DRAG_AT, format!("drags come in time order: {} s is not after the one before", drag.at));
        }
        drags.push(drag);
        d.finish();
    }
    let spec = RouteSpec { start, heading: r.float(&HEADING), cruise, accel: r.float(&ACCEL), legs, drags, gait };
    r.finish();
    spec
}
