//! The generic verifier, for any skill whose answers are checkable strings. Its truth
//! is `group,kind,question,answer`, where `answer` may list accepted aliases separated
//! by `|`. An alias is present when its normalised form occurs in the normalised answer
//! as whole words; the candidates are the task's aliases, the answers of every other
//! task of the same kind and the answers the output offers beside them that no task
//! holds (`verify::offered`, docs/grading.md), and the four outcomes and the scores are
//! the arxiv verifier's.

use std::collections::HashMap;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::normalize::{contains_words, normalize};
use super::offered::{Offered, Reader};
use super::one_answer::RowLines;
use super::{Grade, Outcome, TruthRows, Verifier, reading, shape};
use crate::base::hash::fingerprint;
use crate::base::index::HashIndex;
use crate::error::InputError;
use crate::table::{Table, require, trim_field};

mod known;
mod rows;

pub(crate) use rows::FactsRows;

/// The facts verifier. Its text is kept in two strings (the tasks' groups and
/// questions, the distinct answers), reached by position, and its lookups go by hash
/// indexes of positions checked against that text: a truth of a million tasks is held
/// in about twice its size, not as a million strings of each kind. The index that
/// grading needs (each kind's aliases) is built at the first grade, so `split`, which
/// never grades, holds only the tasks and their answers.
#[derive(Debug, Clone)]
pub struct FactsVerifier {
    /// Every task's group then its question, one task after the other.
    text: String,
    /// Each task, in file order.
    tasks: Vec<TaskAt>,
    /// Each kind's name, in order of first appearance.
    kinds: Vec<String>,
    /// Every distinct answer: its display form, then each normalised alias after a
    /// `|` (neither can hold one). Tasks that share an answer share one entry, so
    /// grading looks at each distinct answer once however many tasks give it.
    answer_text: String,
    /// Where each distinct answer starts in `answer_text` (it ends where the next
    /// starts).
    answers: Vec<usize>,
    /// The tasks by the fingerprint of their id.
    by_id: HashIndex,
    /// What grading looks answers up in, built at the first grade.
    grading: OnceLock<Grading>,
}

/// Where one task's names are: its question ends where the next task's group starts.
#[derive(Debug, Clone, Copy)]
struct TaskAt {
    /// Where its group starts in the verifier's text.
    group: usize,
    /// The length of its group, after which its question starts.
    group_len: u32,
    /// Its kind, an index into the verifier's kinds.
    kind: u32,
    /// Its answer, an index into the verifier's answers.
    answer: u32,
}

/// The alias index of every kind and each answer's first task in each kind.
#[derive(Debug, Clone, Default)]
struct Grading {
    kinds: Vec<KindIndex>,
    first_tasks: FirstTasks,
}

/// The aliases of one kind's answers, by their text.
#[derive(Debug, Clone, Default)]
struct KindIndex {
    /// Each normalised alias's fingerprint with an answer (an index into the
    /// verifier's answers) it belongs to, sorted, each pair once: sorted pairs take
    /// 16 bytes an alias where a hash map of lists took six times that.
    by_alias: Vec<(u64, u32)>,
    /// How many words the aliases have, each length once, shortest first.
    lengths: Vec<usize>,
}

impl KindIndex {
    /// Files the normalised `aliases` of answer `answer` (met first in this kind).
    fn add<'a>(&mut self, answer: u32, aliases: impl Iterator<Item = &'a str>) {
        for alias in aliases {
            self.by_alias.push((fingerprint(alias), answer));
            let words = alias.split(' ').count();
            if let Err(at) = self.lengths.binary_search(&words) {
                self.lengths.insert(at, words);
            }
        }
    }

    /// The index made ready for lookups: the pairs sorted, each once.
    fn finish(&mut self) {
        self.by_alias.sort_unstable();
        self.by_alias.dedup();
        self.by_alias.shrink_to_fit();
    }

    /// The answers with an alias of fingerprint `print`, in the order of their numbers.
    fn answers_of(&self, print: u64) -> impl Iterator<Item = u32> + '_ {
        let from = self.by_alias.partition_point(|&(p, _)| p < print);
        self.by_alias[from..]
            .iter()
            .take_while(move |&&(p, _)| p == print)
            .map(|&(_, answer)| answer)
    }
}

/// Each answer's first task in each kind that gives it: most answers belong to one
/// kind, so a slot an answer holds the first, and a map the rest.
#[derive(Debug, Clone, Default)]
struct FirstTasks {
    /// For each answer: the first kind that gives it, and its first task there.
    home: Vec<(u32, u32)>,
    /// (kind, answer) to the first task, for the answer's other kinds.
    elsewhere: FxHashMap<(u32, u32), u32>,
}

impl FirstTasks {
    /// Records `task` of `kind` giving `answer`; true when the answer is new to the
    /// kind.
    fn add(&mut self, kind: u32, answer: u32, task: u32) -> bool {
        match self.home.get(answer as usize) {
            None => {
                self.home.push((kind, task));
                true
            }
            Some(&(home, _)) if home == kind => false,
            Some(_) => match self.elsewhere.entry((kind, answer)) {
                std::collections::hash_map::Entry::Occupied(_) => false,
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(task);
                    true
                }
            },
        }
    }

    /// The first task of `kind` giving `answer` (one that does).
    fn of(&self, kind: u32, answer: u32) -> u32 {
        match self.home[answer as usize] {
            (home, task) if home == kind => task,
            _ => self
                .elsewhere
                .get(&(kind, answer))
                .copied()
                .unwrap_or(u32::MAX),
        }
    }
}

/// Whether `id` is `group:kind` ([`crate::task::task_id`]), without making it.
fn is_id(id: &str, group: &str, kind: &str) -> bool {
    id.len() == group.len() + 1 + kind.len()
        && id.starts_with(group)
        && id.as_bytes()[group.len()] == b':'
        && id.ends_with(kind)
}

/// The fingerprint of the id `group:kind`, made in `buffer`.
fn id_print(buffer: &mut String, group: &str, kind: &str) -> u64 {
    buffer.clear();
    buffer.push_str(group);
    buffer.push(':');
    buffer.push_str(kind);
    fingerprint(buffer)
}

/// A row refused: its error, and its id when the row got as far as naming its task
/// (a repeated id is reported before what else is wrong with the row).
struct Refusal {
    error: InputError,
    id: Option<String>,
    line: u64,
}

/// A facts verifier being read, a row at a time.
struct Reading {
    source: String,
    /// The columns group, kind, question and answer.
    at: [usize; 4],
    verifier: FactsVerifier,
    /// The line of each task's row, for the message about a repeated one.
    lines: RowLines,
    /// The distinct answers by the fingerprint of their text.
    known: HashIndex,
    /// The kinds by name.
    kind_of: HashMap<String, u32>,
}

impl Reading {
    fn new(source: &str, headers: &[String]) -> Result<Reading, InputError> {
        let column = |name| require(source, headers, name);
        Ok(Reading {
            source: source.to_string(),
            at: [
                column("group")?,
                column("kind")?,
                column("question")?,
                column("answer")?,
            ],
            verifier: FactsVerifier {
                text: String::new(),
                tasks: Vec::new(),
                kinds: Vec::new(),
                answer_text: String::new(),
                answers: Vec::new(),
                by_id: HashIndex::default(),
                grading: OnceLock::new(),
            },
            lines: RowLines::default(),
            known: HashIndex::default(),
            kind_of: HashMap::new(),
        })
    }

    /// Adds the row at `line` whose field `i` is `field(i)`: every field non-empty, an
    /// answer with an alias. That each `group:kind` comes once is checked when the
    /// reading ends ([`Reading::finish`]).
    fn add<'a>(&mut self, line: u64, field: impl Fn(usize) -> &'a str) -> Result<(), Refusal> {
        let ([group, kind, question], entry) =
            self.check(line, field, self.verifier.tasks.len())?;
        let (kind, answer) = self.file(kind, &entry);
        self.push_task(group, question, kind, answer, line);
        Ok(())
    }

    /// The group, kind and question of the row at `line` whose field `i` is
    /// `field(i)`, and its answer's entry ([`FactsVerifier::answer_entry`]): every
    /// field non-empty, an answer with an alias, fewer than 2^32 - 2 rows before it
    /// (`read` of them).
    fn check<'a>(
        &self,
        line: u64,
        field: impl Fn(usize) -> &'a str,
        read: usize,
    ) -> Result<([&'a str; 3], String), Refusal> {
        let fail = |message: String, id: Option<String>| Refusal {
            error: InputError::invalid(&self.source, line, message),
            id,
            line,
        };
        let [group, kind, question, answer] = self.at.map(|i| trim_field(field(i)));
        for (value, name) in [
            (group, "group"),
            (kind, "kind"),
            (question, "question"),
            (answer, "answer"),
        ] {
            if value.is_empty() {
                return Err(fail(
                    format!("`{name}` is empty; fill it in or remove the row"),
                    None,
                ));
            }
        }
        let mut entry = answer
            .split('|')
            .next()
            .unwrap_or_default()
            .trim()
            .to_string();
        let shown = entry.len();
        for alias in answer.split('|').map(normalize).filter(|a| !a.is_empty()) {
            entry.push('|');
            entry.push_str(&alias);
        }
        if entry.len() == shown {
            return Err(fail(
                "`answer` has no letters or digits to match; give at least one alias".to_string(),
                Some(crate::task::task_id(group, kind)),
            ));
        }
        if read >= u32::MAX as usize - 1 {
            return Err(fail(
                "more tasks than a truth may hold (2^32 - 2)".to_string(),
                None,
            ));
        }
        Ok(([group, kind, question], entry))
    }

    /// The numbers of kind `kind` and of the answer whose entry is `entry`, each filed
    /// when new.
    fn file(&mut self, kind: &str, entry: &str) -> (u32, u32) {
        let verifier = &mut self.verifier;
        let entry_print = fingerprint(entry);
        let found = self
            .known
            .find(entry_print, |a| verifier.answer_entry(a) == entry);
        let answer = match found {
            Some(known) => known,
            None => {
                let next = verifier.answers.len() as u32;
                verifier.answers.push(verifier.answer_text.len());
                verifier.answer_text.push_str(entry);
                self.known.insert(entry_print, next);
                next
            }
        };
        let kind = match self.kind_of.get(kind) {
            Some(&known) => known,
            None => {
                let next = verifier.kinds.len() as u32;
                verifier.kinds.push(kind.to_string());
                self.kind_of.insert(kind.to_string(), next);
                next
            }
        };
        (kind, answer)
    }

    /// Adds the task of `group` and `question` of kind `kind` giving answer `answer`,
    /// read on `line`.
    fn push_task(&mut self, group: &str, question: &str, kind: u32, answer: u32, line: u64) {
        let verifier = &mut self.verifier;
        let task = verifier.tasks.len() as u32;
        let start = verifier.text.len();
        verifier.text.push_str(group);
        verifier.text.push_str(question);
        verifier.tasks.push(TaskAt {
            group: start,
            group_len: group.len() as u32,
            kind,
            answer,
        });
        self.lines.push(task, line);
    }

    /// The verifier read, its tasks indexed by id, or the first error in row order:
    /// a repeated `group:kind` among the rows read, or `refused`, the row the reading
    /// stopped at (itself a repeat when it named a task read before).
    fn finish(self, refused: Option<Refusal>) -> Result<FactsVerifier, InputError> {
        let Reading {
            source,
            mut verifier,
            lines,
            known,
            ..
        } = self;
        drop(known);
        let repeat = |id: &str, first: u32, line: u64| {
            InputError::invalid(
                &source,
                line,
                format!(
                    "task `{id}` appears again (first on row {}); keep one row per group and kind",
                    lines.of(first)
                ),
            )
        };
        let mut by_id = HashIndex::with_capacity(verifier.tasks.len());
        let mut buffer = String::new();
        for task in 0..verifier.tasks.len() as u32 {
            let (group, kind) = verifier.task_names(task as usize);
            let print = id_print(&mut buffer, group, kind);
            let first = by_id.find(print, |i| {
                let (g, k) = verifier.task_names(i as usize);
                is_id(&buffer, g, k)
            });
            if let Some(first) = first {
                return Err(repeat(&buffer, first, lines.of(task)));
            }
            by_id.insert(print, task);
        }
        if let Some(Refusal { error, id, line }) = refused {
            let first = id.as_deref().and_then(|id| {
                by_id.find(fingerprint(id), |i| {
                    let (g, k) = verifier.task_names(i as usize);
                    is_id(id, g, k)
                })
            });
            return Err(match (first, id) {
                (Some(first), Some(id)) => repeat(&id, first, line),
                _ => error,
            });
        }
        verifier.by_id = by_id;
        verifier.text.shrink_to_fit();
        verifier.tasks.shrink_to_fit();
        verifier.answer_text.shrink_to_fit();
        verifier.answers.shrink_to_fit();
        Ok(verifier)
    }
}

impl FactsVerifier {
    /// Reads the facts table: every field non-empty, each `group:kind` once.
    pub fn from_table(table: &Table) -> Result<FactsVerifier, InputError> {
        table.require_rows()?;
        let mut reading = Reading::new(&table.source, &table.headers)?;
        for row in &table.rows {
            if let Err(refusal) = reading.add(row.line, |i| row.fields[i].as_str()) {
                return reading.finish(Some(refusal));
            }
        }
        reading.finish(None)
    }

    /// [`FactsVerifier::from_table`] of a facts file read row by row (its header
    /// read): the registry's constructor. The rows are not gathered: each is filed as
    /// it is read. The first error is [`FactsVerifier::from_table`]'s, after the rest
    /// of the file is read (a malformed row later in the file is reported first, as
    /// reading the table whole reports it).
    pub fn build(mut rows: TruthRows<'_>) -> Result<Box<dyn Verifier>, InputError> {
        let source = rows.source().to_string();
        let headers = rows.headers().to_vec();
        let mut reading: Option<Reading> = None;
        let mut refused: Option<Refusal> = None;
        while let Some(row) = rows.next_row()? {
            if refused.is_some() {
                continue;
            }
            let step = match &mut reading {
                Some(reading) => reading.add(row.line, |i| row.field(i)),
                None => match Reading::new(&source, &headers) {
                    Ok(mut first) => {
                        let step = first.add(row.line, |i| row.field(i));
                        reading = Some(first);
                        step
                    }
                    Err(error) => Err(Refusal {
                        error,
                        id: None,
                        line: row.line,
                    }),
                },
            };
            refused = step.err();
        }
        match reading {
            Some(reading) => Ok(Box::new(reading.finish(refused)?)),
            None => Err(refused.map_or(InputError::NoRows { file: source }, |r| r.error)),
        }
    }

    /// Distinct answer `answer`'s entry: its display form and its normalised aliases,
    /// each after a `|`.
    fn answer_entry(&self, answer: u32) -> &str {
        let start = self.answers[answer as usize];
        let end = self
            .answers
            .get(answer as usize + 1)
            .copied()
            .unwrap_or(self.answer_text.len());
        &self.answer_text[start..end]
    }

    /// Distinct answer `answer`'s display form and its normalised aliases.
    fn answer(&self, answer: u32) -> (&str, std::str::Split<'_, char>) {
        let mut parts = self.answer_entry(answer).split('|');
        let shown = parts.next().unwrap_or_default();
        (shown, parts)
    }

    /// The alias index, built at the first call: each kind's aliases filed in the
    /// order of their answers' first tasks, as reading the tasks in order meets them.
    fn grading(&self) -> &Grading {
        self.grading.get_or_init(|| {
            let mut grading = Grading {
                kinds: vec![KindIndex::default(); self.kinds.len()],
                first_tasks: FirstTasks::default(),
            };
            grading.first_tasks.home.reserve_exact(self.answers.len());
            for (task, at) in self.tasks.iter().enumerate() {
                if grading.first_tasks.add(at.kind, at.answer, task as u32) {
                    let aliases = self.answer(at.answer).1;
                    grading.kinds[at.kind as usize].add(at.answer, aliases);
                }
            }
            for kind in &mut grading.kinds {
                kind.finish();
            }
            grading
        })
    }

    /// Where task `index`'s question starts and ends in the text.
    fn question(&self, index: usize) -> (usize, usize) {
        let task = &self.tasks[index];
        let end = self
            .tasks
            .get(index + 1)
            .map_or(self.text.len(), |next| next.group);
        (task.group + task.group_len as usize, end)
    }

    /// The answers of kind `kind` with an alias that occurs in `answer` (normalised)
    /// as whole words, each once, in the order of their first task of this kind: every
    /// run of the answer's words as long as some alias looked up (a normalised text's
    /// words are separated by single spaces). Time: the runs looked up and the distinct
    /// answers found, whatever the number of tasks that give them.
    fn present(&self, kind: u32, answer: &str) -> Vec<u32> {
        let grading = self.grading();
        let index = &grading.kinds[kind as usize];
        let words = word_spans(answer);
        let mut found = Vec::new();
        for first in 0..words.len() {
            for &length in &index.lengths {
                let Some(&(_, end)) = words.get(first + length - 1) else {
                    break;
                };
                let run = &answer[words[first].0..end];
                for candidate in index.answers_of(fingerprint(run)) {
                    if self.answer(candidate).1.any(|alias| alias == run) {
                        found.push((grading.first_tasks.of(kind, candidate), candidate));
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|(_, answer)| answer).collect()
    }
}

/// Where each word of `answer` (normalised: words separated by single spaces) starts
/// and ends, in order: the runs of these words are what the alias lookups try.
pub(super) fn word_spans(answer: &str) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = 0;
    for (at, byte) in answer.bytes().enumerate() {
        if byte == b' ' {
            words.push((start, at));
            start = at + 1;
        }
    }
    if !answer.is_empty() {
        words.push((start, answer.len()));
    }
    words
}

/// The other answers (by their display form, each once) among `found`, the entries of
/// the answers of the task's kind present in its output in the order of their first
/// task, the task's aliases being `aliases`: the task's own answer, and every other
/// task's that shares an alias with it, is no other answer.
fn known_others<'a>(aliases: &[&str], found: &[&'a str]) -> Vec<&'a str> {
    let mut others: Vec<&str> = Vec::new();
    for other in found {
        let mut parts = other.split('|');
        let other_shown = parts.next().unwrap_or_default();
        let distinct = !parts.any(|a| aliases.contains(&a));
        if distinct && !others.contains(&other_shown) {
            others.push(other_shown);
        }
    }
    others
}

/// The answers `output` offers beside the known answers found in it (`found`, as
/// [`known_others`] takes them; `answer` is its normalised form, `aliases` the task's
/// own): made-up names among them, which the index cannot know ([`Offered`]), and
/// numbers where the task's answer is one. None when the task's answer is in the output
/// but cannot be placed among its words.
fn made_up(aliases: &[&str], output: &str, answer: &str, found: &[&str]) -> Vec<String> {
    let mut offered = Offered::new(output);
    let mut placed = false;
    for alias in aliases {
        placed |= offered.mark(alias);
    }
    if !placed && aliases.iter().any(|alias| contains_words(answer, alias)) {
        return Vec::new();
    }
    for other in found {
        for alias in other.split('|').skip(1) {
            offered.mark(alias);
        }
    }
    let number = |alias: &&str| {
        alias
            .split(' ')
            .all(|w| w.bytes().all(|b| b.is_ascii_digit()))
    };
    offered.others(&Reader {
        unit: 1,
        et_al_names: false,
        least_words: 1,
        excluded: &|_| false,
        short_needs: &|_| true,
        numbers: aliases.iter().any(number),
    })
}

/// The grade of `output` (normalised: `answer`) for a task whose answer's entry is
/// `entry` ([`FactsVerifier::answer_entry`]), `found` being the entries of its kind's
/// answers present in the output, in the order of their first task
/// ([`FactsVerifier::present`]): the task's own, and those that share an alias with it,
/// may be among them or not. The one grading of the verifier held whole and of the
/// one whose answers wait on disk ([`rows::FactsRows`]).
fn grade_found(entry: &str, output: &str, answer: &str, found: &[&str]) -> Grade {
    let mut parts = entry.split('|');
    let shown = parts.next().unwrap_or_default();
    let aliases: Vec<&str> = parts.collect();
    let expected = aliases.iter().any(|alias| contains_words(answer, alias));
    let others = known_others(&aliases, found);
    // The answers offered beside the known ones, made-up names included: asked for
    // only where they change the outcome (a right answer, or none known).
    let made_up: Vec<String> = if expected || others.is_empty() {
        made_up(&aliases, output, answer, found)
    } else {
        Vec::new()
    };
    let mut offered: Vec<&str> = others.clone();
    offered.extend(made_up.iter().map(String::as_str));
    let (outcome, feedback) = match (expected, offered.is_empty()) {
        (true, true) => (Outcome::Right, format!("correct answer {shown}")),
        (true, false) => (
            Outcome::Hedged(1 + offered.len()),
            format!(
                "hedged: {shown} among {shown}, {}; give one answer",
                listed(&offered)
            ),
        ),
        (false, false) if others.is_empty() && reading::refuses(output) => (
            Outcome::Abstained,
            format!("no accepted answer found; expected {shown}"),
        ),
        (false, false) => (
            Outcome::Wrong,
            format!("expected {shown}, response said {}", listed(&offered)),
        ),
        (false, true) => (
            Outcome::nothing(output),
            format!("no accepted answer found; expected {shown}"),
        ),
    };
    shape(outcome, output, feedback)
}

/// At most this many offered answers are named in feedback; the rest are counted.
const NAMED_IN_FEEDBACK: usize = 10;

/// `answers` for feedback: the first [`NAMED_IN_FEEDBACK`] by name, then how many more.
fn listed(answers: &[&str]) -> String {
    let mut text = answers[..answers.len().min(NAMED_IN_FEEDBACK)].join(", ");
    if answers.len() > NAMED_IN_FEEDBACK {
        text.push_str(&format!(" and {} more", answers.len() - NAMED_IN_FEEDBACK));
    }
    text
}

impl Verifier for FactsVerifier {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn task_names(&self, index: usize) -> (&str, &str) {
        let task = &self.tasks[index];
        (
            &self.text[task.group..task.group + task.group_len as usize],
            &self.kinds[task.kind as usize],
        )
    }

    fn prompt(&self, index: usize) -> String {
        let (start, end) = self.question(index);
        self.text[start..end].to_string()
    }

    fn find_task(&self, task_id: &str) -> Option<usize> {
        self.by_id
            .find(fingerprint(task_id), |i| {
                let (group, kind) = self.task_names(i as usize);
                is_id(task_id, group, kind)
            })
            .map(|i| i as usize)
    }

    fn grade(&self, index: usize, output: &str) -> Grade {
        let task = self.tasks[index];
        let answer = normalize(output);
        let found: Vec<&str> = self
            .present(task.kind, &answer)
            .into_iter()
            .map(|other| self.answer_entry(other))
            .collect();
        grade_found(self.answer_entry(task.answer), output, &answer, &found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verifier() -> FactsVerifier {
        let text = "group,kind,question,answer\n\
            fr,capital,Capital of France?,Paris\n\
            de,capital,Capital of Germany?,Berlin\n\
            us,capital,Capital of the USA?,Washington D.C.|Washington|DC\n";
        FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap()
    }

    fn grade(id: &str, output: &str) -> Grade {
        let v = verifier();
        v.grade(v.find_task(id).unwrap(), output)
    }

    #[test]
    fn aliases_match_on_normalised_whole_words() {
        assert_eq!(
            grade("us:capital", "It is washington, d.c.").correctness,
            1.0
        );
        assert_eq!(grade("us:capital", "DC").correctness, 1.0);
        assert_eq!(grade("fr:capital", "PARIS!").score, 1.0);
        assert_eq!(grade("fr:capital", "Parisian").correctness, 0.0);
    }

    #[test]
    fn other_answers_of_the_kind_make_wrong_or_hedged() {
        let wrong = grade("fr:capital", "Berlin");
        assert_eq!(
            (wrong.correctness, wrong.composite, wrong.score),
            (0.0, 0.5, 0.0)
        );
        assert_eq!(wrong.feedback, "expected Paris, response said Berlin");
        let hedge = grade("fr:capital", "Paris or Berlin");
        assert_eq!((hedge.correctness, hedge.composite), (0.5, 0.75));
        let none = grade("fr:capital", "no idea");
        assert_eq!((none.correctness, none.composite), (0.0, 0.0));
        assert_eq!(none.feedback, "no accepted answer found; expected Paris");
    }

    #[test]
    fn refuses_duplicate_tasks_and_empty_fields_naming_the_row() {
        let dup = "group,kind,question,answer\na,k,q,x\na,k,q2,y\n";
        let error =
            FactsVerifier::from_table(&Table::parse("f.csv", dup.as_bytes()).unwrap()).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("`f.csv` row 3: task `a:k` appears again"),
            "{error}"
        );
        let empty = "group,kind,question,answer\na,k,,x\n";
        let error = FactsVerifier::from_table(&Table::parse("f.csv", empty.as_bytes()).unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("`question` is empty"), "{error}");
    }

    #[test]
    fn a_repeated_task_is_reported_first_with_both_rows_whatever_else_is_wrong_or_multiline() {
        for (text, expected) in [
            // The repeat has no alias either: the repeat is what is said.
            (
                "group,kind,question,answer\na,k,q,x\na,k,q2,!!\n",
                "`f.csv` row 3: task `a:k` appears again (first on row 2)",
            ),
            // A repeat before another refused row is reported, not that row.
            (
                "group,kind,question,answer\na,k,q,x\nb,k,q,y\na,k,q,z\nc,k,,w\n",
                "`f.csv` row 4: task `a:k` appears again (first on row 2)",
            ),
            // Rows on several lines: each row is named by its own first line.
            (
                "group,kind,question,answer\na,k,\"q\nq\",x\nb,k,\"q\n\nq\",y\nb,k,q,z\n",
                "`f.csv` row 7: task `b:k` appears again (first on row 4)",
            ),
            (
                "group,kind,question,answer\na,k,q,x\nb,k,q,y\nc,k,,w\na,k,q,z\n",
                "`f.csv` row 4: `question` is empty",
            ),
        ] {
            let (table, streamed) = read_both(text);
            assert!(table.starts_with(expected), "{text:?}: {table}");
            assert!(streamed.starts_with(expected), "{text:?}: {streamed}");
        }
    }

    /// What reading `text` gives, streamed or as a table: the tasks, or the error.
    fn read_both(text: &str) -> (String, String) {
        let shown = |read: Result<Box<dyn Verifier>, InputError>| match read {
            Ok(v) => (0..v.task_count())
                .map(|i| format!("{:?} {}", v.task_names(i), v.prompt(i)))
                .collect::<Vec<_>>()
                .join("; "),
            Err(error) => error.to_string(),
        };
        let table = Table::parse("f.csv", text.as_bytes()).and_then(|table| {
            FactsVerifier::from_table(&table).map(|v| Box::new(v) as Box<dyn Verifier>)
        });
        let input: Box<dyn std::io::Read> = Box::new(text.as_bytes());
        let streamed =
            crate::table::scan::RowScanner::new("f.csv", input).and_then(FactsVerifier::build);
        (shown(table), shown(streamed))
    }

    #[test]
    fn a_truth_read_as_a_stream_gives_the_tasks_and_the_first_error_the_table_gives() {
        for text in [
            "group,kind,question,answer\na,k,q1,x\nb,k,q2,y|z\nb,j,q3,x\n",
            "group,kind,question,answer\na,k,q,x\na,k,q2,y\n",
            // Two rows whose ids are both `a:b:c`, with other groups and kinds.
            "group,kind,question,answer\na:b,c,q,x\na,b:c,q,y\n",
            "group,kind,question,answer\na,k,,x\n",
            "group,kind,question,answer\na,k,q,!!\n",
            "group,kind,question,answer\n",
            "group,kind,q\nx,y,z\n",
            // A row too short after a row in error: the short row is reported.
            "group,kind,question,answer\na,k,,x\nb,k\n",
            "group,kind,question,answer\n a , k ,\" q \", x \n",
        ] {
            let (table, streamed) = read_both(text);
            assert_eq!(table, streamed, "{text}");
        }
        assert!(
            read_both("group,kind,question,answer\na:b,c,q,x\na,b:c,q,y\n")
                .1
                .contains("task `a:b:c` appears again (first on row 2)")
        );
    }

    /// The other answers of the kind present in `output`, found by trying every task
    /// of the kind in turn: the plain oracle of the alias index.
    fn naive_others(v: &FactsVerifier, index: usize, output: &str) -> Vec<String> {
        let answer = normalize(output);
        let answer_of = |task: usize| {
            let (shown, aliases) = v.answer(v.tasks[task].answer);
            (
                shown.to_string(),
                aliases.map(str::to_string).collect::<Vec<_>>(),
            )
        };
        let aliases = &answer_of(index).1;
        let mut others: Vec<String> = Vec::new();
        for other in 0..v.tasks.len() {
            let (shown, other_aliases) = answer_of(other);
            if other != index
                && v.tasks[other].kind == v.tasks[index].kind
                && !other_aliases.iter().any(|a| aliases.contains(a))
                && !others.contains(&shown)
                && other_aliases.iter().any(|a| contains_words(&answer, a))
            {
                others.push(shown);
            }
        }
        others
    }

    /// The other answers of the kind the alias index finds in `output` for task
    /// `index`, as grading finds them.
    fn index_others(v: &FactsVerifier, index: usize, output: &str) -> Vec<String> {
        let task = v.tasks[index];
        let aliases: Vec<&str> = v.answer(task.answer).1.collect();
        let found: Vec<&str> = v
            .present(task.kind, &normalize(output))
            .into_iter()
            .map(|other| v.answer_entry(other))
            .collect();
        known_others(&aliases, &found)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The other answers a grade's feedback names.
    fn named_others(grade: &Grade) -> Vec<String> {
        let feedback = &grade.feedback;
        let list = if let Some(rest) = feedback.split_once("response said ") {
            rest.1.to_string()
        } else if let Some((_, rest)) = feedback.split_once(" among ") {
            let rest = rest.trim_end_matches("; give one answer");
            rest.split_once(", ")
                .map_or(String::new(), |(_, r)| r.to_string())
        } else {
            String::new()
        };
        list.split(", ")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn the_alias_index_finds_the_other_answers_trying_every_task_finds(
            answers in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec!["a", "b", "c d", "d", "a b c", "e"]), 1..3),
                1..8,
            ),
            kinds in proptest::collection::vec(0u8..2, 8),
            words in proptest::collection::vec(proptest::sample::select(vec!["a", "b", "c", "d", "e", "x", "A-B", "c,d"]), 0..8),
        ) {
            let mut text = String::from("group,kind,question,answer\n");
            for (i, aliases) in answers.iter().enumerate() {
                text.push_str(&format!("g{i},k{},q,{}\n", kinds[i], aliases.join("|")));
            }
            let v = FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
            let output = words.join(" ");
            for index in 0..v.tasks.len() {
                let grade = v.grade(index, &output);
                proptest::prop_assert_eq!(named_others(&grade), naive_others(&v, index, &output), "{}", grade.feedback);
                proptest::prop_assert_eq!(index_others(&v, index, &output), naive_others(&v, index, &output));
            }
        }
    }

    #[test]
    fn twenty_thousand_tasks_of_one_kind_grade_each_answer_from_the_index() {
        let mut text = String::from("group,kind,question,answer\n");
        for i in 0..20_000 {
            text.push_str(&format!("g{i},k,q,answer {i}|alias{i}\n"));
        }
        let v =
            FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
        // Every answer graded, each against all 20,000 tasks of its kind: 4 * 10^8
        // alias checks the old way; a lookup per run of words here.
        let mut hedged = 0;
        for index in 0..v.tasks.len() {
            let other = (index + 1) % v.tasks.len();
            let grade = v.grade(index, &format!("answer {index} or alias{other}"));
            hedged += usize::from(grade.correctness == 0.5);
        }
        assert_eq!(hedged, 20_000);
    }

    #[test]
    fn tasks_that_share_an_answer_are_one_entry_of_the_index_and_grade_as_the_oracle() {
        // 3,000 tasks of one kind and three answers (one with an alias of its own and
        // one the same display answer under other aliases): the index holds three
        // answers, not 3,000 tasks, so a grade's work does not grow with the tasks that
        // give an answer.
        let mut text = String::from("group,kind,question,answer\n");
        let answers = ["Paris|City of Light", "Berlin", "Paris|Lutetia"];
        for i in 0..3_000 {
            text.push_str(&format!("g{i},capital,q,{}\n", answers[i % 3]));
        }
        text.push_str("h,river,q,Seine\n");
        let v =
            FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
        assert_eq!(v.answers.len(), 4);
        let capital = &v.grading().kinds[0];
        assert_eq!(v.kinds[0], "capital");
        // Three answers, four aliases: one entry each, whatever the 3,000 tasks.
        assert_eq!(capital.by_alias.len(), 5);
        assert_eq!(
            capital.answers_of(fingerprint("paris")).collect::<Vec<_>>(),
            vec![0, 2]
        );
        assert_eq!(capital.answers_of(fingerprint("berlin")).count(), 1);
        for output in [
            "Paris or Berlin",
            "Berlin, Lutetia",
            "the city of light",
            "Seine",
        ] {
            for index in [0, 1, 2, 3, 2_999, 3_000] {
                assert_eq!(
                    index_others(&v, index, output),
                    naive_others(&v, index, output),
                    "{output}"
                );
            }
        }
        let hedge = v.grade(1, "Paris or Berlin");
        assert_eq!(
            hedge.feedback,
            "hedged: Berlin among Berlin, Paris; give one answer"
        );
        // Lutetia is another task's alias of Paris, so no other answer.
        let wrong = v.grade(0, "Berlin, Lutetia");
        assert_eq!(wrong.feedback, "expected Paris, response said Berlin");
    }
}
