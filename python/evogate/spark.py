"""evogate's summary on Apache Spark: the sufficient statistics of an admission.

The same computation as the DuckDB text in ``sql/summary.sql``, step for step, written
as one ``evogate/summary/v1`` document (docs/summary.md) on which ``evogate admit
--summary`` decides. It runs wherever the scores live: on a cluster with
``spark-submit``, or in-process on a session you already have::

    spark-submit --master yarn python/evogate/spark.py \\
        'hdfs:///runs/base/*.parquet' 'hdfs:///runs/cand/*.parquet' summary.json

    import evogate.spark
    evogate.spark.summary(spark, "runs/base/*.parquet", "runs/cand/*.parquet", "summary.json")

It is a module rather than Spark SQL text because three steps are not SQL: the reader is
chosen by the file extension (a CSV needs its header option), an arm whose files lack an
optional column gets it as NULL (DuckDB's ``UNION ALL BY NAME``), and the document is
one file on the driver, written atomically, where ``INSERT OVERWRITE DIRECTORY`` would
write a folder of parts. Every statistic is still one Spark SQL statement, so the work
is distributed; only the document (a few kilobytes, or one entry per cluster) and the
sorted task ids (streamed through SHA-256, one partition at a time) reach the driver.

Scores enter as whole micro-units in 64-bit integers, ``CAST(round(score * 1000000) AS
BIGINT)``, and every sum is a ``BIGINT`` sum, so no float is ever added up. The pairing
is counted, never fixed: duplicates, tasks in one arm only and stratum disagreements
are written to ``pairing``, and evogate refuses the document when any is not 0.

Needs ``pyspark`` (tested with 4.0.1 in local mode); nothing else beyond the standard
library. ``import evogate`` does not import this module.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from typing import Any, Dict

__all__ = ["SummaryError", "summary", "main"]

SCHEMA = "evogate/summary/v1"

# File extensions and the Spark reader each means; a compression suffix is looked past.
_FORMATS = {".parquet": "parquet", ".csv": "csv", ".json": "json", ".jsonl": "json",
            ".ndjson": "json"}
_COMPRESSION = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst")

# Temporary views, prefixed so that a caller's own views are not replaced.
_ARMS = "evogate_arms"
_JOINED = "evogate_joined"


class SummaryError(Exception):
    """The inputs cannot give a summary (what evogate's reader would refuse); the
    message names the input and the fix, as the DuckDB SQL's ``error()`` does."""


# Unicode White_Space (Rust's char::is_whitespace), the characters evogate's reader trims
# from both ends of every cell and sql/summary.sql's evogate_trim removes: tab to
# carriage return, space, U+0085, no-break space and the rest. A Java regex, as Spark's.
_WHITESPACE = "[\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"


def identifier(column):
    """The identifier rule shared with evogate's reader and sql/summary.sql: a task id,
    stratum or group is the value as text with White_Space trimmed from both ends (and
    nothing else; Spark's ``trim``, like DuckDB's, would trim spaces only)."""
    from pyspark.sql import functions

    return functions.regexp_replace(
        column.cast("string"), f"^{_WHITESPACE}+|{_WHITESPACE}+\\z", ""
    )


def _format(path: str) -> str:
    name = path.lower()
    for suffix in _COMPRESSION:
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for extension, reader in _FORMATS.items():
        if name.endswith(extension):
            return reader
    raise SummaryError(
        f"{path}: cannot tell the format; name Parquet files *.parquet, CSV *.csv and "
        "JSON Lines *.json, *.jsonl or *.ndjson"
    )


def _read(spark, path: str):
    """One arm's files. CSV is read with its header and every value as text, so a task
    id such as `0042` keeps its zeros, as evogate reads it; a quoted value may hold a
    line break, kept as it is (a CR LF stays CR LF); and a quote inside a quoted value
    is written twice (RFC 4180, as evogate, DuckDB and Python's csv module read and
    write it), not after a backslash."""
    reader = _format(path)
    if reader == "csv":
        # multiLine: a quoted value may hold a line break, as evogate's reader allows.
        # escape '"': Spark's default escape is a backslash, which would read the id
        # `"q""uote"` as `q""uote` (quotes kept) where evogate reads `q"uote`, and so
        # give another holdout_sha256.
        # lineSep '\n': without it Spark detects the file's line end and turns a CR LF
        # inside a quoted value into LF (univocity's normalizeLineEndingsWithinQuotes,
        # which Spark turns off only when lineSep is given), so the id `"c\r\nd"` would
        # be `c\nd` and holdout_sha256 another.
        frame = (
            spark.read.option("header", "true")
            .option("multiLine", "true")
            .option("escape", '"')
            .option("lineSep", "\n")
            .csv(path)
        )
        return _without_row_end_cr(frame)
    if reader == "json":
        return spark.read.json(path)
    return spark.read.parquet(path)


def _without_row_end_cr(frame):
    """A CSV frame read with LF as the record end, with the CR of CR LF line ends taken
    off: it ends each row's last value (and the header's last name), where evogate reads
    it as part of the line end. An unquoted last value keeps no trailing CR, and one
    that is only that CR (an empty cell) is NULL, as an empty cell is."""
    from pyspark.sql import functions

    if not frame.columns:
        return frame
    last = frame.columns[-1]
    value = functions.col(f"`{last}`")
    trimmed = functions.regexp_replace(value, "\r\\z", "")
    return frame.withColumn(
        last, functions.when(trimmed == "", None).otherwise(trimmed)
    ).withColumnRenamed(last, last.rstrip("\r"))


def _arm(frame, arm: str):
    """One arm with every scores column present (NULL where its files lack one), the
    values typed as the DuckDB SQL types them. A value that is not a number (a score
    `abc`, a correct `true` in a CSV) is kept as a marker for the checks below rather
    than failing the cast, so the same checks run whether ANSI mode is on or off."""
    from pyspark.sql import functions

    present = {name.lower(): name for name in frame.columns}

    def raw(name: str) -> str:
        return f"`{present[name]}`" if name in present else "CAST(NULL AS STRING)"

    def text(name: str):
        return identifier(functions.expr(raw(name)))

    return frame.select(
        functions.lit(arm).alias("arm"),
        text("task_id").alias("task_id"),
        functions.expr(f"{raw('score')} IS NOT NULL").alias("score_given"),
        functions.expr(f"try_cast({raw('score')} AS DOUBLE)").alias("score"),
        # -1 marks a value other than 0 and 1, which the checks refuse.
        functions.expr(
            f"CASE WHEN {raw('correct')} IS NULL THEN NULL "
            f"WHEN try_cast({raw('correct')} AS DOUBLE) = 0 THEN 0 "
            f"WHEN try_cast({raw('correct')} AS DOUBLE) = 1 THEN 1 ELSE -1 END"
        ).alias("correct"),
        text("kind").alias("kind"),
        text("group").alias("grp"),
        functions.expr(
            f"try_cast({raw('answered')} AS DOUBLE) = 0 "
            f"OR lower(trim(CAST({raw('answered')} AS STRING))) = 'false'"
        ).alias("unanswered"),
    )


def _columns(spark) -> Dict[str, Any]:
    """Which columns each arm has (a column is present when any row has a value), and
    the counts the checks need: sql/summary.sql's `columns` table."""
    parts = []
    for arm in ("b", "c"):
        of = f"arm = '{arm}'"
        parts += [
            f"count_if({of}) AS {arm}_rows",
            f"count_if({of} AND task_id IS NOT NULL) AS {arm}_ids",
            f"count_if({of} AND score_given) AS {arm}_scores",
            f"count_if({of} AND score_given AND score IS NULL) AS {arm}_not_numbers",
            f"count_if({of} AND correct IS NOT NULL) AS {arm}_correct",
            f"count_if({of} AND kind IS NOT NULL) AS {arm}_kind",
            f"count_if({of} AND grp IS NOT NULL) AS {arm}_group",
            f"count_if({of} AND (score < 0 OR score > 1 OR isnan(score))) AS {arm}_outside",
            f"count_if({of} AND correct = -1) AS {arm}_not01",
            f"count_if({of} AND unanswered) AS {arm}_unanswered",
            f"count_if({of} AND task_id RLIKE '(?s)^.*#[1-9][0-9]*$' "
            f"AND grp = regexp_extract(task_id, '(?s)^(.*)#[1-9][0-9]*$', 1)) AS {arm}_repeats",
        ]
    return spark.sql(f"SELECT {', '.join(parts)} FROM {_ARMS}").first().asDict()


# Repeats of an item (task_id `<item>#<r>` whose group is `<item>`) are one unit to
# admit, which tests on items; a summary would count each row as a task.
_REPEATS = (
    "holds repeats of items (rows <item>#<r> whose group is the item), which a summary "
    "would count as independent tasks: run admit on the scores files, which tests on the "
    "items, or import with a reducer (--repeats mean) for one row per item"
)


def _check(cols: Dict[str, Any], baseline: str, candidate: str) -> None:
    """Inputs evogate's reader would refuse stop here, with sql/summary.sql's reasons."""
    c = cols
    checks = [
        (c["b_rows"] == 0, f"{baseline}: no rows"),
        (c["c_rows"] == 0, f"{candidate}: no rows"),
        (c["b_ids"] < c["b_rows"] or c["b_scores"] < c["b_rows"],
         f"{baseline}: every row needs task_id and score"),
        (c["c_ids"] < c["c_rows"] or c["c_scores"] < c["c_rows"],
         f"{candidate}: every row needs task_id and score"),
        (c["b_not_numbers"] + c["c_not_numbers"] > 0, "a score is not a number"),
        (c["b_outside"] + c["c_outside"] > 0, "a score is outside [0, 1]"),
        (c["b_not01"] + c["c_not01"] > 0, "a correct value is not 0 or 1"),
        (c["b_correct"] not in (0, c["b_rows"]), f"{baseline}: correct is missing on some rows"),
        (c["c_correct"] not in (0, c["c_rows"]), f"{candidate}: correct is missing on some rows"),
        (c["b_unanswered"] + c["c_unanswered"] > 0,
         "some tasks were not answered (answered = 0): run admit on the scores files, "
         "which refuses them or, with --allow-missing, decides on them as wrong answers"),
        (c["b_repeats"] > 0, f"{baseline}: {_REPEATS}"),
        (c["c_repeats"] > 0, f"{candidate}: {_REPEATS}"),
    ]
    for failed, reason in checks:
        if failed:
            raise SummaryError(reason)


def _sql_bool(value: bool) -> str:
    return "true" if value else "false"


def _joined_sql(cols: Dict[str, Any]) -> str:
    """Every task of either arm with both rows (a duplicated task joins more than once;
    such a document is refused, so its statistics do not matter)."""
    # The baseline's stratum when its files have the column, else the candidate's.
    stratum = "coalesce(b.kind, '')" if cols["b_kind"] > 0 else "coalesce(c.kind, '')"
    both_kinds = _sql_bool(cols["b_kind"] > 0 and cols["c_kind"] > 0)
    return f"""
        CREATE OR REPLACE TEMPORARY VIEW {_JOINED} AS
        SELECT coalesce(b.task_id, c.task_id) AS task_id,
               b.task_id IS NOT NULL AS in_b, c.task_id IS NOT NULL AS in_c,
               CAST(round(b.score * 1000000) AS BIGINT) AS bm,
               CAST(round(c.score * 1000000) AS BIGINT) AS cm,
               b.correct AS bc, c.correct AS cc,
               {stratum} AS stratum,
               {both_kinds} AND coalesce(b.kind, '') <> coalesce(c.kind, '') AS disagrees,
               coalesce(b.grp, c.grp) AS grp
        FROM (SELECT * FROM {_ARMS} WHERE arm = 'b') AS b
        FULL OUTER JOIN (SELECT * FROM {_ARMS} WHERE arm = 'c') AS c
          ON b.task_id = c.task_id"""


def _document_sql(cols: Dict[str, Any]) -> str:
    """The document as one JSON text: sql/summary.sql's pairing, sums, histogram,
    overall and clusters tables, then its final SELECT, in Spark's dialect."""
    both_correct = _sql_bool(cols["b_correct"] > 0 and cols["c_correct"] > 0)
    has_kind = _sql_bool(cols["b_kind"] + cols["c_kind"] > 0)

    def outcomes(prefix: str) -> str:
        return (f"CASE WHEN {both_correct} THEN named_struct("
                f"'both_right', {prefix}o_a, 'baseline_only', {prefix}o_b, "
                f"'candidate_only', {prefix}o_c, 'both_wrong', {prefix}o_d) END")

    return f"""
        WITH pairs AS (
          SELECT task_id, bm, cm, cm - bm AS d, bc, cc, stratum, grp
          FROM {_JOINED} WHERE in_b AND in_c),
        duplicates AS (
          SELECT count_if(arm = 'b') AS baseline_duplicates,
                 count_if(arm = 'c') AS candidate_duplicates
          FROM (SELECT arm FROM {_ARMS} GROUP BY arm, task_id HAVING count(*) > 1)),
        pairing AS (
          SELECT named_struct(
                   'baseline_rows', CAST({cols['b_rows']} AS BIGINT),
                   'candidate_rows', CAST({cols['c_rows']} AS BIGINT),
                   'baseline_duplicates', d.baseline_duplicates,
                   'candidate_duplicates', d.candidate_duplicates,
                   'baseline_only', count_if(in_b AND NOT in_c),
                   'candidate_only', count_if(in_c AND NOT in_b),
                   'stratum_disagreements', count_if(in_b AND in_c AND disagrees)) AS pairing
          FROM {_JOINED} CROSS JOIN duplicates AS d
          GROUP BY d.baseline_duplicates, d.candidate_duplicates),
        -- Per stratum (one stratum '' when unstratified): sums, outcomes, histogram.
        sums AS (
          SELECT stratum, count(*) AS n, CAST(sum(bm) AS BIGINT) AS bs,
                 CAST(sum(cm) AS BIGINT) AS cs,
                 count_if(bc = 1 AND cc = 1) AS o_a, count_if(bc = 1 AND cc = 0) AS o_b,
                 count_if(bc = 0 AND cc = 1) AS o_c, count_if(bc = 0 AND cc = 0) AS o_d
          FROM pairs GROUP BY stratum),
        histogram AS (
          SELECT stratum, d, count(*) AS k FROM pairs GROUP BY stratum, d),
        sets AS (
          SELECT s.*, h.differences FROM sums AS s
          JOIN (SELECT stratum, sort_array(collect_list(array(d, k))) AS differences
                FROM histogram GROUP BY stratum) AS h
            ON s.stratum = h.stratum),
        overall AS (
          SELECT named_struct(
                   'n', n, 'baseline_sum_micros', bs, 'candidate_sum_micros', cs,
                   'outcomes', {outcomes('sum_')},
                   'differences', (SELECT sort_array(collect_list(array(d, k)))
                                   FROM (SELECT d, CAST(sum(k) AS BIGINT) AS k
                                         FROM histogram GROUP BY d))) AS overall
          FROM (SELECT CAST(sum(n) AS BIGINT) AS n, CAST(sum(bs) AS BIGINT) AS bs,
                       CAST(sum(cs) AS BIGINT) AS cs,
                       CAST(sum(o_a) AS BIGINT) AS sum_o_a, CAST(sum(o_b) AS BIGINT) AS sum_o_b,
                       CAST(sum(o_c) AS BIGINT) AS sum_o_c, CAST(sum(o_d) AS BIGINT) AS sum_o_d
                FROM sums)),
        strata AS (
          SELECT CASE WHEN {has_kind} THEN named_struct(
                   'column', 'kind',
                   'values', sort_array(collect_list(named_struct(
                     'value', stratum, 'n', n, 'baseline_sum_micros', bs,
                     'candidate_sum_micros', cs, 'outcomes', {outcomes('')},
                     'differences', differences)))) END AS strata
          FROM sets),
        -- Clusters only when every pair has a group.
        clusters AS (
          SELECT CASE WHEN (SELECT count(grp) = count(*) FROM pairs) THEN
                   sort_array(collect_list(named_struct(
                     'group', grp, 'n', n, 'difference_sum_micros', ds))) END AS clusters
          FROM (SELECT grp, count(*) AS n, CAST(sum(d) AS BIGINT) AS ds
                FROM pairs GROUP BY grp))
        SELECT to_json(named_struct(
                 'schema', '{SCHEMA}',
                 'baseline', :baseline,
                 'candidate', :candidate,
                 'pairing', pairing,
                 'correct', named_struct('baseline', {_sql_bool(cols['b_correct'] > 0)},
                                         'candidate', {_sql_bool(cols['c_correct'] > 0)}),
                 'holdout_sha256', :holdout_sha256,
                 'overall', overall,
                 'strata', strata,
                 'clusters', clusters),
               map('ignoreNullFields', 'false')) AS document
        FROM pairing CROSS JOIN overall CROSS JOIN strata CROSS JOIN clusters"""


def _holdout_sha256(spark) -> str:
    """The ledger's holdout identity: SHA-256 of the sorted task ids of the pairs, one per
    line (no newline after the last). Spark sorts them (binary order of the UTF-8 bytes,
    as DuckDB and evogate sort) into ranges, joins each range into one text where it
    lies, and the driver hashes the texts in order, one at a time, so no machine holds
    all the ids. The order is checked where two ranges meet."""
    chunks = spark.sql(f"""
        SELECT part, array_join(sort_array(collect_list(task_id)), '\\n') AS ids
        FROM (SELECT spark_partition_id() AS part, task_id
              FROM (SELECT task_id FROM {_JOINED} WHERE in_b AND in_c ORDER BY task_id))
        GROUP BY part ORDER BY part""").toLocalIterator()
    digest = hashlib.sha256()
    last = None
    for chunk in chunks:
        ids = chunk["ids"]
        if not ids:
            continue
        first = ids.split("\n", 1)[0]
        if last is not None:
            if first.encode("utf-8") < last.encode("utf-8"):
                raise RuntimeError("Spark returned the task ids out of order; please report")
            digest.update(b"\n")
        digest.update(ids.encode("utf-8"))
        last = ids.rsplit("\n", 1)[-1]
    return digest.hexdigest()


def _write(out: str, text: str) -> None:
    """Writes the document on the driver atomically: a temporary file beside `out`,
    then a rename, so a reader never sees half a document."""
    folder = os.path.dirname(os.path.abspath(out))
    handle, temporary = tempfile.mkstemp(prefix=".evogate-summary-", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.write("\n")
        os.replace(temporary, out)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def summary(spark, baseline: str, candidate: str, out: str) -> None:
    """Writes the ``evogate/summary/v1`` document of `baseline` against `candidate` to
    `out` (a file on the driver).

    `baseline` and `candidate` are paths or globs Spark can read (local, HDFS, S3, ...)
    of Parquet, CSV (with a header) or JSON Lines, picked by the extension, holding the
    scores columns `task_id`, `score`, and optionally `correct` (0/1), `kind` (the
    strata) and `group` (the clusters). Raises :class:`SummaryError` for inputs
    evogate's reader would refuse (no rows, a score outside [0, 1], ...).
    """
    arms = _arm(_read(spark, baseline), "b").unionByName(_arm(_read(spark, candidate), "c"))
    arms.createOrReplaceTempView(_ARMS)
    try:
        cols = _columns(spark)
        _check(cols, baseline, candidate)
        spark.sql(_joined_sql(cols))
        spark.catalog.cacheTable(_JOINED)
        holdout = _holdout_sha256(spark)
        document = spark.sql(
            _document_sql(cols),
            args={"baseline": baseline, "candidate": candidate, "holdout_sha256": holdout},
        ).first()["document"]
        _write(out, document)
    finally:
        if spark.catalog.tableExists(_JOINED):
            spark.catalog.uncacheTable(_JOINED)
            spark.catalog.dropTempView(_JOINED)
        spark.catalog.dropTempView(_ARMS)


USAGE = """usage: spark-submit evogate/spark.py BASELINE CANDIDATE OUT

Writes the evogate/summary/v1 document of BASELINE against CANDIDATE (paths or globs of
Parquet, CSV with a header, or JSON Lines) to OUT on the driver; then run
`evogate admit --summary OUT`. Exit 0 written, 2 the inputs cannot give a summary."""


def main(argv=None) -> int:
    """spark-submit's entry: ``spark.py BASELINE CANDIDATE OUT``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or any(a in ("-h", "--help") for a in args):
        print(USAGE, file=sys.stdout if args[:1] in (["-h"], ["--help"]) else sys.stderr)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("evogate summary").getOrCreate()
    try:
        summary(spark, *args)
    except SummaryError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
