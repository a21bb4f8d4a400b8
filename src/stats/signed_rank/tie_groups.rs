//! The exact signed-rank null when the magnitudes fall into few tie groups: W+ is a sum
//! over groups of `rank · J` with J ~ Binomial(group size, ½), so its lower tail is a
//! convolution of a few binomials on a lattice, not of n single ranks.
//!
//! Each group's binomial is cut to the j whose probability matters (the mass left out is
//! computed and bounded against the answer), the groups are split in two halves whose
//! partial sums are tabulated separately, and the halves meet through a cumulative
//! table: P(A + B ≤ w) = Σ_b P(B = b) · P(A ≤ w − b). The cost depends on the number of
//! groups and on √(group size), not on n², so a few distinct values stay cheap at any n.

use crate::stats::binomial;

/// What [`lower_tail`] returns: P(S ≤ w), P(S = w) and ln P(S ≤ w), the last exact even
/// below the `f64` range (the tables carry their scale as a power of two).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GroupTail {
    /// P(S ≤ w).
    pub cdf: f64,
    /// P(S = w).
    pub point: f64,
    /// ln P(S ≤ w).
    pub ln_cdf: f64,
}

/// One tie group: `count` magnitudes sharing the whole-number rank `rank` (a doubled
/// midrank divided by the common factor of all ranks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TieGroup {
    /// The shared rank.
    pub rank: u64,
    /// How many magnitudes share it.
    pub count: u64,
}

/// The mass left out (cut binomial tails and flushed entries) must be at most this
/// fraction of the computed tail, or the result is not returned.
pub(crate) const LEFT_OUT_RELATIVE: f64 = 1e-12;

/// The cut aims for this fraction of the estimated tail, far inside
/// [`LEFT_OUT_RELATIVE`], so that an estimate off by a factor of 1,000 still passes.
const CUT_TARGET_RELATIVE: f64 = 1e-16;

/// Entries smaller than this after a rescale (the largest entry is near 1) are dropped
/// and counted as left out; keeps the arithmetic out of subnormals.
const FLUSH_BELOW: f64 = 1e-280;

/// A half is tabulated densely when its span of sums is at most this many entries
/// (8 bytes each) and at most this many times the number of products feeding it.
const DENSE_LIMIT: u64 = 40_000_000;
const DENSE_SPARSITY: u64 = 8;

/// The largest number of sparse products gathered at once (16 bytes each).
const SPARSE_LIMIT: u64 = 30_000_000;

/// One group's binomial cut to the j in `low..low + weights.len()`.
struct Kernel {
    rank: u64,
    low: u64,
    weights: Vec<f64>,
}

impl Kernel {
    /// Keeps every j whose probability reaches `threshold`; the rest is left out and its
    /// exact mass returned with the kernel.
    fn cut(group: TieGroup, threshold: f64) -> (Kernel, f64) {
        let TieGroup { rank, count } = group;
        let mode = count / 2;
        let mut low = mode;
        while low > 0 && binomial::pmf(low - 1, count, 0.5) >= threshold {
            low -= 1;
        }
        let mut high = mode;
        while high < count && binomial::pmf(high + 1, count, 0.5) >= threshold {
            high += 1;
        }
        let weights: Vec<f64> = (low..=high).map(|j| binomial::pmf(j, count, 0.5)).collect();
        let mut left_out = 0.0;
        if low > 0 {
            left_out += binomial::lower_tail(low - 1, count, 0.5);
        }
        if high < count {
            left_out += binomial::upper_tail(high + 1, count, 0.5);
        }
        (Kernel { rank, low, weights }, left_out)
    }

    fn taps(&self) -> u64 {
        self.weights.len() as u64
    }

    fn spread(&self) -> u64 {
        self.rank.saturating_mul(self.taps() - 1)
    }
}

/// Partial sums of one half with their masses, scaled by 2^exponent, ascending, all ≤ w.
struct Half {
    sums: Vec<u64>,
    masses: Vec<f64>,
    exponent: i32,
}

/// Estimated work (products formed) and final number of entries of tabulating each
/// prefix of `kernels`, in order: entry i is for `kernels[..i]`; `None` once a step
/// exceeds the memory limits. Time: O(kernels).
fn plan_prefixes<'a>(kernels: impl Iterator<Item = &'a Kernel>, w: u64) -> Vec<Option<(u64, u64)>> {
    let (mut size, mut span, mut work) = (1_u64, 0_u64, 0_u64);
    let mut plans = vec![Some((0, 1))];
    let mut fits = true;
    for kernel in kernels {
        let products = size.saturating_mul(kernel.taps());
        span = span.saturating_add(kernel.spread()).min(w);
        let dense = span < DENSE_LIMIT && span < products.saturating_mul(DENSE_SPARSITY);
        fits &= dense || products <= SPARSE_LIMIT;
        work = work.saturating_add(products);
        size = products.min(span + 1);
        plans.push(fits.then_some((work, size)));
    }
    plans
}

/// Tabulates the sums of one half, dropping sums above w (they can never return).
fn tabulate(kernels: &[Kernel], w: u64, left_out: &mut f64) -> Half {
    let mut half = Half {
        sums: vec![0],
        masses: vec![1.0],
        exponent: 0,
    };
    for kernel in kernels {
        let lowest = half.sums[0] + kernel.rank * kernel.low;
        let top = (half.sums[half.sums.len() - 1] + kernel.rank * (kernel.low + kernel.taps() - 1))
            .min(w);
        if lowest > w {
            half.sums.clear();
            half.masses.clear();
            return half;
        }
        let span = top - lowest + 1;
        let products = (half.sums.len() as u64).saturating_mul(kernel.taps());
        let (sums, masses) =
            if span <= DENSE_LIMIT && span < products.saturating_mul(DENSE_SPARSITY) {
                convolve_dense(&half, kernel, lowest, top)
            } else {
                convolve_sparse(&half, kernel, w)
            };
        half.sums = sums;
        half.masses = masses;
        rescale(&mut half, left_out);
        if half.sums.is_empty() {
            return half;
        }
    }
    half
}

/// Calls `add(sum, mass)` for every product of a half's entry and a kernel weight whose
/// sum is at most `top`: the one loop both convolutions share.
fn for_each_product(half: &Half, kernel: &Kernel, top: u64, mut add: impl FnMut(u64, f64)) {
    for (&sum, &mass) in half.sums.iter().zip(&half.masses) {
        let start = sum + kernel.rank * kernel.low;
        for (j, &weight) in kernel.weights.iter().enumerate() {
            let at = start + kernel.rank * j as u64;
            if at > top {
                break;
            }
            add(at, mass * weight);
        }
    }
}

fn convolve_dense(half: &Half, kernel: &Kernel, lowest: u64, top: u64) -> (Vec<u64>, Vec<f64>) {
    let mut table = vec![0.0_f64; (top - lowest + 1) as usize];
    for_each_product(half, kernel, top, |at, mass| {
        table[(at - lowest) as usize] += mass;
    });
    let mut sums = Vec::new();
    let mut masses = Vec::new();
    for (offset, &mass) in table.iter().enumerate() {
        if mass != 0.0 {
            sums.push(lowest + offset as u64);
            masses.push(mass);
        }
    }
    (sums, masses)
}

fn convolve_sparse(half: &Half, kernel: &Kernel, w: u64) -> (Vec<u64>, Vec<f64>) {
    let mut products: Vec<(u64, f64)> = Vec::new();
    for_each_product(half, kernel, w, |at, mass| products.push((at, mass)));
    products.sort_unstable_by_key(|p| p.0);
    let mut sums: Vec<u64> = Vec::with_capacity(products.len());
    let mut masses: Vec<f64> = Vec::with_capacity(products.len());
    for (sum, mass) in products {
        if sums.last() == Some(&sum) {
            *masses.last_mut().expect("pushed together with sums") += mass;
        } else {
            sums.push(sum);
            masses.push(mass);
        }
    }
    (sums, masses)
}

/// Divides by a power of two so the largest entry is near 1 (exact), flushing entries
/// that fall below [`FLUSH_BELOW`] and counting them as left out.
fn rescale(half: &mut Half, left_out: &mut f64) {
    let largest = half.masses.iter().copied().fold(0.0_f64, f64::max);
    if largest == 0.0 {
        half.sums.clear();
        half.masses.clear();
        return;
    }
    let shift = largest.log2().floor() as i32;
    let factor = 2.0_f64.powi(-shift);
    half.exponent += shift;
    let mut flushed = 0.0;
    let mut keep = 0;
    for i in 0..half.sums.len() {
        let mass = half.masses[i] * factor;
        if mass < FLUSH_BELOW {
            flushed += mass;
        } else {
            half.sums[keep] = half.sums[i];
            half.masses[keep] = mass;
            keep += 1;
        }
    }
    half.sums.truncate(keep);
    half.masses.truncate(keep);
    *left_out += scaled(flushed, half.exponent);
}

/// x · 2^exponent without overflow or premature underflow of the factor.
fn scaled(mut x: f64, mut exponent: i32) -> f64 {
    while exponent < -1000 {
        x *= 2.0_f64.powi(-1000);
        exponent += 1000;
    }
    while exponent > 1000 {
        x *= 2.0_f64.powi(1000);
        exponent -= 1000;
    }
    x * 2.0_f64.powi(exponent)
}

/// Neumaier's compensated running sum.
#[derive(Default)]
struct Compensated {
    sum: f64,
    carry: f64,
}

impl Compensated {
    fn add(&mut self, v: f64) {
        let next = self.sum + v;
        self.carry += if self.sum.abs() >= v.abs() {
            (self.sum - next) + v
        } else {
            (v - next) + self.sum
        };
        self.sum = next;
    }

    fn value(&self) -> f64 {
        self.sum + self.carry
    }
}

/// The cut kernels and the split point, or `None` when no split fits the budget.
struct Plan {
    kernels: Vec<Kernel>,
    split: usize,
    work: u64,
    left_out: f64,
}

fn plan(groups: &[TieGroup], w: u64, estimate: f64) -> Option<Plan> {
    let mut sorted = groups.to_vec();
    sorted.sort_unstable_by_key(|g| g.rank);
    let n: u64 = sorted.iter().map(|g| g.count).sum();
    // Every j with probability below the threshold is left out: at most n of them, so
    // the mass left out is below n · threshold.
    let target = estimate * CUT_TARGET_RELATIVE;
    let threshold = if target.is_finite() && target > 1e-290 {
        target / n.max(1) as f64
    } else {
        0.0
    };
    let mut left_out = 0.0;
    let kernels: Vec<Kernel> = sorted
        .iter()
        .map(|&g| {
            let (kernel, mass) = Kernel::cut(g, threshold);
            left_out += mass;
            kernel
        })
        .collect();
    // The second half's cost is estimated by accumulating from the top group down: the
    // same products in another order (an estimate; it only picks the split).
    let prefixes = plan_prefixes(kernels.iter(), w);
    let suffixes = plan_prefixes(kernels.iter().rev(), w);
    let mut best: Option<(u64, usize)> = None;
    for split in 1..=kernels.len() {
        let (Some((work_a, size_a)), Some((work_b, size_b))) =
            (prefixes[split], suffixes[kernels.len() - split])
        else {
            continue;
        };
        let work = work_a
            .saturating_add(work_b)
            .saturating_add(size_a)
            .saturating_add(size_b.saturating_mul(16));
        if best.is_none_or(|(b, _)| work < b) {
            best = Some((work, split));
        }
    }
    let (work, split) = best?;
    Some(Plan {
        kernels,
        split,
        work,
        left_out,
    })
}

/// The estimated work (products formed) of [`lower_tail`] for these groups, or `None`
/// when no way of splitting them fits the memory limits. `estimate` is a rough value of
/// the tail (the saddlepoint), which sets how much of each binomial is kept.
pub(crate) fn work(groups: &[TieGroup], w: u64, estimate: f64) -> Option<u64> {
    plan(groups, w, estimate).map(|p| p.work)
}

/// P(S ≤ w) and P(S = w) for S = Σ rank · Binomial(count, ½) over the groups.
///
/// `estimate` (a rough value of P(S ≤ w), e.g. the saddlepoint) sets where each binomial
/// is cut. Returns `None` when the work would exceed `budget` products, or when the mass
/// left out is not below [`LEFT_OUT_RELATIVE`] of the result (unless nothing was left
/// out, when only rounding and underflow remain): the result, when given, is
/// within that relative distance of the exact tail (it can only be low, by at most the
/// mass left out), plus rounding of about 1e-15 per group and per tabulated sum.
/// Time: about the work returned by [`work`]; memory: at most `DENSE_LIMIT` (4·10^7)
/// floats and `SPARSE_LIMIT` (3·10^7) products.
pub(crate) fn lower_tail(
    groups: &[TieGroup],
    w: u64,
    estimate: f64,
    budget: u64,
) -> Option<GroupTail> {
    let total: u64 = groups.iter().map(|g| g.rank * g.count).sum();
    if w >= total {
        let n: u64 = groups.iter().map(|g| g.count).sum();
        let point = if w == total {
            scaled(1.0, -i32::try_from(n).ok()?)
        } else {
            0.0
        };
        return Some(GroupTail {
            cdf: 1.0,
            point,
            ln_cdf: 0.0,
        });
    }
    let plan = plan(groups, w, estimate).filter(|p| p.work <= budget)?;
    let mut left_out = plan.left_out;
    let first = tabulate(&plan.kernels[..plan.split], w, &mut left_out);
    let second = tabulate(&plan.kernels[plan.split..], w, &mut left_out);
    // Cumulative masses of the first half, each accurate to a few ulps.
    let mut running = Compensated::default();
    let cumulative: Vec<f64> = first
        .masses
        .iter()
        .map(|&m| {
            running.add(m);
            running.value()
        })
        .collect();
    let (mut below, mut point) = (Compensated::default(), Compensated::default());
    for (&sum, &mass) in second.sums.iter().zip(&second.masses) {
        let gap = w - sum;
        // Entries of the first half with sums ≤ gap.
        let reach = first.sums.partition_point(|&s| s <= gap);
        if reach > 0 {
            below.add(mass * cumulative[reach - 1]);
            if first.sums[reach - 1] == gap {
                point.add(mass * first.masses[reach - 1]);
            }
        }
    }
    let exponent = first.exponent + second.exponent;
    if below.value() <= 0.0 {
        return None;
    }
    let ln_cdf = (below.value().ln() + f64::from(exponent) * std::f64::consts::LN_2).min(0.0);
    let cdf = scaled(below.value(), exponent);
    let point = scaled(point.value(), exponent);
    (left_out == 0.0 || (cdf > 0.0 && left_out <= LEFT_OUT_RELATIVE * cdf)).then_some(GroupTail {
        cdf: cdf.min(1.0),
        point: point.min(1.0),
        ln_cdf,
    })
}
