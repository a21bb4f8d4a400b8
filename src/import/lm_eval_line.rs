//! One lm-eval `--log_samples` line as the importer keeps it ([`Line`]), and serde_json's
//! reading of it. Both readers produce this type: the targeted scanner
//! (`lm_eval_scan`) for the usual line, serde_json for every line the scanner leaves to
//! it; the reader (`lm_eval`) takes either. Keeping the type here lets the scanner and
//! the reader each depend on it without depending on each other.

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The fields of one line that matter, read without building the document, the
/// arguments or the responses (most of a line's bytes), so a million lines read fast.
#[derive(Debug)]
/// The scanner borrows its names from the line; serde_json's reading owns them.
pub(super) struct Line<'a> {
    pub(super) doc_id: Option<Value>,
    pub(super) filter: Option<Cow<'a, str>>,
    pub(super) doc_hash: Option<Cow<'a, str>>,
    pub(super) metrics: Option<Value>,
    /// Every other top-level field: its number (booleans as 0/1), or `None`.
    pub(super) scalars: Vec<(Cow<'a, str>, Option<f64>)>,
}

impl<'de> Deserialize<'de> for Line<'static> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Line<'static>, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Line<'static>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'static>, A::Error> {
                let mut line = Line {
                    doc_id: None,
                    filter: None,
                    doc_hash: None,
                    metrics: None,
                    scalars: Vec::new(),
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "doc_id" => line.doc_id = Some(map.next_value()?),
                        "filter" => line.filter = Some(Cow::Owned(map.next_value()?)),
                        "doc_hash" => {
                            line.doc_hash = map.next_value::<Option<String>>()?.map(Cow::Owned)
                        }
                        "metrics" => line.metrics = Some(map.next_value()?),
                        _ => {
                            let Scalar(value) = map.next_value()?;
                            line.scalars.push((Cow::Owned(key), value));
                        }
                    }
                }
                Ok(line)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// A number or boolean as `Some`; anything else skipped without being built.
struct Scalar(Option<f64>);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Scalar, D::Error> {
        struct Any;
        impl<'de> Visitor<'de> for Any {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v as f64)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v as f64)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(Some(if v { 1.0 } else { 0.0 })))
            }
            fn visit_str<E>(self, _: &str) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
        }
        deserializer.deserialize_any(Any)
    }
}
