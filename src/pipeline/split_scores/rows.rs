//! The rows of a scores file as `split --from-scores` needs them, read as a stream: each
//! row's task id and kind in one buffer with each one's length, its line (held only
//! where a row breaks the count), and whether it
//! is a repeat of an item; then the tasks they make, checked in row order (a blank or
//! repeated id, repeats of one item with two kinds, an item that is also a row of its
//! own), with the messages and in the order the whole-table reading gave them: the
//! file's digest first, then any error of its CSV, then its columns, then its rows.

use std::fs::File;
use std::io::{Read, Take};
use std::path::Path;

use crate::admission::repeats::{repeat_form, repeat_in};
use crate::base::hash::fingerprint;
use crate::base::index::HashIndex;
use crate::digest::HashingReader;
use crate::error::InputError;
use crate::table::scan::RowScanner;
use crate::table::{MAX_WHOLE_BYTES, column, open_input, require};

/// Strings one after another, each found by its length (one byte; the rare string of
/// 255 bytes or more has its length in `long`) and where its block of
/// [`STRINGS_BLOCK`] begins: 1.25 bytes a string where an end each took 4.
#[derive(Default)]
struct Strings {
    text: String,
    /// Where each block of [`STRINGS_BLOCK`] strings begins in `text`.
    starts: Vec<u32>,
    /// Each string's length, 255 for one of 255 bytes or more.
    lengths: Vec<u8>,
    /// The lengths of the strings of 255 bytes or more, by index.
    long: std::collections::BTreeMap<u32, u32>,
}

/// How many strings share a start in [`Strings`]: a lookup adds up at most this many
/// lengths less one.
const STRINGS_BLOCK: usize = 16;

impl Strings {
    fn push(&mut self, text: &str) {
        // The file is at most [`MAX_WHOLE_BYTES`], far below `u32::MAX`.
        let at = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let index = self.lengths.len();
        if index.is_multiple_of(STRINGS_BLOCK) {
            self.starts.push(at(self.text.len()));
        }
        self.text.push_str(text);
        self.lengths
            .push(u8::try_from(text.len()).unwrap_or(u8::MAX));
        if text.len() >= usize::from(u8::MAX) {
            self.long.insert(at(index), at(text.len()));
        }
    }

    fn length(&self, index: usize) -> usize {
        match self.lengths[index] {
            u8::MAX => self.long[&u32::try_from(index).unwrap_or(u32::MAX)] as usize,
            short => usize::from(short),
        }
    }

    fn get(&self, index: usize) -> &str {
        let block = index / STRINGS_BLOCK;
        let start = self.starts[block] as usize
            + (block * STRINGS_BLOCK..index)
                .map(|i| self.length(i))
                .sum::<usize>();
        &self.text[start..start + self.length(index)]
    }
}

/// The line each row starts on, held only once a row breaks the rule that row `i`
/// starts on the first row's line plus `i` (a quoted value holding a line break):
/// the common file costs nothing here.
#[derive(Default)]
struct Lines {
    /// The first row's line.
    first: u32,
    /// Every row's line, once one broke the rule; else empty.
    each: Vec<u32>,
    /// The rows pushed.
    len: usize,
}

impl Lines {
    fn push(&mut self, line: u64) {
        let line = u32::try_from(line).unwrap_or(u32::MAX);
        if self.len == 0 {
            self.first = line;
        }
        let ruled = u32::try_from(self.len)
            .ok()
            .and_then(|i| self.first.checked_add(i));
        if self.each.is_empty() && ruled != Some(line) {
            self.each = (0..self.len).map(|i| self.get(i)).collect();
        }
        if !self.each.is_empty() || ruled != Some(line) {
            self.each.push(line);
        }
        self.len += 1;
    }

    fn get(&self, row: usize) -> u32 {
        match self.each.get(row) {
            Some(&line) => line,
            None => self
                .first
                .saturating_add(u32::try_from(row).unwrap_or(u32::MAX)),
        }
    }
}

/// A scores file's rows, read.
pub(super) struct ReadRows {
    ids: Strings,
    /// The kinds, when the file has a `kind` column.
    kinds: Option<Strings>,
    /// Whether each row is a repeat (`<item>#<r>` whose group is the item), when the file
    /// has a `group` column.
    repeat: Vec<bool>,
    /// Each row's line.
    lines: Lines,
}

/// The tasks of a scores file, in its row order, by number.
pub(super) struct ScoreRows {
    ids: Strings,
    kinds: Option<Strings>,
    repeat: Vec<bool>,
    /// Each task's row; empty when every row is a task of its own.
    rows: Vec<u32>,
    /// The number of rows.
    row_count: usize,
}

/// The scores file at `path` read, and its SHA-256; an error of its CSV or its columns
/// is handed back inside, to be told after the digest's checks. A file that cannot be
/// opened or read, or larger than [`MAX_WHOLE_BYTES`], is an error at once.
pub(super) fn read(
    path: &Path,
    source: &str,
) -> Result<(Result<ReadRows, InputError>, String), InputError> {
    let mut input: Take<HashingReader<File>> =
        HashingReader::new(open_input(path)?).take(MAX_WHOLE_BYTES + 1);
    let read = scan(source, &mut input);
    let io = |error: std::io::Error| InputError::Io {
        file: source.to_string(),
        message: error.to_string(),
    };
    std::io::copy(&mut input, &mut std::io::sink()).map_err(io)?;
    if input.limit() == 0 {
        return Err(InputError::TooLarge {
            file: source.to_string(),
            limit_mib: MAX_WHOLE_BYTES >> 20,
        });
    }
    let sha256 = input.into_inner().finish().map_err(io)?;
    Ok((read, sha256))
}

/// The rows of `input`, kept as [`ReadRows`] holds them; a missing `task_id` column or
/// no rows at all is told once the input is read, after any error of its CSV.
fn scan(source: &str, input: &mut impl Read) -> Result<ReadRows, InputError> {
    let mut scanner = RowScanner::new(source, input)?;
    let headers = scanner.headers().to_vec();
    let id = require(source, &headers, "task_id");
    let kind = column(&headers, "kind");
    let group = column(&headers, "group");
    let mut read = ReadRows {
        ids: Strings::default(),
        kinds: kind.map(|_| Strings::default()),
        repeat: Vec::new(),
        lines: Lines::default(),
    };
    let mut rows = 0_usize;
    while let Some(row) = scanner.next_row()? {
        rows += 1;
        let Ok(id) = id else { continue };
        let task_id = row.field(id).trim();
        read.ids.push(task_id);
        if let (Some(kinds), Some(kind)) = (read.kinds.as_mut(), kind) {
            kinds.push(row.field(kind).trim());
        }
        if let Some(group) = group {
            read.repeat
                .push(repeat_in(task_id, Some(row.field(group).trim())).is_some());
        }
        read.lines.push(row.line);
    }
    id?;
    if rows == 0 {
        return Err(InputError::NoRows {
            file: source.to_string(),
        });
    }
    Ok(read)
}

/// The tasks of the rows `read`: `task_id`, the group its id names (the part before its
/// last `:`, else the id itself: a `group` column is not read for this, as `score` and
/// `split --check` go by the id), its `kind` when it has one. A blank or repeated task
/// id is an error naming its row.
///
/// Repeats of an item (rows `<item>#<r>` whose `group` is `<item>`, as `import
/// --repeats all` writes them) are one task, the item, at its first repeat's place:
/// a holdout lists items, and `admit` reads each listed item as all of its repeats.
pub(super) fn tasks_of(read: ReadRows, source: &str) -> anyhow::Result<ScoreRows> {
    let ReadRows {
        ids,
        kinds,
        repeat,
        lines,
    } = read;
    let row_count = lines.len;
    let mut tasks = ScoreRows {
        ids,
        kinds,
        repeat,
        // Filled only from the first repeat on (every row before it is a task of its
        // own): a file without repeats holds no list of rows.
        rows: Vec::new(),
        row_count,
    };
    let mut first = HashIndex::with_capacity(row_count);
    // The tasks that are items of repeats, by the hash of the item.
    let mut items = HashIndex::default();
    let mut any_item = false;
    for row in 0..row_count {
        let task_id = tasks.ids.get(row);
        let at = |message: String| anyhow::anyhow!("`{source}` row {}: {message}", lines.get(row));
        if task_id.is_empty() {
            return Err(at("the task id is blank".to_string()));
        }
        let hash = fingerprint(task_id);
        if let Some(earlier) = first.find(hash, |r| tasks.ids.get(r as usize) == task_id) {
            return Err(at(format!(
                "task `{task_id}` is listed twice (first on row {}); a holdout lists each task once: import with --repeats, or remove the repeat",
                lines.get(earlier as usize)
            )));
        }
        first.insert(hash, row as u32);
        if !tasks.is_repeat(row) {
            if any_item {
                tasks.rows.push(row as u32);
            }
            continue;
        }
        if !any_item {
            tasks.rows = Vec::with_capacity(row_count);
            tasks.rows.extend(0..row as u32);
        }
        any_item = true;
        let item = repeat_form(task_id).map_or(task_id, |(item, _)| item);
        let row_kind = tasks.row_kind(row);
        let hash = fingerprint(item);
        match items.find(hash, |t| tasks.id(t as usize) == item) {
            Some(place) => {
                let item_row = tasks.rows[place as usize] as usize;
                let kind = tasks.row_kind(item_row);
                if kind != row_kind {
                    return Err(at(format!(
                        "the repeats of item `{item}` have different kinds (`{kind}` on row {}, `{row_kind}` here): repeats of one item are one task; give them one kind",
                        lines.get(item_row)
                    )));
                }
            }
            None => {
                items.insert(hash, tasks.rows.len() as u32);
                tasks.rows.push(row as u32);
            }
        }
    }
    // The first item, by name, that is also a row of its own.
    let mut clash: Option<(&str, usize, usize)> = None;
    for (task, &row) in tasks.rows.iter().enumerate() {
        if !tasks.is_repeat(row as usize) {
            continue;
        }
        let item = tasks.id(task);
        let own = first.find(fingerprint(item), |r| tasks.ids.get(r as usize) == item);
        if let Some(own) = own
            && clash.is_none_or(|(earlier, _, _)| item < earlier)
        {
            clash = Some((item, own as usize, row as usize));
        }
    }
    if let Some((item, own, row)) = clash {
        anyhow::bail!(
            "`{source}` row {}: task `{item}` is a row of its own and also the item of the repeats `{item}#…` (row {}, their group): an item is either run once or repeated; rename one",
            lines.get(own),
            lines.get(row)
        );
    }
    Ok(tasks)
}

impl ScoreRows {
    /// The number of tasks.
    pub(super) fn len(&self) -> usize {
        if self.rows.is_empty() {
            self.row_count
        } else {
            self.rows.len()
        }
    }

    /// The number of rows when any was a repeat.
    pub(super) fn repeat_rows(&self) -> Option<usize> {
        (!self.rows.is_empty()).then_some(self.row_count)
    }

    fn is_repeat(&self, row: usize) -> bool {
        self.repeat.get(row).copied().unwrap_or(false)
    }

    fn row_kind(&self, row: usize) -> &str {
        self.kinds.as_ref().map_or("", |kinds| kinds.get(row))
    }

    fn row_of(&self, task: usize) -> usize {
        if self.rows.is_empty() {
            task
        } else {
            self.rows[task] as usize
        }
    }

    /// Task `task`'s id: its row's, or the item its row repeats.
    pub(super) fn id(&self, task: usize) -> &str {
        let row = self.row_of(task);
        let id = self.ids.get(row);
        if self.is_repeat(row) {
            repeat_form(id).map_or(id, |(item, _)| item)
        } else {
            id
        }
    }

    /// Task `task`'s group: the part of its id before the last `:`, else the id.
    pub(super) fn group(&self, task: usize) -> &str {
        let id = self.id(task);
        id.rsplit_once(':').map_or(id, |(group, _)| group)
    }

    /// Task `task`'s kind.
    pub(super) fn kind(&self, task: usize) -> &str {
        self.row_kind(self.row_of(task))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tasks of `csv`, or the error told of it.
    fn tasks(csv: &str) -> Result<Vec<(String, String, String)>, String> {
        let read = scan("s.csv", &mut csv.as_bytes()).map_err(|e| e.to_string())?;
        let rows = tasks_of(read, "s.csv").map_err(|e| e.to_string())?;
        Ok((0..rows.len())
            .map(|t| {
                (
                    rows.id(t).to_string(),
                    rows.group(t).to_string(),
                    rows.kind(t).to_string(),
                )
            })
            .collect())
    }

    #[test]
    fn strings_of_any_length_are_found_again_across_blocks() {
        let mut strings = Strings::default();
        let texts: Vec<String> = (0..100)
            .map(|i| match i % 7 {
                0 => String::new(),
                3 => "x".repeat(254 + i),
                _ => format!("id{i}"),
            })
            .collect();
        for text in &texts {
            strings.push(text);
        }
        for (index, text) in texts.iter().enumerate() {
            assert_eq!(strings.get(index), text, "string {index}");
        }
    }

    #[test]
    fn lines_are_held_only_once_a_row_breaks_the_rule() {
        let mut lines = Lines::default();
        for line in [2, 3, 4] {
            lines.push(line);
        }
        assert!(lines.each.is_empty());
        for line in [6, 7] {
            lines.push(line);
        }
        assert_eq!(
            (0..5).map(|row| lines.get(row)).collect::<Vec<_>>(),
            [2, 3, 4, 6, 7]
        );
        let error = tasks("task_id,score\n\"a\nb\",1\nc,1\nc,1\n").unwrap_err();
        assert!(
            error.contains("row 5: task `c` is listed twice (first on row 4)"),
            "{error}"
        );
    }

    #[test]
    fn repeats_are_one_task_at_their_first_place_and_other_rows_tasks_of_their_own() {
        let csv = "task_id,group,kind\n\
                   m:a#1,m:a,x\n plain , ,y\nm:a#2,m:a,x\nq#1,other,z\n";
        let tasks = tasks(csv).unwrap();
        let expected = [
            ("m:a", "m", "x"),
            ("plain", "plain", "y"),
            ("q#1", "q#1", "z"),
        ];
        let expected: Vec<(String, String, String)> = expected
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect();
        assert_eq!(tasks, expected);
    }

    #[test]
    fn an_error_of_the_csv_below_a_repeated_task_is_the_one_told() {
        let error = tasks("task_id,score\na,1\na,1\nb,1,1\n").unwrap_err();
        assert!(
            error.contains("row 4: 3 fields where the header has 2"),
            "{error}"
        );
        let error = tasks("task_id,score\na,1\na,1\n").unwrap_err();
        assert!(
            error.contains("row 3: task `a` is listed twice (first on row 2)"),
            "{error}"
        );
    }

    #[test]
    fn of_two_items_that_are_rows_of_their_own_the_first_by_name_is_told() {
        let csv = "task_id,group\nz#1,z\nb#1,b\nz,q\nb,q\n";
        let error = tasks(csv).unwrap_err();
        assert!(
            error.starts_with("`s.csv` row 5: task `b` is a row of its own")
                && error.contains("(row 3, their group)"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_task_id_column_is_told_after_the_rows_are_read() {
        let error = tasks("id,score\na,1\n").unwrap_err();
        assert!(error.contains("no column `task_id`"), "{error}");
        let error = tasks("id,score\na,1,2\n").unwrap_err();
        assert!(error.contains("row 2: 3 fields"), "{error}");
        let error = tasks("task_id,score\n").unwrap_err();
        assert!(error.contains("no data rows"), "{error}");
    }
}
