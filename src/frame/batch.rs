//! Instanced batches: one mesh at many places in one draw per pass (blades in a field, leaves on
//! a branch, a crowd). Each instance has a placement that stays the same while its key does
//! (uploaded once) and a 32-byte motion record per frame; the deformation is evaluated per vertex
//! on the GPU by `shaders/batch.wgsl`, and [`InstanceBatch::vertex`] is its CPU twin (same
//! formulas, for tests, bounds and anyone who needs the deformed geometry).
//!
//! Mesh space: y is up from the instance's root at y = 0; the mesh's height is its largest y.

use crate::portable;
use std::sync::Arc;

use glam::Vec3;

use super::{Fnv, Material, MeshRef};

/// Where one instance stands: root position (world metres), turn about +y (radians, the mesh's
/// +x axis goes to (cos, 0, −sin)), scale per mesh axis, and a colour multiplying the mesh's
/// (sRGB, straight alpha). 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Placement {
    pub position: [f32; 3],
    pub yaw: f32,
    pub scale: [f32; 3],
    pub color: [u8; 4],
}

/// Placements shared between frames. `key` identifies the content: the renderer uploads a key once
/// and reuses it for as long as frames keep naming it.
#[derive(Clone, Debug)]
pub struct Placements {
    pub key: u64,
    pub data: Arc<Vec<Placement>>,
}

impl Placements {
    /// Wraps placements, keyed by their content.
    pub fn new(data: Vec<Placement>) -> Self {
        Placements { key: Fnv::hash(bytemuck::cast_slice(&data)), data: Arc::new(data) }
    }
}

impl PartialEq for Placements {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && (Arc::ptr_eq(&self.data, &other.data) || self.data == other.data)
    }
}

/// One instance's motion this frame: two vectors whose meaning [`Deform`] gives. 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Motion {
    pub a: [f32; 4],
    pub b: [f32; 4],
}

/// How the vertices of an instance move, given its [`Motion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deform {
    /// A rigid move after the placement: `a.xyz` is an offset (metres), `b.xyz` a rotation vector
    /// (axis × angle in radians) about the root. The zero record leaves the placement as it is.
    Rigid,
    /// The mesh's height axis follows a quadratic Bézier spine from the root, `a.xyz` and `b.xyz`
    /// its two other control points relative to the root in units of the instance's height (its
    /// scale's y times the mesh's height). The mesh's x axis stays horizontal, across the spine
    /// at the instance's yaw; z goes along the spine's normal. Keeping the spine's length is the
    /// caller's business (choose the controls accordingly); [`Motion::spine_rest`] stands straight.
    Spine,
    /// The instance leans by the (h/H)² profile: a point at height fraction h moves horizontally by
    /// `a.xy` × h² (world x, z in metres: the top's displacement) while heights scale by `a.z`
    /// (1 = none; the caller picks it so the stem keeps its length). Normals are transformed by the
    /// exact inverse transpose of the bend.
    Bend,
}

impl Motion {
    /// A straight spine: controls at half and full height above the root.
    pub const fn spine_rest() -> Self {
        Motion { a: [0.0, 0.5, 0.0, 0.0], b: [0.0, 1.0, 0.0, 0.0] }
    }

    /// An unbent stem.
    pub const fn bend_rest() -> Self {
        Motion { a: [0.0, 0.0, 1.0, 0.0], b: [0.0; 4] }
    }

    /// The record that leaves an instance as placed.
    pub fn rest(deform: Deform) -> Self {
        match deform {
            Deform::Rigid => Motion::default(),
            Deform::Spine => Motion::spine_rest(),
            Deform::Bend => Motion::bend_rest(),
        }
    }
}

/// Many instances of one mesh, drawn with one instanced draw per pass (shadow pass included).
/// Drawn opaque (the material's alpha and `translucent` are not used), after the frame's opaque
/// meshes.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceBatch {
    pub mesh: MeshRef,
    pub material: Material,
    pub deform: Deform,
    pub placements: Placements,
    /// One record per drawn placement this frame, in the same order; empty when nothing moves
    /// (every instance then takes [`Motion::rest`]).
    pub motion: Vec<Motion>,
    /// Draw only the first this many placements (`None`: all). Thins a batch with distance
    /// without uploading its placements again: order them so the ones to drop first come last.
    pub drawn: Option<u32>,
}

/// The turn about +y by `yaw`, applied to a vector.
fn turn(yaw: f32, v: Vec3) -> Vec3 {
    let (s, c) = portable::sin_cos(yaw);
    Vec3::new(c * v.x + s * v.z, v.y, -s * v.x + c * v.z)
}

fn normalize_or(v: Vec3, fallback: Vec3) -> Vec3 {
    let len = v.length();
    if len > 1e-20 { v / len } else { fallback }
}

/// Rotation by the rotation vector `r` (Rodrigues), applied to `v`.
fn rotate(r: Vec3, v: Vec3) -> Vec3 {
    let angle = r.length();
    if angle < 1e-12 {
        return v;
    }
    let k = r / angle;
    let (s, c) = portable::sin_cos(angle);
    v * c + k.cross(v) * s + k * k.dot(v) * (1.0 - c)
}

impl InstanceBatch {
    /// How many instances are drawn this frame.
    pub fn count(&self) -> usize {
        self.drawn.map_or(self.placements.data.len(), |n| (n as usize).min(self.placements.data.len()))
    }

    /// The motion of instance `i` this frame.
    pub fn motion_of(&self, i: usize) -> Motion {
        self.motion.get(i).copied().unwrap_or(Motion::rest(self.deform))
    }

    /// World position and unit normal of mesh vertex (`position`, `normal`) on instance `i`, as the
    /// vertex shader computes them. `height` is the mesh's height (its largest y).
    pub fn vertex(&self, i: usize, position: [f32; 3], normal: [f32; 3], height: f32) -> ([f32; 3], [f32; 3]) {
        let p = self.placements.data[i];
        let m = self.motion_of(i);
        deform_vertex(self.deform, &p, &m, position, normal, height)
    }
}

/// The deformation of `shaders/batch.wgsl`, operation for operation.
pub fn deform_vertex(deform: Deform, p: &Placement, m: &Motion, position: [f32; 3], normal: [f32; 3], height: f32) -> ([f32; 3], [f32; 3]) {
    let s = Vec3::from(p.scale);
    let root = Vec3::from(p.position);
    let (a, b) = (Vec3::new(m.a[0], m.a[1], m.a[2]), Vec3::new(m.b[0], m.b[1], m.b[2]));
    let local = Vec3::from(position) * s;
    // normals of a scaled mesh: divided by the scale (the inverse transpose), normalised later
    let n_local = Vec3::from(normal) / s;
    let h = if height > 0.0 { position[1] / height } else { 0.0 };
    let (pos, n) = match deform {
        Deform::Rigid => (root + rotate(b, turn(p.yaw, local)) + a, normalize_or(rotate(b, turn(p.yaw, n_local)), Vec3::Y)),
        Deform::Spine => {
            let tall = s.y * height;
            let (c1, c2) = (a * tall, b * tall);
            let along = 2.0 * h * (1.0 - h) * c1 + h * h * c2;
            let t = normalize_or((2.0 - 4.0 * h) * c1 + 2.0 * h * c2, Vec3::Y);
            let side = turn(p.yaw, Vec3::X);
            let front = normalize_or(side.cross(t), turn(p.yaw, Vec3::Z));
            let pos = root + along + side * local.x + front * local.z;
            (pos, normalize_or(side * n_local.x + t * n_local.y + front * n_local.z, front))
        }
        Deform::Bend => {
            let k = a.z;
            let w = turn(p.yaw, local);
            let pos = root + Vec3::new(w.x + a.x * h * h, w.y * k, w.z + a.y * h * h);
            // d(h²)/dy = 2h / (mesh height × scale y): the slopes of the bend
            let dy = 2.0 * h / (height * s.y).max(1e-20);
            let (ax, az) = (a.x * dy, a.y * dy);
            let n = turn(p.yaw, n_local);
            (pos, normalize_or(Vec3::new(k * n.x, -ax * n.x + n.y - az * n.z, k * n.z), Vec3::Y))
        }
    };
    (pos.to_array(), n.to_array())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(yaw: f32) -> Placement {
        Placement { position: [1.0, 0.0, -2.0], yaw, scale: [0.1, 0.5, 0.1], color: [255; 4] }
    }

    #[test]
    fn rest_records_leave_instances_as_placed() {
        let p = placed(0.7);
        let v = ([0.3, 0.8, 0.0], [0.0, 0.0, 1.0]);
        let (rigid, n) = deform_vertex(Deform::Rigid, &p, &Motion::rest(Deform::Rigid), v.0, v.1, 1.0);
        let (spine, ns) = deform_vertex(Deform::Spine, &p, &Motion::rest(Deform::Spine), v.0, v.1, 1.0);
        let (bend, nb) = deform_vertex(Deform::Bend, &p, &Motion::rest(Deform::Bend), v.0, v.1, 1.0);
        let expected = (Vec3::from(p.position) + turn(0.7, Vec3::new(0.03, 0.4, 0.0))).to_array();
        for (got, normal) in [(rigid, n), (spine, ns), (bend, nb)] {
            assert!(got.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 1e-6), "{got:?} vs {expected:?}");
            let want = turn(0.7, Vec3::Z).to_array();
            assert!(normal.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-6), "{normal:?} vs {want:?}");
        }
    }

    #[test]
    fn a_spine_bent_over_keeps_the_mesh_across_it_and_normals_off_it() {
        // a spine leaning toward +x: the tip lands on the second control, in units of the height
        let p = Placement { position: [0.0; 3], yaw: 0.0, scale: [0.2, 2.0, 1.0], color: [255; 4] };
        let m = Motion { a: [0.0, 0.6, 0.0, 0.0], b: [0.8, 0.6, 0.0, 0.0] };
        let (tip, _) = deform_vertex(Deform::Spine, &p, &m, [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], 1.0);
        assert!((tip[0] - 1.6).abs() < 1e-6 && (tip[1] - 1.2).abs() < 1e-6, "{tip:?}");
        // across the spine: the mesh's x stays along world x at yaw 0, 0.2 wide at this scale
        let (l, _) = deform_vertex(Deform::Spine, &p, &m, [-0.5, 0.5, 0.0], [0.0, 0.0, 1.0], 1.0);
        let (r, n) = deform_vertex(Deform::Spine, &p, &m, [0.5, 0.5, 0.0], [0.0, 0.0, 1.0], 1.0);
        assert!(((r[0] - l[0]) - 0.2).abs() < 1e-6 && (r[1] - l[1]).abs() < 1e-6);
        // the normal of a blade bent toward +x in the x–y plane stays ±z (the blade's face)
        assert!((n[2].abs() - 1.0).abs() < 1e-6, "{n:?}");
    }

    #[test]
    fn a_bend_follows_the_square_profile_and_its_normals_stay_perpendicular() {
        let p = Placement { position: [0.0; 3], yaw: 0.0, scale: [1.0; 3], color: [255; 4] };
        let m = Motion { a: [0.4, -0.2, 0.97, 0.0], b: [0.0; 4] };
        let at = |y: f32| deform_vertex(Deform::Bend, &p, &m, [0.0, y, 0.0], [1.0, 0.0, 0.0], 2.0);
        let (top, _) = at(2.0);
        assert!((top[0] - 0.4).abs() < 1e-6 && (top[2] + 0.2).abs() < 1e-6 && (top[1] - 1.94).abs() < 1e-6);
        let (half, _) = at(1.0);
        assert!((half[0] - 0.1).abs() < 1e-6, "a quarter of the lean at half height: {half:?}");
        // a surface tangent (the stem's direction) stays perpendicular to the moved normal
        for y in [0.3f32, 1.0, 1.7] {
            let (a, _) = at(y - 1e-3);
            let (b, _) = at(y + 1e-3);
            let tangent = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            for n0 in [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]] {
                let (_, n) = deform_vertex(Deform::Bend, &p, &m, [0.0, y, 0.0], n0, 2.0);
                let d = n[0] * tangent[0] + n[1] * tangent[1] + n[2] * tangent[2];
                assert!(d.abs() < 1e-5, "y {y}: n·t = {d}");
            }
        }
    }

    #[test]
    fn a_rigid_motion_turns_about_the_root_and_then_moves() {
        let p = Placement { position: [1.0, 0.0, 0.0], yaw: 0.0, scale: [1.0; 3], color: [255; 4] };
        let quarter = std::f32::consts::FRAC_PI_2;
        let m = Motion { a: [0.0, 0.0, 3.0, 0.0], b: [0.0, 0.0, quarter, 0.0] };
        let (pos, n) = deform_vertex(Deform::Rigid, &p, &m, [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], 1.0);
        assert!((pos[0] - 0.0).abs() < 1e-6 && pos[1].abs() < 1e-6 && (pos[2] - 3.0).abs() < 1e-6, "{pos:?}");
        assert!((n[0] + 1.0).abs() < 1e-6, "{n:?}");
    }
}
