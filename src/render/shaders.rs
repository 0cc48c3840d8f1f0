//! The shader registry: every WGSL file in `shaders/`, compiled into the binary. A module is its
//! own file after the shared parts it needs: `common.wgsl` (the per-frame uniform block, the vertex
//! and instance inputs) for every 3-D module, and `lit.wgsl` (the lighting, `VsOut` and `fs_main`)
//! for the lit ones.

/// Declarations the 3-D modules start with.
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");
/// The lighting the lit modules share.
pub const LIT: &str = include_str!("../../shaders/lit.wgsl");

/// Files that are parts of other modules, not modules of their own.
pub const PARTS: &[&str] = &["common", "lit"];

/// (name, source) of each pipeline's shader file.
pub const SHADERS: &[(&str, &str)] = &[
    ("background", include_str!("../../shaders/background.wgsl")),
    ("shadow", include_str!("../../shaders/shadow.wgsl")),
    ("mesh", include_str!("../../shaders/mesh.wgsl")),
    ("batch", include_str!("../../shaders/batch.wgsl")),
    ("shapes", include_str!("../../shaders/shapes.wgsl")),
    ("layer", include_str!("../../shaders/layer.wgsl")),
    ("deform", include_str!("../../shaders/deform.wgsl")),
    ("edges", include_str!("../../shaders/edges.wgsl")),
];

/// Modules that stand alone (the 2-D ones and the compute deformation have their own bindings).
const STANDALONE: &[&str] = &["shapes", "layer", "deform"];
/// Modules shaded by `lit.wgsl`.
const LIT_MODULES: &[&str] = &["mesh", "batch"];

/// The full module source of shader `name`.
pub fn module_source(name: &str) -> Option<String> {
    let (n, src) = SHADERS.iter().find(|(n, _)| *n == name)?;
    Some(if STANDALONE.contains(n) {
        src.to_string()
    } else if LIT_MODULES.contains(n) {
        format!("{COMMON}\n{LIT}\n{src}")
    } else {
        format!("{COMMON}\n{src}")
    })
}
