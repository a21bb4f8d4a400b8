//! The truth loaded past the budget held up against the truth loaded held: the same
//! papers, and the same first problem, in file order and word for word.

use super::*;
use crate::base::sorter::MemoryRuns;
use crate::table::scan::RowScanner;
use crate::verify::arxiv::truth::{Loaded, Paper, load_truth, load_truth_spilling};
use proptest::prelude::*;

static MEMORY: MemoryRuns = MemoryRuns;

/// A truth's papers loaded, or its error as said.
type Papers = Result<Vec<Paper>, String>;
/// A truth's papers loaded past a budget and whether they went to disk, or its
/// error as said.
type Spilled = Result<(Vec<Paper>, bool), String>;
/// A change to a generated truth's row (its number and cells).
type Change<'a> = &'a dyn Fn(usize, &mut [String; 4]);

/// The papers of a truth loaded either way, or its error as said.
fn papers_or_error(loaded: Result<Loaded, String>) -> Spilled {
    match loaded? {
        Loaded::Held(loaded) => Ok((super::super::truth::papers_of(&loaded.papers), false)),
        Loaded::OnDisk(truth) => {
            let mut papers = Vec::new();
            truth
                .papers
                .each(&mut |_, paper| papers.push(Paper::from(paper)))
                .unwrap();
            Ok((papers, true))
        }
    }
}

/// `text` loaded held, and past `budget` bytes on disk.
fn both(text: &str, budget: usize) -> (Papers, Spilled) {
    let held = load_truth(RowScanner::new("t.csv", text.as_bytes()).unwrap())
        .map(|loaded| super::super::truth::papers_of(&loaded.papers))
        .map_err(|error| error.to_string());
    let spilled = load_truth_spilling(
        RowScanner::new("t.csv", text.as_bytes()).unwrap(),
        budget,
        &MEMORY,
    )
    .map_err(|not| match not {
        super::super::truth::NotLoaded::Input(error) => error.to_string(),
        super::super::truth::NotLoaded::Disk(error) => format!("disk: {error}"),
    });
    (held, papers_or_error(spilled))
}

/// A truth of `rows` papers numbered from 0, where `change` may rewrite a row's
/// cells.
fn truth(rows: usize, change: Change<'_>) -> String {
    let mut text = String::from("arxiv_id,title,first_author,year\n");
    for row in 0..rows {
        let mut cells = [
            format!("1706.{:05}", row + 1),
            format!("Paper Number {row} On Things"),
            format!("Ann Author{row}"),
            "2017".to_string(),
        ];
        change(row, &mut cells);
        text.push_str(&format!(
            "{},\"{}\",{},{}\n",
            cells[0], cells[1], cells[2], cells[3]
        ));
    }
    text
}

#[test]
fn a_repeated_id_title_or_both_past_the_budget_is_refused_with_the_held_first_error() {
    let id_again = |row: usize, cells: &mut [String; 4]| {
        if row == 150 {
            cells[0] = "1706.00003".to_string();
        }
    };
    let title_again = |row: usize, cells: &mut [String; 4]| {
        if row == 120 {
            cells[1] = "PAPER number 7 on things!".to_string();
        }
    };
    let both_again = |row: usize, cells: &mut [String; 4]| {
        // The title repeat comes first in the file; the ID's later.
        title_again(row, cells);
        id_again(row, cells);
        if row == 90 {
            cells[1] = "paper number 88 on things".to_string();
        }
    };
    let same_row = |row: usize, cells: &mut [String; 4]| {
        // An ID and a title repeated on one row, after a year that contradicts its ID
        // on a later row: the ID is said first.
        if row == 100 {
            cells[0] = "1706.00010".to_string();
            cells[1] = "Paper Number 11 On Things".to_string();
        }
        if row == 130 {
            cells[3] = "2016".to_string();
        }
    };
    let year_then_repeat = |row: usize, cells: &mut [String; 4]| {
        if row == 140 {
            cells[3] = "2016".to_string();
            cells[0] = "1706.00001".to_string();
        }
    };
    let cases: [(Change<'_>, &str); 5] = [
        (
            &id_again,
            "`t.csv` row 152: ID 1706.00003 appears again (first on row 4); keep one row per paper",
        ),
        (
            &title_again,
            "`t.csv` row 122: title \"PAPER number 7 on things!\" repeats the title on row 9",
        ),
        (
            &both_again,
            "`t.csv` row 92: title \"paper number 88 on things\" repeats the title on row 90",
        ),
        (
            &same_row,
            "`t.csv` row 102: ID 1706.00010 appears again (first on row 11); keep one row per paper",
        ),
        (
            &year_then_repeat,
            "`t.csv` row 142: ID 1706.00001 appears again (first on row 2); keep one row per paper",
        ),
    ];
    for (number, (change, said)) in cases.into_iter().enumerate() {
        let text = truth(200, change);
        for budget in [0, 280 * 50, 280 * 95, 280 * 145] {
            let (held, spilled) = both(&text, budget);
            let held = held.unwrap_err();
            assert!(held.starts_with(said), "case {number}: {held}");
            assert_eq!(spilled.unwrap_err(), held, "case {number}, budget {budget}");
        }
    }
    let clean = truth(200, &|_, _| {});
    let (held, spilled) = both(&clean, 280 * 50);
    assert_eq!(spilled.unwrap(), (held.unwrap(), true));
}

#[test]
fn papers_sharing_a_fingerprint_are_told_apart_by_their_text() {
    let mut builder = DiskPapersBuilder::new(&MEMORY).unwrap();
    let ids = [
        "1706.00001",
        "1706.00002",
        "1706.00003",
        "1706.00002",
        "1706.00001",
    ];
    for id in ids {
        builder
            .push(PaperRef {
                arxiv_id: id,
                title: "T",
                first_author: "A B",
                year: 2017,
            })
            .unwrap();
    }
    let papers = builder.finish().unwrap();
    let mut lines = RowLines::default();
    for position in 0..5 {
        lines.push(position, u64::from(position) + 2);
    }
    // Every paper filed under one key, as if their fingerprints were the same.
    let shared = |positions: &[u32]| {
        let mut sorter = Sorter::new(&MEMORY, SORT_BUDGET);
        for position in positions {
            sorter
                .push(&7_u64.to_be_bytes(), &position.to_be_bytes())
                .unwrap();
        }
        sorter.finish()
    };
    let found = |positions: &[u32]| {
        first_repeat(&papers, shared(positions), Slot::IdRepeat, &lines)
            .unwrap()
            .map(|(position, _, problem)| (position, problem.line, problem.message))
    };
    assert_eq!(found(&[0, 1, 2]), None);
    assert_eq!(
        found(&[0, 1, 2, 3, 4]),
        Some((
            3,
            5,
            "ID 1706.00002 appears again (first on row 3); keep one row per paper".to_string()
        ))
    );
    assert_eq!(
        found(&[0, 2, 4]),
        Some((
            4,
            6,
            "ID 1706.00001 appears again (first on row 2); keep one row per paper".to_string()
        ))
    );
}

/// The cells of a row drawn from a few IDs, titles, authors and years, some
/// repeating each other or the rows of [`truth`], some empty or bad.
fn drawn(pick: (usize, usize, usize, usize)) -> [String; 4] {
    const IDS: [&str; 7] = [
        "1706.00002",
        "1810.04805",
        "1706.00004",
        "1706.03762",
        "",
        "9913.12345",
        "hep-th/9901001",
    ];
    const TITLES: [&str; 6] = [
        "Attention",
        "paper number 1 on things!",
        "attention!",
        "PAPER NUMBER 3 ON THINGS",
        "",
        "Old Style",
    ];
    const AUTHORS: [&str; 3] = ["Ashish Vaswani", "", "Kaiming He"];
    const YEARS: [&str; 5] = ["2017", "2018", "", "twenty", "1999"];
    [
        IDS[pick.0 % IDS.len()].to_string(),
        TITLES[pick.1 % TITLES.len()].to_string(),
        AUTHORS[pick.2 % AUTHORS.len()].to_string(),
        YEARS[pick.3 % YEARS.len()].to_string(),
    ]
}

proptest! {
    #[test]
    fn a_truth_loaded_past_the_budget_gives_the_papers_and_first_error_held_loading_gives(
        clean in 0usize..40,
        picks in prop::collection::vec((0usize..7, 0usize..6, 0usize..3, 0usize..5), 0..6),
        at in prop::collection::vec(0usize..40, 6),
        budget in prop::sample::select(vec![0usize, 280, 280 * 5, 280 * 20, 1 << 20]),
    ) {
        let rows = clean + picks.len();
        let text = truth(rows.max(1), &|row, cells| {
            for (number, &pick) in picks.iter().enumerate() {
                if at[number] % rows.max(1) == row {
                    *cells = drawn(pick);
                }
            }
        });
        let (held, spilled) = both(&text, budget);
        match held {
            Ok(papers) => {
                let (got, on_disk) = spilled.unwrap();
                prop_assert_eq!(got, papers.clone(), "{}", text);
                prop_assert_eq!(on_disk, papers.len() * HELD_BYTES_A_PAPER > budget);
            }
            Err(error) => prop_assert_eq!(spilled.unwrap_err(), error, "{}", text),
        }
    }
}
