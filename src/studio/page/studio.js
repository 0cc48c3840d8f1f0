// simreel studio's page: the scene list, the frame under the playhead (a draft, then the final),
// the timeline, the facts, and live updates from the server. Plain JS, no build step.
"use strict";

// The session's token: the address the studio printed carries it (?token=); the tab keeps it
// (sessionStorage: this tab only, so that a reload works) and takes it out of the address, so
// that a link copied from the address bar (#scene@frame) does not carry it.
const token = (() => {
  const given = new URLSearchParams(location.search).get("token");
  if (given) {
    sessionStorage.setItem("simreel-token", given);
    history.replaceState(null, "", location.pathname + location.hash);
    return given;
  }
  return sessionStorage.getItem("simreel-token") || "";
})();
const $ = (id) => document.getElementById(id);
const enc = encodeURIComponent;

// A request to the studio, with the token in its header (how every write must carry it).
function api(url, options = {}) {
  return fetch(url, { ...options, headers: { ...(options.headers || {}), "X-Simreel-Token": token } });
}

// A URL for an <img>, <video> or link, which cannot send a header: the token in its query.
function withToken(url) {
  return url + (url.includes("?") ? "&" : "?") + "token=" + enc(token);
}

// The scene and frame an address names: #<scene>@<frame> (the scene's path may hold an @).
function named(hash) {
  const h = decodeURIComponent(hash.replace(/^#/, ""));
  const at = h.lastIndexOf("@");
  return at < 0 ? [h, null] : [h.slice(0, at), h.slice(at + 1)];
}

// What the page shows: tests read window.studio.shown to know what is on screen.
const studio = (window.studio = {
  catalog: null,
  current: null, // scene id
  frame: 0,
  playing: false,
  direction: 1,
  shown: null, // { scene, frame, quality, stamp }
  problem: null,
  live: false,
});

function entry(id) {
  return studio.catalog && studio.catalog.scenes.find((s) => s.id === id);
}

function sceneOf(id) {
  const e = entry(id);
  return e && e.scene;
}

// ---- the scene list -------------------------------------------------------------------------

function drawList() {
  const nav = $("scenes");
  nav.textContent = "";
  let folder = null;
  for (const e of studio.catalog.scenes) {
    const dir = e.id.includes("/") ? e.id.slice(0, e.id.lastIndexOf("/")) : ".";
    if (dir !== folder) {
      folder = dir;
      const h = document.createElement("h3");
      h.textContent = dir + "/";
      nav.appendChild(h);
    }
    const b = document.createElement("button");
    b.textContent = e.id.slice(e.id.lastIndexOf("/") + 1);
    b.dataset.id = e.id;
    b.className = (e.problem ? "bad" : "good") + (e.id === studio.current ? " current" : "");
    b.title = e.problem ? e.problem.text : e.id;
    if (e.scene) {
      const k = document.createElement("span");
      k.className = "kind";
      k.textContent = e.scene.kind;
      b.appendChild(k);
    }
    b.onclick = () => select(e.id);
    nav.appendChild(b);
  }
  if (!studio.catalog.scenes.length) nav.innerHTML = '<p class="muted">No scene files here.</p>';
}

async function refresh() {
  const r = await api("/api/scenes");
  if (!r.ok) return;
  studio.catalog = await r.json();
  $("where").textContent = "output: " + studio.catalog.out;
  // the address names the scene and frame on screen: #<scene>@<frame>
  const [wanted, at] = named(location.hash);
  if (!entry(studio.current)) {
    studio.current = entry(wanted) ? wanted : studio.catalog.scenes.length ? studio.catalog.scenes[0].id : null;
    if (entry(wanted) && at) studio.frame = Math.max(0, parseInt(at, 10) || 0);
  }
  drawList();
  drawScene();
}

function select(id, frame = 0) {
  if (id === studio.current) return;
  studio.current = id;
  studio.frame = frame;
  studio.playing = false;
  if (clock) cancelAnimationFrame(clock);
  clock = null;
  const s = sceneOf(id);
  if (s) {
    $("loopIn").value = 0;
    $("loopOut").value = s.frames - 1;
  }
  drawList();
  drawScene();
}

// ---- the selected scene ---------------------------------------------------------------------

function drawScene() {
  const e = entry(studio.current);
  $("title").textContent = e ? e.id : "";
  const s = e && e.scene;
  $("about").textContent = s ? `${s.kind} · ${s.width}×${s.height} · ${s.frames} frames at ${s.fps} fps` : e ? "never loaded" : "";
  drawProblems(e ? e.problem : null);
  if (!s) {
    clearFrame();
    return;
  }
  $("scrub").max = s.frames - 1;
  const out = $("loopOut");
  out.max = $("loopIn").max = s.frames - 1;
  if (+out.value === 0 || +out.value > s.frames - 1) out.value = s.frames - 1;
  if (studio.frame > s.frames - 1) studio.frame = s.frames - 1;
  drawOutputs(s);
  want();
}

// A scene that never loaded has no frame: what the last scene showed goes (its frame, badge,
// facts, position and outputs), and nothing is asked for it.
function clearFrame() {
  wish = null;
  studio.shown = null;
  const img = $("frame");
  img.removeAttribute("src");
  if (objectUrl) URL.revokeObjectURL(objectUrl);
  objectUrl = null;
  $("badge").textContent = "";
  $("facts").tBodies[0].textContent = "";
  $("timing").textContent = "";
  $("position").textContent = "";
  $("scrub").max = 0;
  $("scrub").value = 0;
  const out = $("outputs");
  out.dataset.key = "";
  out.innerHTML = '<p class="muted">This scene never loaded: nothing to show.</p>';
  charted = null;
  $("charts").innerHTML = '<p class="muted">This scene never loaded.</p>';
  $("renderState").textContent = "";
  showFailure(null);
}

function drawProblems(problem) {
  studio.problem = problem;
  const box = $("overlay");
  box.hidden = !problem;
  const list = $("problems");
  list.textContent = "";
  if (!problem) return;
  const items = problem.items.length ? problem.items : [{ file: "", line: 0, col: 0, key: "", message: problem.text, hint: null }];
  for (const p of items) {
    const li = document.createElement("li");
    if (p.line) {
      const w = document.createElement("span");
      w.className = "where";
      w.textContent = `${p.file}:${p.line}:${p.col}`;
      li.appendChild(w);
      li.appendChild(document.createTextNode(" "));
    }
    li.appendChild(document.createTextNode((p.key ? p.key + ": " : "") + p.message));
    if (p.hint) {
      const h = document.createElement("span");
      h.className = "hint";
      h.textContent = p.hint;
      li.appendChild(h);
    }
    list.appendChild(li);
  }
}

function drawPosition() {
  const s = sceneOf(studio.current);
  if (!s) return;
  $("scrub").value = studio.frame;
  const t = (f) => (f / s.fps).toFixed(2);
  $("position").textContent = `frame ${studio.frame} / ${s.frames - 1} · ${t(studio.frame)} s / ${t(s.frames - 1)} s`;
  $("play").textContent = studio.playing ? "pause" : "play";
}

// ---- frames: the wish, and the loader that follows it ----------------------------------------

let wish = null;
let loading = false;
let objectUrl = null;

function want() {
  const s = sceneOf(studio.current);
  if (!s) return;
  drawPosition();
  if (!studio.playing && !(studio.review && studio.review.view === "goldens")) history.replaceState(null, "", "#" + enc(studio.current) + "@" + studio.frame);
  wish = { scene: studio.current, frame: studio.frame, stamp: s.stamp };
  pump();
}

const same = (a, b) => a && b && a.scene === b.scene && a.frame === b.frame && a.stamp === b.stamp;

async function pump() {
  if (loading || !wish) return;
  loading = true;
  const w = wish;
  try {
    const finalShown = studio.shown && same(studio.shown, w) && studio.shown.quality === "final";
    if (!finalShown) {
      const draftShown = studio.shown && same(studio.shown, w);
      if (!draftShown) await load(w, true);
      if (!studio.playing && same(w, wish)) await load(w, false);
    }
  } catch (err) {
    showFailure(String(err));
  } finally {
    loading = false;
  }
  if (!same(w, wish)) pump();
}

function showFailure(text) {
  const f = $("failure");
  f.hidden = !text;
  f.textContent = text || "";
}

async function load(w, draft) {
  const q = `scene=${enc(w.scene)}&frame=${w.frame}&draft=${draft ? 1 : 0}`;
  const r = await api(`/api/frame.png?${q}&v=${w.stamp}`);
  // 409: the frame gave way (a newer wish, an edit): what comes next is asked for anyway
  if (r.status === 409) return;
  if (!r.ok) {
    const why = await r.json().catch(() => ({ error: r.statusText }));
    if (same(w, wish)) showFailure(`frame ${w.frame}: ${why.error}`);
    return;
  }
  const blob = await r.blob();
  // another scene chosen meanwhile: this frame is not its
  if (!wish || wish.scene !== w.scene) return;
  const img = $("frame");
  const url = URL.createObjectURL(blob);
  img.src = url;
  await img.decode().catch(() => {});
  if (objectUrl) URL.revokeObjectURL(objectUrl);
  objectUrl = url;
  showFailure(null);
  studio.shown = { scene: w.scene, frame: w.frame, quality: draft ? "draft" : "final", stamp: w.stamp };
  $("badge").textContent = draft ? "draft" : "final";
  if (!studio.playing || !draft) loadFacts(q, w);
  markCharts();
}

async function loadFacts(q, w) {
  const r = await api(`/api/facts?${q}`);
  if (!r.ok) return;
  const f = await r.json();
  if (!wish || wish.scene !== w.scene) return;
  const body = $("facts").tBodies[0];
  body.textContent = "";
  const facts = f.shot ? f.shot.facts : [];
  const rows = (facts.some(([k]) => k === "time") ? [] : [["time", `${f.time.toFixed(3)} s`]]).concat(facts);
  for (const [k, v] of rows) {
    const tr = body.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  $("timing").textContent = f.shot ? `simulated in ${f.shot.simulate_ms.toFixed(0)} ms, drawn in ${f.shot.draw_ms.toFixed(0)} ms` : "";
}

// ---- output: animations and the facts over the scene from the last render -------------------

let charted = null;

function drawOutputs(s) {
  const box = $("outputs");
  const key = JSON.stringify(s.outputs) + s.stamp;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.textContent = "";
  const pictures = [["gif", "the scene's GIF"], ["apng", "the scene's animated PNG"], ["webp", "the scene's animated WebP"], ["avif", "the scene's animated AVIF"]];
  for (const [k, alt] of pictures) {
    if (!s.outputs[k]) continue;
    const img = document.createElement("img");
    img.src = withToken(s.outputs[k] + "?v=" + Date.now());
    img.alt = alt;
    box.appendChild(img);
  }
  for (const v of ["mp4", "webm"]) {
    if (!s.outputs[v]) continue;
    const video = document.createElement("video");
    video.src = withToken(s.outputs[v] + "?v=" + Date.now());
    video.controls = true;
    video.loop = true;
    box.appendChild(video);
  }
  if (!box.children.length) box.innerHTML = '<p class="muted">Nothing rendered yet.</p>';
  drawCharts(s);
}

async function drawCharts(s) {
  const box = $("charts");
  charted = null;
  if (!s.outputs.manifest) {
    box.innerHTML = '<p class="muted">Render the scene to chart its facts over time.</p>';
    return;
  }
  const m = await (await api(s.outputs.manifest)).json();
  const series = {};
  for (const f of m.frames) {
    for (const [k, v] of Object.entries(f.facts || {})) {
      if (typeof v === "number") (series[k] = series[k] || []).push([f.index, v]);
    }
  }
  box.textContent = "";
  const note = document.createElement("p");
  note.className = "muted";
  const id = m.identity ? `, simulation ${m.identity.simulation.slice(0, 8)}, drawing ${m.identity.drawing.slice(0, 8)}` : "";
  note.textContent = `from the last render (${m.frames.length} frames${id})`;
  box.appendChild(note);
  charted = [];
  for (const [name, points] of Object.entries(series)) {
    // time is the chart's own axis; a fact that never changes draws a flat line
    if (name === "time" || points.length < 2 || points.every((p) => p[1] === points[0][1])) continue;
    const row = document.createElement("div");
    row.className = "chart";
    const label = document.createElement("span");
    label.textContent = name;
    const canvas = document.createElement("canvas");
    row.append(label, canvas);
    box.appendChild(row);
    charted.push({ canvas, points, frames: m.frames_in_scene });
  }
  if (!charted.length) note.textContent += ": no fact of this scene changes as a number over it";
  markCharts();
}

function markCharts() {
  if (!charted) return;
  for (const c of charted) {
    const cv = c.canvas;
    const w = (cv.width = cv.clientWidth * devicePixelRatio || 200);
    const h = (cv.height = 28 * devicePixelRatio);
    const g = cv.getContext("2d");
    const ys = c.points.map((p) => p[1]);
    const lo = Math.min(...ys);
    const hi = Math.max(...ys);
    const x = (f) => (f / Math.max(1, c.frames - 1)) * (w - 2) + 1;
    const y = (v) => h - 2 - ((v - lo) / (hi - lo || 1)) * (h - 4);
    g.strokeStyle = getComputedStyle(document.body).color;
    g.lineWidth = devicePixelRatio;
    g.beginPath();
    c.points.forEach(([f, v], i) => (i ? g.lineTo(x(f), y(v)) : g.moveTo(x(f), y(v))));
    g.stroke();
    g.fillStyle = "#2f7de1";
    g.fillRect(x(studio.frame) - devicePixelRatio, 0, 2 * devicePixelRatio, h);
  }
}

$("render").onclick = async () => {
  if (!studio.current) return;
  const r = await api(`/api/render?scene=${enc(studio.current)}`, { method: "POST" });
  const body = await r.json().catch(() => ({}));
  $("renderState").textContent = r.ok ? "rendering…" : body.error || r.statusText;
};

// ---- the timeline -------------------------------------------------------------------------

let clock = null;

function loopRange(s) {
  const lo = Math.max(0, Math.min(+$("loopIn").value || 0, s.frames - 1));
  const hi = Math.max(lo, Math.min(+$("loopOut").value || s.frames - 1, s.frames - 1));
  return [lo, hi];
}

function play(direction) {
  const s = sceneOf(studio.current);
  if (!s) return;
  studio.direction = direction;
  studio.playing = true;
  const start = performance.now();
  const from = studio.frame;
  const tick = () => {
    if (!studio.playing) return;
    const [lo, hi] = loopRange(s);
    const steps = Math.floor(((performance.now() - start) / 1000) * s.fps);
    let f = from + direction * steps;
    if ($("loop").checked) {
      const n = hi - lo + 1;
      f = lo + ((((f - lo) % n) + n) % n);
    } else if (f > s.frames - 1 || f < 0) {
      f = Math.max(0, Math.min(f, s.frames - 1));
      studio.frame = f;
      pause();
      return;
    }
    if (f !== studio.frame) {
      studio.frame = f;
      want();
    }
    clock = requestAnimationFrame(tick);
  };
  drawPosition();
  clock = requestAnimationFrame(tick);
}

function pause() {
  studio.playing = false;
  if (clock) cancelAnimationFrame(clock);
  clock = null;
  want();
}

function seek(f) {
  const s = sceneOf(studio.current);
  if (!s) return;
  studio.playing = false;
  studio.frame = Math.max(0, Math.min(f, s.frames - 1));
  want();
}

$("play").onclick = () => (studio.playing ? pause() : play(1));
$("first").onclick = () => seek(0);
$("last").onclick = () => seek(Infinity);
$("back").onclick = () => seek(studio.frame - 1);
$("forward").onclick = () => seek(studio.frame + 1);
$("scrub").oninput = (e) => seek(+e.target.value);

document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type === "number") return;
  if (e.ctrlKey || e.metaKey || e.altKey || (window.studio.review && window.studio.review.view === "goldens")) return;
  const step = e.shiftKey ? 10 : 1;
  const s = sceneOf(studio.current);
  switch (e.key) {
    case " ":
      studio.playing ? pause() : play(1);
      break;
    case "ArrowLeft":
      seek(studio.frame - step);
      break;
    case "ArrowRight":
      seek(studio.frame + step);
      break;
    case "Home":
      seek(0);
      break;
    case "End":
      seek(Infinity);
      break;
    case "j":
    case "J":
      play(-1);
      break;
    case "k":
    case "K":
      pause();
      break;
    case "l":
    case "L":
      play(1);
      break;
    case "i":
    case "I":
      $("loopIn").value = studio.frame;
      break;
    case "o":
    case "O":
      if (s) $("loopOut").value = studio.frame;
      break;
    case "ArrowUp":
    case "ArrowDown": {
      const ids = studio.catalog.scenes.map((x) => x.id);
      const i = ids.indexOf(studio.current) + (e.key === "ArrowDown" ? 1 : -1);
      if (i >= 0 && i < ids.length) select(ids[i]);
      break;
    }
    default:
      return;
  }
  e.preventDefault();
});

// ---- live updates ---------------------------------------------------------------------------

function connect() {
  const ws = new WebSocket(`ws://${location.host}/api/live?token=${enc(token)}`);
  ws.onopen = () => {
    studio.live = true;
    $("live").className = "on";
    $("live").textContent = "live";
    refresh();
  };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "catalog") refresh();
    if (msg.type === "golden" && review.view === "goldens") loadGoldens();
    if (msg.type === "render") {
      if (msg.scene === studio.current) $("renderState").textContent = msg.state === "running" ? "rendering…" : `${msg.state}: ${msg.message || ""}`;
      if (msg.state !== "running") refresh();
    }
  };
  ws.onclose = async () => {
    studio.live = false;
    $("live").className = "off";
    $("live").textContent = "disconnected: is the studio still running? retrying…";
    // a studio that answers but refuses the token was started again: its new address has another
    const r = await api("/api/status").catch(() => null);
    if (r && r.status === 403) $("live").textContent = "this tab's token is not the studio's (was it started again?): open the address it printed last";
    setTimeout(connect, r && r.status === 403 ? 5000 : 1000);
  };
}

refresh().then(() => {
  const s = sceneOf(studio.current);
  if (s) $("loopOut").value = s.frames - 1;
  connect();
});

// ---- the Goldens view ---------------------------------------------------------------------

const review = (window.studio.review = { data: null, at: 0, mode: "side", view: "scenes" });

function showView(view) {
  review.view = view;
  document.querySelector("main").classList.toggle("goldens", view === "goldens");
  $("goldens").hidden = view !== "goldens";
  $("tabScenes").classList.toggle("current", view === "scenes");
  $("tabGoldens").classList.toggle("current", view === "goldens");
  if (view === "goldens") loadGoldens();
}
$("tabScenes").onclick = () => showView("scenes");
$("tabGoldens").onclick = () => showView("goldens");

async function post(url) {
  const r = await api(url, { method: "POST" });
  const body = await r.json().catch(() => ({}));
  return { ok: r.ok, body };
}

async function loadGoldens() {
  const r = await api("/api/golden");
  if (!r.ok) return;
  review.data = await r.json();
  const d = review.data;
  $("checkState").textContent = d.running
    ? "checking…"
    : d.error
      ? "the check failed: " + d.error
      : d.report
        ? `${d.failures.length} failing image${d.failures.length === 1 ? "" : "s"} in the last run${d.adapter ? ` (on ${d.adapter})` : ""}`
        : `${d.scenes.length} served scene${d.scenes.length === 1 ? " has" : "s have"} goldens; no check yet`;
  // which adapter the check rendered on and why: a hover away
  $("checkState").title = (d.notes || []).join("\n");
  $("check").disabled = d.running;
  const link = $("reportLink");
  link.hidden = !d.report;
  if (d.report) link.href = withToken(d.report);
  const acc = $("accepted");
  acc.textContent = "";
  for (const a of d.accepted) {
    const li = document.createElement("li");
    li.textContent = `${a.label} → ${a.files.length ? a.files.join(", ") : "nothing changed"}`;
    acc.appendChild(li);
  }
  if (!d.accepted.length) acc.innerHTML = '<li class="muted">nothing yet</li>';
  drawReview();
}

function pending() {
  return review.data ? review.data.failures.filter((f) => !f.decided) : [];
}

function drawReview() {
  const list = pending();
  if (review.at >= list.length) review.at = 0;
  const f = list[review.at];
  $("review").hidden = !f;
  const total = review.data ? review.data.failures.length : 0;
  $("reviewDone").textContent = !f && total ? "Every failing image is decided." : "";
  window.studio.review.current = f ? f.label : null;
  if (!f) return;
  $("reviewTitle").textContent = `${f.label} (${review.at + 1} of ${list.length} to decide)`;
  $("reviewVerdict").textContent = f.verdict;
  $("reviewState").textContent = f.state;
  $("reviewEffect").textContent = f.effect;
  const box = $("compare");
  box.textContent = "";
  if (!f.images || !f.images.expected || !f.images.actual) {
    box.textContent = !f.images || !f.images.expected
      ? "No golden to compare with: accepting makes this image the golden."
      : "The new run has no such image: accepting removes the golden.";
    const only = f.images && (f.images.actual || f.images.expected);
    if (only) {
      const img = document.createElement("img");
      img.src = withToken(only);
      box.appendChild(img);
    }
    return;
  }
  // small frames are shown larger, by a whole factor, so that pixels stay pixels
  const scaled = (img, then) => {
    img.onload = () => {
      const k = Math.max(1, Math.floor(360 / img.naturalWidth));
      img.style.width = img.naturalWidth * k + "px";
      if (then) then(k);
    };
  };
  const figure = (src, caption, boxes) => {
    const fig = document.createElement("figure");
    const wrap = document.createElement("div");
    wrap.className = "boxed";
    const img = document.createElement("img");
    scaled(img, (k) => {
      if (!boxes) return;
      for (const r of f.regions) {
        const b = document.createElement("div");
        b.className = "box";
        Object.assign(b.style, { left: r.x * k - 2 + "px", top: r.y * k - 2 + "px", width: r.width * k + 4 + "px", height: r.height * k + 4 + "px" });
        wrap.appendChild(b);
      }
    });
    img.src = withToken(src);
    wrap.appendChild(img);
    const cap = document.createElement("figcaption");
    cap.textContent = caption;
    fig.append(wrap, cap);
    return fig;
  };
  if (review.mode === "side") {
    box.append(figure(f.images.expected, "golden", false), figure(f.images.actual, "now, changed regions boxed", true));
  } else if (review.mode === "diff") {
    box.append(figure(f.images.diff, "difference", true));
  } else {
    const s = document.createElement("div");
    s.className = "slider";
    const under = document.createElement("img");
    const over = document.createElement("img");
    scaled(under, (k) => (over.style.width = under.naturalWidth * k + "px"));
    under.src = withToken(f.images.actual);
    const top = document.createElement("div");
    top.className = "top";
    over.src = withToken(f.images.expected);
    top.appendChild(over);
    const range = document.createElement("input");
    range.type = "range";
    range.value = 50;
    const place = () => (top.style.width = range.value + "%");
    range.oninput = place;
    place();
    s.append(under, top);
    const fig = document.createElement("figure");
    const cap = document.createElement("figcaption");
    cap.textContent = "golden on the left of the line, now on the right";
    fig.append(s, range, cap);
    box.appendChild(fig);
  }
}

async function decide(what, all) {
  const list = pending();
  const targets = all ? list.slice(review.at) : list.slice(review.at, review.at + 1);
  for (const f of targets) {
    const r = await post(`/api/golden/${what}?${f.query}`);
    if (!r.ok) {
      $("checkState").textContent = r.body.error || "refused";
      break;
    }
  }
  await loadGoldens();
}

$("check").onclick = async () => {
  const r = await post("/api/golden/check");
  if (!r.ok) $("checkState").textContent = r.body.error || "refused";
  loadGoldens();
};
// Accepting writes goldens, so it is asked first, and only a click of the pointer on the
// question's own button says yes: not a key (a keystroke meant for another window that had
// just been focused), not a click made by the keyboard or a script, not one within 400 ms of
// the question appearing.
function ask(all) {
  const list = pending();
  const n = all ? list.length - review.at : 1;
  if (n <= 0) return;
  $("confirmText").textContent = all
    ? `Accept all ${n} that remain? Each becomes the golden (the files under Accepted say where).`
    : `Accept ${list[review.at].label}? ${$("reviewEffect").innerText}`;
  const yes = $("confirmYes");
  yes.disabled = true;
  $("confirm").hidden = false;
  setTimeout(() => (yes.disabled = false), 400);
  yes.onclick = (e) => {
    if (!e.isTrusted || e.detail === 0 || yes.disabled) return;
    $("confirm").hidden = true;
    decide("accept", all);
  };
  $("confirmNo").onclick = () => ($("confirm").hidden = true);
}
$("accept").onclick = () => ask(false);
$("reject").onclick = () => decide("reject", false);
$("skip").onclick = () => {
  review.at += 1;
  drawReview();
};
$("acceptAll").onclick = () => ask(true);
$("rejectAll").onclick = () => decide("reject", true);
for (const b of document.querySelectorAll("[data-mode]")) {
  b.onclick = () => {
    review.mode = b.dataset.mode;
    drawReview();
  };
}

// the review's keys, before the timeline's (capture phase)
document.addEventListener(
  "keydown",
  (e) => {
    if (review.view !== "goldens" || e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      a: () => ask(false),
      Enter: () => ask(false),
      r: () => decide("reject", false),
      s: () => $("skip").onclick(),
      A: () => ask(true),
      R: () => decide("reject", true),
      1: () => ((review.mode = "side"), drawReview()),
      2: () => ((review.mode = "slider"), drawReview()),
      3: () => ((review.mode = "diff"), drawReview()),
    };
    const k = keys[e.key];
    if (!k || !pending().length) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    k();
  },
  true,
);

if (location.hash === "#goldens") showView("goldens");

// The address changed by hand (or by a link): #goldens, or #<scene>@<frame>.
window.addEventListener("hashchange", () => {
  if (location.hash === "#goldens") {
    showView("goldens");
    return;
  }
  const [id, at] = named(location.hash);
  if (review.view === "goldens") showView("scenes");
  if (!entry(id)) return;
  const frame = Math.max(0, parseInt(at, 10) || 0);
  if (id !== studio.current) {
    select(id, frame);
  } else {
    seek(frame);
  }
});
