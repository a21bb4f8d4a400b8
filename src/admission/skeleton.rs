//! A manifest's skeleton: the document with each split's `groups` and `task_ids`
//! emptied, and the ids of the first split named `holdout` handed out on the way, read
//! a buffer at a time with `memchr` instead of serde's byte at a time (a manifest of a
//! million tasks in a few hundredths of a second instead of three tenths). The
//! skeleton, a few kilobytes, is then checked as a manifest whole.
//!
//! The fast reading takes only what it can read exactly: arrays of plain strings (no
//! escape, no control character, valid UTF-8) in the places the manifest has lists of
//! ids, and a split's `name` before its ids. Anything else and it gives up
//! ([`Skeleton::GaveUp`], with how many ids it handed out), and the manifest is read
//! again by serde. With it, the document is a manifest exactly when the skeleton is
//! one: emptying a list of strings where a list of strings belongs changes no verdict.

use std::io::BufRead;

/// The most bytes the skeleton may hold: beyond that the manifest is read by serde.
const MOST: usize = 1 << 20;

/// What the fast reading found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Skeleton {
    /// The document with its lists of ids emptied.
    Read(Vec<u8>),
    /// It gave up after handing out this many ids.
    GaveUp(usize),
}

/// Where the reader is in the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The document itself.
    Top,
    /// The top object.
    Manifest,
    /// The `splits` array.
    Splits,
    /// A split object.
    Split,
    /// Anywhere else, in an object or an array.
    Other,
}

/// Reads `input` to its end, handing each id of the first split named `holdout` to
/// `id`.
pub(crate) fn read_skeleton(
    input: &mut impl BufRead,
    id: &mut dyn FnMut(&str),
) -> std::io::Result<Skeleton> {
    let mut reader = Reader {
        input,
        out: Vec::new(),
        handed: 0,
    };
    let outcome = reader.document(id)?;
    Ok(match outcome {
        true => Skeleton::Read(reader.out),
        false => Skeleton::GaveUp(reader.handed),
    })
}

struct Reader<'a, R: BufRead> {
    input: &'a mut R,
    out: Vec<u8>,
    handed: usize,
}

impl<R: BufRead> Reader<'_, R> {
    fn peek(&mut self) -> std::io::Result<Option<u8>> {
        Ok(self.input.fill_buf()?.first().copied())
    }

    /// Copies one byte to the skeleton.
    fn copy(&mut self) -> std::io::Result<Option<u8>> {
        let byte = self.peek()?;
        if let Some(byte) = byte {
            self.out.push(byte);
            self.input.consume(1);
        }
        Ok(byte)
    }

    /// Copies a string (its opening quote next) verbatim, escapes and all; returns it
    /// when it is plain.
    fn copy_string(&mut self) -> std::io::Result<Option<Option<String>>> {
        let start = self.out.len();
        self.copy()?;
        let mut plain = true;
        loop {
            let buffer = self.input.fill_buf()?;
            if buffer.is_empty() {
                return Ok(None);
            }
            let Some(at) = memchr::memchr2(b'"', b'\\', buffer) else {
                let length = buffer.len();
                self.out.extend_from_slice(buffer);
                self.input.consume(length);
                continue;
            };
            let escaped = buffer[at] == b'\\';
            self.out.extend_from_slice(&buffer[..=at]);
            self.input.consume(at + 1);
            if escaped {
                plain = false;
                // The escaped byte, whatever it is, does not end the string.
                if self.copy()?.is_none() {
                    return Ok(None);
                }
                continue;
            }
            let text = &self.out[start + 1..self.out.len() - 1];
            let plain = plain && !text.iter().any(|&b| b < 0x20);
            return Ok(Some(
                plain
                    .then(|| std::str::from_utf8(text).ok().map(str::to_string))
                    .flatten(),
            ));
        }
    }

    /// Reads a list of plain strings (its `[` next) without copying it, handing each
    /// to `each`; `false` when it is anything else.
    fn plain_list(&mut self, each: &mut dyn FnMut(&str)) -> std::io::Result<bool> {
        self.input.consume(1);
        let mut first = true;
        let mut text = Vec::new();
        loop {
            self.skip_space()?;
            match self.peek()? {
                Some(b']') if first => {
                    self.input.consume(1);
                    return Ok(true);
                }
                Some(b'"') => {}
                _ => return Ok(false),
            }
            self.input.consume(1);
            text.clear();
            loop {
                let buffer = self.input.fill_buf()?;
                if buffer.is_empty() {
                    return Ok(false);
                }
                match memchr::memchr2(b'"', b'\\', buffer) {
                    Some(at) if buffer[at] == b'"' => {
                        text.extend_from_slice(&buffer[..at]);
                        self.input.consume(at + 1);
                        break;
                    }
                    Some(_) => return Ok(false),
                    None => {
                        let length = buffer.len();
                        text.extend_from_slice(buffer);
                        self.input.consume(length);
                    }
                }
            }
            if text.iter().any(|&b| b < 0x20) {
                return Ok(false);
            }
            let Ok(id) = std::str::from_utf8(&text) else {
                return Ok(false);
            };
            each(id);
            first = false;
            self.skip_space()?;
            match self.peek()? {
                Some(b',') => self.input.consume(1),
                Some(b']') => {
                    self.input.consume(1);
                    return Ok(true);
                }
                _ => return Ok(false),
            }
        }
    }

    /// Skips JSON's whitespace without copying it.
    fn skip_space(&mut self) -> std::io::Result<()> {
        loop {
            let buffer = self.input.fill_buf()?;
            let blank = buffer
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .count();
            let whole = blank == buffer.len() && blank > 0;
            self.input.consume(blank);
            if !whole {
                return Ok(());
            }
        }
    }

    /// The whole document; `false` when the fast reading gives up.
    fn document(&mut self, id: &mut dyn FnMut(&str)) -> std::io::Result<bool> {
        // Each open container, with what it is; for an object, the last key read and
        // whether a key comes next.
        let mut stack: Vec<(Place, Option<String>, bool)> = Vec::new();
        let mut name: Option<String> = None;
        let mut taken = false;
        loop {
            if self.out.len() > MOST {
                return Ok(false);
            }
            let Some(byte) = self.peek()? else {
                return Ok(true);
            };
            let place = stack.last().map_or(Place::Top, |s| s.0);
            match byte {
                b'{' => {
                    let inner = match (place, stack.last().and_then(|s| s.1.as_deref())) {
                        (Place::Top, _) => Place::Manifest,
                        (Place::Splits, _) => Place::Split,
                        _ => Place::Other,
                    };
                    if inner == Place::Split {
                        name = None;
                    }
                    stack.push((inner, None, true));
                    self.copy()?;
                }
                b'[' => {
                    let key = stack.last().and_then(|s| s.1.clone());
                    let expecting_key = stack.last().is_some_and(|s| s.2);
                    match (place, key.as_deref()) {
                        (Place::Manifest, Some("splits")) if !expecting_key => {
                            stack.push((Place::Splits, None, false));
                            self.copy()?;
                        }
                        (Place::Split, Some(list @ ("groups" | "task_ids"))) if !expecting_key => {
                            let holdout = list == "task_ids" && !taken;
                            let wanted = holdout && name.as_deref() == Some("holdout");
                            if holdout && name.is_none() {
                                // Ids before their split's name: serde's way.
                                return Ok(false);
                            }
                            let mut handed = 0;
                            let mut each = |text: &str| {
                                if wanted {
                                    id(text);
                                    handed += 1;
                                }
                            };
                            let read = self.plain_list(&mut each)?;
                            self.handed += handed;
                            if !read {
                                return Ok(false);
                            }
                            self.out.extend_from_slice(b"[]");
                            if wanted {
                                taken = true;
                            }
                            if let Some(top) = stack.last_mut() {
                                top.2 = false;
                            }
                        }
                        _ => {
                            stack.push((Place::Other, None, false));
                            self.copy()?;
                        }
                    }
                }
                b'}' | b']' => {
                    stack.pop();
                    self.copy()?;
                    // A value ended: its object's next is a key.
                    if let Some(top) = stack.last_mut() {
                        top.2 = false;
                    }
                }
                b'"' => {
                    let expecting_key = stack.last().is_some_and(|s| s.2);
                    let Some(text) = self.copy_string()? else {
                        return Ok(true);
                    };
                    match stack.last_mut() {
                        // A key with an escape may spell a field's name: serde's way.
                        Some(_) if expecting_key && text.is_none() => return Ok(false),
                        Some(top) if expecting_key => {
                            top.1 = text;
                        }
                        Some(top) => {
                            if top.0 == Place::Split && top.1.as_deref() == Some("name") {
                                name = text;
                            }
                            top.2 = false;
                        }
                        None => {}
                    }
                }
                b',' => {
                    if let Some(top) = stack.last_mut() {
                        // In an object a key comes next.
                        top.2 = top.0 != Place::Splits;
                        if top.2 {
                            top.1 = None;
                        }
                    }
                    self.copy()?;
                }
                b':' => {
                    if let Some(top) = stack.last_mut() {
                        top.2 = false;
                    }
                    self.copy()?;
                }
                _ => {
                    self.copy()?;
                }
            }
        }
    }
}
