//! Transcendental functions with the same bits on every target. `f32::sin` and its kin call the
//! platform's C library (glibc, macOS's libsystem_m, the MSVC runtime, or what a WebAssembly
//! toolchain links), and those round the last bit differently: a simulation stepped through them
//! is bit-identical only on one platform. Everything simreel computes calls these instead: the
//! `libm` crate (musl's algorithms in Rust, compiled into the program, so one implementation
//! everywhere), and powers by repeated multiplication in a fixed order.
//!
//! `sqrt`, `abs`, `floor`, `%` and the arithmetic operators are exact (IEEE 754 rounds them
//! correctly) and stay as they are. So is `mul_add`, but WebAssembly has no fused multiply-add
//! instruction: there it is an integer routine, 20 times slower than a product and a sum in the
//! dice's solver, so the simulations do not use it. `clippy.toml` forbids the platform's functions
//! and `mul_add` (`disallowed-methods`); a suite test checks the same in the sources.

/// A float type with the portable functions: `f32` (musl's single-precision algorithms) and `f64`.
pub trait Float: Copy {
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn powf(self, exponent: Self) -> Self;
    fn hypot(self, other: Self) -> Self;
    fn sin_cos(self) -> (Self, Self);
    /// 1 of this type (the start of a product of powers).
    fn one() -> Self;
    fn mul(self, other: Self) -> Self;
    fn recip(self) -> Self;
}

macro_rules! float {
    ($t:ty, $sin:ident, $cos:ident, $tan:ident, $asin:ident, $acos:ident, $atan:ident, $atan2:ident, $exp:ident, $ln:ident, $log2:ident, $log10:ident, $pow:ident, $hypot:ident, $sincos:ident) => {
        impl Float for $t {
            fn sin(self) -> Self {
                libm::$sin(self)
            }
            fn cos(self) -> Self {
                libm::$cos(self)
            }
            fn tan(self) -> Self {
                libm::$tan(self)
            }
            fn asin(self) -> Self {
                libm::$asin(self)
            }
            fn acos(self) -> Self {
                libm::$acos(self)
            }
            fn atan(self) -> Self {
                libm::$atan(self)
            }
            fn atan2(self, x: Self) -> Self {
                libm::$atan2(self, x)
            }
            fn exp(self) -> Self {
                libm::$exp(self)
            }
            fn ln(self) -> Self {
                libm::$ln(self)
            }
            fn log2(self) -> Self {
                libm::$log2(self)
            }
            fn log10(self) -> Self {
                libm::$log10(self)
            }
            fn powf(self, exponent: Self) -> Self {
                libm::$pow(self, exponent)
            }
            fn hypot(self, other: Self) -> Self {
                libm::$hypot(self, other)
            }
            fn sin_cos(self) -> (Self, Self) {
                libm::$sincos(self)
            }
            fn one() -> Self {
                1.0
            }
            fn mul(self, other: Self) -> Self {
                self * other
            }
            fn recip(self) -> Self {
                1.0 / self
            }
        }
    };
}

float!(f32, sinf, cosf, tanf, asinf, acosf, atanf, atan2f, expf, logf, log2f, log10f, powf, hypotf, sincosf);
float!(f64, sin, cos, tan, asin, acos, atan, atan2, exp, log, log2, log10, pow, hypot, sincos);

/// sin x (x in radians).
pub fn sin<T: Float>(x: T) -> T {
    x.sin()
}
/// cos x (x in radians).
pub fn cos<T: Float>(x: T) -> T {
    x.cos()
}
/// tan x (x in radians).
pub fn tan<T: Float>(x: T) -> T {
    x.tan()
}
/// arcsin x, in radians.
pub fn asin<T: Float>(x: T) -> T {
    x.asin()
}
/// arccos x, in radians.
pub fn acos<T: Float>(x: T) -> T {
    x.acos()
}
/// arctan x, in radians.
pub fn atan<T: Float>(x: T) -> T {
    x.atan()
}
/// The angle of (x, y) from the +x axis, in radians (−π, π]: `f32::atan2`'s argument order, `y` first.
pub fn atan2<T: Float>(y: T, x: T) -> T {
    y.atan2(x)
}
/// e^x.
pub fn exp<T: Float>(x: T) -> T {
    x.exp()
}
/// The natural logarithm.
pub fn ln<T: Float>(x: T) -> T {
    x.ln()
}
/// log₂ x.
pub fn log2<T: Float>(x: T) -> T {
    x.log2()
}
/// log₁₀ x.
pub fn log10<T: Float>(x: T) -> T {
    x.log10()
}
/// x^y.
pub fn powf<T: Float>(x: T, y: T) -> T {
    x.powf(y)
}
/// √(x² + y²) without undue overflow.
pub fn hypot<T: Float>(x: T, y: T) -> T {
    x.hypot(y)
}
/// (sin x, cos x).
pub fn sin_cos<T: Float>(x: T) -> (T, T) {
    x.sin_cos()
}

/// xⁿ by squaring, in the order compiler-rt's `__powisf2` multiplies (so the bits are those of
/// `f32::powi` where LLVM calls it, and of `x * x` for n = 2); a negative n gives 1 / x^|n|.
pub fn powi<T: Float>(x: T, n: i32) -> T {
    let mut base = x;
    let mut bits = n.unsigned_abs();
    let mut product = T::one();
    loop {
        if bits & 1 == 1 {
            product = product.mul(base);
        }
        bits >>= 1;
        if bits == 0 {
            break;
        }
        base = base.mul(base);
    }
    if n < 0 { product.recip() } else { product }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_are_the_products_they_name() {
        let x = 1.1f32;
        assert_eq!(powi(x, 0), 1.0);
        assert_eq!(powi(x, 1), x);
        assert_eq!(powi(x, 2), x * x);
        assert_eq!(powi(x, 3), x * (x * x));
        assert_eq!(powi(x, 4), (x * x) * (x * x));
        assert_eq!(powi(x, -2), 1.0 / (x * x));
        assert_eq!(powi(-2.0f64, 5), -32.0);
    }

    // the platform's functions are the reference here (and only here): the portable ones differ
    // from them in the last bit at most, never in what they compute
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn the_functions_agree_with_the_platform_within_an_ulp() {
        for i in -200..200 {
            let x = i as f32 * 0.0371;
            let close = |a: f32, b: f32| (a - b).abs() <= 2.0 * f32::EPSILON * a.abs().max(b.abs()).max(1e-30);
            assert!(close(sin(x), x.sin()) && close(cos(x), x.cos()), "sin/cos {x}");
            assert!(close(atan2(x, 0.7), x.atan2(0.7)) && close(exp(x * 0.1), (x * 0.1).exp()), "atan2/exp {x}");
            assert!(close(powf(x.abs(), 1.7), x.abs().powf(1.7)) && close(hypot(x, 3.0), x.hypot(3.0)), "pow/hypot {x}");
            let (s, c) = sin_cos(x as f64);
            assert!((s - (x as f64).sin()).abs() < 1e-15 && (c - (x as f64).cos()).abs() < 1e-15, "sin_cos {x}");
        }
    }
}
