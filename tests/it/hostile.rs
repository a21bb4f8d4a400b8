//! Hostile and malformed input across every command. Each bad-input case runs the real
//! binary in a folder that already holds a previous run's reports, and checks four
//! things together: exit status 2, a message that names the file (or the option) with
//! the row or field and says what to do, no panic, and not one file created, truncated
//! or changed. Inputs that are odd but valid (a BOM, CRLF line ends, `-0`, the extreme
//! seeds, a 10 MB answer) get their documented result instead.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{file_names, run};

/// A small arxiv ground truth: three papers.
const TRUTH: &str = "arxiv_id,title,first_author,year\n\
1706.03762,Attention Is All You Need,Ashish Vaswani,2017\n\
1512.03385,Deep Residual Learning for Image Recognition,Kaiming He,2015\n\
1810.04805,BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding,Jacob Devlin,2018\n";

/// Tasks of the first paper.
const TASKS: &str = "task_id,group,kind,prompt\n\
1706.03762:id,1706.03762,id,Give the arXiv ID of Attention Is All You Need.\n\
1706.03762:year,1706.03762,year,In which year was 1706.03762 first submitted?\n";

/// A well-formed pair of scores files: the candidate wins one task.
const BASELINE: &str = "task_id,kind,correct,score\na:id,id,0,0\nb:id,id,1,1\n";
const CANDIDATE: &str = "task_id,kind,correct,score\na:id,id,1,1\nb:id,id,1,1\n";

/// What an earlier run left in the folder; no failed run may touch any of it.
const PREVIOUS: [(&str, &str); 9] = [
    ("rep/admission.json", "{\"verdict\": \"admitted\"}\n"),
    ("rep/admission.md", "## evogate admit: admitted\n"),
    ("rep/pairs.csv", "task_id\nold\n"),
    ("rep/audit.json", "{\"schema\": \"evogate/audit/v1\"}\n"),
    ("rep/audit.md", "## evogate audit\n"),
    (
        "prev/split/holdout.csv",
        "task_id,group,kind,prompt\nold:id,old,id,x\n",
    ),
    ("prev/split/manifest.json", "{\"seed\": 13}\n"),
    ("prev/scores.csv", "task_id,score\nold,1\n"),
    ("afile", "a file where a folder is expected\n"),
];

/// One bad input: the files it adds to the folder, the arguments, and what the message
/// must say.
struct Case {
    what: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    args: Vec<String>,
    needles: Vec<String>,
}

fn case(what: &'static str, files: &[(&'static str, &[u8])], args: &str, needles: &[&str]) -> Case {
    Case {
        what,
        files: files.iter().map(|(n, b)| (*n, b.to_vec())).collect(),
        args: args.split_whitespace().map(str::to_string).collect(),
        needles: needles.iter().map(|s| s.to_string()).collect(),
    }
}

const ADMIT: &str = "admit --baseline b.csv --candidate c.csv --report-dir rep";
const SPLIT: &str = "split --truth t.csv --out prev/split";
const SCORE: &str = "score --truth t.csv --tasks tasks.csv --outputs o.jsonl --out prev/scores.csv";
const AUDIT: &str = "audit --claims claims.csv --report-dir rep";

/// An admit case whose baseline file is `baseline`.
fn admit_baseline(what: &'static str, baseline: &[u8], needles: &[&str]) -> Case {
    case(
        what,
        &[("b.csv", baseline), ("c.csv", CANDIDATE.as_bytes())],
        ADMIT,
        needles,
    )
}

/// A split case whose ground truth is `truth`.
fn split_truth(what: &'static str, truth: &[u8], needles: &[&str]) -> Case {
    case(what, &[("t.csv", truth)], SPLIT, needles)
}

/// A score case whose outputs file is `outputs` (named `name`).
fn score_outputs(what: &'static str, name: &'static str, outputs: &[u8], needles: &[&str]) -> Case {
    let args = SCORE.replace("o.jsonl", name);
    case(
        what,
        &[
            ("t.csv", TRUTH.as_bytes()),
            ("tasks.csv", TASKS.as_bytes()),
            (name, outputs),
        ],
        &args,
        needles,
    )
}

/// An audit case whose claims file is `claims`, beside the well-formed scores files.
fn audit_claims(what: &'static str, claims: &str, needles: &[&str]) -> Case {
    let files: [(&str, &[u8]); 3] = [
        ("claims.csv", claims.as_bytes()),
        ("b.csv", BASELINE.as_bytes()),
        ("c.csv", CANDIDATE.as_bytes()),
    ];
    case(what, &files, AUDIT, needles)
}

fn cases() -> Vec<Case> {
    let huge_id = format!("task_id,score\n{},1\nb:id,1\n", "x".repeat(10 << 20));
    let wide: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
    let wide = format!("{},score,c99999\n", wide.join(","));
    let long_number = format!("a:id,id,0,1{}\nb:id,id,1,1\n", "0".repeat(308));
    let scores = |rest: &str| format!("task_id,kind,correct,score\n{rest}");
    let manifest = crate::util::manifest_json(&["a:id", "b:id"]);
    vec![
        // admit
        admit_baseline("an empty scores file", b"", &["`b.csv` is empty", "header row"]),
        admit_baseline(
            "a scores file with only a header",
            b"task_id,kind,correct,score\n",
            &["`b.csv` has a header but no data rows", "add at least one row"],
        ),
        admit_baseline(
            "a BOM and a header only",
            b"\xEF\xBB\xBFtask_id,score\r\n",
            &["`b.csv` has a header but no data rows"],
        ),
        admit_baseline(
            "no score column",
            b"task_id,kind,value\na:id,id,1\nb:id,id,1\n",
            &["`b.csv`: no column `score`", "add it"],
        ),
        admit_baseline(
            "the score column twice",
            b"task_id,score,score\na:id,1,1\nb:id,1,1\n",
            &["`b.csv`", "column `score` appears twice", "rename or remove one"],
        ),
        admit_baseline(
            "a ragged row",
            b"task_id,kind,correct,score\na:id,id,0,0\nb:id,id,1\n",
            &["`b.csv` row 3", "3 fields where the header has 4", "quote fields"],
        ),
        admit_baseline(
            "invalid UTF-8",
            b"task_id,kind,correct,score\na:id,id,0,0\nb:id,i\xFFd,1,1\n",
            &["`b.csv` row 3, column 2", "not valid UTF-8", "save the file as UTF-8"],
        ),
        admit_baseline(
            "a NaN score",
            scores("a:id,id,0,NaN\nb:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 2", "`a:id`", "`NaN`", "give a number in [0, 1]"],
        ),
        admit_baseline(
            "an infinite score",
            scores("a:id,id,0,0\nb:id,id,1,-inf\n").as_bytes(),
            &["`b.csv` row 3", "`b:id`", "`-inf`", "give a number in [0, 1]"],
        ),
        admit_baseline(
            "a score that overflows to infinity",
            scores("a:id,id,0,1e309\nb:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 2", "`1e309`", "give a number in [0, 1]"],
        ),
        admit_baseline(
            "a score above 1",
            scores("a:id,id,0,1.0001\nb:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 2", "`1.0001` is outside [0, 1]"],
        ),
        admit_baseline(
            "a negative score",
            scores("a:id,id,0,-0.25\nb:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 2", "`-0.25` is outside [0, 1]"],
        ),
        admit_baseline(
            "a score that is not a number",
            scores("a:id,id,0,high\nb:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 2", "`high`"],
        ),
        admit_baseline(
            "a correct that is neither 0 nor 1",
            scores("a:id,id,2,0\nb:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 2", "correct `2` is not 0 or 1", "give 1 when"],
        ),
        admit_baseline(
            "an unterminated quote",
            scores("a:id,id,0,0\n\"b:id,id,1,1\nc:id,id,1,1\n").as_bytes(),
            &["`b.csv` row 3", "a quoted field opens here and is never closed", "closing quote"],
        ),
        admit_baseline(
            "a 309-digit score",
            scores(&long_number).as_bytes(),
            &["`b.csv` row 2", "score `10000000000000000000… (289 more digits)` is outside"],
        ),
        // Regression: the duplicate check compared every pair of names (12-23 s).
        admit_baseline(
            "a header of 100,000 columns with one twice",
            wide.as_bytes(),
            &["`b.csv`", "column `c99999` appears twice"],
        ),
        case(
            "/dev/zero as a scores file",
            &[("c.csv", CANDIDATE.as_bytes())],
            "admit --baseline /dev/zero --candidate c.csv --report-dir rep",
            &["`/dev/zero` row 1", "longer than 64 MiB", "right file"],
        ),
        admit_baseline(
            "a task listed twice",
            scores("a:id,id,0,0\na:id,id,1,1\n").as_bytes(),
            &["`b.csv`", "`a:id` appears twice (rows 2 and 3)"],
        ),
        admit_baseline(
            "task sets that differ",
            scores("a:id,id,0,0\nz:id,id,1,1\n").as_bytes(),
            &["different tasks", "`c.csv` lacks 1 task", "`z:id`"],
        ),
        admit_baseline(
            "a 10 MB task id",
            huge_id.as_bytes(),
            &["`c.csv` lacks 1 task", "more characters)`"],
        ),
        case(
            "alpha 0",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            &format!("{ADMIT} --alpha 0"),
            &["--alpha 0 is outside", "0.05"],
        ),
        case(
            "alpha above 1",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            &format!("{ADMIT} --alpha 1.5"),
            &["--alpha 1.5 is outside", "0.05"],
        ),
        case(
            "alpha NaN",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            &format!("{ADMIT} --alpha NaN"),
            &["--alpha NaN is outside"],
        ),
        case(
            "a negative margin",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            &format!("{ADMIT} --margin=-0.1"),
            &["--margin -0.1"],
        ),
        case(
            "a report folder that is a file",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            "admit --baseline b.csv --candidate c.csv --report-dir afile",
            &["`afile` is a file, not a folder", "give a folder"],
        ),
        case(
            "a report folder inside a file",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            "admit --baseline b.csv --candidate c.csv --report-dir afile/rep",
            &["`afile/rep`: cannot create the folder", "give a folder you may write into"],
        ),
        case(
            "a missing tasks file",
            &[("b.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            &format!("{ADMIT} --tasks nope.csv"),
            &["`nope.csv`: cannot read it"],
        ),
        case(
            "a manifest that is not JSON",
            &[
                ("b.csv", BASELINE.as_bytes()),
                ("c.csv", CANDIDATE.as_bytes()),
                ("m.json", b"{\"holdout\": [1, 2"),
            ],
            &format!("{ADMIT} --manifest m.json"),
            &["`m.json`"],
        ),
        case(
            "a ledger with a broken line",
            &[
                ("b.csv", BASELINE.as_bytes()),
                ("c.csv", CANDIDATE.as_bytes()),
                ("l.jsonl", b"{\"schema\":\"evogate/ledger/v1\"\n"),
                ("m.json", manifest.as_bytes()),
            ],
            &format!("{ADMIT} --ledger l.jsonl --manifest m.json"),
            &["`l.jsonl` row 1", "not a ledger record"],
        ),
        // split
        split_truth("an empty ground truth", b"", &["`t.csv` is empty", "header row"]),
        split_truth(
            "a ground truth with only a header",
            b"arxiv_id,title,first_author,year\n",
            &["`t.csv` has a header but no data rows"],
        ),
        split_truth(
            "a ground truth without a year column",
            b"arxiv_id,title,first_author\n1706.03762,Attention Is All You Need,Ashish Vaswani\n",
            &["`t.csv`: no column `year`", "add it"],
        ),
        split_truth(
            "a paper listed twice",
            format!("{TRUTH}1706.03762,Attention Again,Ashish Vaswani,2017\n").as_bytes(),
            &["`t.csv` row 5", "1706.03762 appears again (first on row 2)", "keep one row per paper"],
        ),
        split_truth(
            "a ground truth that is not UTF-8",
            b"arxiv_id,title,first_author,year\n1706.03762,Attention \xC0 Is,Ashish Vaswani,2017\n",
            &["`t.csv` row 2, column 2", "save the file as UTF-8"],
        ),
        case(
            "ratios that sum to 0",
            &[("t.csv", TRUTH.as_bytes())],
            &format!("{SPLIT} --ratios 0,0,0"),
            &["--ratios `0,0,0`", "positive sum", "50,25,25"],
        ),
        case(
            "two ratios instead of three",
            &[("t.csv", TRUTH.as_bytes())],
            &format!("{SPLIT} --ratios 1,1"),
            &["--ratios `1,1`", "give three"],
        ),
        case(
            "more cases than tasks",
            &[("t.csv", TRUTH.as_bytes())],
            &format!("{SPLIT} --cases 13"),
            &["13 cases requested", "only 12 tasks", "--cases 12 or fewer"],
        ),
        case(
            "zero cases",
            &[("t.csv", TRUTH.as_bytes())],
            &format!("{SPLIT} --cases 0"),
            &["--cases `0`", "give a positive number"],
        ),
        case(
            "a seed past the largest u64",
            &[("t.csv", TRUTH.as_bytes())],
            &format!("{SPLIT} --seed 18446744073709551616"),
            &["'18446744073709551616'", "--seed"],
        ),
        case(
            "a negative seed",
            &[("t.csv", TRUTH.as_bytes())],
            &format!("{SPLIT} --seed=-1"),
            &["'-1'", "--seed"],
        ),
        case(
            "a split folder that is a file",
            &[("t.csv", TRUTH.as_bytes())],
            "split --truth t.csv --out afile",
            &["`afile` is a file, not a folder"],
        ),
        // score
        score_outputs("an empty outputs file", "o.jsonl", b"", &["`o.jsonl` is empty"]),
        score_outputs(
            "a broken JSON line",
            "o.jsonl",
            b"{\"task_id\": \"1706.03762:id\", \"output\": \"1706.03762\"}\n{\"task_id\": \"1706.03762:year\", \"output\": \n",
            &["`o.jsonl` row 2", "not a JSON object", "one object per line"],
        ),
        score_outputs(
            "a JSON array of outputs",
            "o.json",
            b"[{\"task_id\": \"1706.03762:id\", \"output\": \"1706.03762\"},\n{\"task_id\": \"1706.03762:year\", \"output\": \"2017\"}]\n",
            &["`o.json` row 1", "this is a JSON array; write one object per line"],
        ),
        case(
            "/dev/zero as an outputs file",
            &[("t.csv", TRUTH.as_bytes()), ("tasks.csv", TASKS.as_bytes())],
            "score --truth t.csv --tasks tasks.csv --outputs /dev/zero --out prev/scores.csv",
            &["`/dev/zero` row 1", "longer than 64 MiB"],
        ),
        case(
            "/dev/zero as a tasks file",
            &[("t.csv", TRUTH.as_bytes()), ("o.jsonl", b"{\"task_id\": \"1706.03762:id\", \"output\": \"a\"}\n")],
            "score --truth t.csv --tasks /dev/zero --outputs o.jsonl --out prev/scores.csv",
            &["`/dev/zero` row 1", "longer than 64 MiB"],
        ),
        score_outputs(
            "an output for an unknown task",
            "o.jsonl",
            b"{\"task_id\": \"9999.99999:id\", \"output\": \"x\"}\n",
            &["`o.jsonl` row 1", "`9999.99999:id`", "not in `tasks.csv`"],
        ),
        score_outputs(
            "two outputs for one task",
            "o.jsonl",
            b"{\"task_id\": \"1706.03762:id\", \"output\": \"a\"}\n{\"task_id\": \"1706.03762:id\", \"output\": \"b\"}\n",
            &["`o.jsonl` row 2", "second output for task `1706.03762:id` (the first is on row 1)", "keep one"],
        ),
        score_outputs(
            "a task id that is a number",
            "o.jsonl",
            b"{\"task_id\": 17, \"output\": \"a\"}\n",
            &["`o.jsonl` row 1", "`task_id` is 17, not a string", "quote it"],
        ),
        score_outputs(
            "a null output",
            "o.jsonl",
            b"{\"task_id\": \"1706.03762:id\", \"output\": null}\n",
            &["`o.jsonl` row 1", "`output` is null", "give it a string value"],
        ),
        score_outputs(
            "a JSON line that is not UTF-8",
            "o.jsonl",
            b"{\"task_id\": \"1706.03762:id\", \"output\": \"a\"}\n{\"task_id\": \"1706.03762:year\", \"output\": \"\xFF\"}\n",
            &["`o.jsonl` row 2", "save the file as UTF-8"],
        ),
        score_outputs(
            "outputs CSV without an output column",
            "o.csv",
            b"task_id,answer\n1706.03762:id,1706.03762\n",
            &["`o.csv`: no column `output`", "add it"],
        ),
        case(
            "a tasks file with a ragged row",
            &[
                ("t.csv", TRUTH.as_bytes()),
                ("tasks.csv", b"task_id,group,kind,prompt\n1706.03762:id,1706.03762,id\n"),
                ("o.jsonl", b"{\"task_id\": \"1706.03762:id\", \"output\": \"a\"}\n"),
            ],
            SCORE,
            &["`tasks.csv` row 2", "3 fields where the header has 4"],
        ),
        case(
            "a scores output that is a folder",
            &[
                ("t.csv", TRUTH.as_bytes()),
                ("tasks.csv", TASKS.as_bytes()),
                ("o.jsonl", b"{\"task_id\": \"1706.03762:id\", \"output\": \"a\"}\n"),
            ],
            "score --truth t.csv --tasks tasks.csv --outputs o.jsonl --out rep --allow-missing",
            &["`rep` is a folder", "give the path of a file"],
        ),
        // audit
        audit_claims(
            "a negative count",
            "claim_id,description,b,c\nc1,x,-1,5\n",
            &["`claims.csv` row 2", "`b` is `-1`", "non-negative whole number"],
        ),
        audit_claims(
            "a fractional count",
            "claim_id,description,b,c\nc1,x,1,4.5\n",
            &["`claims.csv` row 2", "`c` is `4.5`", "non-negative whole number"],
        ),
        audit_claims(
            "a count past the largest u64",
            "claim_id,description,b,c\nc1,x,1,99999999999999999999\n",
            &["`claims.csv` row 2", "`c` is `99999999999999999999`"],
        ),
        audit_claims(
            "a rate that is NaN",
            "claim_id,description,n,baseline,candidate\nc1,x,10,0.5,NaN\n",
            &["`claims.csv` row 2", "`candidate` is `NaN`", "in [0, 1]"],
        ),
        audit_claims(
            "a rate above 1",
            "claim_id,description,n,baseline,candidate\nc1,x,10,0.5,1.5\n",
            &["`claims.csv` row 2", "`candidate` is `1.5`", "in [0, 1]"],
        ),
        audit_claims(
            "rates on zero tasks",
            "claim_id,description,n,baseline,candidate\nc1,x,0,0.5,0.6\n",
            &["`claims.csv` row 2", "`n` is 0"],
        ),
        audit_claims(
            "a claim with no evidence",
            "claim_id,description,b,c\nc1,x,,\n",
            &["`claims.csv` row 2", "no evidence"],
        ),
        audit_claims(
            "a missing score file",
            "claim_id,description,baseline_scores,candidate_scores\nc1,x,gone.csv,c.csv\n",
            &["`claims.csv` row 2", "`gone.csv`", "relative to the claims file's folder"],
        ),
        audit_claims(
            "a score file above the claims folder",
            "claim_id,description,baseline_scores,candidate_scores\nc1,x,../b.csv,c.csv\n",
            &["`claims.csv` row 2", "`../b.csv` is outside the claims file's folder"],
        ),
        audit_claims(
            "an absolute score file path",
            "claim_id,description,baseline_scores,candidate_scores\nc1,x,/etc/hostname,c.csv\n",
            &["`claims.csv` row 2", "`/etc/hostname` is outside the claims file's folder"],
        ),
        audit_claims(
            "a claims file with only a header",
            "claim_id,description,b,c\n",
            &["`claims.csv` has a header but no data rows"],
        ),
        case(
            "alpha above one half",
            &[("claims.csv", b"claim_id,description,b,c\nc1,x,1,5\n")],
            &format!("{AUDIT} --alpha 0.6"),
            &["--alpha 0.6 is outside"],
        ),
        // power, ledger, truth, demo
        case("zero pairs", &[], "power --n 0", &["--n `0`", "positive whole numbers"]),
        case("a shift of 0", &[], "power --shift 0", &["--shift 0 is outside (0, 1]"]),
        case("a level that is NaN", &[], "power --n 5 --alpha NaN", &["--alpha NaN is outside"]),
        // Regression: exact power on 10^12 pairs ran for hours.
        case(
            "exact power on a trillion pairs",
            &[],
            "power --n 1000000000000 --discordance 0.2",
            &["--n 1000000000000", "at most 1000000 pairs", "give a smaller n"],
        ),
        case("a missing ledger", &[], "ledger show gone.jsonl", &["`gone.jsonl`: cannot read it"]),
        case(
            "a truth file that is not UTF-8",
            &[("t.csv", b"arxiv_id,title,first_author,year\n\xFE\n")],
            "truth check t.csv",
            &["`t.csv` row 2", "save the file as UTF-8"],
        ),
        case(
            "a demo folder that is a file",
            &[],
            "demo --out afile",
            &["`afile` is a file, not a folder"],
        ),
        // No command writes over one of its own inputs.
        case(
            "score --out naming its own outputs",
            &[
                ("t.csv", TRUTH.as_bytes()),
                ("tasks.csv", TASKS.as_bytes()),
                ("o.jsonl", b"{\"task_id\": \"1706.03762:id\", \"output\": \"1706.03762\"}\n"),
            ],
            "score --truth t.csv --tasks tasks.csv --outputs o.jsonl --out o.jsonl",
            &["`o.jsonl` would be written over the input `o.jsonl` (--outputs)"],
        ),
        case(
            "score --out naming its own truth",
            &[("t.csv", TRUTH.as_bytes()), ("tasks.csv", TASKS.as_bytes()), ("o.jsonl", b"")],
            "score --truth t.csv --tasks tasks.csv --outputs o.jsonl --out ./t.csv",
            &["`./t.csv` would be written over the input `t.csv` (--truth)"],
        ),
        case(
            "score --out naming its own tasks",
            &[("t.csv", TRUTH.as_bytes()), ("tasks.csv", TASKS.as_bytes()), ("o.jsonl", b"")],
            "score --truth t.csv --tasks tasks.csv --outputs o.jsonl --out tasks.csv",
            &["`tasks.csv` would be written over the input `tasks.csv` (--tasks)"],
        ),
        case(
            "admit --report-dir over a baseline named pairs.csv",
            &[("rep/pairs.csv", BASELINE.as_bytes()), ("c.csv", CANDIDATE.as_bytes())],
            "admit --baseline rep/pairs.csv --candidate c.csv --report-dir rep",
            &["`rep/pairs.csv` would be written over the input `rep/pairs.csv` (--baseline)"],
        ),
        case(
            "admit --report-dir over a candidate named admission.json",
            &[("b.csv", BASELINE.as_bytes()), ("rep/admission.json", CANDIDATE.as_bytes())],
            "admit --baseline b.csv --candidate rep/admission.json --report-dir rep",
            &["(--candidate)", "write the output to another folder"],
        ),
        case(
            "split --out over a truth file named train.csv",
            &[("prev/split/train.csv", TRUTH.as_bytes())],
            "split --truth prev/split/train.csv --out prev/split",
            &["`prev/split/train.csv` would be written over the input `prev/split/train.csv` (--truth)"],
        ),
        case(
            "audit --report-dir over its own claims",
            &[
                ("rep/audit.md", b"claim_id,description,b,c\nc1,x,2,14\n"),
            ],
            "audit --claims rep/audit.md --report-dir rep",
            &["`rep/audit.md` would be written over the input `rep/audit.md` (--claims)"],
        ),
    ]
}

/// Every file under `dir` by relative path, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in fs::read_dir(&folder).expect("the folder is readable") {
            let path = entry.expect("the entry is readable").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = fs::read(&path).expect("the file is readable");
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

/// Lays out the previous run's files and the case's own in `dir`.
fn lay_out(dir: &Path, files: &[(&str, Vec<u8>)]) {
    let previous = PREVIOUS.iter().map(|(n, t)| (*n, t.as_bytes().to_vec()));
    for (name, bytes) in previous.chain(files.iter().cloned()) {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// What is wrong with one case's run, if anything.
fn failure(case: &Case) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    lay_out(dir.path(), &case.files);
    let before = snapshot(dir.path());
    let result = run(dir.path(), &case.args);
    let stderr = &result.stderr;
    let mut problems = Vec::new();
    if result.code != 2 {
        problems.push(format!("exit {}, not 2", result.code));
    }
    if stderr.contains("panicked") || !stderr.starts_with("error: ") {
        problems.push("stderr is not one error message".to_string());
    }
    if stderr.len() > 3_000 {
        problems.push(format!("a {}-byte message", stderr.len()));
    }
    for needle in &case.needles {
        if !stderr.contains(needle.as_str()) {
            problems.push(format!("no {needle:?}"));
        }
    }
    let after = snapshot(dir.path());
    if after != before {
        let changed: Vec<_> = after
            .keys()
            .chain(before.keys())
            .filter(|k| after.get(*k) != before.get(*k))
            .collect();
        problems.push(format!("files created or changed: {changed:?}"));
    }
    (!problems.is_empty()).then(|| {
        format!(
            "{} (`evogate {}`): {}\n  stderr: {}",
            case.what,
            case.args.join(" "),
            problems.join("; "),
            stderr.chars().take(400).collect::<String>()
        )
    })
}

#[test]
fn every_bad_input_exits_2_naming_file_row_and_fix_and_touches_no_file() {
    let cases = cases();
    assert!(cases.len() >= 74, "{} cases", cases.len());
    let failures: Vec<String> = cases.iter().filter_map(failure).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// `admit --format json` on two scores files in `dir`, with the inputs' digests blanked.
fn admission_json(dir: &Path, baseline: &str, candidate: &str) -> serde_json::Value {
    let args = ["admit", "--baseline", baseline, "--candidate", candidate];
    let result = run(dir, &[&args[..], &["--format", "json"]].concat());
    assert_eq!(result.code, 0, "{}", result.stderr);
    let mut json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    json["inputs"] = serde_json::Value::Null;
    for evidence in json["evidence"].as_array_mut().unwrap() {
        let proof = evidence["proof"].as_str().unwrap();
        evidence["proof"] = proof.replace(baseline, "B").replace(candidate, "C").into();
    }
    json
}

#[test]
fn a_bom_crlf_line_ends_and_minus_zero_read_as_the_plain_file_does() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<String> = (0..6)
        .map(|i| format!("t{i}:id,id,{},{}", u8::from(i < 5), u8::from(i < 5)))
        .collect();
    let plain = format!("task_id,kind,correct,score\n{}\n", rows.join("\n"));
    let losing = plain.replace(",1,1", ",0,0");
    let odd = format!(
        "\u{FEFF}{}",
        losing.replace(",0,0", ",0,-0").replace('\n', "\r\n")
    );
    fs::write(dir.path().join("c.csv"), &plain).unwrap();
    fs::write(dir.path().join("b.csv"), &losing).unwrap();
    fs::write(dir.path().join("b-odd.csv"), &odd).unwrap();
    let expected = admission_json(dir.path(), "b.csv", "c.csv");
    assert_eq!(expected["verdict"], "admitted");
    assert_eq!(expected["p_improvement"], 0.03125);
    assert_eq!(admission_json(dir.path(), "b-odd.csv", "c.csv"), expected);
}

#[test]
fn the_extreme_seeds_build_leak_free_splits() {
    let dir = tempfile::tempdir().unwrap();
    let truth = crate::util::papers();
    let truth = truth.to_str().unwrap();
    let mut holdouts = Vec::new();
    for seed in ["0", "18446744073709551615"] {
        let out = format!("s{seed}");
        let made = run(
            dir.path(),
            &["split", "--truth", truth, "--out", &out, "--seed", seed],
        );
        assert_eq!(made.code, 0, "{}", made.stderr);
        let checked = run(dir.path(), &["split", "--check", &out]);
        assert_eq!(checked.code, 0, "{}", checked.stdout);
        holdouts.push(fs::read(dir.path().join(out).join("holdout.csv")).unwrap());
    }
    assert_ne!(holdouts[0], holdouts[1], "two seeds gave one holdout");
}

#[test]
fn a_ten_megabyte_answer_is_graded_as_a_verbose_answer() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("t.csv"), TRUTH).unwrap();
    fs::write(dir.path().join("tasks.csv"), TASKS).unwrap();
    let answer = format!("1706.03762 {}", "and so on ".repeat(1 << 20));
    let line = serde_json::json!({"task_id": "1706.03762:id", "output": answer});
    fs::write(dir.path().join("o.jsonl"), format!("{line}\n")).unwrap();
    let scored = run(
        dir.path(),
        &[
            "score",
            "--truth",
            "t.csv",
            "--tasks",
            "tasks.csv",
            "--outputs",
            "o.jsonl",
            "--allow-missing",
        ],
    );
    assert_eq!(scored.code, 0, "{}", scored.stderr);
    let row = scored.stdout.lines().nth(1).unwrap();
    // Right, but far past the verbose limit: composite 0.5 + 0.3 + 0 for conciseness.
    assert!(
        row.starts_with("1706.03762:id,1706.03762,id,1,1,0.8,0.8,"),
        "{row}"
    );
    assert!(row.len() < 200, "the answer leaked into the scores file");
}

/// A folder this process cannot write into: a read-only one, or, for root (who may
/// write anywhere permissions allow), a folder of `sysfs` or `procfs`.
fn unwritable_folder(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let folder = dir.join("locked");
    fs::create_dir(&folder).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o555)).unwrap();
    if fs::write(folder.join("probe"), "").is_err() {
        return Some(folder);
    }
    let _ = fs::remove_file(folder.join("probe"));
    ["/sys/kernel", "/sys", "/proc"]
        .iter()
        .map(PathBuf::from)
        .find(|f| f.is_dir() && fs::write(f.join("evogate-probe"), "").is_err())
}

#[test]
fn an_unwritable_report_folder_exits_2_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let Some(folder) = unwritable_folder(dir.path()) else {
        panic!("no unwritable folder on this machine to test with");
    };
    fs::write(dir.path().join("b.csv"), BASELINE).unwrap();
    fs::write(dir.path().join("c.csv"), CANDIDATE).unwrap();
    let before = fs::read_dir(&folder).unwrap().count();
    let report_dir = folder.to_str().unwrap();
    let args = ["admit", "--baseline", "b.csv", "--candidate", "c.csv"];
    let result = run(
        dir.path(),
        &[&args[..], &["--report-dir", report_dir]].concat(),
    );
    let stderr = &result.stderr;
    assert_eq!(result.code, 2, "{stderr}");
    // The report folder is replaced as a whole, so the message names the folder.
    assert!(
        stderr.contains(&format!("`{report_dir}`: cannot ")),
        "{stderr}"
    );
    assert!(stderr.contains("is writable"), "{stderr}");
    assert_eq!(fs::read_dir(&folder).unwrap().count(), before);
}

#[test]
fn claim_text_renders_inert_in_the_audit_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let description = "+16% | @octocat see #12 <img src=x onerror=alert(1)> ![x](https://evil.example/a.png) `rm -rf`\nnext";
    let claims = format!(
        "claim_id,description,b,c\n\"=cmd|' /C calc'!A0\",\"{}\",2,14\n",
        description.replace('"', "\"\"")
    );
    fs::write(dir.path().join("claims.csv"), claims).unwrap();
    let result = run(
        dir.path(),
        &["audit", "--claims", "claims.csv", "--report-dir", "r"],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    let md = fs::read_to_string(dir.path().join("r/audit.md")).unwrap();
    // Each piece may appear only with a backslash before it (shown, not acted on).
    let unescaped = |raw: &str| {
        md.match_indices(raw)
            .any(|(at, _)| !md[..at].ends_with('\\'))
    };
    for raw in [
        "@octocat", "#12", "<img", "![x]", "](https", "`rm", "\nnext",
    ] {
        assert!(!unescaped(raw), "{raw:?} reached the Markdown: {md}");
    }
    assert!(md.contains("@\u{200D}octocat"), "{md}");
    let row = md
        .lines()
        .find(|l| l.contains("cmd"))
        .expect("the claim has a row");
    assert!(row.contains("\\=cmd\\|"), "{row}");
    let header = md
        .lines()
        .find(|l| l.starts_with('|'))
        .expect("the claims table has a header");
    let separators = |line: &str| line.replace("\\|", "").matches('|').count();
    assert_eq!(separators(row), separators(header), "{row}");
}

#[test]
fn a_claims_score_file_that_links_outside_its_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let claims = dir.path().join("claims");
    fs::create_dir(&claims).unwrap();
    fs::write(dir.path().join("secret.csv"), BASELINE).unwrap();
    fs::write(claims.join("c.csv"), CANDIDATE).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.csv"), claims.join("b.csv")).unwrap();
    fs::write(
        claims.join("claims.csv"),
        "claim_id,description,baseline_scores,candidate_scores\nc1,x,b.csv,c.csv\n",
    )
    .unwrap();
    let result = run(dir.path(), &["audit", "--claims", "claims/claims.csv"]);
    crate::util::assert_input_error(
        &result,
        &[
            "`claims/claims.csv` row 2",
            "`b.csv` is a link that leads outside the claims file's folder",
            "copy the file into the folder",
        ],
    );
}

#[test]
fn leftovers_of_a_report_swap_killed_midway_are_put_back_or_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("claims.csv"),
        "claim_id,description,b,c\nc1,x,2,14\n",
    )
    .unwrap();
    // A run killed between its two renames: the old set aside, the new one beside it.
    let old = dir.path().join(".rep.evogate-old-k1");
    let new = dir.path().join(".rep.evogate-new-k1");
    for (folder, text) in [(&old, "old"), (&new, "new")] {
        fs::create_dir_all(folder).unwrap();
        fs::write(folder.join("audit.md"), text).unwrap();
        fs::write(folder.join("audit.json"), text).unwrap();
    }
    fs::write(old.join("notes.txt"), "mine").unwrap();
    let result = run(
        dir.path(),
        &["audit", "--claims", "claims.csv", "--report-dir", "rep"],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(file_names(dir.path()), ["claims.csv", "rep"]);
    assert_eq!(
        fs::read_to_string(dir.path().join("rep/notes.txt")).unwrap(),
        "mine"
    );
    assert!(
        fs::read_to_string(dir.path().join("rep/audit.md"))
            .unwrap()
            .contains("c1")
    );
}

#[test]
fn a_torn_last_ledger_record_is_skipped_with_a_warning_and_cut_off_by_the_next_attempt() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.csv"), BASELINE).unwrap();
    fs::write(dir.path().join("c.csv"), CANDIDATE).unwrap();
    crate::util::write_manifest(dir.path(), &["a:id", "b:id"]);
    let admit = [
        "admit",
        "--baseline",
        "b.csv",
        "--candidate",
        "c.csv",
        "--ledger",
        "l.jsonl",
        "--manifest",
        "manifest.json",
    ];
    assert_eq!(run(dir.path(), &admit).code, 1);
    let ledger = dir.path().join("l.jsonl");
    let whole = fs::read_to_string(&ledger).unwrap();
    // A full disk cut the second append short.
    fs::write(&ledger, format!("{whole}{}", &whole[..40])).unwrap();
    let shown = run(dir.path(), &["ledger", "show", "l.jsonl"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(shown.stderr.contains("`l.jsonl` row 2"), "{}", shown.stderr);
    assert!(shown.stderr.contains("cut short"), "{}", shown.stderr);
    assert!(
        shown.stdout.contains("1 attempt on 1 holdout"),
        "{}",
        shown.stdout
    );
    // Another candidate file (the same rows reordered) is a new attempt; admit warns
    // of the torn record as `ledger show` does.
    fs::write(
        dir.path().join("c.csv"),
        "task_id,kind,correct,score\nb:id,id,1,1\na:id,id,1,1\n",
    )
    .unwrap();
    let second = run(dir.path(), &admit);
    assert_eq!(second.code, 1, "{}", second.stderr);
    assert!(second.stderr.contains("attempt 2"), "{}", second.stderr);
    assert!(
        second
            .stderr
            .contains("`l.jsonl` row 2: an append was cut short there"),
        "{}",
        second.stderr
    );
    let text = fs::read_to_string(&ledger).unwrap();
    assert!(text.starts_with(&whole), "the complete record was lost");
    assert_eq!(text.lines().count(), 2);
    assert!(text.ends_with("}\n"));
}

#[test]
fn a_stratum_value_holding_esc_bel_and_x01_gives_a_strata_svg_that_is_valid_xml() {
    let dir = tempfile::tempdir().unwrap();
    let kind = "k\u{1b}[2J\u{7}\u{1}";
    let rows = |wins: [u8; 2]| {
        format!(
            "task_id,kind,correct,score\na:x,{kind},{0},{0}\nb:x,{kind},{1},{1}\n",
            wins[0], wins[1]
        )
    };
    fs::write(dir.path().join("b.csv"), rows([0, 1])).unwrap();
    fs::write(dir.path().join("c.csv"), rows([1, 1])).unwrap();
    let args = [
        "admit",
        "--baseline",
        "b.csv",
        "--candidate",
        "c.csv",
        "--report-dir",
        "r",
    ];
    let result = run(dir.path(), &args);
    assert!([0, 1].contains(&result.code), "{}", result.stderr);
    let svg = fs::read_to_string(dir.path().join("r/strata.svg")).unwrap();
    let forbidden: Vec<char> = svg
        .chars()
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
        .collect();
    assert!(
        forbidden.is_empty(),
        "control characters in strata.svg: {forbidden:?}"
    );
    assert!(svg.contains("k␛[2J␇␁"), "the value is not shown");
}

#[test]
fn split_check_finds_a_holdout_row_whose_group_column_disagrees_with_its_id() {
    let dir = tempfile::tempdir().unwrap();
    let header = "task_id,group,kind,prompt\n";
    fs::create_dir(dir.path().join("s")).unwrap();
    fs::write(
        dir.path().join("s/train.csv"),
        format!("{header}p1:id,p1,id,x\n"),
    )
    .unwrap();
    fs::write(
        dir.path().join("s/val.csv"),
        format!("{header}p2:id,p2,id,x\n"),
    )
    .unwrap();
    // The row is paper p1's, labelled as p3: the group column alone shows no leak.
    fs::write(
        dir.path().join("s/holdout.csv"),
        format!("{header}p1:year,p3,year,x\n"),
    )
    .unwrap();
    let result = run(dir.path(), &["split", "--check", "s"]);
    assert_eq!(result.code, 1, "{}{}", result.stdout, result.stderr);
    assert!(
        result
            .stdout
            .contains("task p1:year in holdout is labelled group p3, but its id names group p1"),
        "{}",
        result.stdout
    );
    assert!(
        result
            .stdout
            .contains("group p1 appears in train and holdout"),
        "{}",
        result.stdout
    );
}

#[test]
fn extreme_levels_are_printed_readably_and_never_as_zero() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("b.csv"), BASELINE).unwrap();
    fs::write(dir.path().join("c.csv"), CANDIDATE).unwrap();
    let tiny = run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "b.csv",
            "--candidate",
            "c.csv",
            "--alpha",
            "4.9e-324",
        ],
    );
    assert_eq!(tiny.code, 1, "{}", tiny.stderr);
    assert!(
        tiny.stdout.contains("at alpha 4.941e-324"),
        "{}",
        tiny.stdout
    );
    assert!(!tiny.stdout.contains("alpha 0,") && !tiny.stdout.contains("alpha 0:"));
    let huge = run(dir.path(), &["power", "--n", "30", "--alpha", "1e308"]);
    assert_eq!(huge.code, 2);
    assert!(
        huge.stderr.contains("--alpha 1e308 is outside"),
        "{}",
        huge.stderr
    );
    assert!(huge.stderr.len() < 300, "{}", huge.stderr);
    // A ledger stream declared at 0.7 is refused on reading: it would otherwise tell
    // the user to go on with `--alpha 0.7`, which every command refuses.
    let record = "{\"schema\":\"evogate/ledger/v1\",\"holdout_sha256\":\"".to_string()
        + &"a".repeat(64)
        + "\",\"attempt\":1,\"declared_alpha\":0.7}\n";
    fs::write(dir.path().join("l.jsonl"), record).unwrap();
    let shown = run(dir.path(), &["ledger", "show", "l.jsonl"]);
    assert_eq!(shown.code, 2, "{}", shown.stderr);
    assert!(!shown.stderr.contains("--alpha 0.7,"), "{}", shown.stderr);
}

#[test]
fn formula_like_identifiers_round_trip_through_split_and_score_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let groups = [
        "=1+1", "+2", "-3", "@4", "g5", "g6", "g7", "g8", "g9", "g10",
    ];
    let mut truth = String::from("group,kind,question,answer\n");
    for group in groups {
        truth.push_str(&format!("{group},capital,=What is the capital?,Paris\n"));
    }
    fs::write(dir.path().join("t.csv"), truth).unwrap();
    let split = ["split", "--verifier", "facts", "--truth", "t.csv"];
    let made = run(dir.path(), &[&split[..], &["--out", "s"]].concat());
    assert_eq!(made.code, 0, "{}", made.stderr);
    let mut found = Vec::new();
    for name in ["train.csv", "val.csv", "holdout.csv"] {
        let tasks = fs::read_to_string(dir.path().join("s").join(name)).unwrap();
        // The prompt is free text and stays neutralised; the identifiers do not.
        let mut outputs = String::from("task_id,output\n");
        for line in tasks.lines().skip(1) {
            assert!(line.ends_with(",'=What is the capital?"), "{line}");
            let id = line.split(',').next().unwrap();
            outputs.push_str(&format!("{id},Paris\n"));
            found.push(id.to_string());
        }
        fs::write(dir.path().join("o.csv"), outputs).unwrap();
        let args = ["--tasks", &format!("s/{name}"), "--outputs", "o.csv"];
        let scored = run(
            dir.path(),
            &[
                &["score", "--verifier", "facts", "--truth", "t.csv"][..],
                &args,
            ]
            .concat(),
        );
        assert_eq!(scored.code, 0, "{name}: {}", scored.stderr);
        // Every task is graded right, under the id the truth gives it.
        for line in tasks.lines().skip(1) {
            let id = line.split(',').next().unwrap();
            let group = id.strip_suffix(":capital").unwrap();
            assert!(
                scored
                    .stdout
                    .contains(&format!("\n{id},{group},capital,1,")),
                "{}",
                scored.stdout
            );
        }
    }
    found.sort();
    let mut expected: Vec<String> = groups.iter().map(|g| format!("{g}:capital")).collect();
    expected.sort();
    assert_eq!(found, expected);
    let checked = run(dir.path(), &["split", "--check", "s"]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);
}
