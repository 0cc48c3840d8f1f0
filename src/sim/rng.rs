//! The seeded random generator every simulation draws from: SplitMix64 (Steele et al. 2014), chosen
//! for being tiny, fast and fully specified here, so a seed means the same numbers on every
//! platform and every version.
//!
//! It implements `rand_core`'s `TryRng` (infallible, so also its `Rng` and the deprecated `RngCore`
//! alias) and `SeedableRng`, so simulation code can take any `rand_core` generator and use the
//! `rand` ecosystem's distributions; the values are the stream's own (`next_u64` is the SplitMix64
//! output, `next_u32` its high half, `seed_from_u64(s)` is `Rng::new(s)`), so nothing a scene draws
//! changes.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The generator's whole state: `Rng::new(r.state())` draws what `r` would.
    pub fn state(&self) -> u64 {
        self.0
    }

    /// An independent stream derived from this seed and a label (e.g. a subsystem's name).
    pub fn stream(seed: u64, label: &str) -> Self {
        Rng(seed ^ crate::frame::Fnv::hash(label.as_bytes()))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        // Lemire's multiply-shift; the tiny bias at 2^64 / n is irrelevant for simulation draws.
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

impl rand_core::TryRng for Rng {
    type Error = rand_core::Infallible;

    /// The high 32 bits of the next 64-bit output (the better half of most generators, and the
    /// convention of `rand`'s 64-bit generators).
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((Rng::next_u64(self) >> 32) as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(Rng::next_u64(self))
    }

    /// Little-endian bytes of successive outputs; a final partial word is cut short.
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        rand_core::utils::fill_bytes_via_next_word(dst, || Ok(Rng::next_u64(self)))
    }
}

impl rand_core::SeedableRng for Rng {
    /// The 64-bit state, little-endian.
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Self {
        Rng::new(u64::from_le_bytes(seed))
    }

    /// The same stream as [`Rng::new`] (not `rand_core`'s default, which would first scramble the
    /// seed through PCG32): a scene's seed means what it always meant.
    fn seed_from_u64(state: u64) -> Self {
        Rng::new(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_streams_differ() {
        let a: Vec<u64> = (0..4).scan(Rng::new(1), |r, _| Some(r.next_u64())).collect();
        let b: Vec<u64> = (0..4).scan(Rng::new(1), |r, _| Some(r.next_u64())).collect();
        assert_eq!(a, b);
        assert_ne!(Rng::stream(1, "a").next_u64(), Rng::stream(1, "b").next_u64());
        let mut r = Rng::new(9);
        for _ in 0..1000 {
            let u = r.unit();
            assert!((0.0..1.0).contains(&u));
            assert!(r.below(7) < 7);
        }
    }

    #[test]
    fn splitmix_reference_values() {
        // First outputs of SplitMix64 seeded with 0 (the published reference sequence).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn the_rand_core_traits_draw_the_streams_own_values() {
        use rand_core::SeedableRng as _;
        // generic code over rand_core's trait sees exactly the inherent stream
        fn draw_through_trait<R: rand_core::Rng>(r: &mut R) -> [u64; 3] {
            [r.next_u64(), r.next_u64(), r.next_u64()]
        }
        let mut own = Rng::new(42);
        let expected = [own.next_u64(), own.next_u64(), own.next_u64()];
        assert_eq!(draw_through_trait(&mut Rng::new(42)), expected);
        assert_eq!(draw_through_trait(&mut <Rng as rand_core::SeedableRng>::seed_from_u64(42)), expected);
        assert_eq!(draw_through_trait(&mut Rng::from_seed(42u64.to_le_bytes())), expected);
        // a labelled stream too, as the simulations seed them
        let (mut a, mut b) = (Rng::stream(7, "dice.throws"), Rng::stream(7, "dice.throws"));
        assert_eq!(rand_core::Rng::next_u64(&mut a), b.next_u64());
        // u32: the high half of one draw; bytes: little-endian words, the last one cut short
        let mut r = Rng::new(5);
        let mut s = Rng::new(5);
        assert_eq!(rand_core::Rng::next_u32(&mut r), (s.next_u64() >> 32) as u32);
        let mut bytes = [0u8; 12];
        rand_core::Rng::fill_bytes(&mut r, &mut bytes);
        let (w1, w2) = (s.next_u64().to_le_bytes(), s.next_u64().to_le_bytes());
        assert_eq!(bytes[..8], w1);
        assert_eq!(bytes[8..], w2[..4]);
        assert_eq!(r, s, "both consumed two words");
    }
}
