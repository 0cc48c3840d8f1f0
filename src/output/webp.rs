//! WebP files put together here from libwebp's own (RIFF chunks, as the WebP container
//! specification lays them out): a lossy animation whose every frame is a whole picture, and the
//! sRGB colour profile every WebP simreel writes carries.
//!
//! libwebp's animation encoder, on lossy frames, keeps from the frame before whatever it judges
//! near enough at the quality asked: the kept blocks drift further from their frame with each
//! frame and stay on screen as staircases and rectangles (a fifth of a moving dice clip's
//! background). Here every frame is a lossy still of its own (libwebp's still encoder, through
//! ffmpeg), put in the animation whole, without blending: a frame shows nothing of another.
//! A WebP says what its colours are only by an ICC profile, so each file gets sRGB's.

use std::sync::OnceLock;

/// One chunk of a RIFF file: its four-character code and its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub fourcc: [u8; 4],
    pub data: &'a [u8],
}

/// VP8X flags (the byte after the chunk header).
const ICC_FLAG: u8 = 0x20;
const ALPHA_FLAG: u8 = 0x10;
const ANIMATION_FLAG: u8 = 0x02;

fn le24(n: u32) -> [u8; 3] {
    let b = n.to_le_bytes();
    [b[0], b[1], b[2]]
}

fn read_le24(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], 0])
}

/// The chunks of one WebP file (`RIFF` size `WEBP` chunks…).
pub fn chunks(file: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
    if file.len() < 12 || &file[0..4] != b"RIFF" || &file[8..12] != b"WEBP" {
        return Err("not a WebP file (no RIFF/WEBP header)".into());
    }
    let size = u32::from_le_bytes([file[4], file[5], file[6], file[7]]) as usize;
    let body = file.get(12..8 + size).ok_or_else(|| format!("the RIFF header says {size} bytes, the file has {}", file.len() - 8))?;
    let mut out = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let head = body.get(at..at + 8).ok_or("a chunk header cut short")?;
        let len = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        let data = body.get(at + 8..at + 8 + len).ok_or("a chunk cut short")?;
        out.push(Chunk { fourcc: [head[0], head[1], head[2], head[3]], data });
        at += 8 + len + (len & 1);
    }
    Ok(out)
}

/// The WebP files of a stream of them, one after another (what ffmpeg's `image2pipe` writes).
pub fn split_files(stream: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut files = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let head = stream.get(at..at + 8).ok_or("a file header cut short")?;
        if &head[0..4] != b"RIFF" {
            return Err(format!("no RIFF header at byte {at}"));
        }
        let len = 8 + u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
        files.push(stream.get(at..at + len).ok_or("a file cut short")?);
        at += len + (len & 1);
    }
    Ok(files)
}

/// The picture's size, from its VP8X chunk or its bitstream's header.
fn canvas(chunks: &[Chunk]) -> Result<(u32, u32), String> {
    for c in chunks {
        match &c.fourcc {
            b"VP8X" if c.data.len() >= 10 => return Ok((read_le24(&c.data[4..7]) + 1, read_le24(&c.data[7..10]) + 1)),
            // a key frame: 3-byte frame tag, start code 9d 01 2a, then 14-bit sides
            b"VP8 " if c.data.len() >= 10 && c.data[3..6] == [0x9d, 0x01, 0x2a] => {
                let side = |i: usize| u16::from_le_bytes([c.data[i], c.data[i + 1]]) as u32 & 0x3fff;
                return Ok((side(6), side(8)));
            }
            b"VP8L" if c.data.len() >= 5 && c.data[0] == 0x2f => {
                let bits = u32::from_le_bytes([c.data[1], c.data[2], c.data[3], c.data[4]]);
                return Ok(((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1));
            }
            _ => {}
        }
    }
    Err("no VP8X, VP8 or VP8L chunk says the picture's size".into())
}

/// Whether a picture's chunks carry alpha: an ALPH chunk, or a lossless bitstream that says so.
fn has_alpha(chunks: &[Chunk]) -> bool {
    chunks.iter().any(|c| &c.fourcc == b"ALPH" || (&c.fourcc == b"VP8L" && c.data.get(4).is_some_and(|b| b & 0x10 != 0)))
}

fn push_chunk(out: &mut Vec<u8>, fourcc: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(fourcc);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    if data.len() % 2 == 1 {
        out.push(0);
    }
}

fn riff(body: Vec<u8>) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 12);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(body.len() as u32 + 4).to_le_bytes());
    out.extend_from_slice(b"WEBP");
    out.extend(body);
    out
}

fn vp8x(flags: u8, (w, h): (u32, u32)) -> [u8; 10] {
    let mut d = [0u8; 10];
    d[0] = flags;
    d[4..7].copy_from_slice(&le24(w - 1));
    d[7..10].copy_from_slice(&le24(h - 1));
    d
}

/// Milliseconds frame `i` of an animation at `fps` stays on screen: rounded so that the frames
/// end where the render's do (33, 34, 33, … at 30 frames a second).
pub fn duration_ms(i: usize, fps: f64) -> u32 {
    let at = |k: usize| (k as f64 * 1000.0 / fps).round() as u64;
    (at(i + 1) - at(i)).clamp(1, 0xff_ffff) as u32
}

/// An animation, looping forever, of `frames` (still WebP files, one per frame, all of one
/// size) at `fps`: each frame whole and unblended, the sRGB profile in front.
pub fn animate(frames: &[&[u8]], fps: f64) -> Result<Vec<u8>, String> {
    let first = frames.first().ok_or("no frames")?;
    let size = canvas(&chunks(first)?)?;
    let mut body = Vec::new();
    let mut anmf = Vec::new();
    let mut alpha = false;
    for (i, f) in frames.iter().enumerate() {
        let parts = chunks(f).map_err(|e| format!("frame {i}: {e}"))?;
        alpha |= has_alpha(&parts);
        let s = canvas(&parts).map_err(|e| format!("frame {i}: {e}"))?;
        if s != size {
            return Err(format!("frame {i} is {}×{}, the first {}×{}", s.0, s.1, size.0, size.1));
        }
        // offset 0, 0; the canvas's size; no blending, no disposal
        let mut frame = Vec::with_capacity(f.len() + 16);
        frame.extend_from_slice(&[0; 6]);
        frame.extend_from_slice(&le24(size.0 - 1));
        frame.extend_from_slice(&le24(size.1 - 1));
        frame.extend_from_slice(&le24(duration_ms(i, fps)));
        frame.push(0b10);
        let mut image = 0;
        for c in parts.iter().filter(|c| matches!(&c.fourcc, b"ALPH" | b"VP8 " | b"VP8L")) {
            image += usize::from(&c.fourcc != b"ALPH");
            push_chunk(&mut frame, &c.fourcc, c.data);
        }
        if image != 1 {
            return Err(format!("frame {i} holds {image} pictures, not one"));
        }
        push_chunk(&mut anmf, b"ANMF", &frame);
    }
    let flags = ICC_FLAG | ANIMATION_FLAG | if alpha { ALPHA_FLAG } else { 0 };
    push_chunk(&mut body, b"VP8X", &vp8x(flags, size));
    push_chunk(&mut body, b"ICCP", srgb_profile());
    // background white (what a viewer may show around the canvas), loop forever
    push_chunk(&mut body, b"ANIM", &[0xff, 0xff, 0xff, 0xff, 0, 0]);
    body.extend(anmf);
    Ok(riff(body))
}

/// `file` (a still or an animated WebP) with the sRGB profile: a simple file (one VP8 or VP8L
/// chunk) gets the extended header it needs; a file with a profile keeps its own.
pub fn tag_srgb(file: &[u8]) -> Result<Vec<u8>, String> {
    let parts = chunks(file)?;
    if parts.iter().any(|c| &c.fourcc == b"ICCP") {
        return Ok(file.to_vec());
    }
    let size = canvas(&parts)?;
    let mut body = Vec::with_capacity(file.len() + srgb_profile().len() + 32);
    let mut flags = ICC_FLAG;
    if let Some(x) = parts.iter().find(|c| &c.fourcc == b"VP8X") {
        flags |= x.data[0];
    } else {
        flags |= if has_alpha(&parts) { ALPHA_FLAG } else { 0 };
    }
    push_chunk(&mut body, b"VP8X", &vp8x(flags, size));
    push_chunk(&mut body, b"ICCP", srgb_profile());
    for c in parts.iter().filter(|c| &c.fourcc != b"VP8X") {
        push_chunk(&mut body, &c.fourcc, c.data);
    }
    Ok(riff(body))
}

/// An ICC profile of sRGB (IEC 61966-2-1: BT.709 primaries, D65 white adapted to the profile's
/// D50, the piecewise sRGB curve), as small as a valid one can be (about 500 bytes).
pub fn srgb_profile() -> &'static [u8] {
    static PROFILE: OnceLock<Vec<u8>> = OnceLock::new();
    PROFILE.get_or_init(|| {
        let mut p = moxcms::ColorProfile::new_srgb();
        let text = |s: &str| moxcms::ProfileText::Localizable(vec![moxcms::LocalizableString::new("en".into(), "US".into(), s.into())]);
        p.description = Some(text("sRGB"));
        p.copyright = Some(text("No copyright, use freely"));
        let mut bytes = p.encode().expect("the sRGB profile encodes");
        // the encoder stamps the time it ran: the same frames must give the same file
        bytes[24..36].copy_from_slice(&PROFILE_DATE);
        bytes
    })
}

/// The profile's creation date and time (ICC `dateTimeNumber`, big-endian year, month, day,
/// hours, minutes, seconds): IEC 61966-2-1's publication, 1999-10-18.
const PROFILE_DATE: [u8; 12] = [0x07, 0xcf, 0, 10, 0, 18, 0, 0, 0, 0, 0, 0];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_add_up_to_the_render_s_length() {
        let total: u32 = (0..90).map(|i| duration_ms(i, 30.0)).sum();
        assert_eq!(total, 3000);
        assert_eq!((0..3).map(|i| duration_ms(i, 30.0)).collect::<Vec<_>>(), [33, 34, 33]);
        assert_eq!((0..25).map(|i| duration_ms(i, 25.0)).sum::<u32>(), 1000);
    }

    #[test]
    fn the_profile_reads_back_as_srgb() {
        let bytes = srgb_profile();
        let back = moxcms::ColorProfile::new_from_slice(bytes).expect("a profile moxcms reads");
        let srgb = moxcms::ColorProfile::new_srgb();
        assert_eq!(
            (back.red_colorant, back.green_colorant, back.blue_colorant),
            (srgb.red_colorant, srgb.green_colorant, srgb.blue_colorant)
        );
        // the curve's parameters as 16.16 fixed point keeps them
        let params = |t: &Option<moxcms::ToneReprCurve>| match t {
            Some(moxcms::ToneReprCurve::Parametric(p)) => p.clone(),
            other => panic!("{other:?}"),
        };
        let (got, want) = (params(&back.red_trc), params(&srgb.red_trc));
        assert!(got.len() == 5 && got.iter().zip(&want).all(|(a, b)| (a - b).abs() < 1e-4), "{got:?}");
        assert_eq!(&bytes[36..40], b"acsp");
        // no time of its making in it (moxcms writes the clock's): renders made a second apart
        // gave WebPs of the same size and other bytes
        assert_eq!(&bytes[24..36], &PROFILE_DATE);
        let date = &back.creation_date_time;
        assert_eq!((date.year, date.month, date.day_of_the_month, date.hours), (1999, 10, 18, 0));
        assert!(bytes.len() < 1024, "{} bytes", bytes.len());
    }

    /// A lossless 2×3 WebP (VP8L) made by hand: the signature, then the sides and no alpha.
    fn tiny_vp8l(w: u32, h: u32) -> Vec<u8> {
        let bits = (w - 1) | ((h - 1) << 14);
        let mut data = vec![0x2f];
        data.extend_from_slice(&bits.to_le_bytes());
        data.extend_from_slice(&[0, 0, 0]);
        let mut body = Vec::new();
        push_chunk(&mut body, b"VP8L", &data);
        riff(body)
    }

    #[test]
    fn a_simple_file_gets_an_extended_header_and_the_profile() {
        let file = tiny_vp8l(2, 3);
        let tagged = tag_srgb(&file).unwrap();
        let parts = chunks(&tagged).unwrap();
        let names: Vec<&[u8; 4]> = parts.iter().map(|c| &c.fourcc).collect();
        assert_eq!(names, [b"VP8X", b"ICCP", b"VP8L"]);
        assert_eq!(parts[0].data[0], ICC_FLAG);
        assert_eq!(canvas(&parts).unwrap(), (2, 3));
        assert_eq!(parts[1].data, srgb_profile());
        // tagging twice changes nothing
        assert_eq!(tag_srgb(&tagged).unwrap(), tagged);
    }

    #[test]
    fn an_animation_holds_every_frame_whole() {
        let (a, b) = (tiny_vp8l(4, 2), tiny_vp8l(4, 2));
        let mut stream = a.clone();
        stream.extend_from_slice(&b);
        let files = split_files(&stream).unwrap();
        assert_eq!(files.len(), 2);
        let anim = animate(&files, 30.0).unwrap();
        let parts = chunks(&anim).unwrap();
        let names: Vec<&[u8; 4]> = parts.iter().map(|c| &c.fourcc).collect();
        assert_eq!(names, [b"VP8X", b"ICCP", b"ANIM", b"ANMF", b"ANMF"]);
        assert_eq!(parts[0].data[0], ICC_FLAG | ANIMATION_FLAG);
        let frame = parts[3].data;
        assert_eq!((read_le24(&frame[6..9]) + 1, read_le24(&frame[9..12]) + 1, read_le24(&frame[12..15])), (4, 2, 33));
        assert_eq!(frame[15], 0b10, "no blending, no disposal");
        // another size, or a file that is not one, is refused
        let other = tiny_vp8l(3, 2);
        assert!(animate(&[&a, &other], 30.0).unwrap_err().contains("3×2"));
        assert!(animate(&[b"RIFF\x04\0\0\0WEBQ"], 30.0).is_err());
        assert!(split_files(&stream[..stream.len() - 1]).is_err());
    }
}
