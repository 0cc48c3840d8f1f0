//! What a frame of a scene costs on the software adapter: its pixels at each kind's cost a pixel
//! (`KindTable::frame_cost`, beside its memory estimate), the 2-D shapes it draws and its
//! simulation (`KindTable::load`). Splitting work across shards reads the ratios between scenes;
//! the time check on a software adapter and the GPU watchdog read the seconds.

use super::Scene;
use super::kind_tables::{self, FrameSize, Load};

/// What a 2-D shape costs on the software adapter beyond its pixels (its instance, six vertices),
/// a pixel of its quad (shaded once, over the resolved image), and a pixel along the quad's edge
/// (the rasterizer's tiles and blocks a thin quad crosses: a long thin line costs far more a
/// pixel than a large disc), ns. Measured on the project's 2-core machine with flock agents
/// (docs/benchmarks/render.md): 100 000 at 640×480 with discs alone 66 ms a frame, trails 1.18 s,
/// dashed paths 2.55 s; 2 000 at 2048×2048 on a 16×16 canvas (quads of hundreds of pixels a
/// side) 12.5 s. These constants give 0.14, 1.7, 1.9 and 14.7 s.
const NS_PER_SHAPE: f64 = 100.0;
const NS_PER_SHAPE_PIXEL: f64 = 2.0;
const NS_PER_EDGE_PIXEL: f64 = 25.0;

impl Scene {
    /// Estimated seconds a frame of this scene costs on the software adapter at `width` ×
    /// `height`: drawing it (pixels × the kind's cost a pixel, with MSAA, and its shapes) and
    /// simulating it. Measured on a 2-core machine.
    pub fn costs(&self, width: u32, height: u32) -> (f64, f64) {
        let (ns_per_pixel, simulate_ms) = kind_tables::frame_cost(&self.sim.kind, &self.look.kind);
        let load = self.load(width, height);
        let pixels = width as f64 * height as f64;
        // 4× MSAA is what the per-pixel costs were measured at; 1× costs about 60 % of it
        let msaa = 0.6 + 0.1 * self.look.msaa as f64;
        let shapes = load.shapes * NS_PER_SHAPE + load.shape_pixels * NS_PER_SHAPE_PIXEL + load.shape_edges * NS_PER_EDGE_PIXEL;
        ((pixels * ns_per_pixel * msaa + shapes) * 1e-9, (simulate_ms + load.simulate_ms) * 1e-3)
    }

    /// Estimated seconds a frame costs at the scene's render size, drawn and simulated.
    pub fn frame_cost(&self) -> f64 {
        let (draw, simulate) = self.costs(self.look.width, self.look.height);
        draw + simulate
    }

    /// The work a frame holds beyond its pixels at `width` × `height`.
    pub fn load(&self, width: u32, height: u32) -> Load {
        let at = FrameSize { width, height, fps: self.sim.timing.fps as f64 };
        kind_tables::load(&self.sim.kind, &self.look.kind, at)
    }
}
