//! The exact signed-rank null at large n by numerical inversion of its tilted
//! characteristic function, with a proven bound on the part that is not integrated.
//!
//! W+ in whole-number rank units is S = Σ rank · J over tie groups, J ~ Binomial(count,
//! ½), with moment generating function M(z) = Π ((1 + e^{z·rank}) / 2)^count. For any
//! θ < 0 and z = θ + iτ (the geometric series Σ_k e^{zk} converges),
//!
//! P(S ≤ w) = (1/2π) ∫_{−π}^{π} M(z) e^{−zw} / (1 − e^z) dτ,
//! P(S = w) = (1/2π) ∫_{−π}^{π} M(z) e^{−zw} dτ.
//!
//! θ is the saddlepoint (K′(θ) = w), so the integrand is a narrow peak at τ = 0 (and, on a
//! lumpy lattice, lower secondary peaks). [0, π] is cut into cells by bisection; a cell
//! is either integrated by Gauss–Legendre panels (accepted when the 10- and 20-point
//! rules agree) or proved negligible: with a = 4q(1 − q), q = e^{θr} / (1 + e^{θr}),
//! |M(z)/M(θ)| = Π (1 − a sin²(τr/2))^{count/2} ≤ exp(−Σ count/2 · a · min sin²) over
//! the cell, and |1 − e^z| ≥ max(1 − e^θ, 2e^{θ/2} sin(τ/2)). The bounds of all cells
//! left out must total at most [`LEFT_OUT_RELATIVE`] of the tail or no result is given.
//! Cost: O(groups) per integrand value, a few hundred values, plus the cells.

use super::saddlepoint::{self, logistic};
use super::tie_groups::{GroupTail, TieGroup};
use std::f64::consts::TAU;
use std::sync::OnceLock;

/// The bounds of the cells left out must total at most this fraction of the tail.
pub(crate) const LEFT_OUT_RELATIVE: f64 = 1e-12;

/// Each cell is left out only when its bound on the integrand is below this fraction of
/// the integral found so far (per unit of τ), far inside [`LEFT_OUT_RELATIVE`].
const CELL_TARGET_RELATIVE: f64 = 1e-15;

/// A panel is accepted when its 10- and 20-point rules differ by at most this fraction
/// of the integral found so far (the 20-point value, kept, is far closer).
const PANEL_RELATIVE: f64 = 1e-15;

/// Integrand values cost one unit per tie group, cell bounds one unit per
/// [`CELL_CHECKS_PER_UNIT`] groups examined: `budget` caps their total.
const CELL_CHECKS_PER_UNIT: u64 = 8;

/// Integrand values expected for a smooth lattice (the central peak): the work estimate
/// is this many times the number of groups.
const VALUES_EXPECTED: u64 = 300;

/// A tie group tilted by θ.
struct Tilted {
    rank: f64,
    count: f64,
    /// P(a sign is + ) under the tilt: e^{θr} / (1 + e^{θr}).
    q: f64,
    /// 4q(1 − q).
    a: f64,
}

/// The estimated work of [`lower_tail`] in the units of its `budget`, on a smooth lattice.
pub(crate) fn work(groups: &[TieGroup]) -> u64 {
    VALUES_EXPECTED.saturating_mul(groups.len() as u64)
}

/// τ·x as an unevaluated sum hi + lo, exact.
fn product(tau: f64, x: f64) -> (f64, f64) {
    let hi = tau * x;
    (hi, tau.mul_add(x, -hi))
}

/// sin and cos of (hi + lo) / 2 for the exact product (hi, lo) = τ·r, with lo tiny.
fn half_angle(hi: f64, lo: f64) -> (f64, f64) {
    let (s, c) = (hi / 2.0).sin_cos();
    let d = lo / 2.0;
    (s + d * c, c - d * s)
}

struct Integrand<'a> {
    groups: &'a [Tilted],
    theta: f64,
    w: f64,
}

impl Integrand<'_> {
    /// Re of the scaled integrands of P(S ≤ w) and P(S = w) at τ.
    fn at(&self, tau: f64) -> (f64, f64) {
        let mut ln_rho = 0.0;
        let (mut phase, mut carry) = (0.0_f64, 0.0_f64);
        for g in self.groups {
            let (hi, lo) = product(tau, g.rank);
            let (s, c) = half_angle(hi, lo);
            let s2 = s * s;
            ln_rho += 0.5 * g.count * (-g.a * s2).ln_1p();
            // arg((1 − q) + q e^{iτr}); its real part stays positive because q < ½.
            let arg = (g.q * 2.0 * s * c).atan2(1.0 - 2.0 * g.q * s2);
            // Neumaier's compensated sum of count · arg.
            let v = g.count * arg;
            let next = phase + v;
            carry += if phase.abs() >= v.abs() {
                (phase - next) + v
            } else {
                (v - next) + phase
            };
            phase = next;
        }
        // φ = Σ count·arg − τw, with τw split exactly so that its rounding cannot grow with w.
        let (hi, lo) = product(tau, self.w);
        let (s1, c1) = (phase + carry - lo).sin_cos();
        let (s2, c2) = hi.sin_cos();
        // e^{iφ} = e^{i(phase − lo)} · e^{−i·hi}.
        let (cos_phi, sin_phi) = (c1 * c2 + s1 * s2, s1 * c2 - c1 * s2);
        let rho = ln_rho.exp();
        let e = self.theta.exp();
        let half = (tau / 2.0).sin();
        let real = -self.theta.exp_m1() + 2.0 * e * half * half;
        let imaginary = -e * tau.sin();
        let norm = real * real + imaginary * imaginary;
        (
            rho * (cos_phi * real + sin_phi * imaginary) / norm,
            rho * cos_phi,
        )
    }
}

/// Gauss–Legendre nodes and weights on [−1, 1] for `m` points (Newton on P_m).
pub(crate) fn gauss_legendre(m: usize) -> Vec<(f64, f64)> {
    let mut rule = Vec::with_capacity(m);
    for i in 0..m {
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (m as f64 + 0.5)).cos();
        let mut derivative = 1.0;
        for _ in 0..100 {
            let (mut p0, mut p1) = (1.0, x);
            for k in 2..=m {
                let k = k as f64;
                (p0, p1) = (p1, ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k);
            }
            derivative = m as f64 * (x * p1 - p0) / (x * x - 1.0);
            let step = p1 / derivative;
            x -= step;
            if step.abs() < 1e-16 {
                break;
            }
        }
        rule.push((x, 2.0 / ((1.0 - x * x) * derivative * derivative)));
    }
    rule
}

/// (node, weight) pairs of one Gauss–Legendre rule on [−1, 1].
type Rule = Vec<(f64, f64)>;

/// The 10- and 20-point rules, computed once.
fn rules() -> &'static (Rule, Rule) {
    static RULES: OnceLock<(Rule, Rule)> = OnceLock::new();
    RULES.get_or_init(|| (gauss_legendre(10), gauss_legendre(20)))
}

/// ln cosh(y), accurate for small and large |y|.
fn ln_cosh(y: f64) -> f64 {
    let y = y.abs();
    if y < 1.0 {
        0.5 * y.sinh().powi(2).ln_1p()
    } else {
        y - std::f64::consts::LN_2 + (-2.0 * y).exp().ln_1p()
    }
}

/// P(S ≤ w), P(S = w) and ln P(S ≤ w) for S = Σ rank · Binomial(count, ½) over the groups
/// (whole-number ranks with no common factor), or `None` when the work would pass
/// `budget` (integrand values × groups, see [`work`]) or the cells left out are not
/// proved below [`LEFT_OUT_RELATIVE`] of the tail. The integrated part is accurate to
/// about 1e-13 relative (rounding and the panel check); the part left out is bounded.
pub(crate) fn lower_tail(groups: &[TieGroup], w: u64, budget: u64) -> Option<GroupTail> {
    let total: u64 = groups.iter().map(|g| g.rank * g.count).sum();
    if w >= total || groups.is_empty() {
        return None;
    }
    let mean = total as f64 / 2.0;
    let variance: f64 = groups
        .iter()
        .map(|g| (g.rank as f64).powi(2) * g.count as f64)
        .sum::<f64>()
        / 4.0;
    // The saddlepoint, but at least one standard deviation from 0 so that the pole of
    // 1 / (1 − e^z) at τ = 0 stays wider than the peak.
    let theta = saddlepoint::solve(groups, w as f64, mean, variance).min(-1.0 / variance.sqrt());
    let mut sorted = groups.to_vec();
    sorted.sort_unstable_by_key(|g| g.rank);
    let tilted: Vec<Tilted> = sorted
        .iter()
        .map(|g| {
            let q = logistic(theta * g.rank as f64);
            Tilted {
                rank: g.rank as f64,
                count: g.count as f64,
                q,
                a: 4.0 * q * logistic(-theta * g.rank as f64),
            }
        })
        .collect();
    let sd = tilted
        .iter()
        .map(|g| g.count * g.rank * g.rank * g.a / 4.0)
        .sum::<f64>()
        .sqrt();
    // ln A = ln(M(θ) e^{−θw}) = Σ count · ln cosh(θr/2) + θ(μ − w), rewritten so that no
    // two large terms cancel: for |θr/2| ≥ 1, ln cosh(θr/2) = −θr/2 − ln 2 + ln(1 + e^{θr}),
    // and the −θr/2 parts cancel against θμ exactly, in integers.
    let mut ln_scale = 0.0;
    let mut doubled_mean_small: i128 = 0;
    for g in &sorted {
        let y = theta * g.rank as f64 / 2.0;
        if y.abs() < 1.0 {
            ln_scale += g.count as f64 * ln_cosh(y);
            doubled_mean_small += i128::from(g.rank) * i128::from(g.count);
        } else {
            ln_scale += g.count as f64 * ((2.0 * y).exp().ln_1p() - std::f64::consts::LN_2);
        }
    }
    ln_scale += theta * (doubled_mean_small - 2 * i128::from(w)) as f64 / 2.0;

    let integrand = Integrand {
        groups: &tilted,
        theta,
        w: w as f64,
    };
    let (low_rule, high_rule) = rules();
    let leaf = (1.0 / sd).min(-theta) * 1.5;
    let mut spent: u64 = 0;
    let (mut cdf_sum, mut point_sum) = (0.0_f64, 0.0_f64);
    let (mut cdf_out, mut point_out) = (0.0_f64, 0.0_f64);
    let mut checks: u64 = 0;
    let mut stack = vec![(0.0_f64, std::f64::consts::PI)];
    while let Some((a, b)) = stack.pop() {
        if spent.saturating_add(checks / CELL_CHECKS_PER_UNIT) > budget {
            return None;
        }
        if a > 0.0 {
            // |1 − e^z| from below on the cell (sin(τ/2) increases on [0, π]).
            let pole = (-theta.exp_m1()).max(2.0 * (theta / 2.0).exp() * (a / 2.0).sin());
            let density = CELL_TARGET_RELATIVE * cdf_sum.max(0.0);
            if density > 0.0 {
                let target = -(density * pole).ln();
                let (decay, examined) = cell_decay(&tilted, a, b, target);
                checks += examined;
                if decay >= target {
                    cdf_out += (b - a) * (-decay).exp() / pole;
                    point_out += (b - a) * (-decay).exp();
                    continue;
                }
            }
        }
        if b - a > leaf {
            let mid = 0.5 * (a + b);
            stack.push((mid, b));
            stack.push((a, mid));
            continue;
        }
        let panel = |rule: &[(f64, f64)]| {
            let (centre, half) = (0.5 * (a + b), 0.5 * (b - a));
            rule.iter().fold((0.0, 0.0), |(c, p), &(x, weight)| {
                let (vc, vp) = integrand.at(centre + half * x);
                (c + weight * half * vc, p + weight * half * vp)
            })
        };
        let (low_cdf, low_point) = panel(low_rule);
        let (cdf, point) = panel(high_rule);
        spent = spent.saturating_add(30 * tilted.len() as u64);
        let scale = cdf_sum.abs().max(cdf.abs());
        let point_scale = point_sum.abs().max(point.abs());
        let settled = (cdf - low_cdf).abs() <= PANEL_RELATIVE * scale
            && (point - low_point).abs() <= PANEL_RELATIVE * point_scale.max(scale * 1e-3);
        if !settled && b - a > leaf * 1e-4 {
            let mid = 0.5 * (a + b);
            stack.push((mid, b));
            stack.push((a, mid));
            continue;
        }
        if !settled {
            return None;
        }
        cdf_sum += cdf;
        point_sum += point;
    }
    if cdf_sum <= 0.0 || cdf_out > LEFT_OUT_RELATIVE * cdf_sum {
        return None;
    }
    let pi = std::f64::consts::PI;
    let ln_cdf = (ln_scale + (cdf_sum / pi).ln()).min(0.0);
    // P(S = w) is given to an absolute error near 1e-15 of P(S ≤ w) (its tolerance and
    // bound are relative to that): it only enters P(S ≥ w) = 1 − P(S ≤ w) + P(S = w).
    let point = if point_sum > point_out {
        (ln_scale + (point_sum / pi).ln()).exp()
    } else {
        0.0
    };
    Some(GroupTail {
        cdf: ln_cdf.exp().min(1.0),
        point: point.min(1.0),
        ln_cdf,
    })
}

/// A lower bound on −ln |M(θ + iτ)/M(θ)| over τ in [a, b] (0 < a < b ≤ π), summed over
/// the groups in ascending rank until it reaches `target`, and the groups examined.
fn cell_decay(groups: &[Tilted], a: f64, b: f64, target: f64) -> (f64, u64) {
    let mut decay = 0.0;
    let mut examined = 0;
    for g in groups {
        // sin²(τr/2) vanishes where τr/(2π) is a whole number; once a cell spans a period
        // it holds a zero for this and every larger rank.
        let (low, high) = (g.rank * a / TAU, g.rank * b / TAU);
        if high - low >= 1.0 {
            break;
        }
        examined += 1;
        // A margin of 1e-9 periods keeps rounding on the safe side.
        if (low - 1e-9).floor() != (high + 1e-9).floor() {
            continue;
        }
        // Between two zeros sin² rises and falls once, so its minimum over the cell is
        // the smaller end value (less a relative margin for rounding).
        let ends = (g.rank * a / 2.0)
            .sin()
            .powi(2)
            .min((g.rank * b / 2.0).sin().powi(2));
        decay += 0.5 * g.count * g.a * ends * (1.0 - 1e-9);
        if decay >= target {
            break;
        }
    }
    (decay, examined)
}
