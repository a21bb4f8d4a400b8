//! The standard normal distribution: tail probabilities and quantiles to near full
//! `f64` precision. The signed-rank test uses the tails beyond its exact limit; the
//! intervals use the quantile for their critical values.

/// 1/√π.
const FRAC_1_SQRT_PI: f64 = 0.564_189_583_547_756_3;

/// Where `erfc` switches from 1 − (a positive series for erf) to a continued fraction.
const SERIES_LIMIT: f64 = 1.5;

/// e^(−x²) without the rounding of x² itself: x is split into a 12-bit-fraction head,
/// whose square is exact, and a small tail.
fn exp_minus_square(x: f64) -> f64 {
    let head = (x * 4096.0).round() / 4096.0;
    let tail = x - head;
    (-head * head).exp() * (-tail * (x + head)).exp()
}

/// The complementary error function, with relative error near 1e-15 for all x.
///
/// For |x| < 1.5, erf by the series `2x e^(−x²)/√π · Σ (2x²)^n / (1·3·…·(2n+1))`, whose
/// terms are all positive; beyond, the Laplace continued fraction
/// `e^(−x²)/√π / (x + ½/(x + 1/(x + 3/2/(x + …))))` by Lentz's method (Numerical Recipes
/// §5.2). Time: O(1) (at most a few hundred iterations near x = 1.5).
pub(crate) fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return 1.0;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < SERIES_LIMIT {
        let two_x2 = 2.0 * x * x;
        let mut term = 1.0_f64;
        let mut sum = 1.0_f64;
        for n in 1..200 {
            term *= two_x2 / f64::from(2 * n + 1);
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        return 1.0 - 2.0 * FRAC_1_SQRT_PI * x * exp_minus_square(x) * sum;
    }
    if x > 27.3 {
        // erfc(27.3) < 1e-325: below the smallest subnormal.
        return 0.0;
    }
    FRAC_1_SQRT_PI * exp_minus_square(x) / continued_fraction(x)
}

/// The denominator f of the Laplace continued fraction, erfc(x) = e^(−x²)/(√π f), for
/// x ≥ 1.5, by Lentz's method; it converges faster the larger x is.
fn continued_fraction(x: f64) -> f64 {
    let tiny = 1e-300;
    let mut f = x;
    let mut c = x;
    let mut d = 0.0_f64;
    for k in 1..5000 {
        let a = f64::from(k) * 0.5;
        d = x + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        d = 1.0 / d;
        c = x + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    f
}

/// ln erfc(x), finite for every finite x: beyond x = 1.5 it is −x² − ln(√π f) from the
/// same continued fraction as [`erfc`], so it stays exact where erfc itself underflows
/// (erfc(27.3) < 1e-325).
pub(crate) fn ln_erfc(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    if x < SERIES_LIMIT {
        return erfc(x).ln();
    }
    -x * x - (continued_fraction(x) / FRAC_1_SQRT_PI).ln()
}

/// P(Z > z) for a standard normal Z; relative error near 1e-15 times max(1, z²).
pub(crate) fn upper_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// P(Z ≤ z) for a standard normal Z.
pub(crate) fn lower_tail(z: f64) -> f64 {
    upper_tail(-z)
}

/// ln P(Z > z) for a standard normal Z, in log space: finite where [`upper_tail`]
/// underflows (ln P(Z > 40) = −804.608). Relative error near 1e-15.
pub(crate) fn ln_upper_tail(z: f64) -> f64 {
    -std::f64::consts::LN_2 + ln_erfc(z / std::f64::consts::SQRT_2)
}

/// The quantile Φ⁻¹(p) for p strictly inside (0, 1); `None` otherwise.
///
/// Starts from Abramowitz & Stegun 26.2.23 (error below 4.5e-4) and polishes with
/// Halley steps on the accurate tail, which converge cubically, so four steps leave only
/// the rounding of the tail itself (relative error near 1e-15).
pub(crate) fn quantile(p: f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    if p > 0.5 {
        // 1 − p is exact for p in [0.5, 1] (Sterbenz), so the mirror loses nothing.
        return quantile(1.0 - p).map(|z| -z);
    }
    let t = (-2.0 * p.ln()).sqrt();
    let mut x = -(t
        - (2.515_517 + 0.802_853 * t + 0.010_328 * t * t)
            / (1.0 + 1.432_788 * t + 0.189_269 * t * t + 0.001_308 * t * t * t));
    for _ in 0..4 {
        let excess = lower_tail(x) - p;
        // Φ'(x) = e^(−x²/2)/√(2π); dividing by it in this form avoids overflow.
        let density = exp_minus_square(x / std::f64::consts::SQRT_2)
            * (FRAC_1_SQRT_PI / std::f64::consts::SQRT_2);
        if density == 0.0 {
            break;
        }
        let u = excess / density;
        x -= u / (1.0 + 0.5 * x * u);
    }
    Some(x)
}
