//! The tables every scene kind shares: `[render]`, `[camera]`, `[light]`, `[output]`.
//! Every field has a default; units are metres, seconds and degrees; y is up.

use super::reader::TableReader;
use super::values::{Animated, Srgb};

/// `[render]`: frame size and timing, anti-aliasing, background.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderSpec {
    /// Pixels (default 640 × 480).
    pub width: u32,
    pub height: u32,
    /// Frames per second of the animation (default 30).
    pub fps: u32,
    /// Number of frames (default 60; or `duration` seconds × fps).
    pub frames: u32,
    /// Samples per pixel, 1 or 4 (default 4).
    pub msaa: u32,
    /// Vertical background gradient.
    pub background_top: Srgb,
    pub background_bottom: Srgb,
}

impl RenderSpec {
    /// Length of the scene in seconds (frames / fps).
    pub fn duration(&self) -> f64 {
        self.frames as f64 / self.fps as f64
    }

    /// When frame `frame` is shown, seconds.
    pub fn time_of(&self, frame: u32) -> f64 {
        frame as f64 / self.fps as f64
    }

    /// The frame showing time `t` (seconds): the last one at or before it, the inverse of
    /// [`RenderSpec::time_of`] (a time a hair before a frame's, from rounding, counts as that
    /// frame). Simulations name the frame of a fault with it.
    pub fn frame_at(&self, t: f64) -> u32 {
        (t * self.fps as f64 + 1e-7).floor().clamp(0.0, u32::MAX as f64) as u32
    }
}

/// Largest frame side: far beyond any GIF or figure, within every adapter's 8192 texture limit.
pub const MAX_SIDE: i64 = 8192;
/// A day of frames at 60 fps caps runaway frame counts.
pub const MAX_FRAMES: i64 = 5_184_000;

pub fn read_render(t: &TableReader) -> RenderSpec {
    let width = t.int_in("width", 640, 16..=MAX_SIDE) as u32;
    let height = t.int_in("height", 480, 16..=MAX_SIDE) as u32;
    let fps = t.int_in("fps", 30, 1..=240) as u32;
    let frames = if t.has("duration") && t.has("frames") {
        t.error_at("duration", "give either `frames` or `duration`, not both");
        60
    } else if t.has("duration") {
        let d = t.f64_in("duration", 2.0, 0.001..86_400.0);
        ((d * fps as f64).round() as u32).max(1)
    } else {
        t.int_in("frames", 60, 1..=MAX_FRAMES) as u32
    };
    let msaa = t.int_in("msaa", 4, 1..=4) as u32;
    if msaa != 1 && msaa != 4 {
        t.error_at("msaa", format!("{msaa} samples are not supported: use 1 or 4"));
    }
    let bg = t.table("background");
    let background_top = bg.color("top", Srgb([0.56, 0.72, 0.91]));
    let background_bottom = bg.color("bottom", Srgb([0.91, 0.93, 0.96]));
    bg.finish();
    RenderSpec { width, height, fps, frames, msaa: if msaa == 4 { 4 } else { 1 }, background_top, background_bottom }
}

/// `[camera]`: a fixed camera, or one orbiting a centre over the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct CameraSpec {
    pub position: Animated<3>,
    pub target: Animated<3>,
    /// Vertical field of view, degrees (default 45).
    pub fov_deg: f64,
    pub near: f64,
    pub far: f64,
    pub orbit: Option<OrbitSpec>,
}

/// `[camera.orbit]`: the eye circles `center` at `radius`, `height` above it, from `start_deg`
/// sweeping `sweep_deg` over the whole scene (azimuth measured from +x towards +z).
#[derive(Clone, Debug, PartialEq)]
pub struct OrbitSpec {
    pub center: [f64; 3],
    pub radius: f64,
    pub height: f64,
    pub start_deg: f64,
    pub sweep_deg: f64,
}

impl CameraSpec {
    /// The camera at `time` of a scene lasting `duration` (seconds), as frames carry it.
    pub fn camera_at(&self, time: f64, duration: f64) -> crate::frame::Camera {
        let (eye, target) = self.eye_target(time, duration);
        crate::frame::Camera {
            eye: eye.map(|c| c as f32),
            target: target.map(|c| c as f32),
            up: [0.0, 1.0, 0.0],
            fov_y_deg: self.fov_deg as f32,
            near: self.near as f32,
            far: self.far as f32,
        }
    }

    /// Eye and target at `time` of a scene lasting `duration` (seconds).
    pub fn eye_target(&self, time: f64, duration: f64) -> ([f64; 3], [f64; 3]) {
        match &self.orbit {
            Some(o) => {
                let f = if duration > 0.0 { time / duration } else { 0.0 };
                let a = (o.start_deg + o.sweep_deg * f).to_radians();
                let eye = [o.center[0] + o.radius * a.cos(), o.center[1] + o.height, o.center[2] + o.radius * a.sin()];
                (eye, o.center)
            }
            None => (self.position.at(time, duration), self.target.at(time, duration)),
        }
    }
}

pub fn read_camera(t: &TableReader) -> CameraSpec {
    const FAR: f64 = 1.0e6;
    let position = t.animated("position", [6.0, 4.0, 8.0], -FAR..FAR);
    let target = t.animated("target", [0.0, 0.0, 0.0], -FAR..FAR);
    let fov_deg = t.f64_in("fov", 45.0, 5.0..150.0);
    let near = t.f64_in("near", 0.05, 1e-4..1e4);
    let far = t.f64_in("far", 500.0, 1e-3..FAR);
    if far <= near {
        t.error_at("far", "far must be larger than near");
    }
    let orbit = t.has("orbit").then(|| {
        let o = t.table("orbit");
        let spec = OrbitSpec {
            center: o.numbers("center", [0.0, 0.0, 0.0]),
            radius: o.f64_in("radius", 10.0, 1e-3..FAR),
            height: o.f64_in("height", 5.0, -FAR..FAR),
            start_deg: o.f64_in("start", 0.0, -3600.0..3600.0),
            sweep_deg: o.f64_in("sweep", 90.0, -3600.0..3600.0),
        };
        o.finish();
        spec
    });
    if orbit.is_some() && (t.has("position") || t.has("target")) {
        t.error_at("orbit", "an orbiting camera takes its position and target from [camera.orbit]; remove `position`/`target`");
    }
    CameraSpec { position, target, fov_deg, near, far, orbit }
}

/// `[light]`: a sun with shadows, a hemisphere of sky and ground light, distance fog.
#[derive(Clone, Debug, PartialEq)]
pub struct LightSpec {
    /// Sun azimuth (degrees from +x towards +z) and elevation above the horizon.
    pub sun_azimuth_deg: f64,
    pub sun_elevation_deg: f64,
    pub sun_color: Srgb,
    pub sun_intensity: f64,
    pub sky: Srgb,
    pub ground: Srgb,
    pub ambient: f64,
    pub shadows: bool,
    /// Shadow filter radius in shadow-map texels (soft edges).
    pub shadow_softness: f64,
    /// Fog density per metre (0 = none); the fog takes the bottom background colour.
    pub fog: f64,
}

impl LightSpec {
    /// Unit vector pointing from the scene towards the sun.
    pub fn to_sun(&self) -> [f64; 3] {
        let (az, el) = (self.sun_azimuth_deg.to_radians(), self.sun_elevation_deg.to_radians());
        [el.cos() * az.cos(), el.sin(), el.cos() * az.sin()]
    }
}

pub fn read_light(t: &TableReader) -> LightSpec {
    LightSpec {
        sun_azimuth_deg: t.f64_in("sun_azimuth", 35.0, -360.0..360.0),
        sun_elevation_deg: t.f64_in("sun_elevation", 40.0, 1.0..90.0),
        sun_color: t.color("sun_color", Srgb([1.0, 0.96, 0.9])),
        sun_intensity: t.f64_in("sun_intensity", 3.0, 0.0..100.0),
        sky: t.color("sky", Srgb([0.62, 0.75, 0.95])),
        ground: t.color("ground", Srgb([0.36, 0.31, 0.26])),
        ambient: t.f64_in("ambient", 0.35, 0.0..10.0),
        shadows: t.bool("shadows", true),
        shadow_softness: t.f64_in("shadow_softness", 1.5, 0.0..8.0),
        fog: t.f64_in("fog", 0.0, 0.0..10.0),
    }
}

/// What a render writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Png,
    Gif,
    /// Animated PNG, made from the PNG frames (which are kept).
    Apng,
    /// H.264 in MP4 through the system's ffmpeg, made from the PNG frames.
    Mp4,
    /// VP9 in WebM through the system's ffmpeg, made from the PNG frames.
    Webm,
}

impl Format {
    pub const NAMES: [&'static str; 5] = ["png", "gif", "apng", "mp4", "webm"];

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "png" => Format::Png,
            "gif" => Format::Gif,
            "apng" => Format::Apng,
            "mp4" => Format::Mp4,
            "webm" => Format::Webm,
            _ => return None,
        })
    }

    /// As written in `formats` and `--format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Gif => "gif",
            Format::Apng => "apng",
            Format::Mp4 => "mp4",
            Format::Webm => "webm",
        }
    }

    /// Made from the PNG frames: asking for it writes them too.
    pub fn needs_png(self) -> bool {
        matches!(self, Format::Png | Format::Apng | Format::Mp4 | Format::Webm)
    }
}

/// `[output]`: formats and GIF settings.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    pub formats: Vec<Format>,
    /// GIF frame rate (default: the render fps).
    pub gif_fps: Option<u32>,
    /// Error-diffusion dithering in the GIF (default on).
    pub gif_dither: bool,
}

pub fn read_output(t: &TableReader) -> OutputSpec {
    let mut formats = Vec::new();
    if let Some(v) = t.raw("formats") {
        match v.get_ref() {
            toml::de::DeValue::Array(items) => {
                for item in items.iter() {
                    match item.get_ref().as_str().and_then(Format::from_name) {
                        Some(f) => formats.push(f),
                        _ => t.error_at("formats", "formats are \"png\", \"gif\", \"apng\", \"mp4\" and \"webm\""),
                    }
                }
            }
            _ => t.error_at("formats", "expected an array such as [\"png\", \"gif\"]"),
        }
    } else {
        formats = vec![Format::Png, Format::Gif];
    }
    formats.dedup();
    let gif_fps = t.has("gif_fps").then(|| t.int_in("gif_fps", 30, 1..=100) as u32);
    let gif_dither = t.bool("gif_dither", true);
    OutputSpec { formats, gif_fps, gif_dither }
}
