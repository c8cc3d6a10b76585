#!/usr/bin/env bash
# make demo: evalrun's offline demo. Usage:
#   examples/demo.sh [EVALRUN]
#
# First the recorded workflows of examples/demo (a diff review fanned out
# over files, the run tree, a resumed run that spends nothing, a question
# answered from retrieved files): real model answers replayed from a
# cassette. Then the single-file language examples on the echo provider,
# which answers every task with the prompt it was sent.
set -euo pipefail
cd "$(dirname "$0")/.."
evalrun=$(realpath "${1:-bin/evalrun}")
unset OPENAI_API_KEY
repo=$(pwd)

examples/demo/demo.sh "$evalrun"

printf '\n== The language on the echo provider (a task answers with its prompt)\n' >&2
# In a temporary directory, so that no journal is written into this checkout.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/home" "$tmp/examples"
cp examples/greet.sexp examples/fanout.sexp examples/refine.sexp "$tmp/examples/"
cd "$tmp"
for f in examples/greet.sexp examples/fanout.sexp examples/refine.sexp; do
	printf '$ evalrun run %s\n' "$f" >&2
	HOME=$tmp/home EVALRUN_HOME=$tmp/home/evalrun EVALRUN_CEILING_DIRECTORIES=$tmp "$evalrun" run "$f"
done

printf '\n== A Claude-Code-Workflow plan (.workflow/active/WFS-jwt-auth/), checked, run and shown\n' >&2
cp -R "$repo/examples/plan" "$tmp/plan"
cd "$tmp/plan"
for args in "plan check" "plan run --dry-run --parallel 3" "plan run --provider echo --parallel 3" "plan status"; do
	printf '$ evalrun %s\n' "$args" >&2
	# shellcheck disable=SC2086
	HOME=$tmp/home EVALRUN_HOME=$tmp/home/evalrun EVALRUN_CEILING_DIRECTORIES=$tmp "$evalrun" $args
done
cat .workflow/active/WFS-jwt-auth/TODO_LIST.md
