//! The pieces of the join: a sorted stream read record by record, the records of one
//! task id taken from it, and the payloads' encoding (LEB128 numbers, texts with their
//! length before them).

use crate::base::sorter::Merged;

/// One sorted stream being merged: its current record, copied out.
pub(super) struct Stream<'a> {
    merged: Merged<'a>,
    pub(super) key: Vec<u8>,
    payload: Vec<u8>,
    pub(super) live: bool,
}

impl<'a> Stream<'a> {
    pub(super) fn new(merged: Merged<'a>) -> std::io::Result<Stream<'a>> {
        let mut stream = Stream {
            merged,
            key: Vec::new(),
            payload: Vec::new(),
            live: true,
        };
        stream.advance()?;
        Ok(stream)
    }

    fn advance(&mut self) -> std::io::Result<()> {
        match self.merged.next_record()? {
            Some((key, payload)) => {
                self.key.clear();
                self.key.extend_from_slice(key);
                self.payload.clear();
                self.payload.extend_from_slice(payload);
            }
            None => self.live = false,
        }
        Ok(())
    }

    /// Moves past the records whose key is `key`, which come next if any, keeping the
    /// first two's payloads in `taken`.
    pub(super) fn take(&mut self, key: &[u8], taken: &mut Taken) -> std::io::Result<()> {
        taken.count = 0;
        while self.live && self.key == key {
            match taken.count {
                0 => taken.first.clone_from(&self.payload),
                1 => taken.second.clone_from(&self.payload),
                _ => {}
            }
            taken.count += 1;
            self.advance()?;
        }
        Ok(())
    }
}

/// The records of one key in one stream: how many, and the first two's payloads, in
/// file order (buffers kept from key to key).
#[derive(Default)]
pub(super) struct Taken {
    count: usize,
    first: Vec<u8>,
    second: Vec<u8>,
}

impl Taken {
    pub(super) fn first(&self) -> Option<&[u8]> {
        (self.count > 0).then_some(self.first.as_slice())
    }

    pub(super) fn second(&self) -> Option<&[u8]> {
        (self.count > 1).then_some(self.second.as_slice())
    }
}

/// Appends `value` as LEB128.
pub(super) fn put_number(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads a LEB128 number from the start of `bytes`, moving past it.
pub(super) fn get_number(bytes: &mut &[u8]) -> u64 {
    let mut value = 0_u64;
    let mut shift = 0;
    while let Some((&byte, rest)) = bytes.split_first() {
        *bytes = rest;
        value |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    value
}

/// Appends `text` with its length before it.
pub(super) fn put_text(out: &mut Vec<u8>, text: &str) {
    put_number(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Reads a text [`put_text`] wrote from the start of `bytes`, moving past it.
pub(super) fn get_text<'a>(bytes: &mut &'a [u8]) -> &'a str {
    let length = (get_number(bytes) as usize).min(bytes.len());
    let (text, rest) = bytes.split_at(length);
    *bytes = rest;
    // Written from text: whole characters.
    std::str::from_utf8(text).unwrap_or_default()
}
