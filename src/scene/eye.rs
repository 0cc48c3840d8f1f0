//! A frame's camera as a reader's pointer meets it: pixels of the picture turned into rays, points
//! on the ground or on a plane, and points back into pixels, as the renderer's pinhole camera
//! draws them (the web player's inputs, and tests that press where something is drawn).

use super::Scene;
use crate::portable;

/// The camera of a frame, for turning the picture's pixels into rays and points back into pixels.
pub struct Eye {
    eye: [f64; 3],
    forward: [f64; 3],
    right: [f64; 3],
    up: [f64; 3],
    /// tan of half the vertical field of view.
    half: f64,
    size: [f64; 2],
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

impl Eye {
    /// `scene`'s camera at `time`.
    pub fn of(scene: &Scene, time: f64) -> Eye {
        let cam = &scene.look.camera;
        let (eye, target) = cam.eye_target(time, scene.sim.timing.duration());
        let norm = |v: [f64; 3]| v.map(|c| c / dot(v, v).sqrt());
        let cross = |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        let forward = norm(sub(target, eye));
        let right = norm(cross(forward, [0.0, 1.0, 0.0]));
        let up = cross(right, forward);
        let half = portable::tan(cam.fov_deg.to_radians() / 2.0);
        Eye { eye, forward, right, up, half, size: [scene.look.width as f64, scene.look.height as f64] }
    }

    /// The direction of the ray through pixel (x, y).
    fn ray(&self, x: f64, y: f64) -> [f64; 3] {
        let [w, h] = self.size;
        let (nx, ny) = ((2.0 * x / w - 1.0) * self.half * w / h, (1.0 - 2.0 * y / h) * self.half);
        std::array::from_fn(|i| self.forward[i] + self.right[i] * nx + self.up[i] * ny)
    }

    /// Where the ray through pixel (x, y) meets the plane through `point` facing the eye.
    pub fn on_plane(&self, x: f64, y: f64, point: [f64; 3]) -> Option<[f64; 3]> {
        let d = self.ray(x, y);
        let t = dot(sub(point, self.eye), self.forward) / dot(d, self.forward);
        (t > 0.0).then(|| std::array::from_fn(|i| self.eye[i] + d[i] * t))
    }

    /// Where the ray through pixel (x, y) meets the ground (y = 0), as [x, z]; `None` at and above
    /// the horizon.
    pub fn on_ground(&self, x: f64, y: f64) -> Option<[f64; 2]> {
        let d = self.ray(x, y);
        if d[1] >= -1e-9 {
            return None;
        }
        let t = -self.eye[1] / d[1];
        (t > 0.0).then(|| [self.eye[0] + d[0] * t, self.eye[2] + d[2] * t])
    }

    /// The pixel `point` shows at; `None` behind the eye.
    pub fn pixel(&self, point: [f64; 3]) -> Option<[f64; 2]> {
        let v = sub(point, self.eye);
        let z = dot(v, self.forward);
        if z <= 1e-9 {
            return None;
        }
        let [w, h] = self.size;
        let (nx, ny) = (dot(v, self.right) / (z * self.half * w / h), dot(v, self.up) / (z * self.half));
        Some([(nx + 1.0) / 2.0 * w, (1.0 - ny) / 2.0 * h])
    }
}
