//! `simreel mesh`: a terrain scene's surface at one frame as a PLY or OBJ file.

use simreel::text::count;

use super::BadInput;

pub fn run(path: &std::path::Path, out: &std::path::Path, frame: u32, algorithm: Option<&str>) -> anyhow::Result<()> {
    let mut s = super::load_checked(path)?;
    if let (Some(name), simreel::scene::KindSpec::Terrain(t)) = (algorithm, &mut s.sim.kind) {
        t.algorithm = simreel::scene::terrain::Algorithm::from_name(name)
            .ok_or_else(|| BadInput(format!("--algorithm {name}: one of {}", simreel::scene::terrain::Algorithm::NAMES.join(", "))))?;
    }
    if frame >= s.frames() {
        return Err(BadInput(format!("--frame {frame} is past the scene's last frame {}", s.frames() - 1)).into());
    }
    let Some(mut terrain) = simreel::kinds::Played::<simreel::sim::terrain::TerrainSim>::of(&s) else {
        return Err(BadInput(format!("{} is a {} scene; `mesh` exports terrain meshes", path.display(), s.kind_name())).into());
    };
    terrain.sim.mesh_at(frame);
    // in the colours the scene draws it with
    let m = terrain.painter.colored(&terrain.sim);
    let ext = out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let bytes = match ext.as_deref() {
        Some("ply") => simreel::output::mesh_file::ply(&m.data),
        Some("obj") => simreel::output::mesh_file::obj(&m.data),
        _ => return Err(BadInput(format!("{}: use a .ply or .obj file name", out.display())).into()),
    };
    simreel::output::write_atomic(out, &bytes)?;
    let algorithm = match &s.sim.kind {
        simreel::scene::KindSpec::Terrain(t) => t.algorithm.name(),
        _ => "",
    };
    // what a slicer or a physics engine will find (a `closed = false` block is open at its sides)
    let topology = simreel::sim::terrain::topology::Topology::of(&m.data.positions, &m.data.indices);
    eprintln!(
        "wrote {} ({}, {}, frame {frame}, {algorithm}): {topology}",
        out.display(),
        count(m.data.positions.len() as u64, "vertex", "vertices"),
        count((m.data.indices.len() / 3) as u64, "triangle", "triangles")
    );
    Ok(())
}
