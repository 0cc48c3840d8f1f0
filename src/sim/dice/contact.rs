//! Contact between the dice of one roller, once per substep after the constraint solve.
//!
//! Each pair of dice close enough to touch takes one contact normal for the substep: the axis of
//! least overlap of their best-fit boxes (the separating-axis test: three face axes of each box
//! and the nine edge–edge cross products, faces preferred on near ties). Every particle of one
//! die inside the other's box is pushed out along that normal — not through whichever face it
//! happens to be nearest, which shoves a die resting on another sideways at the edges and tears
//! dice that meet deep (a particle for which the normal's way out is far longer than its nearest
//! face's still takes the face) — and its slip along the surface, relative to the other die's
//! particles there, is held by static friction or reduced by kinetic friction, as on the floor.
//! Only the part of the push that stops the particle's approach changes its velocity; overlap
//! already there is removed quietly (see [`push_out`]). The other
//! die, taken as a rigid body at that moment (mass 1, the lattice's inertia), takes the equal and
//! opposite push at the contact point: a shift and a turn, so momentum and angular momentum are
//! both kept.

use super::math::{M3, V3, add, cross, dot, mat_t_vec, mat_vec, norm, scale, sub};
use super::model::{N, PARTICLES, SIZE, index};
use super::pack::Pack;
use super::roller::Slot;

const HALF: f64 = SIZE / 2.0;
/// Inverse moment of inertia of a die about its centre: 64 particles of 1/64 on the 4 × 4 × 4
/// lattice give I = 2·mean(x²) = 5/18 about every axis.
const DIE_INV_INERTIA: f64 = 18.0 / 5.0;
/// Squared radius of the sphere around a die's best-fit box (half its diagonal), with a margin of
/// 1e-9 for rounding.
const CIRCUMSPHERE2: f64 = 3.0 * HALF * HALF * (1.0 + 1e-9);
/// Centres farther apart than this cannot touch (twice the half diagonal, plus stretch room).
const REACH: f64 = 2.2 * SIZE;
/// Die-on-die friction: slip under this share of the penetration is undone (static), and slip
/// beyond it loses this share of the penetration (kinetic). Lower than on the table's felt.
const STATIC_FRICTION: f64 = 0.6;
const KINETIC_FRICTION: f64 = 0.4;
/// An edge–edge axis must beat the best face axis by this share to be taken: on a near tie the
/// face is the stable choice (a die lying on another keeps one normal, substep after substep).
const FACE_PREFERENCE: f64 = 0.95;

/// A particle leaves along the pair's normal while that way is at most this many times its
/// nearest face's depth, plus [`DETOUR_SLACK`].
const DETOUR: f64 = 2.0;
const DETOUR_SLACK: f64 = 0.02 * SIZE;

/// A die's best-fit box: centre and rotation (columns are its face axes in the world).
#[derive(Clone, Copy)]
struct Box3 {
    c: V3,
    r: M3,
}

impl Box3 {
    fn of(packs: &[Pack], s: Slot) -> Self {
        Box3 { c: packs[s.pack].centroid[s.lane], r: packs[s.pack].r[s.lane] }
    }

    fn axis(&self, k: usize) -> V3 {
        [self.r[0][k], self.r[1][k], self.r[2][k]]
    }

    /// Half the box's extent along unit direction `l`.
    fn reach(&self, l: V3) -> f64 {
        HALF * (0..3).map(|k| dot(self.axis(k), l).abs()).sum::<f64>()
    }
}

/// The contact normal of boxes `a` and `b`, pointing from `b` toward `a`: the axis along which
/// they overlap least.
fn pair_normal(a: &Box3, b: &Box3) -> V3 {
    let d = sub(a.c, b.c);
    let overlap = |l: V3| a.reach(l) + b.reach(l) - dot(d, l).abs();
    let mut best = (f64::INFINITY, [0.0, 1.0, 0.0]);
    for k in 0..3 {
        for l in [a.axis(k), b.axis(k)] {
            let o = overlap(l);
            if o < best.0 {
                best = (o, l);
            }
        }
    }
    let face = best.0;
    for i in 0..3 {
        for j in 0..3 {
            let l = cross(a.axis(i), b.axis(j));
            let len = norm(l);
            if len < 1e-6 {
                continue; // parallel edges: their face axes already cover it
            }
            let l = scale(l, 1.0 / len);
            let o = overlap(l);
            if o < best.0 && o < face * FACE_PREFERENCE {
                best = (o, l);
            }
        }
    }
    let n = best.1;
    if dot(d, n) < 0.0 { scale(n, -1.0) } else { n }
}

/// How far a point at `local` (box coordinates, inside the box) travels along `n_local` to leave
/// the box.
fn exit_distance(local: V3, n_local: V3) -> f64 {
    let mut t = f64::INFINITY;
    for k in 0..3 {
        if n_local[k].abs() > 1e-9 {
            let face = if n_local[k] > 0.0 { HALF } else { -HALF };
            t = t.min((face - local[k]) / n_local[k]);
        }
    }
    t.max(0.0)
}

/// The way a particle at `local` (box coordinates, inside box `r`) leaves the box: along the
/// pair's normal `n`, unless that is far longer than through the nearest face — the particle is
/// then away from where the pair touches (near another face of the box) and leaves through that
/// face instead, so no particle is ever dragged through the die.
fn way_out(r: &M3, local: V3, n: V3, n_local: V3) -> (V3, f64) {
    let along = exit_distance(local, n_local);
    let depth: [f64; 3] = std::array::from_fn(|k| HALF - local[k].abs());
    let k = (0..3).min_by(|&i, &j| depth[i].total_cmp(&depth[j])).unwrap_or(0);
    if along <= DETOUR * depth[k] + DETOUR_SLACK {
        return (n, along);
    }
    let mut face = [0.0; 3];
    face[k] = if local[k] >= 0.0 { 1.0 } else { -1.0 };
    (mat_vec(r, face), depth[k])
}

/// How far the material of the die in `lane` at box coordinates `local` moved this substep:
/// the particles' displacements interpolated over the lattice cell around it.
fn displacement_at(pk: &Pack, lane: usize, local: V3) -> V3 {
    let cells = (N - 1) as f64;
    let mut base = [0usize; 3];
    let mut frac = [0.0; 3];
    for k in 0..3 {
        let u = ((local[k] + HALF) / SIZE * cells).clamp(0.0, cells);
        let i = (u.floor() as usize).min(N - 2);
        base[k] = i;
        frac[k] = u - i as f64;
    }
    let mut d = [0.0; 3];
    for corner in 0..8 {
        let o = [corner & 1, (corner >> 1) & 1, corner >> 2];
        let weight: f64 = (0..3).map(|k| if o[k] == 1 { frac[k] } else { 1.0 - frac[k] }).product();
        let p = index(base[0] + o[0], base[1] + o[1], base[2] + o[2]);
        let moved = sub(pk.x_of(lane, p), prev_of(pk, lane, p));
        d = add(d, scale(moved, weight));
    }
    d
}

/// Pushes on die `b`, taken as a rigid body, accumulated over one die's particles: those that
/// move it (`moving`) and those that only put it where it should be (`quiet`: applied to its
/// previous positions too, so they add no velocity).
#[derive(Default)]
struct Recoil {
    moving: Rigid,
    quiet: Rigid,
}

/// A small rigid displacement: a shift and a turn (rotation vector) about the die's centre.
#[derive(Default, Clone, Copy)]
struct Rigid {
    shift: V3,
    turn: V3,
}

impl Rigid {
    /// Books on die `b` (centred at `cb`, touched at `contact`) the reaction to moving a particle
    /// of inverse mass `wp` by `amount` along unit `dir`; returns the particle's own move.
    fn exchange(&mut self, wp: f64, dir: V3, amount: f64, contact: V3, cb: V3) -> V3 {
        let arm = cross(sub(contact, cb), dir);
        let wb = 1.0 + DIE_INV_INERTIA * dot(arm, arm);
        let lambda = amount / (wp + wb);
        self.shift = sub(self.shift, scale(dir, lambda));
        self.turn = sub(self.turn, scale(arm, lambda * DIE_INV_INERTIA));
        scale(dir, lambda * wp)
    }

    fn at(&self, x: V3, cb: V3) -> V3 {
        add(self.shift, cross(self.turn, sub(x, cb)))
    }
}

impl Recoil {
    fn apply(&self, pk: &mut Pack, lane: usize, cb: V3) {
        for p in 0..PARTICLES {
            if pk.w[p][lane] > 0.0 {
                let x = pk.x_of(lane, p);
                let quiet = self.quiet.at(x, cb);
                pk.set_x(lane, p, add(x, add(self.moving.at(x, cb), quiet)));
                let prev = prev_of(pk, lane, p);
                set_prev(pk, lane, p, add(prev, quiet));
            }
        }
    }
}

fn prev_of(pk: &Pack, lane: usize, p: usize) -> V3 {
    [pk.prev[p][0][lane], pk.prev[p][1][lane], pk.prev[p][2][lane]]
}

fn set_prev(pk: &mut Pack, lane: usize, p: usize, v: V3) {
    for (axis, value) in pk.prev[p].iter_mut().zip(v) {
        axis[lane] = value;
    }
}

/// Pushes the particles of die `a` out of die `b` along the pair's normal, with friction; `b`
/// recoils. Only as much of the push as undoes the particle's approach this substep changes its
/// velocity (a collision stops, it does not bounce); the rest, overlap that was already there,
/// is removed quietly, so dice resting squeezed together (against each other, the fence, the
/// floor) neither jitter nor fly apart. Returns whether they touched.
fn push_out(packs: &mut [Pack], sa: Slot, sb: Slot) -> bool {
    let (ba, bb) = (Box3::of(packs, sa), Box3::of(packs, sb));
    if norm(sub(ba.c, bb.c)) > REACH {
        return false;
    }
    // The particles inside b's circumscribed sphere, found first without a branch each (outside
    // it means outside the box; the margin covers the rounding of R's orthonormality). A
    // particle's test reads only its own position, which only its own push below changes.
    let mut inside = 0u64;
    for p in 0..PARTICLES {
        let rel = sub(packs[sa.pack].x_of(sa.lane, p), bb.c);
        inside |= ((dot(rel, rel) <= CIRCUMSPHERE2) as u64) << p;
    }
    let mut recoil = Recoil::default();
    // the pair's normal, found when a particle is first inside b's box (the boxes do not move
    // while a's particles are pushed), and in b's frame
    let mut normal: Option<(V3, V3)> = None;
    while inside != 0 {
        let p = inside.trailing_zeros() as usize;
        inside &= inside - 1;
        let pa = &packs[sa.pack];
        let wp = pa.w[p][sa.lane];
        let x = pa.x_of(sa.lane, p);
        let local = mat_t_vec(&bb.r, sub(x, bb.c));
        if wp == 0.0 || local.iter().any(|&l| l.abs() >= HALF) {
            continue;
        }
        let (n, n_local) = *normal.get_or_insert_with(|| {
            let n = pair_normal(&ba, &bb);
            (n, mat_t_vec(&bb.r, n))
        });
        let (n, depth) = way_out(&bb.r, local, n, n_local);
        let contact = add(x, scale(n, depth));
        let prev = prev_of(pa, sa.lane, p);
        // the particle's motion this substep relative to b's material where they touch
        let there = displacement_at(&packs[sb.pack], sb.lane, mat_t_vec(&bb.r, sub(contact, bb.c)));
        let relative = sub(sub(x, prev), there);
        let stopping = depth.min((-dot(relative, n)).max(0.0));
        let moved = recoil.moving.exchange(wp, n, stopping, contact, bb.c);
        let placed = recoil.quiet.exchange(wp, n, depth - stopping, contact, bb.c);
        let (x, prev) = (add(add(x, moved), placed), add(prev, placed));
        // slip across the normal, held or slowed by friction
        let slip = add(relative, moved);
        let slip = sub(slip, scale(n, dot(slip, n)));
        let s = norm(slip);
        let x = if s > 0.0 {
            let undo = if s < STATIC_FRICTION * depth { s } else { (KINETIC_FRICTION * depth).min(s) };
            add(x, recoil.moving.exchange(wp, scale(slip, -1.0 / s), undo, contact, bb.c))
        } else {
            x
        };
        let pa = &mut packs[sa.pack];
        pa.set_x(sa.lane, p, x);
        set_prev(pa, sa.lane, p, prev);
    }
    let touched = normal.is_some();
    if touched {
        recoil.apply(&mut packs[sb.pack], sb.lane, bb.c);
    }
    touched
}

/// Die–die contact for one roller's dice (`slots`), every ordered pair in turn; `touched` marks
/// the dice that met another.
pub(super) fn collide(packs: &mut [Pack], slots: &[Slot], touched: &mut [bool]) {
    let n = slots.len();
    for a in 0..n {
        for b in 0..n {
            if a != b && push_out(packs, slots[a], slots[b]) {
                touched[a] = true;
                touched[b] = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::portable;
    use crate::sim::dice::math::quat_to_matrix;

    fn boxed(c: V3, q: [f64; 4]) -> Box3 {
        Box3 { c, r: quat_to_matrix(q) }
    }

    #[test]
    fn a_die_on_a_die_is_pushed_straight_up_even_at_the_edge() {
        let below = boxed([0.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]);
        // resting on it, off to the side so that its corner overhangs
        let above = boxed([0.7, 1.49, 0.1], [0.0, 0.0, 0.0, 1.0]);
        let n = pair_normal(&above, &below);
        assert!((n[1] - 1.0).abs() < 1e-12, "normal {n:?}");
    }

    #[test]
    fn the_normal_points_from_b_to_a_and_flips_with_the_order() {
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let a = boxed([0.9, 0.5, 0.2], [0.0, portable::sin(0.3f64), 0.0, portable::cos(0.3f64)]);
        let b = boxed([0.0, 0.5, 0.0], [0.0, s * 0.2, 0.0, 1.0]);
        let ab = pair_normal(&a, &b);
        let ba = pair_normal(&b, &a);
        assert!(dot(ab, sub(a.c, b.c)) > 0.0);
        assert!(norm(add(ab, ba)) < 1e-12, "{ab:?} vs {ba:?}");
    }

    #[test]
    fn exit_distance_is_the_way_out_along_the_normal() {
        assert!((exit_distance([0.1, 0.4, 0.0], [0.0, 1.0, 0.0]) - 0.1).abs() < 1e-12);
        assert!((exit_distance([0.1, 0.4, 0.0], [0.0, -1.0, 0.0]) - 0.9).abs() < 1e-12);
        let d = std::f64::consts::FRAC_1_SQRT_2;
        // along the diagonal, the nearer of the two faces it crosses
        assert!((exit_distance([0.3, 0.0, 0.0], [d, d, 0.0]) - 0.2 / d).abs() < 1e-12);
    }
}
