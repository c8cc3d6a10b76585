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

# ev ARGS...: show and run one evalrun command in the current directory,
# with a private home and the fake agents of examples/agents first on PATH.
ev() {
	printf '$ evalrun%s\n' "$(printf ' %q' "$@")" >&2
	PATH="$tmp/agents/fake-bin:$PATH" HOME=$tmp/home EVALRUN_HOME=$tmp/home/evalrun EVALRUN_CEILING_DIRECTORIES=$tmp "$evalrun" "$@"
}
cp -R "$repo/examples/agents" "$tmp/agents"

printf '\n== A Claude-Code-Workflow plan (.workflow/active/WFS-jwt-auth/), checked, run by (fake) claude, codex and gemini, and shown\n' >&2
# .evalrun/config.toml of the plan maps its roles to claude, gemini and
# codex; the fake programs of examples/agents/fake-bin answer for them with
# the recorded answers of examples/agents/fake-bin/answers.
cp -R "$repo/examples/plan" "$tmp/plan"
cd "$tmp/plan"
ev plan check
ev plan run --dry-run --parallel 3
ev plan run --parallel 3
ev plan status
ev status
cat .workflow/active/WFS-jwt-auth/TODO_LIST.md
# What a task left behind: the summary of IMPL-002.1 holds the answer of
# (fake) claude, a diff of src/auth/login.ts, and the output of its step 2.
# The fakes answer with recorded text (examples/agents/fake-bin/answers);
# they change no file.
printf '$ cat .workflow/active/WFS-jwt-auth/.summaries/IMPL-002.1-summary.md\n' >&2
cat .workflow/active/WFS-jwt-auth/.summaries/IMPL-002.1-summary.md

printf '\n== Tasks executed by coding agents (fake claude and codex programs that print the real output shapes and recorded answers)\n' >&2
# With the real claude and codex installed, leave fake-bin off PATH.
cd "$tmp/agents"
ev agents list
ev run agents.sexp
ev task ex "the retry loop"
ev run agents.sexp --dry-run
