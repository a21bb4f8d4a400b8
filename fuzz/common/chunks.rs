//! A reader that hands out `size` bytes per read, so line ends, characters and a BOM
//! straddle reads: shared by the fuzz targets that hold a stream reader to a whole-file
//! one.

use std::io::Read;

/// Hands out `size` bytes per read.
pub struct Chunks<'a> {
    pub bytes: &'a [u8],
    pub size: usize,
}

impl Read for Chunks<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.size.min(buffer.len()).min(self.bytes.len());
        buffer[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}
