// Instanced batches: one mesh at many instances, each placed once (position, yaw, scale, colour)
// and moved every frame by a 32-byte motion record, deformed here per vertex. The CPU twin of
// `deform` is `deform_vertex` in src/frame/batch.rs: change both together.

struct Batch {
    tint: vec4<f32>,
    // x: roughness, y: specular, z: unused, w: 1 if it receives shadows
    surface: vec4<f32>,
    // x: deformation (0 rigid, 1 spine, 2 bend), y: the mesh's height (its largest y)
    deform: vec4<f32>,
};

// Every batch of the frame (up to 256 per bind group); each instance's motion record names its
// batch in `a.w` (the renderer writes it there: the deformations leave `a.w` unused). One bind
// for many draws: rebinding per draw costs memory on lavapipe (Mesa 22.3) that is never returned.
@group(2) @binding(0) var<uniform> batches: array<Batch, 256>;

// Where one instance stands (`Placement` in src/frame/batch.rs).
struct PlacementIn {
    @location(3) position: vec3<f32>,
    @location(4) yaw: f32,
    @location(5) scale: vec3<f32>,
    // sRGB, straight alpha
    @location(6) color: vec4<f32>,
};

// This frame's motion of one instance (`Motion`).
struct MotionIn {
    @location(7) a: vec4<f32>,
    @location(8) b: vec4<f32>,
};

// The turn about +y by `yaw`.
fn turn(yaw: f32, v: vec3<f32>) -> vec3<f32> {
    let s = sin(yaw);
    let c = cos(yaw);
    return vec3<f32>(c * v.x + s * v.z, v.y, -s * v.x + c * v.z);
}

fn normalize_or(v: vec3<f32>, fallback: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if (len > 1e-20) {
        return v / len;
    }
    return fallback;
}

// Rotation by the rotation vector `r` (Rodrigues).
fn rotate(r: vec3<f32>, v: vec3<f32>) -> vec3<f32> {
    let angle = length(r);
    if (angle < 1e-12) {
        return v;
    }
    let k = r / angle;
    let s = sin(angle);
    let c = cos(angle);
    return v * c + cross(k, v) * s + k * dot(k, v) * (1.0 - c);
}

struct Placed {
    position: vec3<f32>,
    normal: vec3<f32>,
};

fn batch_of(m: MotionIn) -> Batch {
    return batches[u32(m.a.w + 0.5)];
}

fn deform(v: VertexIn, p: PlacementIn, m: MotionIn) -> Placed {
    let batch = batch_of(m);
    let s = p.scale;
    let local = v.position * s;
    let n_local = v.normal / s;
    let height = batch.deform.y;
    var h = 0.0;
    if (height > 0.0) {
        h = v.position.y / height;
    }
    var out: Placed;
    let mode = u32(batch.deform.x + 0.5);
    if (mode == 0u) {
        out.position = p.position + rotate(m.b.xyz, turn(p.yaw, local)) + m.a.xyz;
        out.normal = normalize_or(rotate(m.b.xyz, turn(p.yaw, n_local)), vec3<f32>(0.0, 1.0, 0.0));
    } else if (mode == 1u) {
        let tall = s.y * height;
        let c1 = m.a.xyz * tall;
        let c2 = m.b.xyz * tall;
        let along = 2.0 * h * (1.0 - h) * c1 + h * h * c2;
        let t = normalize_or((2.0 - 4.0 * h) * c1 + 2.0 * h * c2, vec3<f32>(0.0, 1.0, 0.0));
        let side = turn(p.yaw, vec3<f32>(1.0, 0.0, 0.0));
        let front = normalize_or(cross(side, t), turn(p.yaw, vec3<f32>(0.0, 0.0, 1.0)));
        out.position = p.position + along + side * local.x + front * local.z;
        out.normal = normalize_or(side * n_local.x + t * n_local.y + front * n_local.z, front);
    } else {
        let k = m.a.z;
        let w = turn(p.yaw, local);
        out.position = p.position + vec3<f32>(w.x + m.a.x * h * h, w.y * k, w.z + m.a.y * h * h);
        let dy = 2.0 * h / max(height * s.y, 1e-20);
        let ax = m.a.x * dy;
        let az = m.a.y * dy;
        let n = turn(p.yaw, n_local);
        out.normal = normalize_or(vec3<f32>(k * n.x, -ax * n.x + n.y - az * n.z, k * n.z), vec3<f32>(0.0, 1.0, 0.0));
    }
    return out;
}

@vertex
fn vs_main(v: VertexIn, p: PlacementIn, m: MotionIn) -> VsOut {
    let placed = deform(v, p, m);
    let batch = batch_of(m);
    var out: VsOut;
    out.clip = frame.view_proj * vec4<f32>(placed.position, 1.0);
    out.world = placed.position;
    out.normal = placed.normal;
    // drawn opaque: colours multiply, alpha is not used
    let color = srgb_to_linear(v.color.rgb) * srgb_to_linear(p.color.rgb) * batch.tint.rgb;
    out.color = vec4<f32>(color, 1.0);
    out.surface = batch.surface;
    return out;
}

@vertex
fn vs_shadow(v: VertexIn, p: PlacementIn, m: MotionIn) -> @builtin(position) vec4<f32> {
    return frame.light_view_proj * vec4<f32>(deform(v, p, m).position, 1.0);
}
