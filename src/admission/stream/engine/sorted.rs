//! The join's rows once they go to external sorts: each row written as a record
//! without its task ([`encode`], [`decode`]), and the sorted files merged by task
//! ([`merge`]), a task's first row of each file together, a further row of it a
//! repeat.

use std::io;

use super::super::unique::Fingerprints;
use super::super::{HOLD, SIDES};
use super::{TaskSink, hand};
use crate::base::hash::fingerprint;
use crate::base::sorter::Merged;
use crate::scores::{ScoreRow, ScoredOutcome};

/// The next row of a sorted file.
fn advance(merged: &mut Merged<'_>) -> io::Result<Option<ScoreRow>> {
    match merged.next_record()? {
        None => Ok(None),
        Some((task, payload)) => {
            let task = std::str::from_utf8(task).map_err(|_| corrupt())?;
            decode(task, payload).map(Some)
        }
    }
}

/// Joins files sorted by task: the rows of one task, the first of each file (in file
/// order), go together; a further row of the task in a file is a repeat (marked, and
/// handed over alone; the holdout's are dropped).
pub(super) fn merge(
    merges: &mut [Merged<'_>],
    sink: &mut dyn TaskSink,
    prints: &mut Fingerprints,
    attached: &mut [ScoreRow; 2],
) -> io::Result<()> {
    let mut current: Vec<Option<ScoreRow>> = Vec::with_capacity(SIDES);
    for merged in merges.iter_mut() {
        current.push(advance(merged)?);
    }
    loop {
        let Some(task) = current.iter().flatten().map(|r| r.task.clone()).min() else {
            return Ok(());
        };
        let mut rows: Vec<Option<ScoreRow>> = vec![None; SIDES];
        for side in 0..SIDES {
            if current[side].as_ref().is_some_and(|r| r.task == task) {
                rows[side] = current[side].take();
                current[side] = advance(&mut merges[side])?;
                while let Some(repeat) = current[side].take_if(|r| r.task == task) {
                    if side != HOLD {
                        prints.suspect(side, fingerprint(&task));
                        let mut alone: [Option<&ScoreRow>; SIDES] = [None; SIDES];
                        alone[side] = Some(&repeat);
                        sink.task(alone)?;
                    }
                    current[side] = advance(&mut merges[side])?;
                }
            }
        }
        let rows: [Option<&ScoreRow>; SIDES] = std::array::from_fn(|s| rows[s].as_ref());
        hand(&task, rows, sink, prints, attached)?;
    }
}

fn corrupt() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a sorted row does not read back",
    )
}

/// A row without its task: line, score, flags (bit 0 correct known, 1 correct, 2
/// answered known, 3 answered, 4 stratum, 5 group, 6 feedback, 7 outcome), the
/// outcome's place in [`ScoredOutcome::ALL`] when known, then the texts present.
pub(super) fn encode(out: &mut Vec<u8>, row: &ScoreRow) {
    out.extend_from_slice(&row.line.to_le_bytes());
    out.extend_from_slice(&row.score.to_bits().to_le_bytes());
    let flags = u8::from(row.correct.is_some())
        | u8::from(row.correct == Some(true)) << 1
        | u8::from(row.answered.is_some()) << 2
        | u8::from(row.answered == Some(true)) << 3
        | u8::from(row.stratum().is_some()) << 4
        | u8::from(row.group().is_some()) << 5
        | u8::from(row.feedback().is_some()) << 6
        | u8::from(row.outcome.is_some()) << 7;
    out.push(flags);
    if let Some(outcome) = row.outcome {
        let at = ScoredOutcome::ALL.iter().position(|o| *o == outcome);
        out.push(at.unwrap_or_default() as u8);
    }
    for text in [row.stratum(), row.group(), row.feedback()]
        .into_iter()
        .flatten()
    {
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
}

fn decode(task: &str, bytes: &[u8]) -> io::Result<ScoreRow> {
    let mut at = 0;
    let mut take = |n: usize| -> io::Result<&[u8]> {
        let part = bytes.get(at..at + n).ok_or_else(corrupt)?;
        at += n;
        Ok(part)
    };
    let number = |part: &[u8]| u64::from_le_bytes(part.try_into().expect("eight bytes"));
    let line = number(take(8)?);
    let score = f64::from_bits(number(take(8)?));
    let flags = take(1)?[0];
    let outcome = if flags & 1 << 7 == 0 {
        None
    } else {
        let at = usize::from(take(1)?[0]);
        Some(*ScoredOutcome::ALL.get(at).ok_or_else(corrupt)?)
    };
    let mut text = |bit: u8| -> io::Result<Option<String>> {
        if flags & bit == 0 {
            return Ok(None);
        }
        let length = usize::try_from(number(take(8)?)).map_err(|_| corrupt())?;
        String::from_utf8(take(length)?.to_vec())
            .map(Some)
            .map_err(|_| corrupt())
    };
    let stratum = text(1 << 4)?;
    let group = text(1 << 5)?;
    let feedback = text(1 << 6)?;
    let mut row = ScoreRow::from_parts(
        line,
        task,
        score,
        (flags & 1 != 0).then_some(flags & 2 != 0),
        (flags & 4 != 0).then_some(flags & 8 != 0),
        [stratum, group, feedback],
    );
    row.outcome = outcome;
    Ok(row)
}
