"""`admit --summary` on the shipped SQL's document equals `admit` on the raw files.

For each case, DuckDB writes the two arms as sharded Parquet files (the candidate's
rows in another order than the baseline's) and the same pairs as two CSV files; the
SQL in sql/summary.sql turns the shards into a summary document; evogate decides on
both. The verdict, the exit status, n, every p-value (to 1e-12 relative), every
stratum and the cluster view must agree. A document whose arms do not pair must be
refused with exit 2, as admit refuses the files.

Usage: check_summary.py EVOGATE_BINARY SQL_FILE WORK_DIR
"""

import json
import os
import subprocess
import sys

import duckdb

SHARDS = 4
RELATIVE = 1e-12
# (name, pairs, correct, tasks per group, extra admit arguments); tests/spark runs them too.
CASES = [
    ("mcnemar", 200_000, True, 4, []),
    ("signed-rank", 200_000, False, 4, ["--cluster", "group"]),
    ("signed-rank-pratt", 200_000, False, 8, ["--zero-method", "pratt"]),
    ("small-exact", 600, False, 3, ["--margin", "0.2"]),
]


def write_case(con, folder, n, with_correct, groups):
    """Writes base/*.parquet, cand/*.parquet, base.csv and cand.csv for n pairs."""
    os.makedirs(f"{folder}/base", exist_ok=True)
    os.makedirs(f"{folder}/cand", exist_ok=True)
    # Deterministic pseudo-random draws from hash(); scores have at most 3 decimals.
    if with_correct:
        scores = """
            (hash(i, 'b') % 100 < 60)::INTEGER AS bc,
            (hash(i, 'c') % 100 < 63)::INTEGER AS cc,
            bc::DOUBLE AS bs, cc::DOUBLE AS cs"""
    else:
        scores = """
            (hash(i, 'b') % 1001) / 1000 AS bs,
            least(1.0, (hash(i, 'c') % 1001) / 1000 + 0.004) AS cs"""
    con.execute(f"""
        CREATE OR REPLACE TABLE rows AS
        SELECT 't' || lpad(i::VARCHAR, 8, '0') AS task_id,
               ['id', 'year', 'title'][(1 + hash(i, 'k') % 3)::BIGINT] AS kind,
               'g' || lpad((i // {groups})::VARCHAR, 7, '0') AS "group",
               {scores}
        FROM range({n}) AS t(i)""")
    correct_b = "bc AS correct," if with_correct else ""
    correct_c = "cc AS correct," if with_correct else ""
    for arm, correct, score, order in [
        ("base", correct_b, "bs", "task_id"),
        ("cand", correct_c, "cs", "hash(task_id)"),
    ]:
        for shard in range(SHARDS):
            con.execute(f"""
                COPY (SELECT task_id, kind, "group", {correct} {score} AS score
                      FROM rows WHERE hash(task_id, 's') % {SHARDS} = {shard}
                      ORDER BY {order})
                TO '{folder}/{arm}/part-{shard}.parquet' (FORMAT parquet)""")
        con.execute(f"""
            COPY (SELECT task_id, kind, "group", {correct} {score} AS score
                  FROM rows ORDER BY {order})
            TO '{folder}/{arm}.csv' (HEADER)""")


def write_unpaired(con, folder):
    """Unpaired arms from a written case: cand-short.parquet lacks task t00000007,
    base-twice.parquet holds t00000011 twice."""
    con.execute(f"""
        COPY (SELECT * FROM '{folder}/cand/*.parquet' WHERE task_id <> 't00000007')
        TO '{folder}/cand-short.parquet' (FORMAT parquet)""")
    con.execute(f"""
        COPY (SELECT * FROM '{folder}/base/*.parquet' UNION ALL
              SELECT * FROM '{folder}/base/*.parquet' WHERE task_id = 't00000011')
        TO '{folder}/base-twice.parquet' (FORMAT parquet)""")


def write_whitespace(folder):
    """b.csv and c.csv whose identifiers have whitespace at their ends: trimmed as
    evogate's reader trims them, ids `t1` and `t1<TAB>` pair and groups `=1+1`,
    `<TAB>=1+1`, `<CR>=1+1` and ` =1+1` are one cluster."""
    os.makedirs(folder, exist_ok=True)
    ends = ["\t", "\r", " ", "\u00a0", "\u2003", "\x0b", ""]
    for arm, threshold in [("b", 40), ("c", 80)]:
        with open(f"{folder}/{arm}.csv", "w", encoding="utf-8", newline="") as out:
            out.write("task_id,group,kind,correct,score\n")
            for i in range(60):
                correct = int((i * 37) % 100 < threshold)
                end = ends[i % len(ends)] if arm == "c" else ""
                group = ends[i % len(ends)] + "=1+1" if i % 3 == 0 else f"g{i % 4}"
                out.write(f'"t{i}{end}","{group}",k{i % 3},{correct},{correct}\n')


def refuses_unpaired(binary, document):
    """`admit --summary` refuses the document of write_unpaired's arms as admit words it."""
    status, _, err = admit(binary, ["--summary", document])
    assert status == 2, f"unpaired: exit {status}"
    assert "the two arms do not pair: 1 task more than once" in err, err
    assert "lacks 1 task that" in err, err


def write_repeats(con, folder):
    """Arms of a written case as repeats of items (`import --repeats all`'s rule): each
    task `t` becomes the row `t#2` whose group is `t`; cand-plain.parquet keeps the
    candidate's ids, with a group `t` beside a task id `t#x`, which is no repeat."""
    for arm in ["base", "cand"]:
        con.execute(f"""
            COPY (SELECT * REPLACE (task_id || '#2' AS task_id, task_id AS "group")
                  FROM '{folder}/{arm}/*.parquet')
            TO '{folder}/{arm}-repeats.parquet' (FORMAT parquet)""")
    con.execute(f"""
        COPY (SELECT * REPLACE (task_id || '#x' AS task_id, task_id AS "group")
              FROM '{folder}/base/*.parquet')
        TO '{folder}/base-plain.parquet' (FORMAT parquet)""")


REPEATS_REASON = "holds repeats of items (rows <item>#<r> whose group is the item)"


def refuses_repeats(sql_file, folder):
    """The SQL stops on an arm that holds repeats, naming it and saying what to do,
    and writes no document; ids with a `#` that are no repeats pass."""
    for baseline, candidate, named in [
        (f"{folder}/base-repeats.parquet", f"{folder}/cand-repeats.parquet", "base-repeats"),
        (f"{folder}/base/*.parquet", f"{folder}/cand-repeats.parquet", "cand-repeats"),
    ]:
        out = f"{folder}/repeats.json"
        try:
            run_sql(sql_file, baseline, candidate, out)
        except duckdb.Error as error:
            message = str(error)
            assert REPEATS_REASON in message and named in message, message
            assert "run admit on the scores files" in message, message
        else:
            raise AssertionError(f"repeats in {named}: the SQL wrote a document")
        assert not os.path.exists(out), named
    out = f"{folder}/plain.json"
    run_sql(sql_file, f"{folder}/base-plain.parquet", f"{folder}/base-plain.parquet", out)
    assert os.path.exists(out)


def run_sql(sql_file, baseline, candidate, out):
    text = open(sql_file, encoding="utf-8").read()
    text = (
        text.replace("{baseline}", baseline)
        .replace("{candidate}", candidate)
        .replace("{out}", out)
    )
    duckdb.connect().execute(text)


def admit(binary, args):
    done = subprocess.run(
        [binary, "admit", "--format", "json", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def close(name, got, expected):
    if got is None or expected is None:
        assert got == expected, f"{name}: {got} vs {expected}"
        return
    scale = max(abs(expected), 1e-300)
    assert abs(got - expected) <= RELATIVE * scale, f"{name}: {got} vs {expected}"


def compare(label, summary, raw):
    """The decision on the summary against the decision on the files."""
    for key in ["verdict", "n", "alpha", "strata_column", "min_detectable_shift", "test"]:
        assert summary[key] == raw[key], f"{label} {key}: {summary[key]} vs {raw[key]}"
    for key in ["p_improvement", "p_regression", "p_two_sided"]:
        close(f"{label} {key}", summary[key], raw[key])
    for arm in ["baseline", "candidate"]:
        assert summary[arm]["correct"] == raw[arm]["correct"], label
        close(f"{label} {arm} mean", summary[arm]["mean"], raw[arm]["mean"])
    assert summary["delta"] == raw["delta"], f"{label} delta"
    assert summary["discordant"] == raw["discordant"], f"{label} discordant"
    assert len(summary["strata"]) == len(raw["strata"]), label
    for got, expected in zip(summary["strata"], raw["strata"]):
        where = f"{label} stratum {expected['value']}"
        for key in ["name", "value", "n", "discordant", "significant_regression", "delta"]:
            assert got[key] == expected[key], f"{where} {key}: {got[key]} vs {expected[key]}"
        for key in ["p_improvement", "p_regression", "baseline_mean", "candidate_mean"]:
            close(f"{where} {key}", got[key], expected[key])
    assert (summary["cluster"] is None) == (raw["cluster"] is None), label
    if raw["cluster"] is not None:
        for key in ["clusters", "decides", "method", "warning", "min_detectable_shift"]:
            assert summary["cluster"][key] == raw["cluster"][key], f"{label} cluster {key}"
        for key in ["p_improvement", "p_regression", "design_effect"]:
            close(f"{label} cluster {key}", summary["cluster"][key], raw["cluster"][key])
    # Every criterion but the pairing proof, which names the summary's counts.
    assert summary["evidence"][0]["criterion"] == "pairing-complete"
    assert summary["evidence"][0]["result"] == "pass"
    assert summary["evidence"][1:] == raw["evidence"][1:], f"{label} evidence"
    assert summary["reasons"] == raw["reasons"], f"{label} reasons"


def decides_as_admit(binary, name, n, document, folder, extra):
    """`admit --summary` on the document decides as `admit` on the case's CSV files;
    returns the decision."""
    status_s, out_s, err_s = admit(binary, ["--summary", document, *extra])
    status_r, out_r, err_r = admit(
        binary, ["--baseline", f"{folder}/base.csv", "--candidate", f"{folder}/cand.csv", *extra]
    )
    assert status_s in (0, 1), f"{name}: admit --summary exited {status_s}: {err_s}"
    assert status_s == status_r, f"{name}: exit {status_s} vs {status_r}: {err_s} {err_r}"
    summary, raw = json.loads(out_s), json.loads(out_r)
    assert summary["n"] == n, f"{name}: n {summary['n']}"
    compare(name, summary, raw)
    return summary


def main():
    binary, sql_file, work = sys.argv[1:4]
    con = duckdb.connect()
    for name, n, with_correct, groups, extra in CASES:
        folder = f"{work}/{name}"
        write_case(con, folder, n, with_correct, groups)
        document = f"{folder}/summary.json"
        run_sql(sql_file, f"{folder}/base/*.parquet", f"{folder}/cand/*.parquet", document)
        summary = decides_as_admit(binary, name, n, document, folder, extra)
        print(
            f"{name}: {n} pairs, {summary['verdict']}, p_improvement {summary['p_improvement']}, "
            f"{len(summary['strata'])} strata: admit --summary equals admit"
        )
    folder = f"{work}/small-exact"
    write_unpaired(con, folder)
    document = f"{folder}/unpaired.json"
    run_sql(sql_file, f"{folder}/base-twice.parquet", f"{folder}/cand-short.parquet", document)
    refuses_unpaired(binary, document)
    print("unpaired arms: refused with exit 2")
    write_repeats(con, folder)
    refuses_repeats(sql_file, folder)
    print("repeats of items: the SQL stops naming the arm, no document")
    folder = f"{work}/whitespace"
    write_whitespace(folder)
    document = f"{folder}/summary.json"
    run_sql(sql_file, f"{folder}/b.csv", f"{folder}/c.csv", document)
    extra = ["--cluster", "group"]
    status_s, out_s, err_s = admit(binary, ["--summary", document, *extra])
    status_r, out_r, err_r = admit(
        binary, ["--baseline", f"{folder}/b.csv", "--candidate", f"{folder}/c.csv", *extra]
    )
    assert status_s == status_r, f"whitespace: exit {status_s} vs {status_r}: {err_s} {err_r}"
    summary, raw = json.loads(out_s), json.loads(out_r)
    assert summary["n"] == 60, f"whitespace: n {summary['n']}"
    compare("whitespace", summary, raw)
    print(f"whitespace ids: {summary['cluster']['clusters']} clusters in both, admit --summary equals admit")


if __name__ == "__main__":
    main()
