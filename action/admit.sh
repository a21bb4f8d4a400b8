#!/usr/bin/env bash
# The "evogate admit" step of action.yml. Every input arrives in the environment (never
# spliced into the script). It removes the report folder, runs `evogate admit`, and when
# LEDGER_BRANCH is set keeps the holdout ledger on that branch of LEDGER_REMOTE: fetch the
# branch, decide with its ledger, commit the appended ledger on top of the fetched tip and
# push without force, so the push succeeds only if nobody else pushed in between (the
# remote compares and swaps the branch). A rejected push decides again on the new ledger,
# whose attempt number and alpha have moved, so two jobs at once give attempts k and k+1.
# The step summary gets evogate's own Markdown, only when evogate exited 0 or 1.
set -euo pipefail

TRIES=${EVOGATE_LEDGER_TRIES:-10}

fail() {
  echo "error: $*" >&2
  exit 2
}

# One step output; the delimiter form, so no value can add another output.
output() {
  local delimiter
  delimiter="evogate_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"${GITHUB_OUTPUT:-/dev/null}"
}

# The report folder is removed before the run (a stale or planted admission.md must never
# reach the summary or the artifact), so it must not be the workspace or above it.
case "$REPORT_DIR" in
  "" | . | ./ | / | .. | ../* | */.. | */../*) fail "report-dir \`$REPORT_DIR\` cannot be removed safely: give a folder of its own, such as evogate-report" ;;
esac
report_abs=$(realpath -m -- "$REPORT_DIR")
for forbidden in / "$PWD" "${HOME:-/}" "${GITHUB_WORKSPACE:-/}"; do
  [ "$report_abs" != "$(realpath -m -- "$forbidden")" ] ||
    fail "report-dir \`$REPORT_DIR\` is $forbidden: give a folder of its own, such as evogate-report"
done
rm -rf -- "$REPORT_DIR"

# An artifact name unique per job, matrix entry and use of the action in the job.
artifact=${ARTIFACT_NAME:-"evogate-report-${JOB:-job}-${JOB_INDEX:-0}-${USE:-evogate}"}
artifact=$(printf '%s' "$artifact" | tr -c 'A-Za-z0-9._-' '-')
output artifact_name "$artifact"

args=(admit "--report-dir=$REPORT_DIR" "--alpha=$ALPHA" "--test=$TEST" "--zero-method=$ZERO_METHOD")
if [ -n "$SUMMARY" ]; then
  [ -z "$BASELINE$CANDIDATE" ] || fail "give summary, or baseline and candidate, not both"
  args+=("--summary=$SUMMARY")
else
  [ -n "$BASELINE" ] && [ -n "$CANDIDATE" ] || fail "give baseline and candidate (scores CSVs), or summary"
  args+=("--baseline=$BASELINE" "--candidate=$CANDIDATE")
fi
[ -z "$TASKS" ] || args+=("--tasks=$TASKS")
[ -z "$MANIFEST" ] || args+=("--manifest=$MANIFEST")
[ -z "$STRATA" ] || args+=("--strata=$STRATA")
[ -z "$MARGIN" ] || args+=("--margin=$MARGIN")
[ -z "$CLUSTER" ] || args+=("--cluster=$CLUSTER")
case "$ALLOW_MISSING" in
  true) args+=(--allow-missing) ;;
  false | "") ;;
  *) fail "allow-missing is \`$ALLOW_MISSING\`: give true or false" ;;
esac
# Split on whitespace only: no quotes, globs or expansions are interpreted.
read -r -a extra <<<"$EXTRA_ARGS" || true
args+=("${extra[@]}")

work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/evogate.XXXXXX")
summary="$work/summary.md"

status=0
decide() { # [--ledger=FILE]: runs evogate admit once; sets status
  rm -f -- "$summary"
  status=0
  GITHUB_STEP_SUMMARY="$summary" evogate "${args[@]}" "$@" || status=$?
}

if [ -z "$LEDGER_BRANCH" ]; then
  if [ -n "$LEDGER" ]; then
    [ -n "$MANIFEST" ] || fail "ledger needs manifest: the ledger counts attempts on the holdout the manifest records"
    decide "--ledger=$LEDGER"
  else
    decide
  fi
else
  [ -n "$LEDGER" ] || fail "ledger-branch needs ledger: the ledger file's path inside that branch (e.g. eval/ledger.jsonl)"
  [ -n "$MANIFEST" ] || fail "ledger needs manifest: the ledger counts attempts on the holdout the manifest records"
  ref="refs/heads/$LEDGER_BRANCH"
  git check-ref-format "$ref" || fail "ledger-branch \`$LEDGER_BRANCH\` is not a branch name"
  tracking="refs/evogate/ledger"
  pushed=""
  for try in $(seq 1 "$TRIES"); do
    # The branch's tip now, or none when the first attempt has yet to create it.
    base=$(git ls-remote -- "$LEDGER_REMOTE" "$ref" | cut -f1) ||
      fail "cannot read the ledger remote \`$LEDGER_REMOTE\`"
    mkdir -p -- "$(dirname -- "$LEDGER")"
    rm -f -- "$LEDGER"
    if [ -n "$base" ]; then
      git fetch --quiet --no-tags -- "$LEDGER_REMOTE" "+$ref:$tracking" ||
        fail "cannot fetch the ledger branch \`$LEDGER_BRANCH\`"
      base=$(git rev-parse "$tracking")
      if git cat-file -e "$base:$LEDGER" 2>/dev/null; then
        git cat-file blob "$base:$LEDGER" >"$LEDGER"
      fi
    fi
    before=""
    [ ! -f "$LEDGER" ] || before=$(git hash-object -- "$LEDGER")
    # The ledger is decided on at its path in the branch, so reports name that path.
    decide "--ledger=$LEDGER"
    [ "$status" -le 1 ] || break
    after=""
    [ ! -f "$LEDGER" ] || after=$(git hash-object -- "$LEDGER")
    if [ "$before" = "$after" ]; then
      echo "note: a repeated attempt: the ledger on \`$LEDGER_BRANCH\` is unchanged, nothing to push" >&2
      pushed=unchanged
      break
    fi
    index="$work/index"
    rm -f -- "$index"
    if [ -n "$base" ]; then
      GIT_INDEX_FILE="$index" git read-tree "$base"
    else
      GIT_INDEX_FILE="$index" git read-tree --empty
    fi
    blob=$(git hash-object -w -- "$LEDGER")
    GIT_INDEX_FILE="$index" git update-index --add --cacheinfo "100644,$blob,$LEDGER"
    tree=$(GIT_INDEX_FILE="$index" git write-tree)
    attempt=$(python -c 'import json,sys; print(json.load(open(sys.argv[1]))["ledger"]["attempt"])' "$REPORT_DIR/admission.json")
    parent=()
    [ -z "$base" ] || parent=(-p "$base")
    commit=$(
      GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-evogate} GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-evogate@localhost} \
        GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-evogate} GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-evogate@localhost} \
        git commit-tree "$tree" "${parent[@]}" -m "evogate ledger: attempt $attempt"
    )
    # No force: the remote takes the commit only while the branch is still at $base.
    if git push --quiet --no-verify -- "$LEDGER_REMOTE" "$commit:$ref" 2>"$work/push.err"; then
      pushed=yes
      echo "note: appended attempt $attempt to $LEDGER on the ledger branch \`$LEDGER_BRANCH\` (try $try)" >&2
      break
    fi
    echo "note: the ledger branch \`$LEDGER_BRANCH\` moved while this run decided (push rejected); deciding again on its new ledger (try $try of $TRIES)" >&2
    sleep "$((RANDOM % 3)).$((RANDOM % 10))"
  done
  if [ "$status" -le 1 ] && [ -z "$pushed" ]; then
    cat -- "$work/push.err" >&2 || true
    rm -rf -- "$REPORT_DIR"
    fail "could not append to the ledger branch \`$LEDGER_BRANCH\` in $TRIES tries; nothing was decided"
  fi
fi

if [ "$status" -le 1 ]; then
  output report_written true
  output report_dir "$REPORT_DIR"
  output summary_file "$summary"
  python - "$REPORT_DIR/admission.json" >"$work/outputs" <<'PY'
import json, sys
report = json.load(open(sys.argv[1], encoding="utf-8"))
def show(value):
    return "" if value is None else json.dumps(value)
print("verdict=" + report["verdict"])
print("p_improvement=" + show(report.get("p_improvement")))
print("tasks_needed=" + show(report.get("tasks_needed")))
print("ledger_attempt=" + show((report.get("ledger") or {}).get("attempt")))
PY
  while IFS='=' read -r name value; do output "$name" "$value"; done <"$work/outputs"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$summary" ]; then
    cat -- "$summary" >>"$GITHUB_STEP_SUMMARY"
  fi
fi
exit "$status"
