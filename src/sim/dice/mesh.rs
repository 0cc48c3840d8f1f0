//! The die as the renderer sees it: a rounded cube with pips, in the unit cube (u, v, w) ∈ [0, 1]³
//! so that the 64 particles bend it as the control points of a tricubic Bézier volume. The body
//! and the pips are separate meshes: the body is drawn translucent, the pips opaque inside it.

use crate::portable;
use glam::Vec3;

use crate::frame::MeshData;
use crate::frame::srgb8;

use super::orientation::FACE_VALUE;

/// Segments along each face edge of the body.
pub const FACE_SEGMENTS: usize = 24;
/// Corner radius, as a fraction of the die's half size.
pub const ROUNDING: f32 = 0.3;
/// Pip radius and how far below the face it sits, as fractions of the half size.
pub const PIP_RADIUS: f32 = 0.15;
pub const PIP_DEPTH: f32 = 0.07;
const PIP_SEGMENTS: usize = 20;

/// The six faces in FACE_VALUE order: +X, −X, +Y, −Y, +Z, −Z as (axis, sign).
const FACES: [(usize, f32); 6] = [(0, 1.0), (0, -1.0), (1, 1.0), (1, -1.0), (2, 1.0), (2, -1.0)];

fn to_unit(c: [f32; 3]) -> [f32; 3] {
    c.map(|x| x * 0.5 + 0.5)
}

/// Appends triangle (a, b, c), wound counter-clockwise seen from the side `outward` points to.
fn push_tri(m: &mut MeshData, [a, b, c]: [u32; 3], outward: [f32; 3]) {
    let p = |i: u32| Vec3::from(m.positions[i as usize]);
    let n = (p(b) - p(a)).cross(p(c) - p(a));
    if n.dot(Vec3::from(outward)) >= 0.0 {
        m.indices.extend_from_slice(&[a, b, c]);
    } else {
        m.indices.extend_from_slice(&[a, c, b]);
    }
}

/// Point of face `f` at face coordinates (s, t) ∈ [−1, 1]², in the cube [−1, 1]³.
fn face_point(f: usize, s: f32, t: f32, lift: f32) -> [f32; 3] {
    let (axis, sign) = FACES[f];
    let mut p = [0.0; 3];
    p[axis] = sign * lift;
    p[(axis + 1) % 3] = s;
    p[(axis + 2) % 3] = t;
    p
}

/// The rounded body (white, opaque vertex colours: the instance's tint gives colour and opacity).
pub fn body() -> MeshData {
    let mut m = MeshData::default();
    let n = FACE_SEGMENTS;
    let inner = 1.0 - ROUNDING;
    for (f, &(axis, sign)) in FACES.iter().enumerate() {
        let base = m.positions.len() as u32;
        for j in 0..=n {
            for i in 0..=n {
                let s = -1.0 + 2.0 * i as f32 / n as f32;
                let t = -1.0 + 2.0 * j as f32 / n as f32;
                let p = face_point(f, s, t, 1.0);
                let core = p.map(|x| x.clamp(-inner, inner));
                let d = Vec3::from(p) - Vec3::from(core);
                let normal = (d / d.length()).to_array();
                let pos: [f32; 3] = std::array::from_fn(|a| core[a] + ROUNDING * normal[a]);
                m.positions.push(to_unit(pos));
                m.normals.push(normal);
                m.colors.push([255; 4]);
            }
        }
        let mut out = [0.0; 3];
        out[axis] = sign;
        let row = (n + 1) as u32;
        for j in 0..n as u32 {
            for i in 0..n as u32 {
                let a = base + j * row + i;
                push_tri(&mut m, [a, a + 1, a + row + 1], out);
                push_tri(&mut m, [a, a + row + 1, a + row], out);
            }
        }
    }
    m
}

/// Pip centres of a face showing `value`, in face coordinates.
pub fn pip_layout(value: u8) -> Vec<[f32; 2]> {
    let d = 0.48;
    let centre = [0.0, 0.0];
    let corners_a = [[-d, -d], [d, d]];
    let corners_b = [[-d, d], [d, -d]];
    match value {
        1 => vec![centre],
        2 => corners_a.to_vec(),
        3 => vec![corners_a[0], centre, corners_a[1]],
        4 => [corners_a, corners_b].concat(),
        5 => [&corners_a[..], &corners_b[..], &[centre]].concat(),
        _ => vec![[-d, -d], [-d, 0.0], [-d, d], [d, -d], [d, 0.0], [d, d]],
    }
}

/// The pips: flat discs just under each face, facing out, in `color` (linear RGB).
pub fn pips(color: [f32; 3]) -> MeshData {
    let mut m = MeshData::default();
    let rgba = srgb8(color, 255);
    for (f, &value) in FACE_VALUE.iter().enumerate() {
        let (axis, sign) = FACES[f];
        let mut out = [0.0; 3];
        out[axis] = sign;
        for [cs, ct] in pip_layout(value) {
            let centre = m.positions.len() as u32;
            let lift = 1.0 - PIP_DEPTH;
            m.positions.push(to_unit(face_point(f, cs, ct, lift)));
            m.normals.push(out);
            m.colors.push(rgba);
            for k in 0..PIP_SEGMENTS {
                let a = k as f32 / PIP_SEGMENTS as f32 * std::f32::consts::TAU;
                let p = face_point(f, cs + PIP_RADIUS * portable::cos(a), ct + PIP_RADIUS * portable::sin(a), lift);
                m.positions.push(to_unit(p));
                m.normals.push(out);
                m.colors.push(rgba);
            }
            for k in 0..PIP_SEGMENTS as u32 {
                let next = (k + 1) % PIP_SEGMENTS as u32;
                push_tri(&mut m, [centre, centre + 1 + k, centre + 1 + next], out);
            }
        }
    }
    m
}

/// The table: a disc of `radius` whose colour fades into the background toward its rim.
pub fn floor(radius: f32, color: [f32; 3]) -> MeshData {
    let mut m = MeshData::default();
    let rings = 24;
    let sectors = 96;
    m.positions.push([0.0, 0.0, 0.0]);
    m.normals.push([0.0, 1.0, 0.0]);
    m.colors.push(srgb8(color, 255));
    for r in 1..=rings {
        let rr = r as f32 / rings as f32;
        // opaque over the arena, fading out over the outer third
        let alpha = (((1.0 - rr) / 0.35).clamp(0.0, 1.0) * 255.0).round() as u8;
        for s in 0..sectors {
            let a = s as f32 / sectors as f32 * std::f32::consts::TAU;
            m.positions.push([radius * rr * portable::cos(a), 0.0, radius * rr * portable::sin(a)]);
            m.normals.push([0.0, 1.0, 0.0]);
            m.colors.push(srgb8(color, alpha));
        }
    }
    let up = [0.0, 1.0, 0.0];
    let ring = |r: u32, s: u32| 1 + (r - 1) * sectors + s % sectors;
    for s in 0..sectors {
        push_tri(&mut m, [0, ring(1, s), ring(1, s + 1)], up);
    }
    for r in 1..rings {
        for s in 0..sectors {
            let (a, b, c, d) = (ring(r, s), ring(r, s + 1), ring(r + 1, s), ring(r + 1, s + 1));
            push_tri(&mut m, [a, c, d], up);
            push_tri(&mut m, [a, d, b], up);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every edge of a closed, consistently wound mesh appears once in each direction.
    fn closed(m: &MeshData) -> bool {
        use std::collections::HashMap;
        // weld seam vertices (faces share positions, not indices)
        let key = |i: u32| m.positions[i as usize].map(|x| (x * 1e5).round() as i64);
        let mut edges: HashMap<([i64; 3], [i64; 3]), i32> = HashMap::new();
        for t in m.indices.chunks(3) {
            for k in 0..3 {
                let (a, b) = (key(t[k]), key(t[(k + 1) % 3]));
                if a != b {
                    *edges.entry((a, b)).or_default() += 1;
                }
            }
        }
        edges.iter().all(|(&(a, b), &c)| c == 1 && edges.get(&(b, a)) == Some(&1))
    }

    #[test]
    fn body_is_closed_rounded_and_fills_the_unit_cube() {
        let m = body();
        assert!(closed(&m), "the body has a hole or a flipped triangle");
        let (lo, hi) = m.bounds().unwrap();
        for a in 0..3 {
            assert!(lo[a].abs() < 1e-6 && (hi[a] - 1.0).abs() < 1e-6, "bounds {lo:?} {hi:?}");
        }
        // corners are cut: no vertex near (1, 1, 1)
        assert!(m.positions.iter().all(|p| p.iter().map(|x| portable::powi(x - 1.0, 2)).sum::<f32>() > 0.01));
        // normals point away from the centre
        for (p, n) in m.positions.iter().zip(&m.normals) {
            assert!((Vec3::from(*p) - 0.5).dot(Vec3::from(*n)) > 0.0);
        }
    }

    #[test]
    fn pips_count_21_and_sit_under_their_faces() {
        let m = pips([1.0; 3]);
        let discs = m.positions.len() / (PIP_SEGMENTS + 1);
        assert_eq!(discs, 21, "1 + 2 + … + 6 pips");
        // the +Y face (value 1) has one pip at its centre, just under the surface
        let top: Vec<&[f32; 3]> = m.positions.iter().filter(|p| p[1] > 0.9).collect();
        assert_eq!(top.len(), PIP_SEGMENTS + 1);
        assert!((top[0][0] - 0.5).abs() < 1e-6 && top[0][1] < 1.0);
        // opposite faces sum to 7
        for f in [0, 2, 4] {
            assert_eq!(FACE_VALUE[f] + FACE_VALUE[f + 1], 7);
        }
    }

    #[test]
    fn floor_fades_out_at_its_rim() {
        let m = floor(6.0, [0.5; 3]);
        assert_eq!(m.colors[0][3], 255);
        assert_eq!(m.colors.last().unwrap()[3], 0);
        assert!(m.normals.iter().all(|n| *n == [0.0, 1.0, 0.0]));
    }
}
