"""Spark and DuckDB + `admit --summary` against `admit` on CSV, at the sizes given.

Writes the pairs (kind in three strata, groups of four, McNemar's `correct`) as 8
Parquet shards per arm and as two CSV files, then runs, twice and alternating:
python/evogate/spark.py under spark-submit in local mode (local[2]), the shipped SQL in
DuckDB (2 threads), `admit --summary` on each document, and `admit` on the CSV files,
each under /usr/bin/time -v. The two documents must be equal after sorting and decide
as `admit` does. Prints a Markdown fragment.

Usage: summary.py EVOGATE SQL_FILE WORK_DIR N [N ...]
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import json
import os
import platform
import re
import shutil
import subprocess
import sys

import duckdb
import pyspark

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "spark"))
from check_spark import sorted_document  # noqa: E402  (tests/spark/check_spark.py)

SHARDS = 8
# Rounds per size: SUMMARY_ROUNDS, default 2.
ROUNDS = int(os.environ.get("SUMMARY_ROUNDS", "2"))
# Spark in local mode is one JVM; its heap must hold the cached join of 10^7 pairs.
SPARK_MEMORY = "6g"
# Shuffle partitions for 2 local cores; Spark's default of 200 is sized for a cluster
# (each map task of 200 writes a file per reducer).
SPARK_PARTITIONS = 16


def write(folder, n):
    os.makedirs(f"{folder}/base", exist_ok=True)
    os.makedirs(f"{folder}/cand", exist_ok=True)
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute(f"""
        CREATE TABLE rows AS
        SELECT 't' || lpad(i::VARCHAR, 9, '0') AS task_id,
               ['id', 'year', 'title'][(1 + hash(i, 'k') % 3)::BIGINT] AS kind,
               'g' || lpad((i // 4)::VARCHAR, 8, '0') AS "group",
               (hash(i, 'b') % 100 < 60)::INTEGER AS bc,
               (hash(i, 'c') % 100 < 61)::INTEGER AS cc
        FROM range({n}) AS t(i)""")
    for arm, column in [("base", "bc"), ("cand", "cc")]:
        select = f'SELECT task_id, kind, "group", {column} AS correct, {column} AS score FROM rows'
        for shard in range(SHARDS):
            con.execute(f"""COPY ({select} WHERE hash(task_id, 's') % {SHARDS} = {shard})
                            TO '{folder}/{arm}/part-{shard}.parquet' (FORMAT parquet)""")
        con.execute(f"COPY ({select} ORDER BY task_id) TO '{folder}/{arm}.csv' (HEADER)")


def timed(command, stdin=None, env=None):
    """Wall seconds and peak resident MB of one run, and its exit status."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", *command],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", done.stderr).group(1)
    parts = [float(p) for p in wall.split(":")]
    seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return seconds, peak / 1024, done.returncode


def main():
    binary, sql_file, work = sys.argv[1:4]
    sizes = [int(n) for n in sys.argv[4:]]
    rows = []
    for n in sizes:
        folder = f"{work}/n{n}"
        shutil.rmtree(folder, ignore_errors=True)
        write(folder, n)
        text = open(sql_file, encoding="utf-8").read()
        sql = "SET threads = 2;\n" + (
            text.replace("{baseline}", f"{folder}/base/*.parquet")
            .replace("{candidate}", f"{folder}/cand/*.parquet")
            .replace("{out}", f"{folder}/summary.json")
        )
        runner = [sys.executable, "-c", "import duckdb, sys; duckdb.connect().execute(sys.stdin.read())"]
        # spark-submit finds pyspark (and runs the module) with the venv's python3.
        venv_bin = os.path.dirname(sys.executable)
        spark_env = {**os.environ, "PATH": f"{venv_bin}:{os.environ['PATH']}"}
        spark_submit = [
            f"{venv_bin}/spark-submit", "--master", "local[2]",
            "--driver-memory", SPARK_MEMORY, "--conf", "spark.ui.enabled=false",
            "--conf", "spark.ui.showConsoleProgress=false",
            "--conf", f"spark.sql.shuffle.partitions={SPARK_PARTITIONS}", "python/evogate/spark.py",
            f"{folder}/base/*.parquet", f"{folder}/cand/*.parquet", f"{folder}/spark.json",
        ]
        raw_admit = [binary, "admit", "--baseline", f"{folder}/base.csv", "--candidate", f"{folder}/cand.csv"]
        for round_ in range(1, ROUNDS + 1):
            spark_s, spark_mb, status = timed(spark_submit, env=spark_env)
            assert status == 0, "spark-submit failed"
            sql_s, sql_mb, status = timed(runner, stdin=sql)
            assert status == 0, "the SQL failed"
            spark_doc = json.load(open(f"{folder}/spark.json", encoding="utf-8"))
            duck_doc = json.load(open(f"{folder}/summary.json", encoding="utf-8"))
            for doc in (spark_doc, duck_doc):
                doc.pop("baseline"), doc.pop("candidate")
            assert sorted_document(spark_doc) == sorted_document(duck_doc), "Spark's document differs"
            sum_s, sum_mb, s_status = timed([binary, "admit", "--summary", f"{folder}/summary.json"])
            spark_sum = subprocess.run([binary, "admit", "--summary", f"{folder}/spark.json"],
                                       capture_output=True, check=False)
            raw_s, raw_mb, r_status = timed(raw_admit)
            assert s_status == r_status == spark_sum.returncode and s_status in (0, 1), (
                s_status, r_status, spark_sum.returncode)
            rows.append((n, round_, spark_s, spark_mb, sql_s, sql_mb, sum_s, sum_mb, raw_s, raw_mb))
        shutil.rmtree(folder)
    print("## Spark and DuckDB + `admit --summary` against `admit` on CSV (`benches/summary.sh`)\n")
    load = os.getloadavg()[0]
    print(
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs (load average "
        f"{load:.0f} when the table was printed), release build. "
        f"Spark {pyspark.__version__} in local mode (`spark-submit --master local[2] "
        f"--driver-memory {SPARK_MEMORY} --conf spark.sql.shuffle.partitions={SPARK_PARTITIONS}` "
        f"python/evogate/spark.py, Java "
        f"{java_version()}), DuckDB {duckdb.__version__} on 2 threads. Pairs with `kind` "
        "(3 strata), `group` (4 tasks each) and `correct`; Spark and DuckDB read the same 8 "
        "Parquet shards per arm, `admit` two CSV files of the same pairs. Wall time in "
        "seconds, peak resident memory in MB of the largest process (`/usr/bin/time -v`; "
        "for Spark the JVM, which runs driver and executors in local mode); Spark, DuckDB, "
        f"`admit --summary` on DuckDB's document and `admit` alternate, {ROUNDS} round(s) "
        "per size. In every round the two documents are equal after sorting and all three decisions "
        "agree.\n"
    )
    print("| pairs | round | Spark local[2] | DuckDB SQL | `admit --summary` | `admit` on CSV |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, r, spark_s, spark_mb, sql_s, sql_mb, sum_s, sum_mb, raw_s, raw_mb in rows:
        print(
            f"| {n:,} | {r} | {spark_s:.1f} s, {spark_mb:.0f} MB | {sql_s:.1f} s, {sql_mb:.0f} MB "
            f"| {sum_s:.2f} s, {sum_mb:.0f} MB | {raw_s:.1f} s, {raw_mb:.0f} MB |"
        )


def java_version():
    done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    return re.search(r'version "([^"]+)"', done.stderr).group(1)


if __name__ == "__main__":
    main()
