//! Where two images differ in a way a person would see, however few the pixels: the spatial layer
//! of a golden check. Counting differing pixels cannot tell anti-aliasing noise and sub-pixel
//! moves along edges (what tolerances exist for) from one compact defect (what a check must
//! catch), so the differing pixels are grouped into regions (pixels at most [`GAP`] apart belong
//! to one) and each region is weighed by its pixels that a move of half a pixel cannot explain.
//!
//! An anti-aliased edge that moves by a fraction f of a pixel changes each pixel by at most f of
//! the contrast across it (the range of its 3×3 neighbourhood), toward a value its neighbours
//! have. So a pixel is explained when, seen from one image or the other, it changed by no more
//! than half of that image's neighbourhood range and stayed within it; what it is off beyond that
//! is unexplained. A quarter-pixel move of a disc or of text explains itself; a rounded corner
//! turned square, a 1-px border gone, an icon moved a pixel, a pasted patch, a stray line or a
//! colour shift on flat ground does not (pixelmatch and odiff ask a similar question with their
//! anti-aliasing test, which only asks whether the pixel looks like an edge).
//!
//! A lone pixel far off on flat ground (no neighbour differs, the golden is flat around it, and it
//! is [`LONE`] levels or more off) weighs as a 3×3 patch ([`LONE_WEIGHT`]) and fails a check by
//! itself: no anti-aliasing or rounding makes it; a NaN written out, an uninitialised pixel or a
//! stray write does.
//!
//! Each pixel weighs by how far it is unexplained, so that a change too faint to see does not add
//! up to a failure however compact it is: nothing up to [`FAINT`] levels above the channel
//! threshold (at least [`FAINT`]), the whole pixel from [`CLEAR`] levels more, linearly between.
//! A region's weight is the sum, rounded: pixels' worth of visible change.
//!
//! Inside an area where every pixel changed, what all of its 3×3 pixels moved one way (a colour
//! changed over textured ground) weighs too, however explicable each pixel is alone: a move
//! brightens one side of an edge and darkens the other.
//!
//! Measured on Chromium screenshots (`scripts/peers/compare/judgement.py`, the pairs in
//! `tests/fixtures/judgement/`): square button corners weigh 8 a corner, a 15-px emoji swapped for
//! its neighbour 5, a faint 1-px border gone 174, while a disc or text moved a quarter or half a
//! pixel weighs 0 and a rounded button moved a third of a pixel 3. llvmpipe through GL against lavapipe,
//! on the shipped goldens' frames where the pixel counts pass, weighs at most 2 a region. Hence
//! the default limit of 4 (`max_region`).

use crate::Image;

/// Levels (of an 8-bit channel) a pixel may be off without weighing anything, when the channel
/// threshold is lower: about one just-noticeable step of sRGB at mid-grey for a large area.
pub const FAINT: u8 = 2;
/// Levels beyond the faint ones at which a pixel weighs whole.
pub const CLEAR: u8 = 6;

/// The contrast (range of a 3×3 neighbourhood, in levels of a channel) from which a pixel lies on
/// an edge, where a move explains what the pixel budget counts: a differing pixel in texture or
/// shading of less contrast counts however little it moved, so that a colour changed by a few
/// levels over a textured area (a terrain's band, its neighbourhoods 20 levels apart) fails the
/// budget as it always did, while the anti-aliasing of a shape or of text (180 levels and more in
/// Chromium's screenshots) is not counted.
pub const EDGE: u8 = 32;

/// Levels a lone pixel on flat ground must be off to weigh [`LONE_WEIGHT`] pixels.
pub const LONE: u8 = 64;
/// What a lone pixel far off on flat ground weighs: as much as a 3×3 patch, past the default
/// `max_region` of 7.
pub const LONE_WEIGHT: u32 = 9;

/// A connected area of differing pixels, and how much of it anti-aliasing cannot explain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "full", derive(serde::Serialize, serde::Deserialize))]
pub struct Region {
    /// Bounding box, in pixels from the top-left corner.
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
    /// Differing pixels in the region.
    pub pixels: u32,
    /// Its pixels that anti-aliasing does not explain: off by more than a move of half a pixel
    /// explains (beyond the channel threshold), or not on an edge ([`EDGE`]). What a pixel budget
    /// counts.
    #[cfg_attr(feature = "full", serde(default))]
    pub unexplained: u32,
    /// Its pixels outside the other image's neighbourhood range, or with every neighbour
    /// differing too, each weighed by how far it is off (see the module's documentation).
    pub weight: u32,
}

/// Each channel's minimum and maximum over a 3-pixel window along one RGBA8 row (clipped at its
/// ends), written over whole slices side by side so that the compiler vectorises it.
fn row_range(r: &[u8], lo: &mut [u8], hi: &mut [u8]) {
    let n = r.len();
    if n <= 4 {
        lo.copy_from_slice(r);
        hi.copy_from_slice(r);
        return;
    }
    // slices of one length, indexed: the bounds are checked once and the loop vectorises
    let m = n - 8;
    let (l, u, a, b, c) = (&mut lo[4..4 + m], &mut hi[4..4 + m], &r[..m], &r[4..4 + m], &r[8..8 + m]);
    for i in 0..m {
        l[i] = a[i].min(b[i]).min(c[i]);
        u[i] = a[i].max(b[i]).max(c[i]);
    }
    for (x, next) in [(0, 4), (n - 4, n - 8)] {
        for c in 0..4 {
            (lo[x + c], hi[x + c]) = (r[x + c].min(r[next + c]), r[x + c].max(r[next + c]));
        }
    }
}

/// A pixel where two pictures differ: its row and column.
pub type At = (u32, u32);

/// Rows with fewer differing pixels than a [`SPARSE`]th of their width have each pixel's
/// neighbourhood read where it is; denser rows have both pictures' ranges made along the whole
/// row at once (the same answers: `pixel_facts_are_the_brute_force_ones` checks both).
const SPARSE: usize = 8;

/// What the spatial layer asks of each pixel in `at` (row by row), from both images' 3×3
/// neighbourhoods (clipped at the borders): how many levels it is off beyond what a move of half a
/// pixel explains (see [`beyond_a_move`]) seen from the image that explains it better and from the
/// one that explains it worse (0 when no more than `threshold`), whether the expected image is flat
/// around it (a range of at most `threshold` in every channel), and whether it lies on an edge (a
/// range of [`EDGE`] levels or more in a channel of either image). A page changed in three places
/// costs the three places' pixels.
fn pixel_facts(expected: &Image, actual: &Image, at: &[At], channels: usize, threshold: u8) -> Vec<Fact> {
    let (w, h) = (expected.width as usize, expected.height as usize);
    let row = w * 4;
    let mut out = Vec::with_capacity(at.len());
    // per image, three rows' horizontal ranges: (which row, minimum, maximum), slot = row % 3
    type Ranges = (usize, Vec<u8>, Vec<u8>);
    let mut rings: [Vec<Ranges>; 2] = std::array::from_fn(|_| vec![(usize::MAX, Vec::new(), Vec::new()); 3]);
    let (mut lo, mut hi) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    for group in at.chunk_by(|p, q| p.0 == q.0) {
        let y = group[0].0 as usize;
        let ys = [y.saturating_sub(1), y, (y + 1).min(h - 1)];
        let (e, a) = (&expected.rgba[y * row..][..row], &actual.rgba[y * row..][..row]);
        if group.len() * SPARSE < w {
            for &(_, x) in group {
                let (x, xs) = (x as usize, x.saturating_sub(1) as usize..=(x as usize + 1).min(w - 1));
                let mut r = [[[u8::MAX; 4], [0; 4]]; 2];
                for (k, img) in [expected, actual].into_iter().enumerate() {
                    for yy in ys[0]..=ys[2] {
                        for px in img.rgba[yy * row..][..row][xs.start() * 4..(xs.end() + 1) * 4].chunks_exact(4) {
                            for c in 0..4 {
                                r[k][0][c] = r[k][0][c].min(px[c]);
                                r[k][1][c] = r[k][1][c].max(px[c]);
                            }
                        }
                    }
                }
                out.push(fact(&e[x * 4..][..4], &a[x * 4..][..4], [&r[0][0], &r[1][0]], [&r[0][1], &r[1][1]], channels, threshold));
            }
            continue;
        }
        for (k, img) in [expected, actual].into_iter().enumerate() {
            for &yy in &ys {
                let (at, l, u) = &mut rings[k][yy % 3];
                if *at != yy {
                    l.resize(row, 0);
                    u.resize(row, 0);
                    row_range(&img.rgba[yy * row..][..row], l, u);
                    *at = yy;
                }
            }
            let [r0, r1, r2] = [0, 1, 2].map(|i| &rings[k][ys[i] % 3]);
            lo[k].resize(row, 0);
            hi[k].resize(row, 0);
            let (l, u) = (&mut lo[k][..row], &mut hi[k][..row]);
            let (l0, l1, l2, u0, u1, u2) = (&r0.1[..row], &r1.1[..row], &r2.1[..row], &r0.2[..row], &r1.2[..row], &r2.2[..row]);
            for i in 0..row {
                l[i] = l0[i].min(l1[i]).min(l2[i]);
                u[i] = u0[i].max(u1[i]).max(u2[i]);
            }
        }
        for &(_, x) in group {
            let k = x as usize * 4;
            out.push(fact(
                &e[k..][..4],
                &a[k..][..4],
                [&lo[0][k..][..4], &lo[1][k..][..4]],
                [&hi[0][k..][..4], &hi[1][k..][..4]],
                channels,
                threshold,
            ));
        }
    }
    out
}

/// [`pixel_facts`]' answer for one pixel: its channels in each picture (`e`, `a`) and each
/// picture's neighbourhood range (`lo`, `hi`: expected's, actual's).
fn fact(e: &[u8], a: &[u8], lo: [&[u8]; 2], hi: [&[u8]; 2], channels: usize, threshold: u8) -> Fact {
    let (mut from_e, mut from_a, mut level, mut contrast) = (0u8, 0u8, true, 0u8);
    for k in 0..channels {
        from_e = from_e.max(beyond_a_move(e[k], a[k], lo[0][k], hi[0][k]));
        from_a = from_a.max(beyond_a_move(a[k], e[k], lo[1][k], hi[1][k]));
        level &= hi[0][k] - lo[0][k] <= threshold;
        contrast = contrast.max(hi[0][k] - lo[0][k]).max(hi[1][k] - lo[1][k]);
    }
    let keep = |far: u8| if far > threshold { far } else { 0 };
    Fact { unexplained: [keep(from_e.min(from_a)), keep(from_e.max(from_a))], flat: level, edge: contrast >= EDGE }
}

/// [`pixel_facts`]' answers for one pixel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fact {
    unexplained: [u8; 2],
    flat: bool,
    edge: bool,
}

/// How many levels a channel that was `was` (in a neighbourhood ranging over `lo..=hi`, itself
/// included) and is now `now` lies beyond what moving the neighbourhood by half a pixel explains:
/// an anti-aliased edge that moves by a fraction f of a pixel changes a pixel by at most f of the
/// contrast across it, in the direction of a neighbour, so half of the range is explained, and
/// nothing outside the range is.
fn beyond_a_move(was: u8, now: u8, lo: u8, hi: u8) -> u8 {
    let moved = (2 * u16::from(was.abs_diff(now))).saturating_sub(u16::from(hi - lo)) / 2;
    (moved as u8).max(outside(now, lo, hi))
}

/// How far `v` lies outside `lo..=hi`.
fn outside(v: u8, lo: u8, hi: u8) -> u8 {
    lo.saturating_sub(v).max(v.saturating_sub(hi))
}

/// How far the 3×3 neighbourhood of (`x`, `y`), every pixel of which differs, moved one way: in
/// the channel where every pixel changed with one sign, the least of their changes, in levels (0
/// where each channel has changes both ways, as along a moved edge).
fn drift(e: &[u8], a: &[u8], w: usize, x: usize, y: usize, channels: usize) -> u8 {
    let mut most = 0;
    for c in 0..channels {
        let (mut up, mut down) = (u8::MAX, u8::MAX);
        for k in (y - 1..=y + 1).flat_map(|yy| (x - 1..=x + 1).map(move |xx| (yy * w + xx) * 4 + c)) {
            let (was, now) = (e[k], a[k]);
            up = up.min(now.saturating_sub(was));
            down = down.min(was.saturating_sub(now));
        }
        most = most.max(up).max(down);
    }
    most
}

/// How far apart two differing pixels may be and still belong to one region: a change with gaps of
/// a pixel (the two eyes of a 15-px emoji, a glyph's strokes) is one change to a reader.
pub const GAP: usize = 1;

/// The regions where `expected` and `actual` (same size) differ: a pixel differs when one of its
/// first `channels` channels (3, or 4 to compare alpha) differs by more than `threshold`; pixels
/// at most [`GAP`] pixels apart are one region. Heaviest first, then top to bottom.
pub fn regions(expected: &Image, actual: &Image, channels: usize, threshold: u8) -> Vec<Region> {
    assert_eq!((expected.width, expected.height), (actual.width, actual.height), "regions of images of one size");
    let w = expected.width as usize;
    let at: Vec<At> = expected
        .rgba
        .chunks_exact(4)
        .zip(actual.rgba.chunks_exact(4))
        .enumerate()
        .filter(|(_, (p, q))| (0..channels).any(|c| p[c].abs_diff(q[c]) > threshold))
        .map(|(i, _)| ((i / w) as u32, (i % w) as u32))
        .collect();
    regions_at(expected, actual, &at, channels, threshold)
}

/// [`regions`] of the pixels `at` (row by row, left to right), known to be the ones that differ:
/// what it costs is the changed pixels', not the pictures' size.
pub(crate) fn regions_at(expected: &Image, actual: &Image, at: &[At], channels: usize, threshold: u8) -> Vec<Region> {
    let (Some(first), Some(last)) = (at.first(), at.last()) else {
        return Vec::new();
    };
    let w = expected.width as usize;
    let (e, a) = (&expected.rgba, &actual.rgba);
    let facts = pixel_facts(expected, actual, at, channels, threshold);
    let off = |i: usize| (0..channels).map(|c| e[i * 4 + c].abs_diff(a[i * 4 + c])).max().unwrap_or(0);
    // a pixel's weight by how far it is off, in sixths (`CLEAR`ths) of a pixel: none up to the
    // faint levels, whole from the clear ones
    let floor = threshold.max(FAINT);
    let weigh = |levels: u8| u32::from(levels.saturating_sub(floor).min(CLEAR));
    // the box of the differing pixels on a grid with a border of `reach`, so that every pixel has
    // its neighbours; a cell: 0 equal (or the border), 1 differs, 2 differs and is taken into a
    // region; then the pixel's fact: unexplained levels (twice), flat (bit 0) and edge (bit 1)
    let (y0, y1) = (first.0 as usize, last.0 as usize);
    let (x0, x1) = at.iter().fold((usize::MAX, 0), |(l, u), &(_, x)| (l.min(x as usize), u.max(x as usize)));
    let reach = GAP + 1;
    let gw = x1 - x0 + 1 + 2 * reach;
    let cell = |y: usize, x: usize| (y - y0 + reach) * gw + x - x0 + reach;
    // (zeroed whole: the pages no pixel touches are never made)
    let mut grid = vec![[0u8; 4]; gw * (y1 - y0 + 1 + 2 * reach)];
    for (&(y, x), f) in at.iter().zip(&facts) {
        grid[cell(y as usize, x as usize)] = [1, f.unexplained[0], f.unexplained[1], u8::from(f.flat) | u8::from(f.edge) << 1];
    }
    drop(facts);
    let (step, r) = (gw as isize, reach as isize);
    let touching = [-step - 1, -step, -step + 1, -1, 1, step - 1, step, step + 1];
    let near: Vec<isize> = (-r..=r).flat_map(|dy| (-r..=r).map(move |dx| dy * step + dx)).filter(|&d| d != 0).collect();
    let mut stack = Vec::new();
    let mut out = Vec::new();
    for &(y, x) in at {
        let start = cell(y as usize, x as usize);
        if grid[start][0] != 1 {
            continue;
        }
        grid[start][0] = 2;
        stack.push(start);
        let (mut rx0, mut ry0, mut rx1, mut ry1) = (usize::MAX, usize::MAX, 0, 0);
        let (mut pixels, mut weight, mut weighing) = (0u32, 0u32, 0u32);
        while let Some(p) = stack.pop() {
            let (x, y) = (p % gw + x0 - reach, p / gw + y0 - reach);
            (rx0, ry0, rx1, ry1) = (rx0.min(x), ry0.min(y), rx1.max(x), ry1.max(y));
            pixels += 1;
            for &d in &near {
                let q = p.wrapping_add_signed(d);
                if grid[q][0] == 1 {
                    grid[q][0] = 2;
                    stack.push(q);
                }
            }
            let [_, better, worse, flags] = grid[p];
            // a pixel that changed alone is no move (a move changes the pixels along an edge):
            // its own value does not explain it
            let around = touching.iter().filter(|&&d| grid[p.wrapping_add_signed(d)][0] != 0).count();
            let lone = around == 0;
            let mut levels = if lone { worse } else { better };
            if around == touching.len() {
                // inside an area of change: a move shifts an edge, brighter on one side and darker
                // on the other, but a change of colour over an area moves everything one way
                let shift = drift(e, a, w, x, y, channels);
                levels = levels.max(if shift > threshold { shift } else { 0 });
            }
            // far off where the golden is flat around it (a lone pixel when no neighbour differs)
            let far_on_flat = off(y * w + x) >= LONE && flags & 1 != 0;
            weight += if lone && far_on_flat { LONE_WEIGHT * u32::from(CLEAR) } else { weigh(levels) };
            weighing += u32::from(levels > 0 || flags & 2 == 0);
        }
        let (x, y, width, height) = (rx0 as u32, ry0 as u32, (rx1 - rx0 + 1) as u32, (ry1 - ry0 + 1) as u32);
        let weight = (weight + u32::from(CLEAR) / 2) / u32::from(CLEAR);
        out.push(Region { x, y, width, height, pixels, unexplained: weighing, weight });
    }
    out.sort_by(|p, q| q.weight.cmp(&p.weight).then(p.y.cmp(&q.y)).then(p.x.cmp(&q.x)));
    out
}

#[cfg(feature = "full")]
/// `img` with a box (opaque `color`, two pixels wide, one pixel clear of the region) drawn
/// around each region, clipped to the image: where a report shows the failing regions.
pub fn outline(img: &Image, regions: &[Region], color: [u8; 4]) -> Image {
    let mut out = img.clone();
    for (y, row) in out.rgba.chunks_exact_mut((img.width as usize * 4).max(1)).enumerate() {
        outline_row(row, y as u32, regions, color);
    }
    out
}

#[cfg(feature = "full")]
/// What [`outline`] draws on row `y`, drawn on `row` (RGBA8).
pub fn outline_row(row: &mut [u8], y: u32, regions: &[Region], color: [u8; 4]) {
    let (w, y) = ((row.len() / 4) as i64, y as i64);
    let mut put = |x: i64| {
        if (0..w).contains(&x) {
            row[x as usize * 4..][..4].copy_from_slice(&color);
        }
    };
    for r in regions {
        for gap in 2..=3 {
            let (x0, y0) = (r.x as i64 - gap, r.y as i64 - gap);
            let (x1, y1) = (r.x as i64 + r.width as i64 - 1 + gap, r.y as i64 + r.height as i64 - 1 + gap);
            if y == y0 || y == y1 {
                (x0..=x1).for_each(&mut put);
            } else if (y0..y1).contains(&y) {
                put(x0);
                put(x1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 3]) -> Image {
        let rgba = (0..h).flat_map(|y| (0..w).map(move |x| (x, y))).flat_map(|(x, y)| {
            let [r, g, b] = f(x, y);
            [r, g, b, 255]
        });
        Image { width: w, height: h, rgba: rgba.collect() }
    }

    fn set(img: &mut Image, x: u32, y: u32, c: [u8; 3]) {
        let i = ((y * img.width + x) * 4) as usize;
        img.rgba[i..i + 3].copy_from_slice(&c);
    }

    /// A grey field with a vertical anti-aliased edge from dark to light at x = 10..12.
    fn edge() -> Image {
        image(24, 16, |x, _| match x {
            0..10 => [40; 3],
            10 => [90; 3],
            11 => [150; 3],
            _ => [210; 3],
        })
    }

    #[test]
    fn pixel_facts_are_the_brute_force_ones() {
        let noise = |w: u32, h: u32, k: u32| {
            image(w, h, move |x, y| [(x * 37 + y * 11 * k) as u8, (x * y * 13 + k * x) as u8, (250 - x * 9 - y * 30) as u8])
        };
        let cases = [
            (noise(7, 5, 1), noise(7, 5, 2)),
            (image(1, 1, |_, _| [9, 9, 9]), image(1, 1, |_, _| [90, 9, 9])),
            (noise(40, 6, 1), noise(40, 6, 3)),
        ];
        for (e, a) in cases {
            let (w, h) = (e.width as usize, e.height as usize);
            // every other pixel (rows read whole) or every 13th (a neighbourhood at a time) differs,
            // as far as the facts are concerned; the corners and edges among them
            for every in [2, 13] {
                let at: Vec<At> = (0..w * h).filter(|i| i % every == 0).map(|i| ((i / w) as u32, (i % w) as u32)).collect();
                for threshold in [0u8, 2, 40] {
                    let facts = pixel_facts(&e, &a, &at, 3, threshold);
                    let range = |img: &Image, x: i64, y: i64, c: usize| {
                        let vals: Vec<u8> = (-1..=1)
                            .flat_map(|dy| (-1..=1).map(move |dx| (x + dx, y + dy)))
                            .filter(|&(p, q)| (0..w as i64).contains(&p) && (0..h as i64).contains(&q))
                            .map(|(p, q)| img.rgba[((q * w as i64 + p) * 4) as usize + c])
                            .collect();
                        (*vals.iter().min().unwrap(), *vals.iter().max().unwrap())
                    };
                    assert_eq!(facts.len(), at.len());
                    for (&(y, x), fact) in at.iter().zip(&facts) {
                        let (x, y, i) = (i64::from(x), i64::from(y), y as usize * w + x as usize);
                        // seen from each image, the most any channel is off beyond half its range or
                        // outside it; the lesser of the two
                        let side = |from: &Image, to: &Image, c: usize| {
                            let (l, u) = range(from, x, y, c);
                            let (was, now) = (i64::from(from.rgba[i * 4 + c]), i64::from(to.rgba[i * 4 + c]));
                            let moved = ((2 * (was - now).abs() - i64::from(u - l)) / 2).max(0);
                            moved.max(i64::from(l) - now).max(now - i64::from(u))
                        };
                        let (from_e, from_a) =
                            ((0..3).map(|c| side(&e, &a, c)).max().unwrap(), (0..3).map(|c| side(&a, &e, c)).max().unwrap());
                        let keep = |v: i64| if v > i64::from(threshold) { v as u8 } else { 0 };
                        let unexplained = [keep(from_e.min(from_a)), keep(from_e.max(from_a))];
                        let flat = (0..3).all(|c| range(&e, x, y, c).1 - range(&e, x, y, c).0 <= threshold);
                        let contrast =
                            (0..3).map(|c| range(&e, x, y, c)).chain((0..3).map(|c| range(&a, x, y, c))).map(|(l, u)| u - l).max();
                        let want = Fact { unexplained, flat, edge: contrast.unwrap() >= EDGE };
                        assert_eq!(*fact, want, "{w}×{h}, ({x},{y}), every {every}, threshold {threshold}");
                    }
                }
            }
        }
    }

    #[test]
    fn an_edge_that_moved_is_explained() {
        // every pixel of the edge column takes a value its neighbours had: coverage moved
        let e = edge();
        let mut a = e.clone();
        for y in 0..16 {
            set(&mut a, 10, y, [150; 3]);
            set(&mut a, 11, y, [210; 3]);
        }
        let r = regions(&e, &a, 3, 2);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!((r[0].x, r[0].y, r[0].width, r[0].height, r[0].pixels), (10, 0, 2, 16, 32));
        assert_eq!((r[0].weight, r[0].unexplained), (0, 0), "a moved edge weighs nothing: {r:?}");
    }

    #[test]
    fn a_patch_on_flat_ground_weighs_every_pixel() {
        let e = edge();
        let mut a = e.clone();
        for (x, y) in [(2, 3), (3, 3), (2, 4), (3, 4)] {
            set(&mut a, x, y, [215; 3]);
        }
        assert_eq!(regions(&e, &a, 3, 2), vec![Region { x: 2, y: 3, width: 2, height: 2, pixels: 4, unexplained: 4, weight: 4 }]);
        // the same values within the threshold do not differ at all
        let mut b = e.clone();
        set(&mut b, 2, 3, [42; 3]);
        assert!(regions(&e, &b, 3, 2).is_empty());
    }

    #[test]
    fn a_pixel_weighs_by_how_far_it_is_off() {
        let flat = image(40, 40, |_, _| [120, 140, 160]);
        let patch = |n: u32, f: &dyn Fn([u8; 3]) -> [u8; 3]| {
            let mut a = flat.clone();
            for y in 5..5 + n {
                for x in 5..5 + n {
                    set(&mut a, x, y, f([120, 140, 160]));
                }
            }
            regions(&flat, &a, 3, 0).first().map_or(0, |r| r.weight)
        };
        // invisible: +3 on 3×3 weighs its middle's 1/6 (the rim is half explained by the step it
        // makes), ±2 on 16×16 nothing
        assert_eq!(patch(3, &|c| c.map(|v| v + 3)), 0);
        assert_eq!(patch(16, &|c| c.map(|v| v - 2)), 0);
        assert_eq!(patch(16, &|c| c.map(|v| v + 2)), 0);
        // visible: an 8-level shift weighs its inside whole and its rim a third (8 / 2 - 2 levels
        // beyond the faint ones: 22² + 92 / 3); a hue change of the same brightness every pixel
        assert_eq!(patch(24, &|c| c.map(|v| v + 8)), 515);
        assert_eq!(patch(24, &|[r, g, b]| [r + 24, g, b - 24]), 576);
        // in between, linearly: +5 is half a pixel each inside, nothing on the rim
        assert_eq!(patch(4, &|c| c.map(|v| v + 5)), 2);
        // a channel threshold above the faint levels moves the floor with it (a pixel that changed
        // alone is not explained by its own value)
        let mut a = flat.clone();
        set(&mut a, 9, 9, [120 + 8, 140, 160]);
        assert_eq!(regions(&flat, &a, 3, 4)[0].weight, 1, "(8 - 4) / 6, rounded");
    }

    #[test]
    fn a_swapped_checkerboard_is_no_move() {
        // a 6×6 block of a two-colour checkerboard swapped: every pixel takes a neighbour's value,
        // but the whole contrast: no move of half a pixel does that
        let e = image(16, 16, |x, y| if (x + y) % 2 == 0 { [30; 3] } else { [220; 3] });
        let mut a = e.clone();
        for y in 5..11 {
            for x in 5..11 {
                set(&mut a, x, y, if (x + y) % 2 == 0 { [220; 3] } else { [30; 3] });
            }
        }
        let r = regions(&e, &a, 3, 2);
        assert_eq!(r, vec![Region { x: 5, y: 5, width: 6, height: 6, pixels: 36, unexplained: 36, weight: 36 }]);
    }

    #[test]
    fn a_lone_pixel_far_off_on_flat_ground_weighs_as_a_patch_and_one_on_an_edge_does_not() {
        let flat = image(16, 16, |_, _| [90, 120, 200]);
        let mut nan = flat.clone();
        set(&mut nan, 7, 9, [255 - 90, 255 - 120, 255 - 200]);
        assert_eq!(regions(&flat, &nan, 3, 2)[0].weight, LONE_WEIGHT, "the complement of a pixel");
        let mut faint = flat.clone();
        set(&mut faint, 7, 9, [90 + LONE - 10, 120, 200]);
        assert_eq!(regions(&flat, &faint, 3, 2)[0].weight, 1, "a visible but not impossible pixel weighs one");
        // on an edge, the same complement is a pixel's worth: the golden is not flat there
        let golden = edge();
        let mut jitter = golden.clone();
        set(&mut jitter, 10, 4, [255 - 90; 3]);
        assert!(regions(&golden, &jitter, 3, 2)[0].weight < LONE_WEIGHT);
    }

    #[test]
    fn regions_join_pixels_a_gap_apart_and_come_heaviest_first() {
        let e = image(24, 12, |_, _| [100; 3]);
        let mut a = e.clone();
        // a diagonal of three with a gap of one pixel (one region), a lone pixel not far enough off
        // to weigh as a patch, and a pixel two pixels away from it (a region of its own)
        for k in [0, 2, 4] {
            set(&mut a, 2 + k, 2 + k, [150; 3]);
        }
        set(&mut a, 15, 8, [60; 3]);
        set(&mut a, 18, 8, [60; 3]);
        let r = regions(&e, &a, 3, 2);
        assert_eq!(r.len(), 3, "{r:?}");
        assert_eq!((r[0].x, r[0].y, r[0].width, r[0].height, r[0].pixels, r[0].weight), (2, 2, 5, 5, 3, 3));
        assert_eq!((r[1].x, r[1].y, r[1].pixels, r[2].x, r[2].pixels), (15, 8, 1, 18, 1));
    }

    #[test]
    fn alpha_counts_only_when_asked() {
        let e = image(4, 4, |_, _| [50; 3]);
        let mut a = e.clone();
        a.rgba[4 * 5 + 3] = 200;
        assert!(regions(&e, &a, 3, 2).is_empty());
        assert_eq!(regions(&e, &a, 4, 2)[0].weight, 1);
    }

    #[cfg(feature = "full")]
    #[test]
    fn outlines_go_around_the_box_and_stop_at_the_border() {
        let img = image(12, 9, |_, _| [0; 3]);
        let r = Region { x: 1, y: 4, width: 2, height: 2, pixels: 4, unexplained: 4, weight: 4 };
        let out = outline(&img, &[r], [0, 255, 255, 255]);
        let lit = |x: u32, y: u32| out.rgba[((y * 12 + x) * 4 + 1) as usize] == 255;
        // rows 1..=2 above and 7..=8 below, columns 4..=5 to the right; the left side is clipped
        for x in 0..=5 {
            assert!(lit(x, 1) && lit(x, 2) && lit(x, 7) && lit(x, 8), "column {x}");
        }
        for y in 1..=8 {
            assert!(lit(4, y) && lit(5, y), "row {y}");
        }
        assert!(!lit(3, 3) && !lit(1, 4) && !lit(3, 6) && !lit(6, 4), "one pixel clear of the region, nothing beyond");
        assert_eq!((0..9).flat_map(|y| (0..12).map(move |x| (x, y))).filter(|&(x, y)| lit(x, y)).count(), 6 * 4 + 2 * 4);
    }
}
