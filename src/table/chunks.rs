//! A reader that hands out a few bytes per read, so line ends, characters and a BOM
//! straddle reads: the one test helper of every check that holds a stream reader to a
//! whole-file one, here and in the fuzz targets (which include this file by path, so
//! it uses nothing but the standard library). Compiled only for tests.

use std::io::Read;

/// Hands out `size` bytes per read.
pub(crate) struct Chunks<'a> {
    /// What is left to hand out.
    pub bytes: &'a [u8],
    /// How many bytes a read hands out at the most.
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
