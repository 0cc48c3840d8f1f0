//! The flock's rules, one at a time, on small worlds built from scene text.

use super::FlockSim;
use super::grid::{NeighbourGrid, brute_force};
use super::world::{State, World};
use crate::kinds::Played;
use crate::portable;
use crate::scene;
use crate::sim::Simulation;
use crate::sim::rng::Rng;

fn sim(flock: &str) -> Played<FlockSim> {
    let text = format!("kind = \"flock\"\nseed = 1\n[render]\nwidth = 800\nheight = 600\nfps = 60\nframes = 600\n[flock]\n{flock}\n");
    let s = scene::parse(&text, std::path::Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
    Played::of(&s).expect("a flock scene")
}

/// One agent, one node, nothing else moving it.
fn lone(flock: &str) -> Played<FlockSim> {
    sim(&format!(
        "agents = 1\nwander = 0.0\nseparation_radius = 0.0\n{flock}\n[[flock.node]]\nx = 600\ny = 300\n[[flock.node]]\nx = 150\ny = 450"
    ))
}

fn place(w: &mut World, i: usize, pos: [f32; 2], target: u32) {
    let a = &mut w.agents[i];
    a.pos = pos;
    a.vel = [0.0; 2];
    a.target = target;
    a.state = State::Seek;
}

#[test]
fn seek_becomes_work_on_arrival_then_seek_again_with_pulse_and_packet() {
    let mut s = lone("work_time = [1.0, 1.0]");
    let w = s.world_mut();
    place(w, 0, [100.0, 300.0], 0);
    let mut worked_at = None;
    for step in 0..2000 {
        w.step();
        if w.agents[0].state == State::Work && worked_at.is_none() {
            worked_at = Some(step);
            let d = (portable::powi(w.agents[0].pos[0] - 600.0, 2) + portable::powi(w.agents[0].pos[1] - 300.0, 2)).sqrt();
            assert!(d < 1.25 * w.params.orbit_radius + 1e-3, "work starts within reach of the node ({d})");
        }
        if worked_at.is_some() && w.agents[0].state == State::Seek {
            break;
        }
    }
    let started = worked_at.expect("the agent never arrived");
    assert_eq!(w.agents[0].state, State::Seek, "work should end after its one second");
    assert_eq!(w.agents[0].target, 1, "a new target other than the node just worked");
    assert_eq!(w.pulses.len(), 1, "completion pulse");
    assert_eq!(w.packets.len(), 1, "packet along the edge");
    assert_eq!((w.packets[0].from, w.packets[0].to), (0, 1));
    let steps = w.steps();
    assert!((steps as i64 - started as i64 - 61).abs() <= 1, "worked {} steps at 60 Hz", steps as i64 - started as i64);
}

#[test]
fn arrival_slows_down_without_overshoot() {
    let mut s = lone("orbit_radius = 4.0");
    let w = s.world_mut();
    place(w, 0, [100.0, 300.0], 0);
    let mut last = f32::INFINITY;
    let mut max_x = 0.0f32;
    let mut speeds = Vec::new();
    while w.agents[0].state == State::Seek && w.steps() < 3000 {
        w.step();
        let a = &w.agents[0];
        let d = (portable::powi(a.pos[0] - 600.0, 2) + portable::powi(a.pos[1] - 300.0, 2)).sqrt();
        assert!(d <= last + 1e-4, "distance grew from {last} to {d} at step {}", w.steps());
        last = d;
        max_x = max_x.max(a.pos[0]);
        speeds.push((a.vel[0] * a.vel[0] + a.vel[1] * a.vel[1]).sqrt());
    }
    assert_eq!(w.agents[0].state, State::Work);
    assert!(max_x <= 600.0, "passed the node: x reached {max_x}");
    let peak = speeds.iter().cloned().fold(0.0, f32::max);
    assert!(peak > 0.9 * w.params.max_speed && peak <= w.params.max_speed * 1.001, "cruise speed {peak}");
    assert!(speeds.last().unwrap() < &(0.2 * peak), "slows down on arrival: {}", speeds.last().unwrap());
}

#[test]
fn live_cursor_lures_and_cooldown_is_honoured() {
    // The cursor wiggles around (300, 300) from 0 to 4 s, then rests; it stays alive until 6.2 s.
    let mut s = lone(
        "lure_radius = 200.0\nlure_rate = 1000.0\ncurious_time = [0.5, 0.5]\ncooldown = 1.0\n\
         cursor = [[0.0, 300, 300], [1.0, 304, 300], [2.0, 300, 304], [3.0, 304, 304], [4.0, 300, 300]]",
    );
    let w = s.world_mut();
    place(w, 0, [330.0, 300.0], 1);
    w.step();
    assert!(w.cursor.alive);
    assert_eq!(w.agents[0].state, State::Curious, "a near agent turns curious at once at this lure rate");
    // curious for 0.5 s, then back to its task for the 1 s cooldown although still in range
    let mut ended = None;
    let mut lured_again = None;
    while w.time() < 3.0 {
        let before = w.agents[0].state;
        w.step();
        let now = w.agents[0].state;
        if before == State::Curious && now == State::Seek && ended.is_none() {
            ended = Some(w.time());
            assert_eq!(w.agents[0].target, 1, "back to its own task");
        }
        if ended.is_some() && before != State::Curious && now == State::Curious && lured_again.is_none() {
            lured_again = Some(w.time());
        }
    }
    let (ended, again) = (ended.expect("curiosity never ended"), lured_again.expect("never lured again"));
    assert!((ended - 0.5).abs() < 0.05, "curious for {ended} s");
    assert!(again - ended >= 1.0 - 1e-9, "lured again after {} s, inside the cooldown", again - ended);
    // A cursor that stopped moving is dead after 2.2 s and lures nobody.
    let mut s = lone("lure_radius = 200.0\nlure_rate = 1000.0\ncursor = [[0.0, 300, 300], [0.5, 302, 300]]");
    let w = s.world_mut();
    w.advance_to(3.0);
    assert!(!w.cursor.alive);
    place(w, 0, [310.0, 300.0], 1);
    w.step();
    assert_ne!(w.agents[0].state, State::Curious);
}

#[test]
fn cursor_is_smoothed_exponentially() {
    let mut s = lone("cursor = [[0.0, 0, 0], [0.01, 100, 0]]");
    let w = s.world_mut();
    let dt = w.dt() as f32;
    w.step(); // raw jumps most of the way; the smoothed cursor moves by (raw − s)·8·dt
    let raw = w.cursor.raw[0];
    assert!((w.cursor.smooth[0] - raw * 8.0 * dt).abs() < 1e-3, "{:?}", w.cursor);
    let prev = w.cursor.smooth[0];
    w.step();
    assert!((w.cursor.smooth[0] - (prev + (100.0 - prev) * 8.0 * dt)).abs() < 1e-3);
}

#[test]
fn shockwave_resets_workers_and_pushes_them_out() {
    let mut s = sim("agents = 12\nnodes = 3\nshock_strength = 400.0\nshock_radius = 300.0\ncooldown = 1.5\nclicks = [[2.0, 400, 300]]");
    let w = s.world_mut();
    for i in 0..12 {
        let ang = i as f32 * 0.5;
        let a = &mut w.agents[i];
        a.pos = [400.0 + 60.0 * portable::cos(ang), 300.0 + 60.0 * portable::sin(ang)];
        a.vel = [0.0; 2];
        a.state = if i % 2 == 0 { State::Work } else { State::Curious };
        a.duration = 100.0;
        a.timer = 0.0;
    }
    // up to just before the click
    while w.time() + w.dt() < 2.0 - 1e-9 {
        w.step();
    }
    let before: Vec<[f32; 2]> = w.agents.iter().map(|a| a.pos).collect();
    w.step();
    assert_eq!(w.shocks.len(), 1);
    for (i, a) in w.agents.iter().enumerate() {
        assert_eq!(a.state, State::Seek, "agent {i} should be back to seek");
        assert!(a.cooldown > 1.4, "agent {i} cooldown {}", a.cooldown);
        let out = [before[i][0] - 400.0, before[i][1] - 300.0];
        assert!(a.vel[0] * out[0] + a.vel[1] * out[1] > 0.0, "agent {i} is pushed outward");
    }
    let speed = w.agents.iter().map(|a| (portable::powi(a.vel[0], 2) + portable::powi(a.vel[1], 2)).sqrt()).fold(0.0, f32::max);
    assert!(speed <= 3.0 * w.params.max_speed + 1e-3, "speed clamped at 3 × max_speed: {speed}");
    assert!(speed > 1.5 * w.params.max_speed, "the shock overspeeds them: {speed}");
}

#[test]
fn separation_keeps_workers_apart_at_a_crowded_node() {
    let crowd = |sep: f32| {
        let mut s = sim(&format!(
            "agents = 16\nseparation_radius = {sep}\nwork_time = [100.0, 100.0]\n[[flock.node]]\nx = 400\ny = 300\n[[flock.node]]\nx = 100\ny = 100"
        ));
        let w = s.world_mut();
        for i in 0..16 {
            place(w, i, [388.0 + (i % 4) as f32 * 8.0, 288.0 + (i / 4) as f32 * 8.0], 0);
        }
        w.advance_to(6.0);
        let working: Vec<[f32; 2]> = w.agents.iter().filter(|a| a.state == State::Work).map(|a| a.pos).collect();
        assert!(working.len() >= 12, "{} of 16 agents work at the node", working.len());
        let mut closest = f32::INFINITY;
        for (i, a) in working.iter().enumerate() {
            for b in &working[i + 1..] {
                closest = closest.min((portable::powi(a[0] - b[0], 2) + portable::powi(a[1] - b[1], 2)).sqrt());
            }
        }
        closest
    };
    let with = crowd(16.0);
    let without = crowd(0.0);
    assert!(with > 4.0, "with separation the closest pair is {with} apart");
    assert!(without < with / 2.0, "separation should matter: {without} without, {with} with");
}

#[test]
fn grid_nearest_are_exactly_the_brute_force_nearest() {
    let mut rng = Rng::new(77);
    let mut nearest = super::grid::Nearest::default();
    let mut checked = 0;
    for layout in 0..8 {
        let n = 50 + layout * 150;
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for k in 0..n {
            let (x, y) = match layout % 4 {
                0 => (rng.unit() as f32 * 500.0, rng.unit() as f32 * 300.0),
                1 => (200.0 + rng.unit() as f32 * 20.0, 100.0 + rng.unit() as f32 * 20.0), // clustered
                2 => ((k % 7) as f32 * 5.0, (k % 5) as f32 * 5.0),                         // coincident points, on cell edges
                // a dense cluster in a sparse field: cells sized for the mean
                _ if k % 4 == 0 => (rng.unit() as f32 * 2000.0, rng.unit() as f32 * 2000.0),
                _ => (900.0 + rng.unit() as f32 * 8.0, 900.0 + rng.unit() as f32 * 8.0),
            };
            xs.push(x);
            ys.push(y);
        }
        if layout == 5 {
            xs.push(1.0e5); // one far straggler stretches the grid
            ys.push(-3.0e4);
        }
        let radius = [16.0f32, 5.0, 10.0, 40.0][layout % 4];
        for k in [1, 3, 7, 20, 64] {
            let mut g = NeighbourGrid::default();
            g.build(&xs, &ys, radius, k);
            for i in 0..xs.len() {
                g.nearest(i, xs[i], ys[i], radius, k, &mut nearest);
                let got: Vec<usize> = nearest
                    .iter()
                    .map(|(j, d2)| {
                        let (dx, dy) = (xs[i] - xs[j], ys[i] - ys[j]);
                        assert_eq!(d2, dx * dx + dy * dy);
                        j
                    })
                    .collect();
                assert_eq!(got, brute_force(i, radius, k, &xs, &ys), "layout {layout}, k {k}, agent {i}");
                checked += got.len();
            }
        }
    }
    assert!(checked > 10_000, "the layouts should give many neighbours ({checked})");
}

fn run_digests(threads: usize) -> Vec<(String, u64)> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| {
        let mut s = sim("agents = 5000\nnodes = 12\ncursor = [[0.0, 0, 0], [3.0, 400, 300]]\nclicks = [[2.0], [3.5, 200, 200]]");
        (0..4)
            .map(|k| {
                let f = s.frame(k * 60);
                (s.digest().to_string(), f.digest())
            })
            .collect()
    })
}

#[test]
fn same_seed_same_state_on_any_thread_count() {
    let one = run_digests(1);
    assert_eq!(one, run_digests(1));
    assert_eq!(one, run_digests(3));
    assert!(one.windows(2).all(|w| w[0] != w[1]), "the flock moves");
    assert!(one[3].0.contains("agents 5000"), "{}", one[3].0);
}

#[test]
fn completion_events_carry_a_connected_destination() {
    let mut s = sim("agents = 40\nnodes = 6\nwork_time = [0.2, 0.4]");
    let w = s.world_mut();
    w.advance_to(8.0);
    assert!(!w.pulses.is_empty() || !w.packets.is_empty(), "in 8 s some work completes");
    for p in &w.packets {
        assert!(w.adjacency[p.from as usize].contains(&p.to), "packet {p:?} runs along an edge");
    }
}

#[test]
fn a_restored_snapshot_carries_on_bit_for_bit_and_a_foreign_one_is_refused() {
    // trails, packets, pulses, a lingering cursor and a click all in flight at frame 200
    let flock = "agents = 300\nnodes = 8\nwork_time = [0.3, 0.6]\ncursor = [[0.0, 0, 0], [2.5, 400, 300], [4.5, 420, 310]]\nclicks = [[3.3], [3.5, 200, 200]]";
    let mut whole = sim(flock);
    for f in (0..=200).step_by(20) {
        whole.frame(f);
    }
    let state = whole.snapshot().expect("the flock saves its state");
    let w = whole.world();
    assert!(w.trail_count > 1 && !w.packets.is_empty() && !w.pulses.is_empty() && !w.shocks.is_empty(), "all in flight");
    let mut later = sim(flock);
    assert!(later.restore(200, &state));
    for f in [200, 201, 260, 400] {
        assert_eq!(whole.frame(f), later.frame(f), "frame {f}");
        assert_eq!(whole.digest(), later.digest(), "frame {f}");
    }
    let (a, b) = (whole.world(), later.world());
    assert_eq!((&a.agents, &a.pulses, &a.packets, &a.shocks), (&b.agents, &b.pulses, &b.packets, &b.shocks));
    assert_eq!(
        (&a.trail, a.trail_head, a.trail_count, a.cursor, a.time(), a.steps()),
        (&b.trail, b.trail_head, b.trail_count, b.cursor, b.time(), b.steps())
    );
    // refused, the state untouched: another frame, cut short, another flock
    let fresh = sim(flock).digest();
    let mut s = sim(flock);
    assert!(!s.restore(199, &state));
    assert!(!s.restore(200, &state[..state.len() - 1]));
    assert!(!s.restore(200, &[state.as_slice(), &[0]].concat()));
    assert_eq!(s.digest(), fresh);
    let mut other = sim(&flock.replace("agents = 300", "agents = 299"));
    let before = other.digest();
    assert!(!other.restore(200, &state));
    assert_eq!(other.digest(), before);
}

/// The facts' mean speed and mean nearest-neighbour distance, against every agent measured
/// directly (all pairs): exact for a flock of up to 4096 agents, an even sample's mean beyond.
#[test]
fn mean_speed_and_spacing_facts_are_the_agents_own() {
    for agents in [2usize, 37, 5000] {
        let mut s = sim(&format!("agents = {agents}"));
        s.world_mut().step();
        for _ in 0..30 {
            s.world_mut().step();
        }
        let facts = s.digest().facts;
        let fact =
            |name: &str| -> f64 { facts.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name}: {facts:?}")).1.parse().unwrap() };
        let w = s.world_mut();
        let n = w.agents.len();
        let speed = w.agents.iter().map(|a| portable::hypot(a.vel[0] as f64, a.vel[1] as f64)).sum::<f64>() / n as f64;
        let measured: Vec<usize> = if n <= 4096 { (0..n).collect() } else { (0..4096).map(|s| s * n / 4096).collect() };
        let spacing = measured
            .iter()
            .map(|&i| {
                let p = w.agents[i].pos;
                (0..n)
                    .filter(|&j| j != i)
                    .map(|j| portable::hypot((w.agents[j].pos[0] - p[0]) as f64, (w.agents[j].pos[1] - p[1]) as f64))
                    .fold(f64::INFINITY, f64::min)
            })
            .sum::<f64>()
            / measured.len() as f64;
        assert!(speed > 1.0, "{agents} agents move: {speed}");
        assert!((fact("mean_speed") - speed).abs() <= 0.006, "{agents}: mean_speed {} against {speed}", fact("mean_speed"));
        assert!(
            (fact("mean_spacing") - spacing).abs() <= 0.006 + spacing * 1e-5,
            "{agents}: mean_spacing {} against {spacing}",
            fact("mean_spacing")
        );
    }
}

/// `legend`: a card in the corner asked for, a dot of each state's colour and its count of agents.
#[test]
fn the_legend_names_each_state_with_its_count_in_its_corner() {
    let text = "kind = \"flock\"\nseed = 3\n[render]\nwidth = 640\nheight = 360\nfps = 30\nframes = 90\n[flock]\nagents = 40\nlegend = \"bottom-left\"\n";
    let scene = scene::parse(text, std::path::Path::new("t.toml")).unwrap();
    let mut played = crate::kinds::build(&scene);
    let frame = played.frame(60);
    let canvas = frame.canvas.expect("a canvas");
    let counts = played.digest().facts;
    let count = |name: &str| counts.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_else(|| panic!("{name}: {counts:?}"));
    let said: Vec<&str> = canvas.texts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(said, [format!("seeking {}", count("seek")), format!("working {}", count("work")), format!("curious {}", count("curious"))]);
    // in the bottom-left corner, inside the canvas
    for t in &canvas.texts {
        assert!(t.at[0] < 640.0 * 0.3 && t.at[1] > 360.0 * 0.6 && t.at[1] < 360.0, "{:?}", t.at);
    }
    // and none without the key
    let plain = scene::parse(&text.replace("legend = \"bottom-left\"\n", ""), std::path::Path::new("t.toml")).unwrap();
    assert!(crate::kinds::build(&plain).frame(60).canvas.unwrap().texts.is_empty());
}

/// `background` over the theme's: the canvas takes the colour given (a white page), else the theme's.
#[test]
fn a_background_over_the_theme_s_colours_the_canvas() {
    let text =
        |extra: &str| format!("kind = \"flock\"\nseed = 3\n[render]\nwidth = 320\nheight = 180\nframes = 2\n[flock]\nagents = 4\n{extra}");
    let bg = |extra: &str| {
        let scene = scene::parse(&text(extra), std::path::Path::new("t.toml")).unwrap();
        crate::kinds::build(&scene).frame(1).background.top
    };
    assert_eq!(bg("background = \"#ffffff\"\n"), [1.0, 1.0, 1.0]);
    assert_eq!(bg("theme = \"dark\"\nbackground = \"#ffffff\"\n"), [1.0, 1.0, 1.0]);
    let light = bg("");
    assert!(light != [1.0, 1.0, 1.0] && light.iter().all(|c| *c > 0.8), "{light:?}");
}
