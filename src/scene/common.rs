//! The tables every scene kind shares: `[render]`, `[camera]`, `[light]`, `[output]`.
//! Every field has a default; units are metres, seconds and degrees; y is up.

use super::keys::{Key, Table, Ty};
use super::reader::TableReader;
use super::values::{Animated, Srgb};
use crate::portable;

// the size is a simulation input too: a flock without `canvas` lives on a canvas of this size
// (`--size` and drafts keep the file's canvas)
const WIDTH: Key = Key::int("width", 640, 16, MAX_SIDE).unit("px").doc("frame width (a flock without `canvas` simulates on it)");
const HEIGHT: Key = Key::int("height", 480, 16, MAX_SIDE).unit("px").doc("frame height (a flock without `canvas` simulates on it)");
const FPS: Key = Key::int("fps", 30, 1, 240).unit("frames/s").doc("frames per second of the animation");
const FRAMES: Key = Key::int("frames", 60, 1, MAX_FRAMES).doc("number of frames (or give `duration`)");
const DURATION: Key =
    Key::float("duration", 2.0, 0.001, 86_400.0).unit("s").doc("length of the scene; frames = duration × fps (or give `frames`)");
const MSAA: Key = Key::int_in("msaa", 4, &[1, 4]).doc("samples a pixel: 4 (anti-aliased) or 1 (drafts)");
const BG_TOP: Key = Key::color("top", Srgb([0.56, 0.72, 0.91])).doc("colour at the top of the frame");
const BG_BOTTOM: Key = Key::color("bottom", Srgb([0.91, 0.93, 0.96])).doc("colour at the bottom (and of the fog)");
const BACKGROUND: Table = Table::new("a vertical gradient behind everything", &[BG_TOP, BG_BOTTOM]);
const BACKGROUND_KEY: Key = Key::table("background", &BACKGROUND).doc("the background gradient");

/// `[render]`.
pub const RENDER: Table =
    Table::new("frame size and timing, anti-aliasing, background", &[WIDTH, HEIGHT, FPS, FRAMES, DURATION, MSAA, BACKGROUND_KEY]);

const FAR: f64 = 1.0e6;
const POSITION: Key = Key::animated("position", &[6.0, 4.0, 8.0], -FAR, FAR).unit("m").doc("where the eye is");
const TARGET: Key = Key::animated("target", &[0.0, 0.0, 0.0], -FAR, FAR).unit("m").doc("the point looked at");
const FOV: Key = Key::float("fov", 45.0, 5.0, 150.0).unit("°").doc("vertical field of view");
const NEAR: Key = Key::float("near", 0.05, 1e-4, 1e4).unit("m").doc("nearest distance drawn");
const FAR_KEY: Key = Key::float("far", 500.0, 1e-3, FAR).unit("m").doc("farthest distance drawn");
const CENTER: Key = Key::vector("center", &[0.0, 0.0, 0.0], -FAR, FAR).unit("m").doc("the point the eye circles and looks at");
const RADIUS: Key = Key::float("radius", 10.0, 1e-3, FAR).unit("m").doc("horizontal distance of the eye from the centre");
const ORBIT_HEIGHT: Key = Key::float("height", 5.0, -FAR, FAR).unit("m").doc("height of the eye above the centre");
const START: Key = Key::float("start", 0.0, -3600.0, 3600.0).unit("°").doc("azimuth at the first frame, from +x towards +z");
const SWEEP: Key = Key::float("sweep", 90.0, -3600.0, 3600.0).unit("°").doc("azimuth swept over the whole scene");
const ORBIT: Table = Table::new("an eye circling a centre over the scene", &[CENTER, RADIUS, ORBIT_HEIGHT, START, SWEEP]);
const ORBIT_KEY: Key = Key::table("orbit", &ORBIT).doc("orbit a centre instead of a fixed `position` and `target`");
const TURN: Key = Key::of("turn", Ty::Rows(&[2])).doc(
    "a reader's drags as the web player recorded them (\"save this take\"): [time, degrees], each held until the next: the eye turned that far about the target, around the vertical",
);

/// `[camera]`.
pub const CAMERA: Table =
    Table::new("a fixed or animated camera, or one orbiting a centre", &[POSITION, TARGET, FOV, NEAR, FAR_KEY, ORBIT_KEY, TURN]);

const SUN_AZIMUTH: Key = Key::float("sun_azimuth", 35.0, -360.0, 360.0).unit("°").doc("direction of the sun, from +x towards +z");
const SUN_ELEVATION: Key = Key::float("sun_elevation", 40.0, 1.0, 90.0).unit("°").doc("height of the sun above the horizon");
const SUN_COLOR: Key = Key::color("sun_color", Srgb([1.0, 0.96, 0.9])).doc("colour of the sunlight");
const SUN_INTENSITY: Key = Key::float("sun_intensity", 3.0, 0.0, 100.0).doc("strength of the sunlight");
const SKY: Key = Key::color("sky", Srgb([0.62, 0.75, 0.95])).doc("light from above (hemisphere)");
const GROUND: Key = Key::color("ground", Srgb([0.36, 0.31, 0.26])).doc("light from below (hemisphere)");
const AMBIENT: Key = Key::float("ambient", 0.35, 0.0, 10.0).doc("strength of the sky and ground light");
const SHADOWS: Key = Key::flag("shadows", true).doc("the sun casts shadows");
const SHADOW_SOFTNESS: Key = Key::float("shadow_softness", 1.5, 0.0, 8.0).unit("texels").doc("blur of shadow edges");
const FOG: Key = Key::float("fog", 0.0, 0.0, 10.0).unit("1/m").doc("fog density (0: none); the fog takes the background's bottom colour");

/// `[light]`.
pub const LIGHT: Table = Table::new(
    "a sun with shadows, a hemisphere of sky and ground light, distance fog",
    &[SUN_AZIMUTH, SUN_ELEVATION, SUN_COLOR, SUN_INTENSITY, SKY, GROUND, AMBIENT, SHADOWS, SHADOW_SOFTNESS, FOG],
);

const FORMATS: Key = Key::of("formats", Ty::List(&Ty::Choice(&Format::NAMES)))
    .said("[\"png\", \"gif\"]")
    .doc("what a render writes: png, gif, apng, mp4, webm, webp, avif (all but gif are made from the PNG frames; mp4, webm, webp and avif by the system's ffmpeg)");
const GIF_FPS: Key = Key::int("gif_fps", 30, 1, 100).said("the render's fps").unit("frames/s").doc("the GIF's frame rate: below the render's, frames are dropped evenly and the motion keeps its speed; at or above it, every frame at the render's rate");
const GIF_DITHER: Key = Key::flag("gif_dither", true)
    .doc("error-diffusion dithering in the GIF (off: flat colours, each within 4 levels of its palette's nearest, and larger files)");

/// `[output]`.
const GIF_MAX_SIZE: Key = Key::float("gif_max_size", 2.0, 0.002, 1e6)
    .said("none")
    .unit("MB")
    .doc("the most the GIF may weigh, in megabytes (10⁶ bytes): a larger one is made again from the frames at a lower rate, a smaller size or fewer colours, the least loss that fits, and the render says what it chose (`--max-size` gives it on the command line)");
const MP4_CRF: Key = Key::int("mp4_crf", 18, 0, 51).doc("the MP4's H.264 constant rate factor: lower is better and larger (0: lossless; 18: hard to tell from the frames; +6 about halves the size)");
const WEBM_CRF: Key = Key::int("webm_crf", 30, 0, 63).doc("the WebM's VP9 constant quality: lower is better and larger");
const WEBP_QUALITY: Key = Key::int("webp_quality", 90, 0, 100)
    .doc("the WebP's quality: 0 to 99 lossy (higher is better and larger), 100 lossless (every pixel as the frame has it)");
const AVIF_CRF: Key = Key::int("avif_crf", 24, 0, 63)
    .doc("the AVIF's AV1 constant quality: lower is better and larger (a still keeps full colour resolution, an animation halves it)");
pub const OUTPUT: Table =
    Table::new("what a render writes", &[FORMATS, GIF_FPS, GIF_DITHER, GIF_MAX_SIZE, MP4_CRF, WEBM_CRF, WEBP_QUALITY, AVIF_CRF]);

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
    /// The timing of its frames, which the simulation is built from.
    pub fn timing(&self) -> Timing {
        Timing { fps: self.fps, frames: self.frames }
    }

    /// Length of the scene in seconds (frames / fps).
    pub fn duration(&self) -> f64 {
        self.timing().duration()
    }
}

/// When a scene's frames are: frame `i` shows time `i / fps` of a scene `frames / fps` seconds
/// long.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Timing {
    /// Frames per second of the animation.
    pub fps: u32,
    /// Frames in the scene.
    pub frames: u32,
}

impl Timing {
    /// Length of the scene in seconds (frames / fps).
    pub fn duration(&self) -> f64 {
        self.frames as f64 / self.fps as f64
    }

    /// When frame `frame` is shown, seconds.
    pub fn time_of(&self, frame: u32) -> f64 {
        frame as f64 / self.fps as f64
    }

    /// The frame showing time `t` (seconds): the last one at or before it, the inverse of
    /// [`Timing::time_of`] (a time a hair before a frame's, from rounding, counts as that
    /// frame). Simulations name the frame of a fault with it.
    pub fn frame_at(&self, t: f64) -> u32 {
        (t * self.fps as f64 + 1e-7).floor().clamp(0.0, u32::MAX as f64) as u32
    }
}

/// Largest frame side: far beyond any GIF or figure, within every adapter's 8192 texture limit.
pub const MAX_SIDE: i64 = 8192;

/// `640x480` → (640, 480), within 16..=[`MAX_SIDE`] per side (a `--size` on the command line).
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s.split_once(['x', 'X', '×']).ok_or_else(|| format!("\"{s}\" is not WIDTHxHEIGHT (e.g. 320x240)"))?;
    let side = |v: &str| -> Result<u32, String> {
        let n: u32 = v.trim().parse().map_err(|_| format!("\"{v}\" is not a whole number of pixels"))?;
        if !(16..=MAX_SIDE as u32).contains(&n) {
            return Err(format!("{n} pixels is outside 16..={MAX_SIDE}"));
        }
        Ok(n)
    };
    Ok((side(w)?, side(h)?))
}
/// A day of frames at 60 fps caps runaway frame counts.
pub const MAX_FRAMES: i64 = 5_184_000;

pub fn read_render(t: &TableReader) -> RenderSpec {
    let width = t.int(&WIDTH) as u32;
    let height = t.int(&HEIGHT) as u32;
    let fps = t.int(&FPS) as u32;
    let frames = if t.has(&DURATION) && t.has(&FRAMES) {
        t.error_at(&DURATION, "give either `frames` or `duration`, not both");
        // the frames given, so that nothing else is held against a count nobody wrote
        t.int(&FRAMES) as u32
    } else if t.has(&DURATION) {
        let d = t.float(&DURATION);
        ((d * fps as f64).round() as u32).max(1)
    } else {
        t.int(&FRAMES) as u32
    };
    let msaa = t.int(&MSAA) as u32;
    let bg = t.table(&BACKGROUND_KEY);
    let background_top = bg.color(&BG_TOP);
    let background_bottom = bg.color(&BG_BOTTOM);
    bg.finish();
    RenderSpec { width, height, fps, frames, msaa: if msaa == 4 { 4 } else { 1 }, background_top, background_bottom }
}

/// `[camera]`: a fixed camera, or one orbiting a centre over the scene.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CameraSpec {
    pub position: Animated<3>,
    pub target: Animated<3>,
    /// Vertical field of view, degrees (default 45).
    pub fov_deg: f64,
    pub near: f64,
    pub far: f64,
    pub orbit: Option<OrbitSpec>,
    /// A reader's drags (time, degrees), held from key to key: the eye turned about the target
    /// around the vertical by the degrees of the last key at or before the time.
    pub turn: Vec<[f64; 2]>,
}

/// `[camera.orbit]`: the eye circles `center` at `radius`, `height` above it, from `start_deg`
/// sweeping `sweep_deg` over the whole scene (azimuth measured from +x towards +z).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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
        let (eye, target) = self.scripted_eye_target(time, duration);
        let turned = self.turn.partition_point(|k| k[0] <= time).checked_sub(1).map_or(0.0, |i| self.turn[i][1]);
        if turned == 0.0 {
            // untouched, bit for bit (a turn of 0 would round the eye's coordinates)
            return (eye, target);
        }
        let (sin, cos) = (portable::sin(turned.to_radians()), portable::cos(turned.to_radians()));
        let (dx, dz) = (eye[0] - target[0], eye[2] - target[2]);
        ([target[0] + dx * cos - dz * sin, eye[1], target[2] + dx * sin + dz * cos], target)
    }

    /// Eye and target as the scene scripts them, before a reader's turn.
    fn scripted_eye_target(&self, time: f64, duration: f64) -> ([f64; 3], [f64; 3]) {
        match &self.orbit {
            Some(o) => {
                let f = if duration > 0.0 { time / duration } else { 0.0 };
                let a = (o.start_deg + o.sweep_deg * f).to_radians();
                let eye = [o.center[0] + o.radius * portable::cos(a), o.center[1] + o.height, o.center[2] + o.radius * portable::sin(a)];
                (eye, o.center)
            }
            None => (self.position.at(time, duration), self.target.at(time, duration)),
        }
    }
}

pub fn read_camera(t: &TableReader) -> CameraSpec {
    let position = t.animated(&POSITION);
    let target = t.animated(&TARGET);
    let fov_deg = t.float(&FOV);
    let near = t.float(&NEAR);
    let far = t.float(&FAR_KEY);
    if far <= near {
        t.error_at(&FAR_KEY, "far must be larger than near");
    }
    let orbit = t.has(&ORBIT_KEY).then(|| {
        let o = t.table(&ORBIT_KEY);
        let spec = OrbitSpec {
            center: o.numbers(&CENTER),
            radius: o.float(&RADIUS),
            height: o.float(&ORBIT_HEIGHT),
            start_deg: o.float(&START),
            sweep_deg: o.float(&SWEEP),
        };
        o.finish();
        spec
    });
    if orbit.is_some() && (t.has(&POSITION) || t.has(&TARGET)) {
        t.error_at(&ORBIT_KEY, "an orbiting camera takes its position and target from [camera.orbit]; remove `position`/`target`");
    }
    let turn: Vec<[f64; 2]> = t.rows(&TURN, "[time, degrees]").into_iter().map(|k| [k[0], k[1]]).collect();
    if turn.windows(2).any(|w| w[1][0] <= w[0][0]) {
        t.error_at(&TURN, "turn times must increase");
    }
    CameraSpec { position, target, fov_deg, near, far, orbit, turn }
}

/// `[light]`: a sun with shadows, a hemisphere of sky and ground light, distance fog.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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
        [portable::cos(el) * portable::cos(az), portable::sin(el), portable::cos(el) * portable::sin(az)]
    }
}

pub fn read_light(t: &TableReader) -> LightSpec {
    LightSpec {
        sun_azimuth_deg: t.float(&SUN_AZIMUTH),
        sun_elevation_deg: t.float(&SUN_ELEVATION),
        sun_color: t.color(&SUN_COLOR),
        sun_intensity: t.float(&SUN_INTENSITY),
        sky: t.color(&SKY),
        ground: t.color(&GROUND),
        ambient: t.float(&AMBIENT),
        shadows: t.flag(&SHADOWS),
        shadow_softness: t.float(&SHADOW_SOFTNESS),
        fog: t.float(&FOG),
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
    /// WebP (animated; a still of one frame) through the system's ffmpeg, made from the PNG frames.
    Webp,
    /// AVIF (an AV1 image sequence; a still of one frame) through the system's ffmpeg, made from
    /// the PNG frames.
    Avif,
}

impl Format {
    pub const NAMES: [&'static str; 7] = ["png", "gif", "apng", "mp4", "webm", "webp", "avif"];

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "png" => Format::Png,
            "gif" => Format::Gif,
            "apng" => Format::Apng,
            "mp4" => Format::Mp4,
            "webm" => Format::Webm,
            "webp" => Format::Webp,
            "avif" => Format::Avif,
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
            Format::Webp => "webp",
            Format::Avif => "avif",
        }
    }

    /// Made from the PNG frames: asking for it writes them too.
    pub fn needs_png(self) -> bool {
        self != Format::Gif
    }

    /// Encoded by the system's ffmpeg, which is looked for before anything is rendered.
    pub fn needs_ffmpeg(self) -> bool {
        matches!(self, Format::Mp4 | Format::Webm | Format::Webp | Format::Avif)
    }

    /// Writes one frame as a picture of its own (`-o fig.webp` of one frame).
    pub fn is_still(self) -> bool {
        matches!(self, Format::Png | Format::Webp | Format::Avif)
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
    /// The most bytes the GIF may take (default: no limit).
    pub gif_max_size: Option<u64>,
    /// How the formats ffmpeg encodes trade size for fidelity.
    pub quality: Quality,
}

/// The encoders' quality settings (`mp4_crf`, `webm_crf`, `webp_quality`, `avif_crf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quality {
    pub mp4_crf: u32,
    pub webm_crf: u32,
    pub webp_quality: u32,
    pub avif_crf: u32,
}

impl Quality {
    /// The setting of `format`'s encoder, as the key names it (`crf 18`), for the formats that
    /// have one.
    pub fn of(&self, format: Format) -> Option<String> {
        Some(match format {
            Format::Mp4 => format!("crf {}", self.mp4_crf),
            Format::Webm => format!("crf {}", self.webm_crf),
            Format::Webp => format!("quality {}", self.webp_quality),
            Format::Avif => format!("crf {}", self.avif_crf),
            Format::Png | Format::Gif | Format::Apng => return None,
        })
    }
}

pub fn read_output(t: &TableReader) -> OutputSpec {
    let mut formats = Vec::new();
    if let Some(v) = t.raw(&FORMATS) {
        match v.get_ref() {
            toml::de::DeValue::Array(items) => {
                for item in items.iter() {
                    match item.get_ref().as_str().and_then(Format::from_name) {
                        Some(f) => formats.push(f),
                        _ => t.error_at(&FORMATS, "formats are \"png\", \"gif\", \"apng\", \"mp4\", \"webm\", \"webp\" and \"avif\""),
                    }
                }
            }
            _ => t.error_at(&FORMATS, "expected an array such as [\"png\", \"gif\"]"),
        }
    } else {
        formats = vec![Format::Png, Format::Gif];
    }
    formats.dedup();
    let gif_fps = t.has(&GIF_FPS).then(|| t.int(&GIF_FPS) as u32);
    let gif_dither = t.flag(&GIF_DITHER);
    let gif_max_size = t.has(&GIF_MAX_SIZE).then(|| (t.float(&GIF_MAX_SIZE) * 1e6).round() as u64);
    let quality = Quality {
        mp4_crf: t.int(&MP4_CRF) as u32,
        webm_crf: t.int(&WEBM_CRF) as u32,
        webp_quality: t.int(&WEBP_QUALITY) as u32,
        avif_crf: t.int(&AVIF_CRF) as u32,
    };
    OutputSpec { formats, gif_fps, gif_dither, gif_max_size, quality }
}

/// What a `legend` key takes: no legend, or the corner it stands in.
pub const CORNERS: &[&str] = &["none", "top-left", "top-right", "bottom-left", "bottom-right"];

/// The corner a `legend` key's value (one of [`CORNERS`]) names; none for `"none"`.
pub fn corner(choice: &str) -> Option<crate::frame::Corner> {
    use crate::frame::Corner;
    match choice {
        "top-left" => Some(Corner::TopLeft),
        "top-right" => Some(Corner::TopRight),
        "bottom-left" => Some(Corner::BottomLeft),
        "bottom-right" => Some(Corner::BottomRight),
        _ => None,
    }
}
