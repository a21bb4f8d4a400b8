"""The "Comment on the pull request" step of action.yml: writes the report evogate put
in the step summary as one comment on the pull request, and on later runs edits that
comment in place rather than adding another. The comment is found by a hidden marker
naming this use of the action (its artifact name) and by its author, who must be the
token's own identity: anyone can write a comment that starts with the marker, and such a
comment is never edited (a new one is written instead). Inputs come from the environment:
COMMENT ("true" to comment), GITHUB_TOKEN, REPORT_MARKDOWN (the summary file; empty when
evogate could not decide), MARKER, and the runner's GITHUB_API_URL, GITHUB_REPOSITORY
and GITHUB_EVENT_PATH. Standard library only."""

import json
import os
import sys
import urllib.error
import urllib.request

# GitHub refuses comment bodies past 65,536 characters.
LIMIT = 65_000

# The author of comments written with the job's own token (GITHUB_TOKEN), which cannot
# read `GET /user`.
ACTIONS_BOT = "github-actions[bot]"


def request(method, url, token, body=None):
    data = None if body is None else json.dumps(body).encode("utf-8")
    call = urllib.request.Request(url, data=data, method=method)
    call.add_header("Authorization", f"Bearer {token}")
    call.add_header("Accept", "application/vnd.github+json")
    call.add_header("X-GitHub-Api-Version", "2022-11-28")
    if data is not None:
        call.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(call, timeout=30) as answer:
        return json.loads(answer.read().decode("utf-8") or "null")


def identity(api, token):
    """The login comments written with `token` carry: the token's user when `GET /user`
    answers (a personal access token), else the job token's github-actions[bot]."""
    try:
        login = (request("GET", f"{api}/user", token) or {}).get("login")
    except (urllib.error.URLError, OSError, ValueError, AttributeError):
        login = None
    return login if isinstance(login, str) and login else ACTIONS_BOT


def ours(comment, marker, login):
    """Whether `comment` is the one this use of the action wrote: it starts with the
    marker and its author is `login`."""
    author = (comment.get("user") or {}).get("login")
    return author == login and (comment.get("body") or "").startswith(marker + "\n")


def pull_request_number(event_path):
    if not event_path or not os.path.isfile(event_path):
        return None
    with open(event_path, encoding="utf-8") as handle:
        event = json.load(handle)
    for key in ("pull_request", "issue"):
        number = (event.get(key) or {}).get("number")
        if isinstance(number, int):
            return number
    return None


def main():
    if os.environ.get("COMMENT", "false") != "true":
        return 0
    report = os.environ.get("REPORT_MARKDOWN", "")
    if not report or not os.path.isfile(report):
        print("note: evogate wrote no report, so the pull request gets no comment", file=sys.stderr)
        return 0
    number = pull_request_number(os.environ.get("GITHUB_EVENT_PATH"))
    if number is None:
        print("note: this run is not for a pull request; no comment", file=sys.stderr)
        return 0
    token = os.environ.get("GITHUB_TOKEN", "")
    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repository = os.environ["GITHUB_REPOSITORY"]
    marker = f"<!-- evogate-admit {os.environ.get('MARKER', 'evogate')} -->"
    with open(report, encoding="utf-8") as handle:
        text = handle.read()
    if len(text) > LIMIT:
        text = text[:LIMIT] + "\n\n(cut: the whole report is in the uploaded artifact)\n"
    body = {"body": f"{marker}\n{text}"}
    try:
        login = identity(api, token)
        existing = None
        page = 1
        while existing is None:
            url = f"{api}/repos/{repository}/issues/{number}/comments?per_page=100&page={page}"
            comments = request("GET", url, token)
            if not comments:
                break
            existing = next((c for c in comments if ours(c, marker, login)), None)
            page += 1
        if existing is None:
            request("POST", f"{api}/repos/{repository}/issues/{number}/comments", token, body)
            print(f"note: commented on pull request #{number}", file=sys.stderr)
        else:
            request("PATCH", f"{api}/repos/{repository}/issues/comments/{existing['id']}", token, body)
            print(f"note: updated the comment on pull request #{number}", file=sys.stderr)
    except (urllib.error.URLError, OSError, ValueError) as error:
        print(
            f"error: cannot comment on pull request #{number}: {error}; the job needs "
            "`permissions: pull-requests: write` (a pull request from a fork gets a read-only token)",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
