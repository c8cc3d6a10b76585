#!/usr/bin/env bash
# Runs every example on the offline echo provider (make demo). Usage:
#   examples/demo.sh [EVALRUN]
# Each workflow example of SPEC §20 is a small project (its templates and
# configuration under .evalrun/): it is copied into a temporary directory and
# run there, so that the memory index, dry-run prompts and the git work tree
# of the review example never touch this checkout. OPENAI_API_KEY is unset
# so that no model is called.
set -euo pipefail
cd "$(dirname "$0")/.."
evalrun=$(realpath "${1:-bin/evalrun}")
examples=$(pwd)/examples
unset OPENAI_API_KEY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run DIR ARGS...: show and run one evalrun command in DIR
	local dir=$1
	shift
	echo "== (cd examples/$(basename "$dir")) evalrun$(printf ' %q' "$@")"
	(cd "$dir" && "$evalrun" "$@")
}

# Single-file workflows with defatom templates.
for f in examples/*.sexp; do
	echo "== evalrun run $f"
	"$evalrun" run "$f"
done

# SPEC §20.1: a command template reviewing the staged git diff, in a fresh
# git work tree with one staged change.
d=$tmp/review
cp -R "$examples/review" "$d"
(
	cd "$d"
	git init -q
	printf 'package main\n\nfunc main() {}\n' >main.go
	git add main.go
	git -c user.name=demo -c user.email=demo@example.com commit -qm init
	printf 'package main\n\nimport "os"\n\nfunc main() { os.Exit(run()) }\n\nfunc run() int { return 0 }\n' >main.go
	git add main.go
)
run "$d" run review.sexp --set focus=security
run "$d" task gdr "pay attention to error handling"

# SPEC §20.2: director–evaluator loop over templates with inferred inputs.
d=$tmp/improve
cp -R "$examples/improve" "$d"
run "$d" run improve.sexp --set goal="A Getting started section for README.md"
# The same run as a dry run: every prompt is written to .evalrun/dry-run/.
run "$d" run improve.sexp --dry-run --set goal="A Getting started section for README.md"
ls "$d"/.evalrun/dry-run/*/

# SPEC §20.3: get-context, then parallel summaries of the files found.
d=$tmp/overview
cp -R "$examples/overview" "$d"
run "$d" run overview.sexp --set topic="HTTP retries and backoff"

# SPEC §20.4: steps with error policies; the shell tool runs go test and
# go vet on the example's own module ([tools] shell_allow).
d=$tmp/release
cp -R "$examples/release" "$d"
run "$d" run release.sexp --set goal="Honour Retry-After in the HTTP client"

# SPEC §22: tasks executed by coding agents. The fake claude and codex
# programs of fake-bin/ print the output shapes of Claude Code and Codex;
# with the real agents installed, drop the PATH change.
d=$tmp/agents
cp -R "$examples/agents" "$d"
(
	export PATH="$d/fake-bin:$PATH"
	run "$d" agents list
	run "$d" run agents.sexp
	run "$d" task ex "the retry loop"
	run "$d" run agents.sexp --dry-run
)
