//! Animations besides GIF, made from the frames a render wrote as PNG: APNG (lossless, full
//! colour, written here with the `png` crate) and MP4 (H.264), WebM (VP9), WebP and AVIF (AV1)
//! through the system's `ffmpeg`, which is looked for before anything is rendered; WebP and AVIF
//! stills of one frame the same way. Each says what its colours are ([`Encoding`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{AtomicFile, OutputError};
use crate::scene::Format;
use crate::scene::common::Quality;

/// An animated PNG of `frames` (PNG files of one size, in order) at `fps`, looping forever.
pub fn write_apng(frames: &[PathBuf], out: &Path, fps: f64) -> Result<(), OutputError> {
    let err = |reason: String| OutputError::Animation { path: out.to_path_buf(), reason };
    let first = super::png::read(frames.first().ok_or_else(|| err("no frames".into()))?)?;
    let (w, h) = (first.width, first.height);
    let mut file = AtomicFile::create(out)?;
    {
        let mut enc = png::Encoder::new(&mut file, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_animated(frames.len() as u32, 0).map_err(|e| err(e.to_string()))?;
        // delays are fractions: 1/30 s exactly, or the nearest thousandth for other rates
        let (num, den) = if fps.fract() == 0.0 && fps >= 1.0 { (1, fps as u16) } else { ((1000.0 / fps).round() as u16, 1000) };
        enc.set_frame_delay(num, den).map_err(|e| err(e.to_string()))?;
        let mut writer = enc.write_header().map_err(|e| err(e.to_string()))?;
        for (i, f) in frames.iter().enumerate() {
            let d = if i == 0 { first.clone() } else { super::png::read(f)? };
            if (d.width, d.height) != (w, h) {
                return Err(err(format!("{} is {}×{}, the first frame {w}×{h}", f.display(), d.width, d.height)));
            }
            writer.write_image_data(&d.rgba).map_err(|e| err(e.to_string()))?;
        }
        writer.finish().map_err(|e| err(e.to_string()))?;
    }
    file.commit()
}

/// What ffmpeg encodes: a format it writes, its quality setting, and whether it is one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoding {
    pub format: Format,
    pub quality: Quality,
    /// A still (one frame, no animation).
    pub still: bool,
}

impl Encoding {
    /// The animation of `format` at `quality`.
    pub fn animation(format: Format, quality: Quality) -> Self {
        Encoding { format, quality, still: false }
    }

    /// Encoder arguments: H.264 for MP4 (played everywhere, `faststart` for the web), VP9 at
    /// constant quality for WebM, libwebp for WebP (lossless at quality 100; a lossy animation
    /// as one still per frame, put together by [`super::webp::animate`]) and AV1 for AVIF (full
    /// colour resolution in a still, halved in an animation as players expect). The 4:2:0 ones
    /// are padded to even sizes.
    ///
    /// Every file says what its colours are. MP4 and WebM: BT.709 primaries, the sRGB curve the
    /// frames have, converted with the BT.709 matrix into limited range and tagged so (untagged,
    /// ffmpeg converted with BT.601's matrix, which a browser playing HD video reads as BT.709:
    /// saturated pinks turned salmon). AVIF: sRGB's colours in full-range BT.601 YUV, as avifenc
    /// writes them and as every decoder reads a file that says nothing (a BT.709 matrix, read
    /// as BT.601 by ffmpeg's converter, tripled the FLIP error of a flock frame). WebP: the sRGB
    /// ICC profile ([`super::webp::tag_srgb`]).
    fn args(&self) -> Vec<String> {
        let q = &self.quality;
        let even = "pad=ceil(iw/2)*2:ceil(ih/2)*2";
        let video_vf = format!("{even},scale=out_color_matrix=bt709:out_range=tv,format=yuv420p");
        let video_tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "iec61966-2-1", "-color_range", "tv"];
        let mut a: Vec<String> = Vec::new();
        let mut push = |items: &[&str]| a.extend(items.iter().map(|s| s.to_string()));
        match self.format {
            Format::Mp4 => {
                push(&["-vf", &video_vf, "-c:v", "libx264", "-preset", "medium", "-crf", &q.mp4_crf.to_string()]);
                push(&video_tags);
                push(&["-movflags", "+faststart"]);
            }
            Format::Webm => {
                push(&["-vf", &video_vf, "-c:v", "libvpx-vp9", "-b:v", "0", "-crf", &q.webm_crf.to_string(), "-row-mt", "1"]);
                push(&video_tags);
            }
            Format::Webp => {
                push(&["-c:v", if self.still || self.whole_frames() { "libwebp" } else { "libwebp_anim" }]);
                if q.webp_quality >= 100 {
                    push(&["-lossless", "1", "-compression_level", "4"]);
                } else {
                    push(&["-quality", &q.webp_quality.to_string(), "-compression_level", "4"]);
                }
                if !self.still && !self.whole_frames() {
                    push(&["-loop", "0"]);
                }
            }
            Format::Avif => {
                let (pix, pad) = if self.still { ("yuv444p", String::new()) } else { ("yuv420p", format!("{even},")) };
                let vf = format!("{pad}scale=out_color_matrix=bt601:out_range=pc,format={pix}");
                push(&["-vf", &vf, "-c:v", "libaom-av1", "-crf", &q.avif_crf.to_string(), "-b:v", "0"]);
                push(&["-cpu-used", "6", "-row-mt", "1", "-colorspace", "smpte170m", "-color_primaries", "bt709"]);
                push(&["-color_trc", "iec61966-2-1", "-color_range", "pc"]);
                if self.still {
                    push(&["-still-picture", "1"]);
                }
            }
            Format::Png | Format::Gif | Format::Apng => unreachable!("{} is not encoded by ffmpeg", self.format.name()),
        }
        // no random identifiers (Matroska's segment and track UIDs) nor version strings: the same
        // frames give the same file
        // a WebP comes through a pipe, where ffmpeg's WebP muxer cannot go back to write the
        // file's size: libwebp's own files, as they are, one after another
        let container = if self.format == Format::Webp { "image2pipe" } else { self.format.name() };
        a.extend(["-fflags", "+bitexact", "-f", container].map(String::from));
        a
    }

    /// A lossy WebP animation: one still per frame, put together here.
    fn whole_frames(&self) -> bool {
        self.format == Format::Webp && !self.still && self.quality.webp_quality < 100
    }
}

/// The `ffmpeg` to run: `$SIMREEL_FFMPEG`, else `ffmpeg` on the PATH; an error naming the
/// package when there is none.
pub fn ffmpeg() -> Result<PathBuf, OutputError> {
    let set = crate::environment::Environment::current().ffmpeg.clone();
    let program = set.clone().unwrap_or_else(|| PathBuf::from("ffmpeg"));
    match (Command::new(&program).arg("-version").output(), set) {
        (Ok(o), _) if o.status.success() => Ok(program),
        (Err(e), Some(path)) => Err(OutputError::FfmpegAt { path, why: e.to_string() }),
        (Ok(o), Some(path)) => Err(OutputError::FfmpegAt { path, why: format!("`-version` ended with {}", o.status) }),
        (_, None) => Err(OutputError::NoFfmpeg),
    }
}

/// Encodes `frames` (PNG files, in order) at `fps` into `out` with `ffmpeg` (a still: the first),
/// calling `fed` after each frame handed over.
/// ffmpeg opens no path of ours: the frames are read here (plain files only) and piped to it,
/// and it writes into the temporary file made for `out` (its standard output, reopened by
/// ffmpeg as `/dev/stdout` so that the MP4 muxer can seek and read back for `faststart`), or
/// where there is no `/dev/stdout`, into a private folder of ours ([`Target`]). A WebP, which
/// needs no seeking, comes back through a pipe and is finished here ([`super::webp`]).
pub fn write_video(ffmpeg: &Path, frames: &[PathBuf], out: &Path, fps: f64, how: Encoding, fed: &dyn Fn()) -> Result<(), OutputError> {
    use std::io::Write as _;
    let err = |reason: String| OutputError::Animation { path: out.to_path_buf(), reason };
    let count = if how.still { 1.min(frames.len()) } else { frames.len() };
    let mut file = AtomicFile::create(out)?;
    if how.format == Format::Webp {
        let bytes = run(ffmpeg, &frames[..count], out, fps, how, None, fed)?;
        let files = super::webp::split_files(&bytes).map_err(|e| err(format!("ffmpeg's WebP: {e}")))?;
        let webp = match files[..] {
            _ if how.whole_frames() => super::webp::animate(&files, fps),
            [one] => super::webp::tag_srgb(one),
            _ => Err(format!("{} files where one was expected", files.len())),
        }
        .map_err(|e| err(format!("ffmpeg's WebP: {e}")))?;
        file.write_all(&webp).map_err(|source| OutputError::Write { path: out.to_path_buf(), source })?;
        return file.commit();
    }
    let (place, target, to) = Target::of(&mut file)?;
    run(ffmpeg, &frames[..count], out, fps, how, Some((target, to)), fed)?;
    place.finish(&mut file)?;
    file.commit()
}

/// Runs ffmpeg on `frames`, writing to `to` (its standard output going to the file given), or
/// where there is none, to its standard output, whose bytes it returns.
fn run(
    ffmpeg: &Path,
    frames: &[PathBuf],
    out: &Path,
    fps: f64,
    how: Encoding,
    to: Option<(std::process::Stdio, PathBuf)>,
    fed: &dyn Fn(),
) -> Result<Vec<u8>, OutputError> {
    use std::io::{Read as _, Write as _};
    use std::process::Stdio;
    let err = |reason: String| OutputError::Animation { path: out.to_path_buf(), reason };
    let piped = to.is_none();
    let (stdout, to) = to.unwrap_or_else(|| (Stdio::piped(), PathBuf::from("pipe:1")));
    let mut child = Command::new(ffmpeg)
        .args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "image2pipe", "-c:v", "png", "-framerate"])
        .arg(format!("{fps}"))
        .args(["-i", "pipe:0", "-r"])
        .arg(format!("{fps}"))
        .arg("-frames:v")
        .arg(frames.len().to_string())
        .args(how.args())
        .arg(to)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| err(format!("cannot run {}: {e}", ffmpeg.display())))?;
    let mut stdin = child.stdin.take().expect("piped");
    let drain = |mut from: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = from.read_to_end(&mut bytes);
            bytes
        })
    };
    let said = drain(Box::new(child.stderr.take().expect("piped")));
    let written = piped.then(|| drain(Box::new(child.stdout.take().expect("piped"))));
    // a frame that cannot be read ends the input; ffmpeg stopping early ends the feeding
    let handed = frames.iter().try_for_each(|f| {
        let bytes = super::read_plain(f)?;
        stdin.write_all(&bytes).map_err(|source| OutputError::Write { path: out.to_path_buf(), source })?;
        fed();
        Ok(())
    });
    drop(stdin);
    let status = child.wait().map_err(|e| err(format!("cannot run {}: {e}", ffmpeg.display())))?;
    let said = String::from_utf8_lossy(&said.join().unwrap_or_default()).into_owned();
    let bytes = written.map(|w| w.join().unwrap_or_default()).unwrap_or_default();
    if !status.success() {
        return Err(err(format!("ffmpeg failed: {}", said.trim().lines().last().unwrap_or("no message"))));
    }
    handed?;
    Ok(bytes)
}

/// Where ffmpeg writes the video: into the temporary file itself, as its standard output named
/// `/dev/stdout` (a path that leads to the open file whatever happens to the folder's names),
/// or, where that name leads nowhere (a bare chroot without `/dev` or `/proc`), into a private
/// folder of our own in the temporary folder, whose file is copied in after.
enum Target {
    Stdout,
    Private(simreel_compare::fs::TempFolder),
}

/// The file name ffmpeg writes inside a [`Target::Private`] folder.
const PRIVATE_NAME: &str = "video";

impl Target {
    fn of(file: &mut AtomicFile) -> Result<(Target, std::process::Stdio, PathBuf), OutputError> {
        let io = |path: PathBuf| move |source| OutputError::Write { path, source };
        if cfg!(unix) && std::fs::metadata("/dev/stdout").is_ok() {
            let handle = file.file()?.try_clone().map_err(io(PathBuf::from("/dev/stdout")))?;
            return Ok((Target::Stdout, std::process::Stdio::from(handle), PathBuf::from("/dev/stdout")));
        }
        let folder = simreel_compare::fs::TempFolder::new("simreel-video").map_err(io(std::env::temp_dir()))?;
        let path = folder.folder.path().join(PRIVATE_NAME);
        Ok((Target::Private(folder), std::process::Stdio::null(), path))
    }

    /// Copies what ffmpeg wrote into `file` where it wrote elsewhere; removes its copy.
    fn finish(self, file: &mut AtomicFile) -> Result<(), OutputError> {
        use std::io::Write as _;
        let Target::Private(folder) = self else { return Ok(()) };
        let name = std::ffi::OsStr::new(PRIVATE_NAME);
        let where_ = folder.folder.path().join(PRIVATE_NAME);
        let bytes = folder.folder.read(name).map_err(|source| OutputError::Write { path: where_.clone(), source })?;
        let _ = folder.folder.remove(name);
        file.write_all(&bytes).map_err(|source| OutputError::Write { path: where_, source })
    }
}
