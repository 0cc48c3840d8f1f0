//! `report.html`: one self-contained page, the failures' cards (worst first) and the passed
//! frames' table, its style, and the script of its views (where, side by side, slider, hover
//! swap) and of its self-test.

use std::fmt::Write as _;

use super::{Record, Report};
use crate::text::xml;

const STYLE: &str = r#"
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; background: #f6f7f9; color: #1d2026; }
h1 { font-size: 20px; margin: 0 0 4px; } .muted { color: #667; }
.warn { background: #fff4d6; border: 1px solid #e8c35a; border-radius: 6px; padding: 8px 12px; }
.card { background: #fff; border: 1px solid #dde; border-radius: 8px; padding: 16px; margin: 16px 0; }
.card.fail { border-left: 6px solid #d23; } .card.pass { border-left: 6px solid #2a4; }
.row { display: flex; gap: 12px; flex-wrap: wrap; align-items: flex-start; }
figure { margin: 0; } figcaption { font-size: 12px; color: #556; }
img { image-rendering: pixelated; display: block; max-width: 100%; height: auto; } img.thumb { image-rendering: auto; }
.where, .stack { position: relative; display: inline-block; max-width: 100%; line-height: 0; background: #fff; }
img.faded { filter: grayscale(1) opacity(0.3); }
.where img.marks, .stack img.diff { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
.where .box { position: absolute; box-sizing: border-box; min-width: 14px; min-height: 14px; cursor: pointer;
  font: bold 12px/1 system-ui, sans-serif; color: #fff; }
.where .box::before { content: attr(data-n); position: absolute; left: -2px; top: -18px; background: #0066ff;
  padding: 2px 5px; border-radius: 3px; }
.zooms { margin-top: 10px; } .zooms figure { border: 1px solid #dde; border-radius: 6px; padding: 6px; }
.zooms figure.lit { outline: 3px solid #0066ff; }
.zoom { image-rendering: pixelated; background-repeat: no-repeat; border: 1px solid #ccd; }
code { background: #eef; padding: 2px 6px; border-radius: 4px; user-select: all; }
.slider { position: relative; display: inline-block; }
.slider .over { position: absolute; left: 0; top: 0; }
.views button { margin-right: 6px; } .view { display: none; } .view.on { display: block; }
table { border-collapse: collapse; } td, th { padding: 4px 10px; border-bottom: 1px solid #e4e6ea; text-align: left; }
"#;

const SCRIPT: &str = r#"
// each picture is embedded once, in the side-by-side view; the other views take it from there
document.querySelectorAll('[data-bg]').forEach(function (z) {
  var card = z.closest('.card');
  var url = function (which) { var img = card.querySelector('img.' + which); return img ? 'url("' + img.src + '")' : 'none'; };
  // the error lies over the expected picture, faded
  z.style.backgroundImage = z.dataset.bg === 'diff'
    ? url('diff') + ', linear-gradient(rgba(255,255,255,0.72), rgba(255,255,255,0.72)), ' + url('expected')
    : url(z.dataset.bg);
});
document.querySelectorAll('.where .box').forEach(function (b) {
  b.addEventListener('click', function () {
    var f = b.closest('.card').querySelector('.zooms figure[data-n="' + b.dataset.n + '"]');
    if (!f) return;
    f.scrollIntoView({ block: 'center' });
    f.classList.add('lit');
    setTimeout(function () { f.classList.remove('lit'); }, 1200);
  });
});
document.querySelectorAll('img[data-from]').forEach(function (img) {
  var card = img.closest('.card');
  var from = function (which) { return card.querySelector('img.' + which).src; };
  img.src = from(img.dataset.from);
  if (img.classList.contains('swap')) { img.dataset.actual = from('actual'); img.dataset.expected = from('expected'); }
});
function setSlider(input) {
  var over = input.parentElement.querySelector('.over');
  var v = Number(input.value);
  over.style.clipPath = 'inset(0 ' + (100 - v) + '% 0 0)';
  over.dataset.shown = String(v);
}
function show(card, name) {
  card.querySelectorAll('.view').forEach(function (v) { v.classList.toggle('on', v.dataset.view === name); });
}
document.querySelectorAll('input.cut').forEach(function (i) {
  i.addEventListener('input', function () { setSlider(i); });
  setSlider(i);
});
document.querySelectorAll('img.swap').forEach(function (img) {
  img.addEventListener('mouseenter', function () { img.src = img.dataset.expected; img.dataset.shown = 'expected'; });
  img.addEventListener('mouseleave', function () { img.src = img.dataset.actual; img.dataset.shown = 'actual'; });
});
// #slider=N sets every slider (for screenshots); #selftest checks the page in a real browser and
// writes the outcome into <pre id="selftest"> (used by the project's own browser test).
(function () {
  var m = /slider=(\d+)/.exec(location.hash);
  if (m) { document.querySelectorAll('.card').forEach(function (c) { show(c, 'slider'); });
    document.querySelectorAll('input.cut').forEach(function (i) { i.value = m[1]; setSlider(i); }); }
  if (location.hash.indexOf('selftest') < 0) return;
  window.addEventListener('load', selftest);
})();
function selftest() {
  var out = [];
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  out.push('images ' + imgs.length + ' broken ' + broken.length);
  var input = document.querySelector('input.cut');
  if (input) {
    var card = input.closest('.card'); show(card, 'slider');
    var over = input.parentElement.querySelector('.over');
    input.value = 20; input.dispatchEvent(new Event('input'));
    var w20 = over.getBoundingClientRect().width, c20 = getComputedStyle(over).clipPath;
    input.value = 80; input.dispatchEvent(new Event('input'));
    var c80 = getComputedStyle(over).clipPath;
    out.push('slider ' + (c20 !== c80 ? 'moves' : 'stuck') + ' [' + c20 + '] [' + c80 + '] width ' + Math.round(w20));
  } else { out.push('slider none'); }
  var swap = document.querySelector('img.swap');
  if (swap) {
    var before = swap.src; swap.dispatchEvent(new Event('mouseenter'));
    var during = swap.src; swap.dispatchEvent(new Event('mouseleave'));
    out.push('hover ' + (before !== during && swap.src === before ? 'swaps' : 'stuck'));
  }
  var pre = document.getElementById('selftest'); pre.textContent = out.join('\n');
}
"#;

/// The page; `accept`: the command that accepts the failures from this folder on another machine.
pub(super) fn html(report: &Report, accept: Option<&str>) -> String {
    let failed: Vec<&Record> = report.records.iter().filter(|r| !r.passed).collect();
    let total = report.records.len();
    // the cards' embedded pictures are most of the page: room for them at once, not grown by copies
    let mut h = String::with_capacity(report.records.iter().map(|r| r.html.len() + 64).sum::<usize>() + STYLE.len() + SCRIPT.len() + 4096);
    let (title, heading, items) = match report.compared {
        Some(_) => ("compare", "Compare", ("file", "files")),
        None => ("golden", "Golden check", ("frame", "frames")),
    };
    let _ = write!(
        h,
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>simreel {title} report: {} of {total} failed</title><style>{STYLE}</style></head><body>\n",
        failed.len()
    );
    let _ = write!(h, "<h1>{heading}: {} of {} failed</h1>", failed.len(), crate::text::count(total as u64, items.0, items.1));
    match &report.compared {
        Some(c) => _ = writeln!(h, "<div class=\"muted\">expected: {} · actual: {}</div>", xml(&c.expected), xml(&c.actual)),
        None => _ = writeln!(h, "<div class=\"muted\">adapter: {}</div>", xml(&report.adapter)),
    }
    if let Some(c) = accept {
        let _ = writeln!(
            h,
            "<p>Accept every failure below as this check rendered it, from a clone of the project with this report folder where it was written: <code>{}</code></p>",
            xml(c)
        );
    }
    if let Some(o) = &report.other_adapter {
        let _ = writeln!(
            h,
            "<p class=\"warn\"><b>Other adapter:</b> {}. Failures here may be that adapter's way of drawing, not regressions: check on the approving adapter before blessing.</p>",
            xml(o)
        );
    }
    for s in &report.sequences {
        let mut parts = Vec::new();
        if let Some(f) = s.first_diverging {
            parts.push(format!("first diverging frame <b>{f}</b>"));
        }
        if let Some(r) = s.flicker {
            parts.push(format!("flicker {r:.2}× the golden sequence{}", if s.flicker_failed { " (<b>too much</b>)" } else { "" }));
        }
        if !parts.is_empty() {
            let _ = writeln!(h, "<div class=\"muted\">{}: {}</div>", xml(&s.scene), parts.join(", "));
        }
    }
    for (k, r) in failed.iter().enumerate() {
        let _ = writeln!(h, "<div class=\"card fail\" id=\"f{k}\">{}</div>", r.html);
    }
    let passed: Vec<&Record> = report.records.iter().filter(|r| r.passed).collect();
    if !passed.is_empty() {
        let columns = if report.compared.is_some() { ("file", "", "") } else { ("scene", "frame", "state") };
        let _ = writeln!(
            h,
            "<div class=\"card pass\"><h2>Passed</h2><table><tr><th></th><th>{}</th><th>{}</th><th>how</th><th>{}</th></tr>",
            columns.0, columns.1, columns.2
        );
        for r in passed {
            h.push_str(&r.html);
        }
        h.push_str("</table></div>\n");
    }
    let _ = writeln!(h, "<pre id=\"selftest\"></pre><script>{SCRIPT}</script></body></html>");
    h
}
