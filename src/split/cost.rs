//! What a frame of each kind of scene costs on the software adapter, for splitting work across
//! shards: nanoseconds of drawing per pixel at 4× MSAA, and milliseconds of simulation. Measured
//! on the project's 2-core machine (docs/benchmarks/render.md); only the ratios between scenes matter.

use crate::scene::terrain::MeshStyle;
use crate::scene::{KindLook, KindSpec};

/// Drawing (ns per pixel at 4× MSAA) and simulating (ms) one frame of a scene of kind `kind`
/// drawn with `look`.
pub fn kind_cost(kind: &KindSpec, look: &KindLook) -> (f64, f64) {
    match kind {
        KindSpec::Terrain(t) => {
            let wireframe = matches!(look, KindLook::Terrain(l) if l.style == MeshStyle::Wireframe);
            // 157 ms a frame at 640×360, 88 ms walled in (its back faces are not drawn); an
            // animated field is re-sampled each frame (cliffs: 33 ms for 645 120 samples), a still
            // one once
            let culled = t.walled_without_cracks() && !wireframe;
            (if culled { 380.0 } else { 680.0 }, if t.is_animated() { t.samples() as f64 * 5e-5 } else { 0.0 })
        }
        KindSpec::Flock(f) => {
            // flock_crowd: 21 ms drawing at 960×540 (its canvas over the gradient, not
            // multisampled), 4.7 ms stepping 4 000 agents
            let agents = f.agents.resolve(f.canvas[0] * f.canvas[1], 1, crate::scene::flock::MAX_AGENTS as u32) as f64;
            (45.0, agents * 1.2e-3)
        }
        // dice: 108 ms drawing at 640×400, 0.7 ms stepping five dice
        KindSpec::Dice(d) => (420.0, 0.15 * d.count as f64),
        // wind_meadow: about 145 ms drawing at 640×360, 1.65 ms stepping, culling and batching
        KindSpec::Wind(_) => (630.0, 1.65),
        // cargo_walk: 69 ms drawing at 640×400, 0.6 ms for a frame's poses, straps and chart
        KindSpec::Cargo(_) => (270.0, 0.6),
        // panels of other kinds' scenes, charts and text: about a terrain's
        KindSpec::Figure(_) => (600.0, 5.0),
    }
}
