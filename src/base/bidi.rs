//! The bidirectional controls: characters that reorder the text around them rather
//! than show. The terminal printer, the Markdown escaper and the SVG plots all make
//! them inert, so one list serves the three.

/// Overrides, embeddings and isolates, and the three directional marks (left-to-right,
/// right-to-left and the Arabic letter mark, U+061C).
pub(crate) fn is_bidi_control(ch: char) -> bool {
    matches!(
        ch,
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
    )
}
