// <simreel-player src="scene.toml" poster="poster.png"></simreel-player>: a simreel scene played
// in the page, by the simulation `simreel render` runs (compiled to WebAssembly), drawn with wgpu
// on WebGPU, else WebGL2, else the poster with the reason. Written by `simreel embed`.
//
// Attributes: src (the scene file), poster (its first frame, drawn by the command line),
// backend ("webgpu" or "webgl2" to use only that one), autoplay ("off": wait for the play button).
// The page's address may say ?frame=N (pause at frame N) and &state=1 (show the state line: the
// hash and facts `simreel render`'s manifest gives for that frame, so a reader or a test can
// compare them).
//
// Interactions (what `controls()` says for the kind): the pointer is a flock's cursor, a press
// its shockwave, a gust of wind where the ground is pressed, a throw of the dice; a drag turns a
// 3-D camera; the wheel moves a terrain's iso level. Each is recorded at the frame shown and
// takes effect from the next, written into the scene's text as its scripted inputs: "save this
// take" downloads that scene file, which `simreel render` plays as the page did.
//
// The clock: frames are due at the scene's fps from when play started; each animation frame
// the simulation takes whole steps toward the frame due, for at most STEP_BUDGET_MS, and draws the
// last. A step is the command line's step, so a slow machine never changes what is shown, only
// how soon: when the budget runs out the clock waits for the simulation and the player says so.

const STEP_BUDGET_MS = 12;
const here = new URL(".", import.meta.url);
let wasm = null;

// A function returning a SIMD vector (i8x16.splat, popcnt): the player is built with WebAssembly
// SIMD (the simulations' lane loops run in it), which browsers have had since 2021–2023.
const SIMD_PROBE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11];

function loadWasm() {
  if (!wasm) {
    if (!WebAssembly.validate(new Uint8Array(SIMD_PROBE))) {
      return Promise.reject(new Error("this browser's WebAssembly has no SIMD (Chrome 91, Firefox 89, Safari 16.4 and later have it)"));
    }
    wasm = import(new URL("simreel_web.js", here).href).then(async (m) => {
      await m.default({ module_or_path: new URL("simreel_web_bg.wasm", here).href });
      return m;
    });
  }
  return wasm;
}

const STYLE = `
simreel-player { display: inline-block; position: relative; max-width: 100%; font: 13px/1.4 system-ui, sans-serif; color: #222; }
simreel-player .sr-stage { position: relative; line-height: 0; }
simreel-player canvas, simreel-player img.sr-poster { max-width: 100%; height: auto; display: block; }
simreel-player .sr-bar { display: flex; gap: 6px; align-items: center; padding: 4px 0; }
simreel-player .sr-bar button { font: inherit; min-width: 2.2em; }
simreel-player .sr-bar input[type=range] { flex: 1; }
simreel-player .sr-time { font-variant-numeric: tabular-nums; white-space: nowrap; }
simreel-player .sr-note:empty, simreel-player .sr-state:empty { display: none; }
simreel-player .sr-note { color: #8a4b00; }
simreel-player .sr-hint { color: #555; }
simreel-player .sr-hint:empty { display: none; }
simreel-player canvas { touch-action: none; cursor: crosshair; }
simreel-player .sr-state { font: 12px/1.4 ui-monospace, monospace; word-break: break-all; }
`;

function addStyle() {
  if (document.getElementById("simreel-player-style")) return;
  const s = document.createElement("style");
  s.id = "simreel-player-style";
  s.textContent = STYLE;
  document.head.appendChild(s);
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

/// Whether `canvas` shows nothing at all (every pixel transparent), read back in the task that drew
/// it (a frame's background is opaque everywhere).
async function blank(canvas) {
  const url = canvas.toDataURL("image/png");
  const img = new Image();
  await new Promise((ok, fail) => {
    img.onload = ok;
    img.onerror = fail;
    img.src = url;
  });
  const probe = document.createElement("canvas");
  probe.width = canvas.width;
  probe.height = canvas.height;
  const g = probe.getContext("2d");
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, probe.width, probe.height).data;
  for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return false;
  return true;
}

class SimreelPlayer extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    addStyle();
    const params = new URLSearchParams(location.search);
    this.askedFrame = params.has("frame") ? Math.max(0, parseInt(params.get("frame"), 10) || 0) : null;
    this.showState = params.get("state") === "1" || this.hasAttribute("state");
    this.poster = el("img", { className: "sr-poster", alt: this.getAttribute("alt") || "the scene's first frame" });
    if (this.getAttribute("poster")) this.poster.src = new URL(this.getAttribute("poster"), location.href).href;
    this.stage = el("div", { className: "sr-stage" }, this.poster);
    this.playButton = el("button", { type: "button", textContent: "▶", title: "play / pause (space)", disabled: true });
    this.restartButton = el("button", { type: "button", textContent: "⟲", title: "restart", disabled: true });
    this.scrub = el("input", { type: "range", min: 0, max: 0, value: 0, disabled: true, title: "frame" });
    this.time = el("span", { className: "sr-time", textContent: "loading…" });
    this.saveButton = el("button", { type: "button", textContent: "save this take", title: "download the scene file with what you did in it", hidden: true });
    this.hint = el("div", { className: "sr-hint" });
    this.note = el("div", { className: "sr-note", role: "status" });
    this.stateLine = el("div", { className: "sr-state" });
    // what the page put inside the element shows where this script does not run; here it goes
    this.replaceChildren();
    this.append(this.stage, el("div", { className: "sr-bar" }, this.playButton, this.restartButton, this.scrub, this.time, this.saveButton), this.hint, this.note, this.stateLine);
    this.saveButton.onclick = () => this.save();
    this.queue = [];
    this.pointerAt = null;
    this.playButton.onclick = () => (this.playing ? this.pause() : this.play());
    this.restartButton.onclick = () => this.restart();
    this.scrub.oninput = () => this.show(parseInt(this.scrub.value, 10), true);
    this.playing = false;
    this.visible = false;
    this.frameTimes = [];
    this.intervals = [];
    this.loadStarted = performance.now();
    this.start().catch((e) => this.fail(String(e && e.message ? e.message : e)));
  }

  disconnectedCallback() {
    this.pause();
    if (this.observer) this.observer.disconnect();
  }

  async start() {
    const src = this.getAttribute("src");
    if (!src) throw new Error("<simreel-player> needs src=\"scene.toml\"");
    const url = new URL(src, location.href);
    const [m, text] = await Promise.all([loadWasm(), fetch(url).then((r) => (r.ok ? r.text() : Promise.reject(new Error(`${src}: ${r.status} ${r.statusText}`))))]);
    const name = url.pathname.split("/").pop() || "scene.toml";
    this.player = new m.Player(text, name);
    this.fps = this.player.fps();
    this.last = this.player.frames() - 1;
    this.scrub.max = this.last;
    const why = await this.attach();
    // attach drew the first frame (it checks that the canvas shows it)
    if (!why) this.firstFrameMs = performance.now() - this.loadStarted;
    this.dataset.backend = this.player.backend() || "none";
    if (why) {
      // no backend: the poster stays, with the reason; the simulation still runs for the state
      this.note.textContent = why;
    } else {
      this.stage.replaceChildren(this.canvas);
      this.listen();
    }
    this.playButton.disabled = this.restartButton.disabled = this.scrub.disabled = false;
    if (this.askedFrame !== null) {
      this.show(this.askedFrame, true);
    } else {
      this.show(0, true);
      if (this.getAttribute("autoplay") !== "off") this.watchVisibility();
    }
  }

  /// Opens WebGPU, else WebGL2 (each on a fresh canvas: a canvas keeps the first context it
  /// gave); the reason both failed, or null.
  async attach() {
    const only = this.getAttribute("backend") || new URLSearchParams(location.search).get("backend");
    const order = only ? [only] : ["webgpu", "webgl2"];
    const failed = [];
    for (const b of order) {
      if (b === "webgpu" && !(navigator.gpu && (await navigator.gpu.requestAdapter().catch(() => null)))) {
        failed.push(navigator.gpu ? "webgpu: the browser offers no adapter" : "webgpu: this browser has none");
        continue;
      }
      const canvas = el("canvas", { width: this.player.width(), height: this.player.height() });
      canvas.setAttribute("aria-label", this.getAttribute("alt") || "simreel scene");
      try {
        await this.player.attach(canvas, b);
        // a browser may open the adapter and still fail to show the canvas (Chromium without a
        // GPU cannot make a WebGPU canvas's swap chain): the first frame must come back visible
        this.player.seek(0);
        if (await blank(canvas)) {
          this.player.detach();
          failed.push(`${b}: the canvas stayed empty after drawing`);
          continue;
        }
        this.canvas = canvas;
        return null;
      } catch (e) {
        failed.push(String(e && e.message ? e.message : e));
      }
    }
    return `Showing the first frame only: neither WebGPU nor WebGL2 could draw here (${failed.join("; ")}).`;
  }

  /// The canvas's pointer, presses, drags and wheel, queued in order and handed to the simulation
  /// once a frame (`flush`), at the frame shown.
  listen() {
    const c = this.canvas;
    this.hint.textContent = this.player.controls();
    const wheelUsed = this.hint.textContent.includes("wheel");
    const at = (e) => {
      const r = c.getBoundingClientRect();
      return [((e.clientX - r.left) * c.width) / r.width, ((e.clientY - r.top) * c.height) / r.height];
    };
    const queue = (kind, ...args) => {
      const last = this.queue[this.queue.length - 1];
      // moves of one drag, and turns of the wheel, between two frames count as one
      if (last && last[0] === kind && kind === "move") {
        last[1] = args[0];
        last[2] = args[1];
        last[3] += args[2];
      } else if (last && last[0] === kind && kind === "wheel") {
        last[1] += args[0];
      } else {
        this.queue.push([kind, ...args]);
      }
      this.touched();
    };
    let down = null;
    c.addEventListener("pointerdown", (e) => {
      down = { x: e.clientX, y: e.clientY, at: at(e), lastX: e.clientX, dragged: false };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener("pointermove", (e) => {
      if (down && e.buttons & 1) {
        if (!down.dragged && Math.abs(e.clientX - down.x) + Math.abs(e.clientY - down.y) > 4) {
          down.dragged = true;
          queue("begin", ...down.at);
        }
        if (down.dragged) {
          const r = c.getBoundingClientRect();
          const [x, y] = at(e);
          queue("move", x, y, ((e.clientX - down.lastX) * c.width) / r.width);
          down.lastX = e.clientX;
        }
      } else {
        // the cursor counts while the scene plays (handed over with the next frame)
        this.pointerAt = at(e);
      }
    });
    c.addEventListener("pointerup", (e) => {
      if (down) queue(down.dragged ? "end" : "press", ...at(e));
      down = null;
    });
    c.addEventListener(
      "wheel",
      (e) => {
        if (!wheelUsed) return;
        e.preventDefault();
        queue("wheel", e.deltaY < 0 ? 1 : -1);
      },
      { passive: false },
    );
  }

  /// A press, drag or wheel: the scene plays to show it (handed over with the first frame).
  touched() {
    if (!this.playing && !this.ended && this.player.frame() < this.last) this.play();
  }

  /// Hands what the reader did since the last frame to the simulation, in order, at the frame
  /// shown: the pointer, then presses, drags (a die's pull, or the camera's turn) and the wheel.
  flush() {
    const events = this.queue;
    this.queue = [];
    const p = this.player;
    try {
      if (this.pointerAt) p.pointer(this.pointerAt[0], this.pointerAt[1]);
      this.pointerAt = null;
      for (const [kind, a, b, dx] of events) {
        if (kind === "press") p.press(a, b);
        else if (kind === "begin") this.pulling = p.grab(a, b);
        else if (kind === "move") this.pulling ? p.pull_to(a, b) : p.drag(dx);
        else if (kind === "end" && this.pulling) {
          // the hand opens whatever it held (a carrier let go where no ground was: nothing led)
          this.pulling = false;
          p.let_go();
        }
        else if (kind === "wheel") p.wheel(a);
      }
    } catch (e) {
      this.note.textContent = `That input was refused: ${e && e.message ? e.message : e}`;
    }
    const n = p.inputs();
    this.dataset.inputs = n;
    this.saveButton.hidden = n === 0;
  }

  /// Downloads the take: the scene file with the reader's inputs written in.
  save() {
    const stem = (new URL(this.getAttribute("src"), location.href).pathname.split("/").pop() || "scene.toml").replace(/\.toml$/, "");
    const a = el("a", { href: URL.createObjectURL(new Blob([this.player.take()], { type: "application/toml" })), download: `${stem}-take.toml` });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  /// The take so far (what "save this take" downloads).
  get take() {
    return this.player ? this.player.take() : "";
  }

  watchVisibility() {
    this.observer = new IntersectionObserver((entries) => {
      this.visible = entries.some((e) => e.isIntersecting);
      if (this.visible && !this.userPaused && !this.ended) this.play();
      else if (!this.visible) this.pause(false);
    });
    this.observer.observe(this);
    document.addEventListener("visibilitychange", () => {
      if (document.hidden) this.pause(false);
      else if (this.visible && !this.userPaused && !this.ended) this.play();
    });
  }

  /// Draws frame `f` (the simulation steps or goes back there) and says where it is.
  show(f, byHand = false) {
    let reached;
    try {
      reached = this.player.seek(f);
    } catch (e) {
      // the canvas failed: the poster again, with why; the simulation went on
      this.stage.replaceChildren(this.poster);
      this.dataset.backend = "none";
      this.note.textContent = `Showing the first frame only: drawing failed (${e && e.message ? e.message : e}).`;
      reached = this.player.seek(f);
    }
    this.scrub.value = reached;
    const t = (reached / this.fps).toFixed(2);
    this.time.textContent = `${t} s · frame ${reached}/${this.last}`;
    this.dataset.frame = reached;
    if (this.showState) this.stateLine.textContent = this.player.state();
    const fault = this.player.fault();
    if (fault) {
      this.note.textContent = `The simulation stopped making sense at ${fault}.`;
      this.pause();
    }
    if (byHand && this.playing) this.origin = performance.now() - (reached / this.fps) * 1000;
    return reached;
  }

  play() {
    if (this.playing || !this.player) return;
    if (this.player.frame() >= this.last) this.player.seek(0);
    this.playing = true;
    this.ended = false;
    this.userPaused = false;
    this.playButton.textContent = "❚❚";
    this.lastTick = undefined;
    this.origin = performance.now() - (this.player.frame() / this.fps) * 1000;
    const tick = (now) => {
      if (!this.playing) return;
      const began = performance.now();
      // what the reader did since the last frame, at the frame shown
      this.flush();
      // an animation frame's time may be a little before play() set the origin: never a frame
      // before the one shown (a negative frame would reach the wasm as 2³² − 1, the last)
      const due = Math.max(this.player.frame(), Math.min(this.last, Math.floor(((now - this.origin) / 1000) * this.fps + 1e-9)));
      // whole steps toward the frame due, within the budget; the last one is drawn
      while (this.player.frame() < due - 1 && performance.now() - began < STEP_BUDGET_MS) {
        if (!this.player.step()) break;
      }
      const reached = this.show(Math.min(due, this.player.frame() + 1));
      if (reached < due) {
        // behind: the clock waits for the simulation instead of skipping its steps
        this.origin = now - (reached / this.fps) * 1000;
        this.note.textContent = `Playing slower than real time: this device steps the simulation below ${this.fps} frames a second (every step is still taken).`;
        this.behind = true;
      } else if (this.behind) {
        this.note.textContent = "";
        this.behind = false;
      }
      this.frameTimes.push(performance.now() - began);
      if (this.lastTick !== undefined) this.intervals.push(now - this.lastTick);
      this.lastTick = now;
      if (this.frameTimes.length > 600) this.frameTimes.shift();
      if (this.intervals.length > 600) this.intervals.shift();
      if (reached >= this.last) {
        this.ended = true;
        this.pause(false);
        return;
      }
      this.raf = requestAnimationFrame(tick);
    };
    this.raf = requestAnimationFrame(tick);
  }

  pause(byUser = true) {
    // what the reader did before pausing counts, at the frame shown
    if (this.playing && this.player) this.flush();
    if (byUser) this.userPaused = true;
    this.playing = false;
    if (this.raf) cancelAnimationFrame(this.raf);
    this.playButton.textContent = "▶";
  }

  restart() {
    this.show(0, true);
    this.play();
  }

  fail(why) {
    this.note.textContent = `This scene cannot play here: ${why}`;
    this.dataset.backend = "none";
    this.time.textContent = "";
  }

  /// The state line at the current frame (what the manifest of `simreel render` says).
  get state() {
    return this.player ? this.player.state() : "";
  }

  /// While playing, over the last 600 animation frames: milliseconds of work in each (stepping
  /// and drawing), and between one and the next (what a reader sees), p50 and p95; and the
  /// milliseconds from the element's start to its first frame drawn.
  get frameTime() {
    const pct = (values) => {
      const s = [...values].sort((a, b) => a - b);
      const at = (q) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : NaN);
      return { p50: at(0.5), p95: at(0.95) };
    };
    return { work: pct(this.frameTimes), interval: pct(this.intervals), frames: this.frameTimes.length, firstFrameMs: this.firstFrameMs };
  }
}

if (!customElements.get("simreel-player")) customElements.define("simreel-player", SimreelPlayer);
