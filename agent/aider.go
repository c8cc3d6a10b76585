package agent

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// aider's usage report, printed after each model call (aider's
// base_coder.py): "Tokens: 3.0k sent, 42 received." with, for prompt
// caching, ", 2.1k cache write, 1.5k cache hit" before "received", and,
// when the model's price is known, " Cost: $0.0063 message, $0.0063
// session." on the same line, or on a line of its own when the report
// shows both a cache write and a cache hit. Counts under 1000 are
// written as is (aider 0.4x wrote "1,234"), then "1.2k", "12k", and some
// versions "1.2M". Versions before 0.50 wrote "request" for "message".
var (
	aiderTokensRe = regexp.MustCompile(`^Tokens: ([0-9.,]+[kKM]?) sent(?:, ([0-9.,]+[kKM]?) cache write)?(?:, ([0-9.,]+[kKM]?) cache hit)?, ([0-9.,]+[kKM]?) received\.(?: (Cost: .*))?$`)
	aiderCostRe   = regexp.MustCompile(`^Cost: \$([0-9.]+) (?:message|request), \$([0-9.]+) session\.?$`)
	// aiderBannerRe is the first line of aider's start-up announcements.
	aiderBannerRe = regexp.MustCompile(`^Aider v[0-9]`)
	// aiderErrorRe is the error of a failed model call as aider prints
	// it (str() of a litellm exception), after which aider goes on and
	// exits with status 0 in --message mode.
	aiderErrorRe = regexp.MustCompile(`^litellm\.[A-Za-z]+(?:Error|Exception|Timeout)\b`)
	// aiderStatusRes are the lines aider prints about its own work
	// between and after the model's replies.
	aiderStatusRes = []*regexp.Regexp{
		regexp.MustCompile(`^Applied edit to .`),
		regexp.MustCompile(`^Did not apply edit to .+ \(--dry-run\)$`),
		regexp.MustCompile(`^Commit [0-9a-f]{7,40} .`),
		regexp.MustCompile(`^Committing .+ before applying edits\.$`),
		regexp.MustCompile(`^You can use /undo to undo and discard each aider commit\.$`),
		regexp.MustCompile(`^Retrying in [0-9.]+ seconds\.\.\.$`),
	}
	// aiderErrorHints are the explanations aider prints after some
	// model-call errors (aider/exceptions.py).
	aiderErrorHints = []string{
		"The API provider is not able to authenticate you. Check your API key.",
		"The API provider has refused the request due to a safety policy about the content.",
		"The API provider's servers are down or overloaded.",
		"The API provider has rate limited you. Try again later or check your quotas.",
		"The API provider timed out without returning a response. They may be down or overloaded.",
	}
)

// parseAider reads the stdout of `aider --no-pretty --message …` (format
// aider-text). The content is the model's reply of the last call, without
// aider's start-up announcements (everything up to the blank line that
// follows the "Aider vX.Y.Z" banner), its usage reports and its status
// lines ("Applied edit to …", "Commit …"). The usage is the sum of the
// usage reports; the cost is the session cost of the last report that has
// one. A model-call error (a "litellm.…Error:" line) that no usage report
// follows fails the call with that line as message.
func parseAider(stdout []byte) (parsed, error) {
	text := strings.ReplaceAll(string(stdout), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		// A line redrawn in place (a spinner) shows its last state.
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			lines[i] = l[j+1:]
		}
	}
	start, banner := 0, false
	for i, l := range lines {
		if aiderBannerRe.MatchString(l) {
			start, banner = len(lines), true
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) == "" {
					start = j + 1
					break
				}
			}
			break
		}
	}
	var p parsed
	var reply, current []string
	reports := 0
	errMsg := ""
	for i := start; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if m := aiderTokensRe.FindStringSubmatch(l); m != nil {
			reports++
			p.hasUsage = true
			p.usage.InputTokens = min(p.usage.InputTokens+aiderCount(m[1]), maxAiderCount)
			p.usage.OutputTokens = min(p.usage.OutputTokens+aiderCount(m[4]), maxAiderCount)
			cost := m[5]
			if cost == "" && i+1 < len(lines) {
				if next := strings.TrimRight(lines[i+1], " \t"); aiderCostRe.MatchString(next) {
					i++
					cost = next
				}
			}
			if c := aiderCostRe.FindStringSubmatch(cost); c != nil {
				if v, err := strconv.ParseFloat(c[2], 64); err == nil {
					p.cost, p.hasCost = v, true
				}
			}
			reply, current, errMsg = current, nil, ""
			continue
		}
		if aiderErrorRe.MatchString(l) {
			errMsg = strings.TrimSpace(l)
			if i+1 < len(lines) && isAiderHint(lines[i+1]) {
				i++
				errMsg += " (" + strings.TrimSpace(lines[i]) + ")"
			}
			continue
		}
		if isAiderStatus(l) || isAiderHint(l) {
			continue
		}
		current = append(current, l)
	}
	p.turns = reports
	if reports == 0 {
		reply = current
	}
	p.content = strings.Trim(strings.Join(trimBlankLines(reply), "\n"), "\n")
	if errMsg != "" {
		return p, &agentReportedError{msg: errMsg}
	}
	if reports == 0 && strings.TrimSpace(p.content) == "" {
		if banner {
			return parsed{}, errors.New("nothing after aider's start-up lines")
		}
		return parsed{}, errors.New("empty output")
	}
	return p, nil
}

// trimBlankLines drops the blank lines at both ends of lines.
func trimBlankLines(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func isAiderStatus(l string) bool {
	for _, re := range aiderStatusRes {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

func isAiderHint(l string) bool {
	l = strings.TrimSpace(l)
	for _, h := range aiderErrorHints {
		if l == h {
			return true
		}
	}
	return false
}

// maxAiderCount bounds a token count read from aider's report (and their
// sum): a count no model reaches, far from overflowing an int.
const maxAiderCount = 1 << 40

// aiderCount reads a token count as aider prints it: "950", "1,234",
// "3.0k", "12k", "1.2M". A count beyond maxAiderCount is read as
// maxAiderCount.
func aiderCount(s string) int {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		return 0
	}
	return int(min(math.Round(v*mult), maxAiderCount))
}
