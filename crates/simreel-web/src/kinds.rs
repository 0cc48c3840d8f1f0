//! The kinds this player plays: one feature of the crate each, every kind by default. A player of
//! fewer (`scripts/build-web --kinds dice`) builds its scenes from their simulations alone
//! ([`simreel::kinds::alone`]), so its WebAssembly carries no other kind's simulation or painter.

use simreel::scene::Scene;
use simreel::sim::Player;

macro_rules! played {
    ($($feature:literal => $sim:ty),* $(,)?) => {
        /// The kinds compiled in, as the scene files name them.
        pub const KINDS: &[&str] = &[$(#[cfg(feature = $feature)] $feature),*];

        /// The player of `scene`, when this build plays its kind.
        pub fn build(scene: &Scene) -> Option<Player> {
            $(#[cfg(feature = $feature)]
            if let Some(player) = simreel::kinds::alone::<$sim>(scene) {
                return Some(player);
            })*
            let _ = scene;
            None
        }

        /// A new painter with `scene`'s look for `player` (built by [`build`]).
        pub fn repaint(player: &mut Player, scene: &Scene) {
            $(#[cfg(feature = $feature)]
            if simreel::kinds::repaint_alone::<$sim>(player, scene) {
                return;
            })*
            let _ = (player, scene);
        }

        /// `simreel-kinds:` and a letter a kind, in this order, `-` where it is left out: found in
        /// the wasm by `simreel embed`, which refuses a scene its player cannot play.
        pub static MARK: [u8; 19] = {
            let mut mark = *b"simreel-kinds:-----";
            let mut i = 14;
            $(
                if cfg!(feature = $feature) {
                    mark[i] = $feature.as_bytes()[0];
                }
                i += 1;
            )*
            let _ = i;
            mark
        };
    };
}

played! {
    "terrain" => simreel::sim::terrain::TerrainSim,
    "flock" => simreel::sim::flock::FlockSim,
    "dice" => simreel::sim::dice::DiceSim,
    "wind" => simreel::sim::wind::WindSim,
    "cargo" => simreel::sim::cargo::CargoSim,
}

/// The mark as text (the page may ask; the wasm keeps the bytes because this reads them).
pub fn mark() -> &'static str {
    std::str::from_utf8(&MARK).unwrap_or("simreel-kinds:?")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Built with every kind (the default) or with some (`--no-default-features --features
    /// flock`, as scripts/test also builds it): a scene opens exactly when its kind is compiled in,
    /// and is refused with the kinds that are.
    #[test]
    fn a_scene_opens_exactly_when_its_kind_is_compiled_in() {
        for kind in ["terrain", "flock", "dice", "wind", "cargo"] {
            let text = format!("kind = \"{kind}\"\n[render]\nwidth = 64\nheight = 48\nframes = 3\n");
            match crate::session::Session::open(&text, "k.toml") {
                Ok(mut s) => {
                    assert!(KINDS.contains(&kind), "{kind} opened, not compiled in");
                    assert_eq!(s.seek(2).index, 2);
                }
                Err(e) => {
                    assert!(!KINDS.contains(&kind), "{kind}: {e}");
                    let says = format!("k.toml: a {kind} scene, and this player plays {} only", KINDS.join(", "));
                    assert!(e.starts_with(&says), "{e}");
                }
            }
        }
    }

    #[test]
    fn the_mark_names_the_kinds_compiled_in() {
        let letters: String = ["terrain", "flock", "dice", "wind", "cargo"]
            .iter()
            .map(|k| if KINDS.contains(k) { k.chars().next().unwrap() } else { '-' })
            .collect();
        assert_eq!(mark(), format!("simreel-kinds:{letters}"));
    }
}
