//! The default judgement on Chromium screenshots of small widgets (`tests/fixtures/judgement/`,
//! made by `scripts/peers/compare/judgement.py`): each pair a change a person sees (square
//! corners, a faint 1-px border gone, an icon moved 2 px, a logo moved 1 px, an emoji swapped for
//! its neighbour, a button a shade redder) or one they do not (a disc or a line of text moved a
//! quarter or half a pixel, a rounded button a third; the page drawn again), judged at 96×64 and
//! in a 1280×800 page: the verdict must not depend on the picture's size.

// the command, its report and every format: the default `full` feature
#![cfg(feature = "full")]

use simreel_compare::{Image, Tolerance, compare, read};
use std::path::{Path, PathBuf};

/// Where the 96×64 box lies on the 1280×800 page (the script checks that every 1280×800
/// screenshot is the page with its pair pasted here).
const BOX: (u32, u32) = (40, 109);

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/judgement")
}

fn in_page(page: &Image, small: &Image) -> Image {
    let mut out = page.clone();
    for y in 0..small.height {
        let (from, to) = ((y * small.width * 4) as usize, (((y + BOX.1) * page.width + BOX.0) * 4) as usize);
        let n = (small.width * 4) as usize;
        out.rgba[to..to + n].copy_from_slice(&small.rgba[from..from + n]);
    }
    out
}

#[test]
fn a_person_s_verdict_on_every_pair_at_96x64_and_in_a_1280x800_page() {
    let page = read(dir().join("page.png")).unwrap();
    assert_eq!((page.width, page.height), (1280, 800));
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 11, "{cases:?}");
    let mut wrong = Vec::new();
    let (mut fails, mut passes) = (0, 0);
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let must_pass = match std::fs::read_to_string(case.join("must")).unwrap().trim() {
            "pass" => true,
            "fail" => false,
            other => panic!("{name}: must is {other:?}"),
        };
        (fails, passes) = if must_pass { (fails, passes + 1) } else { (fails + 1, passes) };
        let (e, a) = (read(case.join("expected.png")).unwrap(), read(case.join("actual.png")).unwrap());
        assert_eq!((e.width, e.height), (96, 64), "{name}");
        for (size, e, a) in [("96×64", e.clone(), a.clone()), ("1280×800", in_page(&page, &e), in_page(&page, &a))] {
            let c = compare(&e, &a, &Tolerance::default());
            if c.passed() != must_pass {
                wrong.push(format!("{name} at {size}: {}", c.describe()));
            }
            // a failure says where: a region of change is named for every visible change
            if !must_pass && !c.describe().contains("compact difference: ") {
                wrong.push(format!("{name} at {size} names no region: {}", c.describe()));
            }
        }
    }
    assert!(fails >= 6 && passes >= 5, "{fails} changes a person sees, {passes} they do not");
    assert!(wrong.is_empty(), "judged otherwise than a person would:\n{}", wrong.join("\n"));
}

#[test]
fn the_weights_leave_room_on_both_sides_of_the_default_limit() {
    // the lightest visible change must weigh above the limit and the heaviest invisible one below
    // it: square corners weigh 8 a corner, the emoji 5; a third of a pixel's move 3 at most
    let limit = Tolerance::default().max_region;
    let weight = |name: &str| {
        let (e, a) = (read(dir().join(name).join("expected.png")).unwrap(), read(dir().join(name).join("actual.png")).unwrap());
        compare(&e, &a, &Tolerance { max_region: u32::MAX, ..Tolerance::default() }).heaviest_region
    };
    for seen in ["square-corners", "emoji-swap", "logo-1px", "icon-2px", "border-gone"] {
        assert!(weight(seen) > limit, "{seen} weighs {} against a limit of {limit}", weight(seen));
    }
    for unseen in ["disc-quarter-px", "disc-half-px", "pill-third-px", "text-quarter-px"] {
        assert!(weight(unseen) < limit, "{unseen} weighs {} against a limit of {limit}", weight(unseen));
    }
}
