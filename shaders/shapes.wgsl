// 2-D shapes on a logical canvas (y down): discs, arcs, segments and rounded rectangles, each an instanced quad over
// its bounding box (a segment's turned along it) whose coverage comes from a signed distance, so
// edges are anti-aliased to exactly one output pixel at any scale.

struct Canvas {
    // ndc = p * xy + zw (y already flipped)
    transform: vec4<f32>,
    // x: canvas units per output pixel; y: the margin around a shape for its anti-aliased edge
    px: vec4<f32>,
};

@group(0) @binding(0) var<uniform> canvas: Canvas;

struct VsIn {
    @builtin(vertex_index) vi: u32,
    @location(0) rect: vec4<f32>,
    @location(1) p0: vec4<f32>,
    @location(2) p1: vec4<f32>,
    @location(3) c0: vec4<f32>,
    @location(4) c1: vec4<f32>,
    @location(5) kind: u32,
};

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) pos: vec2<f32>,
    @location(1) @interpolate(flat) p0: vec4<f32>,
    @location(2) @interpolate(flat) p1: vec4<f32>,
    @location(3) @interpolate(flat) c0: vec4<f32>,
    @location(4) @interpolate(flat) c1: vec4<f32>,
    @location(5) @interpolate(flat) kind: u32,
};

@vertex
fn vs_main(in: VsIn) -> VsOut {
    // two triangles: corners 0 1 2, 2 1 3
    let corner_ids = array<u32, 6>(0u, 1u, 2u, 2u, 1u, 3u);
    let c = corner_ids[in.vi];
    let t = vec2<f32>(f32(c & 1u), f32((c >> 1u) & 1u));
    var pos = mix(in.rect.xy, in.rect.zw, t);
    let ba = in.p0.zw - in.p0.xy;
    let len = length(ba);
    if (in.kind == 2u && len > 0.0) {
        // a segment: a quad along it (half its width and the edge's margin on each side and past
        // each round cap), not its bounding box, which a long diagonal line fills
        let r = in.p1.x + canvas.px.y;
        let along = ba / len;
        let across = vec2<f32>(-along.y, along.x);
        pos = mix(in.p0.xy - along * r, in.p0.zw + along * r, t.x) + across * (r * (2.0 * t.y - 1.0));
    }
    var out: VsOut;
    out.clip = vec4<f32>(pos * canvas.transform.xy + canvas.transform.zw, 0.0, 1.0);
    out.pos = pos;
    out.p0 = in.p0;
    out.p1 = in.p1;
    out.c0 = in.c0;
    out.c1 = in.c1;
    out.kind = in.kind;
    return out;
}

const TAU: f32 = 6.28318530718;

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let px = canvas.px.x;
    var d: f32;
    var color = in.c0;
    var cover = 1.0;
    if (in.kind == 0u) {
        d = length(in.pos - in.p0.xy) - in.p0.z;
    } else if (in.kind == 1u) {
        let q = in.pos - in.p0.xy;
        let r = in.p0.z;
        let hw = in.p0.w;
        let start = in.p1.x;
        let sweep = in.p1.y;
        let around = abs(length(q) - r) - hw;
        if (sweep >= TAU) {
            d = around;
        } else {
            let rel = (atan2(q.y, q.x) - start) - TAU * floor((atan2(q.y, q.x) - start) / TAU);
            if (rel <= sweep) {
                d = around;
            } else {
                let e0 = r * vec2<f32>(cos(start), sin(start));
                let e1 = r * vec2<f32>(cos(start + sweep), sin(start + sweep));
                d = min(length(q - e0), length(q - e1)) - hw;
            }
        }
    } else if (in.kind == 3u) {
        // rounded box: p0 = min, max; p1.x = corner radius, p1.y = border width (0: filled)
        let c = (in.p0.xy + in.p0.zw) * 0.5;
        let half = (in.p0.zw - in.p0.xy) * 0.5;
        let r = min(in.p1.x, min(half.x, half.y));
        let q = abs(in.pos - c) - half + vec2<f32>(r);
        d = length(max(q, vec2<f32>(0.0))) + min(max(q.x, q.y), 0.0) - r;
        if (in.p1.y > 0.0) {
            d = abs(d + in.p1.y * 0.5) - in.p1.y * 0.5;
        }
    } else {
        let a = in.p0.xy;
        let b = in.p0.zw;
        let pa = in.pos - a;
        let ba = b - a;
        let len2 = max(dot(ba, ba), 1e-12);
        let h = clamp(dot(pa, ba) / len2, 0.0, 1.0);
        d = length(pa - ba * h) - in.p1.x;
        color = mix(in.c0, in.c1, h);
        let on = in.p1.y;
        let off = in.p1.z;
        if (on > 0.0) {
            // distance along the dash pattern; soft ends one pixel wide
            let s = dot(pa, ba) / sqrt(len2) + in.p1.w;
            let m = s - (on + off) * floor(s / (on + off));
            cover = clamp(min(m, on - m) / px + 0.5, 0.0, 1.0);
        }
    }
    let alpha = clamp(0.5 - d / px, 0.0, 1.0) * cover * color.a;
    if (alpha <= 0.0) {
        discard;
    }
    return vec4<f32>(color.rgb, alpha);
}
