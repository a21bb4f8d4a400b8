//! The import use case: read another eval tool's per-sample logs, apply the shared
//! rules ([`crate::import::assemble`]), and write the scores CSV and its companion
//! record atomically. Also [`check_imports`], which `admit` calls so that two lm-eval
//! runs on different documents never pair and tasks an import left out are counted.

use std::path::Path;

use super::{open_file, read_file};
use crate::admission::LeftOut;
use crate::atomic::{FileToWrite, write_all};
use crate::cli::ImportArgs;
use crate::digest::{HashingReader, sha256_hex};
use crate::import::record::{
    Documents, ImportRecord, InputLog, companion_path, different_documents,
};
use crate::import::{
    Format, Found, ImportError, Scale, assemble, dspy, helm, inspect, lm_eval, openai_evals,
    promptfoo, render_csv,
};
use std::io::{BufRead, Read};
use std::sync::mpsc;

/// Imports the logs `args` names, writes the scores and the record, and returns the
/// notes for stderr.
pub fn import(args: &ImportArgs) -> anyhow::Result<Vec<String>> {
    let scale = args.scale.as_deref().map(Scale::parse).transpose()?;
    let (found, inputs) = read_logs(args)?;
    let imported = assemble(found, args.on_missing, scale)?;
    let record = ImportRecord::new(args.format, &imported, args.on_missing, scale, inputs);
    let record_path = companion_path(&args.out);
    write_all(&[
        FileToWrite::new(&args.out, render_csv(&imported)),
        FileToWrite::new(&record_path, record.to_json()),
    ])?;
    let mut notes = imported.notes.clone();
    notes.push(format!(
        "wrote {} rows to {} and the record to {}",
        imported.rows.len(),
        args.out.display(),
        record_path.display()
    ));
    Ok(notes)
}

fn read_logs(args: &ImportArgs) -> anyhow::Result<(Found, Vec<InputLog>)> {
    let mut inputs = Vec::new();
    let mut whole = |path: &Path| -> anyhow::Result<(String, Vec<u8>)> {
        let bytes = read_file(path)?;
        let name = path.display().to_string();
        inputs.push(InputLog {
            path: name.clone(),
            sha256: sha256_hex(&bytes),
        });
        Ok((name, bytes))
    };
    let single = |what: &str| -> anyhow::Result<&Path> {
        match args.from.as_slice() {
            [one] => Ok(one),
            _ => anyhow::bail!("{what} reads one --from; import each file to its own scores file"),
        }
    };
    let found = match args.format {
        Format::LmEval => return read_lm_eval(args),
        Format::Inspect => {
            let mut logs = Vec::new();
            for path in &args.from {
                let (name, bytes) = whole(path)?;
                logs.push(if name.ends_with(".eval") {
                    inspect::log_from_eval(&name, &bytes)?
                } else {
                    inspect::log_from_json(&name, &bytes)?
                });
            }
            inspect::read(&logs, args.scorer.as_deref(), args.repeats)?
        }
        Format::Promptfoo => {
            let (name, bytes) = whole(single("promptfoo")?)?;
            let selectors = promptfoo::PromptfooSelectors {
                arm: args.arm.clone(),
                id_var: args.id_var.clone(),
                drop_assert: args.drop_assert.clone(),
            };
            promptfoo::read(&name, &bytes, &selectors)?
        }
        Format::OpenaiEvals => {
            let (name, bytes) = whole(single("openai-evals")?)?;
            openai_evals::read(&name, &bytes, args.event.as_deref(), args.metric.as_deref())?
        }
        Format::Helm => {
            let path = single("helm")?;
            let file = if path.is_dir() {
                path.join("per_instance_stats.json")
            } else {
                path.to_path_buf()
            };
            let (name, bytes) = whole(&file)?;
            let selectors = helm::HelmSelectors {
                metric: args.metric.clone(),
                split: args.split.clone(),
                perturbation: args.perturbation.clone(),
            };
            helm::read(&name, &bytes, &selectors)?
        }
        Format::Dspy => {
            let (name, bytes) = whole(single("dspy")?)?;
            dspy::read(
                &name,
                &bytes,
                args.id_field.as_deref(),
                args.metric.as_deref(),
            )?
        }
    };
    Ok((found, inputs))
}

/// lm-eval files are streamed line by line and digested on the way.
fn read_lm_eval(args: &ImportArgs) -> anyhow::Result<(Found, Vec<InputLog>)> {
    if args.task.is_some() && args.from.len() > 1 {
        anyhow::bail!(
            "--task names the task of a single --from; with several files keep lm-eval's samples_<task>_<date>.jsonl names"
        );
    }
    let mut reader = lm_eval::Reader::new();
    let mut inputs = Vec::new();
    for path in &args.from {
        let name = path.display().to_string();
        let task = match (&args.task, args.from.len()) {
            (Some(task), 1) => task.clone(),
            _ => lm_eval::task_from_file_name(&name).ok_or_else(|| {
                ImportError::malformed(
                    &name,
                    "the file name is not samples_<task>_<date>.jsonl, so it does not name the task; keep lm-eval's name (or give --task with a single --from)",
                )
            })?,
        };
        let mut ahead = HashedAhead::spawn(open_file(path)?);
        reader.add(&name, &task, &mut ahead)?;
        let sha256 = ahead
            .finish()
            .map_err(|e| anyhow::anyhow!("`{name}`: cannot read it: {e}"))?;
        inputs.push(InputLog { path: name, sha256 });
    }
    Ok((reader.finish(&args.filter, args.metric.as_deref())?, inputs))
}

/// Reads the companion records of two scores files (`evogate import` writes one beside
/// each): refuses to pair two whose records show the same task run on different
/// documents (lm-eval's `doc_hash`), and returns what each import left out (the
/// baseline's, then the candidate's), which `admit` counts as unanswered. Files without
/// a record, or records without hashes, have nothing to compare.
pub fn check_imports(baseline: &Path, candidate: &Path) -> anyhow::Result<[Option<LeftOut>; 2]> {
    let read = |scores: &Path| -> anyhow::Result<Option<Documents>> {
        let path = companion_path(scores);
        if !path.is_file() {
            return Ok(None);
        }
        let bytes = read_file(&path)?;
        let documents = serde_json::from_slice(&bytes).map_err(|e| {
            anyhow::anyhow!(
                "`{}`: not an import record: {e}; re-run evogate import or remove it",
                path.display()
            )
        })?;
        Ok(Some(documents))
    };
    let (base, cand) = (read(baseline)?, read(candidate)?);
    let left_out = [
        base.as_ref().and_then(Documents::left_out),
        cand.as_ref().and_then(Documents::left_out),
    ];
    let (Some(base), Some(cand)) = (base, cand) else {
        return Ok(left_out);
    };
    let differ = different_documents(&base, &cand);
    if let Some((task, b, c)) = differ.first() {
        anyhow::bail!(
            "{} tasks were run on different documents in the baseline and the candidate (first: `{task}`, doc_hash {} vs {}, from {} and {}); pair runs of the same documents",
            differ.len(),
            b.chars().take(12).collect::<String>(),
            c.chars().take(12).collect::<String>(),
            companion_path(baseline).display(),
            companion_path(candidate).display()
        );
    }
    Ok(left_out)
}

/// A file read and digested on a thread of its own, handed on in chunks, so hashing
/// and parsing a large log share the two cores. Chunks go back to the reading thread
/// once parsed, so a large log is read into the same few buffers (no fresh, zeroed
/// megabyte per chunk), and the parser reads lines straight out of them ([`BufRead`]).
struct HashedAhead {
    chunks: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    spare: mpsc::Sender<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
    digest: Option<std::thread::JoinHandle<std::io::Result<String>>>,
}

impl HashedAhead {
    const CHUNK: usize = 1 << 20;

    fn spawn(file: std::fs::File) -> HashedAhead {
        let (send, chunks) = mpsc::sync_channel(4);
        let (spare, spares) = mpsc::channel::<Vec<u8>>();
        let digest = std::thread::spawn(move || {
            let mut hashing = HashingReader::new(file);
            loop {
                let mut chunk = spares.try_recv().unwrap_or_default();
                chunk.resize(Self::CHUNK, 0);
                let n = match hashing.read(&mut chunk) {
                    Ok(n) => n,
                    Err(e) => {
                        let _ = send.send(Err(std::io::Error::new(e.kind(), e.to_string())));
                        return Err(e);
                    }
                };
                if n == 0 {
                    break;
                }
                chunk.truncate(n);
                if send.send(Ok(chunk)).is_err() {
                    // The parser stopped (an error): finish the digest anyway.
                    break;
                }
            }
            hashing.finish()
        });
        HashedAhead {
            chunks,
            spare,
            current: Vec::new(),
            at: 0,
            digest: Some(digest),
        }
    }

    /// The SHA-256 of the whole file, once the parser is done with it.
    fn finish(mut self) -> std::io::Result<String> {
        // Dropping the receiver lets the thread finish the digest without sending.
        drop(std::mem::replace(&mut self.chunks, mpsc::sync_channel(1).1));
        match self.digest.take().map(std::thread::JoinHandle::join) {
            Some(Ok(result)) => result,
            _ => Err(std::io::Error::other("the reading thread failed")),
        }
    }
}

impl Read for HashedAhead {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let available = self.fill_buf()?;
        let n = buffer.len().min(available.len());
        buffer[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for HashedAhead {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at == self.current.len() {
            match self.chunks.recv() {
                Ok(chunk) => {
                    let done = std::mem::replace(&mut self.current, chunk?);
                    // The thread may have finished: then the buffer is simply dropped.
                    let _ = self.spare.send(done);
                    self.at = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.current[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        self.at = (self.at + amount).min(self.current.len());
    }
}
