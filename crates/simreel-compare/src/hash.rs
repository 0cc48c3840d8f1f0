//! SHA-256 (FIPS 180-4), to record what a comparison saw, and base64 (RFC 4648), to embed
//! pictures in the report page: small enough to write here rather than pull in crates for.

const K: [u32; 64] = {
    // the first 32 bits of the fractional parts of the cube roots of the first 64 primes
    let mut k = [0u32; 64];
    let mut found = 0;
    let mut n = 2u64;
    while found < 64 {
        let mut d = 2;
        let mut prime = true;
        while d * d <= n {
            if n.is_multiple_of(d) {
                prime = false;
            }
            d += 1;
        }
        if prime {
            k[found] = frac_bits(n, 3);
            found += 1;
        }
        n += 1;
    }
    k
};

/// The first 32 bits of the fractional part of `n`'s square (`root` 2) or cube (3) root, in
/// integers: the largest `r` with `r^root <= n · 2^(32·root)`, less its whole part.
const fn frac_bits(n: u64, root: u32) -> u32 {
    let target = n as u128;
    let (mut lo, mut hi) = (0u128, 1u128 << 40);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let mut p = 1u128;
        let mut i = 0;
        while i < root {
            p *= mid;
            i += 1;
        }
        if p <= target << (32 * root) { lo = mid } else { hi = mid - 1 }
    }
    lo as u32
}

const H0: [u32; 8] = {
    let primes = [2, 3, 5, 7, 11, 13, 17, 19];
    let mut h = [0u32; 8];
    let mut i = 0;
    while i < 8 {
        h[i] = frac_bits(primes[i], 2);
        i += 1;
    }
    h
};

/// A SHA-256 being computed.
#[derive(Clone)]
pub struct Sha256 {
    state: [u32; 8],
    block: [u8; 64],
    filled: usize,
    length: u64,
}

impl Default for Sha256 {
    fn default() -> Self {
        Sha256 { state: H0, block: [0; 64], filled: 0, length: 0 }
    }
}

impl Sha256 {
    pub fn update(&mut self, mut bytes: &[u8]) {
        self.length = self.length.wrapping_add(bytes.len() as u64);
        while !bytes.is_empty() {
            let take = (64 - self.filled).min(bytes.len());
            self.block[self.filled..self.filled + take].copy_from_slice(&bytes[..take]);
            self.filled += take;
            bytes = &bytes[take..];
            if self.filled == 64 {
                let block = self.block;
                self.compress(&block);
                self.filled = 0;
            }
        }
    }

    /// The digest as 64 lowercase hex digits.
    pub fn hex(mut self) -> String {
        let bits = self.length.wrapping_mul(8);
        self.update(&[0x80]);
        while self.filled != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        self.state.iter().map(|w| format!("{w:08x}")).collect()
    }

    fn compress(&mut self, block: &[u8; 64]) {
        let mut w = [0u32; 64];
        for (i, c) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = self.state;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = h.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            (h, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.wrapping_add(v);
        }
    }
}

/// The SHA-256 of `bytes`, in hex.
pub fn sha256(bytes: &[u8]) -> String {
    let mut h = Sha256::default();
    h.update(bytes);
    h.hex()
}

/// `bytes` in standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    base64_after(String::new(), bytes)
}

/// `prefix` followed by `bytes` in standard base64 with padding (one allocation for both).
pub fn base64_after(prefix: String, bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = prefix.into_bytes();
    out.reserve_exact(bytes.len().div_ceil(3) * 4);
    let mut whole = bytes.chunks_exact(3);
    for c in &mut whole {
        let n = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
        out.extend([18, 12, 6, 0].map(|s| ABC[(n >> s) as usize & 63]));
    }
    if let [first, rest @ ..] = whole.remainder() {
        let n = (*first as u32) << 16 | (*rest.first().unwrap_or(&0) as u32) << 8;
        let last = if rest.is_empty() { b'=' } else { ABC[(n >> 6) as usize & 63] };
        out.extend([ABC[(n >> 18) as usize & 63], ABC[(n >> 12) as usize & 63], last, b'=']);
    }
    String::from_utf8(out).expect("base64 is ASCII after a text prefix")
}

/// Standard base64 back to bytes (for tests that read what the report embedded).
#[cfg(test)]
pub(crate) fn base64_decode(text: &str) -> Vec<u8> {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let six: Vec<u32> = text.bytes().filter(|&b| b != b'=').map(|b| ABC.iter().position(|&c| c == b).expect("base64") as u32).collect();
    six.chunks(4)
        .flat_map(|c| {
            let n = c.iter().enumerate().fold(0u32, |n, (i, &v)| n | v << (18 - 6 * i));
            n.to_be_bytes()[1..c.len()].to_vec()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_agrees_with_the_sha2_crate_on_every_length_around_the_block_edges() {
        use sha2::Digest;
        let data: Vec<u8> = (0..300u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for n in 0..data.len() {
            let want: String = sha2::Sha256::digest(&data[..n]).iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(sha256(&data[..n]), want, "{n} bytes");
        }
        assert_eq!(sha256(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "FIPS 180-4's example");
    }

    #[test]
    fn base64_as_rfc_4648_writes_it() {
        for (plain, coded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(base64(plain.as_bytes()), coded);
            assert_eq!(base64_decode(coded), plain.as_bytes());
        }
    }
}
