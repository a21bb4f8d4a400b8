//! `admission.json` and `--format json`: the [`Report`] as pretty-printed JSON in field
//! order, with a final newline. Floating-point values are written to 12 significant
//! digits, so the last-bit differences between platforms' `exp` and `ln` never reach
//! the bytes. [`document`] writes every other JSON evogate prints (audit, power, the
//! ledger summary) the same way without the rounding. Both pass every string through
//! the JSON sanitiser, [`super::escape::json_fragment`].

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

use super::Report;
use super::escape::json_fragment;

/// Significant digits kept in every floating-point number.
pub(crate) const SIGNIFICANT_DIGITS: usize = 12;

/// Renders the report.
pub(crate) fn render(report: &Report) -> String {
    write(report, true).expect("the report holds only strings, integers and finite numbers")
}

/// A report other than [`Report`] (the sequential one), written as [`render`] writes
/// that: floating-point values to [`SIGNIFICANT_DIGITS`] digits.
pub(crate) fn rounded<T: Serialize>(value: &T) -> serde_json::Result<String> {
    write(value, true)
}

/// Any other JSON document a command prints or writes: pretty-printed in field order,
/// numbers as serde_json writes them, with a final newline.
pub(crate) fn document<T: Serialize>(value: &T) -> serde_json::Result<String> {
    write(value, false)
}

/// [`document`] written to `out` as it is made: a document of millions of entries
/// (a manifest's task ids) is never held whole.
pub(crate) fn document_to<T: Serialize>(value: &T, out: &mut dyn io::Write) -> io::Result<()> {
    let mut buffered = io::BufWriter::with_capacity(1 << 16, out);
    let formatter = Rounding {
        pretty: PrettyFormatter::new(),
        rounded: false,
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut buffered, formatter);
    value.serialize(&mut serializer).map_err(io::Error::other)?;
    io::Write::write_all(&mut buffered, b"\n")?;
    io::Write::flush(&mut buffered)
}

fn write<T: Serialize>(value: &T, rounded: bool) -> serde_json::Result<String> {
    let mut bytes = Vec::new();
    let formatter = Rounding {
        pretty: PrettyFormatter::new(),
        rounded,
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, formatter);
    value.serialize(&mut serializer)?;
    let mut text = String::from_utf8(bytes).expect("serde_json writes UTF-8");
    text.push('\n');
    Ok(text)
}

/// `x` to [`SIGNIFICANT_DIGITS`] digits, with negative zero made positive.
fn round(x: f64) -> f64 {
    let text = format!("{:.*e}", SIGNIFICANT_DIGITS - 1, x);
    text.parse::<f64>().map_or(x, |r| r + 0.0)
}

/// serde_json's pretty layout with every `f64` rounded by [`round`] before printing
/// when `rounded`, and every string run through the JSON sanitiser.
struct Rounding<'a> {
    pretty: PrettyFormatter<'a>,
    rounded: bool,
}

impl Formatter for Rounding<'_> {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let value = if self.rounded { round(value) } else { value };
        CompactFormatter.write_f64(writer, value)
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        writer.write_all(json_fragment(fragment).as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_array(writer)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.pretty.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_object(writer)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.pretty.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.pretty.end_object_value(writer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_keeps_twelve_digits_and_drops_negative_zero() {
        assert_eq!(round(5.0 / 6.0), 0.833333333333);
        assert_eq!(round(0.03125), 0.03125);
        assert_eq!(round(1e-30 / 3.0), 3.33333333333e-31);
        assert_eq!(round(-0.0).to_bits(), 0.0_f64.to_bits());
    }

    #[test]
    fn keeps_field_order_and_pretty_layout_while_rounding() {
        #[derive(Serialize)]
        struct Sample {
            zeta: f64,
            alpha: Vec<f64>,
            count: u64,
        }
        let sample = Sample {
            zeta: 0.1 + 0.2,
            alpha: vec![2.0 / 3.0],
            count: 3,
        };
        assert_eq!(
            write(&sample, true).unwrap(),
            "{\n  \"zeta\": 0.3,\n  \"alpha\": [\n    0.666666666667\n  ],\n  \"count\": 3\n}\n"
        );
        assert!(
            document(&sample)
                .unwrap()
                .contains("\"zeta\": 0.30000000000000004,")
        );
    }
}
