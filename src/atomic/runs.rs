//! Sorted runs kept in temporary files ([`TempRuns`]): the store of the external sorts
//! (`admit`'s pairs of a report folder, its rows when two files come in different
//! orders). Each run is an anonymous file in the temporary folder (`TMPDIR`, else
//! `/tmp`), which the system removes when the file is closed or the process ends, even
//! on a signal: nothing is left behind.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::sync::Mutex;

use crate::base::sorter::{Run, RunStore};

/// Runs in anonymous temporary files.
#[derive(Debug, Default)]
pub(crate) struct TempRuns;

impl RunStore for TempRuns {
    fn create(&self) -> io::Result<Box<dyn Run>> {
        Ok(Box::new(TempRun {
            writer: Some(BufWriter::with_capacity(1 << 16, tempfile::tempfile()?)),
            file: None,
        }))
    }
}

/// One run: written through a buffer, then read from its start by any number of
/// readers, each keeping its own place.
struct TempRun {
    writer: Option<BufWriter<File>>,
    file: Option<Mutex<File>>,
}

impl Run for TempRun {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.writer {
            Some(writer) => writer.write_all(bytes),
            None => Err(io::Error::other("a run is written once")),
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(writer) = self.writer.take() {
            let file = writer.into_inner().map_err(|e| e.into_error())?;
            self.file = Some(Mutex::new(file));
        }
        Ok(())
    }

    fn reader(&self) -> io::Result<Box<dyn Read + Send + '_>> {
        match &self.file {
            Some(file) => Ok(Box::new(RunReader { file, at: 0 })),
            None => Err(io::Error::other("a run is read once written")),
        }
    }
}

/// A reader of a run from its own place: each read seeks there first.
struct RunReader<'a> {
    file: &'a Mutex<File>,
    at: u64,
}

impl Read for RunReader<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let mut file = self
            .file
            .lock()
            .map_err(|_| io::Error::other("a run's reader failed"))?;
        file.seek(SeekFrom::Start(self.at))?;
        let read = file.read(buffer)?;
        self.at += read as u64;
        Ok(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::sorter::{Budget, Sorter};

    #[test]
    fn runs_in_temporary_files_merge_as_runs_in_memory_do() {
        let store = TempRuns;
        let mut sorter = Sorter::new(
            &store,
            Budget {
                least: 100,
                per_record: 0,
            },
        );
        for i in (0..2000_u32).rev() {
            sorter
                .push(format!("{:05}", i * 7 % 2000).as_bytes(), &i.to_le_bytes())
                .unwrap();
        }
        let sorted = sorter.finish();
        for _ in 0..2 {
            let mut merged = sorted.merge().unwrap();
            let mut keys = Vec::new();
            while let Some((key, _)) = merged.next_record().unwrap() {
                keys.push(String::from_utf8(key.to_vec()).unwrap());
            }
            let mut expected = keys.clone();
            expected.sort();
            assert_eq!(keys.len(), 2000);
            assert_eq!(keys, expected);
        }
    }
}
