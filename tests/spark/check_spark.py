"""evogate.spark's document equals DuckDB's, and `admit --summary` on it equals `admit`.

Spark runs in local mode (local[2]) over the sharded Parquet files of tests/duckdb's
cases at up to 5·10^4 pairs (DuckDB writes them, the candidate's rows in another order
than the baseline's).
For each case the Spark document is compared field by field with the one the shipped
DuckDB SQL writes for the same files (equal after sorting the histograms, strata and
clusters), and `admit --summary` on it must decide as `admit` does on the same pairs as
CSV: verdict, exit status, n, every p-value to 1e-12 relative, every stratum and the
cluster view. Then: the CSV and JSON Lines readers and Spark-written shards give the
same document; identifiers with whitespace at their ends are trimmed as evogate trims
them; quoted ids holding doubled quotes or line breaks (in a CR LF file) are read as
RFC 4180 and evogate read them; scores on half micro-units round as evogate rounds them (checked against
exact decimal arithmetic); unpaired arms and a stratum disagreement are counted as
DuckDB counts them and refused with exit 2; inputs the reader refuses (and arms that
hold repeats of items, which admit tests on items) stop with DuckDB's reason.

Usage: check_spark.py EVOGATE_BINARY SQL_FILE WORK_DIR
"""

import csv
import hashlib
import json
import os
import re
import sys
import time
from decimal import ROUND_HALF_UP, Decimal

import duckdb
from pyspark.sql import SparkSession

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "duckdb"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import check_summary as duck  # noqa: E402  (tests/duckdb/check_summary.py)
import evogate.spark  # noqa: E402  (python/evogate/spark.py, the module users run)

# Scores on and around half micro-units: round(score * 10^6) must round each as
# evogate's f64::round does (half away from zero on the double product).
HALVES = [0.0000005, 0.0000015, 0.0000025, 0.0000035, 0.1234565, 0.5000005, 0.9999995,
          0.0000004999999, 0.2500015, 0.1, 0.3, 0.7, 1.0, 0.0, 0.0000105, 0.3333335]


# tests/duckdb's cases, capped at this many pairs: enough for every shard, shuffle
# partition and stratum to hold thousands of pairs, small enough for CI's 2 cores.
PAIRS = 50_000
PASSED = []


def passed(line):
    """One check passed: print it and count it for the closing line."""
    PASSED.append(line)
    print(line, flush=True)


def session():
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("evogate tests/spark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def load(path):
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def sorted_document(document):
    """The document with every list whose order the schema leaves free sorted."""
    def sort_set(item):
        item["differences"] = sorted(item["differences"])
        return item

    document = json.loads(json.dumps(document))
    sort_set(document["overall"])
    if document["strata"] is not None:
        document["strata"]["values"] = sorted(
            (sort_set(value) for value in document["strata"]["values"]),
            key=lambda value: value["value"],
        )
    if document["clusters"] is not None:
        document["clusters"] = sorted(document["clusters"], key=lambda c: c["group"])
    return document


def same_documents(label, spark_document, duckdb_document, ignore=()):
    """Field by field, after sorting; returns a one-line account of what was compared."""
    got, expected = sorted_document(spark_document), sorted_document(duckdb_document)
    assert sorted(got) == sorted(expected), f"{label}: fields {sorted(got)} vs {sorted(expected)}"
    for field in expected:
        if field in ignore:
            continue
        assert got[field] == expected[field], (
            f"{label} `{field}`: Spark {json.dumps(got[field])[:400]} "
            f"vs DuckDB {json.dumps(expected[field])[:400]}"
        )
    strata = len(expected["strata"]["values"]) if expected["strata"] else 0
    clusters = len(expected["clusters"]) if expected["clusters"] else 0
    return (
        f"{len(expected) - len(ignore)} fields equal (n {expected['overall']['n']}, "
        f"{len(expected['overall']['differences'])} histogram entries, {strata} strata, "
        f"{clusters} clusters, holdout {str(expected['holdout_sha256'])[:12]}...)"
    )


def both(spark, sql_file, baseline, candidate, out):
    """The Spark and the DuckDB documents of the same inputs, and Spark's seconds."""
    started = time.monotonic()
    evogate.spark.summary(spark, baseline, candidate, f"{out}.spark.json")
    seconds = time.monotonic() - started
    duck.run_sql(sql_file, baseline, candidate, f"{out}.duckdb.json")
    return load(f"{out}.spark.json"), load(f"{out}.duckdb.json"), seconds


def main():
    binary, sql_file, work = sys.argv[1:4]
    con = duckdb.connect()
    spark = session()
    print(f"Spark {spark.version} local[2], ANSI mode {spark.conf.get('spark.sql.ansi.enabled')}")

    for name, cases_n, with_correct, groups, extra in duck.CASES:
        n = min(cases_n, PAIRS)
        folder = f"{work}/{name}"
        duck.write_case(con, folder, n, with_correct, groups)
        out = f"{folder}/summary"
        spark_doc, duck_doc, seconds = both(
            spark, sql_file, f"{folder}/base/*.parquet", f"{folder}/cand/*.parquet", out
        )
        passed(f"{name}: Spark document ({seconds:.1f} s) against DuckDB's: "
              + same_documents(name, spark_doc, duck_doc))
        summary = duck.decides_as_admit(binary, name, n, f"{out}.spark.json", folder, extra)
        passed(
            f"{name}: {n} pairs, {summary['verdict']}, p_improvement {summary['p_improvement']}, "
            f"{len(summary['strata'])} strata: admit --summary on Spark's document equals admit"
        )

    # The other readers, and shards as Spark itself writes them, on the small case.
    folder = f"{work}/small-exact"
    parquet = load(f"{folder}/summary.spark.json")
    for arm in ["base", "cand"]:
        con.execute(f"COPY (SELECT * FROM '{folder}/{arm}.csv') TO '{folder}/{arm}.jsonl' (FORMAT json)")
        spark.read.parquet(f"{folder}/{arm}/*.parquet").repartition(3).write.parquet(
            f"{folder}/spark-{arm}"
        )
    for reader, baseline, candidate in [
        ("csv", f"{folder}/base.csv", f"{folder}/cand.csv"),
        ("json-lines", f"{folder}/base.jsonl", f"{folder}/cand.jsonl"),
        ("spark-shards", f"{folder}/spark-base/*.parquet", f"{folder}/spark-cand/*.parquet"),
    ]:
        spark_doc, duck_doc, _ = both(spark, sql_file, baseline, candidate, f"{folder}/{reader}")
        account = same_documents(reader, spark_doc, duck_doc)
        same_documents(f"{reader} against Parquet", spark_doc, parquet, ignore=("baseline", "candidate"))
        passed(f"reader {reader}: Spark equals DuckDB, {account}, and the Parquet document")

    # Identifiers with Unicode whitespace at their ends, quoted, some holding a carriage
    # return: trimmed as evogate's reader and the SQL's evogate_trim trim them.
    folder = f"{work}/whitespace"
    duck.write_whitespace(folder)
    spark_doc, duck_doc, _ = both(spark, sql_file, f"{folder}/b.csv", f"{folder}/c.csv", f"{folder}/summary")
    account = same_documents("whitespace", spark_doc, duck_doc)
    extra = ["--cluster", "group"]
    status_s, out_s, err_s = duck.admit(binary, ["--summary", f"{folder}/summary.spark.json", *extra])
    status_r, out_r, err_r = duck.admit(
        binary, ["--baseline", f"{folder}/b.csv", "--candidate", f"{folder}/c.csv", *extra]
    )
    assert status_s == status_r, f"whitespace: exit {status_s} vs {status_r}: {err_s} {err_r}"
    summary, raw = json.loads(out_s), json.loads(out_r)
    assert summary["n"] == 60, f"whitespace: n {summary['n']}"
    duck.compare("whitespace", summary, raw)
    passed(f"whitespace ids: Spark equals DuckDB, {account}; {summary['cluster']['clusters']} "
           "clusters, admit --summary equals admit")

    # Identifiers holding quotes (written as RFC 4180 doubles them, `"q""uote"`), commas,
    # backslashes and line breaks, every field quoted, in a file with CR LF line ends (as
    # Python's csv module writes it): Spark reads them as evogate and DuckDB do, so the
    # holdout digest is that of the ids evogate pairs (its pairs.csv). RFC 4180 keeps a
    # quoted field's characters as they are: `"c\r\nd"` is c, CR, LF, d, never c LF d.
    folder = f"{work}/quotes"
    os.makedirs(folder, exist_ok=True)
    ids = ['q"uote', '"lead', 'trail"', 'two""quotes', "a,b", "back\\slash", "end\\",
           '\\"mixed', "0042", "c\r\nd", "e\nf", "g\rh"] + [f"plain{i:02d}" for i in range(28)]
    for arm, threshold in [("base", 30), ("cand", 70)]:
        with open(f"{folder}/{arm}.csv", "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
            writer.writerow(["task_id", "kind", "correct", "score"])
            for i, task in enumerate(ids):
                correct = int((i * 37) % 100 < threshold)
                writer.writerow([task, f"k{i % 2}", correct, correct])
    written = open(f"{folder}/base.csv", encoding="utf-8", newline="").read()
    assert '"q""uote"' in written and '"c\r\nd"' in written, written[:200]
    spark_doc, duck_doc, _ = both(spark, sql_file, f"{folder}/base.csv", f"{folder}/cand.csv", f"{folder}/summary")
    account = same_documents("quotes", spark_doc, duck_doc)
    assert spark_doc["overall"]["n"] == len(ids), spark_doc["overall"]
    status, _, err = duck.admit(binary, ["--baseline", f"{folder}/base.csv", "--candidate",
                                         f"{folder}/cand.csv", "--report-dir", f"{folder}/report"])
    assert status in (0, 1), err
    with open(f"{folder}/report/pairs.csv", encoding="utf-8", newline="") as pairs:
        # pairs.csv shows a control character as `\u{d}`; the ids are read back whole.
        read_by_evogate = sorted(
            re.sub(r"\\u\{([0-9a-f]+)\}", lambda m: chr(int(m.group(1), 16)), row["task_id"])
            for row in csv.DictReader(pairs))
    assert read_by_evogate == sorted(ids), read_by_evogate
    digest = hashlib.sha256("\n".join(read_by_evogate).encode("utf-8")).hexdigest()
    assert spark_doc["holdout_sha256"] == digest == duck_doc["holdout_sha256"], (
        spark_doc["holdout_sha256"], digest, duck_doc["holdout_sha256"])
    duck.decides_as_admit(binary, "quotes", len(ids), f"{folder}/summary.spark.json",
                          folder, [])
    passed(f"quoted ids (`\"q\"\"uote\"`, `a,b`, `end\\`, `\"c\\r\\nd\"` in a CR LF file): "
           f"Spark equals DuckDB, {account}; "
           f"holdout_sha256 {digest[:12]}... is that of the ids evogate pairs; "
           "admit --summary equals admit")

    # Half micro-units: both engines and evogate round each score the same way.
    folder = f"{work}/halves"
    os.makedirs(folder, exist_ok=True)
    base = HALVES
    cand = [0.0000045, 0.9999985, 0.6666665, 0.0000075, 0.1234575, 0.5000015, 0.0000095,
            0.4999995, 0.7500005, 0.2, 0.4, 0.8, 0.9, 0.0000005, 0.1000005, 0.0000055]
    for arm, scores in [("base", base), ("cand", cand)]:
        with open(f"{folder}/{arm}.csv", "w", encoding="utf-8") as file:
            file.write("task_id,score\n")
            file.writelines(f"h{i:02d},{score!r}\n" for i, score in enumerate(scores))
        con.execute(f"COPY (SELECT * FROM read_csv('{folder}/{arm}.csv', all_varchar = true, "
                    f"columns = {{'task_id': 'VARCHAR', 'score': 'DOUBLE'}}, header = true)) "
                    f"TO '{folder}/{arm}.parquet' (FORMAT parquet)")
    spark_doc, duck_doc, _ = both(
        spark, sql_file, f"{folder}/base.parquet", f"{folder}/cand.parquet", f"{folder}/summary"
    )
    account = same_documents("halves", spark_doc, duck_doc)

    def micros(score):
        # Exact decimal value of the double product, rounded half away from zero.
        return int(Decimal(score * 1_000_000).to_integral_value(rounding=ROUND_HALF_UP))

    expected = (sum(micros(s) for s in base), sum(micros(s) for s in cand))
    got = (spark_doc["overall"]["baseline_sum_micros"], spark_doc["overall"]["candidate_sum_micros"])
    assert got == expected, f"halves: sums {got}, exact decimal arithmetic says {expected}"
    duck.decides_as_admit(binary, "halves", len(HALVES), f"{folder}/summary.spark.json", folder, [])
    passed(f"half micro-units: sums {got} equal exact decimal rounding; Spark equals DuckDB, "
          f"{account}; admit --summary equals admit")

    # Unpaired arms: counted as DuckDB counts them, refused as admit refuses the files.
    folder = f"{work}/small-exact"
    duck.write_unpaired(con, folder)
    spark_doc, duck_doc, _ = both(
        spark, sql_file, f"{folder}/base-twice.parquet", f"{folder}/cand-short.parquet",
        f"{folder}/unpaired",
    )
    assert spark_doc["pairing"] == duck_doc["pairing"], (spark_doc["pairing"], duck_doc["pairing"])
    duck.refuses_unpaired(binary, f"{folder}/unpaired.spark.json")
    passed(f"unpaired arms: pairing {spark_doc['pairing']} as DuckDB's; refused with exit 2")

    # A task whose two rows name different strata.
    con.execute(f"""COPY (SELECT * REPLACE (CASE WHEN task_id = 't00000005' THEN 'other'
                                                ELSE kind END AS kind)
                          FROM '{folder}/cand/*.parquet')
                    TO '{folder}/cand-moved.parquet' (FORMAT parquet)""")
    spark_doc, duck_doc, _ = both(
        spark, sql_file, f"{folder}/base/*.parquet", f"{folder}/cand-moved.parquet", f"{folder}/moved"
    )
    assert spark_doc["pairing"] == duck_doc["pairing"], (spark_doc["pairing"], duck_doc["pairing"])
    assert spark_doc["pairing"]["stratum_disagreements"] == 1, spark_doc["pairing"]
    status, _, err = duck.admit(binary, ["--summary", f"{folder}/moved.spark.json"])
    assert status == 2 and "1 task" in err, (status, err)
    passed(f"stratum disagreement: pairing {spark_doc['pairing']} as DuckDB's; refused with exit 2")

    # Inputs evogate's reader refuses stop with DuckDB's reason.
    for label, select in [
        ("score outside [0, 1]", "* REPLACE (score + 1 AS score)"),
        ("correct not 0 or 1", "*, 2 AS correct"),
        ("unanswered", "*, 0 AS answered"),
        ("repeats of items", "* REPLACE (task_id || '#2' AS task_id, task_id AS \"group\")"),
    ]:
        bad = f"{folder}/bad.parquet"
        con.execute(f"COPY (SELECT {select} FROM '{folder}/cand/*.parquet') TO '{bad}' (FORMAT parquet)")
        try:
            evogate.spark.summary(spark, f"{folder}/base/*.parquet", bad, f"{folder}/bad.json")
        except evogate.spark.SummaryError as error:
            reason = str(error)
        else:
            raise AssertionError(f"{label}: Spark wrote a document")
        try:
            duck.run_sql(sql_file, f"{folder}/base/*.parquet", bad, f"{folder}/bad.json")
        except duckdb.Error as error:
            assert reason in str(error), f"{label}: Spark `{reason}`, DuckDB `{error}`"
        else:
            raise AssertionError(f"{label}: DuckDB wrote a document")
        assert not os.path.exists(f"{folder}/bad.json"), label
        passed(f"refused input, {label}: Spark stops with DuckDB's reason `{reason}`")
    spark.stop()
    print(f"{len(PASSED)} passed, 0 failed")


if __name__ == "__main__":
    main()
