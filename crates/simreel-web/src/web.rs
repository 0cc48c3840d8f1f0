//! What the page's script calls (`web/simreel-player.js`): a [`Player`] reads a scene's text,
//! opens wgpu on a canvas through the backend the script asks for (WebGPU, else WebGL2 on a fresh
//! canvas), and draws the frame its session is at. The script owns the clock: it says which
//! frame to show; the simulation gets there in whole steps, the same ones `simreel render` takes.

use simreel::render::Renderer;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::session::Session;

#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| web_sys::console::error_1(&format!("simreel: {info}").into())));
}

/// The build of simreel this player was compiled from (`simreel --version`'s fingerprint): `simreel
/// embed` finds it in the wasm and refuses a player of other sources than its own.
#[wasm_bindgen]
pub fn build() -> String {
    simreel::BUILD.to_string()
}

/// The kinds this player plays, as `simreel-kinds:tfdwc` (a letter a kind, `-` where left out).
#[wasm_bindgen]
pub fn kinds() -> String {
    crate::kinds::mark().to_string()
}

/// The canvas side: a surface on the page's canvas and the renderer drawing into it.
struct Canvas {
    surface: wgpu::Surface<'static>,
    renderer: Renderer,
}

/// A scene in a page: its session and, once a backend opened, its canvas.
#[wasm_bindgen]
pub struct Player {
    session: Session,
    canvas: Option<Canvas>,
    backend: String,
}

#[wasm_bindgen]
impl Player {
    /// Reads scene text (`name`, the file's name, for messages). Nothing is drawn until
    /// [`Player::attach`] opens a canvas: the state line needs none.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, name: &str) -> Result<Player, JsError> {
        let session = Session::open(text, name).map_err(|e| JsError::new(&e))?;
        Ok(Player { session, canvas: None, backend: String::new() })
    }

    /// Opens `backend` ("webgpu" or "webgl2") on `canvas`, sized to the scene's frame. An error
    /// says why (no adapter, a device refused, a canvas format missing): the script then tries
    /// the next backend on a fresh canvas, or shows the poster with the reason.
    pub async fn attach(&mut self, canvas: HtmlCanvasElement, backend: &str) -> Result<(), JsError> {
        let backends = match backend {
            "webgpu" => wgpu::Backends::BROWSER_WEBGPU,
            "webgl2" => wgpu::Backends::GL,
            other => return Err(JsError::new(&format!("unknown backend {other:?}: webgpu or webgl2"))),
        };
        let look = &self.session.scene().look;
        let (width, height, samples) = (look.width, look.height, look.msaa);
        canvas.set_width(width);
        canvas.set_height(height);
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = backends;
        let instance =
            if backend == "webgpu" { wgpu::util::new_instance_with_webgpu_detection(desc).await } else { wgpu::Instance::new(desc) };
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
            .map_err(|e| JsError::new(&format!("{backend}: no drawing context on the canvas ({e})")))?;
        let options = wgpu::RequestAdapterOptions { compatible_surface: Some(&surface), ..Default::default() };
        let adapter = instance.request_adapter(&options).await.map_err(|e| JsError::new(&format!("{backend}: no adapter ({e})")))?;
        let renderer =
            Renderer::on_adapter(&adapter, width, height, samples).await.map_err(|e| JsError::new(&format!("{backend}: {e}")))?;
        // a pipeline the adapter refused shows here, before the adapter is taken
        renderer.check().map_err(|e| JsError::new(&format!("{backend}: {e}")))?;
        let caps = surface.get_capabilities(&adapter);
        // the renderer's image is sRGB-encoded RGBA8: copied as it is where the canvas takes copies
        // of RGBA8 (WebGPU), else drawn onto an sRGB canvas (WebGL2), the canvas shows the bytes a
        // PNG of the frame holds
        let copies = caps.usages.contains(wgpu::TextureUsages::COPY_DST);
        let rgba8 = |f: &wgpu::TextureFormat| f.remove_srgb_suffix() == wgpu::TextureFormat::Rgba8Unorm;
        let format = caps
            .formats
            .iter()
            .find(|f| copies && rgba8(f))
            .or_else(|| caps.formats.iter().find(|f| f.is_srgb()))
            .or_else(|| caps.formats.first())
            .copied()
            .ok_or_else(|| JsError::new(&format!("{backend}: the canvas offers no format")))?;
        let mut config = surface
            .get_default_config(&adapter, width, height)
            .ok_or_else(|| JsError::new(&format!("{backend}: the canvas cannot be used with this adapter")))?;
        config.format = format;
        config.usage =
            wgpu::TextureUsages::RENDER_ATTACHMENT | if copies { wgpu::TextureUsages::COPY_DST } else { wgpu::TextureUsages::empty() };
        config.alpha_mode = caps.alpha_modes.first().copied().unwrap_or(config.alpha_mode);
        config.view_formats = Vec::new();
        surface.configure(renderer.device(), &config);
        let info = adapter.get_info();
        self.backend = format!("{backend} ({})", if info.name.is_empty() { "unnamed adapter".to_string() } else { info.name });
        self.canvas = Some(Canvas { surface, renderer });
        Ok(())
    }

    /// Gives the canvas up (the script found that it shows nothing): the next seek only
    /// simulates, and the script tries another backend on a fresh canvas.
    pub fn detach(&mut self) {
        self.canvas = None;
        self.backend.clear();
    }

    /// The backend and adapter drawing, as "webgpu (…)" or "webgl2 (…)"; empty before one opened.
    pub fn backend(&self) -> String {
        self.backend.clone()
    }

    pub fn frames(&self) -> u32 {
        self.session.frames()
    }

    pub fn fps(&self) -> u32 {
        self.session.fps()
    }

    pub fn width(&self) -> u32 {
        self.session.scene().look.width
    }

    pub fn height(&self) -> u32 {
        self.session.scene().look.height
    }

    /// The frame the simulation is at.
    pub fn frame(&self) -> u32 {
        self.session.frame()
    }

    /// Moves the simulation to `frame` and draws it when a canvas is attached. Returns the frame
    /// reached (the last one for a frame past the end). A drawing error gives the canvas up (the
    /// simulation has moved; the next call only simulates) and is returned.
    pub fn seek(&mut self, frame: u32) -> Result<u32, JsError> {
        let data = self.session.seek(frame);
        if let Some(c) = &mut self.canvas {
            let texture = match c.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
                wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok(self.session.frame()),
                _ => return Err(JsError::new("the canvas was lost: reload the page")),
            };
            if let Err(e) = c.renderer.present(&data, &texture.texture) {
                // the canvas is given up; the simulation goes on (the page shows the poster)
                self.canvas = None;
                self.backend.clear();
                return Err(JsError::new(&e.to_string()));
            }
            c.renderer.queue().present(texture);
        }
        Ok(self.session.frame())
    }

    /// Steps the simulation one frame without drawing (the script's catch-up, when frames are
    /// due faster than they are drawn); false at the last frame.
    pub fn step(&mut self) -> bool {
        let next = self.session.frame() + 1;
        if next >= self.session.frames() {
            return false;
        }
        self.session.go(next);
        true
    }

    /// The state line of the current frame, as `simreel render`'s manifest gives it.
    pub fn state(&self) -> String {
        self.session.state()
    }

    /// What a reader may do to this scene ("move the pointer …; click …"), for the page to say.
    pub fn controls(&self) -> String {
        self.session.controls().to_string()
    }

    /// The pointer at pixel (x, y) of the frame: a flock's cursor from the next frame on. False
    /// where the kind has none.
    pub fn pointer(&mut self, x: f64, y: f64) -> Result<bool, JsError> {
        self.session.pointer(x, y).map_err(|e| JsError::new(&e))
    }

    /// A press at pixel (x, y): a flock's shockwave, a gust of wind there, a throw of the dice.
    pub fn press(&mut self, x: f64, y: f64) -> Result<bool, JsError> {
        self.session.press(x, y).map_err(|e| JsError::new(&e))
    }

    /// A drag across the frame by `dx` pixels: the eye turned about its target (3-D kinds).
    pub fn drag(&mut self, dx: f64) -> Result<bool, JsError> {
        self.session.drag(dx).map_err(|e| JsError::new(&e))
    }

    /// A drag starting at pixel (x, y): true where a hand took a die or the carrier there (the
    /// drag then pulls the die, or picks where the carrier is led: `pull_to`, `let_go`), false
    /// elsewhere (the drag turns the camera: `drag`).
    pub fn grab(&mut self, x: f64, y: f64) -> Result<bool, JsError> {
        self.session.grab(x, y).map_err(|e| JsError::new(&e))
    }

    /// The held die pulled toward pixel (x, y); the ground there, where a carrier is led.
    pub fn pull_to(&mut self, x: f64, y: f64) -> Result<bool, JsError> {
        self.session.pull_to(x, y).map_err(|e| JsError::new(&e))
    }

    /// The hand lets go of the die; a carrier is led to the ground it was last drawn over.
    pub fn let_go(&mut self) -> Result<bool, JsError> {
        self.session.let_go().map_err(|e| JsError::new(&e))
    }

    /// The wheel, in steps (negative down): the terrain's iso level, where the scene leaves it.
    pub fn wheel(&mut self, steps: f64) -> Result<bool, JsError> {
        self.session.wheel(steps).map_err(|e| JsError::new(&e))
    }

    /// Inputs recorded so far.
    pub fn inputs(&self) -> u32 {
        self.session.inputs() as u32
    }

    /// The take: the scene file with the reader's inputs written in, for "save this take".
    pub fn take(&self) -> String {
        self.session.take()
    }

    /// A fault the simulation found, if any.
    pub fn fault(&self) -> Option<String> {
        self.session.fault()
    }
}
