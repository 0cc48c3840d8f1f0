//! What a scene's frames are, as two hashes made from the typed scene itself: the simulation's
//! part (everything its constructor receives: seed, timing, the kind's simulation spec) and the
//! drawing's part (size, samples, background, camera, light, the kind's look). Each is a
//! canonical hash of the whole value — every field, defaults included, a figure's panels and the
//! contents of its data files with it — so a value cannot reach a frame without reaching its
//! identity, and two files that read to the same values (other whitespace, key order, `1_000` for
//! `1000`) are the same scene. Keys that change no frame (`name`, `description`, `[output]`,
//! `[golden]`) are in neither part.

use serde::Serialize;

use crate::frame::Fnv;

/// The identity of a scene's frames: its simulation's and its drawing's hashes. With the build
/// (`crate::BUILD`) beside it, it names what a saved state, a kept frame, a shard or a cached
/// frame was made from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct Identity {
    /// Of the simulation's part: a change here means simulating again.
    #[serde(with = "hex")]
    pub simulation: u64,
    /// Of the drawing's part: a change here means drawing again from the same states.
    #[serde(with = "hex")]
    pub drawing: u64,
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}-{:016x}", self.simulation, self.drawing)
    }
}

/// The canonical hash of `value`: FNV-1a over its postcard encoding (fields in declaration order,
/// numbers by their bits, lengths before lists, enum variants by index), so it depends on the
/// value and this build's types, never on how a file wrote it.
pub fn hash<T: Serialize + ?Sized>(value: &T) -> u64 {
    let sink = postcard::to_extend(value, Sink(Fnv::new())).expect("a scene's values encode");
    sink.0.finish()
}

/// The hash of several hashes in order (a figure's own part and its panels').
pub fn combine(parts: impl IntoIterator<Item = u64>) -> u64 {
    let mut h = Fnv::new();
    for p in parts {
        h.bytes(&p.to_le_bytes());
    }
    h.finish()
}

/// Feeds encoded bytes straight into the hash, without a buffer.
struct Sink(Fnv);

impl Extend<u8> for Sink {
    fn extend<I: IntoIterator<Item = u8>>(&mut self, bytes: I) {
        for b in bytes {
            self.0.bytes(&[b]);
        }
    }
}

/// Hashes as 16 hex digits in JSON (manifests, the studio's stamps).
pub mod hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:016x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        let text = String::deserialize(d)?;
        u64::from_str_radix(&text, 16).map_err(|_| serde::de::Error::custom(format!("\"{text}\" is not 16 hex digits")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Two {
        a: f64,
        b: Vec<u32>,
    }

    #[test]
    fn the_hash_follows_every_bit_of_the_value_and_nothing_else() {
        let base = hash(&Two { a: 1.0, b: vec![1, 2] });
        assert_eq!(base, hash(&Two { a: 1.0, b: vec![1, 2] }));
        assert_ne!(base, hash(&Two { a: f64::from_bits(1.0f64.to_bits() + 1), b: vec![1, 2] }));
        assert_ne!(base, hash(&Two { a: 1.0, b: vec![1, 2, 0] }), "a list's length counts");
        assert_ne!(base, hash(&Two { a: 1.0, b: vec![2, 1] }), "a list's order counts");
        assert_ne!(hash(&0.0f64), hash(&-0.0f64));
        assert_ne!(combine([1, 2]), combine([2, 1]));
    }

    #[test]
    fn an_identity_reads_back_from_its_json() {
        let id = Identity { simulation: 0x0123_4567_89ab_cdef, drawing: 7 };
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, r#"{"simulation":"0123456789abcdef","drawing":"0000000000000007"}"#);
        assert_eq!(serde_json::from_str::<Identity>(&json).unwrap(), id);
        assert!(serde_json::from_str::<Identity>(r#"{"simulation":"xyz","drawing":"0"}"#).is_err());
    }
}
