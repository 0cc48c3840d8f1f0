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
    ("present", include_str!("../../shaders/present.wgsl")),
];

/// Modules that stand alone (the 2-D ones and the compute deformation have their own bindings).
const STANDALONE: &[&str] = &["shapes", "layer", "deform", "present"];
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

/// `edges.wgsl` for adapters without screen-space (`@interpolate(linear)`) varyings, as WebGL2's
/// GLSL ES 3.0 has none: the distance across the line is carried as `(across·w, w)`, interpolated
/// with perspective, and divided back in the fragment shader, which gives the screen-space
/// interpolation exactly (up to rounding). Every other adapter draws the file as written.
pub fn edges_for_es3() -> String {
    let (_, src) = SHADERS.iter().find(|(n, _)| *n == "edges").expect("edges.wgsl");
    let swaps = [
        ("@location(0) @interpolate(linear) across: f32,", "@location(0) across_w: vec2<f32>,"),
        ("out.across = 0.0;", "out.across_w = vec2<f32>(0.0, 1.0);"),
        ("out.across = e.corner.y * reach;", "out.across_w = vec2<f32>(e.corner.y * reach, 1.0) * c.w;"),
        ("abs(in.across)", "abs(in.across_w.x / in.across_w.y)"),
    ];
    let mut out = src.to_string();
    for (from, to) in swaps {
        assert!(out.contains(from), "edges.wgsl no longer has `{from}`: edges_for_es3 needs the new form");
        out = out.replace(from, to);
    }
    format!("{COMMON}\n{out}")
}
