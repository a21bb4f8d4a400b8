//! Verifiers: each owns both halves of evaluation for one kind of skill. It turns
//! ground-truth facts into [`Task`]s, and grades an output for one of its tasks against
//! the facts. Adding a verifier is implementing [`Verifier`] and adding one line to
//! [`REGISTRY`].

pub mod arxiv;
pub mod facts;
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
