//! `simreel schema`: the JSON Schema of scene files (all kinds, or one), or the scene reference.

use simreel::scene;

use super::BadInput;

/// The schema of `kind`'s scene files (every kind's when none) on stdout, or the reference.
pub fn run(kind: Option<&'static str>, reference: bool) -> anyhow::Result<()> {
    if reference {
        print!("{}", scene::schema::reference());
        return Ok(());
    }
    let schema = scene::schema::json_schema(kind)
        .ok_or_else(|| BadInput(format!("--kind {}: one of {}", kind.unwrap_or_default(), scene::KINDS.join(", "))))?;
    println!("{}", serde_json::to_string_pretty(&schema).expect("a schema serialises"));
    Ok(())
}
