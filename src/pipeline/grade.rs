//! The grading service: one verifier built once, then one JSON request per line in
//! (`{"task_id": ..., "output": ...}`) and one JSON answer per line out, flushed as it
//! is made, so an optimizer's loop grades each output without starting a process. A
//! bad request gets `{"error": "..."}` on its line and the service goes on.

use std::io::{BufRead, Write};
use std::path::Path;

use serde_json::{Value, json};

use super::open_file;
use super::outcome::{CommandOutcome, Status};
use crate::error::InputError;
use crate::report::escape::json_fragment;
use crate::table::read_line_capped;
use crate::table::scan::MAX_ROW_BYTES;
use crate::verify::{self, Verifier};

/// Runs the service: the verifier `name` built from `truth`, then every request of
/// `input` answered on `output` until the input ends or the client closes its end.
pub(crate) fn run(
    truth: &Path,
    name: &str,
    input: impl BufRead,
    output: &mut impl Write,
) -> anyhow::Result<CommandOutcome> {
    let verifier = verifier(truth, name)?;
    if let Err(error) = serve(verifier.as_ref(), input, output) {
        match error.downcast_ref::<std::io::Error>() {
            // The client closing its end is how a session ends.
            Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Some(e) => anyhow::bail!("cannot answer on stdout: {e}"),
            None => return Err(error),
        }
    }
    Ok(CommandOutcome::new(Status::Success, String::new()))
}

/// Builds the verifier `name` from the ground truth at `truth`.
pub(crate) fn verifier(truth: &Path, name: &str) -> anyhow::Result<Box<dyn Verifier>> {
    let source = truth.display().to_string();
    Ok(verify::build(name, &source, open_file(truth)?)?)
}

/// The answer to one request line: the grade, or why the line is not a request.
pub(crate) fn answer(verifier: &dyn Verifier, line: &str) -> Value {
    match grade_line(verifier, line) {
        Ok(answer) => answer,
        Err(error) => json!({ "error": error }),
    }
}

fn grade_line(verifier: &dyn Verifier, line: &str) -> Result<Value, String> {
    let request: Value = serde_json::from_str(line).map_err(|e| {
        format!("not a JSON object: {e}; send {{\"task_id\": ..., \"output\": ...}}")
    })?;
    let Value::Object(fields) = request else {
        return Err("not a JSON object; send {\"task_id\": ..., \"output\": ...}".to_string());
    };
    let text = |name: &str| match fields.get(name) {
        Some(Value::String(text)) => Ok(text.as_str()),
        Some(_) => Err(format!("`{name}` is not a string")),
        None => Err(format!(
            "no `{name}`; send {{\"task_id\": ..., \"output\": ...}}"
        )),
    };
    let task_id = text("task_id")?;
    let output = text("output")?;
    let index = verifier.find_task(task_id).ok_or_else(|| {
        format!("task `{task_id}` is not in the ground truth; use an id `split` wrote from it")
    })?;
    let grade = verifier.grade(index, output);
    Ok(json!({
        "task_id": task_id,
        "score": grade.score,
        "correct": grade.correct,
        "correctness": grade.correctness,
        "composite": grade.composite,
        "outcome": grade.outcome.name(),
        "feedback": grade.feedback,
    }))
}

/// Answers every line of `input` on `output`, one line each, flushing after each;
/// blank lines are skipped. Returns how many lines were answered. Lines are read
/// through [`read_line_capped`]: a request longer than 64 MiB (`/dev/zero` on stdin)
/// ends the service with [`InputError::RowTooLong`] naming its line, in bounded
/// memory. Every answer is written through [`json_fragment`], so a bidirectional or C1
/// control from a request comes back as a `\uXXXX` escape. A failed write is returned
/// as the [`std::io::Error`] it was (a closed stdout is the end of the conversation).
pub(crate) fn serve(
    verifier: &dyn Verifier,
    mut input: impl BufRead,
    output: &mut impl Write,
) -> anyhow::Result<usize> {
    let mut answered = 0;
    let mut bytes = Vec::new();
    let mut number = 0;
    let reply = |output: &mut dyn Write, answer: &Value| -> std::io::Result<()> {
        writeln!(output, "{}", json_fragment(&answer.to_string()))?;
        output.flush()
    };
    loop {
        bytes.clear();
        let read = read_line_capped(&mut input, &mut bytes, MAX_ROW_BYTES).map_err(|e| {
            InputError::Io {
                file: "stdin".to_string(),
                message: e.to_string(),
            }
        })?;
        if read == 0 {
            return Ok(answered);
        }
        number += 1;
        if bytes.len() > MAX_ROW_BYTES {
            return Err(InputError::RowTooLong {
                file: "stdin".to_string(),
                line: number,
                limit_mib: (MAX_ROW_BYTES >> 20) as u64,
            }
            .into());
        }
        let line = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let answer = match std::str::from_utf8(line) {
            // A line that is not UTF-8 is a bad request, not the end of the service.
            Err(_) => json!({ "error": "the line is not UTF-8" }),
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => answer(verifier, line),
        };
        reply(output, &answer)?;
        answered += 1;
    }
}
