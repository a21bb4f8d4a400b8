"""The parts of evogate.spark that run without Spark: it imports without pyspark, picks
the reader by extension, refuses what evogate's reader refuses with the DuckDB SQL's
reasons, and spark-submit's entry teaches its usage. tests/spark/run.sh runs the rest
in Spark's local mode."""

import pytest

import evogate.spark as spark_summary


def columns(**changes):
    """The `columns` counts of two clean arms of 10 rows with `correct` and `kind`."""
    counts = {}
    for arm in ("b", "c"):
        counts.update({f"{arm}_rows": 10, f"{arm}_ids": 10, f"{arm}_scores": 10,
                       f"{arm}_not_numbers": 0, f"{arm}_correct": 10, f"{arm}_kind": 10,
                       f"{arm}_group": 0, f"{arm}_outside": 0, f"{arm}_not01": 0,
                       f"{arm}_unanswered": 0, f"{arm}_repeats": 0})
    counts.update(changes)
    return counts


@pytest.mark.parametrize(
    "path, reader",
    [("runs/base/*.parquet", "parquet"), ("runs/base.CSV", "csv"),
     ("s3://bucket/base/part-*.csv.gz", "csv"), ("base.jsonl", "json"),
     ("base.ndjson.bz2", "json"), ("base.json", "json")],
)
def test_the_reader_is_picked_by_the_extension_past_a_compression_suffix(path, reader):
    assert spark_summary._format(path) == reader


def test_an_unknown_extension_is_refused_naming_the_path_and_the_extensions():
    with pytest.raises(spark_summary.SummaryError, match=r"runs/base/\*\.txt: cannot tell the format.*\*\.parquet"):
        spark_summary._format("runs/base/*.txt")


def test_clean_counts_pass_the_checks():
    spark_summary._check(columns(), "base", "cand")


@pytest.mark.parametrize(
    "changes, reason",
    [({"b_rows": 0}, "base: no rows"),
     ({"c_ids": 9}, "cand: every row needs task_id and score"),
     ({"b_not_numbers": 1}, "a score is not a number"),
     ({"c_outside": 2}, r"a score is outside \[0, 1\]"),
     ({"b_not01": 1}, "a correct value is not 0 or 1"),
     ({"c_correct": 3}, "cand: correct is missing on some rows"),
     ({"b_unanswered": 1}, r"some tasks were not answered \(answered = 0\)"),
     ({"b_repeats": 3}, r"base: holds repeats of items .*run admit on the scores files"),
     ({"c_repeats": 1}, r"cand: holds repeats of items .*--repeats mean")],
)
def test_counts_evogate_would_refuse_stop_with_the_sql_reason(changes, reason):
    with pytest.raises(spark_summary.SummaryError, match=reason):
        spark_summary._check(columns(**changes), "base", "cand")


def test_an_arm_without_correct_passes_and_the_document_gives_no_outcomes():
    counts = columns(c_correct=0)
    spark_summary._check(counts, "base", "cand")
    assert "CASE WHEN false THEN named_struct('both_right'" in spark_summary._document_sql(counts)


def test_the_entry_teaches_its_usage_and_exits_2_on_wrong_arguments(capsys):
    assert spark_summary.main(["--help"]) == 0
    assert "usage: spark-submit evogate/spark.py BASELINE CANDIDATE OUT" in capsys.readouterr().out
    assert spark_summary.main(["only-one"]) == 2
    assert "usage:" in capsys.readouterr().err


def code_points(regex_class, escape):
    """The code points of a regex character class `[...]` of single characters and
    ranges, each written as `escape` matches (a hex code point) or as itself."""
    import re

    body = regex_class[regex_class.index("[") + 1 : regex_class.index("]")]
    items = [match.group(0) for match in re.finditer(escape + "|.", body)]

    def value(item):
        if item in ("\\t", "\\r"):
            return {"\\t": 9, "\\r": 13}[item]
        match = re.fullmatch(escape, item)
        return int(match.group(1), 16) if match else ord(item)

    points, i = set(), 0
    while i < len(items):
        if i + 2 < len(items) and items[i + 1] == "-":
            points.update(range(value(items[i]), value(items[i + 2]) + 1))
            i += 3
        else:
            points.add(value(items[i]))
            i += 1
    return points


def test_identifiers_are_trimmed_of_the_same_characters_as_the_duckdb_sql():
    from pathlib import Path

    sql = (Path(__file__).resolve().parents[2] / "sql" / "summary.sql").read_text(encoding="utf-8")
    duckdb_class = sql[sql.index("'^[") + 2 :]
    duckdb = code_points(duckdb_class, r"\\x\{([0-9a-f]+)\}")
    spark = code_points(spark_summary._WHITESPACE, r"\\u([0-9a-f]{4})|\\[tr]")
    assert duckdb == spark
    # Unicode White_Space, as Rust's char::is_whitespace: 25 characters.
    assert len(spark) == 25 and {0x9, 0x20, 0x85, 0xA0, 0x3000} <= spark
