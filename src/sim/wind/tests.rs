use crate::portable;
use std::path::Path;

use super::blade::{lean, spine_length};
use super::field::WindField;
use super::trees::{centre_length, keep_length};
use super::*;
use crate::frame::{Deform, Placement, deform_vertex};
use crate::kinds::Played;
use crate::scene::wind::STUD;
use crate::scene::{self, KindSpec, Scene};

fn scene_of(text: &str) -> Scene {
    scene::parse(text, Path::new("wind.toml")).unwrap_or_else(|e| panic!("{e}"))
}

fn sim(text: &str) -> Played<WindSim> {
    Played::of(&scene_of(text)).expect("a wind scene")
}

fn field_of(wind: &str) -> WindField {
    let s = scene_of(&format!("kind = \"wind\"\n[render]\nduration = 60.0\n[wind]\n{wind}\n"));
    let KindSpec::Wind(spec) = &s.sim.kind else { unreachable!() };
    WindField::new(spec, 9, 60.0)
}

/// Arc length of blade record `m` in units of its height.
fn blade_length(m: &Motion) -> f64 {
    spine_length(m.a.map(f64::from)[..3].try_into().unwrap(), m.b.map(f64::from)[..3].try_into().unwrap())
}

#[test]
fn a_blade_keeps_its_length_at_every_lean() {
    for k in 0..=400 {
        let theta = -1.55 + 3.1 * k as f32 / 400.0;
        let (s, c) = portable::sin_cos(0.37f32 * k as f32);
        let len = blade_length(&lean(theta, c, s));
        assert!((len - 1.0).abs() < 1e-4, "lean {theta}: length {len}");
    }
}

const STORM: &str = "kind = \"wind\"\nseed = 4\n[render]\nfps = 30\nduration = 3.0\n[wind]\nspeed = 9.0\n\
gust = { amplitude = 8.0, scale = 4.0, period = 1.0 }\nswirl = { amplitude = 3.0, scale = 3.0 }\n\
[[wind.blast]]\nat = 0.5\ncenter = [0.0, 0.0]\nstrength = 30.0\n\
[[wind.walker]]\npath = [[0.0, -3.0, 0.0], [2.0, 3.0, 0.5]]\n\
[[wind.grass]]\narea = [8.0, 8.0]\ndensity = 60\nwave = { amplitude = 30.0 }\n";

#[test]
fn blades_keep_their_length_in_a_storm_and_under_a_walker() {
    let mut s = sim(STORM);
    let mut worst = 0.0f64;
    for f in [10, 20, 40, 89] {
        s.frame(f);
        assert!(!s.meadow().pressed.is_empty() || f == 89, "frame {f}: the walker presses blades");
        for m in s.blades() {
            worst = worst.max((blade_length(m) - 1.0).abs());
        }
    }
    assert!(worst < 1e-3, "worst length error {worst}");
    // the seed's bend moves tips sideways and stretches blades far beyond that
    let seed = STORM.replace("[[wind.grass]]\n", "[[wind.grass]]\nmodel = \"seed\"\n");
    let mut s = sim(&seed);
    s.frame(20);
    let stretched = s.blades().iter().map(|m| blade_length(m) - 1.0).fold(0.0, f64::max);
    assert!(stretched > 0.05, "the seed's model stretches blades: {stretched}");
}

#[test]
fn a_trunk_keeps_its_length_however_far_it_leans() {
    let height = 7.0f32;
    let p = Placement { position: [0.0; 3], yaw: 0.3, scale: [1.0; 3], color: [255; 4] };
    for share in [0.0, 0.05, 0.15, 0.3, 0.5, 0.8] {
        let d = share * height as f64;
        let k = keep_length(d, height as f64);
        let m = Motion { a: [(d * 0.6) as f32, (d * 0.8) as f32, k as f32, 0.0], b: [0.0; 4] };
        // the centre line as the shader draws it, measured in f64
        let pts: Vec<[f64; 3]> = (0..=2000)
            .map(|i| deform_vertex(Deform::Bend, &p, &m, [0.0, height * i as f32 / 2000.0, 0.0], [1.0, 0.0, 0.0], height).0.map(f64::from))
            .collect();
        let len: f64 = pts.windows(2).map(|w| (0..3).map(|a| portable::powi(w[1][a] - w[0][a], 2)).sum::<f64>().sqrt()).sum();
        assert!((len / height as f64 - 1.0).abs() < 1e-3, "lean {share}: length {len}");
    }
    // the seed's bend (heights kept) stretches the trunk: +14.8 % at a lean of half the height
    let stretch = centre_length(3.5, 7.0, 1.0) / 7.0 - 1.0;
    assert!((stretch - 0.1478).abs() < 1e-3, "{stretch}");
}

#[test]
fn the_swirl_is_divergence_free() {
    let f = field_of("swirl = { amplitude = 1.5, scale = 6.0, period = 3.0 }");
    let h = 1e-3;
    let (mut worst, mut mean) = (0.0f64, 0.0);
    for i in 0..2000 {
        let (x, z, t) = (i as f64 * 0.731 - 700.0, i as f64 * 0.377 - 300.0, i as f64 * 0.013);
        let dx = (f.swirl_at(x + h, z, t)[0] - f.swirl_at(x - h, z, t)[0]) / (2.0 * h);
        let dz = (f.swirl_at(x, z + h, t)[1] - f.swirl_at(x, z - h, t)[1]) / (2.0 * h);
        worst = worst.max((dx + dz).abs());
        let w = f.swirl_at(x, z, t);
        mean += portable::hypot(w[0], w[1]) / 2000.0;
    }
    assert!(worst < 1e-4, "divergence {worst}");
    assert!(mean > 0.2, "the swirl is there: mean speed {mean}");
}

#[test]
fn the_wind_never_blows_backwards_but_the_seeds_does() {
    let f = field_of(
        "speed = 2.0\ngust_min = 0.4\ngust = { amplitude = 9.0, scale = 5.0, period = 1.0 }\nswirl = { amplitude = 3.0 }\n\
         [[wind.front]]\nat = 5.0\nstrength = -12.0\nwidth = 4.0\nspeed = 3.0",
    );
    let mut lowest = f64::INFINITY;
    for i in 0..40_000 {
        let (x, z, t) = ((i % 200) as f64 * 0.37 - 37.0, (i / 200) as f64 * 0.41 - 41.0, (i % 97) as f64 * 0.11);
        let (d, _) = f.mean(t);
        let w = f.ambient(x, z, t);
        lowest = lowest.min(w[0] * d[0] + w[1] * d[1]);
    }
    assert!(lowest >= 0.4 - 1e-12, "along-wind speed fell to {lowest}");
    assert!(lowest < 0.41, "the clamp was reached ({lowest}): the test field is strong enough");
    // the seed's field: (8, 0, 4) + n·(1, 0, 0.8)·12 studs/s, reversing where n < −0.595
    let mut reversed = 0;
    for i in 0..20_000 {
        let (x, z, t) = ((i % 150) as f64 * 1.3, (i / 150) as f64 * 1.7, (i % 13) as f64 * 0.9);
        let n = f.seed_noise(x, z, t);
        let w = f.seed_wind(x, z, t);
        let want = [(8.0 + 12.0 * n) * STUD, (4.0 + 9.6 * n) * STUD];
        assert!((w[0] - want[0]).abs() < 1e-12 && (w[1] - want[1]).abs() < 1e-12);
        let along = (w[0] * 8.0 + w[1] * 4.0) / 80f64.sqrt();
        // along = (80 + 134.4·n)/√80 studs/s: zero at n = −0.5952
        if (n + 0.5952).abs() > 1e-4 {
            assert_eq!(along < 0.0, n < -0.5952, "n {n}: along {along}");
        }
        reversed += (along < 0.0) as u32;
    }
    assert!(reversed > 0, "some samples reverse");
}

#[test]
fn gusts_travel_downwind_at_the_mean_speed() {
    let f = field_of("speed = 4.0\ndirection = 30\ngust = { amplitude = 2.0, scale = 8.0, period = 40.0, octaves = 1 }");
    let (d, u) = f.mean(0.0);
    let probe = |x: f64, t: f64| {
        let w = f.ambient(x * d[0], x * d[1], t);
        portable::hypot(w[0], w[1])
    };
    let dt = 0.05;
    let up: Vec<f64> = (0..1600).map(|k| probe(-5.0, k as f64 * dt)).collect();
    let down: Vec<f64> = (0..1600).map(|k| probe(5.0, k as f64 * dt)).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mu, md) = (mean(&up), mean(&down));
    let best = (0..200)
        .max_by(|&a, &b| {
            let c = |lag: usize| (0..1200).map(|k| (up[k] - mu) * (down[k + lag] - md)).sum::<f64>();
            c(a).total_cmp(&c(b))
        })
        .unwrap();
    let lag = best as f64 * dt;
    assert!((lag - 10.0 / u).abs() <= 0.05 * 10.0 / u, "best lag {lag} s, expected {}", 10.0 / u);
}

const RAMP: &str = "kind = \"wind\"\nseed = 2\n[render]\nfps = FPS\nduration = 4.0\n[wind]\nstep_hz = 30\n\
speed = [[0.0, 1.0], [1.5, 7.0], [2.5, 3.0]]\ngust = { amplitude = 0.0 }\n\
[[wind.walker]]\npath = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]\n\
[[wind.grass]]\narea = [3.0, 3.0]\ndensity = 40\n\
[[wind.tree]]\nat = [4.0, 0.0]\n";

#[test]
fn springs_follow_the_same_trajectory_at_any_frame_rate() {
    let run = |fps: u32| {
        let mut s = sim(&RAMP.replace("FPS", &fps.to_string()));
        let mut out = Vec::new();
        for second in [1.0, 1.5, 2.0, 3.0, 4.0] {
            s.frame((second * fps as f64).round() as u32);
            let tree = &s.grove().trees[0];
            let flat: Vec<(u32, f64)> = s.meadow().pressed.iter().map(|(&i, p)| (i, p.s)).collect();
            out.push((tree.bend, flat));
        }
        out
    };
    let base = run(30);
    assert!(base[0].0[0] > 0.1 && !base[1].1.is_empty(), "the tree leans and blades are pressed: {:?}", base[0].0);
    for fps in [60, 120, 240] {
        for (a, b) in base.iter().zip(run(fps)) {
            assert!((a.0[0] - b.0[0]).abs() < 1e-6 && (a.0[1] - b.0[1]).abs() < 1e-6, "{fps} fps: tree {:?} vs {:?}", a.0, b.0);
            assert_eq!(a.1.len(), b.1.len(), "{fps} fps: the same blades are pressed");
            for (p, q) in a.1.iter().zip(&b.1) {
                assert!(p.0 == q.0 && (p.1 - q.1).abs() < 1e-6, "{fps} fps: blade {} at {} vs {}", p.0, p.1, q.1);
            }
        }
    }
}

#[test]
fn trampled_blades_stand_up_within_their_recovery_time() {
    // a walker stands at the centre for a second and is gone: blades under it recover in 1.5–2.5 s
    let mut s = sim(&RAMP.replace("FPS", "60").replace("step_hz = 30", "step_hz = 60"));
    s.frame(60);
    let flat: Vec<(u32, f64)> =
        s.meadow().pressed.iter().filter(|(_, p)| p.s > 0.8 * 80f64.to_radians() / 1.553).map(|(&i, p)| (i, p.s)).collect();
    assert!(flat.len() > 20, "{} blades flattened", flat.len());
    let mut first_below: std::collections::HashMap<u32, f64> = Default::default();
    for f in 61..=240 {
        s.frame(f);
        for &(i, s0) in &flat {
            let now = s.meadow().pressed.get(&i).map_or(0.0, |p| p.s);
            if now.abs() < 0.02 * s0 {
                first_below.entry(i).or_insert(f as f64 / 60.0 - 1.0);
            }
        }
    }
    for &(i, _) in &flat {
        let tr = s.meadow().recover[i as usize] as f64;
        assert!((1.5..=2.5).contains(&tr));
        let t = first_below[&i];
        assert!(t <= tr + 1.0 / 60.0 && t > 0.8 * tr, "blade {i}: below 2 % after {t} s, recovery time {tr} s");
    }
}

#[test]
fn the_ripple_never_flickers_far_from_the_origin() {
    // a gust ramp changes the speed fast; the ripple's phase moves no faster at x = 500 m than at 0
    let text = "kind = \"wind\"\n[render]\nfps = 60\nduration = 3.0\n[wind]\ndirection = 0\n\
                speed = [[0.5, 1.0], [1.0, 9.0]]\ngust = { amplitude = 0.0 }\n\
                [[wind.grass]]\ncenter = [0.0, 0.0]\narea = [1.0, 1.0]\ndensity = 4\nbend = 0.0\nclumps = 0.0\n\
                [[wind.grass]]\ncenter = [500.0, 0.0]\narea = [1.0, 1.0]\ndensity = 4\nbend = 0.0\nclumps = 0.0\n";
    let mut s = sim(text);
    let angle = |m: &Motion| portable::atan2(portable::hypot(m.b[0], m.b[2]), m.b[1]) * m.b[0].signum();
    let (mut prev, mut worst) = (None::<Vec<f32>>, [0.0f32; 2]);
    for f in 0..120 {
        s.frame(f);
        let now: Vec<f32> = s.blades().iter().map(angle).collect();
        if let Some(p) = &prev {
            for (i, (a, b)) in p.iter().zip(&now).enumerate() {
                let far = (s.meadow().x[i] > 250.0) as usize;
                worst[far] = worst[far].max((a - b).abs());
            }
        }
        prev = Some(now);
    }
    assert!(worst[0] > 1e-3, "the ripple moves: {worst:?}");
    assert!(worst[1] <= worst[0] * 1.1, "per-frame change at 500 m {} vs at 0 m {}", worst[1], worst[0]);
}

const FOREST: &str = "kind = \"wind\"\nseed = 8\n[render]\nwidth = 320\nheight = 180\nfps = 30\nduration = 2.0\n\
[camera]\nposition = [0.0, 3.0, 14.0]\ntarget = [0.0, 1.0, 0.0]\n\
[wind]\ngust = { amplitude = 3.0, scale = 6.0 }\nswirl = { amplitude = 0.8 }\n\
[[wind.blast]]\nat = 0.5\ncenter = [1.0, 1.0]\n\
[[wind.walker]]\npath = [[0.0, -4.0, 0.0], [2.0, 4.0, 0.0]]\n\
[[wind.grass]]\narea = [24.0, 24.0]\ndensity = 12\n\
[[wind.tree]]\nat = [-3.0, 0.0]\nleaves = 50\n\
[[wind.tree]]\nat = [4.0, -3.0]\nmodel = \"seed\"\nleaves = 50\n";

fn digests(text: &str, frames: &[u32]) -> Vec<(u64, usize)> {
    let mut s = sim(text);
    frames
        .iter()
        .map(|&f| {
            let data = s.frame(f);
            (s.digest().hash, data.batches.iter().map(|b| b.placements.data.len()).sum())
        })
        .collect()
}

#[test]
fn the_state_does_not_depend_on_the_camera_or_the_level_of_detail() {
    let frames = [0, 15, 31, 59];
    let base = digests(FOREST, &frames);
    let variants = [
        FOREST.replace("position = [0.0, 3.0, 14.0]", "position = [9.0, 1.0, -2.0]"),
        format!("{FOREST}[wind.lod]\ncull = false\n"),
        format!("{FOREST}[wind.lod]\nnear = 1.0\nfar = 2.0\nblend = 0.5\nsegments = [3, 2, 1]\n"),
    ];
    let mut drawn = Vec::new();
    for v in &variants {
        let d = digests(v, &frames);
        assert_eq!(base.iter().map(|x| x.0).collect::<Vec<_>>(), d.iter().map(|x| x.0).collect::<Vec<_>>());
        drawn.push(d[0].1);
    }
    // culling really drops tiles: without it more instances are drawn
    assert!(drawn[1] > base[0].1, "culled {} vs all {}", base[0].1, drawn[1]);
}

#[test]
fn the_state_is_the_same_on_any_thread_count() {
    let frames = [0, 20, 45, 59];
    let run = |threads: usize| rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| digests(FOREST, &frames));
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
    // and a run that starts late agrees with one that saw every frame
    let mut late = sim(FOREST);
    late.frame(45);
    assert_eq!(late.digest().hash, one[2].0);
}

#[test]
fn the_seed_model_follows_the_posts_formulas() {
    let mut s = sim(FOREST);
    let t = 31.0 / 30.0;
    s.frame(31);
    let tree = &s.grove().trees[1];
    let [x, z] = tree.spec.at;
    let n = s.field().seed_noise(x, z, t);
    // Wind = (8, 0, 4) + (n, 0, 0.8n)·12 studs/s; trunk displacement = Wind·0.18·r² (at the top, r = 1)
    let wind = [(8.0 + 12.0 * n) * STUD, (4.0 + 0.8 * 12.0 * n) * STUD];
    let (d, k, _) = tree.shown;
    assert!((d[0] - 0.18 * wind[0]).abs() < 1e-12 && (d[1] - 0.18 * wind[1]).abs() < 1e-12, "{d:?} vs {wind:?}");
    assert_eq!(k, 1.0, "the seed keeps heights: no length correction");
    // flutter = sin(0.5(X + Z) + 3.5t)·0.3r studs, offset (1, −0.2, 0.5)·flutter
    let leaves = s.grove().leaf_motion(t, &[(1.0, 1.0), (1.0, 1.0)]);
    let base = &leaves[tree.leaves.clone()];
    let placed = &s.grove().leaf_placements[tree.leaves.clone()];
    for (m, p) in base.iter().zip(placed).take(20) {
        let (ax, ay, az) = (p.position[0] as f64 - x, p.position[1] as f64, p.position[2] as f64 - z);
        let r = (ay / tree.top as f64).clamp(0.0, 1.0);
        let flutter = portable::sin(0.5 * ((x + ax) / STUD + (z + az) / STUD) + 3.5 * t) * 0.3 * r * STUD;
        let bend = [d[0] * r * r, d[1] * r * r];
        assert!((m.a[0] as f64 - (bend[0] + flutter)).abs() < 1e-4, "{} vs {}", m.a[0], bend[0] + flutter);
        assert!((m.a[1] as f64 + 0.2 * flutter).abs() < 1e-4);
        assert!((m.a[2] as f64 - (bend[1] + 0.5 * flutter)).abs() < 1e-4);
    }
}

#[test]
fn an_empty_meadow_is_a_valid_scene() {
    let mut s = sim("kind = \"wind\"\n[render]\nframes = 3\n");
    let f = s.frame(2);
    assert!(f.batches.is_empty() && f.meshes.len() == 1, "just the ground");
    assert_eq!(s.fault(), None);
}

#[test]
fn walkers_follow_their_path_and_leave_it() {
    let p = crate::scene::wind::PresserSpec {
        path: vec![[1.0, 0.0, 0.0], [2.0, 2.0, 0.0], [4.0, 2.0, 4.0]],
        radius: 1.0,
        flatten_deg: 80.0,
        vehicle: false,
    };
    assert_eq!(presser_at(&p, 0.99), None);
    assert_eq!(presser_at(&p, 4.01), None);
    for (t, want) in [(1.0, [0.0, 0.0]), (2.0, [2.0, 0.0]), (4.0, [2.0, 4.0])] {
        let (pos, _) = presser_at(&p, t).unwrap();
        assert!((pos[0] - want[0]).abs() < 1e-12 && (pos[1] - want[1]).abs() < 1e-12, "{t}: {pos:?}");
    }
    // the velocity is the derivative of the position
    let (a, v) = presser_at(&p, 2.7).unwrap();
    let (b, _) = presser_at(&p, 2.7 + 1e-6).unwrap();
    assert!(((b[0] - a[0]) / 1e-6 - v[0]).abs() < 1e-4 && ((b[1] - a[1]) / 1e-6 - v[1]).abs() < 1e-4);
}

#[test]
fn blades_fade_and_thin_with_distance_without_popping() {
    // the camera backs away along a line; every blade's drawn height changes smoothly, through the
    // thinning (blades sink before they are dropped) and the fade to rest beyond `far`
    let text = |z: f64| {
        format!(
            "kind = \"wind\"\nseed = 3\n[render]\nwidth = 320\nheight = 180\nframes = 1\n[camera]\nposition = [0.0, 2.0, {z}]\ntarget = [0.0, 0.0, {}]\n\
             [wind]\nspeed = 4.0\n[[wind.grass]]\narea = [6.0, 6.0]\ndensity = 30\n[wind.lod]\nnear = 6.0\nfar = 12.0\nblend = 4.0\ncull = false\n",
            z - 10.0
        )
    };
    // every blade's drawn tip height, by blade (a blade no batch draws has height 0)
    let tips = |z: f64| -> Vec<f32> {
        let mut s = sim(&text(z));
        let f = s.frame(0);
        let mut drawn = std::collections::HashMap::new();
        for b in &f.batches {
            for (i, p) in b.placements.data.iter().enumerate().take(b.count()) {
                drawn.insert(p.position.map(f32::to_bits), b.motion_of(i).b[1] * p.scale[1]);
            }
        }
        let m = s.meadow();
        (0..m.len()).map(|i| drawn.get(&[m.x[i].to_bits(), 0f32.to_bits(), m.z[i].to_bits()]).copied().unwrap_or(0.0)).collect()
    };
    // the largest change of any blade between camera positions `step` apart, over 4..28 m, and
    // how many blades are gone at the end
    let sweep = |step: f64| {
        let (mut prev, mut worst) = (tips(4.0), 0.0f32);
        for k in 1..=(24.0 / step).round() as usize {
            let now = tips(4.0 + k as f64 * step);
            worst = prev.iter().zip(&now).map(|(a, b)| (a - b).abs()).fold(worst, f32::max);
            prev = now;
        }
        (worst, prev.iter().filter(|&&h| h == 0.0).count(), prev.len())
    };
    let (coarse, gone, blades) = sweep(0.2);
    let (fine, _, _) = sweep(0.05);
    assert!(gone > blades / 2, "far away most blades are dropped: {gone} of {blades}");
    // smooth: a step four times smaller changes a blade about four times less; a pop (a jump that
    // does not shrink with the step) would keep the largest change where it is
    assert!(fine < 0.4 * coarse, "largest change {fine} m at 5 cm steps vs {coarse} m at 20 cm: a blade pops");
}

/// `[wind.overlay] legend`: the arrows' colours at max_speed, half of it and calm, in the corner
/// asked for; nothing without the key.
#[test]
fn the_overlay_s_legend_says_what_its_colours_mean() {
    let text = "kind = \"wind\"\n[render]\nwidth = 640\nheight = 360\nframes = 1\n[wind.overlay]\narea = [8.0, 8.0]\nmax_speed = 7.0\nlegend = \"top-left\"\n";
    let canvas = |text: &str| crate::kinds::build(&scene_of(text)).frame(0).canvas;
    let c = canvas(text).expect("a canvas for the legend");
    let said: Vec<&str> = c.texts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(said, ["7 m/s and over", "3.5 m/s", "calm"]);
    assert!(c.texts.iter().all(|t| t.at[0] < 640.0 * 0.4 && t.at[1] < 360.0 * 0.4), "{:?}", c.texts);
    assert!(canvas(&text.replace("legend = \"top-left\"\n", "")).is_none());
}
