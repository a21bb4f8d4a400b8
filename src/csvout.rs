//! CSV writing that is safe to open in a spreadsheet and identical byte for byte on
//! every run: RFC 4180 quoting, `\n` line ends, and any cell that a spreadsheet would
//! run as a formula (leading `=`, `+`, `-`, `@`, tab or carriage return) prefixed with
//! a single quote. Numbers evogate writes itself go through [`number`], never through
//! the neutraliser, so `-0.25` stays a number.

/// Builds a CSV document row by row.
#[derive(Debug, Default, Clone)]
pub struct CsvWriter {
    out: String,
}

/// One cell: untrusted text (neutralised) or a number evogate formatted.
#[derive(Debug, Clone, Copy)]
pub enum Cell<'a> {
    /// Text that came from a user or a model: neutralised and quoted as needed.
    Text(&'a str),
    /// A value evogate produced (a number, a fixed word): quoted as needed only.
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
        }
    }

    /// Appends a header or any row of trusted names.
    pub fn header(&mut self, names: &[&str]) {
        let cells: Vec<Cell> = names.iter().map(|n| Cell::Trusted(n)).collect();
        self.row(&cells);
    }

    /// Appends one row.
    pub fn row(&mut self, cells: &[Cell]) {
        for (index, cell) in cells.iter().enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            match *cell {
                Cell::Text(text) => push_quoted(&mut self.out, &neutralise(text)),
                Cell::Trusted(text) => push_quoted(&mut self.out, text),
            }
        }
        self.out.push('\n');
    }

    /// The document.
    pub fn finish(self) -> String {
        self.out
    }
}

/// Prefixes `'` to a cell a spreadsheet would evaluate as a formula.
pub fn neutralise(text: &str) -> std::borrow::Cow<'_, str> {
    match text.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{text}").into(),
        _ => text.into(),
    }
}

fn push_quoted(out: &mut String, text: &str) {
    if text.contains([',', '"', '\n', '\r']) || text.starts_with(' ') || text.ends_with(' ') {
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
}

/// A finite number in at most six decimals with trailing zeros removed (`0.75`, `1`,
/// `0.123457`), the same on every platform. Negative zero is written `0`.
pub fn number(value: f64) -> String {
    if let Some(text) = unit_number(value) {
        return text;
    }
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => "0".to_string(),
        other => other.to_string(),
    }
}

/// [`number`] for a value in [0, 1] whose millionths are not within 10^-6 of a
/// half, the scores' common case, without formatting a float: `value · 10^6` is then
/// within 2^-32 of the exact product, so rounding it to the nearest integer gives
/// the digits `{:.6}` writes. `None` for every other value.
fn unit_number(value: f64) -> Option<String> {
    if !(0.0..=1.0).contains(&value) {
        return None;
    }
    let scaled = value * 1e6;
    let floor = scaled.floor();
    let fraction = scaled - floor;
    if (fraction - 0.5).abs() <= 1e-6 {
        return None;
    }
    let micros = floor as u64 + u64::from(fraction > 0.5);
    let (whole, part) = (micros / 1_000_000, micros % 1_000_000);
    let mut text = String::with_capacity(8);
    text.push(char::from(b'0' + whole as u8));
    if part > 0 {
        text.push('.');
        let mut rest = part;
        let mut scale = 100_000;
        while rest > 0 {
            text.push(char::from(b'0' + (rest / scale) as u8));
            rest %= scale;
            scale /= 10;
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutralises_formula_cells_but_not_numbers_evogate_wrote() {
        let mut csv = CsvWriter::new();
        csv.row(&[
            Cell::Text("=HYPERLINK(\"x\")"),
            Cell::Text("@SUM(A1)"),
            Cell::Text("-1+2"),
            Cell::Text("\tx"),
            Cell::Trusted(&number(-0.25)),
        ]);
        assert_eq!(
            csv.finish(),
            "\"'=HYPERLINK(\"\"x\"\")\",'@SUM(A1),'-1+2,'\tx,-0.25\n"
        );
    }

    #[test]
    fn quotes_commas_quotes_and_newlines() {
        let mut csv = CsvWriter::new();
        csv.row(&[
            Cell::Text("a,b"),
            Cell::Text("say \"hi\"\nbye"),
            Cell::Text("plain"),
        ]);
        assert_eq!(csv.finish(), "\"a,b\",\"say \"\"hi\"\"\nbye\",plain\n");
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
