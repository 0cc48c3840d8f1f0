//! The `figure` kind: other scenes' frames placed side by side as views of one frame, charts
//! turned into 2-D shapes, captions, a title and annotations. Every panel's scene runs its own
//! simulation; the figure only chooses which frame each shows and where.

pub mod annotate;
pub mod chart;

use crate::frame::{Align, Canvas2d, Fill, Fnv, FrameData, Text2d, View, Wire};
use crate::scene::Scene;
use crate::scene::figure::{FigureSpec, LabelSpec, PanelContent, PanelFrame, PanelStyle, lookup, placeholders};
use crate::sim::{KindSimulation, SimFault, Simulation, StateDigest};

/// One panel's scene: its simulation and the last frame it gave.
struct PanelSim {
    scene: Scene,
    sim: Box<dyn Simulation>,
    last: Option<FrameData>,
}

pub struct FigureSim {
    scene: Scene,
    spec: FigureSpec,
    rects: Vec<[f32; 4]>,
    /// Per panel: its scene's simulation (`None` for a chart).
    panels: Vec<Option<PanelSim>>,
    /// What builds a panel's simulation afresh (a restore builds each before it takes a state).
    build: crate::sim::Builder,
    /// The last frame described.
    described: u32,
}

impl KindSimulation for FigureSim {
    type Spec = FigureSpec;

    fn new(scene: &Scene, spec: &FigureSpec, build: crate::sim::Builder) -> Self {
        let rects = spec.panel_rects().iter().map(|r| r.map(|v| v as f32)).collect();
        let panels = spec
            .panels
            .iter()
            .map(|p| match &p.content {
                PanelContent::Scene(s) => Some(PanelSim { scene: (**s).clone(), sim: build(s), last: None }),
                PanelContent::Chart(_) => None,
            })
            .collect();
        FigureSim { scene: scene.clone(), spec: spec.clone(), rects, panels, build, described: 0 }
    }
}

/// The frame of a panel's scene shown at figure time `t`.
pub fn panel_frame(frame: PanelFrame, scene: &Scene, t: f64) -> u32 {
    let last = scene.render.frames.saturating_sub(1);
    let at = |seconds: f64| ((seconds * scene.render.fps as f64).round().max(0.0) as u64).min(last as u64) as u32;
    match frame {
        PanelFrame::Follow => at(t),
        PanelFrame::Time(s) => at(s),
        PanelFrame::Frame(f) => f.min(last),
    }
}

/// `text` with its placeholders replaced: from `facts` first, then the data. Decimals as asked,
/// else as the value prints; an unknown name stays as written.
pub fn fill(text: &str, facts: &[(String, String)], data: Option<&serde_json::Value>) -> String {
    let Ok(names) = placeholders(text) else { return text.to_string() };
    let mut out = text.to_string();
    for (name, decimals) in names {
        let number = |v: f64| match decimals {
            Some(d) => format!("{v:.d$}"),
            None => format!("{v}"),
        };
        let value = facts
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.parse::<f64>().ok().filter(|_| decimals.is_some()).map_or_else(|| v.clone(), number))
            .or_else(|| {
                data.and_then(|d| lookup(d, &name).ok()).map(|j| match j {
                    serde_json::Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), number),
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
            });
        if let Some(v) = value {
            let pattern = match decimals {
                Some(d) => format!("{{{name}:.{d}}}"),
                None => format!("{{{name}}}"),
            };
            out = out.replacen(&pattern, &v, 1);
        }
    }
    out
}

/// Draws the meshes of `frame` as `style` says (bent meshes keep their fill: they take no wires).
fn restyle(frame: &mut FrameData, style: &PanelStyle) {
    let c = style.wire_color.to_linear();
    let wire = style.wire.then_some(Wire { color: [c[0], c[1], c[2], 1.0], width: style.wire_width as f32 });
    for m in frame.meshes.iter_mut().filter(|m| m.deform.is_none()) {
        m.material.wire = wire;
        if !style.fill {
            m.material.fill = Fill::Hidden;
            m.material.casts_shadow = false;
        }
    }
}

/// `labels` with their placeholders filled.
fn filled(labels: &[LabelSpec], facts: &[(String, String)], data: Option<&serde_json::Value>) -> Vec<LabelSpec> {
    labels.iter().map(|l| LabelSpec { text: fill(&l.text, facts, data), ..l.clone() }).collect()
}

impl FigureSim {
    /// A line of text at em size `size`, smaller where it would be wider than `room`.
    fn text(&self, at: [f32; 2], size: f64, room: f32, align: Align, text: String) -> Text2d {
        let size = crate::frame::font::fitting_size(&text, size as f32, room);
        Text2d { at, size, align, color: with_alpha(self.spec.text_color.to_linear(), 1.0), text }
    }
}

pub fn with_alpha(c: [f32; 3], a: f32) -> [f32; 4] {
    [c[0], c[1], c[2], a]
}

impl Simulation for FigureSim {
    fn frame(&mut self, frame: u32) -> FrameData {
        self.described = frame;
        let t = self.scene.render.time_of(frame);
        let size = self.spec.size.map(|v| v as f32);
        let mut canvas = Canvas2d { size, static_layer: None, shapes: Vec::new(), texts: Vec::new() };
        let data = self.spec.data.as_ref().map(|d| &*d.json);
        if let Some(title) = &self.spec.title {
            let baseline = self.spec.margin as f32 + self.spec.title_size as f32;
            let text = fill(title, &[], data);
            let room = size[0] - 2.0 * self.spec.margin as f32;
            canvas.texts.push(self.text([size[0] / 2.0, baseline], self.spec.title_size, room, Align::Center, text));
        }
        let mut views = Vec::new();
        let style = annotate::Style { text: self.spec.text_color.to_linear() };
        for (k, spec) in self.spec.panels.iter().enumerate() {
            let rect = self.rects[k];
            let mut facts: Vec<(String, String)> = Vec::new();
            match (&spec.content, &mut self.panels[k]) {
                (PanelContent::Scene(_), Some(panel)) => {
                    let n = panel_frame(spec.frame, &panel.scene, t);
                    let shown = match panel.last.take() {
                        Some(f) if f.index == n => f,
                        _ => panel.sim.frame(n),
                    };
                    let time = format!("{:.2}", panel.scene.render.time_of(n));
                    facts = vec![
                        ("frame".into(), n.to_string()),
                        ("time".into(), time.trim_end_matches('0').trim_end_matches('.').to_string()),
                    ];
                    facts.extend(panel.sim.digest().facts);
                    let aspect = rect[2] / rect[3];
                    let labels = filled(&spec.labels, &facts, data);
                    annotate::panel(&mut canvas, &labels, &spec.arrows, rect, Some((&shown.camera, aspect)), &style);
                    let mut view = shown.clone();
                    if !spec.overlay {
                        view.canvas = None;
                    }
                    if let Some(style) = &spec.style {
                        restyle(&mut view, style);
                    }
                    views.push(View { rect, frame: Box::new(view) });
                    panel.last = Some(shown);
                }
                (PanelContent::Chart(c), _) => {
                    let bg = with_alpha(self.spec.chart_background.to_linear(), 1.0);
                    canvas.shapes.push(crate::frame::Shape2d::Rect {
                        min: [rect[0], rect[1]],
                        max: [rect[0] + rect[2], rect[1] + rect[3]],
                        radius: 0.0,
                        border: 0.0,
                        color: bg,
                    });
                    let plot = chart::draw(c, rect, &chart::Style { text: style.text, size: self.spec.caption_size as f32 * 0.8 });
                    canvas.shapes.extend(plot.shapes);
                    canvas.texts.extend(plot.texts);
                    annotate::panel(&mut canvas, &filled(&spec.labels, &[], data), &spec.arrows, rect, None, &style);
                }
                _ => {}
            }
            if let Some(caption) = &spec.caption {
                let baseline = rect[1] + rect[3] + self.spec.caption_size as f32 * 1.25;
                let text = fill(caption, &facts, data);
                let room = rect[2] + self.spec.gap as f32 * 0.5;
                canvas.texts.push(self.text([rect[0] + rect[2] / 2.0, baseline], self.spec.caption_size, room, Align::Center, text));
            }
        }
        let whole = [0.0, 0.0, size[0], size[1]];
        annotate::panel(&mut canvas, &filled(&self.spec.labels, &[], data), &self.spec.arrows, whole, None, &style);
        FrameData { views, ..crate::sim::scene_frame(&self.scene, frame, Vec::new(), Some(canvas)) }
    }

    fn fault(&self) -> Option<SimFault> {
        self.panels
            .iter()
            .flatten()
            .find_map(|p| p.sim.fault().map(|f| SimFault { frame: f.frame, what: format!("panel {}: {}", p.scene.name, f.what) }))
    }

    /// The panels' states, each with the frame it was taken at: a panel whose simulation saves
    /// none has nothing to carry (it is built afresh); none at all while a panel is broken, or
    /// when no panel has a state to carry.
    fn snapshot(&self) -> Option<Vec<u8>> {
        let mut carried = false;
        let mut w = crate::sim::snapshot::Writer::new();
        w.u32(self.described).count(self.panels.len());
        for p in &self.panels {
            let Some(p) = p else {
                w.u32(0);
                continue;
            };
            if p.sim.fault().is_some() {
                return None;
            }
            match (&p.last, p.sim.snapshot()) {
                (Some(last), Some(state)) => {
                    w.u32(1).u32(last.index).bytes(&state);
                    carried = true;
                }
                _ => {
                    w.u32(0);
                }
            }
        }
        carried.then(|| w.finish())
    }

    fn restore(&mut self, frame: u32, bytes: &[u8]) -> bool {
        let mut r = crate::sim::snapshot::Reader::new(bytes);
        if r.u32() != Some(frame) || r.count(4) != Some(self.panels.len()) {
            return false;
        }
        // every panel's simulation built afresh and restored, before any is taken
        let mut fresh: Vec<Option<Box<dyn Simulation>>> = Vec::with_capacity(self.panels.len());
        for p in &self.panels {
            let Some(flag) = r.u32() else { return false };
            let sim = match (p, flag) {
                (None, 0) => None,
                (Some(p), 0) => Some((self.build)(&p.scene)),
                (Some(p), 1) => {
                    let (Some(at), Some(state)) = (r.u32(), r.bytes()) else { return false };
                    let mut sim = (self.build)(&p.scene);
                    if !sim.restore(at, state) {
                        return false;
                    }
                    Some(sim)
                }
                _ => return false,
            };
            fresh.push(sim);
        }
        if !r.done() {
            return false;
        }
        for (p, sim) in self.panels.iter_mut().zip(fresh) {
            if let (Some(p), Some(sim)) = (p, sim) {
                (p.sim, p.last) = (sim, None);
            }
        }
        self.described = frame;
        true
    }

    fn digest(&self) -> StateDigest {
        let mut h = Fnv::new();
        let mut facts = vec![("panels".to_string(), self.spec.panels.len().to_string())];
        for (k, p) in self.panels.iter().enumerate() {
            let Some(p) = p else { continue };
            let d = p.sim.digest();
            h.bytes(&d.hash.to_le_bytes());
            facts.extend(d.facts.into_iter().map(|(name, v)| (format!("panel{}.{name}", k + 1), v)));
        }
        StateDigest { hash: h.finish(), facts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_take_facts_then_data() {
        let data = serde_json::json!({"chi_square": 0.5234, "settle_s": {"median": 3.7}, "dice": 3});
        let facts = vec![("triangles".to_string(), "1234".to_string())];
        assert_eq!(fill("χ² = {chi_square:.2}", &facts, Some(&data)), "χ² = 0.52");
        assert_eq!(fill("{dice} dice, {settle_s.median} s", &facts, Some(&data)), "3 dice, 3.7 s");
        assert_eq!(fill("{triangles} triangles", &facts, None), "1234 triangles");
        assert_eq!(fill("{nothing} here", &facts, Some(&data)), "{nothing} here");
    }
}
