//! A targeted scanner for one lm-eval `--log_samples` line: it walks the JSON once,
//! keeps `doc_id`, `filter`, `doc_hash`, `metrics` and the numbers and booleans at the
//! top level, and steps over the large values (`doc`, `arguments`, `resps`) byte by
//! byte without building them. It accepts only what it fully understands (valid
//! UTF-8, strict JSON syntax, keys and kept strings without escapes, no surrogate
//! escapes, numbers in range, nesting under 100); for anything else it answers `None`
//! and the caller parses the line with serde_json, so the result (and every error
//! message) is serde_json's. A test holds the two equal on generated lines.
//!
//! Speed: a line with a control character anywhere but its end is left to serde_json
//! (JSON forbids them inside strings, and `json.dumps` writes none between tokens), so
//! strings are stepped over with `memchr2` on the quote and the backslash alone, and
//! the kept names are borrowed from the line rather than copied.

use std::borrow::Cow;

use memchr::memchr2;
use serde_json::{Map, Number, Value};

use super::lm_eval_line::Line;

/// The kept fields of `line`, or `None` when serde_json must decide.
pub(super) fn scan(line: &[u8]) -> Option<Line<'_>> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    // One pass the compiler vectorises: a control character (raw tab, newline inside
    // a string) sends the line to serde_json, so `string` need not look for them.
    if body.iter().fold(false, |seen, &c| seen | (c < 0x20)) {
        return None;
    }
    // Checked once, the line's kept strings and numbers are slices of this text (each
    // starts and ends beside an ASCII byte, so on a character boundary).
    let text = std::str::from_utf8(body).ok()?;
    let mut at = Cursor {
        b: body,
        text,
        at: 0,
    };
    let mut kept = Line {
        doc_id: None,
        filter: None,
        doc_hash: None,
        metrics: None,
        // lm-eval lines have about ten other fields: one allocation, not three.
        scalars: Vec::with_capacity(16),
    };
    at.eat(b'{')?;
    if at.peek()? == b'}' {
        at.at += 1;
    } else {
        loop {
            let key = at.plain_string()?;
            at.eat(b':')?;
            match key {
                "doc_id" => kept.doc_id = Some(at.doc_id()?),
                "filter" => kept.filter = Some(Cow::Borrowed(at.plain_string()?)),
                "doc_hash" => {
                    kept.doc_hash = if at.peek()? == b'n' {
                        at.literal(b"null")?;
                        None
                    } else {
                        Some(Cow::Borrowed(at.plain_string()?))
                    }
                }
                "metrics" => kept.metrics = Some(at.metrics()?),
                _ => {
                    let value = at.scalar()?;
                    kept.scalars.push((Cow::Borrowed(key), value));
                }
            }
            match at.peek()? {
                b',' => at.at += 1,
                b'}' => {
                    at.at += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    at.ws();
    (at.at == body.len()).then_some(kept)
}

/// Deepest nesting the scanner steps through (serde_json's limit is 128).
const MAX_DEPTH: usize = 100;

struct Cursor<'a> {
    b: &'a [u8],
    /// `b` as text.
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.at) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.at += 1)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.ws();
        let end = self.at + word.len();
        (self.b.get(self.at..end)? == word).then(|| self.at = end)
    }

    /// A string; its raw content and whether it held an escape.
    fn string(&mut self) -> Option<(&'a [u8], bool)> {
        self.eat(b'"')?;
        let start = self.at;
        let mut escaped = false;
        loop {
            // No control characters are left (see `scan`): only the quote and the
            // backslash end a run of plain content.
            let run = memchr2(b'"', b'\\', &self.b[self.at..])?;
            self.at += run;
            match self.b[self.at] {
                b'"' => {
                    let content = &self.b[start..self.at];
                    self.at += 1;
                    return Some((content, escaped));
                }
                b'\\' => {
                    escaped = true;
                    match *self.b.get(self.at + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.at += 2,
                        b'u' => {
                            let hex = self.b.get(self.at + 2..self.at + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            let code =
                                u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                            // Surrogates (paired or lone) are left to serde_json.
                            if (0xD800..0xE000).contains(&code) {
                                return None;
                            }
                            self.at += 6;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }

    /// A string without escapes, as text.
    fn plain_string(&mut self) -> Option<&'a str> {
        match self.string()? {
            (content, false) => {
                let end = self.at - 1;
                self.text.get(end - content.len()..end)
            }
            _ => None,
        }
    }

    /// A number in JSON's grammar, as text.
    fn number(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.at;
        let digits = |s: &mut Self| {
            let from = s.at;
            while s.b.get(s.at).is_some_and(u8::is_ascii_digit) {
                s.at += 1;
            }
            s.at > from
        };
        if self.b.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.b.get(self.at)? {
            b'0' => self.at += 1,
            b'1'..=b'9' => {
                digits(self);
            }
            _ => return None,
        }
        if self.b.get(self.at) == Some(&b'.') {
            self.at += 1;
            if !digits(self) {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.at) {
            self.at += 1;
            if let Some(b'+' | b'-') = self.b.get(self.at) {
                self.at += 1;
            }
            if !digits(self) {
                return None;
            }
        }
        self.text.get(start..self.at)
    }

    /// A number's value as serde_json gives it (integers through u64/i64, others
    /// correctly rounded); `None` when out of range, which serde_json refuses.
    fn number_value(&mut self) -> Option<f64> {
        let text = self.number()?;
        let value: f64 = text.parse().ok()?;
        if !value.is_finite() {
            return None;
        }
        // serde_json reads `-0` as -0.0 too (the test holds it), so no integer case.
        Some(value)
    }

    /// A top-level value: its number (booleans as 0/1), or `None` once stepped over.
    fn scalar(&mut self) -> Option<Option<f64>> {
        Some(match self.peek()? {
            b't' => self.literal(b"true").map(|()| 1.0),
            b'f' => self.literal(b"false").map(|()| 0.0),
            b'-' | b'0'..=b'9' => Some(self.number_value()?),
            _ => {
                self.skip(0)?;
                None
            }
        })
    }

    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let (open, close) = match self.peek()? {
            b'"' => return self.string().map(|_| ()),
            b't' => return self.literal(b"true"),
            b'f' => return self.literal(b"false"),
            b'n' => return self.literal(b"null"),
            b'{' => (b'{', b'}'),
            b'[' => (b'[', b']'),
            _ => return self.number().map(|_| ()),
        };
        self.at += 1;
        if self.peek()? == close {
            self.at += 1;
            return Some(());
        }
        loop {
            if open == b'{' {
                self.string()?;
                self.eat(b':')?;
            }
            self.skip(depth + 1)?;
            match self.peek()? {
                b',' => self.at += 1,
                c if c == close => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// `doc_id` when it is an integer or a plain string.
    fn doc_id(&mut self) -> Option<Value> {
        if self.peek()? == b'"' {
            return Some(Value::String(self.plain_string()?.to_string()));
        }
        let text = self.number()?;
        if let Ok(n) = text.parse::<u64>() {
            Some(Value::from(n))
        } else {
            text.parse::<i64>().ok().map(Value::from)
        }
    }

    /// `metrics` when it is a list of plain names or an object of numbers and booleans.
    fn metrics(&mut self) -> Option<Value> {
        match self.peek()? {
            b'[' => {
                self.at += 1;
                let mut names = Vec::new();
                if self.peek()? == b']' {
                    self.at += 1;
                    return Some(Value::Array(names));
                }
                loop {
                    names.push(Value::String(self.plain_string()?.to_string()));
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(Value::Array(names));
                        }
                        _ => return None,
                    }
                }
            }
            b'{' => {
                self.at += 1;
                let mut map = Map::new();
                if self.peek()? == b'}' {
                    self.at += 1;
                    return Some(Value::Object(map));
                }
                loop {
                    let name = self.plain_string()?.to_string();
                    self.eat(b':')?;
                    let value = match self.peek()? {
                        b't' => self.literal(b"true").map(|()| Value::Bool(true))?,
                        b'f' => self.literal(b"false").map(|()| Value::Bool(false))?,
                        _ => Value::Number(Number::from_f64(self.number_value()?)?),
                    };
                    map.insert(name, value);
                    match self.peek()? {
                        b',' => self.at += 1,
                        b'}' => {
                            self.at += 1;
                            return Some(Value::Object(map));
                        }
                        _ => return None,
                    }
                }
            }
            _ => None,
        }
    }
}

/// The scanner's reading of `line` (`None` when it leaves the line to serde_json) and
/// serde_json's (`None` when serde_json refuses it), each as the kept fields in one
/// comparable text: what the tests and the `lm_eval_scan` fuzz target hold equal.
#[doc(hidden)]
pub fn readings(line: &[u8]) -> (Option<String>, Option<String>) {
    let serde: Option<Line> = serde_json::from_slice(line).ok();
    (scan(line).as_ref().map(fields), serde.as_ref().map(fields))
}

/// The fields compared bit for bit (so `-0.0` and `0.0` differ).
fn fields(line: &Line) -> String {
    let scalars: Vec<String> = line
        .scalars
        .iter()
        .map(|(k, v)| format!("{k}={:?}", v.map(f64::to_bits)))
        .collect();
    let metrics = match &line.metrics {
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| format!("{k}={:?}", super::numeric(v).map(f64::to_bits)))
            .collect::<Vec<_>>()
            .join(","),
        other => format!("{other:?}"),
    };
    format!(
        "{:?}|{:?}|{:?}|{metrics}|{}",
        line.doc_id.as_ref().map(super::id_text),
        line.filter,
        line.doc_hash,
        scalars.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The line as serde_json reads it, or `None` when serde_json refuses it.
    fn by_serde(line: &[u8]) -> Option<Line<'static>> {
        serde_json::from_slice(line).ok()
    }

    fn piece() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "a",
            "Q: ",
            "é",
            "日本",
            "\\\"",
            "\\\\",
            "\\n",
            "\\/",
            "\\u00e9",
            "\\u0041",
            "\\ud83d\\ude00",
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "<<2*80=160>>",
        ])
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..8).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    fn number() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "0",
            "1",
            "-0",
            "0.0",
            "-0.0",
            "1.0",
            "0.5",
            "2.5e-1",
            "1E2",
            "-3",
            "18446744073709551615",
            "18446744073709551616",
            "0.30000000000000004",
            "true",
            "false",
        ])
        .prop_map(str::to_string)
    }

    fn nested() -> impl Strategy<Value = String> {
        (text(), text(), number()).prop_map(|(a, b, n)| {
            format!(
                "{{\"question\": {a}, \"x\": [{b}, {n}, {{\"k\": [[], {{}}, null]}}], \"t\": true}}"
            )
        })
    }

    /// A line of fields in any order, the metric as number or bool, either layout.
    fn line() -> impl Strategy<Value = String> {
        let doc_id = prop_oneof![
            (0u64..1_000_000).prop_map(|n| n.to_string()),
            Just("-7".to_string()),
            text(),
        ];
        let filter = prop_oneof![Just("\"strict-match\"".to_string()), text()];
        let doc_hash = prop_oneof![Just("\"8d52662e\"".to_string()), Just("null".to_string())];
        let metrics = prop_oneof![
            Just("[\"exact_match\"]".to_string()),
            Just("[\"exact_match\", \"acc\"]".to_string()),
            (number(), number())
                .prop_map(|(a, b)| format!("{{\"exact_match\": {a}, \"acc\": {b}}}")),
        ];
        (
            doc_id,
            filter,
            doc_hash,
            metrics,
            number(),
            number(),
            nested(),
            text(),
            any::<u64>(),
        )
            .prop_map(|(id, filter, hash, metrics, em, acc, doc, resp, order)| {
                let mut fields = vec![
                    format!("\"doc_id\": {id}"),
                    format!("\"filter\": {filter}"),
                    format!("\"doc_hash\": {hash}"),
                    format!("\"metrics\": {metrics}"),
                    format!("\"exact_match\": {em}"),
                    format!("\"acc\": {acc}"),
                    format!("\"doc\": {doc}"),
                    format!("\"resps\": [[{resp}]]"),
                    format!("\"target\": {resp}"),
                ];
                // A permutation chosen by `order`.
                let mut seed = order;
                for i in (1..fields.len()).rev() {
                    fields.swap(i, (seed % (i as u64 + 1)) as usize);
                    seed /= i as u64 + 1;
                }
                format!("{{{}}}\n", fields.join(", "))
            })
    }

    proptest! {
        #[test]
        fn the_scanner_reads_every_generated_line_as_serde_json_does(line in line()) {
            let serde = by_serde(line.as_bytes()).expect("generated lines are JSON");
            if let Some(fast) = scan(line.as_bytes()) {
                prop_assert_eq!(fields(&fast), fields(&serde), "{}", line);
            }
        }

        #[test]
        fn the_scanner_never_accepts_a_damaged_line_that_serde_json_refuses(
            line in line(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()
        ) {
            let mut bytes = line.into_bytes();
            let i = at.index(bytes.len());
            if cut { bytes.remove(i); } else { bytes[i] = byte; }
            if let Some(fast) = scan(&bytes) {
                let serde = by_serde(&bytes);
                prop_assert!(serde.is_some(), "{}", String::from_utf8_lossy(&bytes));
                prop_assert_eq!(fields(&fast), fields(&serde.unwrap()));
            }
        }
    }

    #[test]
    fn the_scanner_reads_a_plain_line_itself_rather_than_leaving_it_to_serde_json() {
        let line = br#"{"doc_id": 3, "doc": {"question": "a \"b\" \u00e9", "answer": "x\n#### 3"}, "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": {"until": ["Q:"], "do_sample": false}}}, "resps": [["3"]], "filtered_resps": ["3"], "filter": "strict-match", "metrics": ["exact_match"], "doc_hash": "8d52", "prompt_hash": "aa", "exact_match": 1.0}
"#;
        let fast = scan(line).expect("the scanner reads it");
        assert_eq!(fields(&fast), fields(&by_serde(line).unwrap()));
        let nested = br#"{"doc_id": "q7", "filter": "none", "metrics": {"acc": true, "f1": 0.25}}"#;
        let fast = scan(nested).expect("the scanner reads the nested layout");
        assert_eq!(fields(&fast), fields(&by_serde(nested).unwrap()));
    }
}
