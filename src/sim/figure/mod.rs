//! The `figure` kind: other scenes' frames placed side by side as views of one frame, charts
//! turned into 2-D shapes, captions, a title and annotations. Every panel's scene runs its own
//! simulation; the figure only chooses which frame each shows and where.

pub mod annotate;
pub mod chart;

use crate::frame::{Align, Canvas2d, Fill, Fnv, FrameData, Text2d, View, Wire, Zoom};

/// Width of the frames around an inset and the region it magnifies, canvas units.
const INSET_BORDER: f32 = 2.0;
use crate::scene::Timing;
use crate::scene::figure::{FigureLook, FigureSpec, LabelSpec, PanelContent, PanelFrame, PanelSim, PanelStyle, lookup, placeholders};
use crate::sim::{Drawing, KindPainter, KindSimulation, Painter, SimFault, SimInputs, Simulation, Stage, StateDigest};

/// One scene panel's simulation and the frame it was last advanced to.
struct Panel {
    spec: PanelSim,
    sim: Box<dyn Simulation>,
    at: Option<u32>,
}

pub struct FigureSim {
    timing: Timing,
    /// Per panel: its scene's simulation (`None` for a chart).
    panels: Vec<Option<Panel>>,
    /// What builds a panel's simulation afresh (a restore builds each before it takes a state).
    build: crate::sim::Builder,
    /// The last frame described.
    described: u32,
}

impl KindSimulation for FigureSim {
    type Spec = FigureSpec;
    type Painter = FigurePainter;

    fn new(inputs: &SimInputs<FigureSpec>, build: crate::sim::Builder) -> Self {
        let panels =
            inputs.spec.panels.iter().map(|p| p.as_ref().map(|p| Panel { spec: p.clone(), sim: build(&p.scene), at: None })).collect();
        FigureSim { timing: inputs.timing, panels, build, described: 0 }
    }
}

impl FigureSim {
    /// Panel `k`'s simulation and the frame of it shown at figure frame `frame` (`None` for a
    /// chart).
    fn panel(&self, k: usize, frame: u32) -> Option<(&dyn Simulation, u32, Timing)> {
        let p = self.panels.get(k)?.as_ref()?;
        let timing = p.spec.scene.timing;
        Some((&*p.sim, panel_frame(p.spec.frame, timing, self.timing.time_of(frame)), timing))
    }
}

/// The frame of a panel's scene (of `timing`) shown at figure time `t`.
pub fn panel_frame(frame: PanelFrame, timing: Timing, t: f64) -> u32 {
    let last = timing.frames.saturating_sub(1);
    let at = |seconds: f64| ((seconds * timing.fps as f64).round().max(0.0) as u64).min(last as u64) as u32;
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

/// Draws a figure: each scene panel by its own painter, charts, captions, titles and labels.
pub struct FigurePainter {
    stage: Stage,
    look: FigureLook,
    rects: Vec<[f32; 4]>,
    /// Per panel: its scene's painter and the last frame it described (`None` for a chart).
    panels: Vec<Option<PanelPainter>>,
}

/// A scene panel's painter and the last frame it described (a panel that shows one frame is
/// described once).
type PanelPainter = (Box<dyn Painter>, Option<FrameData>);

/// A panel's simulation built afresh for a restore, and the frame its state is at.
type Fresh = Option<(Box<dyn Simulation>, Option<u32>)>;

impl KindPainter for FigurePainter {
    type Sim = FigureSim;

    fn new(sim: &FigureSim, drawing: &Drawing<FigureLook>, build: crate::sim::PainterBuilder) -> Self {
        let look = drawing.kind;
        let panels = sim
            .panels
            .iter()
            .zip(&look.panels)
            .map(|(p, l)| match (p, &l.content) {
                (Some(p), PanelContent::Scene(scene_look)) => Some((build(&*p.sim, &p.spec.scene, scene_look), None)),
                _ => None,
            })
            .collect();
        let rects = look.panel_rects().iter().map(|r| r.map(|v| v as f32)).collect();
        FigurePainter { stage: drawing.stage(), look: look.clone(), rects, panels }
    }

    fn paint(&mut self, sim: &FigureSim, frame: u32) -> FrameData {
        let look = &self.look;
        let size = look.size.map(|v| v as f32);
        let mut canvas = Canvas2d { size, static_layer: None, shapes: Vec::new(), texts: Vec::new() };
        let data = look.data.as_ref().map(|d| &*d.json);
        // the panels' facts for the title: `{panel2.agents}` by panel, `{agents}` from the first
        // panel that has it
        let mut all_facts: Vec<(String, String)> = Vec::new();
        let mut views = Vec::new();
        // each scene panel's place in `views`, for the insets that magnify it
        let mut view_of: Vec<Option<usize>> = vec![None; look.panels.len()];
        let style = annotate::Style { text: look.text_color.to_linear() };
        // each scene panel's facts: `{frame}`, `{time}` and its state's (an inset's caption has
        // those of the panel it magnifies)
        let facts_of: Vec<Vec<(String, String)>> = (0..look.panels.len())
            .map(|k| match sim.panel(k, frame) {
                Some((panel, n, timing)) => {
                    let time = format!("{:.2}", timing.time_of(n));
                    let mut facts = vec![
                        ("frame".into(), n.to_string()),
                        ("time".into(), time.trim_end_matches('0').trim_end_matches('.').to_string()),
                    ];
                    facts.extend(panel.digest().facts);
                    facts
                }
                None => Vec::new(),
            })
            .collect();
        for (k, spec) in look.panels.iter().enumerate() {
            let rect = self.rects[k];
            let mut facts: Vec<(String, String)> = Vec::new();
            match (&spec.content, &mut self.panels[k], sim.panel(k, frame)) {
                (PanelContent::Scene(_), Some((painter, last)), Some((panel, n, _))) => {
                    // a panel's frame is the same whenever its scene is at the same frame
                    let shown = match last.take() {
                        Some(f) if f.index == n => f,
                        _ => painter.paint(panel, n),
                    };
                    facts = facts_of[k].clone();
                    for (name, value) in &facts {
                        all_facts.push((format!("panel{}.{name}", k + 1), value.clone()));
                        if !all_facts.iter().any(|(n, _)| n == name) {
                            all_facts.push((name.clone(), value.clone()));
                        }
                    }
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
                    view_of[k] = Some(views.len());
                    views.push(View { rect, frame: Box::new(view), zoom: None });
                    *last = Some(shown);
                }
                (PanelContent::Chart(c), ..) => {
                    let bg = with_alpha(look.chart_background.to_linear(), 1.0);
                    canvas.shapes.push(crate::frame::Shape2d::Rect {
                        min: [rect[0], rect[1]],
                        max: [rect[0] + rect[2], rect[1] + rect[3]],
                        radius: 0.0,
                        border: 0.0,
                        color: bg,
                    });
                    let plot = chart::draw(c, rect, &chart::Style { text: style.text, size: look.caption_size as f32 * 0.8 });
                    canvas.shapes.extend(plot.shapes);
                    canvas.texts.extend(plot.texts);
                    annotate::panel(&mut canvas, &filled(&spec.labels, &[], data), &spec.arrows, rect, None, &style);
                }
                (PanelContent::Inset(inset), ..) => facts = facts_of.get(inset.of).cloned().unwrap_or_default(),
                _ => {}
            }
            if let Some(caption) = &spec.caption {
                let baseline = rect[1] + rect[3] + look.caption_size as f32 * 1.25;
                let text = fill(caption, &facts, data);
                let room = rect[2] + look.gap as f32 * 0.5;
                canvas.texts.push(self.text([rect[0] + rect[2] / 2.0, baseline], look.caption_size, room, Align::Center, text));
            }
        }
        self.insets(&mut canvas, &mut views, &view_of, data, &style);
        let room = size[0] - 2.0 * look.margin as f32;
        if let Some(title) = &look.title {
            let baseline = look.margin as f32 + look.title_size as f32;
            let text = fill(title, &all_facts, data);
            canvas.texts.push(self.text([size[0] / 2.0, baseline], look.title_size, room, Align::Center, text));
        }
        if let Some(footnote) = &look.footnote {
            let baseline = size[1] - look.margin as f32 - look.caption_size as f32 * 0.35;
            let text = fill(footnote, &all_facts, data);
            canvas.texts.push(self.text([look.margin as f32, baseline], look.caption_size, room, Align::Left, text));
        }
        let whole = [0.0, 0.0, size[0], size[1]];
        annotate::panel(&mut canvas, &filled(&look.labels, &[], data), &look.arrows, whole, None, &style);
        FrameData { views, ..self.stage.frame(frame, Vec::new(), Some(canvas)) }
    }
}

impl FigurePainter {
    /// The insets: each a view of the frame of the panel it magnifies, zoomed into its region,
    /// with a frame around the region there and around the inset.
    fn insets(
        &self,
        canvas: &mut Canvas2d,
        views: &mut Vec<View>,
        view_of: &[Option<usize>],
        data: Option<&serde_json::Value>,
        style: &annotate::Style,
    ) {
        for (k, spec) in self.look.panels.iter().enumerate() {
            let PanelContent::Inset(inset) = &spec.content else { continue };
            let Some(source) = view_of.get(inset.of).copied().flatten() else { continue };
            let (rect, from) = (self.rects[k], self.rects[inset.of]);
            let [x, y, w, h] = inset.fitted((rect[2] / rect[3]) as f64).map(|v| v as f32);
            let zoom = Zoom { region: [x / from[2], y / from[3], w / from[2], h / from[3]], aspect: from[2] / from[3] };
            let frame = views[source].frame.clone();
            views.push(View { rect, frame, zoom: Some(zoom) });
            let color = with_alpha(inset.color.to_linear(), 1.0);
            let outline = |min: [f32; 2], max: [f32; 2]| crate::frame::Shape2d::Rect { min, max, radius: 0.0, border: INSET_BORDER, color };
            canvas.shapes.push(outline([from[0] + x, from[1] + y], [from[0] + x + w, from[1] + y + h]));
            canvas.shapes.push(outline([rect[0], rect[1]], [rect[0] + rect[2], rect[1] + rect[3]]));
            annotate::panel(canvas, &filled(&spec.labels, &[], data), &spec.arrows, rect, None, style);
        }
    }

    /// A line of text at em size `size`, smaller where it would be wider than `room`.
    fn text(&self, at: [f32; 2], size: f64, room: f32, align: Align, text: String) -> Text2d {
        let size = crate::frame::font::fitting_size(&text, size as f32, room);
        Text2d { at, size, align, color: with_alpha(self.look.text_color.to_linear(), 1.0), text }
    }
}

pub fn with_alpha(c: [f32; 3], a: f32) -> [f32; 4] {
    [c[0], c[1], c[2], a]
}

impl Simulation for FigureSim {
    fn advance(&mut self, frame: u32) {
        self.described = frame;
        let t = self.timing.time_of(frame);
        for p in self.panels.iter_mut().flatten() {
            let n = panel_frame(p.spec.frame, p.spec.scene.timing, t);
            if p.at != Some(n) {
                p.sim.advance(n);
                p.at = Some(n);
            }
        }
    }

    fn fault(&self) -> Option<SimFault> {
        self.panels
            .iter()
            .flatten()
            .find_map(|p| p.sim.fault().map(|f| SimFault { frame: f.frame, what: format!("panel {}: {}", p.spec.name, f.what) }))
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
            match (p.at, p.sim.snapshot()) {
                (Some(at), Some(state)) => {
                    w.u32(1).u32(at).bytes(&state);
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
        let mut fresh: Vec<Fresh> = Vec::with_capacity(self.panels.len());
        for p in &self.panels {
            let Some(flag) = r.u32() else { return false };
            let sim = match (p, flag) {
                (None, 0) => None,
                (Some(p), 0) => Some(((self.build)(&p.spec.scene), None)),
                (Some(p), 1) => {
                    let (Some(at), Some(state)) = (r.u32(), r.bytes()) else { return false };
                    let mut sim = (self.build)(&p.spec.scene);
                    if !sim.restore(at, state) {
                        return false;
                    }
                    Some((sim, Some(at)))
                }
                _ => return false,
            };
            fresh.push(sim);
        }
        if !r.done() {
            return false;
        }
        for (p, sim) in self.panels.iter_mut().zip(fresh) {
            if let (Some(p), Some((sim, at))) = (p, sim) {
                (p.sim, p.at) = (sim, at);
            }
        }
        self.described = frame;
        true
    }

    fn digest(&self) -> StateDigest {
        let mut h = Fnv::new();
        let mut facts = vec![("panels".to_string(), self.panels.len().to_string())];
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
