//! `FrameData`: the only contract between simulation and rendering. Plain data: it can be cloned,
//! compared, hashed and snapshotted without a GPU. Right-handed, y up, metres; colours are
//! linear-light RGB unless a field says otherwise.

mod batch;
mod canvas;
pub mod font;

use crate::portable;
use std::sync::Arc;

pub use batch::{Deform, InstanceBatch, Motion, Placement, Placements, deform_vertex};
pub use canvas::{
    Align, Canvas2d, Corner, Dash, SHAPE_MARGIN_PX, Shape2d, StaticLayer, Text2d, fit, legend, legend_card, legend_number, shape_quad,
};

/// Everything one frame shows.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameData {
    /// Frame number within the scene (0-based).
    pub index: u32,
    /// Scene time of this frame, seconds.
    pub time: f64,
    pub camera: Camera,
    pub background: Background,
    pub lighting: Lighting,
    /// Meshes to draw, in order.
    pub meshes: Vec<MeshInstance>,
    /// Instanced batches (one mesh, many instances), drawn after the opaque meshes.
    pub batches: Vec<InstanceBatch>,
    /// 2-D shapes drawn over everything else (over the views too).
    pub canvas: Option<Canvas2d>,
    /// Other frames drawn into rectangles of this one (figure panels), after this frame's own
    /// meshes and before its canvas.
    pub views: Vec<View>,
}

/// A frame drawn into a rectangle of another: its camera sees through that rectangle (aspect
/// ratio included), its background fills it, its canvas is fitted into it.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// `[x, y, width, height]` in the outer frame's canvas units (y down); the outer frame's canvas
    /// is fitted to the image as always, so the rectangle keeps its place at any output size.
    pub rect: [f32; 4],
    pub frame: Box<FrameData>,
    /// Part of the frame's picture magnified to fill the rectangle (an inset), when not all of it.
    pub zoom: Option<Zoom>,
}

/// The part of a view's picture an inset shows: the picture as it is drawn into a rectangle of
/// `aspect` (width / height), of which `region` is `[x, y, width, height]` in fractions from its
/// top left (beyond 0..1 shows what lies past the picture's edges). The region's shape in
/// pixels should be the inset's, so the picture is magnified alike across and down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zoom {
    pub region: [f32; 4],
    pub aspect: f32,
}

/// A perspective camera. The aspect ratio comes from the image being rendered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub eye: [f32; 3],
    pub target: [f32; 3],
    pub up: [f32; 3],
    /// Vertical field of view, degrees.
    pub fov_y_deg: f32,
    pub near: f32,
    pub far: f32,
}

impl Camera {
    /// View and projection for an image of aspect ratio `aspect` (width / height), as the
    /// renderer draws with them.
    pub fn view_proj(&self, aspect: f32) -> glam::Mat4 {
        let view = glam::Mat4::look_at_rh(self.eye.into(), self.target.into(), self.up.into());
        glam::Mat4::perspective_rh(self.fov_y_deg.to_radians(), aspect, self.near, self.far) * view
    }

    /// Where world point `p` lands in an image of aspect `aspect`: `(x, y)` in 0..1 from the top
    /// left, and whether it is in front of the camera.
    pub fn project(&self, p: [f32; 3], aspect: f32) -> ([f32; 2], bool) {
        let clip = self.view_proj(aspect) * glam::Vec4::new(p[0], p[1], p[2], 1.0);
        let w = if clip.w.abs() < 1e-9 { 1e-9 } else { clip.w };
        ([(clip.x / w) * 0.5 + 0.5, 0.5 - (clip.y / w) * 0.5], clip.w > 0.0)
    }
}

/// A vertical gradient behind everything (linear RGB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Background {
    pub top: [f32; 3],
    pub bottom: [f32; 3],
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lighting {
    /// Unit vector from the scene towards the sun.
    pub to_sun: [f32; 3],
    /// Sun colour × intensity (linear RGB).
    pub sun: [f32; 3],
    /// Hemispheric ambient: light from above and from below, already scaled by intensity.
    pub sky: [f32; 3],
    pub ground: [f32; 3],
    /// Directional shadow map on/off, and its filter radius in shadow-map texels.
    pub shadows: bool,
    pub shadow_softness: f32,
    /// Exponential distance fog: density per metre and colour (linear RGB); 0 = none.
    pub fog_density: f32,
    pub fog_color: [f32; 3],
}

/// An indexed triangle mesh with per-vertex colours. Triangles are counter-clockwise seen from
/// the front; normals are unit length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    /// sRGB-encoded colour with straight alpha.
    pub colors: Vec<[u8; 4]>,
    pub indices: Vec<u32>,
}

impl MeshData {
    /// Axis-aligned bounds (min, max); `None` when empty.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        let mut it = self.positions.iter();
        let first = *it.next()?;
        Some(it.fold((first, first), |(lo, hi), p| (std::array::from_fn(|i| lo[i].min(p[i])), std::array::from_fn(|i| hi[i].max(p[i])))))
    }

    /// A flat rectangle on y = 0 from `lo` to `hi` (x, z), facing up, in one colour: a ground.
    pub fn flat_quad(lo: [f32; 2], hi: [f32; 2], color: [u8; 4]) -> Self {
        MeshData {
            positions: vec![[lo[0], 0.0, lo[1]], [hi[0], 0.0, lo[1]], [hi[0], 0.0, hi[1]], [lo[0], 0.0, hi[1]]],
            normals: vec![[0.0, 1.0, 0.0]; 4],
            colors: vec![color; 4],
            indices: vec![0, 2, 1, 0, 3, 2],
        }
    }

    /// A sphere of `radius` around `center`, `rings` × 2·`rings` quads, in one colour.
    pub fn sphere(center: [f32; 3], radius: f32, rings: u32, color: [u8; 4]) -> Self {
        let mut m = MeshData::default();
        let segments = 2 * rings;
        for i in 0..=rings {
            let theta = std::f32::consts::PI * i as f32 / rings as f32;
            for j in 0..=segments {
                let phi = std::f32::consts::TAU * j as f32 / segments as f32;
                let n = [portable::sin(theta) * portable::cos(phi), portable::cos(theta), portable::sin(theta) * portable::sin(phi)];
                m.positions.push(std::array::from_fn(|a| center[a] + radius * n[a]));
                m.normals.push(n);
                m.colors.push(color);
            }
        }
        let row = segments + 1;
        for i in 0..rings {
            for j in 0..segments {
                let (a, b, c, d) = (i * row + j, i * row + j + 1, (i + 1) * row + j, (i + 1) * row + j + 1);
                m.indices.extend_from_slice(&[a, b, c, b, d, c]);
            }
        }
        m
    }

    /// Appends an axis-aligned box from `lo` to `hi` in one colour, each face flat-shaded.
    pub fn push_box(&mut self, lo: [f32; 3], hi: [f32; 3], color: [u8; 4]) {
        let faces: [([f32; 3], [usize; 4]); 6] = [
            ([1.0, 0.0, 0.0], [1, 5, 7, 3]),
            ([-1.0, 0.0, 0.0], [4, 0, 2, 6]),
            ([0.0, 1.0, 0.0], [2, 3, 7, 6]),
            ([0.0, -1.0, 0.0], [4, 5, 1, 0]),
            ([0.0, 0.0, 1.0], [0, 1, 3, 2]),
            ([0.0, 0.0, -1.0], [5, 4, 6, 7]),
        ];
        let corner = |k: usize| {
            [if k & 1 == 1 { hi[0] } else { lo[0] }, if k & 2 == 2 { hi[1] } else { lo[1] }, if k & 4 == 4 { lo[2] } else { hi[2] }]
        };
        for (n, idx) in faces {
            let first = self.positions.len() as u32;
            for k in idx {
                self.positions.push(corner(k));
                self.normals.push(n);
                self.colors.push(color);
            }
            self.indices.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
        }
    }

    /// Line segments only: each a triangle with no area (nothing to fill), whose edge a `Wire`
    /// material draws.
    pub fn lines(segments: &[([f32; 3], [f32; 3])]) -> Self {
        let mut m = MeshData::default();
        for (a, b) in segments {
            let base = m.positions.len() as u32;
            m.positions.extend_from_slice(&[*a, *b]);
            m.normals.extend_from_slice(&[[0.0, 1.0, 0.0]; 2]);
            m.colors.extend_from_slice(&[[255; 4]; 2]);
            m.indices.extend_from_slice(&[base, base + 1, base + 1]);
        }
        m
    }

    /// Stable content hash (FNV-1a over the raw bytes of every array).
    pub fn content_hash(&self) -> u64 {
        let mut h = Fnv::new();
        h.bytes(bytemuck::cast_slice(&self.positions));
        h.bytes(bytemuck::cast_slice(&self.normals));
        h.bytes(bytemuck::cast_slice(&self.colors));
        h.bytes(bytemuck::cast_slice(&self.indices));
        h.finish()
    }
}

/// A mesh shared between frames. `key` identifies the content: the renderer uploads a key once and
/// reuses the GPU buffers for as long as frames keep naming it.
#[derive(Clone, Debug)]
pub struct MeshRef {
    pub key: u64,
    pub data: Arc<MeshData>,
}

impl MeshRef {
    /// Wraps a mesh, keyed by its content.
    pub fn new(data: MeshData) -> Self {
        MeshRef { key: data.content_hash(), data: Arc::new(data) }
    }
}

impl PartialEq for MeshRef {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && (Arc::ptr_eq(&self.data, &other.data) || self.data == other.data)
    }
}

/// Surface response of a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Multiplies the vertex colour (linear RGB, alpha).
    pub tint: [f32; 4],
    /// 0 = mirror-like highlight, 1 = matte.
    pub roughness: f32,
    /// Strength of the specular highlight.
    pub specular: f32,
    pub casts_shadow: bool,
    /// Translucent meshes are drawn after opaque ones, farthest first, each in two passes (back
    /// faces, then front faces) so a closed body shows what is inside it; `rim` (0–1) makes
    /// grazing angles more opaque, as a Fresnel term does on jelly or glass.
    pub translucent: bool,
    pub rim: f32,
    /// Whether the sun's shadow map darkens this mesh (off for things inside a translucent body,
    /// which would otherwise sit in the body's own shadow).
    pub receives_shadow: bool,
    /// How the triangles are filled.
    pub fill: Fill,
    /// The triangle edges drawn over the mesh (undeformed meshes only).
    pub wire: Option<Wire>,
    /// The mesh encloses a solid, its faces wound counter-clockwise seen from outside, and the
    /// camera is outside it: its back faces are always hidden behind its front faces, so an
    /// opaque closed mesh is drawn without them (on a software adapter every covered sample of a
    /// hidden triangle costs a depth test). The picture does not change, but for the odd
    /// silhouette sample a back face used to cover.
    pub closed: bool,
}

/// How a mesh's triangles are filled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fill {
    /// Lit and shaded.
    #[default]
    Shaded,
    /// Invisible, but hiding what is behind it: with a `wire`, a wireframe with hidden lines
    /// removed.
    Hidden,
}

/// Triangle edges drawn in screen space: anti-aliased lines of constant pixel width, slightly in
/// front of their own faces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wire {
    /// Linear RGB, straight alpha.
    pub color: [f32; 4],
    /// Line width in output pixels.
    pub width: f32,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            tint: [1.0; 4],
            roughness: 0.8,
            specular: 0.1,
            casts_shadow: true,
            translucent: false,
            rim: 0.0,
            receives_shadow: true,
            fill: Fill::Shaded,
            wire: None,
            closed: false,
        }
    }
}

/// Bends a mesh through a tricubic Bézier volume: a vertex at (u, v, w) in the unit cube moves to
/// Σ Bᵢ(u)·Bⱼ(v)·Bₖ(w)·P[i + 4j + 16k] (Bernstein polynomials of degree 3), and its normal follows
/// the volume's Jacobian. Control points are in the instance's model space.
#[derive(Clone, Debug, PartialEq)]
pub struct BezierVolume {
    pub control: Arc<[[f32; 3]; 64]>,
}

impl BezierVolume {
    /// Control points spaced evenly over the box `lo`..`hi`: the identity deformation of that box.
    pub fn affine_box(lo: [f32; 3], hi: [f32; 3]) -> Self {
        let control = std::array::from_fn(|p| {
            let idx = [p % 4, (p / 4) % 4, p / 16];
            std::array::from_fn(|a| lo[a] + (hi[a] - lo[a]) * idx[a] as f32 / 3.0)
        });
        BezierVolume { control: Arc::new(control) }
    }

    /// Cubic Bernstein weights at `t` and their derivatives.
    pub fn basis(t: f32) -> ([f32; 4], [f32; 4]) {
        let s = 1.0 - t;
        (
            [s * s * s, 3.0 * t * s * s, 3.0 * t * t * s, t * t * t],
            [-3.0 * s * s, 3.0 * s * s - 6.0 * t * s, 6.0 * t * s - 3.0 * t * t, 3.0 * t * t],
        )
    }

    /// The deformed position and (unit) normal of a vertex at `uvw` with rest normal `n`.
    pub fn apply(&self, uvw: [f32; 3], n: [f32; 3]) -> ([f32; 3], [f32; 3]) {
        let (bu, du) = Self::basis(uvw[0]);
        let (bv, dv) = Self::basis(uvw[1]);
        let (bw, dw) = Self::basis(uvw[2]);
        let mut p = [0.0f32; 3];
        let mut ju = [0.0f32; 3];
        let mut jv = [0.0f32; 3];
        let mut jw = [0.0f32; 3];
        for k in 0..4 {
            for j in 0..4 {
                for i in 0..4 {
                    let c = self.control[i + 4 * j + 16 * k];
                    let (w, wu, wv, ww) = (bu[i] * bv[j] * bw[k], du[i] * bv[j] * bw[k], bu[i] * dv[j] * bw[k], bu[i] * bv[j] * dw[k]);
                    for a in 0..3 {
                        p[a] += w * c[a];
                        ju[a] += wu * c[a];
                        jv[a] += wv * c[a];
                        jw[a] += ww * c[a];
                    }
                }
            }
        }
        // cofactor matrix (det J · J^-T): its columns are jv×jw, jw×ju, ju×jv
        let cross = |a: [f32; 3], b: [f32; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
        let (c0, c1, c2) = (cross(jv, jw), cross(jw, ju), cross(ju, jv));
        let m: [f32; 3] = std::array::from_fn(|a| c0[a] * n[0] + c1[a] * n[1] + c2[a] * n[2]);
        let len = (m[0] * m[0] + m[1] * m[1] + m[2] * m[2]).sqrt();
        let m = if len > 0.0 { m.map(|x| x / len) } else { n };
        (p, m)
    }

    /// Bounds of the control points, which contain the deformed unit cube.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for c in self.control.iter() {
            for a in 0..3 {
                lo[a] = lo[a].min(c[a]);
                hi[a] = hi[a].max(c[a]);
            }
        }
        (lo, hi)
    }
}

/// One placement of a mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshInstance {
    pub mesh: MeshRef,
    /// Column-major 4×4 model matrix.
    pub transform: [[f32; 4]; 4],
    pub material: Material,
    /// Bends the mesh (whose positions are then in the unit cube) before `transform` applies.
    pub deform: Option<BezierVolume>,
}

pub const IDENTITY: [[f32; 4]; 4] = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

/// The sRGB transfer function: encoded 0..1 → linear light.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 { c / 12.92 } else { portable::powf((c + 0.055) / 1.055, 2.4) }
}

/// Linear light → sRGB-encoded 0..1 (clamped).
pub fn linear_to_srgb(c: f32) -> f32 {
    let c = c.clamp(0.0, 1.0);
    if c <= 0.003_130_8 { c * 12.92 } else { 1.055 * portable::powf(c, 1.0 / 2.4) - 0.055 }
}

/// Linear-light RGB → 8-bit sRGB with the given alpha byte: the encoding of `MeshData::colors`.
pub fn srgb8(c: [f32; 3], alpha: u8) -> [u8; 4] {
    let [r, g, b] = c.map(|v| (linear_to_srgb(v) * 255.0).round() as u8);
    [r, g, b, alpha]
}

/// FNV-1a, 64 bits, over bytes: a hash that is the same on every machine and every run.
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    pub fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.bytes(&x.to_bits().to_le_bytes());
        }
    }

    pub fn finish(&self) -> u64 {
        self.0
    }

    /// The hash of one byte string.
    pub fn hash(b: &[u8]) -> u64 {
        let mut h = Fnv::new();
        h.bytes(b);
        h.finish()
    }
}

impl Default for Fnv {
    fn default() -> Self {
        Self::new()
    }
}

impl FrameData {
    /// A hash of everything the frame shows, bit for bit (mesh contents through their keys).
    pub fn digest(&self) -> u64 {
        let mut h = Fnv::new();
        h.bytes(&self.index.to_le_bytes());
        h.bytes(&self.time.to_bits().to_le_bytes());
        let c = &self.camera;
        h.f32s(&c.eye);
        h.f32s(&c.target);
        h.f32s(&c.up);
        h.f32s(&[c.fov_y_deg, c.near, c.far]);
        h.f32s(&self.background.top);
        h.f32s(&self.background.bottom);
        let l = &self.lighting;
        h.f32s(&l.to_sun);
        h.f32s(&l.sun);
        h.f32s(&l.sky);
        h.f32s(&l.ground);
        h.f32s(&[l.shadows as u8 as f32, l.shadow_softness, l.fog_density]);
        h.f32s(&l.fog_color);
        for m in &self.meshes {
            h.bytes(&m.mesh.key.to_le_bytes());
            for col in &m.transform {
                h.f32s(col);
            }
            h.f32s(&m.material.tint);
            h.f32s(&[m.material.roughness, m.material.specular, m.material.casts_shadow as u8 as f32]);
            h.f32s(&[m.material.translucent as u8 as f32, m.material.rim, m.material.receives_shadow as u8 as f32]);
            // later additions only when set, so the digests of frames without them do not change;
            // `closed` is left out: it changes how a mesh is drawn, not what it shows
            if m.material.fill != Fill::Shaded {
                h.bytes(b"hidden");
            }
            if let Some(w) = m.material.wire {
                h.f32s(&w.color);
                h.f32s(&[w.width]);
            }
            if let Some(d) = &m.deform {
                h.f32s(d.control.as_flattened());
            }
        }
        for b in &self.batches {
            h.bytes(&b.mesh.key.to_le_bytes());
            h.bytes(&b.placements.key.to_le_bytes());
            h.bytes(&[b.deform as u8, b.material.casts_shadow as u8, b.material.receives_shadow as u8]);
            h.f32s(&b.material.tint);
            h.f32s(&[b.material.roughness, b.material.specular]);
            h.bytes(bytemuck::cast_slice(&b.motion));
            h.bytes(&b.drawn.map_or(u64::MAX, u64::from).to_le_bytes());
        }
        if let Some(c) = &self.canvas {
            h.f32s(&c.size);
            if let Some(l) = &c.static_layer {
                h.bytes(&l.key.to_le_bytes());
            }
            for s in &c.shapes {
                s.hash_into(&mut h);
            }
            for t in &c.texts {
                t.hash_into(&mut h);
            }
        }
        for v in &self.views {
            h.f32s(&v.rect);
            if let Some(z) = &v.zoom {
                h.f32s(&z.region);
                h.f32s(&[z.aspect]);
            }
            h.bytes(&v.frame.digest().to_le_bytes());
        }
        h.finish()
    }
}
