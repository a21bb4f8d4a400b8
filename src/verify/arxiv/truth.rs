//! The arxiv verifier's ground truth: one landmark paper a row, `arxiv_id,title,first_author,year`.
//! [`check`] lists every problem with its row (what `evogate truth check` prints), and
//! [`load_papers`] refuses a file with any, so no split or grade is built on bad facts.

use crate::error::InputError;
use std::io::Read;

use crate::base::hash::{FastMap, WordKey};
use crate::table::scan::RowScanner;
use crate::table::{column, require, trim_field};
use crate::verify::arxiv::ids::is_valid_id;
use crate::verify::normalize::normalize;

/// The columns of an arxiv truth file.
pub const PAPER_COLUMNS: [&str; 4] = ["arxiv_id", "title", "first_author", "year"];

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

/// One problem found in a truth file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The 1-based line of the row.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// The year an arXiv ID implies: 2000 + YY for new-style IDs, 19YY or 20YY (from the
/// YY of `YYMMNNN`, 91–99 meaning the 1990s) for old-style ones.
pub fn implied_year(arxiv_id: &str) -> Option<u16> {
    let digits = match arxiv_id.split_once('/') {
        Some((_, number)) => number,
        None => arxiv_id,
    };
    let yy: u16 = digits.get(..2)?.parse().ok()?;
    match (arxiv_id.contains('/'), yy) {
        (false, _) => Some(2000 + yy),
        (true, 91..=99) => Some(1900 + yy),
        (true, _) => Some(2000 + yy),
    }
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
    let (gathered, count) = gather(&mut rows)?;
    require_columns(&rows)?;
    Ok(TruthCheck {
        rows: count,
        problems: gathered.check().problems,
    })
}

/// Reads a truth file's rows to the end, gathering each paper's fields, and counts
/// them. Without every column the rows are only counted: the missing column is an
/// error only after the whole file is known to parse.
fn gather<R: Read>(rows: &mut RowScanner<R>) -> Result<(Gathered, usize), InputError> {
    let columns = PAPER_COLUMNS.map(|name| column(rows.headers(), name));
    let mut gathered = Gathered::default();
    let mut count = 0usize;
    while let Some(row) = rows.next_row()? {
        count += 1;
        if let [Some(id), Some(title), Some(author), Some(year)] = columns {
            gathered.add(row.line, [id, title, author, year].map(|i| row.field(i)));
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

/// What [`check`] finds, with what it builds on the way that the verifier needs again.
struct Checked {
    problems: Vec<Problem>,
    /// Each row's [`normalize`]d title.
    normalized_titles: Vec<String>,
    /// The first row of each valid arXiv ID, by position.
    by_id: FastMap<WordKey, usize>,
}

/// One row's facts as checking reads them: trimmed, and the year parsed or, where it
/// does not parse as a whole number, its text (empty when the cell is).
#[derive(Debug, Clone, Copy)]
struct Fields<'a> {
    line: u64,
    arxiv_id: &'a str,
    title: &'a str,
    author: &'a str,
    year: Result<u16, &'a str>,
}

/// A year cell, trimmed: its number, or its text when that is not a whole number.
fn parse_year(text: &str) -> Result<u16, &str> {
    let text = trim_field(text);
    text.parse().map_err(|_| text)
}

/// Every problem of the `rows` rows that `row` gives by position, in row order.
fn check_fields<'a>(rows: usize, row: impl Fn(usize) -> Fields<'a>) -> Checked {
    let normalized: Vec<String> = (0..rows).map(|i| normalize(row(i).title)).collect();
    let mut problems = Vec::new();
    // Only asked whether a key was seen before, so order does not matter here; the
    // keys are the truth's own, so the graders' fast hash serves (see `base::hash`).
    let mut by_id: FastMap<WordKey, usize> =
        FastMap::with_capacity_and_hasher(rows, Default::default());
    let mut titles: FastMap<&str, u64> =
        FastMap::with_capacity_and_hasher(rows, Default::default());
    for (position, normalized) in normalized.iter().enumerate() {
        let fields = row(position);
        let mut problem = |message: String| {
            problems.push(Problem {
                line: fields.line,
                message,
            })
        };
        let empty = [
            fields.arxiv_id.is_empty(),
            fields.title.is_empty(),
            fields.author.is_empty(),
            fields.year == Err(""),
        ];
        for (empty, name) in empty.into_iter().zip(PAPER_COLUMNS) {
            if empty {
                problem(format!("`{name}` is empty; fill it in or remove the row"));
            }
        }
        let (arxiv_id, title_text) = (fields.arxiv_id, fields.title);
        let valid_id = is_valid_id(arxiv_id);
        if !arxiv_id.is_empty() {
            if !valid_id {
                problem(format!(
                    "`{arxiv_id}` is not an arXiv ID (YYMM.NNNN to 1412, YYMM.NNNNN from 1501, or archive/YYMMNNN, without version)"
                ));
            } else if let first = *by_id.entry(WordKey::new(arxiv_id)).or_insert(position)
                && first != position
            {
                let first = row(first).line;
                problem(format!(
                    "ID {arxiv_id} appears again (first on row {first}); keep one row per paper"
                ));
            }
        }
        if !normalized.is_empty()
            && let first = *titles.entry(normalized).or_insert(fields.line)
            && first != fields.line
        {
            problem(format!(
                "title \"{title_text}\" repeats the title on row {first}"
            ));
        }
        match fields.year {
            Err("") => {}
            Err(year_text) => problem(format!("year `{year_text}` is not a whole number")),
            Ok(value) => {
                if valid_id
                    && let Some(implied) = implied_year(arxiv_id)
                    && implied != value
                {
                    problem(format!(
                        "year {value} contradicts ID {arxiv_id}, which was first submitted in {implied}"
                    ));
                }
            }
        }
    }
    Checked {
        problems,
        normalized_titles: normalized,
        by_id,
    }
}

/// The error refusing a truth file (`source`) for its first problem.
fn refusal(source: &str, problem: &Problem) -> InputError {
    InputError::invalid(
        source,
        problem.line,
        format!(
            "{}; run `evogate truth check {source}` to list every problem",
            problem.message
        ),
    )
}

/// Papers gathered from a truth file's rows, each field trimmed, before they are
/// checked: the rows' lines beside them, and the year cells that are not whole numbers
/// (empty ones too) by paper, ascending.
#[derive(Debug, Default)]
struct Gathered {
    papers: Vec<Paper>,
    lines: Vec<u64>,
    bad_years: Vec<(usize, String)>,
}

impl Gathered {
    /// Adds the row on `line` whose `arxiv_id`, `title`, `first_author` and `year`
    /// cells are `cells`.
    fn add(&mut self, line: u64, [id, title, author, year]: [&str; 4]) {
        let year = parse_year(year).unwrap_or_else(|text| {
            self.bad_years.push((self.papers.len(), text.to_string()));
            0
        });
        self.lines.push(line);
        self.papers.push(Paper {
            arxiv_id: trim_field(id).to_string(),
            title: trim_field(title).to_string(),
            first_author: trim_field(author).to_string(),
            year,
        });
    }

    /// Every problem of the papers, with what checking built.
    fn check(&self) -> Checked {
        let Gathered {
            papers,
            lines,
            bad_years,
        } = self;
        check_fields(papers.len(), |position| {
            let paper = &papers[position];
            let year = match bad_years.binary_search_by_key(&position, |(at, _)| *at) {
                Ok(bad) => Err(bad_years[bad].1.as_str()),
                Err(_) => Ok(paper.year),
            };
            Fields {
                line: lines[position],
                arxiv_id: &paper.arxiv_id,
                title: &paper.title,
                author: &paper.first_author,
                year,
            }
        })
    }

    /// Checks the papers of `source` and keeps them if it finds no problem; the first
    /// problem is the error otherwise.
    fn load(self, source: &str) -> Result<LoadedPapers, InputError> {
        let checked = self.check();
        if let Some(problem) = checked.problems.first() {
            return Err(refusal(source, problem));
        }
        Ok(LoadedPapers {
            papers: self.papers,
            normalized_titles: checked.normalized_titles,
            by_id: checked.by_id,
        })
    }
}

/// The papers of a clean truth file read from `input` (`source` names it in messages);
/// the first problem, if any, is an error.
pub fn load_papers(source: &str, input: impl Read) -> Result<Vec<Paper>, InputError> {
    Ok(load_truth(RowScanner::new(source, input)?)?.papers)
}

/// A clean truth file's papers, with what checking them built that the verifier needs.
#[derive(Debug, Clone)]
pub struct LoadedPapers {
    /// The papers, in file order.
    pub papers: Vec<Paper>,
    /// Each paper's [`normalize`]d title, in paper order.
    pub normalized_titles: Vec<String>,
    /// Each paper's position by its arXiv ID (every ID once: the file is clean).
    pub by_id: FastMap<WordKey, usize>,
}

/// [`load_papers`] of a truth file read row by row (its header read), with what
/// checking the papers built; the file's rows are never held as a [`Table`](crate::table::Table). The
/// errors are those of reading the file whole: a row the reader cannot read, no rows, a
/// missing column, then the first problem [`check`] would list.
pub fn load_truth<R: Read>(mut rows: RowScanner<R>) -> Result<LoadedPapers, InputError> {
    let (gathered, count) = gather(&mut rows)?;
    // An empty file's error comes before a missing column's.
    if count == 0 {
        return Err(InputError::NoRows {
            file: rows.source().to_string(),
        });
    }
    require_columns(&rows)?;
    gathered.load(rows.source())
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn loading_gives_each_paper_its_normalised_title() {
        let text = "arxiv_id,title,first_author,year\n\
            1706.03762,  Attention Is All You Need ,Ashish Vaswani,2017\n\
            1810.04805,BERT: Pre-training of Déjà-vu,Jacob Devlin,2018\n";
        let loaded = load_truth(RowScanner::new("t.csv", text.as_bytes()).unwrap()).unwrap();
        let expected: Vec<String> = loaded.papers.iter().map(|p| normalize(&p.title)).collect();
        assert_eq!(loaded.normalized_titles, expected);
        assert_eq!(loaded.normalized_titles[1], "bert pre training of deja vu");
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
        assert_eq!(loaded.papers, expected_papers);
        assert_eq!(
            load_papers("t.csv", text.as_bytes()).unwrap(),
            expected_papers
        );
        for (position, paper) in loaded.papers.iter().enumerate() {
            assert_eq!(loaded.by_id[paper.arxiv_id.as_bytes()], position);
        }
        assert_eq!(loaded.by_id.len(), 2);
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

    proptest::proptest! {
        #[test]
        fn truth_loads_row_by_row_as_checking_the_whole_table_says(
            picks in proptest::collection::vec(0usize..12, 0..8),
            header in 0usize..5,
        ) {
            let text = drawn_truth(&picks, header);
            let expected = naive_load(&text);
            let rows = RowScanner::new("t.csv", text.as_bytes())
                .and_then(load_truth)
                .map(|loaded| loaded.papers)
                .map_err(|e| e.to_string());
            proptest::prop_assert_eq!(&rows, &expected, "{}", text);
        }
    }
}
