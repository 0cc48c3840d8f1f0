//! Times instanced batches in the renderer on whatever adapter `auto` picks: a field of `--blades`
//! ribbons bent along Bézier spines (a new motion record every frame), on a ground, at
//! `--size` with 4× MSAA and the sun's shadow map, against the same instances drawn as separate
//! meshes bent on the CPU (`--separate N` of them; 0 skips it). Prints one JSON line:
//! `{"adapter":…, "blades":…, "batched_ms":…, "batched_draws":[shadow, main], "separate":…, "separate_ms":…, "separate_draws":[…]}`
//! with median milliseconds per frame, readback included.
//!
//! `cargo run --release --example batch_bench -- --blades 50000 --separate 2000 --size 960x540 --frames 20`
// test pictures and references may use the platform's math: only what simreel computes must be
// the same bits everywhere (src/portable.rs)
#![allow(clippy::disallowed_methods)]

use std::time::Instant;

use simreel::frame::{
    Background, Camera, Deform, FrameData, IDENTITY, InstanceBatch, Lighting, Material, MeshData, MeshInstance, MeshRef, Motion, Placement,
    Placements,
};
use simreel::render::{AdapterRequest, Renderer};

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

/// A ribbon along +y from 0 to 1, one unit wide, in `rows` segments, tapering to a point.
fn blade(rows: u32) -> MeshData {
    let mut m = MeshData::default();
    for j in 0..=rows {
        let y = j as f32 / rows as f32;
        for x in [-0.5, 0.5] {
            m.positions.push([x * (1.0 - y), y, 0.0]);
            m.normals.push([0.0, 0.0, 1.0]);
            m.colors.push([96, 168, 64, 255]);
        }
    }
    for j in 0..rows {
        let b = 2 * j;
        m.indices.extend_from_slice(&[b, b + 1, b + 3, b, b + 3, b + 2]);
    }
    m
}

fn ground(half: f32) -> MeshInstance {
    MeshInstance {
        mesh: MeshRef::new(MeshData::flat_quad([-half, -half], [half, half], [110, 98, 80, 255])),
        transform: IDENTITY,
        material: Material { casts_shadow: false, ..Material::default() },
        deform: None,
    }
}

fn frame(meshes: Vec<MeshInstance>, batches: Vec<InstanceBatch>, index: u32) -> FrameData {
    FrameData {
        index,
        time: 0.0,
        camera: Camera { eye: [0.0, 4.0, 11.0], target: [0.0, 0.3, 0.0], up: [0.0, 1.0, 0.0], fov_y_deg: 45.0, near: 0.1, far: 200.0 },
        background: Background { top: [0.3, 0.45, 0.7], bottom: [0.8, 0.82, 0.85] },
        lighting: Lighting {
            to_sun: [0.45, 0.8, 0.4],
            sun: [2.6, 2.5, 2.3],
            sky: [0.25, 0.3, 0.4],
            ground: [0.15, 0.12, 0.1],
            shadows: true,
            shadow_softness: 1.0,
            fog_density: 0.01,
            fog_color: [0.8, 0.82, 0.85],
        },
        meshes,
        batches,
        canvas: None,
        views: Vec::new(),
    }
}

/// `n` blades scattered over a square of side `side`, and their spines at time step `t`.
fn field(n: usize, side: f32) -> Vec<Placement> {
    let mut s = 0x2545_F491u32;
    let mut unit = || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        s as f32 / u32::MAX as f32
    };
    (0..n)
        .map(|_| Placement {
            position: [(unit() - 0.5) * side, 0.0, (unit() - 0.5) * side],
            yaw: unit() * std::f32::consts::TAU,
            scale: [0.04, 0.35 + 0.3 * unit(), 1.0],
            color: [255, 255, 255, 255],
        })
        .collect()
}

fn spines(placements: &[Placement], t: u32) -> Vec<Motion> {
    placements
        .iter()
        .map(|p| {
            let lean = 0.35 * (0.4 * p.position[0] + 0.25 * t as f32).sin();
            Motion { a: [0.3 * lean, 0.5, 0.0, 0.0], b: [0.8 * lean, 0.8, 0.1 * lean, 0.0] }
        })
        .collect()
}

fn median_ms(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median milliseconds per frame over `frames` frames made by `make`, after one warm-up.
fn time(renderer: &mut Renderer, frames: u32, make: impl Fn(u32) -> FrameData) -> (f64, [u32; 2]) {
    let mut times = Vec::new();
    for f in 0..=frames {
        let data = make(f);
        let start = Instant::now();
        if renderer.submit(&data).unwrap_or_else(|e| fail(&e.to_string())).is_some() {
            fail("a frame came back before its time");
        }
        renderer.next_image().unwrap_or_else(|e| fail(&e.to_string()));
        if f > 0 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    let d = renderer.last_draws();
    (median_ms(times), [d.shadow, d.main])
}

fn main() {
    let (mut blades, mut separate, mut size, mut frames) = (50_000usize, 2_000usize, (960u32, 540u32), 20u32);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| fail(&format!("{a} needs a value")));
        match a.as_str() {
            "--blades" => blades = val().parse().unwrap_or_else(|_| fail("--blades takes a count")),
            "--separate" => separate = val().parse().unwrap_or_else(|_| fail("--separate takes a count")),
            "--frames" => frames = val().parse().unwrap_or_else(|_| fail("--frames takes a count")),
            "--size" => {
                let v = val();
                let (w, h) = v.split_once('x').unwrap_or_else(|| fail("--size is WxH"));
                size = (w.parse().unwrap_or_else(|_| fail("--size is WxH")), h.parse().unwrap_or_else(|_| fail("--size is WxH")));
            }
            other => fail(&format!("unknown argument {other}")),
        }
    }
    let mut renderer = Renderer::new(&AdapterRequest::default(), size.0, size.1, 4).unwrap_or_else(|e| fail(&e.to_string()));
    let mesh = MeshRef::new(blade(4));
    let material = Material { roughness: 0.7, specular: 0.1, ..Material::default() };
    // the field at frame t, as one batch
    let batch_at = |placements: &Placements, t: u32| InstanceBatch {
        mesh: mesh.clone(),
        material,
        deform: Deform::Spine,
        placements: placements.clone(),
        motion: spines(&placements.data, t),
        drawn: None,
    };
    let placements = Placements::new(field(blades, 14.0));
    let (batched_ms, batched_draws) = time(&mut renderer, frames, |t| frame(vec![ground(9.0)], vec![batch_at(&placements, t)], t));
    let mut out = format!(
        "{{\"adapter\":\"{}\",\"size\":\"{}x{}\",\"blades\":{blades},\"batched_ms\":{batched_ms:.2},\"batched_draws\":[{},{}]",
        renderer.adapter(),
        size.0,
        size.1,
        batched_draws[0],
        batched_draws[1]
    );
    if separate > 0 {
        let few = Placements::new(field(separate, 14.0));
        let height = mesh.data.bounds().map_or(1.0, |b| b.1[1]);
        let (separate_ms, separate_draws) = time(&mut renderer, frames.min(5), |t| {
            let batch = batch_at(&few, t);
            let mut meshes = vec![ground(9.0)];
            meshes.extend((0..few.data.len()).map(|i| {
                let mut m = (*mesh.data).clone();
                for (p, n) in m.positions.iter_mut().zip(m.normals.iter_mut()) {
                    (*p, *n) = batch.vertex(i, *p, *n, height);
                }
                MeshInstance { mesh: MeshRef::new(m), transform: IDENTITY, material, deform: None }
            }));
            frame(meshes, Vec::new(), t)
        });
        out += &format!(
            ",\"separate\":{separate},\"separate_ms\":{separate_ms:.2},\"separate_draws\":[{},{}]",
            separate_draws[0], separate_draws[1]
        );
    }
    println!("{out}}}");
}
