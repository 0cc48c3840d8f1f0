#!/usr/bin/env python3
"""Part A: isosurface-extraction peers, side by side on this machine.

    python3 scripts/peers/mc_peers.py            # full run: N = 64,128,256, 5 timed runs
    python3 scripts/peers/mc_peers.py --sizes 64 --runs 2 --out-suffix _quick   # smoke test

Peers (each skipped with the reason recorded if it is not installed):
  * scikit-image measure.marching_cubes(field, level=0.0)  (Lewiner, defaults:
    step_size 1, allow_degenerate, also returns normals and values)
  * PyMCubes mcubes.marching_cubes(field, 0.0)
  * VTK vtkFlyingEdges3D (defaults: normals + scalars on; and 'geometry only')
  * VTK vtkMarchingCubes (defaults: normals + scalars on)
  * Rust fast-surface-nets 0.2.1 surface_nets, via scripts/peers/rust-peers (mc_fsn):
    same formulas, f32 field built in Rust; 1-voxel replicated padding, see
    rust-peers/src/bin/mc_fsn.rs. Checksums prove the Rust field is bit-identical.

Timing: field construction and VTK image wrapping are outside the timed region;
one untimed warm-up call per peer, then `--runs` timed calls (Python peers run
round-robin, one call each per pass); median reported. All peers
here run single-threaded (the VTK pip wheel's SMP backend is 'Sequential').
Throughput = N^3 samples / median time.

Field formulas (x, y, z = integer sample indices 0..N-1 as float64; every
expression evaluated in float64 in the order written, then cast to float32;
array layout field[z, y, x] C-order, i.e. linear index x + N*(y + N*z)):

  sphere:  c = (N-1)/2, r = 0.35*N
           f = sqrt((x-c)*(x-c) + (y-c)*(y-c) + (z-c)*(z-c)) - r
           (analytic area 4*pi*r^2)

  terrain: u = 2*pi/N
           A = [0.080, 0.040, 0.020, 0.010]   (amplitudes, fraction of N)
           F = [1.5, 3.1, 6.3, 12.7]          (cycles across the grid)
           P = [0.0, 1.3, 2.9, 4.1]           (x phases)
           Q = [0.7, 2.2, 3.6, 5.3]           (z phases)
           h = 0.40*N;  for o in 0..3:  h = h + (N*A[o]) * sin((F[o]*u)*x + P[o]) * cos((F[o]*u)*z + Q[o])
           g = (0.07*N) * sin(u*(2.7*x + 3.3*y) + 0.5) * cos(u*(2.1*z - 1.7*y) + 1.1)
           f = (y - h) + g
           (negative = solid; |dg/dy| reaches ~2.2 > 1, so f is non-monotonic
           in y: overhangs/arches; the surface meets the x/z grid faces, so the
           mesh is open there)
"""

import argparse
import gc
import math
import json
import subprocess
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import _common as C  # noqa: E402

# Install missing peers (numpy included) before the third-party imports below.
if __name__ == "__main__" and not {"--no-install", "-h", "--help"} & set(sys.argv):
    C.ensure_installed("mc")

import numpy as np


TERRAIN_A = [0.080, 0.040, 0.020, 0.010]
TERRAIN_F = [1.5, 3.1, 6.3, 12.7]
TERRAIN_P = [0.0, 1.3, 2.9, 4.1]
TERRAIN_Q = [0.7, 2.2, 3.6, 5.3]


def field_sphere(N):
    n = float(N)
    c = (n - 1.0) / 2.0
    r = 0.35 * n
    a = np.arange(N, dtype=np.float64)
    dx = (a - c)[None, None, :]
    dy = (a - c)[None, :, None]
    dz = (a - c)[:, None, None]
    f = np.sqrt(dx * dx + dy * dy + dz * dz) - r
    return np.ascontiguousarray(f.astype(np.float32))


def field_terrain(N):
    n = float(N)
    u = 2.0 * math.pi / n
    a = np.arange(N, dtype=np.float64)
    x = a[None, None, :]
    y = a[None, :, None]
    z = a[:, None, None]
    h = np.full((N, 1, N), 0.40 * n)
    for o in range(4):
        fu = TERRAIN_F[o] * u
        h = h + (n * TERRAIN_A[o]) * np.sin(fu * x + TERRAIN_P[o]) * np.cos(fu * z + TERRAIN_Q[o])
    g = (0.07 * n) * np.sin(u * (2.7 * x + 3.3 * y) + 0.5) * np.cos(u * (2.1 * z - 1.7 * y) + 1.1)
    f = (y - h) + g
    return np.ascontiguousarray(f.astype(np.float32))


FIELDS = {"sphere": field_sphere, "terrain": field_terrain}


def field_checksum(f):
    """Same as rust-peers field_checksum: sum bits*(i%65521+1) mod 2^64, and #negatives."""
    bits = f.ravel().view(np.uint32).astype(np.uint64)
    w = (np.arange(bits.size, dtype=np.uint64) % np.uint64(65521)) + np.uint64(1)
    with np.errstate(over="ignore"):
        s = int(np.sum(bits * w, dtype=np.uint64))
    return s, int(np.count_nonzero(f < 0))


def mesh_stats(verts, faces, field_name, N):
    v = np.asarray(verts, dtype=np.float64)
    t = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    area = float(0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum())
    out = {"vertices": int(v.shape[0]), "triangles": int(t.shape[0]), "area": area}
    if field_name == "sphere":
        cc = (N - 1) / 2.0
        r = 0.35 * N
        e = np.abs(np.linalg.norm(v - cc, axis=1) - r)
        exact = 4 * math.pi * r * r
        out.update(area_exact=exact, area_rel_err=(area - exact) / exact,
                   mean_abs_radial_err=float(e.mean()), max_abs_radial_err=float(e.max()))
    return out


# ---------------------------------------------------------------- peers
# Each peer: (name, algorithm, prepare(field) -> ctx [untimed], run(ctx) -> out [timed],
#             extract(out) -> (verts, faces) [untimed])

def peers():
    ps = []
    try:
        from skimage import measure
        ps.append(dict(
            name=f"scikit-image {C.pkg_version('scikit-image')} measure.marching_cubes (lewiner, defaults)",
            algorithm="marching cubes (Lewiner)",
            prepare=lambda f: f,
            run=lambda f: measure.marching_cubes(f, level=0.0),
            extract=lambda o: (o[0], o[1])))
    except Exception as e:  # noqa: BLE001
        ps.append(dict(name="scikit-image", error=repr(e)))
    try:
        import mcubes
        ps.append(dict(
            name=f"PyMCubes {C.pkg_version('PyMCubes') or C.pkg_version('pymcubes')} mcubes.marching_cubes",
            algorithm="marching cubes",
            prepare=lambda f: f,
            run=lambda f: mcubes.marching_cubes(f, 0.0),
            extract=lambda o: (o[0], o[1])))
    except Exception as e:  # noqa: BLE001
        ps.append(dict(name="PyMCubes", error=repr(e)))
    try:
        import vtk
        from vtk.util import numpy_support as ns
        from vtkmodules.vtkCommonCore import vtkSMPTools
        vver = vtk.vtkVersion.GetVTKVersion()
        smp = f"SMP backend {vtkSMPTools.GetBackend()}, {vtkSMPTools.GetEstimatedNumberOfThreads()} thread(s)"

        def vtk_prepare(f):
            N = f.shape[0]
            flat = f.ravel()  # view, x fastest == VTK point order
            arr = ns.numpy_to_vtk(flat, deep=False, array_type=vtk.VTK_FLOAT)
            img = vtk.vtkImageData()
            img.SetDimensions(N, N, N)
            img.GetPointData().SetScalars(arr)
            return (img, flat, arr)  # keep numpy buffer alive

        def vtk_extract(poly):
            pts = ns.vtk_to_numpy(poly.GetPoints().GetData())
            conn = ns.vtk_to_numpy(poly.GetPolys().GetConnectivityArray())
            return pts, conn.reshape(-1, 3)

        def make_run(cls, geometry_only):
            def run(ctx):
                flt = cls()
                flt.SetInputData(ctx[0])
                flt.SetValue(0, 0.0)
                if geometry_only:
                    flt.ComputeNormalsOff()
                    flt.ComputeScalarsOff()
                    flt.ComputeGradientsOff()
                flt.Update()
                return flt.GetOutput()
            return run

        ps.append(dict(name=f"VTK {vver} vtkFlyingEdges3D (defaults: normals+scalars)",
                       algorithm="flying edges", note=smp, prepare=vtk_prepare,
                       run=make_run(vtk.vtkFlyingEdges3D, False), extract=vtk_extract))
        ps.append(dict(name=f"VTK {vver} vtkFlyingEdges3D (geometry only)",
                       algorithm="flying edges", note=smp, prepare=vtk_prepare,
                       run=make_run(vtk.vtkFlyingEdges3D, True), extract=vtk_extract))
        ps.append(dict(name=f"VTK {vver} vtkMarchingCubes (defaults: normals+scalars)",
                       algorithm="marching cubes (classic, point merging)", note=smp,
                       prepare=vtk_prepare, run=make_run(vtk.vtkMarchingCubes, False),
                       extract=vtk_extract))
    except Exception as e:  # noqa: BLE001
        ps.append(dict(name="VTK", error=repr(e)))
    return ps


def time_peers(plist, field, runs):
    """Warm up every peer once (untimed), then `runs` round-robin passes over the
    peers, so drifts in background load hit every peer alike. Returns
    {name: (times, verts, faces)} and {name: error}."""
    ctx, out, times, errors = {}, {}, {}, {}
    for p in plist:
        try:
            ctx[p["name"]] = p["prepare"](field)
            out[p["name"]] = p["run"](ctx[p["name"]])  # warm-up
            times[p["name"]] = []
        except Exception as e:  # noqa: BLE001
            errors[p["name"]] = repr(e)
    live = [p for p in plist if p["name"] in times]
    for _ in range(runs):
        for p in live:
            out[p["name"]] = None
            gc.collect()
            t0 = time.perf_counter()
            r = p["run"](ctx[p["name"]])
            t1 = time.perf_counter()
            times[p["name"]].append(t1 - t0)
            out[p["name"]] = r
    res = {}
    for p in live:
        verts, faces = p["extract"](out[p["name"]])
        res[p["name"]] = (times[p["name"]], verts, faces)
    return res, errors


def run_rust(sizes, fields, runs):
    ok, err = C.build_rust_peers()
    if not ok:
        return [], f"rust-peers build failed: {err}"
    p = subprocess.run([str(C.RUST_BIN / "mc_fsn"), "--sizes", ",".join(map(str, sizes)),
                        "--fields", ",".join(fields), "--runs", str(runs)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return [], f"mc_fsn failed: {p.stderr[-2000:]}"
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")], None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="64,128,256")
    ap.add_argument("--fields", default="sphere,terrain")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-install", action="store_true", help="skip install_peers.sh mc")
    ap.add_argument("--out-suffix", default="", help="write results/mc_peers<suffix>.{md,json}")
    ap.add_argument("--ours", default="", help=(
        "command template for our own implementation, run once per (field, N) with "
        "{field} {n} {runs} substituted (shell words); it must build the field with the "
        "formulas above and print one JSON line with median_s (and optionally times_s, "
        "vertices, triangles, area). Adds a row and a 'x ours' ratio column."))
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    fields = args.fields.split(",")

    env = C.environment()
    rows, failures = [], []
    plist = peers()
    for p in plist:
        if "error" in p:
            failures.append({"peer": p["name"], "error": p["error"]})

    checks = {}
    for fname in fields:
        for N in sizes:
            t0 = time.perf_counter()
            field = FIELDS[fname](N)
            build_s = time.perf_counter() - t0
            cs, neg = field_checksum(field)
            checks[(fname, N)] = (cs, neg)
            print(f"[mc] field {fname} N={N}: built in {build_s:.2f}s, {neg} negative samples", file=sys.stderr)
            live = [p for p in plist if "error" not in p]
            timed, errors = time_peers(live, field, args.runs)
            for name, e in errors.items():
                failures.append({"peer": name, "field": fname, "n": N, "error": e})
            for p in live:
                if p["name"] not in timed:
                    continue
                times, verts, faces = timed[p["name"]]
                med = C.median(times)
                row = {"peer": p["name"], "algorithm": p["algorithm"], "field": fname, "n": N,
                       "times_s": times, "median_s": med, "min_s": min(times), "max_s": max(times),
                       "mvox_per_s": N ** 3 / med / 1e6, "field_build_s": build_s}
                if "note" in p:
                    row["note"] = p["note"]
                row.update(mesh_stats(verts, faces, fname, N))
                rows.append(row)
                print(f"[mc]   {p['name']}: {med*1e3:.2f} ms, {row['triangles']} tris", file=sys.stderr)
            del field
            gc.collect()

    print("[mc] rust-peers mc_fsn (fast-surface-nets)", file=sys.stderr)
    rust_rows, rust_err = run_rust(sizes, fields, args.runs)
    if rust_err:
        failures.append({"peer": "fast-surface-nets (rust-peers/mc_fsn)", "error": rust_err})
    for r in rust_rows:
        N, fname = r["n"], r["field"]
        cs, neg = checks[(fname, N)]
        r["field_identical_to_python"] = (r["field_checksum"] == cs and r["field_neg"] == neg)
        r["min_s"], r["max_s"] = min(r["times_s"]), max(r["times_s"])
        r["mvox_per_s"] = N ** 3 / r["median_s"] / 1e6
        if fname == "sphere":
            rr = 0.35 * N
            r["area_exact"] = 4 * math.pi * rr * rr
            r["area_rel_err"] = (r["area"] - r["area_exact"]) / r["area_exact"]
        r["field_checksum"] = str(r["field_checksum"])
        rows.append(r)

    if args.ours:
        import shlex
        for fname in fields:
            for N in sizes:
                cmd = [w.format(field=fname, n=N, runs=args.runs) for w in shlex.split(args.ours)]
                pr = subprocess.run(cmd, capture_output=True, text=True)
                lines_ = [ln for ln in pr.stdout.splitlines() if ln.startswith("{")]
                if pr.returncode != 0 or not lines_:
                    failures.append({"peer": "ours", "field": fname, "n": N,
                                     "error": (pr.stderr or pr.stdout)[-1500:]})
                    continue
                o = json.loads(lines_[-1])
                times = o.get("times_s", [o["median_s"]])
                row = {"peer": "ours: " + args.ours, "algorithm": o.get("algorithm", "ours"),
                       "field": fname, "n": N, "times_s": times, "median_s": o["median_s"],
                       "min_s": min(times), "max_s": max(times), "mvox_per_s": N ** 3 / o["median_s"] / 1e6,
                       "vertices": o.get("vertices"), "triangles": o.get("triangles"), "area": o.get("area"),
                       "mean_abs_radial_err": o.get("mean_abs_radial_err")}
                if fname == "sphere" and o.get("area") is not None:
                    rr = 0.35 * N
                    row["area_exact"] = 4 * math.pi * rr * rr
                    row["area_rel_err"] = (o["area"] - row["area_exact"]) / row["area_exact"]
                row["is_ours"] = True
                rows.append(row)
        for r in rows:
            mine = [o for o in rows if o.get("is_ours") and o["field"] == r["field"] and o["n"] == r["n"]]
            if mine:
                r["time_ratio_vs_ours"] = r["median_s"] / mine[0]["median_s"]

    env["loadavg_at_end"] = list(__import__("os").getloadavg())
    env["versions"] = {k: C.pkg_version(k) for k in ("numpy", "scikit-image", "PyMCubes", "vtk")}
    result = {"benchmark": "mc_peers", "environment": env, "runs": args.runs,
              "timing": "median of `runs` timed calls after 1 untimed warm-up; field build excluded; Python peers interleaved round-robin",
              "throughput": "N^3 samples / median wall time",
              "field_formulas": __doc__[__doc__.index("Field formulas"):].strip(),
              "rows": rows, "failures": failures}
    stem = f"mc_peers{args.out_suffix}"
    C.write_json(C.RESULTS / f"{stem}.json", result)
    (C.RESULTS / f"{stem}.md").write_text(render_md(result, sizes, fields))
    print(f"[mc] wrote {C.RESULTS / (stem + '.md')}", file=sys.stderr)


def render_md(res, sizes, fields):
    env = res["environment"]
    lines = ["# Isosurface extraction peers (scripts/peers/mc_peers.py)", "",
             C.env_md(env) + f" Load average at end {env['loadavg_at_end'][0]:.2f}.", "",
             f"Wall time = median of {res['runs']} timed calls after one untimed warm-up, field "
             "construction excluded, single-threaded. Mvox/s = N^3 / median. Spread = max/min over "
             "the timed calls. Sphere correctness: mesh area vs 4*pi*r^2 (signed relative error) and "
             "mean |distance from centre - r| of the vertices, in voxels.", ""]
    for fname in fields:
        lines.append(f"## {fname}")
        lines.append("")
        ours = any("time_ratio_vs_ours" in r for r in res["rows"])
        hdr = ["N", "peer", "median ms", "spread", "Mvox/s"] + (["x ours"] if ours else []) \
            + ["triangles", "vertices"]
        if fname == "sphere":
            hdr += ["area rel. err", "mean radial err (vox)"]
        else:
            hdr += ["area (vox^2)"]
        body = []
        for N in sizes:
            rs = [r for r in res["rows"] if r["field"] == fname and r["n"] == N]
            rs.sort(key=lambda r: r["median_s"])
            for r in rs:
                row = [N, r["peer"], f"{r['median_s']*1e3:.2f}", f"{r['max_s']/r['min_s']:.2f}",
                       f"{r['mvox_per_s']:.1f}"]
                if ours:
                    x = r.get("time_ratio_vs_ours")
                    row.append(f"{x:.2f}" if x is not None else "")
                row += [r["triangles"], r["vertices"]]
                if fname == "sphere":
                    e, m = r.get("area_rel_err"), r.get("mean_abs_radial_err")
                    row += [f"{e*100:+.3f}%" if e is not None else "",
                            f"{m:.4f}" if m is not None else ""]
                else:
                    row += [f"{r['area']:.0f}" if r.get("area") is not None else ""]
                body.append(row)
        lines.append(C.md_table(hdr, body))
        lines.append("")
    rust = [r for r in res["rows"] if "field_identical_to_python" in r]
    if rust:
        same = all(r["field_identical_to_python"] for r in rust)
        lines.append("Rust field check: the f32 fields built in Rust are "
                     + ("bit-identical to the numpy ones (checksum + negative count) for every N."
                        if same else "NOT bit-identical to the numpy ones for some N (see JSON)."))
        naive = [(r["n"], r["triangles"], r["naive_unpadded_triangles"]) for r in rust
                 if r["field"] == "terrain" and "fresh" in r["peer"]]
        if naive:
            lines.append("fast-surface-nets padding: called naively on the unpadded N^3 terrain "
                         "(min=0, max=N-1) it drops the faces at the grid border: "
                         + ", ".join(f"N={n}: {a} -> {b} triangles" for n, a, b in naive)
                         + ". The table uses the (N+2)^3 replicated-border chunk, min=0, max=N+1.")
        lines.append("")
    if res["failures"]:
        lines.append("## Failures")
        for f in res["failures"]:
            lines.append(f"- {f.get('peer')}: {f.get('error')}")
        lines.append("")
    lines.append("Field formulas: see the docstring of scripts/peers/mc_peers.py (also in the JSON).")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
