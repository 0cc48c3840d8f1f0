//! A die as a rigid body, read from and written to its particles: centre, linear and angular
//! velocity (from the angular momentum about the centre and the lattice's inertia), rigid
//! velocities given or added (throws, nudges), the fastest particle of each lane, and the
//! reference damping that the lane kernels in [`super::lanes`] must reproduce bit for bit.

use super::math::{V3, add, cross, dot, invert3, mat_vec, norm, scale, sub};
use super::model::PARTICLES;
use super::pack::{LANES, Pack};

/// Largest particle speed of every die of a pack, lane by lane.
pub fn max_speeds(pk: &Pack) -> [f64; LANES] {
    let mut m = [0.0f64; LANES];
    for v in &pk.v {
        for l in 0..LANES {
            let s2 = v[0][l] * v[0][l] + v[1][l] * v[1][l] + v[2][l] * v[2][l];
            m[l] = if s2 > m[l] { s2 } else { m[l] };
        }
    }
    m.map(f64::sqrt)
}

/// How fast each die of a pack moves as a body: the fastest point of its rigid motion (centre
/// velocity plus spin), leaving out the jelly's own quiver.
pub fn body_speeds(pk: &Pack) -> [f64; LANES] {
    std::array::from_fn(|lane| {
        let (c, vc, omega) = rigid_motion(pk, lane);
        (0..PARTICLES).map(|p| norm(add(vc, cross(omega, sub(pk.x_of(lane, p), c))))).fold(0.0, f64::max)
    })
}

fn center(pk: &Pack, lane: usize) -> V3 {
    let mut c = [0.0; 3];
    for p in 0..PARTICLES {
        c = add(c, pk.x_of(lane, p));
    }
    scale(c, 1.0 / PARTICLES as f64)
}

/// Gives every particle the velocity of a rigid motion: `lin` plus `ang` × (x − centroid).
pub fn set_rigid_velocity(pk: &mut Pack, lane: usize, lin: V3, ang: V3) {
    let c = pk.centroid[lane];
    for p in 0..PARTICLES {
        let v = add(lin, cross(ang, sub(pk.x_of(lane, p), c)));
        pk.set_v(lane, p, v);
    }
}

pub(super) fn add_rigid_velocity(pk: &mut Pack, lane: usize, lin: V3, ang: V3) {
    let c = pk.centroid[lane];
    for p in 0..PARTICLES {
        let v = add(pk.v_of(lane, p), add(lin, cross(ang, sub(pk.x_of(lane, p), c))));
        pk.set_v(lane, p, v);
    }
}

/// The die's rigid motion: centre velocity and angular velocity (from the angular momentum about
/// the centre).
pub fn rigid_motion(pk: &Pack, lane: usize) -> (V3, V3, V3) {
    let m = 1.0 / PARTICLES as f64;
    let c = center(pk, lane);
    let mut vc = [0.0; 3];
    for p in 0..PARTICLES {
        vc = add(vc, pk.v_of(lane, p));
    }
    vc = scale(vc, m);
    let mut l = [0.0; 3];
    let mut inertia = [[0.0; 3]; 3];
    for p in 0..PARTICLES {
        let r = sub(pk.x_of(lane, p), c);
        l = add(l, scale(cross(r, sub(pk.v_of(lane, p), vc)), m));
        let rr = dot(r, r);
        for (i, row) in inertia.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                *e += m * ((if i == j { rr } else { 0.0 }) - r[i] * r[j]);
            }
        }
    }
    let omega = invert3(&inertia).map_or([0.0; 3], |inv| mat_vec(&inv, l));
    (c, vc, omega)
}

/// Damping of one step: the wobble (each particle's velocity off the die's rigid motion) loses
/// share `wobble`; on the floor, the horizontal drift loses `drift` and the spin `spin` (rolling
/// resistance of a squashy die).
#[cfg(test)]
pub(super) fn damp(pk: &mut Pack, lane: usize, wobble: f64, drift: f64, spin: f64) {
    let (c, vc, omega) = rigid_motion(pk, lane);
    let (lin_loss, ang_loss) = ([vc[0] * drift, 0.0, vc[2] * drift], scale(omega, spin));
    for p in 0..PARTICLES {
        if pk.w[p][lane] == 0.0 {
            continue;
        }
        let r = sub(pk.x_of(lane, p), c);
        let rigid = add(vc, cross(omega, r));
        let v0 = pk.v_of(lane, p);
        let v = add(v0, scale(sub(rigid, v0), wobble));
        pk.set_v(lane, p, sub(sub(v, lin_loss), cross(ang_loss, r)));
    }
}
