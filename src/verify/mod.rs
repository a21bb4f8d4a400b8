//! Verifiers: each owns both halves of evaluation for one kind of skill. It turns
//! ground-truth facts into [`Task`]s, and grades an output for one of its tasks against
//! the facts. Adding a verifier is implementing [`Verifier`] and adding one line to
//! [`REGISTRY`].

pub mod arxiv;
pub mod facts;
pub mod fasthash;
pub mod normalize;

use crate::error::InputError;
use crate::table::Table;
use crate::task::Task;

/// The grade of one output.
#[derive(Debug, Clone, PartialEq)]
pub struct Grade {
    /// The ground truth's verdict: exactly right (correctness 1).
    pub correct: bool,
    /// In [0, 1]: 1 right, 0.5 a hedge that includes the right answer, partial credit
    /// where the verifier gives it, 0 wrong or absent.
    pub correctness: f64,
    /// The shaped score for an optimizer, in [0, 1].
    pub composite: f64,
    /// The admission score: `composite` when `correctness > 0`, else 0.
    pub score: f64,
    /// One line an optimizer can act on; always names the expected value.
    pub feedback: String,
}

/// What the candidates found in an answer amount to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Exactly one candidate, the expected one: correctness 1.
    Right,
    /// The expected one among several: correctness 0.5.
    Hedged,
    /// Only candidates other than the expected: correctness 0, well-formed.
    Wrong,
    /// Partial credit (titles): correctness is the share given, well-formed.
    Partial(f64),
    /// No candidate at all: correctness 0, not well-formed.
    Absent,
}

/// Answers up to this many characters are fully concise.
pub const CONCISE_CHARS: usize = 800;
/// Answers from this many characters on have conciseness 0.
pub const VERBOSE_CHARS: usize = 4000;

/// Scores an outcome: conciseness 1 up to [`CONCISE_CHARS`], 0 from
/// [`VERBOSE_CHARS`], linear between, and 0 when nothing was answered; composite =
/// 0.5·correctness + 0.3·well-formed + 0.2·conciseness clamped to [0, 1]; score =
/// composite when correctness > 0, else 0, so a confidently wrong answer earns nothing
/// for admission; correct exactly when correctness is 1.
pub fn shape(outcome: Outcome, output: &str, feedback: String) -> Grade {
    let (correctness, well_formed) = match outcome {
        Outcome::Right => (1.0, 1.0),
        Outcome::Hedged => (0.5, 1.0),
        Outcome::Wrong => (0.0, 1.0),
        Outcome::Partial(share) if share.is_finite() => (share.clamp(0.0, 1.0), 1.0),
        Outcome::Partial(_) | Outcome::Absent => (0.0, 0.0),
    };
    let chars = output.chars().count();
    let conciseness = if correctness == 0.0 && well_formed == 0.0 {
        0.0
    } else if chars <= CONCISE_CHARS {
        1.0
    } else if chars >= VERBOSE_CHARS {
        0.0
    } else {
        (VERBOSE_CHARS - chars) as f64 / (VERBOSE_CHARS - CONCISE_CHARS) as f64
    };
    let composite = (0.5 * correctness + 0.3 * well_formed + 0.2 * conciseness).clamp(0.0, 1.0);
    Grade {
        correct: correctness == 1.0,
        correctness,
        composite,
        score: if correctness > 0.0 { composite } else { 0.0 },
        feedback,
    }
}

/// A verifier: tasks from facts, and a pure grader for them.
pub trait Verifier {
    /// The name it is registered under.
    fn name(&self) -> &'static str;
    /// Every task the facts yield, groups in file order, kinds in a fixed order.
    fn tasks(&self) -> &[Task];
    /// Grades `output` for `task`, which must be one of [`Verifier::tasks`] (matched by
    /// `task_id`). Pure: no I/O, no randomness, no clock.
    fn grade(&self, task: &Task, output: &str) -> Grade;
}

/// A constructor of a verifier from its ground-truth table.
pub type Constructor = fn(&Table) -> Result<Box<dyn Verifier>, InputError>;

/// Every verifier, by name.
pub const REGISTRY: &[(&str, Constructor)] = &[
    ("arxiv", arxiv::ArxivVerifier::boxed),
    ("facts", facts::FactsVerifier::boxed),
];

/// The registered names, for `--help` and messages.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(name, _)| *name).collect()
}

/// Builds the verifier registered as `name` from its ground truth.
pub fn build(name: &str, truth: &Table) -> Result<Box<dyn Verifier>, InputError> {
    let (_, construct) = REGISTRY
        .iter()
        .find(|(registered, _)| *registered == name)
        .ok_or_else(|| {
            InputError::invalid(
                &truth.source,
                0,
                format!(
                    "no verifier named `{name}`; use one of: {}",
                    names().join(", ")
                ),
            )
        })?;
    construct(truth)
}
