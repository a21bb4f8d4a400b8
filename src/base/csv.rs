//! CSV writing that is safe to open in a spreadsheet and identical byte for byte on
//! every run: RFC 4180 quoting, `\n` line ends, and any cell that a spreadsheet would
//! run as a formula (leading `=`, `+`, `-`, `@`, tab or carriage return, a full-width
//! `＝`, or spaces before `=`) prefixed with a single quote. Only free text (prompts,
//! feedback, answers) is neutralised: identifiers (task id, group, kind) are data the
//! tool reads back, so they go out unchanged, and numbers evogate writes itself go
//! through [`number`](crate::base::numbers::number), so `-0.25` stays a number.

#[cfg(test)]
use crate::base::numbers::number;
use crate::base::numbers::push_number;

/// Builds a CSV document row by row, or cell by cell ([`CsvWriter::cell`] and
/// [`CsvWriter::end_row`]) without collecting a row's cells first.
#[derive(Debug, Default, Clone)]
pub struct CsvWriter {
    out: String,
    /// Whether the row being written has a cell yet.
    in_row: bool,
}

/// One cell: untrusted text (neutralised) or a number evogate formatted.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    /// Text that came from a user or a model: neutralised and quoted as needed.
    Text(&'a str),
    /// A value evogate produced (a number, a fixed word) or an identifier (task id,
    /// group, kind): quoted as needed only, never changed, so it reads back as written.
    Trusted(&'a str),
}

impl CsvWriter {
    /// An empty document.
    pub fn new() -> CsvWriter {
        CsvWriter::default()
    }

    /// An empty document with room for `bytes` before it grows.
    pub fn with_capacity(bytes: usize) -> CsvWriter {
        CsvWriter {
            out: String::with_capacity(bytes),
            in_row: false,
        }
    }

    /// Appends a header or any row of trusted names.
    pub fn header(&mut self, names: &[&str]) {
        let cells: Vec<Cell> = names.iter().map(|n| Cell::Trusted(n)).collect();
        self.row(&cells);
    }

    /// Appends one row.
    pub fn row(&mut self, cells: &[Cell]) {
        for cell in cells {
            self.cell(*cell);
        }
        self.end_row();
    }

    /// Appends one cell to the row being written.
    pub fn cell(&mut self, cell: Cell) {
        self.separate();
        match cell {
            Cell::Text(text) => push_text(&mut self.out, text),
            Cell::Trusted(text) => push_quoted(&mut self.out, text),
        }
    }

    /// Appends [`number`](crate::base::numbers::number)`(value)` as a cell, without allocating it.
    pub fn number(&mut self, value: f64) {
        self.separate();
        // Digits, a dot and a minus sign: never quoted.
        push_number(&mut self.out, value);
    }

    /// Ends the row being written.
    pub fn end_row(&mut self) {
        self.out.push('\n');
        self.in_row = false;
    }

    /// The comma before every cell of a row but the first.
    fn separate(&mut self) {
        if self.in_row {
            self.out.push(',');
        }
        self.in_row = true;
    }

    /// The document.
    pub fn finish(self) -> String {
        self.out
    }

    /// Once at least `bytes` were written since the last time, hands them (whole rows,
    /// once a row is ended) to `sink`, and keeps the buffer for what comes next.
    pub fn hand_on(&mut self, bytes: usize, sink: &mut dyn FnMut(&str)) {
        if self.out.len() >= bytes {
            sink(&self.out);
            self.out.clear();
        }
    }
}

/// Prefixes `'` to a cell a spreadsheet would evaluate as a formula.
pub fn neutralise(text: &str) -> std::borrow::Cow<'_, str> {
    if is_formula(text) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// Whether a spreadsheet would evaluate `text` as a formula: it opens with `=`, `+`,
/// `-`, `@`, a tab or a carriage return, or with spaces before `=`, or with the
/// full-width `＝` some spreadsheets also accept.
fn is_formula(text: &str) -> bool {
    // The ASCII openers are one byte, so the first byte is the first character.
    matches!(
        text.as_bytes().first(),
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
    ) || text.trim_start_matches(' ').starts_with(['=', '\u{ff1d}'])
}

/// Whether a cell holding `text` must be quoted: it holds a comma, a quote or a line
/// break, or it starts or ends with a space.
fn needs_quotes(text: &str) -> bool {
    holds_separator(text) || text.starts_with(' ') || text.ends_with(' ')
}

/// Whether `text` holds a comma, a quote or a line break: all ASCII, so a byte scan
/// finds them and nothing inside a character.
fn holds_separator(text: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let bytes = text.as_bytes();
    let mut chunks = bytes.chunks_exact(8);
    // Eight bytes at a time: (x - 0x01…) & !x & 0x80… is non-zero exactly when some
    // byte of x is zero, here when some byte equals one of the four.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let found = zero(word ^ (ONES * u64::from(b',')))
            | zero(word ^ (ONES * u64::from(b'"')))
            | zero(word ^ (ONES * u64::from(b'\n')))
            | zero(word ^ (ONES * u64::from(b'\r')));
        if found != 0 {
            return true;
        }
    }
    chunks
        .remainder()
        .iter()
        .any(|byte| matches!(byte, b',' | b'"' | b'\n' | b'\r'))
}

fn push_quoted(out: &mut String, text: &str) {
    if needs_quotes(text) {
        out.push('"');
        push_doubling_quotes(out, text);
        out.push('"');
    } else {
        out.push_str(text);
    }
}

/// `push_quoted(out, &neutralise(text))` without building the neutralised text: its
/// `'` prefix needs no quotes, and hides a leading space.
fn push_text(out: &mut String, text: &str) {
    if !is_formula(text) {
        return push_quoted(out, text);
    }
    if holds_separator(text) || text.ends_with(' ') {
        out.push_str("\"'");
        push_doubling_quotes(out, text);
        out.push('"');
    } else {
        out.push('\'');
        out.push_str(text);
    }
}

/// `text` with every `"` doubled.
fn push_doubling_quotes(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(quote) = memchr::memchr(b'"', rest.as_bytes()) {
        out.push_str(&rest[..=quote]);
        out.push('"');
        rest = &rest[quote + 1..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CSV of one row of `cells`.
    fn one_row(cells: &[Cell]) -> String {
        let mut csv = CsvWriter::new();
        csv.row(cells);
        csv.finish()
    }

    #[test]
    fn neutralises_formula_cells_but_not_numbers_evogate_wrote() {
        assert_eq!(
            one_row(&[
                Cell::Text("=HYPERLINK(\"x\")"),
                Cell::Text("@SUM(A1)"),
                Cell::Text("-1+2"),
                Cell::Text("\tx"),
                Cell::Trusted(&number(-0.25)),
            ]),
            "\"'=HYPERLINK(\"\"x\"\")\",'@SUM(A1),'-1+2,'\tx,-0.25\n"
        );
    }

    #[test]
    fn neutralises_spaces_before_an_equals_sign_and_the_full_width_equals_sign() {
        assert_eq!(
            one_row(&[
                Cell::Text(" =1+1"),
                Cell::Text("  =A1"),
                Cell::Text("\u{ff1d}1+1"),
                Cell::Text(" a=b"),
            ]),
            "' =1+1,'  =A1,'\u{ff1d}1+1,\" a=b\"\n"
        );
    }

    #[test]
    fn writes_identifiers_unchanged() {
        assert_eq!(
            one_row(&[Cell::Trusted("=1+1:capital"), Cell::Trusted("-x")]),
            "=1+1:capital,-x\n"
        );
    }

    #[test]
    fn quotes_commas_quotes_and_newlines() {
        assert_eq!(
            one_row(&[
                Cell::Text("a,b"),
                Cell::Text("say \"hi\"\nbye"),
                Cell::Text("plain"),
            ]),
            "\"a,b\",\"say \"\"hi\"\"\nbye\",plain\n"
        );
    }

    proptest::proptest! {
        #[test]
        fn the_unit_fast_path_writes_what_formatting_writes(
            value in 0.0f64..=1.0,
            micros in 0u64..=1_000_000,
            share in (1u64..=40, 1u64..=40),
        ) {
            let (k, m) = share;
            for v in [value, micros as f64 / 1e6, (micros as f64 + 0.5) / 1e6, k.min(m) as f64 / m as f64,
                0.5 * (k.min(m) as f64 / m as f64) + 0.3 + 0.2 * (micros as f64 / 1e6)] {
                let text = format!("{v:.6}");
                let text = text.trim_end_matches('0').trim_end_matches('.');
                let expected = if text == "-0" { "0" } else { text };
                proptest::prop_assert_eq!(number(v), expected, "{:?}", v);
            }
        }
    }

    /// The cell writer before cells were written in place, unchanged: the oracle.
    fn naive_cell(cell: Cell) -> String {
        let push_quoted = |out: &mut String, text: &str| {
            if text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ')
            {
                out.push('"');
                let mut rest = text;
                while let Some(quote) = rest.find('"') {
                    out.push_str(&rest[..=quote]);
                    out.push('"');
                    rest = &rest[quote + 1..];
                }
                out.push_str(rest);
                out.push('"');
            } else {
                out.push_str(text);
            }
        };
        let mut out = String::new();
        match cell {
            Cell::Text(text) => push_quoted(&mut out, &neutralise(text)),
            Cell::Trusted(text) => push_quoted(&mut out, text),
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn cells_written_in_place_are_the_cells_written_before(
            text in "[ =+@\t\r\n,\"'a-é\u{ff1d}-]{0,6}",
            any in "\\PC{0,12}",
            value in proptest::num::f64::ANY,
        ) {
            for text in [text.as_str(), any.as_str()] {
                for cell in [Cell::Text(text), Cell::Trusted(text)] {
                    let mut csv = CsvWriter::new();
                    csv.cell(cell);
                    csv.cell(cell);
                    csv.end_row();
                    let one = naive_cell(cell);
                    proptest::prop_assert_eq!(csv.finish(), format!("{one},{one}\n"));
                }
            }
            let mut csv = CsvWriter::new();
            csv.number(value);
            csv.cell(Cell::Trusted("x"));
            csv.end_row();
            proptest::prop_assert_eq!(
                csv.finish(),
                format!("{},x\n", naive_cell(Cell::Trusted(&number(value))))
            );
        }
    }

    #[test]
    fn numbers_have_six_decimals_at_most_and_no_negative_zero() {
        assert_eq!(number(0.75), "0.75");
        assert_eq!(number(1.0), "1");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(2.0 / 3.0), "0.666667");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(-1e-9), "0");
    }
}
