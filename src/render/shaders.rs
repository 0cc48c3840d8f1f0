//! The shader registry: every WGSL file in `shaders/`, compiled into the binary. Each pipeline's
//! module is `common.wgsl` (the per-frame uniform block, the vertex and instance inputs) followed
//! by its own file.

/// Declarations the 3-D modules start with.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");

/// (name, source) of each pipeline's shader file.
pub const SHADERS: &[(&str, &str)] = &[
    ("background", include_str!("../../shaders/background.wgsl")),
    ("shadow", include_str!("../../shaders/shadow.wgsl")),
    ("mesh", include_str!("../../shaders/mesh.wgsl")),
    ("shapes", include_str!("../../shaders/shapes.wgsl")),
    ("layer", include_str!("../../shaders/layer.wgsl")),
    ("deform", include_str!("../../shaders/deform.wgsl")),
];

/// Modules that stand alone (the 2-D ones and the compute deformation have their own bindings).
const STANDALONE: &[&str] = &["shapes", "layer", "deform"];

/// The full module source of shader `name`.
pub fn module_source(name: &str) -> Option<String> {
    SHADERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, src)| if STANDALONE.contains(n) { src.to_string() } else { format!("{COMMON}\n{src}") })
}
