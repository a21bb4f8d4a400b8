//! The SVG plots of an admission report, drawn with plotters' SVG backend. The writers
//! take plain input structs and compute nothing but coordinates. plotters is built
//! without its `ttf` feature, so text is laid out with its font-free metrics and written
//! as SVG `<text>` elements: the plots render on a machine with no fonts installed, and
//! the viewer's font draws the labels.

mod draw;

pub(crate) use draw::{Scatter, e_value_svg, outcomes_svg, power_svg, strata_svg};

/// The paired outcomes of an admission run (the paired scores are drawn by
/// [`Scatter`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum OutcomesPlot {
    /// McNemar's four cells.
    Cells {
        /// Both right.
        both_right: u64,
        /// Only the baseline right (b).
        baseline_only: u64,
        /// Only the candidate right (c).
        candidate_only: u64,
        /// Both wrong.
        both_wrong: u64,
    },
}

/// One row of the strata plot: a difference with its interval.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StratumRow {
    /// `overall` or `kind=year`; escaped when drawn.
    pub label: String,
    /// Candidate − baseline.
    pub estimate: f64,
    /// Lower bound of the interval, when there is one.
    pub low: Option<f64>,
    /// Upper bound of the interval, when there is one.
    pub high: Option<f64>,
    /// Drawn in red and labelled `(regressed)` when the stratum regressed
    /// significantly.
    pub significant_regression: bool,
    /// Drawn in orange and labelled `(below margin)` when its lower bound is not above
    /// −margin.
    pub below_margin: bool,
}

/// Each stratum's difference, overall first, with an optional margin line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StrataPlot {
    /// What the difference is of, e.g. `proportion correct` or `mean score`.
    pub metric: String,
    /// The intervals' two-sided confidence level, e.g. 0.9.
    pub confidence: f64,
    /// Rows, top to bottom; a row whose estimate is not finite is left out, and one
    /// without a finite interval is drawn as its point, labelled `(no interval)`.
    pub rows: Vec<StratumRow>,
    /// The non-inferiority margin, drawn at −margin.
    pub margin: Option<f64>,
}

/// The minimum detectable shift against n, with this run's n marked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PowerPlot {
    /// The level.
    pub alpha: f64,
    /// This run's number of pairs.
    pub n: u64,
    /// The smallest k with 0.5^k < alpha.
    pub min_discordant: u32,
}

/// The improvement e-value of a sequential run after each look, against its threshold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EValuePlot {
    /// log10 of the e-value after look 1, 2, ….
    pub log10_path: Vec<f64>,
    /// log10 of the admission threshold.
    pub log10_threshold: f64,
    /// The holdout's tasks: the x axis runs to the last look.
    pub holdout: u64,
}
