//! The `answers-complete` criterion: a crashed or cut-short run is not evidence. A task
//! an arm never answered (its scores file's `answered` column says 0, as `score
//! --allow-missing` writes it) is graded as an empty, wrong answer; decided on silently,
//! a baseline cut short makes any candidate look better. So the candidate is refused
//! while either arm has unanswered tasks, unless `--allow-missing` says to decide on
//! them as the wrong answers their scores files give them; then the criterion passes
//! and its counts stay in the reasons. Tasks that `evogate import --on-missing
//! intersect` left out of a scores file (its companion record counts them) count the
//! same way.

use super::pairing::{Pair, Pairs, Side};
use super::{Check, Criterion, Finding};
use crate::base::numbers::count;

/// How many unanswered tasks the evidence names.
const SHOWN_TASKS: usize = 5;

/// Tasks an import left out of one arm's scores file, as its companion record counts
/// them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LeftOut {
    /// How many tasks.
    pub count: usize,
    /// Why, e.g. `2 missing, 1 errored`.
    pub why: String,
    /// The first few of them, sorted.
    pub first: Vec<String>,
}

/// What `decide` needs to judge unanswered tasks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answers {
    /// `--allow-missing`: decide on unanswered tasks as the wrong answers their scores
    /// files give them, instead of refusing.
    pub allow_missing: bool,
    /// The tasks each arm's import left out: the baseline's, then the candidate's.
    pub left_out: [Option<LeftOut>; 2],
    /// The candidate's import record, when it says the candidate was chosen on these
    /// very scores (GEPA's best on its validation set).
    pub selected_on_these_scores: Option<String>,
}

/// The `not-selected-on-these-scores` finding, when the candidate's import record says
/// it was chosen on these scores: it fails, whatever the scores show.
pub(super) fn selection_evidence(answers: &Answers) -> Option<Finding> {
    let record = answers.selected_on_these_scores.as_ref()?;
    Some(Finding {
        criterion: Criterion::NotSelectedOnTheseScores,
        result: Check::Fail,
        proof: format!("{record} says selected_on_these_scores: true"),
        sentence: format!(
            "The candidate was chosen on these very scores ({record} says so, e.g. GEPA's best candidate on its validation set), so a gain on them is no evidence: admit it on a holdout it was not chosen on."
        ),
    })
}

/// One arm's unanswered tasks among the pairs, and what its import left out.
struct Arm<'a> {
    name: &'static str,
    file: &'a str,
    unanswered: usize,
    first: Vec<&'a str>,
    left_out: Option<&'a LeftOut>,
}

impl Arm<'_> {
    fn missing(&self) -> usize {
        self.unanswered + self.left_out.map_or(0, |l| l.count)
    }

    /// `baseline b.csv 46 of 136 unanswered (first: a, b)`, and what its import
    /// left out.
    fn proof(&self, n: usize) -> String {
        let mut text = format!(
            "{} {} {} of {n} unanswered{}",
            self.name,
            self.file,
            self.unanswered,
            first(&self.first, self.unanswered)
        );
        if let Some(left) = self.left_out.filter(|l| l.count > 0) {
            text.push_str(&format!(
                ", {} left out by its import: {}{}",
                left.count,
                left.why,
                first(&left.first, left.count)
            ));
        }
        text
    }

    /// `the baseline did not answer 46 of the 136 tasks (first: ...)`.
    fn sentence(&self, n: usize) -> String {
        let mut text = format!(
            "the {} did not answer {} of the {}{}",
            self.name,
            self.unanswered,
            count(n as u64, "task"),
            first(&self.first, self.unanswered)
        );
        if let Some(left) = self.left_out.filter(|l| l.count > 0) {
            text.push_str(&format!(
                " and its import left out {} more ({})",
                left.count, left.why
            ));
        }
        text
    }
}

/// ` (first: a, b, ...)`, or nothing when there are none.
fn first<S: AsRef<str>>(shown: &[S], count: usize) -> String {
    if shown.is_empty() {
        return String::new();
    }
    // Plain, as the other findings name tasks: the Markdown writer escapes them.
    let ids: Vec<&str> = shown.iter().map(AsRef::as_ref).collect();
    let more = if count > shown.len() { ", ..." } else { "" };
    format!(" (first: {}{more})", ids.join(", "))
}

/// One arm's unanswered tasks among the pairs, in task order: how many, the first few.
fn unanswered(pairs: &Pairs, side: impl Fn(&Pair) -> &Side) -> (usize, Vec<&str>) {
    let mut count = 0;
    let mut first = Vec::new();
    for pair in pairs.pairs.iter().filter(|p| !side(p).answered) {
        count += 1;
        if first.len() < SHOWN_TASKS {
            first.push(pairs.task(pair));
        }
    }
    (count, first)
}

/// The `answers-complete` finding, when either file says which tasks were answered
/// (an `answered` column, or an import record that left tasks out); with it, whether
/// its sentence belongs in the reasons whatever the verdict (unanswered tasks decided
/// on under `--allow-missing`). Time: O(n).
pub(super) fn answers_evidence(pairs: &Pairs, answers: &Answers) -> Option<(Finding, bool)> {
    answers_finding(
        [pairs.baseline_has_answered, pairs.candidate_has_answered],
        [&pairs.baseline, &pairs.candidate],
        [
            unanswered(pairs, |p| &p.baseline),
            unanswered(pairs, |p| &p.candidate),
        ],
        pairs.pairs.len(),
        answers,
    )
}

/// [`answers_evidence`] on what it needs of the pairs: whether each file has an
/// `answered` column, the files' names, each arm's unanswered tasks (how many, the first
/// few in task order) and the number of pairs.
pub(crate) fn answers_finding(
    has_answered: [bool; 2],
    files: [&str; 2],
    unanswered: [(usize, Vec<&str>); 2],
    n: usize,
    answers: &Answers,
) -> Option<(Finding, bool)> {
    let [base_left, cand_left] = &answers.left_out;
    let counted = |left: &Option<LeftOut>| left.as_ref().is_some_and(|l| l.count > 0);
    if !(has_answered[0] || has_answered[1] || counted(base_left) || counted(cand_left)) {
        return None;
    }
    let [(base_count, base_first), (cand_count, cand_first)] = unanswered;
    let arms = [
        Arm {
            name: "baseline",
            file: files[0],
            unanswered: base_count,
            first: base_first,
            left_out: base_left.as_ref(),
        },
        Arm {
            name: "candidate",
            file: files[1],
            unanswered: cand_count,
            first: cand_first,
            left_out: cand_left.as_ref(),
        },
    ];
    let proofs: Vec<String> = arms.iter().map(|a| a.proof(n)).collect();
    let proofs = proofs.join(", ");
    let short: Vec<String> = arms
        .iter()
        .filter(|a| a.missing() > 0)
        .map(|a| a.sentence(n))
        .collect();
    let (result, proof, sentence) = if short.is_empty() {
        (
            Check::Pass,
            format!("every task answered: {proofs}"),
            "Both arms answered every task.".to_string(),
        )
    } else if answers.allow_missing {
        (
            Check::Pass,
            format!("unanswered tasks decided on as wrong answers (--allow-missing): {proofs}"),
            format!(
                "Unanswered tasks are decided on as the wrong answers their scores give them (--allow-missing): {}.",
                short.join(", and ")
            ),
        )
    } else {
        (
            Check::Fail,
            format!("{proofs}; --allow-missing not given"),
            format!(
                "Not every task was answered (no output, or an error instead of one): {}. A crashed or cut-short run is no evidence about the skill; rerun those tasks, or pass --allow-missing to decide on them as wrong answers.",
                short.join(", and ")
            ),
        )
    };
    let noted = result == Check::Pass && !short.is_empty();
    let finding = Finding {
        criterion: Criterion::AnswersComplete,
        result,
        proof,
        sentence,
    };
    Some((finding, noted))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::{
        Admission, Config, StrataRequest, Test, Verdict, decide, tests::pair_texts,
    };
    use crate::alpha::Alpha;

    /// Six tasks; the candidate right on `wins` of them, the baseline on none, with
    /// each file's `answered` column when given.
    fn files(wins: usize, answered: [Option<&str>; 2]) -> (String, String) {
        let file = |right: usize, answered: Option<&str>| {
            let mut text = String::from("task_id,correct,score");
            text.push_str(if answered.is_some() {
                ",answered\n"
            } else {
                "\n"
            });
            for task in 0..6 {
                let value = u8::from(task < right);
                text.push_str(&format!("t{task},{value},{value}"));
                if let Some(flags) = answered {
                    text.push_str(&format!(",{}", &flags[task..=task]));
                }
                text.push('\n');
            }
            text
        };
        (file(0, answered[0]), file(wins, answered[1]))
    }

    fn admit(base: &str, cand: &str, answers: Answers) -> Admission {
        let strata = StrataRequest {
            column: "kind".into(),
            required: false,
        };
        let pairs = pair_texts(base, cand, None, Some(&strata)).unwrap();
        let config = Config {
            alpha: Alpha::new(0.05).unwrap(),
            test: Test::McNemar,
            margin: None,
            holdout: None,
            cluster: false,
            answers,
        };
        decide(&pairs, &config)
    }

    fn finding(admission: &Admission) -> Option<&Finding> {
        admission
            .evidence
            .iter()
            .find(|e| e.criterion == Criterion::AnswersComplete)
    }

    #[test]
    fn unanswered_baseline_tasks_refuse_a_candidate_the_test_would_admit() {
        // Five wins of six: p = 2^-5 = 0.03125 < 0.05.
        let (base, cand) = files(5, [Some("110011"), Some("111111")]);
        let refused = admit(&base, &cand, Answers::default());
        assert_eq!(refused.verdict, Verdict::Refused);
        assert!((refused.tails.p_improvement - 0.03125).abs() < 1e-12);
        let found = finding(&refused).unwrap();
        assert_eq!(found.result, Check::Fail);
        assert_eq!(
            found.proof,
            "baseline b.csv 2 of 6 unanswered (first: t2, t3), candidate c.csv 0 of 6 unanswered; --allow-missing not given"
        );
        assert_eq!(refused.evidence[1].criterion, Criterion::AnswersComplete);
        assert_eq!(refused.reasons, std::slice::from_ref(&found.sentence));
        let allowed = Answers {
            allow_missing: true,
            ..Answers::default()
        };
        let admitted = admit(&base, &cand, allowed);
        assert_eq!(admitted.verdict, Verdict::Admitted);
        assert_eq!(finding(&admitted).unwrap().result, Check::Pass);
        assert!(admitted.reasons[0].contains("the baseline did not answer 2 of the 6 tasks"));
    }

    #[test]
    fn allowed_unanswered_tasks_stay_in_the_reasons_when_not_admitted() {
        // One win: p 0.5, not significant on 6 pairs, so inconclusive (the allowed gap
        // fails no criterion); the allowed gap is still named, after the verdict's reason.
        let (base, cand) = files(1, [Some("111111"), Some("111110")]);
        let allowed = Answers {
            allow_missing: true,
            ..Answers::default()
        };
        let decided = admit(&base, &cand, allowed);
        assert_eq!(decided.verdict, Verdict::Inconclusive);
        assert_eq!(finding(&decided).unwrap().result, Check::Pass);
        assert_eq!(decided.reasons.len(), 3, "{:?}", decided.reasons);
        assert!(decided.reasons[0].starts_with("Inconclusive: "));
        assert!(
            decided.reasons[1]
                .contains("the candidate did not answer 1 of the 6 tasks (first: t5)")
        );
        assert!(decided.reasons[2].contains("not significant"));
        // Not allowed, the gap refuses: an integrity criterion failed.
        let refused = admit(&base, &cand, Answers::default());
        assert_eq!(refused.verdict, Verdict::Refused);
        assert_eq!(refused.tasks_needed, None);
    }

    #[test]
    fn the_criterion_is_absent_without_word_of_answers_and_passes_on_a_full_column() {
        let (base, cand) = files(5, [None, None]);
        assert!(finding(&admit(&base, &cand, Answers::default())).is_none());
        let (base, cand) = files(5, [Some("111111"), None]);
        let complete = admit(&base, &cand, Answers::default());
        assert_eq!(finding(&complete).unwrap().result, Check::Pass);
        assert_eq!(complete.verdict, Verdict::Admitted);
    }

    #[test]
    fn tasks_an_import_left_out_refuse_without_an_answered_column() {
        let (base, cand) = files(5, [None, None]);
        let left = LeftOut {
            count: 7,
            why: "4 missing, 3 errored".into(),
            first: vec!["x".into(), "y".into()],
        };
        let answers = Answers {
            allow_missing: false,
            left_out: [None, Some(left)],
            ..Answers::default()
        };
        let refused = admit(&base, &cand, answers);
        let found = finding(&refused).unwrap();
        assert_eq!(found.result, Check::Fail);
        assert!(
            found.proof.contains(
                "candidate c.csv 0 of 6 unanswered, 7 left out by its import: 4 missing, 3 errored (first: x, y, ...)"
            ),
            "{}",
            found.proof
        );
        assert!(
            found.sentence.contains("its import left out 7 more"),
            "{}",
            found.sentence
        );
    }
}
