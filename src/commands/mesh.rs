//! `simreel mesh`: a terrain scene's surface at one frame as a PLY or OBJ file.

use simreel::output::mesh_file::MeshFormat;
use simreel::scene::terrain::Algorithm;
use simreel::text::count;

use super::BadInput;

pub fn run(path: &std::path::Path, out: &std::path::Path, frame: u32, algorithm: Option<Algorithm>) -> anyhow::Result<()> {
    let format = MeshFormat::of(out).ok_or_else(|| BadInput(format!("{}: use a .ply or .obj file name", out.display())))?;
    let mut s = super::load_checked(path)?;
    if let (Some(algorithm), simreel::scene::KindSpec::Terrain(t)) = (algorithm, &mut s.sim.kind) {
        t.algorithm = algorithm;
    }
    if frame >= s.frames() {
        return Err(BadInput(format!("--frame {frame} is past the scene's last frame {}", s.frames() - 1)).into());
    }
    let Some(mut terrain) = simreel::kinds::Played::<simreel::sim::terrain::TerrainSim>::of(&s) else {
        return Err(BadInput(format!("{} is a {} scene; `mesh` exports terrain meshes", path.display(), s.kind_name())).into());
    };
    let surface = terrain.painter.surface_at(&mut terrain.sim, frame);
    simreel::output::write_atomic(out, &format.encode(&surface.mesh.data))?;
    eprintln!(
        "wrote {} ({}, {}, frame {frame}, {}): {}",
        out.display(),
        count(surface.mesh.data.positions.len() as u64, "vertex", "vertices"),
        count((surface.mesh.data.indices.len() / 3) as u64, "triangle", "triangles"),
        surface.algorithm.name(),
        surface.topology
    );
    Ok(())
}
