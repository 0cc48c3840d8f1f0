//! A simulation's state as bytes ([`crate::sim::Simulation::snapshot`]), so a shard of a split
//! render, or a later render of the same scene, starts from the nearest saved frame instead of
//! replaying the simulation from the start. Little-endian, every float by its bits, so a
//! restored state carries on bit for bit.

/// Appends values to a snapshot.
#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    pub fn new() -> Self {
        Writer::default()
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn f32(&mut self, v: f32) -> &mut Self {
        self.u32(v.to_bits())
    }

    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.u64(v.to_bits())
    }

    pub fn f32s(&mut self, v: &[f32]) -> &mut Self {
        for &x in v {
            self.f32(x);
        }
        self
    }

    pub fn f64s(&mut self, v: &[f64]) -> &mut Self {
        for &x in v {
            self.f64(x);
        }
        self
    }

    /// A flag, as a word (0 or 1).
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u32(v as u32)
    }

    /// A length, written before a list's items.
    pub fn count(&mut self, n: usize) -> &mut Self {
        self.u64(n as u64)
    }

    /// Bytes (another snapshot), after their length.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.count(v.len());
        self.0.extend_from_slice(v);
        self
    }

    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// The largest magnitude a number in a saved state may have. No state of a simulation that has
/// not faulted comes near it (positions in metres or pixels, angles, speeds, times in seconds),
/// and a snapshot is untrusted input: refusing one only costs simulating from the start, while
/// taking a hostile one could make a step loop or allocate without end.
pub const BOUND: f64 = 1e12;

/// Reads a snapshot back in the order it was written; `None` once the bytes run out, and for
/// any float that is not finite or beyond [`BOUND`] (read those few that may be infinite with
/// [`Reader::f64_any`] and check them).
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes }
    }

    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.bytes.split_first_chunk::<N>()?;
        self.bytes = rest;
        Some(*head)
    }

    pub fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }

    pub fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }

    /// A float within [`BOUND`].
    pub fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits).filter(|x| x.abs() as f64 <= BOUND)
    }

    /// A float within [`BOUND`].
    pub fn f64(&mut self) -> Option<f64> {
        self.f64_any().filter(|x| x.abs() <= BOUND)
    }

    /// Any double, infinities and NaN included: for a value that may be infinite (a time that
    /// has not come yet), which the caller checks itself.
    pub fn f64_any(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }

    pub fn f32s<const N: usize>(&mut self) -> Option<[f32; N]> {
        let mut out = [0.0; N];
        for x in &mut out {
            *x = self.f32()?;
        }
        Some(out)
    }

    pub fn f64s<const N: usize>(&mut self) -> Option<[f64; N]> {
        let mut out = [0.0; N];
        for x in &mut out {
            *x = self.f64()?;
        }
        Some(out)
    }

    /// A flag written by [`Writer::bool`]; `None` for a word other than 0 or 1.
    pub fn bool(&mut self) -> Option<bool> {
        match self.u32()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// A list's length, refused when the rest of the bytes cannot hold that many items of
    /// `item_bytes` (so a damaged length never allocates wildly).
    pub fn count(&mut self, item_bytes: usize) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        (n.checked_mul(item_bytes)? <= self.bytes.len()).then_some(n)
    }

    /// Bytes written by [`Writer::bytes`].
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.count(1)?;
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Some(head)
    }

    /// Whether every byte was read.
    pub fn done(&self) -> bool {
        self.bytes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_bit_for_bit_and_short_input_is_refused() {
        let mut w = Writer::new();
        w.u32(7).u64(u64::MAX - 3).f32(-0.0).f64(f64::MIN_POSITIVE / 3.0).count(2).f32s(&[1.5, 2.5]);
        let bytes = w.finish();
        let mut r = Reader::new(&bytes);
        assert_eq!(r.u32(), Some(7));
        assert_eq!(r.u64(), Some(u64::MAX - 3));
        assert_eq!(r.f32().map(f32::to_bits), Some((-0.0f32).to_bits()));
        assert_eq!(r.f64(), Some(f64::MIN_POSITIVE / 3.0));
        assert_eq!(r.count(4), Some(2));
        assert_eq!(r.f32s::<2>(), Some([1.5, 2.5]));
        assert!(r.done());
        assert_eq!(r.u32(), None);
        // a length the bytes cannot hold
        let mut w = Writer::new();
        w.count(1 << 40).u32(1);
        assert_eq!(Reader::new(&w.finish()).count(4), None);
        assert_eq!(Reader::new(&bytes[..3]).u32(), None);
    }

    #[test]
    fn numbers_that_are_not_finite_or_beyond_the_bound_are_refused_unless_asked_for() {
        let mut w = Writer::new();
        w.f64(f64::NAN).f64(f64::NEG_INFINITY).f64(3.4e38).f64(-BOUND).f32(f32::INFINITY).f32(f32::MAX).f32(-1e9);
        let bytes = w.finish();
        let mut r = Reader::new(&bytes);
        assert_eq!((r.f64(), r.f64(), r.f64(), r.f64()), (None, None, None, Some(-BOUND)));
        assert_eq!((r.f32(), r.f32(), r.f32()), (None, None, Some(-1e9)));
        let mut r = Reader::new(&bytes);
        assert!(r.f64_any().is_some_and(f64::is_nan));
        assert_eq!(r.f64_any(), Some(f64::NEG_INFINITY));
    }
}
