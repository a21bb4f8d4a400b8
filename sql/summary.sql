-- evogate summary, DuckDB dialect (tested with DuckDB 1.1.3): the sufficient statistics
-- of an admission, written as one JSON document of schema evogate/summary/v1
-- (docs/summary.md) for `evogate admit --summary {out}`.
--
-- Placeholders, replaced before running: {baseline} and {candidate} are files or globs
-- of Parquet, CSV or JSON Lines (DuckDB picks the reader by extension) with the scores
-- columns task_id, score, and optionally correct (0/1), kind (the strata) and group
-- (the clusters); {out} is the document to write. A path must not hold a single quote.
--
--   sed -e 's#{baseline}#runs/base/*.parquet#' -e 's#{candidate}#runs/cand/*.parquet#' \
--       -e 's#{out}#summary.json#' sql/summary.sql | duckdb
--
-- Scores enter in whole micro-units, round(score * 10^6), as evogate reads them.
-- The pairing check is counted, never fixed: duplicates, tasks in one arm only and
-- strata disagreements are written to `pairing`, and evogate refuses the document
-- when any is not 0.

-- Identifiers are trimmed as evogate's reader trims every cell: every Unicode
-- White_Space character (Rust's char::is_whitespace: tab, line feed, vertical tab, form
-- feed, carriage return, space, U+0085, no-break space and the rest) at either end, and
-- nothing else. DuckDB's trim() removes spaces only, so a task id `x<TAB>` would not
-- pair with `x` here while it does in `admit`. tests/it checks this class against
-- char::is_whitespace for every character.
CREATE OR REPLACE TEMP MACRO evogate_trim(x) AS regexp_replace(x,
  '^[\x{9}-\x{d}\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+|[\x{9}-\x{d}\x{20}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+$',
  '', 'g');

-- Both arms in one table, each row tagged with its arm, every optional column present
-- (NULL when an arm's files lack it); arm_b and arm_c are its two halves.
CREATE OR REPLACE TEMP TABLE arms AS
SELECT evogate_arm AS arm,
       evogate_trim(CAST(task_id AS VARCHAR)) AS task_id,
       CAST(score AS DOUBLE) AS score,
       CAST(correct AS INTEGER) AS correct,
       evogate_trim(CAST(kind AS VARCHAR)) AS kind,
       evogate_trim(CAST("group" AS VARCHAR)) AS grp,
       CAST(answered AS INTEGER) AS answered
FROM (SELECT 'b' AS evogate_arm, * FROM '{baseline}'
      UNION ALL BY NAME
      SELECT 'c' AS evogate_arm, * FROM '{candidate}'
      UNION ALL BY NAME
      SELECT NULL AS evogate_arm, NULL AS task_id, NULL AS score, NULL AS correct,
             NULL AS kind, NULL AS "group", NULL AS answered
      WHERE false);

CREATE OR REPLACE TEMP VIEW arm_b AS SELECT * EXCLUDE (arm) FROM arms WHERE arm = 'b';
CREATE OR REPLACE TEMP VIEW arm_c AS SELECT * EXCLUDE (arm) FROM arms WHERE arm = 'c';

-- Which columns each arm has: a column is present when any row has a value.
CREATE OR REPLACE TEMP TABLE columns AS
SELECT b.*, c.* FROM
  (SELECT count(*) AS b_rows, count(task_id) AS b_ids, count(score) AS b_scores,
          count(correct) AS b_correct, count(kind) AS b_kind, count(grp) AS b_group,
          count_if(score < 0 OR score > 1 OR isnan(score))::BIGINT AS b_outside,
          count_if(correct NOT IN (0, 1))::BIGINT AS b_not01,
          count_if(answered = 0)::BIGINT AS b_unanswered,
          count_if(regexp_full_match(task_id, '(?s).*#[1-9][0-9]*')
                   AND grp = regexp_extract(task_id, '(?s)^(.*)#[1-9][0-9]*$', 1))::BIGINT
            AS b_repeats
   FROM arm_b) AS b,
  (SELECT count(*) AS c_rows, count(task_id) AS c_ids, count(score) AS c_scores,
          count(correct) AS c_correct, count(kind) AS c_kind, count(grp) AS c_group,
          count_if(score < 0 OR score > 1 OR isnan(score))::BIGINT AS c_outside,
          count_if(correct NOT IN (0, 1))::BIGINT AS c_not01,
          count_if(answered = 0)::BIGINT AS c_unanswered,
          count_if(regexp_full_match(task_id, '(?s).*#[1-9][0-9]*')
                   AND grp = regexp_extract(task_id, '(?s)^(.*)#[1-9][0-9]*$', 1))::BIGINT
            AS c_repeats
   FROM arm_c) AS c;

-- Inputs evogate's reader would refuse stop here with a reason.
SELECT CASE
  WHEN b_rows = 0 THEN error('{baseline}: no rows')
  WHEN c_rows = 0 THEN error('{candidate}: no rows')
  WHEN b_ids < b_rows OR b_scores < b_rows THEN error('{baseline}: every row needs task_id and score')
  WHEN c_ids < c_rows OR c_scores < c_rows THEN error('{candidate}: every row needs task_id and score')
  WHEN b_outside + c_outside > 0 THEN error('a score is outside [0, 1]')
  WHEN b_not01 + c_not01 > 0 THEN error('a correct value is not 0 or 1')
  WHEN b_correct NOT IN (0, b_rows) THEN error('{baseline}: correct is missing on some rows')
  WHEN c_correct NOT IN (0, c_rows) THEN error('{candidate}: correct is missing on some rows')
  -- A summary has no answered column: unanswered tasks (score --allow-missing) are for
  -- admit on the files to judge (answers-complete, or --allow-missing).
  WHEN b_unanswered + c_unanswered > 0 THEN
    error('some tasks were not answered (answered = 0): run admit on the scores files, which refuses them or, with --allow-missing, decides on them as wrong answers')
  -- Repeats of an item (task_id <item>#<r>, r from 1 without a leading zero, group
  -- <item>: docs/formats.md#repeats) are one unit to admit, which tests on items; a
  -- summary would count each row as a task.
  WHEN b_repeats > 0 THEN error('{baseline}: holds repeats of items (rows <item>#<r> whose group is the item), which a summary would count as independent tasks: run admit on the scores files, which tests on the items, or import with a reducer (--repeats mean) for one row per item')
  WHEN c_repeats > 0 THEN error('{candidate}: holds repeats of items (rows <item>#<r> whose group is the item), which a summary would count as independent tasks: run admit on the scores files, which tests on the items, or import with a reducer (--repeats mean) for one row per item')
END FROM columns;

-- Every task of either arm with both rows (a duplicated task joins more than once;
-- such a document is refused, so its statistics do not matter).
CREATE OR REPLACE TEMP TABLE joined AS
SELECT coalesce(b.task_id, c.task_id) AS task_id,
       b.task_id IS NOT NULL AS in_b, c.task_id IS NOT NULL AS in_c,
       round(b.score * 1000000)::BIGINT AS bm, round(c.score * 1000000)::BIGINT AS cm,
       b.correct AS bc, c.correct AS cc,
       -- The baseline's stratum when its file has the column, else the candidate's.
       CASE WHEN (SELECT b_kind FROM columns) > 0 THEN coalesce(b.kind, '')
            ELSE coalesce(c.kind, '') END AS stratum,
       (SELECT b_kind > 0 AND c_kind > 0 FROM columns)
         AND coalesce(b.kind, '') <> coalesce(c.kind, '') AS disagrees,
       coalesce(b.grp, c.grp) AS grp
FROM arm_b AS b FULL OUTER JOIN arm_c AS c ON b.task_id = c.task_id;

CREATE OR REPLACE TEMP TABLE pairs AS
SELECT task_id, bm, cm, cm - bm AS d, bc, cc, stratum, grp
FROM joined WHERE in_b AND in_c;

CREATE OR REPLACE TEMP TABLE pairing AS
SELECT (SELECT b_rows FROM columns) AS baseline_rows,
       (SELECT c_rows FROM columns) AS candidate_rows,
       (SELECT count(*) FROM (SELECT task_id FROM arm_b GROUP BY task_id HAVING count(*) > 1))
         AS baseline_duplicates,
       (SELECT count(*) FROM (SELECT task_id FROM arm_c GROUP BY task_id HAVING count(*) > 1))
         AS candidate_duplicates,
       count_if(in_b AND NOT in_c)::BIGINT AS baseline_only,
       count_if(in_c AND NOT in_b)::BIGINT AS candidate_only,
       count_if(in_b AND in_c AND disagrees)::BIGINT AS stratum_disagreements
FROM joined;

-- Per stratum (one stratum '' when unstratified): sums, outcomes, histogram.
CREATE OR REPLACE TEMP TABLE sums AS
SELECT stratum, count(*) AS n, sum(bm)::BIGINT AS bs, sum(cm)::BIGINT AS cs,
       count_if(bc = 1 AND cc = 1)::BIGINT AS o_a, count_if(bc = 1 AND cc = 0)::BIGINT AS o_b,
       count_if(bc = 0 AND cc = 1)::BIGINT AS o_c, count_if(bc = 0 AND cc = 0)::BIGINT AS o_d
FROM pairs GROUP BY stratum;

CREATE OR REPLACE TEMP TABLE histogram AS
SELECT stratum, d, count(*) AS k FROM pairs GROUP BY stratum, d;

CREATE OR REPLACE TEMP TABLE sets AS
SELECT s.*, h.differences FROM sums AS s
JOIN (SELECT stratum, list([d, k] ORDER BY d) AS differences FROM histogram GROUP BY stratum) AS h
  USING (stratum);

CREATE OR REPLACE TEMP TABLE overall AS
SELECT (SELECT sum(n)::BIGINT FROM sums) AS n,
       (SELECT sum(bs)::BIGINT FROM sums) AS bs,
       (SELECT sum(cs)::BIGINT FROM sums) AS cs,
       (SELECT sum(o_a)::BIGINT FROM sums) AS o_a, (SELECT sum(o_b)::BIGINT FROM sums) AS o_b,
       (SELECT sum(o_c)::BIGINT FROM sums) AS o_c, (SELECT sum(o_d)::BIGINT FROM sums) AS o_d,
       (SELECT list([d, k] ORDER BY d)
        FROM (SELECT d, sum(k)::BIGINT AS k FROM histogram GROUP BY d)) AS differences;

CREATE OR REPLACE TEMP TABLE clusters AS
SELECT grp, count(*) AS n, sum(d)::BIGINT AS ds FROM pairs GROUP BY grp;

COPY (
  SELECT
    'evogate/summary/v1' AS schema,
    '{baseline}' AS baseline,
    '{candidate}' AS candidate,
    (SELECT {'baseline_rows': baseline_rows, 'candidate_rows': candidate_rows,
             'baseline_duplicates': baseline_duplicates,
             'candidate_duplicates': candidate_duplicates,
             'baseline_only': baseline_only, 'candidate_only': candidate_only,
             'stratum_disagreements': stratum_disagreements}
     FROM pairing) AS pairing,
    {'baseline': cols.b_correct > 0, 'candidate': cols.c_correct > 0} AS correct,
    -- The ledger's holdout identity: SHA-256 of the sorted task ids, one per line.
    (SELECT sha256(string_agg(task_id, chr(10) ORDER BY task_id)) FROM pairs) AS holdout_sha256,
    (SELECT {'n': n, 'baseline_sum_micros': bs, 'candidate_sum_micros': cs,
             'outcomes': CASE WHEN cols.b_correct > 0 AND cols.c_correct > 0 THEN
               {'both_right': o_a, 'baseline_only': o_b, 'candidate_only': o_c,
                'both_wrong': o_d} END,
             'differences': differences}
     FROM overall) AS overall,
    CASE WHEN cols.b_kind + cols.c_kind > 0 THEN
      {'column': 'kind',
       'values': (SELECT list({'value': stratum, 'n': n, 'baseline_sum_micros': bs,
                               'candidate_sum_micros': cs,
                               'outcomes': CASE WHEN cols.b_correct > 0 AND cols.c_correct > 0 THEN
                                 {'both_right': o_a, 'baseline_only': o_b,
                                  'candidate_only': o_c, 'both_wrong': o_d} END,
                               'differences': differences} ORDER BY stratum)
                  FROM sets)}
    END AS strata,
    -- Clusters only when every pair has a group.
    CASE WHEN (SELECT count(grp) = count(*) FROM pairs) THEN
      (SELECT list({'group': grp, 'n': n, 'difference_sum_micros': ds} ORDER BY grp)
       FROM clusters)
    END AS clusters
  FROM columns AS cols
) TO '{out}' (FORMAT json);
