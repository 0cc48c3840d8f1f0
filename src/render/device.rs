//! Finding an adapter and opening a device, headless: every backend wgpu has on this platform is
//! asked, hardware GPUs are preferred over software ones (Mesa lavapipe through Vulkan, then
//! llvmpipe through GL), and the choice can be narrowed by backend or by a name substring.

use super::RenderError;

/// `--backend`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    #[default]
    Auto,
    Vulkan,
    Gl,
    Metal,
    Dx12,
}

impl BackendChoice {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "auto" => BackendChoice::Auto,
            "vulkan" => BackendChoice::Vulkan,
            "gl" => BackendChoice::Gl,
            "metal" => BackendChoice::Metal,
            "dx12" => BackendChoice::Dx12,
            _ => return None,
        })
    }

    /// As written after `--backend`.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Vulkan => "vulkan",
            BackendChoice::Gl => "gl",
            BackendChoice::Metal => "metal",
            BackendChoice::Dx12 => "dx12",
        }
    }

    #[cfg(feature = "render")]
    fn backends(self) -> wgpu::Backends {
        match self {
            BackendChoice::Auto => wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12 | wgpu::Backends::GL,
            BackendChoice::Vulkan => wgpu::Backends::VULKAN,
            BackendChoice::Gl => wgpu::Backends::GL,
            BackendChoice::Metal => wgpu::Backends::METAL,
            BackendChoice::Dx12 => wgpu::Backends::DX12,
        }
    }
}

/// Which adapter to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdapterRequest {
    pub backend: BackendChoice,
    /// Case-insensitive substring of the adapter's name.
    pub name: Option<String>,
}

/// The variables that set this machine's preferred adapter: a request that leaves the choice
/// open (`--backend auto`, no `--adapter`) takes them, as a laptop's GPU is preferred.
pub const PREFERRED_BACKEND: &str = crate::environment::BACKEND;
pub const PREFERRED_ADAPTER: &str = crate::environment::ADAPTER;

/// The preference variable `name` as the environment simreel was given holds it.
fn preferred(name: &str) -> Option<String> {
    let env = crate::environment::Environment::current();
    match name {
        PREFERRED_BACKEND => env.backend.clone(),
        PREFERRED_ADAPTER => env.adapter.clone(),
        _ => None,
    }
}

impl AdapterRequest {
    /// Whether the request leaves the choice to the machine (`auto`, no name).
    pub fn is_open(&self) -> bool {
        self.backend == BackendChoice::Auto && self.name.is_none()
    }

    /// The request, or where it is open, the one `SIMREEL_BACKEND` and `SIMREEL_ADAPTER` make.
    pub fn or_preferred(&self) -> Result<AdapterRequest, RenderError> {
        self.or_preferred_from(preferred)
    }

    /// Only an open request takes the preference: one that names a backend or an adapter is
    /// taken as it is, whole.
    fn or_preferred_from(&self, var: impl Fn(&str) -> Option<String>) -> Result<AdapterRequest, RenderError> {
        let backend = match var(PREFERRED_BACKEND) {
            None => BackendChoice::Auto,
            Some(b) => BackendChoice::parse(b.trim()).ok_or_else(|| RenderError::Preference {
                variable: PREFERRED_BACKEND,
                value: b.clone(),
                expected: "auto, vulkan, gl, metal or dx12".into(),
            })?,
        };
        if !self.is_open() {
            return Ok(self.clone());
        }
        Ok(AdapterRequest { backend, name: var(PREFERRED_ADAPTER) })
    }

    /// The preference variables that are set, as `NAME=value` words (empty when none is).
    pub fn preference_words() -> Vec<String> {
        [PREFERRED_BACKEND, PREFERRED_ADAPTER].iter().filter_map(|k| preferred(k).map(|v| format!("{k}={v}"))).collect()
    }

    /// A request for exactly `adapter` (its backend, its whole name).
    pub fn exactly(adapter: &AdapterSummary) -> AdapterRequest {
        AdapterRequest { backend: BackendChoice::parse(&adapter.backend).unwrap_or_default(), name: Some(adapter.name.clone()) }
    }
}

/// What `simreel adapters` prints about one adapter, and what manifests record.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    /// Vendor by PCI id (`nvidia`, `amd`, `intel`, `apple`, `mesa` for Mesa's software drivers…).
    pub vendor: String,
    pub driver: String,
    pub driver_info: String,
}

impl AdapterSummary {
    pub fn of(info: &wgpu::AdapterInfo) -> Self {
        AdapterSummary {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend).to_lowercase(),
            device_type: DEVICE_TYPES.iter().find(|(t, _, _)| *t == info.device_type).map_or("other", |(_, name, _)| name).to_string(),
            vendor: match info.vendor {
                0x10DE => "nvidia".to_string(),
                0x1002 | 0x1022 => "amd".to_string(),
                0x8086 => "intel".to_string(),
                0x106B => "apple".to_string(),
                0x10005 => "mesa".to_string(),
                0x5143 => "qualcomm".to_string(),
                0x13B5 => "arm".to_string(),
                0x1414 => "microsoft".to_string(),
                other => format!("{other:#x}"),
            },
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
        }
    }
}

/// Each device type: as summaries name it, and how much `auto` prefers it (hardware first).
const DEVICE_TYPES: [(wgpu::DeviceType, &str, u8); 5] = [
    (wgpu::DeviceType::DiscreteGpu, "discrete GPU", 4),
    (wgpu::DeviceType::IntegratedGpu, "integrated GPU", 3),
    (wgpu::DeviceType::VirtualGpu, "virtual GPU", 2),
    (wgpu::DeviceType::Other, "other", 1),
    (wgpu::DeviceType::Cpu, "CPU (software)", 0),
];

impl AdapterSummary {
    /// How much `auto` prefers this adapter (higher is better): hardware before software, then
    /// Vulkan, Metal and DX12 before GL.
    pub fn rank(&self) -> (u8, u8) {
        let kind = DEVICE_TYPES.iter().find(|(_, name, _)| *name == self.device_type).map_or(0, |(_, _, r)| *r);
        (kind, u8::from(matches!(self.backend.as_str(), "vulkan" | "metal" | "dx12")))
    }

    /// The driver's name and its version text together ("NVIDIA 580.65.06", "llvmpipe Mesa 22.3.6
    /// (LLVM 15.0.6)"): what a golden override's `driver` is a substring of.
    pub fn driver_words(&self) -> String {
        format!("{} {}", self.driver, self.driver_info).trim().to_string()
    }

    /// Mesa's lavapipe (Vulkan on the CPU): the adapter canonical goldens come from.
    pub fn is_lavapipe(&self) -> bool {
        self.backend == "vulkan" && (self.driver.to_lowercase().contains("llvmpipe") || self.name.to_lowercase().starts_with("llvmpipe"))
    }
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {}", self.name, self.backend, self.device_type)?;
        if !self.driver.is_empty() {
            write!(f, ", {} {}", self.driver, self.driver_info)?;
        }
        write!(f, ")")
    }
}

#[cfg(feature = "render")]
fn instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

/// Every adapter wgpu sees through `choice`.
#[cfg(feature = "render")]
pub fn list(choice: BackendChoice) -> Vec<wgpu::Adapter> {
    pollster::block_on(instance(choice.backends()).enumerate_adapters(choice.backends()))
}

/// The adapters `auto` considers: Vulkan, Metal and DX12 first; GL only when none of those has an
/// adapter (asking EGL on a headless machine costs time and prints warnings).
#[cfg(feature = "render")]
pub fn candidates(choice: BackendChoice) -> Vec<wgpu::Adapter> {
    if choice != BackendChoice::Auto {
        return list(choice);
    }
    let primary = wgpu::Backends::VULKAN | wgpu::Backends::METAL | wgpu::Backends::DX12;
    let found = pollster::block_on(instance(primary).enumerate_adapters(primary));
    if found.is_empty() { list(BackendChoice::Gl) } else { found }
}

/// Higher is better: [`AdapterSummary::rank`].
#[cfg(feature = "render")]
fn rank(info: &wgpu::AdapterInfo) -> (u8, u8) {
    AdapterSummary::of(info).rank()
}

/// The adapter `request` picks on this machine; an open request takes the machine's preference
/// (`SIMREEL_BACKEND`, `SIMREEL_ADAPTER`).
#[cfg(feature = "render")]
pub fn pick(request: &AdapterRequest) -> Result<wgpu::Adapter, RenderError> {
    let request = request.or_preferred()?;
    choose(candidates(request.backend), &request)
}

/// What `simreel adapters` prints of every adapter wgpu sees through `choice`.
#[cfg(feature = "render")]
pub fn summaries(choice: BackendChoice) -> Vec<AdapterSummary> {
    list(choice).iter().map(|a| AdapterSummary::of(&a.get_info())).collect()
}

/// The adapter `request` picks among `adapters` (in the order wgpu listed them on ties).
#[cfg(feature = "render")]
pub fn choose(adapters: Vec<wgpu::Adapter>, request: &AdapterRequest) -> Result<wgpu::Adapter, RenderError> {
    let everything: Vec<String> = adapters.iter().map(|a| AdapterSummary::of(&a.get_info()).to_string()).collect();
    let mut matching: Vec<wgpu::Adapter> = match &request.name {
        // a whole name before a part of one: "RTX 4090" is not "RTX 4090 D"
        Some(n) if adapters.iter().any(|a| a.get_info().name.eq_ignore_ascii_case(n)) => {
            adapters.into_iter().filter(|a| a.get_info().name.eq_ignore_ascii_case(n)).collect()
        }
        Some(n) => {
            let n = n.to_lowercase();
            adapters.into_iter().filter(|a| a.get_info().name.to_lowercase().contains(&n)).collect()
        }
        None => adapters,
    };
    if matching.is_empty() {
        return Err(match &request.name {
            Some(n) if !everything.is_empty() => RenderError::AdapterNotFound { filter: n.clone(), available: everything },
            _ => missing(request.backend),
        });
    }
    // stable: the first of the best rank
    let best = matching.iter().map(|a| rank(&a.get_info())).max().unwrap_or((0, 0));
    let pos = matching.iter().position(|a| rank(&a.get_info()) == best).unwrap_or(0);
    Ok(matching.swap_remove(pos))
}

/// The error when `backend` has no adapter: the adapters other backends have, when there are any
/// (lavapipe is there, the asked-for backend is not); what to install when there are none.
#[cfg(feature = "render")]
pub fn missing(backend: BackendChoice) -> RenderError {
    if backend != BackendChoice::Auto {
        let others: Vec<String> = list(BackendChoice::Auto).iter().map(|a| AdapterSummary::of(&a.get_info()).to_string()).collect();
        if !others.is_empty() {
            return RenderError::BackendUnavailable { backend: backend.name().to_string(), available: others };
        }
    }
    RenderError::NoAdapter { hint: install_hint() }
}

/// A device `adapter` could not open, said with where else to render: GL on some drivers
/// (NVIDIA's EGL without a display among them) finds the GPU yet cannot open a device on it,
/// which wgpu reports as "Parent device is lost"; the same GPU answers through Vulkan.
#[cfg(feature = "render")]
pub fn open_failed(adapter: &wgpu::Adapter, e: RenderError) -> RenderError {
    let info = adapter.get_info();
    let RenderError::Device(why) = e else { return e };
    if info.backend != wgpu::Backend::Gl {
        return RenderError::Device(why);
    }
    let others: Vec<AdapterSummary> = list(BackendChoice::Auto)
        .iter()
        .map(|a| a.get_info())
        .filter(|i| i.backend != wgpu::Backend::Gl)
        .map(|i| AdapterSummary::of(&i))
        .collect();
    RenderError::Device(gl_advice(&info.name, &why, &others))
}

/// [`open_failed`]'s words: the GL failure, then the adapter to use instead (the one of the same
/// name, else the best other), if there is one.
pub fn gl_advice(name: &str, why: &str, others: &[AdapterSummary]) -> String {
    let said = format!("{why} (GL on {name})");
    let same = others.iter().find(|o| o.name.eq_ignore_ascii_case(name) || name.to_lowercase().contains(&o.name.to_lowercase()));
    let best = same.or_else(|| others.iter().max_by_key(|o| o.rank()));
    match best {
        Some(o) => format!(
            "{said}; wgpu's GL backend cannot open a device with this driver: render through {} instead: --backend {} --adapter \"{}\" ({o})",
            o.backend, o.backend, o.name
        ),
        None => format!("{said}; no other backend has an adapter here: `simreel adapters` lists what there is"),
    }
}

/// What to install when no adapter exists at all.
pub fn install_hint() -> String {
    if cfg!(target_os = "linux") {
        format!(
            "install a Vulkan driver: `{}` (Mesa's lavapipe renders on the CPU); or GL through EGL: \
             `apt-get install libegl1 libgl1-mesa-dri` on Debian/Ubuntu (llvmpipe)",
            lavapipe_install(read_os_release().as_deref())
        )
    } else if cfg!(target_os = "windows") {
        "update the GPU driver, or install the WARP software rasterizer that ships with Windows (DX12)".to_string()
    } else {
        "this platform's GPU driver was not found by wgpu".to_string()
    }
}

/// `/etc/os-release` (or `/usr/lib/os-release`), where there is one.
pub fn read_os_release() -> Option<String> {
    ["/etc/os-release", "/usr/lib/os-release"].iter().find_map(|p| std::fs::read_to_string(p).ok())
}

/// The one command that installs lavapipe here, from the system's `os-release` (Linux): the
/// distribution's own package where it is known, every known one otherwise; on macOS and
/// Windows, where this build's wgpu renders through Metal or DX12 and has no Vulkan loader to
/// hand lavapipe to, the container image instead.
pub fn lavapipe_install(os_release: Option<&str>) -> String {
    const DEBIAN: &str = "sudo apt-get install mesa-vulkan-drivers";
    const FEDORA: &str = "sudo dnf install mesa-vulkan-drivers";
    const ARCH: &str = "sudo pacman -S vulkan-swrast";
    const IMAGE: &str = "run the check in simreel's container image, which holds lavapipe (docs/golden.md, \"In a container\")";
    if cfg!(target_os = "macos") || cfg!(target_os = "windows") {
        return format!("lavapipe does not run under this build on {}: {IMAGE}", std::env::consts::OS);
    }
    let field = |name: &str| -> Vec<String> {
        let text = os_release.unwrap_or_default();
        let line = text.lines().find_map(|l| l.trim().strip_prefix(name)?.strip_prefix('=').map(str::to_string));
        line.map(|v| v.trim_matches(['"', '\'']).split_whitespace().map(str::to_lowercase).collect()).unwrap_or_default()
    };
    let ids: Vec<String> = field("ID").into_iter().chain(field("ID_LIKE")).collect();
    let is = |names: &[&str]| ids.iter().any(|i| names.contains(&i.as_str()));
    if is(&["debian", "ubuntu"]) {
        DEBIAN.into()
    } else if is(&["fedora", "rhel", "centos"]) {
        FEDORA.into()
    } else if is(&["arch", "archlinux", "manjaro"]) {
        ARCH.into()
    } else {
        format!("{DEBIAN} (Debian, Ubuntu), {FEDORA} (Fedora), {ARCH} (Arch), or {IMAGE}")
    }
}

/// Whether `adapter` runs compute shaders with storage buffers (every Vulkan, Metal and DX12
/// adapter; GL from ES 3.1).
pub fn has_compute(adapter: &wgpu::Adapter) -> bool {
    adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        && adapter.limits().max_storage_buffers_per_shader_stage >= 3
        && adapter.limits().max_compute_workgroup_size_x >= 64
}

/// Opens a device on `adapter` able to hold `max_side`-pixel targets and a 2048² shadow map, with
/// compute shaders when the adapter has them (`compute`).
#[cfg(feature = "render")]
pub fn open(adapter: &wgpu::Adapter, max_side: u32, compute: bool) -> Result<(wgpu::Device, wgpu::Queue), RenderError> {
    pollster::block_on(open_async(adapter, max_side, compute))
}

/// [`open`] as a future: in a browser, where nothing may block, the page's event loop drives it.
pub async fn open_async(adapter: &wgpu::Adapter, max_side: u32, compute: bool) -> Result<(wgpu::Device, wgpu::Queue), RenderError> {
    let limits = adapter.limits();
    let needed = max_side.max(super::SHADOW_SIZE);
    if limits.max_texture_dimension_2d < needed {
        return Err(RenderError::TooLarge {
            what: format!("a {needed}-pixel texture"),
            limit: format!("{} pixels on {}", limits.max_texture_dimension_2d, adapter.get_info().name),
        });
    }
    let base = if compute { wgpu::Limits::downlevel_defaults() } else { wgpu::Limits::downlevel_webgl2_defaults() };
    // buffers as large as the adapter takes: the largest meshes and instance data a frame holds
    // fit where the adapter allows them
    let required_limits =
        wgpu::Limits { max_texture_dimension_2d: needed, max_buffer_size: limits.max_buffer_size, ..base }.using_resolution(limits.clone());
    let desc = wgpu::DeviceDescriptor {
        label: Some("simreel"),
        required_features: wgpu::Features::empty(),
        required_limits,
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::Performance,
        trace: wgpu::Trace::Off,
    };
    adapter.request_device(&desc).await.map_err(|e| RenderError::Device(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preference_fills_only_what_a_request_leaves_open() {
        let vars = |backend: Option<&str>, adapter: Option<&str>| {
            let (b, a) = (backend.map(str::to_string), adapter.map(str::to_string));
            move |k: &str| {
                if k == PREFERRED_BACKEND {
                    b.clone()
                } else if k == PREFERRED_ADAPTER {
                    a.clone()
                } else {
                    None
                }
            }
        };
        let open = AdapterRequest::default();
        assert_eq!(open.or_preferred_from(vars(None, None)).unwrap(), open);
        let gl = open.or_preferred_from(vars(Some("gl"), Some("llvmpipe"))).unwrap();
        assert_eq!(gl, AdapterRequest { backend: BackendChoice::Gl, name: Some("llvmpipe".into()) });
        // what the command line gives stays
        let asked = AdapterRequest { backend: BackendChoice::Vulkan, name: Some("nvidia".into()) };
        assert_eq!(asked.or_preferred_from(vars(Some("gl"), Some("llvmpipe"))).unwrap(), asked);
        // an adapter named alone is not mixed with the preferred backend, nor a backend alone
        // with the preferred adapter
        let named = AdapterRequest { backend: BackendChoice::Auto, name: Some("nvidia".into()) };
        assert_eq!(named.or_preferred_from(vars(Some("gl"), None)).unwrap(), named);
        let vulkan = AdapterRequest { backend: BackendChoice::Vulkan, name: None };
        assert_eq!(vulkan.or_preferred_from(vars(None, Some("nvidia"))).unwrap(), vulkan);
        // a bad value is an error whatever the request
        for r in [&open, &asked] {
            let bad = r.or_preferred_from(vars(Some("opengl"), None)).unwrap_err().to_string();
            assert!(bad.contains("SIMREEL_BACKEND=opengl") && bad.contains("vulkan, gl, metal or dx12"), "{bad}");
        }
        assert!(open.is_open() && !named.is_open());
    }

    #[test]
    fn a_device_gl_cannot_open_is_said_with_the_backend_that_can() {
        let gpu = |name: &str, backend: &str, device_type: &str| AdapterSummary {
            name: name.into(),
            backend: backend.into(),
            device_type: device_type.into(),
            ..Default::default()
        };
        let lavapipe = gpu("llvmpipe (LLVM 15.0.6, 256 bits)", "vulkan", "CPU (software)");
        let h200 = gpu("NVIDIA H200", "vulkan", "discrete GPU");
        // GL names the GPU as its renderer string does; Vulkan by its own name
        let said = gl_advice("NVIDIA H200/PCIe/SSE2", "Parent device is lost", &[lavapipe.clone(), h200.clone()]);
        assert!(said.starts_with("Parent device is lost (GL on NVIDIA H200/PCIe/SSE2); "), "{said}");
        assert!(said.contains("--backend vulkan --adapter \"NVIDIA H200\""), "{said}");
        // no adapter of that name: the best other (a GPU before a software one)
        let said = gl_advice("Some GPU", "lost", &[lavapipe.clone(), h200]);
        assert!(said.contains("--adapter \"NVIDIA H200\""), "{said}");
        let said = gl_advice("Some GPU", "lost", &[lavapipe]);
        assert!(said.contains("--adapter \"llvmpipe (LLVM 15.0.6, 256 bits)\""), "{said}");
        let said = gl_advice("Some GPU", "lost", &[]);
        assert!(said.contains("no other backend has an adapter here"), "{said}");
    }

    #[test]
    fn exactly_names_one_adapter_by_backend_and_whole_name() {
        let a = AdapterSummary { name: "llvmpipe (LLVM 15.0.6, 256 bits)".into(), backend: "vulkan".into(), ..Default::default() };
        assert_eq!(AdapterRequest::exactly(&a), AdapterRequest { backend: BackendChoice::Vulkan, name: Some(a.name.clone()) });
    }
}
