//! The arxiv verifier's ground truth: one landmark paper a row, `arxiv_id,title,first_author,year`.
//! [`check`] lists every problem with its row (what `evogate truth check` prints), and
//! [`load_papers`] refuses a file with any, so no split or grade is built on bad facts.

use crate::error::InputError;
use std::io::Read;

use super::row_checks::{Held, row_problems};
pub use super::row_checks::{PAPER_COLUMNS, Problem, implied_year};
use super::spill::{self, Spill, too_long};
use crate::base::index::HashIndex;
use crate::table::scan::RowScanner;
use crate::table::{column, require, trim_field};
use crate::verify::arxiv::store::{PaperRef, PaperStore};
use crate::verify::one_answer::RowLines;

/// One paper's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paper {
    /// New-style `YYMM.NNNNN` or old-style `archive/YYMMNNN`, without version.
    pub arxiv_id: String,
    /// The exact title.
    pub title: String,
    /// The first author as the paper gives it.
    pub first_author: String,
    /// The year of the first arXiv submission.
    pub year: u16,
}

impl From<PaperRef<'_>> for Paper {
    fn from(paper: PaperRef<'_>) -> Paper {
        Paper {
            arxiv_id: paper.arxiv_id.to_string(),
            title: paper.title.to_string(),
            first_author: paper.first_author.to_string(),
            year: paper.year,
        }
    }
}

/// The papers `papers`, in order, held flat.
pub(crate) fn store_of(papers: &[Paper]) -> PaperStore {
    let mut store = PaperStore::default();
    for paper in papers {
        store
            .push(
                &paper.arxiv_id,
                &paper.title,
                &paper.first_author,
                paper.year,
            )
            .expect("a paper held in memory has fields below 4 GB");
    }
    store.shrink_to_fit();
    store
}

/// Every paper of `store` as an owned [`Paper`], in order.
pub(crate) fn papers_of(store: &PaperStore) -> Vec<Paper> {
    store.iter().map(Paper::from).collect()
}

/// What [`check`] found in a truth file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruthCheck {
    /// How many rows (papers) the file has.
    pub rows: usize,
    /// Every problem, in row order.
    pub problems: Vec<Problem>,
}

/// Every problem of a truth file read row by row (its header read), in row order, as
/// loading finds them; `Err` only when a row cannot be read or a column is missing.
pub fn check<R: Read>(mut rows: RowScanner<R>) -> Result<TruthCheck, InputError> {
    let (gathered, count) = gather(&mut rows, Gathered::default())?;
    require_columns(&rows)?;
    Ok(TruthCheck {
        rows: count,
        problems: gathered.problems,
    })
}

/// Reads a truth file's rows to the end, gathering each paper's fields and checking
/// each row against the rows before it, and counts them. Without every column the
/// rows are only counted: the missing column is an error only after the whole file is
/// known to parse.
fn gather<R: Read>(
    rows: &mut RowScanner<R>,
    mut gathered: Gathered,
) -> Result<(Gathered, usize), InputError> {
    let columns = PAPER_COLUMNS.map(|name| column(rows.headers(), name));
    let source = rows.source().to_string();
    let mut count = 0usize;
    while let Some(row) = rows.next_row()? {
        count += 1;
        if let [Some(id), Some(title), Some(author), Some(year)] = columns {
            gathered
                .add(row.line, [id, title, author, year].map(|i| row.field(i)))
                .map_err(|message| InputError::invalid(&source, row.line, message))?;
        }
    }
    Ok((gathered, count))
}

/// The first of the truth's columns that `rows`' header lacks, as an error.
fn require_columns<R: Read>(rows: &RowScanner<R>) -> Result<(), InputError> {
    for name in PAPER_COLUMNS {
        require(rows.source(), rows.headers(), name)?;
    }
    Ok(())
}

/// A year cell, trimmed: its number, or its text when that is not a whole number.
fn parse_year(text: &str) -> Result<u16, &str> {
    let text = trim_field(text);
    text.parse().map_err(|_| text)
}

/// The error refusing a truth file (`source`) for its first problem.
pub(crate) fn refusal(source: &str, problem: &Problem) -> InputError {
    InputError::invalid(
        source,
        problem.line,
        format!(
            "{}; run `evogate truth check {source}` to list every problem",
            problem.message
        ),
    )
}

/// Papers gathered from a truth file's rows, each field trimmed, and every problem of
/// them, found as each row is added: a row's problems depend only on the rows before
/// it. What finding them needs is held by position (the rows' lines, the first paper
/// of each valid ID and of each normalised title), so no row's fields are held twice.
/// Past a budget (`score`'s), the papers and the repeat checks go to disk instead
/// ([`Spill`]).
#[derive(Default)]
struct Gathered {
    papers: PaperStore,
    /// How many rows were added.
    count: usize,
    /// Each paper's row's line.
    lines: RowLines,
    /// The first paper of each valid arXiv ID, by the ID's fingerprint.
    by_id: HashIndex,
    /// The first paper of each non-empty normalised title, by its fingerprint.
    titles: HashIndex,
    /// Every problem, in row order (of the rows held).
    problems: Vec<Problem>,
    /// Where the papers go past the budget, and once they are there, what is on disk.
    spill: Option<Spill>,
}

impl Gathered {
    /// Adds the row on `line` whose `arxiv_id`, `title`, `first_author` and `year`
    /// cells are `cells`, and files its problems; `Err` only for a row that cannot be
    /// held (a field of 4 GB or more, more than 2^32 - 2 rows).
    fn add(&mut self, line: u64, [id, title, author, year]: [&str; 4]) -> Result<(), String> {
        let position = u32::try_from(self.count)
            .ok()
            .filter(|&position| position < u32::MAX - 1)
            .ok_or_else(|| "more papers than a truth may hold (2^32 - 2)".to_string())?;
        let (arxiv_id, title, author) = (trim_field(id), trim_field(title), trim_field(author));
        let year = parse_year(year);
        let paper = PaperRef {
            arxiv_id,
            title,
            first_author: author,
            year: year.unwrap_or(0),
        };
        self.count += 1;
        self.lines.push(position, line);
        if let Some(spill) = &mut self.spill {
            if !self.problems.is_empty() {
                // The first problem is among the rows held: the rest are only read.
                return Ok(());
            }
            if let Some(added) = spill.add(position, line, paper, year) {
                return added;
            }
        }
        self.papers
            .push(arxiv_id, title, author, paper.year)
            .map_err(|_| too_long())?;
        let Gathered {
            papers,
            lines,
            by_id,
            titles,
            problems,
            ..
        } = self;
        let mut held = Held {
            papers,
            lines,
            by_id,
            titles,
        };
        row_problems(position, paper, year, &mut held, &mut |_, message| {
            problems.push(Problem { line, message })
        });
        if let Some(spill) = &mut self.spill
            && self.problems.is_empty()
            && spill.moved(&mut self.papers)
        {
            self.by_id = HashIndex::default();
            self.titles = HashIndex::default();
        }
        Ok(())
    }

    /// Keeps the papers of `source` if no problem was found; the first problem is the
    /// error otherwise.
    fn load(self, source: &str) -> Result<LoadedPapers, InputError> {
        if let Some(problem) = self.problems.first() {
            return Err(refusal(source, problem));
        }
        let mut papers = self.papers;
        papers.shrink_to_fit();
        Ok(LoadedPapers {
            papers,
            by_id: self.by_id,
            lines: self.lines,
        })
    }
}

/// The papers of a clean truth file read from `input` (`source` names it in messages);
/// the first problem, if any, is an error.
pub fn load_papers(source: &str, input: impl Read) -> Result<Vec<Paper>, InputError> {
    Ok(papers_of(
        &load_truth(RowScanner::new(source, input)?)?.papers,
    ))
}

/// A clean truth file's papers, with what checking them built that the verifier needs.
#[derive(Debug, Clone)]
pub(crate) struct LoadedPapers {
    /// The papers, in file order.
    pub papers: PaperStore,
    /// Each paper's position by the fingerprint of its arXiv ID (every ID once: the
    /// file is clean).
    pub by_id: HashIndex,
    /// Each paper's row's line (one entry where every row is on the line after the
    /// one before).
    pub lines: RowLines,
}

/// [`load_papers`] of a truth file read row by row (its header read), with what
/// checking the papers built; the file's rows are never held as a [`Table`](crate::table::Table). The
/// errors are those of reading the file whole: a row the reader cannot read, no rows, a
/// missing column, then the first problem [`check`] would list.
pub(crate) fn load_truth<R: Read>(mut rows: RowScanner<R>) -> Result<LoadedPapers, InputError> {
    let (gathered, count) = gather(&mut rows, Gathered::default())?;
    // An empty file's error comes before a missing column's.
    if count == 0 {
        return Err(InputError::NoRows {
            file: rows.source().to_string(),
        });
    }
    require_columns(&rows)?;
    gathered.load(rows.source())
}

/// A clean truth file's papers, held, or on disk past the budget.
pub(crate) enum Loaded {
    /// Held, as [`load_truth`] loads them.
    Held(LoadedPapers),
    /// On disk, with the grading lookups of every paper.
    OnDisk(spill::OnDiskTruth),
}

/// Why a truth was not loaded: a problem of the file, or the temporary folder failing
/// to keep its papers.
#[derive(Debug)]
pub(crate) enum NotLoaded {
    Input(InputError),
    Disk(std::io::Error),
}

/// [`load_truth`], the papers, their grading lookups and the repeat checks going to
/// `store` once the papers held would take more than about `budget` bytes of lookups
/// ([`HELD_BYTES_A_PAPER`](super::disk::HELD_BYTES_A_PAPER) a paper): the same papers,
/// and the same first error, in file order and word for word.
pub(crate) fn load_truth_spilling<R: Read>(
    mut rows: RowScanner<R>,
    budget: usize,
    store: &'static dyn crate::base::sorter::RunStore,
) -> Result<Loaded, NotLoaded> {
    let spilling = Gathered {
        spill: Some(Spill::new(budget, store)),
        ..Gathered::default()
    };
    let (mut gathered, count) = gather(&mut rows, spilling).map_err(NotLoaded::Input)?;
    if count == 0 {
        return Err(NotLoaded::Input(InputError::NoRows {
            file: rows.source().to_string(),
        }));
    }
    require_columns(&rows).map_err(NotLoaded::Input)?;
    let source = rows.source();
    match gathered.spill.take() {
        Some(spill) if gathered.problems.is_empty() && spill.is_on_disk() => {
            match spill.finish(&gathered.lines).map_err(NotLoaded::Disk)? {
                Ok(truth) => Ok(Loaded::OnDisk(truth)),
                Err(problem) => Err(NotLoaded::Input(refusal(source, &problem))),
            }
        }
        _ => gathered
            .load(source)
            .map(Loaded::Held)
            .map_err(NotLoaded::Input),
    }
}

/// The paper list of `papers` as a truth file, every title and first author quoted.
#[cfg(test)]
pub(crate) fn papers_csv<'a>(papers: impl IntoIterator<Item = &'a Paper>) -> String {
    let quoted = |text: &str| format!("\"{}\"", text.replace('"', "\"\""));
    let mut text = String::from("arxiv_id,title,first_author,year\n");
    for paper in papers {
        text.push_str(&format!(
            "{},{},{},{}\n",
            paper.arxiv_id,
            quoted(&paper.title),
            quoted(&paper.first_author),
            paper.year
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::hash::fingerprint;
    use crate::verify::arxiv::ids::is_valid_id;
    use crate::verify::normalize::normalize;

    const SHIPPED: &[u8] = include_bytes!("../../../data/arxiv/papers.csv");

    /// Every problem of the truth file `text`.
    fn checked(text: &str) -> Vec<Problem> {
        check(RowScanner::new("t.csv", text.as_bytes()).unwrap())
            .unwrap()
            .problems
    }

    #[test]
    fn the_shipped_truth_has_136_clean_papers() {
        let checked = check(RowScanner::new("data/arxiv/papers.csv", SHIPPED).unwrap()).unwrap();
        assert_eq!(checked.problems, []);
        assert_eq!(checked.rows, 136);
        assert_eq!(
            load_papers("data/arxiv/papers.csv", SHIPPED).unwrap().len(),
            136
        );
    }

    #[test]
    fn finds_every_kind_of_problem_on_its_row() {
        let text = "arxiv_id,title,first_author,year\n\
            1706.03762,Attention Is All You Need,Ashish Vaswani,2017\n\
            1706.03762,Other,Someone,2017\n\
            1810.04805,ATTENTION is all you need!,Jacob Devlin,2018\n\
            9913.12345,Bad Month,A B,2099\n\
            2005.14165,Language Models are Few-Shot Learners,Tom B. Brown,2021\n\
            2106.09685,,Edward J. Hu,twenty\n\
            hep-th/9901001,Old Style,Ann Old,1999\n";
        let problems = checked(text);
        let lines: Vec<u64> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [3, 4, 5, 6, 7, 7], "{problems:?}");
        assert!(
            problems[0]
                .message
                .contains("appears again (first on row 2)")
        );
        assert!(problems[1].message.contains("repeats the title on row 2"));
        assert!(problems[2].message.contains("not an arXiv ID"));
        assert!(
            problems[3]
                .message
                .contains("year 2021 contradicts ID 2005.14165, which was first submitted in 2020")
        );
        assert!(problems[4].message.contains("`title` is empty"));
        assert!(problems[5].message.contains("not a whole number"));
        let error = load_papers("t.csv", text.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("`t.csv` row 3: "), "{error}");
        assert!(error.contains("run `evogate truth check t.csv`"), "{error}");
    }

    #[test]
    fn an_empty_cell_is_named_by_its_column() {
        let text = "arxiv_id,title,first_author,year\n\
            1706.03762,Attention Is All You Need,Ashish Vaswani, \n\
            1810.04805,BERT,,2018\n";
        let problems: Vec<(u64, String)> = checked(text)
            .into_iter()
            .map(|p| (p.line, p.message))
            .collect();
        assert_eq!(
            problems,
            [
                (
                    2,
                    "`year` is empty; fill it in or remove the row".to_string()
                ),
                (
                    3,
                    "`first_author` is empty; fill it in or remove the row".to_string()
                ),
            ]
        );
    }

    #[test]
    fn a_third_repeat_names_the_first_row_not_the_second() {
        let text = "arxiv_id,title,first_author,year\n\
            1706.03762,Attention,A B,2017\n\
            1706.03762,Other,C D,2017\n\
            1706.03762,ATTENTION!,E F,2017\n\
            1810.04805,attention,G H,2018\n";
        let messages: Vec<String> = checked(text)
            .into_iter()
            .map(|p| format!("{} {}", p.line, p.message))
            .collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].starts_with("3 ID 1706.03762 appears again (first on row 2)"));
        assert!(messages[1].starts_with("4 ID 1706.03762 appears again (first on row 2)"));
        assert!(messages[2].starts_with("4 title \"ATTENTION!\" repeats the title on row 2"));
        assert!(messages[3].starts_with("5 title \"attention\" repeats the title on row 2"));
    }

    #[test]
    fn loading_keeps_each_paper_trimmed_and_finds_it_by_its_id() {
        let text = "arxiv_id,title,first_author,year\n\
            1706.03762,  Attention Is All You Need ,Ashish Vaswani,2017\n\
            1810.04805,BERT: Pre-training of Déjà-vu,Jacob Devlin,2018\n";
        let loaded = load_truth(RowScanner::new("t.csv", text.as_bytes()).unwrap()).unwrap();
        // Taken from the table without their surrounding spaces.
        let paper = |arxiv_id: &str, title: &str, first_author: &str, year| Paper {
            arxiv_id: arxiv_id.to_string(),
            title: title.to_string(),
            first_author: first_author.to_string(),
            year,
        };
        let expected_papers = [
            paper(
                "1706.03762",
                "Attention Is All You Need",
                "Ashish Vaswani",
                2017,
            ),
            paper(
                "1810.04805",
                "BERT: Pre-training of Déjà-vu",
                "Jacob Devlin",
                2018,
            ),
        ];
        assert_eq!(papers_of(&loaded.papers), expected_papers);
        assert_eq!(
            load_papers("t.csv", text.as_bytes()).unwrap(),
            expected_papers
        );
        let papers = &loaded.papers;
        for position in 0..papers.len() {
            let id = papers.arxiv_id(position);
            let found = loaded
                .by_id
                .find(fingerprint(id), |p| papers.arxiv_id(p as usize) == id);
            assert_eq!(found, Some(position as u32));
        }
        let unknown = loaded.by_id.find(fingerprint("2005.14165"), |p| {
            papers.arxiv_id(p as usize) == "2005.14165"
        });
        assert_eq!(unknown, None);
    }

    #[test]
    fn a_title_repeat_names_the_row_of_the_first_even_across_lines_a_row_spans() {
        // The second row spans two lines: the rows' lines are not their positions + 2.
        let text = "arxiv_id,title,first_author,year\n\
            1706.03762,\"Attention,\nIs All\",A B,2017\n\
            1810.04805,Other,C D,2018\n\
            1512.03385,attention is all,E F,2015\n\
            1512.03386,OTHER!,G H,2015\n";
        let messages: Vec<String> = checked(text)
            .into_iter()
            .map(|p| format!("{} {}", p.line, p.message))
            .collect();
        assert_eq!(
            messages,
            [
                "5 title \"attention is all\" repeats the title on row 2",
                "6 title \"OTHER!\" repeats the title on row 4",
            ]
        );
    }

    #[test]
    fn old_style_ids_imply_their_century() {
        assert_eq!(implied_year("hep-th/9901001"), Some(1999));
        assert_eq!(implied_year("cs/0112017"), Some(2001));
        assert_eq!(implied_year("1706.03762"), Some(2017));
    }

    /// Truth files made of rows drawn from `cells`: clean and broken in every way
    /// checking knows, with columns reordered or missing, and rows with spaces.
    fn drawn_truth(picks: &[usize], header: usize) -> String {
        const HEADERS: [&str; 5] = [
            "arxiv_id,title,first_author,year",
            "year,first_author,title,arxiv_id",
            "arxiv_id,title,first_author,year,note",
            "arxiv_id,title,year",
            "arxiv_id,title,first_author,year",
        ];
        const ROWS: [[&str; 4]; 12] = [
            [
                "1706.03762",
                "Attention Is All You Need",
                "Ashish Vaswani",
                "2017",
            ],
            ["1810.04805", "BERT: Pre-training", "Jacob Devlin", "2018"],
            [
                " 1512.03385 ",
                " Deep Residual Learning ",
                " Kaiming He ",
                " 2015 ",
            ],
            ["1706.03762", "Another Title", "Someone", "2017"],
            ["1810.04805", "attention is ALL you need!", "X Y", "2018"],
            ["9913.12345", "Bad Month", "A B", "2099"],
            ["2005.14165", "Few-Shot Learners", "Tom B. Brown", "2021"],
            ["2106.09685", "", "Edward J. Hu", "twenty"],
            ["hep-th/9901001", "Old Style", "Ann Old", "1999"],
            ["", "No Id", "", ""],
            [
                "1412.6980",
                "Adam",
                "Diederik P. Kingma",
                "\u{a0}2014\u{3000}",
            ],
            ["1301.3781", "Word Vectors", "Tomas Mikolov", "-2013"],
        ];
        let header = HEADERS[header % HEADERS.len()];
        let names: Vec<&str> = header.split(',').collect();
        let mut text = String::from(header);
        text.push('\n');
        for &pick in picks {
            let row = ROWS[pick % ROWS.len()];
            let cells: Vec<String> = names
                .iter()
                .map(|name| {
                    let cell = match *name {
                        "arxiv_id" => row[0],
                        "title" => row[1],
                        "first_author" => row[2],
                        "year" => row[3],
                        _ => "n",
                    };
                    format!("\"{cell}\"")
                })
                .collect();
            text.push_str(&cells.join(","));
            text.push('\n');
        }
        text
    }

    /// The oracle: what loading `text` must give, worked out apart from the loader from
    /// the whole table: the table's first error, else the refusal of `check`'s first
    /// problem, else each row's cells trimmed and the year parsed.
    fn naive_load(text: &str) -> Result<Vec<Paper>, String> {
        let table =
            crate::table::scan::scan_table("t.csv", text.as_bytes()).map_err(|e| e.to_string())?;
        table.require_rows().map_err(|e| e.to_string())?;
        let problems = check(RowScanner::new("t.csv", text.as_bytes()).unwrap())
            .map_err(|e| e.to_string())?
            .problems;
        if let Some(problem) = problems.first() {
            return Err(refusal("t.csv", problem).to_string());
        }
        let cell = |row: &crate::table::Row, name: &str| {
            row.fields[table.column(name).unwrap()].trim().to_string()
        };
        Ok(table
            .rows
            .iter()
            .map(|row| Paper {
                arxiv_id: cell(row, "arxiv_id"),
                title: cell(row, "title"),
                first_author: cell(row, "first_author"),
                year: cell(row, "year").parse().unwrap(),
            })
            .collect())
    }

    /// The oracle of [`check`]'s problems, worked out from the whole table with maps of
    /// every ID and normalised title seen (as checking was written before rows were
    /// checked as they are read): each row's empty cells, then its ID, its title and its
    /// year, naming the first row of a repeated ID or title.
    fn naive_problems(text: &str) -> Vec<(u64, String)> {
        let table = crate::table::scan::scan_table("t.csv", text.as_bytes()).unwrap();
        let mut ids: std::collections::BTreeMap<String, u64> = Default::default();
        let mut titles: std::collections::BTreeMap<String, u64> = Default::default();
        let mut problems = Vec::new();
        for row in &table.rows {
            let cell = |name: &str| row.fields[table.column(name).unwrap()].trim().to_string();
            let [id, title, author, year] = PAPER_COLUMNS.map(cell);
            let mut problem = |message: String| problems.push((row.line, message));
            for (value, name) in [&id, &title, &author, &year].into_iter().zip(PAPER_COLUMNS) {
                if value.is_empty() {
                    problem(format!("`{name}` is empty; fill it in or remove the row"));
                }
            }
            let valid = is_valid_id(&id);
            if !id.is_empty() && !valid {
                problem(format!(
                    "`{id}` is not an arXiv ID (YYMM.NNNN to 1412, YYMM.NNNNN from 1501, or archive/YYMMNNN, without version)"
                ));
            } else if !id.is_empty() {
                let first = *ids.entry(id.clone()).or_insert(row.line);
                if first != row.line {
                    problem(format!(
                        "ID {id} appears again (first on row {first}); keep one row per paper"
                    ));
                }
            }
            let normalized = normalize(&title);
            if !normalized.is_empty() {
                let first = *titles.entry(normalized).or_insert(row.line);
                if first != row.line {
                    problem(format!(
                        "title \"{title}\" repeats the title on row {first}"
                    ));
                }
            }
            match year.parse::<u16>() {
                Ok(value) if valid => {
                    let implied = implied_year(&id).unwrap();
                    if implied != value {
                        problem(format!(
                            "year {value} contradicts ID {id}, which was first submitted in {implied}"
                        ));
                    }
                }
                Ok(_) => {}
                Err(_) if year.is_empty() => {}
                Err(_) => problem(format!("year `{year}` is not a whole number")),
            }
        }
        problems
    }

    proptest::proptest! {
        #[test]
        fn checking_row_by_row_finds_the_problems_a_check_of_the_whole_table_finds(
            picks in proptest::collection::vec(0usize..12, 0..10),
        ) {
            // The one header with every column in its place, and one with them reordered.
            for header in [0, 1] {
                let text = drawn_truth(&picks, header);
                let found: Vec<(u64, String)> = check(RowScanner::new("t.csv", text.as_bytes()).unwrap())
                    .unwrap()
                    .problems
                    .into_iter()
                    .map(|p| (p.line, p.message))
                    .collect();
                proptest::prop_assert_eq!(found, naive_problems(&text), "{}", text);
            }
        }

        #[test]
        fn truth_loads_row_by_row_as_checking_the_whole_table_says(
            picks in proptest::collection::vec(0usize..12, 0..8),
            header in 0usize..5,
        ) {
            let text = drawn_truth(&picks, header);
            let expected = naive_load(&text);
            let rows = RowScanner::new("t.csv", text.as_bytes())
                .and_then(load_truth)
                .map(|loaded| papers_of(&loaded.papers))
                .map_err(|e| e.to_string());
            proptest::prop_assert_eq!(&rows, &expected, "{}", text);
        }
    }
}
