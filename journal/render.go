package journal

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/evalrun/evalrun/value"
)

// messageWidth is how many code points of an error message's first line the
// renderings show.
const messageWidth = 60

// Thousands formats n with comma thousands separators: 18214 → 18,214.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func plural(n int64, word string) string {
	if n == 1 {
		return Thousands(n) + " " + word
	}
	return Thousands(n) + " " + word + "s"
}

// FormatDuration formats d rounded to the second in Go's form: 2m13s.
func FormatDuration(d time.Duration) string { return d.Round(time.Second).String() }

const timeLayout = "2006-01-02 15:04:05"

// RenderStatus writes `evalrun status` (SPEC §16.3): a header line, then one
// line per node, indented two spaces per level, with an aligned [status]
// column, the label of each call that has a sibling of the same name (the
// items of a parallel-map, told apart by their inputs) and `<-- current`
// after the current position; a run that ended
// with an error ends with the line "error: " and the error's first line.
func RenderStatus(w io.Writer, run *RunRecord, tree []*Node) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s  %s  %s  started %s  %s  %s  %s tokens", run.ID, run.Status, run.WorkflowPath,
		run.StartedAt.Format(timeLayout), FormatDuration(run.Duration()), plural(int64(run.Calls), "call"),
		Thousands(run.Tokens))
	if c := RunCostText(run.CostUSD, run.ReplayedCostUSD, run.CostUnknown); c != "" {
		b.WriteString("  " + c)
	}
	b.WriteByte('\n')
	cur := CurrentPosition(tree)
	twins := sharedNames(tree)
	Walk(tree, func(n *Node, depth int) bool {
		b.WriteString(strings.Repeat("  ", depth+1))
		fmt.Fprintf(&b, "%-11s ", "["+n.Status+"]")
		switch n.Kind {
		case KindStep:
			b.WriteString("step " + value.String(n.Name).String())
		default:
			b.WriteString(n.Kind + " " + n.Name + labelText(n, twins))
			if d := callDetail(n); d != "" {
				b.WriteString("  " + d)
			}
		}
		if n.Replayed {
			b.WriteString("  (replayed)")
		}
		if n == cur {
			b.WriteString("   <-- current")
		}
		b.WriteByte('\n')
		return true
	})
	if run.Error != "" {
		first, _, _ := strings.Cut(run.Error, "\n")
		b.WriteString("error: " + first + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sharedNames marks the task and tool calls that have a sibling of the
// same kind and name (the items of a parallel-map): status shows their
// labels, which tell them apart.
func sharedNames(tree []*Node) map[*Node]bool {
	out := map[*Node]bool{}
	var mark func([]*Node)
	mark = func(ns []*Node) {
		seen := map[string]*Node{}
		for _, n := range ns {
			if n.Kind != KindStep {
				k := n.Kind + "\x00" + n.Name
				if first, ok := seen[k]; ok {
					out[first], out[n] = true, true
				} else {
					seen[k] = n
				}
			}
			mark(n.Children)
		}
	}
	mark(tree)
	return out
}

// labelText is what a line shows after a call's name: its label, quoted,
// when it has a sibling of the same name (sharedNames); else nothing.
func labelText(n *Node, twins map[*Node]bool) string {
	if !twins[n] || n.Label == "" {
		return ""
	}
	return " " + value.String(n.Label).String()
}

// callDetail is what a task or tool line shows after its name: the failure
// summary of a failed call, else a task's turns and tokens.
func callDetail(n *Node) string {
	if n.Status == StatusFailed {
		return failureSummary(n)
	}
	if n.Kind == KindTask && (n.Status == StatusCompleted || n.Usage.Turns > 0 || n.Usage.Tokens() > 0) {
		d := plural(int64(n.Usage.Turns), "turn") + "  " + Thousands(n.Usage.Tokens()) + " tokens"
		if c := n.Usage.CostUSD; c != nil && *c > 0 {
			d += "  " + FormatUSD(*c)
		}
		return d
	}
	return ""
}

// failureSummary is `RESOURCE_EXHAUSTION turns (10/10)` for an exhausted
// resource, `REASON: MESSAGE` for a task failure, else the error's first line.
func failureSummary(n *Node) string {
	if e := resultError(n.Result); e != nil {
		typ := dictString(e, "type")
		if typ == "RESOURCE_EXHAUSTION" {
			s := typ + " " + dictString(e, "resource")
			if m, ok := e.Get("metrics"); ok {
				if md, ok := m.(*value.Dict); ok {
					used, _ := md.Get("used")
					limit, _ := md.Get("limit")
					if used != nil && limit != nil {
						s += fmt.Sprintf(" (%s/%s)", value.Text(used), value.Text(limit))
					}
				}
			}
			return s
		}
		if reason := dictString(e, "reason"); reason != "" && n.Error == "" {
			return reason + ": " + FirstLine(dictString(e, "message"), messageWidth)
		}
	}
	return FirstLine(ErrorMessage(n), messageWidth)
}

func resultError(v value.Value) *value.Dict {
	tr, ok := v.(*value.TaskResult)
	if !ok || tr.Notes == nil {
		return nil
	}
	e, ok := tr.Notes.Get("error")
	if !ok {
		return nil
	}
	d, _ := e.(*value.Dict)
	return d
}

func dictString(d *value.Dict, k string) string {
	v, ok := d.Get(k)
	if !ok {
		return ""
	}
	if s, ok := v.(value.String); ok {
		return string(s)
	}
	return value.Text(v)
}

// ErrorMessage is a node's error: the recorded message, else its FAILED
// TaskResult's notes.error.message, else that result's content.
func ErrorMessage(n *Node) string {
	if n.Error != "" {
		return n.Error
	}
	if e := resultError(n.Result); e != nil {
		if m := dictString(e, "message"); m != "" {
			return m
		}
	}
	if tr, ok := n.Result.(*value.TaskResult); ok && tr.Status == value.StatusFailed {
		return tr.Content
	}
	return ""
}

// RenderMarkdown writes `evalrun status --markdown` (SPEC §20.4): a
// checklist, two spaces per level, `[x]` for completed and skipped nodes,
// `(skipped)` and `(failed: MESSAGE)` annotations and `  <-- current`; the
// calls that share their name with a sibling show their labels, as in
// RenderStatus.
func RenderMarkdown(w io.Writer, tree []*Node) error {
	var b strings.Builder
	cur := CurrentPosition(tree)
	twins := sharedNames(tree)
	Walk(tree, func(n *Node, depth int) bool {
		b.WriteString(strings.Repeat("  ", depth))
		if n.Status == StatusCompleted || n.Status == StatusSkipped {
			b.WriteString("- [x] ")
		} else {
			b.WriteString("- [ ] ")
		}
		b.WriteString(n.Kind + " " + n.Name + labelText(n, twins))
		switch n.Status {
		case StatusSkipped:
			b.WriteString(" (skipped)")
		case StatusFailed:
			if msg := FirstLine(ErrorMessage(n), messageWidth); msg != "" {
				b.WriteString(" (failed: " + msg + ")")
			} else {
				b.WriteString(" (failed)")
			}
		}
		if n == cur {
			b.WriteString("  <-- current")
		}
		b.WriteByte('\n')
		return true
	})
	_, err := io.WriteString(w, b.String())
	return err
}

// RenderRuns writes `evalrun runs`: one aligned line per run with its id,
// status, start time, duration, number of calls and workflow.
func RenderRuns(w io.Writer, runs []*RunRecord) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tSTARTED\tDURATION\tCALLS\tCOST\tWORKFLOW")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Status, r.StartedAt.Format(timeLayout),
			FormatDuration(r.Duration()), r.Calls, runCost(r), r.WorkflowPath)
	}
	return tw.Flush()
}

// FormatUSD formats a cost in US dollars (SPEC §14.9): four decimals below
// one dollar ($0.0123), two from one dollar up ($2.01).
func FormatUSD(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// CostText is the cost part of a usage or status line: "$0.0123" for a
// known cost above zero, "cost unknown for 2 calls" when calls had no
// known price, both joined by ", " for a mix, "" when everything was
// free.
func CostText(usd float64, unknown int) string {
	var parts []string
	if usd > 0 {
		parts = append(parts, FormatUSD(usd))
	}
	if unknown > 0 {
		parts = append(parts, "cost unknown for "+plural(int64(unknown), "call"))
	}
	return strings.Join(parts, ", ")
}

// RunCostText is the cost part of a usage or status line of a run that
// spent usd on calls it paid for and replayed replayedUSD of recorded cost
// from the runs it resumed: CostText(usd, unknown) when nothing replayed
// carried a cost, else "$0.0000 spent + $0.0183 replayed", followed by
// ", cost unknown for 2 calls" when calls had no known price.
func RunCostText(usd, replayedUSD float64, unknown int) string {
	if replayedUSD <= 0 {
		return CostText(usd, unknown)
	}
	s := FormatUSD(usd) + " spent + " + FormatUSD(replayedUSD) + " replayed"
	if unknown > 0 {
		s += ", cost unknown for " + plural(int64(unknown), "call")
	}
	return s
}

// runCost is the COST column of `evalrun runs`, the cost the run paid:
// "$0.0123" for a known cost, "?" when no call's price was known,
// "$0.0123+?" when some calls' prices were unknown, "-" for a run that
// spent nothing. A run that replayed calls with a recorded cost shows its
// own spending (even $0.0000) followed by "+r": "$0.0000+r",
// "$0.0123+?+r".
func runCost(r *RunRecord) string {
	if r.ReplayedCostUSD > 0 {
		s := FormatUSD(r.CostUSD)
		if r.CostUnknown > 0 {
			s += "+?"
		}
		return s + "+r"
	}
	switch {
	case r.CostUnknown > 0 && r.CostUSD > 0:
		return FormatUSD(r.CostUSD) + "+?"
	case r.CostUnknown > 0:
		return "?"
	case r.CostUSD > 0:
		return FormatUSD(r.CostUSD)
	}
	return "-"
}
