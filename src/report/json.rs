//! `admission.json` and `--format json`: the [`Report`] as pretty-printed JSON with a
//! final newline. Floating-point values are written to 12 significant digits, so the
//! last-bit differences between platforms' `exp` and `ln` never reach the bytes.

use serde_json::{Number, Value};

use super::Report;

/// Significant digits kept in every non-integer number.
pub const SIGNIFICANT_DIGITS: usize = 12;

/// Renders the report.
pub fn render(report: &Report) -> String {
    let mut value = serde_json::to_value(report).expect("the report holds only finite numbers");
    round_floats(&mut value);
    let mut text = serde_json::to_string_pretty(&value).expect("a JSON value always prints");
    text.push('\n');
    text
}

fn round_floats(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(rounded) = number.as_f64().map(round).and_then(Number::from_f64) {
                *number = rounded;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(round_floats),
        Value::Object(map) => map.values_mut().for_each(round_floats),
        _ => {}
    }
}

/// `x` to [`SIGNIFICANT_DIGITS`] digits, with negative zero made positive.
fn round(x: f64) -> f64 {
    let text = format!("{:.*e}", SIGNIFICANT_DIGITS - 1, x);
    text.parse::<f64>().map_or(x, |r| r + 0.0)
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
        let mut value = serde_json::json!({"a": [0.1 + 0.2, 3], "b": {"c": 2.0 / 3.0}});
        round_floats(&mut value);
        assert_eq!(
            value.to_string(),
            r#"{"a":[0.3,3],"b":{"c":0.666666666667}}"#
        );
    }
}
