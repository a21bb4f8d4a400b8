"""DuckDB + `admit --summary` against `admit` on CSV, at the sizes given.

Writes the pairs (kind in three strata, groups of four, McNemar's `correct`) as 8
Parquet shards per arm and as two CSV files, then runs, twice and alternating:
the shipped SQL in DuckDB (2 threads), `admit --summary` on its document, and `admit`
on the CSV files, each under /usr/bin/time -v. Prints a Markdown fragment.

Usage: summary.py EVOGATE SQL_FILE WORK_DIR N [N ...]
"""

import os
import platform
import re
import shutil
import subprocess
import sys

import duckdb

SHARDS = 8
ROUNDS = 2


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


def timed(command, stdin=None):
    """Wall seconds and peak resident MB of one run, and its exit status."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", *command],
        input=stdin,
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
        for round_ in range(1, ROUNDS + 1):
            sql_s, sql_mb, status = timed(runner, stdin=sql)
            assert status == 0, "the SQL failed"
            sum_s, sum_mb, s_status = timed([binary, "admit", "--summary", f"{folder}/summary.json"])
            raw_s, raw_mb, r_status = timed(
                [binary, "admit", "--baseline", f"{folder}/base.csv", "--candidate", f"{folder}/cand.csv"]
            )
            assert s_status == r_status and s_status in (0, 1), (s_status, r_status)
            rows.append((n, round_, sql_s, sql_mb, sum_s, sum_mb, raw_s, raw_mb))
        shutil.rmtree(folder)
    print("## DuckDB + `admit --summary` against `admit` on CSV (`benches/summary.sh`)\n")
    print(
        f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs, DuckDB "
        f"{duckdb.__version__} on 2 threads, release build. Pairs with `kind` (3 strata), "
        "`group` (4 tasks each) and `correct`; DuckDB reads 8 Parquet shards per arm, "
        "`admit` two CSV files of the same pairs. Wall time in seconds, peak resident "
        "memory in MB (`/usr/bin/time -v`); the two paths alternate, two rounds.\n"
    )
    print("| pairs | round | DuckDB SQL | `admit --summary` | DuckDB + summary | `admit` on CSV | time ratio |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n, r, sql_s, sql_mb, sum_s, sum_mb, raw_s, raw_mb in rows:
        both = sql_s + sum_s
        print(
            f"| {n:,} | {r} | {sql_s:.1f} s, {sql_mb:.0f} MB | {sum_s:.2f} s, {sum_mb:.0f} MB "
            f"| {both:.1f} s, {max(sql_mb, sum_mb):.0f} MB | {raw_s:.1f} s, {raw_mb:.0f} MB "
            f"| {raw_s / both:.2f}× |"
        )


if __name__ == "__main__":
    main()
