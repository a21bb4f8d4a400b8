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

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| io::Error::other("a run is read once written"))?;
        let mut file = file
            .lock()
            .map_err(|_| io::Error::other("a run's reader failed"))?;
        read_exact_at(&mut file, offset, buffer)
    }
}

/// A positioned read (`pread`, which leaves the file's place alone) where there is one.
#[cfg(unix)]
fn read_exact_at(file: &mut File, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

/// A seek and a read elsewhere (every reader seeks to its own place first).
#[cfg(not(unix))]
fn read_exact_at(file: &mut File, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buffer)
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

    #[test]
    fn a_positioned_read_of_a_temporary_run_gives_its_bytes_and_leaves_readers_alone() {
        let mut run = TempRuns.create().unwrap();
        let bytes: Vec<u8> = (0..70_000_u32).map(|i| (i % 251) as u8).collect();
        run.append(&bytes).unwrap();
        run.finish().unwrap();
        let mut reader = run.reader().unwrap();
        let mut head = [0_u8; 10];
        reader.read_exact(&mut head).unwrap();
        let mut middle = vec![0_u8; 5000];
        run.read_at(65_000, &mut middle).unwrap();
        assert_eq!(middle, bytes[65_000..]);
        reader.read_exact(&mut head).unwrap();
        assert_eq!(head, bytes[10..20]);
        assert!(run.read_at(69_999, &mut [0_u8; 2]).is_err());
    }
}
