//! Verifiers: each owns both halves of evaluation for one kind of skill. It turns
//! ground-truth facts into [`Task`]s, and grades an output for one of its tasks against
//! the facts. Adding a verifier is implementing [`Verifier`] (five methods) and adding
//! one line to [`REGISTRY`].

mod answer_marker;
pub mod arxiv;
pub(crate) mod choice;
pub mod facts;
pub(crate) mod flat;
pub mod normalize;
pub(crate) mod numeric;
pub(crate) mod offered;
pub(crate) mod one_answer;

pub use one_answer::Use;
pub(crate) mod reading;
pub(crate) mod short;

use crate::error::InputError;
use std::io::Read;

use crate::table::scan::RowScanner;
use crate::task::Task;
use one_answer::Streamed;
pub(crate) use one_answer::{BadRow, NotGraded, Rowwise, TruthRow};

/// The grade of one output.
#[derive(Debug, Clone, PartialEq)]
pub struct Grade {
    /// The ground truth's verdict: exactly right (correctness 1).
    pub correct: bool,
    /// In [0, 1]: 1 right, 1/k a hedge among k answers that includes the right one,
    /// partial credit where the verifier gives it, 0 wrong or no answer.
    pub correctness: f64,
    /// The shaped score for an optimizer, in [0, 1].
    pub composite: f64,
    /// The admission score: correctness × (0.8 + 0.2·conciseness), the composite the
    /// answer would have were it right, scaled by its correctness; 0 unless
    /// correctness > 0.
    pub score: f64,
    /// What the answer amounts to: right, hedged, partial, wrong, invalid or abstained.
    pub outcome: Outcome,
    /// One line an optimizer can act on; always names the expected value.
    pub feedback: String,
}

/// What the candidates found in an answer amount to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// Exactly one candidate, the expected one: correctness 1.
    Right,
    /// The expected one among this many distinct candidates (two or more): correctness
    /// 1/k, the mean of what the k answers alone would earn.
    Hedged(usize),
    /// Only candidates other than the expected: correctness 0, well-formed.
    Wrong,
    /// Partial credit: correctness is the share given, well-formed.
    Partial(f64),
    /// Nothing the verifier can read as an answer (no candidate, an expression where a
    /// number is asked for, a list too long to be a choice): correctness 0, not
    /// well-formed.
    Invalid,
    /// A refusal or "I don't know", and no answer besides: correctness 0, not
    /// well-formed.
    Abstained,
}

impl Outcome {
    /// The outcome's name in grades, scores files and reports: `right`, `hedged`,
    /// `partial`, `wrong`, `invalid` or `abstained`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Right => "right",
            Outcome::Hedged(_) => "hedged",
            Outcome::Wrong => "wrong",
            Outcome::Partial(_) => "partial",
            Outcome::Invalid => "invalid",
            Outcome::Abstained => "abstained",
        }
    }

    /// This outcome, except that no answer ([`Outcome::Invalid`]) in an `output` that
    /// refuses is [`Outcome::Abstained`].
    pub fn or_refusal(self, output: &str) -> Outcome {
        match self {
            Outcome::Invalid => Outcome::nothing(output),
            other => other,
        }
    }

    /// No answer found in `output`: [`Outcome::Abstained`] when it refuses (`I don't
    /// know`, `I won't say`, `not sure`: the shared reading's refusals), else
    /// [`Outcome::Invalid`].
    pub fn nothing(output: &str) -> Outcome {
        if reading::refuses(output) {
            Outcome::Abstained
        } else {
            Outcome::Invalid
        }
    }
}

/// Answers up to this many characters are fully concise.
pub const CONCISE_CHARS: usize = 800;
/// Answers from this many characters on have conciseness 0.
pub const VERBOSE_CHARS: usize = 4000;

/// Scores an outcome: conciseness 1 up to [`CONCISE_CHARS`], 0 from
/// [`VERBOSE_CHARS`], linear between, and 0 when nothing was answered; composite =
/// 0.5·correctness + 0.3·well-formed + 0.2·conciseness clamped to [0, 1]; score =
/// correctness × (0.8 + 0.2·conciseness), so the format terms scale the credit and
/// never add to it: a confidently wrong answer earns nothing for admission, and a
/// hedge among k earns at most 1/k; correct exactly when correctness is 1.
pub fn shape(outcome: Outcome, output: &str, feedback: String) -> Grade {
    let (correctness, well_formed) = match outcome {
        Outcome::Right => (1.0, 1.0),
        Outcome::Hedged(k) => (1.0 / k.max(1) as f64, 1.0),
        Outcome::Wrong => (0.0, 1.0),
        Outcome::Partial(share) if share.is_finite() => (share.clamp(0.0, 1.0), 1.0),
        Outcome::Partial(_) | Outcome::Invalid | Outcome::Abstained => (0.0, 0.0),
    };
    // A text has no more characters than bytes, so a short one needs no counting.
    let chars = if output.len() <= CONCISE_CHARS {
        output.len()
    } else {
        output.chars().count()
    };
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
    let outcome = match outcome {
        Outcome::Partial(_) if well_formed == 0.0 => Outcome::Invalid,
        Outcome::Partial(_) if correctness == 0.0 => Outcome::Wrong,
        other => other,
    };
    Grade {
        correct: correctness == 1.0,
        correctness,
        composite,
        score: (correctness * (0.8 + 0.2 * conciseness)).clamp(0.0, 1.0),
        outcome,
        feedback,
    }
}

/// At most this many characters of a response are quoted in feedback.
pub const QUOTED_CHARS: usize = 60;

/// A piece of a response as feedback quotes it: on one line, and cut to
/// [`QUOTED_CHARS`] characters with `...` when longer.
pub fn shown_briefly(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(QUOTED_CHARS) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line,
    }
}

/// A verifier: tasks from facts, and a pure grader for them.
///
/// Its tasks form a list reached by position: `score` grades a million outputs through
/// [`Verifier::find_task`], [`Verifier::task_names`] and [`Verifier::grade`] and never
/// reads a prompt, so a verifier need not hold [`Task`]s (with their prompts);
/// [`Verifier::tasks`] builds them when `split` asks.
pub trait Verifier {
    /// The number of tasks the facts yield.
    fn task_count(&self) -> usize;
    /// The group and kind of the task at `index` (below [`Verifier::task_count`]):
    /// groups in file order, kinds in a fixed order. Its `task_id` is
    /// [`crate::task::task_id`] of the two.
    fn task_names(&self, index: usize) -> (&str, &str);
    /// The prompt of the task at `index`.
    fn prompt(&self, index: usize) -> String;
    /// The position of the task whose `task_id` is exactly `task_id` (the first,
    /// should two share it), or `None` when no task has it.
    fn find_task(&self, task_id: &str) -> Option<usize>;
    /// Grades `output` for the task at `index`. Pure: no I/O, no randomness, no clock.
    fn grade(&self, index: usize, output: &str) -> Grade;

    /// [`Verifier::find_task`], given a likely answer first: files list tasks in runs
    /// (a paper's four kinds in order), so the task after the last one found is often
    /// the next, and checking that is cheaper than a lookup. The default ignores it.
    fn find_task_near(&self, task_id: &str, likely: usize) -> Option<usize> {
        let _ = likely;
        self.find_task(task_id)
    }

    /// Every task, in order, with its prompt.
    fn tasks(&self) -> Vec<Task> {
        (0..self.task_count())
            .map(|index| {
                let (group, kind) = self.task_names(index);
                Task::new(group, kind, self.prompt(index))
            })
            .collect()
    }
}

/// A ground-truth file being read row by row, its header read.
pub type TruthRows<'a> = RowScanner<Box<dyn Read + 'a>>;

/// Builds a verifier from its ground truth, read row by row, for a use.
pub type Build = fn(TruthRows<'_>, Use) -> Result<Box<dyn Verifier>, InputError>;

/// Every verifier: its name and how it is built. The arxiv and facts verifiers are
/// built alike for any use (facts builds its grading index at the first grade).
pub const REGISTRY: &[(&str, Build)] = &[
    ("arxiv", |rows, _| arxiv::ArxivVerifier::build(rows)),
    ("facts", |rows, _| facts::FactsVerifier::build(rows)),
    ("numeric", numeric::NumericVerifier::build),
    ("choice", choice::ChoiceVerifier::build),
    ("short", short::ShortVerifier::build),
];

/// The registered names, for `--help` and messages.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(name, _)| *name).collect()
}

/// Builds the verifier registered as `name` from the ground truth read from `truth`,
/// to grade; `source` names the file in messages.
pub fn build<'a>(
    name: &str,
    source: &str,
    truth: impl Read + 'a,
) -> Result<Box<dyn Verifier>, InputError> {
    build_for(name, source, truth, Use::Grading)
}

/// [`build`] for a use: [`Use::Listing`] (what `split` needs) holds less for the
/// benchmark verifiers, and grades the same, later.
pub fn build_for<'a>(
    name: &str,
    source: &str,
    truth: impl Read + 'a,
    purpose: Use,
) -> Result<Box<dyn Verifier>, InputError> {
    let truth: Box<dyn Read + 'a> = Box::new(truth);
    let rows: TruthRows<'a> = RowScanner::new(source, truth)?;
    let (_, build) = REGISTRY
        .iter()
        .find(|(registered, _)| *registered == name)
        .ok_or_else(|| {
            InputError::invalid(
                source,
                0,
                format!(
                    "no verifier named `{name}`; use one of: {}",
                    names().join(", ")
                ),
            )
        })?;
    let headers = rows.headers().to_vec();
    build(rows, purpose).map_err(|error| other_layout(name, source, &headers, error))
}

/// The verifier registered as `name` in its streamed form, its truth not read yet, or
/// `None` for a name not registered. `facts` holds its distinct answers once
/// [`Rowwise::read`] has read them, and `arxiv` its paper corpus (a task is graded
/// against the other papers' titles and first authors).
pub(crate) fn rowwise(name: &str) -> Option<Box<dyn Rowwise>> {
    match name {
        "numeric" => Some(Box::new(Streamed::<numeric::Numeric>::RULE)),
        "choice" => Some(Box::new(Streamed::<choice::Choice>::RULE)),
        "short" => Some(Box::new(Streamed::<short::Short>::RULE)),
        "facts" => Some(Box::new(facts::FactsRows::new())),
        "arxiv" => Some(Box::new(arxiv::rows::ArxivRows::new())),
        _ => None,
    }
}

/// Reads the ground truth in `truth` (named `source`) for the streamed verifier
/// `name` ([`rowwise`]), handing every good row to `each`: the errors are those of
/// [`build`], less the repeated task ids the caller checks.
pub(crate) fn read_rowwise<'a>(
    name: &str,
    verifier: &dyn Rowwise,
    source: &str,
    truth: impl Read + 'a,
    each: &mut dyn FnMut(&TruthRow<'_>),
) -> Result<u64, BadRow> {
    let truth: Box<dyn Read + 'a> = Box::new(truth);
    let bad = |error| BadRow {
        line: 0,
        error,
        id: None,
    };
    let rows: TruthRows<'a> = RowScanner::new(source, truth).map_err(bad)?;
    let headers = rows.headers().to_vec();
    verifier.read(rows, each).map_err(|bad| BadRow {
        error: other_layout(name, source, &headers, bad.error),
        ..bad
    })
}

/// A missing column of a truth file that is in another verifier's layout, said as that:
/// the facts layout given to the arxiv verifier (the default of `--verifier`) asks for
/// `--verifier facts|numeric|choice|short`, not for an `arxiv_id` column; an arxiv truth
/// given to another verifier asks for `--verifier arxiv`. Any other error is kept.
fn other_layout(name: &str, source: &str, headers: &[String], error: InputError) -> InputError {
    if !matches!(error, InputError::MissingColumn { .. }) {
        return error;
    }
    let has = |column: &str| headers.iter().any(|h| h == column);
    let header = headers.join(",");
    let message = if name == "arxiv" && has("question") && has("answer") {
        format!(
            "the header `{header}` is the facts layout (a question and its answer a row), which the arxiv verifier, --verifier's default, does not read (it needs arxiv_id,title,first_author,year); give --verifier facts, numeric, choice or short (docs/grading.md says which fits)"
        )
    } else if name != "arxiv" && has("arxiv_id") && has("title") {
        format!(
            "the header `{header}` is the arxiv layout (arxiv_id,title,first_author,year), which the {name} verifier does not read (it needs group,kind,question,answer); give --verifier arxiv, or leave --verifier out"
        )
    } else {
        return error;
    };
    InputError::invalid(source, 1, message)
}

#[cfg(test)]
mod listing;
#[cfg(test)]
mod made_up;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::task_id;

    const SHIPPED: &[u8] = include_bytes!("../../data/arxiv/papers.csv");

    const ANSWERS: [&str; 6] = [
        "",
        "The paper is arXiv 1706.03762, \"Attention Is All You Need\" by Ashish Vaswani, 2017.",
        "Either 1810.04805 or 1706.03762; Jacob Devlin or Vaswani et al.",
        "BERT: Pre-training of Deep Bidirectional Transformers, 2018",
        "Paris, I think, or Berlin",
        "no idea",
    ];

    /// Checks every task reached by position against [`Verifier::tasks`]; `unique`
    /// says whether the tasks' ids are distinct (so each is found at its own place).
    fn reaches_every_task_by_position(verifier: &dyn Verifier, unique: bool) {
        let count = verifier.task_count();
        let tasks = verifier.tasks();
        assert_eq!(count, tasks.len());
        for (index, task) in tasks.iter().enumerate() {
            let found = verifier
                .find_task(&task.task_id)
                .expect("a task's id is found");
            for likely in [0, index, found, index + 1, count, usize::MAX] {
                assert_eq!(
                    verifier.find_task_near(&task.task_id, likely),
                    Some(found),
                    "{} near {likely}",
                    task.task_id
                );
            }
            let first = tasks.iter().position(|t| t.task_id == task.task_id);
            assert_eq!(Some(found), first, "{}", task.task_id);
            if unique {
                assert_eq!(found, index);
            }
            let (group, kind) = verifier.task_names(index);
            assert_eq!((group, kind), (task.group.as_str(), task.kind.as_str()));
            assert_eq!(task_id(group, kind), task.task_id);
            assert_eq!(verifier.prompt(index), task.prompt);
            // A task shares its grades with the task its id finds (itself, unless an
            // arXiv ID repeats).
            for answer in ANSWERS {
                assert_eq!(
                    verifier.grade(index, answer),
                    verifier.grade(found, answer),
                    "{} {answer:?}",
                    task.task_id
                );
            }
        }
    }

    /// Pieces the benchmark verifiers' rules look at, to build hostile outputs from.
    const PIECES: [&str; 41] = [
        "42",
        "-7",
        "−3",
        "1,000",
        "3/4",
        "1e-400",
        "10^2",
        "^",
        "_",
        "$",
        "\\boxed{",
        "\\sqrt{",
        "\\frac{1+",
        "}",
        "{",
        "=",
        "≈",
        " so ",
        " not ",
        "n't ",
        " because ",
        " is wrong",
        " is correct",
        "Answer: ",
        "The answer is ",
        "答案：",
        "Respuesta: ",
        "####",
        "\n",
        ", ",
        " or ",
        "A",
        "B",
        "(C)",
        "Vitamin D",
        "Ｂ",
        "\u{200b}",
        "ب",
        "I don't know",
        "Paris",
        "New York City",
    ];

    proptest::proptest! {
        #[test]
        fn the_benchmark_verifiers_grade_any_text_without_panicking(
            picks in proptest::collection::vec(0usize..PIECES.len(), 0..40),
        ) {
            let output: String = picks.iter().map(|&i| PIECES[i]).collect();
            for (name, text) in [
                ("numeric", "group,kind,question,answer\na,k,q,42\n"),
                ("choice", "group,kind,question,answer,options\na,k,q,B,Vitamin C|Vitamin D|Paris|New York|York City\n"),
                ("short", "group,kind,question,answer\na,k,q,Paris|New York City\n"),
            ] {
                let verifier = build(name, "t.csv", text.as_bytes()).unwrap();
                let grade = verifier.grade(0, &output);
                proptest::prop_assert!((0.0..=1.0).contains(&grade.score), "{name} {output:?}");
                proptest::prop_assert!(grade.score <= grade.correctness + 1e-12, "{name} {output:?}");
                proptest::prop_assert!((0.0..=1.0).contains(&grade.composite), "{name} {output:?}");
            }
        }
    }

    #[test]
    fn an_unknown_verifier_is_refused_naming_every_registered_one() {
        let error = build("nope", "t.csv", SHIPPED)
            .err()
            .expect("no verifier is named nope")
            .to_string();
        assert!(error.starts_with("`t.csv`"), "{error}");
        assert!(
            error.contains(
                "no verifier named `nope`; use one of: arxiv, facts, numeric, choice, short"
            ),
            "{error}"
        );
        assert_eq!(names(), ["arxiv", "facts", "numeric", "choice", "short"]);
    }

    #[test]
    fn the_arxiv_verifier_reaches_every_task_by_position_as_its_task_list_does() {
        let verifier = build("arxiv", "papers.csv", SHIPPED).unwrap();
        for id in [
            "1706.03762:title",
            "1706.03762:id",
            "1301.3781:first_author",
        ] {
            let index = verifier.find_task(id).unwrap();
            let (group, kind) = verifier.task_names(index);
            assert_eq!(task_id(group, kind), id);
        }
        reaches_every_task_by_position(verifier.as_ref(), true);
        for id in [
            "",
            ":",
            "1706.03762",
            "1706.03762:",
            ":id",
            "1706.03762:ID",
            "1706.03762:id ",
            " 1706.03762:id",
            "1706.03762:prompt",
            "1706.03762:id:id",
            "x:1706.03762:id",
            "1706.03762v1:id",
        ] {
            assert_eq!(verifier.find_task(id), None, "{id:?}");
            for likely in 0..6 {
                assert_eq!(verifier.find_task_near(id, likely), None, "{id:?}");
            }
        }
    }

    #[test]
    fn a_repeated_or_colon_holding_arxiv_id_is_found_as_the_task_list_finds_it() {
        let paper = |id: &str, title: &str, author: &str| crate::verify::arxiv::truth::Paper {
            arxiv_id: id.to_string(),
            title: title.to_string(),
            first_author: author.to_string(),
            year: 2017,
        };
        // `load_papers` refuses both, but the verifier's constructor takes any papers.
        let verifier = arxiv::ArxivVerifier::new(vec![
            paper("1706.03762", "Attention Is All You Need", "Ashish Vaswani"),
            paper("a:b", "Paris or Berlin", "Jacob Devlin"),
            paper("1706.03762", "BERT: Pre-training", "Jacob Devlin"),
        ]);
        assert_eq!(verifier.find_task("a:b:year"), Some(7));
        assert_eq!(verifier.find_task("1706.03762:year"), Some(3));
        reaches_every_task_by_position(&verifier, false);
    }

    #[test]
    fn the_facts_verifier_reaches_every_task_by_position_as_its_task_list_does() {
        let text = "group,kind,question,answer\n\
            fr,capital,Capital of France?,Paris\n\
            de,capital,Capital of Germany?,Berlin\n\
            a:b,c,Colons?,x|y\n\
            fr,river,River of Paris?,Seine\n";
        let verifier = build("facts", "f.csv", text.as_bytes()).unwrap();
        assert_eq!(verifier.find_task("a:b:c"), Some(2));
        assert_eq!(verifier.find_task("a:b"), None);
        assert_eq!(verifier.find_task("fr:capital "), None);
        reaches_every_task_by_position(verifier.as_ref(), true);
    }

    #[test]
    fn the_benchmark_verifiers_reach_every_task_by_position_as_their_task_lists_do() {
        for (name, text) in [
            (
                "numeric",
                "group,kind,question,answer
a,gsm8k,q1,7
a:b,c,q2,1/2
b,gsm8k,q3,50%
",
            ),
            (
                "choice",
                "group,kind,question,answer,options
a,arc,q1,B,x|y|z
a:b,c,q2,A,u|v
",
            ),
            (
                "short",
                "group,kind,question,answer
a,squad,q1,Paris|paris france
a:b,c,q2,x
",
            ),
        ] {
            let verifier = build(name, "t.csv", text.as_bytes()).unwrap();
            assert_eq!(verifier.find_task("a:b:c"), Some(1), "{name}");
            assert_eq!(verifier.find_task("a:b"), None, "{name}");
            reaches_every_task_by_position(verifier.as_ref(), true);
        }
    }

    #[test]
    fn a_benchmark_truth_read_for_listing_gives_the_prompts_and_grades_read_for_grading_gives() {
        for (name, text, outputs) in [
            (
                "numeric",
                "group,kind,question,answer\na,gsm8k,q1,7\nb,gsm8k,\"q\n2\",50%\nc,k, q3 ,1/2\n",
                vec!["7", "The answer is 0.5", "50", "no idea", "8 or 7"],
            ),
            (
                "choice",
                "group,kind,question,answer,options\na,arc,q1,B, x | y |z\nb,arc,q2,A,u|v\n",
                vec!["B", "Answer: y", "A or B", "z", ""],
            ),
            (
                "short",
                "group,kind,question,answer\na,squad,q1,Paris|paris france\nb,squad,q2, x \n",
                vec!["Paris", "x", "I don't know", "paris, France"],
            ),
        ] {
            let grading = build(name, "t.csv", text.as_bytes()).unwrap();
            let listing = build_for(name, "t.csv", text.as_bytes(), Use::Listing).unwrap();
            assert_eq!(grading.tasks(), listing.tasks(), "{name}");
            for index in 0..grading.task_count() {
                for output in &outputs {
                    assert_eq!(
                        grading.grade(index, output),
                        listing.grade(index, output),
                        "{name} {index} {output:?}"
                    );
                }
            }
        }
        // The options as the skill sees them: trimmed, lettered.
        let choice = "group,kind,question,answer,options\na,arc,q1,B, x | y |z\n";
        let listing = build_for("choice", "t.csv", choice.as_bytes(), Use::Listing).unwrap();
        assert_eq!(listing.prompt(0), "q1\nA. x\nB. y\nC. z");
    }
}
