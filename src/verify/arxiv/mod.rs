//! The reference verifier: facts about landmark papers (`arxiv_id`, `title`,
//! `first_author`, `year`), four tasks a paper, graded by pattern matching and
//! normalisation alone (no network, no model). The rules are in the shared
//! `verifier-rules.md`; each is a test here or in the submodules. Lookup tables built
//! once here (papers by ID, a word trie of titles, authors by surname) keep the cost
//! of grading an answer independent of how many papers the truth holds.
//!
//! Feedback, one line, always naming the expected value (`<what>` is `ID`, `title`,
//! `first author` or `year`):
//!
//! - `correct <what> <expected>`
//! - `hedged: <expected> among <every candidate found>; give one answer`
//! - `expected <what> <expected>, response said <what it said>`
//! - `partial title (<k>/<m> words); expected "<title>"`
//! - `ambiguous: <name> fits <n> known first authors; expected first author
//!   <expected>; give the full name`
//! - `no <what> found; expected <expected>`
//!
//! Candidates are listed as the response gave them (`J. Song`, not the Jiaming Song it
//! may mean), so feedback never puts a name in the response's mouth. A first author is
//! told apart from namesakes by the given name or initial before the surname
//! (`mentions`). A surname alone, or with an initial, that fits several known first
//! authors (`Chen`, `Z. Liu`) and nothing else is ambiguous: correctness 0.5, as a
//! hedge, when the expected author is among them, else wrong.

pub(crate) mod authors;
pub(crate) mod disk;
pub(crate) mod ids;
pub(crate) mod mentions;
pub(crate) mod paper_file;
pub(crate) mod row_checks;
pub(crate) mod rows;
pub(crate) mod spill;
pub(crate) mod store;
pub(crate) mod titles;
pub mod truth;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use authors::{AuthorName, SurnameIndex};
use disk::DiskLookups;
use mentions::Candidate;
use paper_file::{DiskPapers, Seen};
use store::{PaperRef, PaperSource, PaperStore};
use titles::TitleIndex;

use super::offered::{Offered, Reader};
use super::{Grade, Outcome, TruthRows, Verifier, shape};
use crate::base::hash::fingerprint;
use crate::base::index::HashIndex;
use crate::error::InputError;
use crate::verify::normalize::normalize;
use truth::{LoadedPapers, Paper, load_truth};

/// The four task kinds, in task order.
pub const KINDS: [&str; 4] = ["id", "title", "first_author", "year"];

/// The arxiv verifier over a set of papers.
///
/// Listing the tasks (`split`) needs the papers and their IDs only; the lookups that
/// grading needs of the other papers (the title trie, the authors by surname) are
/// built at the first grade, so a split never holds them.
#[derive(Debug, Clone)]
pub struct ArxivVerifier {
    /// The papers, their fields in one string.
    papers: PaperStore,
    /// Paper positions by the fingerprint of their arXiv ID (the first paper where an
    /// ID repeats), checked against the ID itself.
    by_id: HashIndex,
    /// Whether some ID repeats (never in a truth file, which refuses it).
    ids_repeat: bool,
    /// The lookups of the other papers that grading needs, built at the first grade.
    lookups: OnceLock<Lookups>,
}

/// What grading looks up among every paper: held in memory, or on disk for a truth
/// of more papers than `score` holds them for ([`rows::ArxivRows`]).
// One a verifier: the held variant's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum Lookups {
    Held {
        titles: TitleIndex,
        /// First authors by surname. A name is parsed only when it is examined:
        /// holding every parse would cost more memory than the rest of the verifier.
        surnames: SurnameIndex,
    },
    OnDisk(Arc<DiskLookups>),
}

/// The prompt of `kind` about `paper`, exactly as `verifier-rules.md` words it.
pub fn prompt(paper: &Paper, kind: &str) -> String {
    prompt_of(&paper.arxiv_id, &paper.title, kind)
}

/// [`prompt`] of a paper given by its ID and title.
fn prompt_of(arxiv_id: &str, title: &str, kind: &str) -> String {
    match kind {
        "id" => format!("Find the arXiv ID of the paper titled \"{title}\"."),
        "title" => format!("What is the exact title of arXiv paper {arxiv_id}?"),
        "first_author" => {
            format!("Who is the first author of the paper \"{title}\" (arXiv {arxiv_id})?")
        }
        _ => format!("In which year was arXiv paper {arxiv_id} first submitted?"),
    }
}

impl ArxivVerifier {
    /// The verifier for `papers` (in truth-file order).
    pub fn new(papers: Vec<Paper>) -> ArxivVerifier {
        let papers = truth::store_of(&papers);
        let mut by_id = HashIndex::with_capacity(papers.len());
        let mut ids_repeat = false;
        for index in 0..papers.len() {
            let id = papers.arxiv_id(index);
            let print = fingerprint(id);
            if by_id
                .find(print, |first| papers.arxiv_id(first as usize) == id)
                .is_some()
            {
                ids_repeat = true;
            } else {
                let position = u32::try_from(index)
                    .ok()
                    .filter(|&position| position < u32::MAX)
                    .expect("fewer than 2^32 - 1 papers");
                by_id.insert(print, position);
            }
        }
        ArxivVerifier {
            papers,
            by_id,
            ids_repeat,
            lookups: OnceLock::new(),
        }
    }

    /// The verifier for papers loaded from a truth file, using the papers by ID that
    /// checking them built (every ID once: the file is clean).
    fn from_loaded(loaded: LoadedPapers) -> ArxivVerifier {
        let LoadedPapers { papers, by_id, .. } = loaded;
        ArxivVerifier {
            papers,
            by_id,
            ids_repeat: false,
            lookups: OnceLock::new(),
        }
    }

    /// A verifier of papers kept on disk, grading from `lookups` on disk: its tasks
    /// are graded by [`ArxivVerifier::grade_on_disk`] alone.
    fn with_lookups_on_disk(lookups: DiskLookups) -> ArxivVerifier {
        let verifier = ArxivVerifier {
            papers: PaperStore::default(),
            by_id: HashIndex::default(),
            ids_repeat: false,
            lookups: OnceLock::new(),
        };
        verifier.use_disk(lookups);
        verifier
    }

    /// The lookups among every paper that grading needs, built at the first call.
    fn lookups(&self) -> &Lookups {
        self.lookups.get_or_init(|| Lookups::Held {
            titles: TitleIndex::with_normalized(
                self.papers
                    .iter()
                    .map(|paper| (paper.title, normalize(paper.title))),
            ),
            surnames: SurnameIndex::from_cores(
                self.papers
                    .iter()
                    .map(|paper| authors::surname_core(paper.first_author)),
            ),
        })
    }

    /// Grades from lookups on disk from now on, unless a grade built them in memory
    /// already.
    fn use_disk(&self, lookups: DiskLookups) {
        let _ = self.lookups.set(Lookups::OnDisk(Arc::new(lookups)));
    }

    /// The first error reading the lookups on disk since the last call, taken.
    fn disk_failure(&self) -> Option<String> {
        match self.lookups.get() {
            Some(Lookups::OnDisk(disk)) => disk.take_failure(),
            _ => None,
        }
    }

    /// The papers whose title is present in `answer` (normalised), ascending, and,
    /// when none is, the share of `index`'s title words present
    /// ([`TitleIndex::word_share_words`]).
    fn titles_present(
        &self,
        papers: &dyn PaperSource,
        index: usize,
        normalized: &str,
    ) -> (Vec<usize>, Option<(usize, usize)>) {
        match self.lookups() {
            Lookups::Held { titles, .. } => {
                let words = titles.words(normalized);
                let present = titles.present_words(normalized, &words);
                let share = if present.is_empty() {
                    titles.word_share_words(index, &words)
                } else {
                    None
                };
                (present, share)
            }
            Lookups::OnDisk(disk) => {
                let found = disk.titles_in(papers, normalized);
                let present = titles::outside_longer(normalized, found, &|paper| {
                    disk::title_variants(papers, paper)
                });
                let share = if present.is_empty() {
                    disk::word_share(papers, index, normalized)
                } else {
                    None
                };
                (present, share)
            }
        }
    }

    /// The normalised forms of `paper`'s title: the title itself, then its hyphen
    /// variants.
    fn title_variants(&self, papers: &dyn PaperSource, paper: usize) -> Vec<Cow<'_, str>> {
        match self.lookups() {
            Lookups::Held { titles, .. } => titles.variants(paper).map(Cow::Borrowed).collect(),
            Lookups::OnDisk(_) => disk::title_variants(papers, paper)
                .into_iter()
                .map(Cow::Owned)
                .collect(),
        }
    }

    /// The papers whose first author's surname core is `core`, ascending.
    fn named(&self, papers: &dyn PaperSource, core: &str) -> Cow<'_, [u32]> {
        match self.lookups() {
            Lookups::Held { surnames, .. } => Cow::Borrowed(surnames.named(core)),
            Lookups::OnDisk(disk) => disk.named(papers, core),
        }
    }

    /// The paper whose arXiv ID is `id` (the first, should two share it).
    fn paper_of(&self, id: &str) -> Option<usize> {
        let papers = &self.papers;
        self.by_id
            .find(fingerprint(id), |first| {
                papers.arxiv_id(first as usize) == id
            })
            .map(|first| first as usize)
    }

    /// Loads the papers of a truth file read row by row (its header read) and builds
    /// the verifier: the registry's constructor.
    pub fn build(rows: TruthRows<'_>) -> Result<Box<dyn Verifier>, InputError> {
        Ok(Box::new(ArxivVerifier::from_loaded(load_truth(rows)?)))
    }

    /// The grade of `output` for the task of kind `KINDS[kind]` about paper `index`,
    /// `paper`, of `papers` (of `paper`, a kind reads only its own field).
    fn grade_kind(
        &self,
        papers: &dyn PaperSource,
        index: usize,
        paper: PaperRef<'_>,
        kind: usize,
        output: &str,
    ) -> Grade {
        let (result, feedback) = match kind {
            0 => self.grade_id(paper, output),
            1 => self.grade_title(papers, index, paper.title, output),
            2 => self.grade_author(papers, index, paper.first_author, output),
            _ => self.grade_year(paper, output),
        };
        shape(result.or_refusal(output), output, feedback)
    }

    /// The grade of `output` for task `task` of papers kept on disk, `field` being
    /// the field of its paper that its kind asks for (the year in decimal digits), as
    /// the task's row carries it ([`rows::ArxivRows`]).
    fn grade_on_disk(&self, papers: &DiskPapers, task: usize, field: &str, output: &str) -> Grade {
        let (index, kind) = (task / KINDS.len(), task % KINDS.len());
        let mut paper = PaperRef {
            arxiv_id: "",
            title: "",
            first_author: "",
            year: 0,
        };
        match kind {
            0 => paper.arxiv_id = field,
            1 => paper.title = field,
            2 => paper.first_author = field,
            _ => paper.year = field.parse().unwrap_or(0),
        }
        let seen = Seen::new(
            papers,
            index,
            Some(paper.title).filter(|_| kind == 1),
            Some(paper.first_author).filter(|_| kind == 2),
        );
        self.grade_kind(&seen, index, paper, kind, output)
    }

    fn grade_id(&self, paper: PaperRef<'_>, answer: &str) -> (Outcome, String) {
        let found = ids::find_ids(answer);
        let has_expected = found.iter().any(|id| *id == paper.arxiv_id);
        outcome(paper.arxiv_id, &found, has_expected, "ID", Shown::Plain)
    }

    fn grade_year(&self, paper: PaperRef<'_>, answer: &str) -> (Outcome, String) {
        let found: Vec<YearText> = ids::find_years(answer)
            .into_iter()
            .map(YearText::new)
            .collect();
        let expected = YearText::new(paper.year);
        let has_expected = found.iter().any(|year| year.as_ref() == expected.as_ref());
        outcome(
            expected.as_ref(),
            &found,
            has_expected,
            "year",
            Shown::Plain,
        )
    }

    fn grade_title(
        &self,
        papers: &dyn PaperSource,
        index: usize,
        title: &str,
        answer: &str,
    ) -> (Outcome, String) {
        let normalized = normalize(answer);
        let (present, share) = self.titles_present(papers, index, &normalized);
        let mut found: Vec<Cow<'_, str>> = present.iter().map(|&i| papers.title(i)).collect();
        if found.is_empty()
            && let Some((present, total)) = share
            && 2 * present >= total
        {
            let share = present as f64 / total as f64;
            let feedback = format!("partial title ({present}/{total} words); expected \"{title}\"");
            return (Outcome::Partial(share), feedback);
        }
        let has_expected = found.iter().any(|found| found == title);
        // The titles offered beside the known ones, made-up ones included: asked for
        // only where they change the outcome (the right title, or none known).
        let made_up = if has_expected || found.is_empty() {
            self.made_up_titles(papers, &present, answer)
        } else {
            Vec::new()
        };
        found.extend(
            made_up
                .iter()
                .map(|made_up| Cow::Borrowed(made_up.as_str())),
        );
        outcome(title, &found, has_expected, "title", Shown::Quoted)
    }

    /// The title-like answers `answer` offers beside the known titles `present` in
    /// it: two or more name-like words, each two beside a known title one answer
    /// ([`Offered`]).
    fn made_up_titles(
        &self,
        papers: &dyn PaperSource,
        present: &[usize],
        answer: &str,
    ) -> Vec<String> {
        let mut offered = Offered::new(answer);
        for &paper in present {
            for variant in self.title_variants(papers, paper) {
                offered.mark(&variant);
            }
        }
        offered.others(&Reader {
            unit: 2,
            et_al_names: false,
            least_words: 2,
            excluded: &|_| false,
            short_needs: &|word| self.is_title_word(word),
            numbers: false,
        })
    }

    fn grade_author(
        &self,
        papers: &dyn PaperSource,
        index: usize,
        expected: &str,
        answer: &str,
    ) -> (Outcome, String) {
        let author = |paper: usize| AuthorName::parse(&papers.first_author(paper));
        let tokens = authors::tokens(answer);
        let excluded = |word: &str| self.is_title_word(word);
        let said = mentions::mentions(&|core| self.named(papers, core), author, &tokens, &excluded);
        if said.is_empty() {
            let found: Vec<String> = authors::other_name(&tokens, &excluded)
                .into_iter()
                .collect();
            return outcome(expected, &found, false, "first author", Shown::Plain);
        }
        // The names offered beside the known ones, made-up ones included ([`Offered`]):
        // the words of every mention are known.
        let others = {
            let mut offered = Offered::new(answer);
            for mention in &said {
                let (start, end) = tokens.bytes(mention.words.0, mention.words.1);
                offered.mark_bytes(start, end);
            }
            offered.others(&Reader {
                unit: 2,
                et_al_names: true,
                least_words: 2,
                excluded: &excluded,
                short_needs: &|_| true,
                numbers: false,
            })
        };
        // Most answers name no known author: names are parsed only when some are named.
        let mut parsed: Vec<(usize, AuthorName)> = vec![(index, author(index))];
        for mention in &said {
            for &name in &mention.names {
                if parsed.iter().all(|(known, _)| *known != name) {
                    parsed.push((name, author(name)));
                }
            }
        }
        let person = |name: usize| {
            parsed
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, parsed)| parsed.person())
        };
        let same_person = |a: usize, b: usize| person(a) == person(b);
        let found = mentions::candidates(said, same_person);
        let is_expected =
            |candidate: &Candidate| candidate.names.iter().any(|&name| same_person(name, index));
        if let [only] = found.as_slice()
            && only.names.len() > 1
            && is_expected(only)
        {
            let mut feedback = format!(
                "ambiguous: {} fits {} known first authors; expected first author {expected}; give the full name",
                only.quote,
                only.names.len()
            );
            if !others.is_empty() {
                feedback.push_str(&format!(" and one answer, not {}", others.join(", ")));
            }
            return (Outcome::Hedged(only.names.len() + others.len()), feedback);
        }
        let has_expected = found.iter().any(is_expected);
        let mut quotes: Vec<&str> = found.iter().map(|c| c.quote.as_str()).collect();
        if has_expected {
            quotes.extend(others.iter().map(String::as_str));
        }
        outcome(
            expected,
            &quotes,
            has_expected,
            "first author",
            Shown::Plain,
        )
    }

    /// Whether `word` normalises to a word of some known title; an ASCII word of
    /// letters and digits normalises to its lowercase, without allocating.
    fn is_title_word(&self, word: &str) -> bool {
        let mut lower = [0u8; 32];
        if word.len() <= lower.len() && word.bytes().all(|b| b.is_ascii_alphanumeric()) {
            let lower = &mut lower[..word.len()];
            lower.copy_from_slice(word.as_bytes());
            lower.make_ascii_lowercase();
            let lower = std::str::from_utf8(lower).expect("ASCII is UTF-8");
            return self.is_normalized_title_word(lower);
        }
        self.is_normalized_title_word(&normalize(word))
    }

    /// Whether `word` (normalised) is a word of some known title's normalised form.
    fn is_normalized_title_word(&self, word: &str) -> bool {
        match self.lookups() {
            Lookups::Held { titles, .. } => titles.is_title_word(word),
            Lookups::OnDisk(disk) => disk.is_title_word(word),
        }
    }
}

/// How feedback shows a value: titles in quotes, the rest as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Plain,
    Quoted,
}

impl Shown {
    fn push(self, text: &mut String, value: &str) {
        if self == Shown::Quoted {
            text.push('"');
            text.push_str(value);
            text.push('"');
        } else {
            text.push_str(value);
        }
    }
}

/// A year's digits, held without allocating.
#[derive(Debug, Clone, Copy)]
struct YearText {
    digits: [u8; 5],
    len: usize,
}

impl YearText {
    fn new(year: u16) -> YearText {
        let mut digits = [0u8; 5];
        let mut len = 0;
        let mut rest = year;
        loop {
            digits[len] = b'0' + (rest % 10) as u8;
            len += 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        digits[..len].reverse();
        YearText { digits, len }
    }
}

impl AsRef<str> for YearText {
    fn as_ref(&self) -> &str {
        std::str::from_utf8(&self.digits[..self.len]).expect("ASCII digits are UTF-8")
    }
}

/// The outcome of one kind from its distinct candidates as the answer gave them, and
/// whether one of them is the expected value, with its feedback, written in one
/// allocation of about the right size (`format!` grows its buffer as it writes, which
/// costs more than the rest of grading a short answer).
fn outcome<T: AsRef<str>>(
    expected: &str,
    found: &[T],
    has_expected: bool,
    what: &str,
    shown: Shown,
) -> (Outcome, String) {
    let listed: usize = found.iter().map(|f| f.as_ref().len() + 4).sum();
    let mut text = String::with_capacity(40 + what.len() + expected.len() + listed);
    let list = |text: &mut String| {
        for (position, value) in found.iter().enumerate() {
            if position > 0 {
                text.push_str(", ");
            }
            shown.push(text, value.as_ref());
        }
    };
    let result = match (found.len(), has_expected) {
        (0, _) => {
            text.push_str("no ");
            text.push_str(what);
            text.push_str(" found; expected ");
            shown.push(&mut text, expected);
            Outcome::Invalid
        }
        (1, true) => {
            text.push_str("correct ");
            text.push_str(what);
            text.push(' ');
            shown.push(&mut text, expected);
            Outcome::Right
        }
        (_, true) => {
            text.push_str("hedged: ");
            shown.push(&mut text, expected);
            text.push_str(" among ");
            list(&mut text);
            text.push_str("; give one answer");
            Outcome::Hedged(found.len())
        }
        (_, false) => {
            text.push_str("expected ");
            text.push_str(what);
            text.push(' ');
            shown.push(&mut text, expected);
            text.push_str(", response said ");
            list(&mut text);
            Outcome::Wrong
        }
    };
    (result, text)
}

impl Verifier for ArxivVerifier {
    fn task_count(&self) -> usize {
        self.papers.len() * KINDS.len()
    }

    fn task_names(&self, index: usize) -> (&str, &str) {
        (
            self.papers.arxiv_id(index / KINDS.len()),
            KINDS[index % KINDS.len()],
        )
    }

    fn prompt(&self, index: usize) -> String {
        let paper = self.papers.get(index / KINDS.len());
        prompt_of(paper.arxiv_id, paper.title, KINDS[index % KINDS.len()])
    }

    fn find_task(&self, task_id: &str) -> Option<usize> {
        // Kinds hold no colon, so the last one ends the arXiv ID, whatever the ID holds.
        let (group, kind) = task_id.rsplit_once(':')?;
        let kind = KINDS.iter().position(|known| *known == kind)?;
        let paper = self.paper_of(group)?;
        Some(paper * KINDS.len() + kind)
    }

    fn grade(&self, index: usize, output: &str) -> Grade {
        let mut paper = index / KINDS.len();
        if self.ids_repeat {
            // A task's id names its paper: the first paper holding that ID.
            paper = self
                .paper_of(self.papers.arxiv_id(paper))
                .expect("every paper's ID is filed");
        }
        self.grade_kind(
            &self.papers,
            paper,
            self.papers.get(paper),
            index % KINDS.len(),
            output,
        )
    }

    fn find_task_near(&self, task_id: &str, likely: usize) -> Option<usize> {
        // With every ID once, a task whose id matches is the task: no lookup needed.
        if !self.ids_repeat && likely < self.task_count() {
            let (group, kind) = self.task_names(likely);
            if task_id.len() == group.len() + 1 + kind.len()
                && task_id.starts_with(group)
                && task_id.as_bytes()[group.len()] == b':'
                && task_id.ends_with(kind)
            {
                return Some(likely);
            }
        }
        self.find_task(task_id)
    }
}

#[cfg(test)]
mod corpus;
#[cfg(test)]
mod phrasings;
#[cfg(test)]
mod tests;
