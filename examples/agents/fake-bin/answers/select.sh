# Sourced by the fake claude, codex and gemini of examples/agents/fake-bin:
# picks the recorded answer of a prompt and escapes it for JSON, in POSIX
# sh, sed and awk (no jq, no python).
#
# A prompt's marker is its first plan task heading ("# IMPL-002.1: …",
# answered by IMPL-002.1.md; an agent whose command has no {role} gets its
# role before it), else one of the instructions listed in answer_key below. A prompt without a marker, or
# whose marker has no file here, gets a one-line answer that says so.

answers_dir=$(dirname "$0")/answers

# first_line PROMPT: the prompt's first non-blank line, without leading
# blanks.
first_line() {
	printf '%s\n' "$1" | grep -v '^[[:space:]]*$' | head -n 1 | sed 's/^[[:space:]]*//'
}

# answer_key PROMPT: the name (without .md) of the answer file for PROMPT,
# or nothing.
answer_key() {
	heading=$(printf '%s\n' "$1" | sed 's/^[[:space:]]*//' | grep -m 1 '^# IMPL-[^:]*:')
	if [ -n "$heading" ]; then
		id=${heading#"# "}
		printf '%s\n' "${id%%:*}"
		return
	fi
	# The verdict's prompt quotes both reviews, so it is tested first.
	case $1 in
	*"Two reviews of the same change follow"*) echo verdict ;;
	*"Review this change for bugs"*) echo review ;;
	*"Give a second opinion on this change"*) echo second-opinion ;;
	*"Explain the retry loop"*) echo explain-retry-loop ;;
	*"PURPOSE: find where login issues credentials"*) echo analysis-login ;;
	esac
}

# answer AGENT PROMPT: prints the recorded answer for PROMPT.
answer() {
	key=$(answer_key "$2")
	if [ -n "$key" ] && [ -f "$answers_dir/$key.md" ]; then
		cat "$answers_dir/$key.md"
	elif [ -n "$key" ]; then
		printf '[fake %s] no recorded answer for the marker %s: there is no %s.md in examples/agents/fake-bin/answers\n' "$1" "$key" "$key"
	else
		printf '[fake %s] no recorded answer: the prompt has no marker of examples/agents/fake-bin/answers (a line "# IMPL-N: title" or a known instruction); its first line is: %s\n' "$1" "$(first_line "$2" | cut -c1-80)"
	fi
}

# json_escape: stdin as the contents of a JSON string (without quotes):
# backslashes, quotes and tabs escaped, lines joined with \n, other
# control characters dropped.
json_escape() {
	tr -d '\001-\010\013\014\015\016-\037' |
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e "s/$(printf '\t')/\\\\t/g" |
		awk '{ printf "%s%s", (NR > 1 ? "\\n" : ""), $0 }'
}

# word_count TEXT: the number of words of TEXT.
word_count() {
	printf '%s' "$1" | wc -w | tr -d ' '
}
