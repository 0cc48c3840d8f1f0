//! What a scene's frames depend on, in two parts, as the key declarations file each key
//! ([`Effect`]): the simulation's inputs, whose change means simulating again, and the drawing's,
//! whose change means only drawing again (a camera, a light, a colour). Keys that change no frame
//! (`name`, `[output]`, `[golden]`) are in neither. Each part is a hash of the keys' values, not of
//! the text, so whitespace, comments and the order of keys change neither: an edit that changes
//! nothing redoes nothing.

use toml::de::{DeTable, DeValue};

use super::keys::{Effect, Table, Ty};
use crate::frame::Fnv;

/// Hashes of what the simulation and the drawing of a scene depend on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fingerprint {
    pub simulation: u64,
    pub drawing: u64,
}

/// The fingerprint of a scene file's document, read through the declarations of `root`.
pub fn of(doc: &DeTable, root: &Table) -> Fingerprint {
    let mut parts = Parts { simulation: Fnv::new(), drawing: Fnv::new() };
    table(doc, root, "", Effect::Simulation, &mut parts);
    Fingerprint { simulation: parts.simulation.finish(), drawing: parts.drawing.finish() }
}

/// `fp` with another scene's (a figure's panel) folded in.
pub fn fold(fp: Fingerprint, other: Fingerprint) -> Fingerprint {
    let mix = |a: u64, b: u64| {
        let mut h = Fnv::new();
        h.bytes(&a.to_le_bytes());
        h.bytes(&b.to_le_bytes());
        h.finish()
    };
    Fingerprint { simulation: mix(fp.simulation, other.simulation), drawing: mix(fp.drawing, other.drawing) }
}

struct Parts {
    simulation: Fnv,
    drawing: Fnv,
}

impl Parts {
    fn of(&mut self, effect: Effect) -> Option<&mut Fnv> {
        match effect {
            Effect::Simulation => Some(&mut self.simulation),
            Effect::Drawing => Some(&mut self.drawing),
            Effect::Output => None,
        }
    }
}

/// Every key of `t` in name order, each filed by its declaration; a key inside a table that only
/// draws (or changes no frame) is filed with its table.
fn table(t: &DeTable, decl: &Table, path: &str, within: Effect, parts: &mut Parts) {
    let mut entries: Vec<(&str, &DeValue)> = t.iter().map(|(k, v)| (k.get_ref().as_ref(), v.get_ref())).collect();
    entries.sort_unstable_by_key(|(k, _)| *k);
    for (name, value) in entries {
        let key = decl.key(name);
        let effect = match (within, key) {
            (Effect::Simulation, Some(k)) => k.effect,
            // an undeclared key makes the scene invalid; as an input it is the simulation's
            (Effect::Simulation, None) => Effect::Simulation,
            (outer, _) => outer,
        };
        let here = if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
        match (key.map(|k| k.ty), value) {
            (Some(Ty::Table(sub)), DeValue::Table(inner)) => table(inner, sub, &here, effect, parts),
            (Some(Ty::Tables(sub)), DeValue::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    match item.get_ref() {
                        DeValue::Table(inner) => table(inner, sub, &format!("{here}[{i}]"), effect, parts),
                        other => leaf(&format!("{here}[{i}]"), other, effect, parts),
                    }
                }
            }
            _ => leaf(&here, value, effect, parts),
        }
    }
}

fn leaf(path: &str, value: &DeValue, effect: Effect, parts: &mut Parts) {
    if let Some(h) = parts.of(effect) {
        h.bytes(path.as_bytes());
        h.bytes(&[0]);
        value_into(value, h);
    }
}

/// A value by what it means: numbers by value (`1_000` is `1000`), tables in key order.
fn value_into(v: &DeValue, h: &mut Fnv) {
    match v {
        DeValue::String(s) => {
            h.bytes(b"s");
            h.bytes(&(s.len() as u64).to_le_bytes());
            h.bytes(s.as_bytes());
        }
        DeValue::Integer(i) => match super::reader::integer(i.as_str(), i.radix()) {
            Some(n) => {
                h.bytes(b"i");
                h.bytes(&n.to_le_bytes());
            }
            None => h.bytes(i.as_str().as_bytes()),
        },
        DeValue::Float(f) => match f.as_str().replace('_', "").parse::<f64>() {
            Ok(x) => {
                h.bytes(b"f");
                h.bytes(&x.to_bits().to_le_bytes());
            }
            Err(_) => h.bytes(f.as_str().as_bytes()),
        },
        DeValue::Boolean(b) => h.bytes(&[b'b', *b as u8]),
        DeValue::Datetime(d) => h.bytes(d.to_string().as_bytes()),
        DeValue::Array(items) => {
            h.bytes(b"[");
            h.bytes(&(items.len() as u64).to_le_bytes());
            for item in items {
                value_into(item.get_ref(), h);
            }
        }
        DeValue::Table(t) => {
            let mut entries: Vec<(&str, &DeValue)> = t.iter().map(|(k, v)| (k.get_ref().as_ref(), v.get_ref())).collect();
            entries.sort_unstable_by_key(|(k, _)| *k);
            h.bytes(b"{");
            h.bytes(&(entries.len() as u64).to_le_bytes());
            for (k, v) in entries {
                h.bytes(k.as_bytes());
                h.bytes(&[0]);
                value_into(v, h);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn fp(text: &str) -> super::Fingerprint {
        crate::scene::parse(text, Path::new("f.toml")).unwrap_or_else(|e| panic!("{e}")).fingerprint
    }

    const BASE: &str = "kind = \"terrain\"\nseed = 3\n[render]\nwidth = 320\nheight = 200\nframes = 10\n[camera]\nposition = [6, 4, 8]\n[terrain]\nresolution = 16\niso = 0.1\n";

    #[test]
    fn layout_comments_and_key_order_change_nothing() {
        let moved = "# a comment\nseed = 3\nkind = \"terrain\"\n\n[terrain]\niso = 0.1   # here\nresolution = 16\n[camera]\nposition = [6, 4, 8]\n[render]\nframes = 10\nheight = 200\nwidth = 320\n";
        assert_eq!(fp(BASE), fp(moved));
        assert_eq!(fp(BASE), fp(&BASE.replace("iso = 0.1", "iso = 1e-1")));
    }

    #[test]
    fn a_drawing_edit_keeps_the_simulation_and_a_simulation_edit_changes_it() {
        let base = fp(BASE);
        for drawing in [
            BASE.replace("[6, 4, 8]", "[6, 5, 8]"),
            BASE.replace("width = 320", "width = 320\nmsaa = 1"),
            format!("{BASE}[light]\nfog = 0.1\n"),
        ] {
            let f = fp(&drawing);
            assert_eq!(f.simulation, base.simulation, "{drawing}");
            assert_ne!(f.drawing, base.drawing, "{drawing}");
        }
        // the size is the canvas of a flock that names none: an input, for every kind
        for simulation in [
            BASE.replace("seed = 3", "seed = 4"),
            BASE.replace("iso = 0.1", "iso = 0.2"),
            BASE.replace("frames = 10", "frames = 11"),
            BASE.replace("width = 320", "width = 640"),
        ] {
            assert_ne!(fp(&simulation).simulation, base.simulation, "{simulation}");
        }
        // what changes no frame changes neither part
        let named = fp(&format!("name = \"other\"\ndescription = \"x\"\n{BASE}[output]\nformats = [\"png\"]\n"));
        assert_eq!(named, base);
    }
}
