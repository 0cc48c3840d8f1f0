//! The flock's state as a snapshot ([`crate::sim::snapshot`]): everything a step reads or
//! changes — agents with their random streams, pulses, packets, shock rings, the smoothed cursor,
//! the trail ring and the clock. The graph, the script and the constants come from the scene.

use super::world::{Agent, Cursor, Packet, Pulse, Shock, State, World};
use crate::sim::rng::Rng;
use crate::sim::snapshot::{Reader, Writer};

/// Bumped whenever the layout below changes.
const LAYOUT: u32 = 1;

impl World {
    pub fn snapshot(&self, w: &mut Writer) {
        w.u32(LAYOUT).count(self.agents.len()).count(self.trail_len).count(self.nodes.len());
        w.f64(self.time()).u64(self.steps());
        let c = &self.cursor;
        w.f32s(&c.raw).f32s(&c.smooth).f64(c.last_move).u32(c.alive as u32);
        for a in &self.agents {
            w.f32s(&a.pos).f32s(&a.vel).u32(a.state as u32).u32(a.target);
            w.f32s(&[a.timer, a.duration, a.cooldown, a.orbit_angle, a.orbit_dir, a.wander_phase]).u64(a.rng.state());
        }
        w.count(self.pulses.len());
        for p in &self.pulses {
            w.u32(p.node).f32(p.age);
        }
        w.count(self.packets.len());
        for p in &self.packets {
            w.u32(p.from).u32(p.to).f32(p.progress).f32(p.speed);
        }
        w.count(self.shocks.len());
        for s in &self.shocks {
            w.f32s(&s.pos).f32(s.age);
        }
        w.count(self.trail_head).count(self.trail_count);
        for p in &self.trail {
            w.f32s(p);
        }
    }

    /// Takes the state of a snapshot of this flock (the same agents, trail and graph) taken when
    /// it had advanced to `time`; false, with the world untouched, when the bytes do not fit (its
    /// clock must stand where advancing to `time` leaves it).
    pub fn restore(&mut self, r: &mut Reader, time: f64) -> bool {
        let Some(read) = self.read(r) else { return false };
        let (saved_time, steps, cursor, agents, pulses, packets, shocks, (head, count, trail)) = read;
        if steps != self.clock.steps_at(time) || saved_time != self.clock.time_of(steps) {
            return false;
        }
        self.clock.set_steps(steps);
        (self.cursor, self.agents, self.pulses, self.packets, self.shocks) = (cursor, agents, pulses, packets, shocks);
        (self.trail_head, self.trail_count, self.trail) = (head, count, trail);
        true
    }

    #[allow(clippy::type_complexity)]
    fn read(
        &self,
        r: &mut Reader,
    ) -> Option<(f64, u64, Cursor, Vec<Agent>, Vec<Pulse>, Vec<Packet>, Vec<Shock>, (usize, usize, Vec<[f32; 2]>))> {
        let (n, nodes) = (self.agents.len(), self.nodes.len());
        let fits = r.u32()? == LAYOUT && r.count(0)? == n && r.count(0)? == self.trail_len && r.count(0)? == nodes;
        if !fits {
            return None;
        }
        let (time, steps) = (r.f64()?, r.u64()?);
        // the cursor's last move: never (minus infinity), or a time of the scene's
        let (raw, smooth) = (r.f32s()?, r.f32s()?);
        let last_move = r.f64_any().filter(|&t| t == f64::NEG_INFINITY || t.abs() <= crate::sim::snapshot::BOUND)?;
        let cursor = Cursor { raw, smooth, last_move, alive: r.u32()? != 0 };
        let node = |v: u32| (nodes == 0 || (v as usize) < nodes).then_some(v);
        let mut agents = Vec::with_capacity(n);
        for _ in 0..n {
            let (pos, vel) = (r.f32s()?, r.f32s()?);
            let state = [State::Seek, State::Work, State::Curious].get(r.u32()? as usize).copied()?;
            let target = node(r.u32()?)?;
            let [timer, duration, cooldown, orbit_angle, orbit_dir, wander_phase] = r.f32s()?;
            let rng = Rng::new(r.u64()?);
            agents.push(Agent { pos, vel, state, target, timer, duration, cooldown, orbit_angle, orbit_dir, wander_phase, rng });
        }
        let pulses = (0..r.count(8)?).map(|_| Some(Pulse { node: node(r.u32()?)?, age: r.f32()? })).collect::<Option<Vec<_>>>()?;
        let packets = (0..r.count(16)?)
            .map(|_| Some(Packet { from: node(r.u32()?)?, to: node(r.u32()?)?, progress: r.f32()?, speed: r.f32()? }))
            .collect::<Option<Vec<_>>>()?;
        let shocks = (0..r.count(12)?).map(|_| Some(Shock { pos: r.f32s()?, age: r.f32()? })).collect::<Option<Vec<_>>>()?;
        let (head, count) = (r.count(0)?, r.count(0)?);
        if (self.trail_len > 0 && head >= self.trail_len) || count > self.trail_len {
            return None;
        }
        let trail = (0..self.trail.len()).map(|_| r.f32s()).collect::<Option<Vec<_>>>()?;
        r.done().then_some((time, steps, cursor, agents, pulses, packets, shocks, (head, count, trail)))
    }
}
