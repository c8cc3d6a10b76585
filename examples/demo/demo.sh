#!/usr/bin/env bash
# The offline demo of evalrun (make demo). Usage:
#   examples/demo/demo.sh [EVALRUN]
#
# It copies examples/demo/project (a small Go HTTP client with its evalrun
# templates and workflows) into a temporary directory, makes it a git work
# tree with one staged change (change.patch), and then runs:
#   1. review.sexp: a review of the staged diff, fanned out over the changed
#      files in parallel, and a merge of the findings into a JSON report;
#   2. evalrun status: the run's call tree with turns and tokens;
#   3. evalrun run --resume: the same run again, every call replayed from
#      the journal, nothing spent, and its call tree;
#   4. evalrun context and evalrun task ask: a question about the project
#      answered from the files retrieval finds for it.
# Model answers come from cassette.jsonl through the replay provider: they
# are real answers, recorded once (see README.md), so the demo needs no
# network and no API key.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
evalrun=$(realpath "${1:-$here/../../bin/evalrun}")
export EVALRUN_CASSETTE=$here/cassette.jsonl
unset OPENAI_API_KEY
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A home without configuration, so only the project's .evalrun/config.toml counts.
export HOME=$work/home EVALRUN_HOME=$work/home/evalrun EVALRUN_CEILING_DIRECTORIES=$work
mkdir -p "$HOME"
cp -R "$here/project" "$work/httpclient"
cd "$work/httpclient"
git init -q
git add .
git -c user.name=demo -c user.email=demo@example.com commit -qm "httpclient: retries with backoff"
git apply --index "$here/change.patch"

if [ -t 2 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold= plain=; fi
say() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain" >&2; }
# show runs a command after printing it, with evalrun's path shortened.
show() {
	local shown=("$@")
	[ "$1" = "$evalrun" ] && shown[0]=evalrun
	printf '$' >&2
	printf ' %q' "${shown[@]}" >&2
	printf '\n' >&2
	"$@"
}

say "The staged change"
show git diff --staged --stat

say "1. Review the diff: one reviewer per file in parallel, then a merge (review.sexp)"
show "$evalrun" run review.sexp --json

say "2. The run's call tree, with turns and tokens"
show "$evalrun" status

say "3. Resume the run: every model call and the git command are replayed from the journal"
show "$evalrun" run --resume last --json >/dev/null
show "$evalrun" status

say "4. A question about the project, answered from the files retrieval finds"
show "$evalrun" context "How does the client decide how long to wait before retrying a request?" --top-k 3
show "$evalrun" task ask "How does the client decide how long to wait before retrying a request?"

say "The journal"
show "$evalrun" runs
