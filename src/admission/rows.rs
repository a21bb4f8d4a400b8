//! The pairs a report folder lists one by one (`pairs.csv`, the paired-scores plot), in
//! task order: held in memory ([`Pairs`]), or sorted outside memory as they were paired
//! ([`SortedPairs`], what `admit` on two scores files keeps). Both are read through
//! [`PairRows::each`], one [`PairView`] at a time.

use std::io;

use super::pairing::{Pair, Pairs, Side};
use crate::base::sorter::{Budget, RunStore, Sorted, Sorter};

/// One side of a pair as a report shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SideView<'a> {
    /// The score.
    pub score: f64,
    /// The ground truth's verdict, when the file has `correct`.
    pub correct: Option<bool>,
    /// The grader's feedback (untrusted text), when kept.
    pub feedback: Option<&'a str>,
}

/// One pair as a report shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PairView<'a> {
    /// The task.
    pub task: &'a str,
    /// Its group, when a file has `group`.
    pub group: Option<&'a str>,
    /// Its stratum, when a file has the strata column.
    pub stratum: Option<&'a str>,
    /// The baseline's side.
    pub baseline: SideView<'a>,
    /// The candidate's side.
    pub candidate: SideView<'a>,
}

impl PairView<'_> {
    /// candidate − baseline score.
    pub(crate) fn difference(&self) -> f64 {
        self.candidate.score - self.baseline.score
    }
}

/// The pairs a report lists, in task order.
#[derive(Debug, Clone)]
pub(crate) enum PairRows {
    /// Held in memory.
    Held(Pairs),
    /// Sorted outside memory.
    Sorted(std::sync::Arc<SortedPairs>),
}

impl PairRows {
    /// Hands every pair to `each`, in task order, until it fails.
    pub(crate) fn each(
        &self,
        each: &mut dyn FnMut(PairView<'_>) -> io::Result<()>,
    ) -> io::Result<()> {
        match self {
            PairRows::Held(pairs) => {
                let side = |side: &Side| SideView {
                    score: side.score,
                    correct: side.correct,
                    feedback: pairs.feedback(side),
                };
                pairs.pairs.iter().try_for_each(|pair: &Pair| {
                    each(PairView {
                        task: pairs.task(pair),
                        group: pairs.group(pair),
                        stratum: pairs.stratum(pair),
                        baseline: side(&pair.baseline),
                        candidate: side(&pair.candidate),
                    })
                })
            }
            PairRows::Sorted(sorted) => sorted.each(each),
        }
    }
}

/// Pairs written out as they were paired and read back in task order: memory holds
/// what [`Budget`] lets wait, the rest waits in the [`RunStore`].
pub(crate) struct SortedPairs {
    sorted: Sorted,
}

impl std::fmt::Debug for SortedPairs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.sorted.fmt(f)
    }
}

/// Pairs being gathered for [`SortedPairs`].
pub(crate) struct PairSorter<'s> {
    sorter: Sorter<'s>,
    payload: Vec<u8>,
}

impl<'s> PairSorter<'s> {
    /// No pairs yet; runs go to `store` once more than `budget` waits.
    pub(crate) fn new(store: &'s dyn RunStore, budget: Budget) -> PairSorter<'s> {
        PairSorter {
            sorter: Sorter::new(store, budget),
            payload: Vec::new(),
        }
    }

    /// Adds a pair.
    pub(crate) fn push(&mut self, pair: &PairView<'_>) -> io::Result<()> {
        self.payload.clear();
        encode(&mut self.payload, pair);
        self.sorter.push(pair.task.as_bytes(), &self.payload)
    }

    /// The pairs, ready to be read in task order.
    pub(crate) fn finish(self) -> SortedPairs {
        SortedPairs {
            sorted: self.sorter.finish(),
        }
    }
}

impl SortedPairs {
    fn each(&self, each: &mut dyn FnMut(PairView<'_>) -> io::Result<()>) -> io::Result<()> {
        let mut merged = self.sorted.merge()?;
        while let Some((task, payload)) = merged.next_record()? {
            let task = std::str::from_utf8(task).map_err(io::Error::other)?;
            each(decode(task, payload)?)?;
        }
        Ok(())
    }
}

/// Flags of a side: bit 0 correct known, bit 1 correct, bit 2 feedback present.
fn side_flags(side: &SideView<'_>) -> u8 {
    u8::from(side.correct.is_some())
        | u8::from(side.correct == Some(true)) << 1
        | u8::from(side.feedback.is_some()) << 2
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// A pair without its task: the two scores, the presence of group and stratum, each
/// side's flags, then the texts present.
fn encode(out: &mut Vec<u8>, pair: &PairView<'_>) {
    out.extend_from_slice(&pair.baseline.score.to_bits().to_le_bytes());
    out.extend_from_slice(&pair.candidate.score.to_bits().to_le_bytes());
    out.push(u8::from(pair.group.is_some()) | u8::from(pair.stratum.is_some()) << 1);
    out.push(side_flags(&pair.baseline));
    out.push(side_flags(&pair.candidate));
    for text in [
        pair.group,
        pair.stratum,
        pair.baseline.feedback,
        pair.candidate.feedback,
    ]
    .into_iter()
    .flatten()
    {
        put_text(out, text);
    }
}

fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a sorted pair does not read back",
    )
}

fn decode<'a>(task: &'a str, bytes: &'a [u8]) -> io::Result<PairView<'a>> {
    let mut at = 0;
    let mut take = |n: usize| -> io::Result<&'a [u8]> {
        let part = bytes.get(at..at + n).ok_or_else(corrupt)?;
        at += n;
        Ok(part)
    };
    let number = |part: &[u8]| u64::from_le_bytes(part.try_into().expect("eight bytes"));
    let baseline = f64::from_bits(number(take(8)?));
    let candidate = f64::from_bits(number(take(8)?));
    let present = take(3)?;
    let (shape, flags) = (present[0], [present[1], present[2]]);
    let mut text = |wanted: bool| -> io::Result<Option<&'a str>> {
        if !wanted {
            return Ok(None);
        }
        let length = usize::try_from(number(take(8)?)).map_err(|_| corrupt())?;
        std::str::from_utf8(take(length)?)
            .map(Some)
            .map_err(|_| corrupt())
    };
    let group = text(shape & 1 != 0)?;
    let stratum = text(shape & 2 != 0)?;
    let base_feedback = text(flags[0] & 4 != 0)?;
    let cand_feedback = text(flags[1] & 4 != 0)?;
    let side = |score: f64, flags: u8, feedback| SideView {
        score,
        correct: (flags & 1 != 0).then_some(flags & 2 != 0),
        feedback,
    };
    Ok(PairView {
        task,
        group,
        stratum,
        baseline: side(baseline, flags[0], base_feedback),
        candidate: side(candidate, flags[1], cand_feedback),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::sorter::MemoryRuns;

    #[test]
    fn sorted_pairs_read_back_in_task_order_with_every_field() {
        let store = MemoryRuns;
        let mut sorter = PairSorter::new(
            &store,
            Budget {
                least: 0,
                per_record: 0,
            },
        );
        let tasks = ["b", "a", "c", "é"];
        for (i, task) in tasks.iter().enumerate() {
            let feedback = (i % 2 == 0).then_some("no, \"not\"\nthis");
            sorter
                .push(&PairView {
                    task,
                    group: (i != 1).then_some("g"),
                    stratum: (i != 2).then_some(""),
                    baseline: SideView {
                        score: 0.25 * i as f64,
                        correct: (i != 3).then_some(i == 0),
                        feedback,
                    },
                    candidate: SideView {
                        score: -0.0,
                        correct: None,
                        feedback: None,
                    },
                })
                .unwrap();
        }
        let sorted = PairRows::Sorted(std::sync::Arc::new(sorter.finish()));
        let mut seen = Vec::new();
        sorted
            .each(&mut |pair| {
                seen.push(format!("{pair:?}"));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen.len(), 4);
        assert!(seen[0].starts_with("PairView { task: \"a\", group: None, stratum: Some(\"\"), baseline: SideView { score: 0.25, correct: Some(false), feedback: None }"), "{}", seen[0]);
        assert!(
            seen[1].contains("task: \"b\"")
                && seen[1].contains("feedback: Some(\"no, \\\"not\\\"\\nthis\")")
        );
        assert!(seen[2].contains("task: \"c\"") && seen[2].contains("stratum: None"));
        assert!(seen[3].contains("task: \"é\"") && seen[3].contains("correct: None"));
        assert!(seen[3].contains("score: -0.0"));
    }
}
