//! The wind scene's state as a snapshot ([`crate::sim::snapshot`]): what a step reads and carries
//! to the next — the clock, each tree's spring (lean and its rate) and every blade being pressed
//! or springing back. The field, the blades' places and the trees come from the scene; this
//! moment's shapes are posed again from these.

use std::collections::BTreeMap;

use super::WindSim;
use super::grass::Pressed;
use crate::sim::snapshot::{Reader, Writer};

/// Bumped whenever the layout below changes.
const LAYOUT: u32 = 1;

impl WindSim {
    pub(super) fn save(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(LAYOUT).u64(self.clock.steps()).count(self.grove.trees.len());
        for t in &self.grove.trees {
            w.f64s(&t.bend).f64s(&t.rate);
        }
        w.count(self.meadow.pressed.len());
        for (&i, p) in &self.meadow.pressed {
            w.u32(i).f64(p.s).f64(p.v).f32s(&p.dir).f32(p.omega).f32(p.zeta);
        }
        w.finish()
    }

    /// Takes a snapshot of this scene taken at `frame`; false, with the state untouched, when the
    /// bytes do not fit (another layout, frame or scene, or cut short).
    pub(super) fn load(&mut self, frame: u32, bytes: &[u8]) -> bool {
        let Some((steps, trees, pressed)) = self.read(frame, &mut Reader::new(bytes)) else { return false };
        self.clock.set_steps(steps);
        for (t, (bend, rate)) in self.grove.trees.iter_mut().zip(trees) {
            (t.bend, t.rate) = (bend, rate);
        }
        self.meadow.pressed = pressed;
        // posed again now, so that the state (and its digest) is whole at once
        self.posed = None;
        self.advance_to(self.time());
        true
    }

    #[allow(clippy::type_complexity)]
    fn read(&self, frame: u32, r: &mut Reader) -> Option<(u64, Vec<([f64; 2], [f64; 2])>, BTreeMap<u32, Pressed>)> {
        // the clock's position after describing `frame`: the last step at or before its time
        let steps = self.clock.steps_at(self.timing.time_of(frame));
        let fits = r.u32()? == LAYOUT && r.u64()? == steps && r.count(32)? == self.grove.trees.len();
        if !fits {
            return None;
        }
        let trees = (0..self.grove.trees.len()).map(|_| Some((r.f64s()?, r.f64s()?))).collect::<Option<Vec<_>>>()?;
        let blades = self.meadow.len();
        let mut pressed = BTreeMap::new();
        for _ in 0..r.count(36)? {
            let i = r.u32()?;
            let p = Pressed { s: r.f64()?, v: r.f64()?, dir: r.f32s()?, omega: r.f32()?, zeta: r.f32()? };
            if i as usize >= blades || pressed.insert(i, p).is_some() {
                return None;
            }
        }
        r.done().then_some((steps, trees, pressed))
    }
}
