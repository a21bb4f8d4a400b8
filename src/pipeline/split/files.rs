//! The files `split` writes, made as they are written: each split's tasks CSV and the
//! manifest come from the verifier and the tasks' numbers a row at a time, so a truth
//! of millions of tasks is split without its tasks, their prompts or the files ever
//! held whole. A split's CSV is made twice, once for its SHA-256 (which the manifest
//! records) and once into its file; the bytes are the ones the whole-file code wrote.
//! The tasks are a verifier's (`split`) or a scores file's (`split --from-scores`).

use std::borrow::Cow;
use std::io;
use std::rc::Rc;

use serde::Serialize;
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};

use crate::base::csv::{Cell, CsvWriter};
use crate::digest::HashingWriter;
use crate::split::SPLIT_NAMES;
use crate::split::manifest::FileDigest;
use crate::task::TASK_COLUMNS;
use crate::verify::Verifier;

/// Bytes of CSV gathered before they are handed on.
const CHUNK: usize = 1 << 16;

/// What the files need of each task, by number: a verifier's tasks, or a scores
/// file's.
pub(crate) trait Listed {
    /// Task `index`'s id.
    fn task_id(&self, index: usize) -> Cow<'_, str>;
    /// Task `index`'s group and kind.
    fn names(&self, index: usize) -> (&str, &str);
    /// Task `index`'s prompt.
    fn prompt(&self, index: usize) -> Cow<'_, str>;
}

impl Listed for Box<dyn Verifier> {
    fn task_id(&self, index: usize) -> Cow<'_, str> {
        let (group, kind) = self.task_names(index);
        Cow::Owned(crate::task::task_id(group, kind))
    }

    fn names(&self, index: usize) -> (&str, &str) {
        self.task_names(index)
    }

    fn prompt(&self, index: usize) -> Cow<'_, str> {
        Cow::Owned(Verifier::prompt(self.as_ref(), index))
    }
}

/// The tasks of the splits, by number, with what the files need of them.
pub(crate) struct Dealt {
    /// The tasks: a verifier's, or a scores file's.
    pub tasks: Box<dyn Listed>,
    /// Each split's tasks, in the verifier's order.
    pub parts: [Vec<u32>; 3],
    /// Each task's group number (first appearance order).
    pub group_of: Vec<u32>,
    /// How many groups there are.
    pub groups: usize,
}

impl Dealt {
    /// The tasks CSV of split `part`, written to `out`.
    pub(crate) fn write_csv(&self, part: usize, out: &mut dyn io::Write) -> io::Result<()> {
        let mut csv = CsvWriter::with_capacity(2 * CHUNK);
        csv.header(&TASK_COLUMNS);
        let mut failure = Ok(());
        let mut sink = |bytes: &str| {
            if failure.is_ok() {
                failure = out.write_all(bytes.as_bytes());
            }
        };
        for &index in &self.parts[part] {
            let index = index as usize;
            let (group, kind) = self.tasks.names(index);
            csv.row(&[
                Cell::Trusted(&self.tasks.task_id(index)),
                Cell::Trusted(group),
                Cell::Trusted(kind),
                Cell::Text(&self.tasks.prompt(index)),
            ]);
            csv.hand_on(CHUNK, &mut sink);
        }
        sink(&csv.finish());
        failure
    }

    /// The SHA-256 of split `part`'s tasks CSV.
    pub(crate) fn csv_sha256(&self, part: usize) -> String {
        let mut hashing = HashingWriter::default();
        self.write_csv(part, &mut hashing)
            .expect("hashing cannot fail");
        hashing.finish()
    }

    /// The distinct groups of split `part`, in task order, by number.
    fn part_groups(&self, part: usize) -> Vec<u32> {
        let mut seen = vec![false; self.groups];
        let mut groups = Vec::new();
        for &index in &self.parts[part] {
            let group = self.group_of[index as usize] as usize;
            if !std::mem::replace(&mut seen[group], true) {
                groups.push(group as u32);
            }
        }
        groups
    }

    /// [`order_sha256`](crate::split::manifest::order_sha256) of split `part`'s task
    /// ids, made as they are listed.
    pub(crate) fn order_sha256(&self, part: usize) -> String {
        let mut hashing = HashingWriter::default();
        for (at, &index) in self.parts[part].iter().enumerate() {
            let task_id = self.tasks.task_id(index as usize);
            let separator: &[u8] = if at == 0 { b"" } else { b"\n" };
            for bytes in [separator, task_id.as_bytes()] {
                io::Write::write_all(&mut hashing, bytes).expect("hashing cannot fail");
            }
        }
        hashing.finish()
    }

    /// Each split's number of distinct groups.
    pub(crate) fn group_counts(&self) -> [usize; 3] {
        std::array::from_fn(|part| self.part_groups(part).len())
    }
}

/// The splits of a manifest, as [`SplitEntry`](crate::split::manifest::SplitEntry)s
/// are serialised: each made from the tasks as written, with its CSV's SHA-256 and, for
/// the holdout, its order digest.
pub(crate) struct SplitsOf {
    /// Each split's CSV's SHA-256.
    pub shas: [String; 3],
    /// The holdout's order digest.
    pub order: String,
    pub dealt: Rc<Dealt>,
}

impl Serialize for SplitsOf {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(3))?;
        for part in 0..3 {
            seq.serialize_element(&SplitOf {
                part,
                sha256: &self.shas[part],
                order: (part == 2).then_some(self.order.as_str()),
                dealt: &self.dealt,
            })?;
        }
        seq.end()
    }
}

/// One split's entry, as [`SplitEntry`](crate::split::manifest::SplitEntry) is.
struct SplitOf<'a> {
    part: usize,
    sha256: &'a str,
    /// The holdout's order digest; `None` for the other splits.
    order: Option<&'a str>,
    dealt: &'a Dealt,
}

impl Serialize for SplitOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let name = SPLIT_NAMES[self.part];
        let fields = if self.order.is_some() { 6 } else { 5 };
        let mut entry = serializer.serialize_struct("SplitEntry", fields)?;
        entry.serialize_field("name", name)?;
        entry.serialize_field(
            "file",
            &FileDigest {
                path: format!("{name}.csv"),
                sha256: self.sha256.to_string(),
            },
        )?;
        entry.serialize_field("tasks", &self.dealt.parts[self.part].len())?;
        entry.serialize_field("groups", &Groups(self))?;
        entry.serialize_field("task_ids", &TaskIds(self))?;
        if let Some(order) = self.order {
            entry.serialize_field("order_sha256", order)?;
        }
        entry.end()
    }
}

/// A split's distinct groups, in task order.
struct Groups<'a>(&'a SplitOf<'a>);

impl Serialize for Groups<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let dealt = self.0.dealt;
        let groups = dealt.part_groups(self.0.part);
        // Each group's name is that of its first task.
        let mut first = vec![usize::MAX; dealt.groups];
        for &index in &dealt.parts[self.0.part] {
            let index = index as usize;
            let group = dealt.group_of[index] as usize;
            if first[group] == usize::MAX {
                first[group] = index;
            }
        }
        let mut seq = serializer.serialize_seq(Some(groups.len()))?;
        for group in groups {
            seq.serialize_element(dealt.tasks.names(first[group as usize]).0)?;
        }
        seq.end()
    }
}

/// A split's task ids, in order.
struct TaskIds<'a>(&'a SplitOf<'a>);

impl Serialize for TaskIds<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let dealt = self.0.dealt;
        let part = &dealt.parts[self.0.part];
        let mut seq = serializer.serialize_seq(Some(part.len()))?;
        for &index in part {
            seq.serialize_element(&dealt.tasks.task_id(index as usize))?;
        }
        seq.end()
    }
}
