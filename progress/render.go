package progress

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Size is a terminal's size in columns and lines.
type Size struct {
	Width, Height int
}

// ANSI styles of the frame; none is used without colour.
const (
	styleReset = "\x1b[0m"
	styleBold  = "\x1b[1m"
	styleDim   = "\x1b[2m"
	styleRed   = "\x1b[31m"
	styleGreen = "\x1b[32m"
	styleCyan  = "\x1b[36m"
)

// line is one line of a frame before it is cut to the terminal's width and
// coloured.
type line struct {
	text  string
	style string
}

// Frame returns the lines of one screen of the display: the header, then
// the tree of calls that run or wait (with their steps and groups), and the
// plan tasks. It uses at most size.Height-2 lines and no line is wider than
// size.Width-1 terminal columns; without colour the lines hold no escape sequences.
func Frame(m *Model, size Size, now time.Time, colour bool) []string {
	maxLines := size.Height - 2
	if maxLines < 1 {
		maxLines = 1
	}
	var body []line
	for _, c := range m.roots {
		body = appendCall(body, c, 0, now, m.currentPlanTask())
	}
	lines := []line{{text: header(m, now), style: styleBold}}
	if len(body) > maxLines-1 {
		keep := maxLines - 2
		if keep < 0 {
			keep = 0
		}
		hidden := len(body) - keep
		body = append(body[:keep:keep], line{text: fmt.Sprintf("  … %d more", hidden), style: styleDim})
		if maxLines == 1 {
			body = nil
		}
	}
	lines = append(lines, body...)
	out := make([]string, len(lines))
	for i, l := range lines {
		text := cut(l.text, size.Width-1)
		if colour && l.style != "" {
			text = l.style + text + styleReset
		}
		out[i] = text
	}
	return out
}

// header is the first line: calls done, running and waiting, tokens, cost
// and elapsed time, or what is being cancelled.
func header(m *Model, now time.Time) string {
	done, running, waiting := m.Counts()
	var b strings.Builder
	if m.cancel {
		fmt.Fprintf(&b, "cancelling %d running and %d waiting calls", running, waiting)
	} else {
		fmt.Fprintf(&b, "%d done", done)
		if m.failed > 0 {
			fmt.Fprintf(&b, " (%d failed)", m.failed)
		}
		fmt.Fprintf(&b, " · %d running · %d waiting", running, waiting)
	}
	if m.tokens > 0 {
		fmt.Fprintf(&b, " · %s tokens", thousands(m.tokens))
	}
	// A resumed run's replayed calls were paid by the run it resumes:
	// their cost is shown apart, as the usage line shows it.
	switch {
	case m.replayed > 0:
		fmt.Fprintf(&b, " · %s spent + %s replayed", usd(m.cost), usd(m.replayed))
	case m.cost > 0:
		fmt.Fprintf(&b, " · %s", usd(m.cost))
	}
	switch {
	case m.unknown > 0 && (m.cost > 0 || m.replayed > 0):
		fmt.Fprintf(&b, " (cost unknown for %d)", m.unknown)
	case m.unknown > 0:
		fmt.Fprintf(&b, " · cost unknown for %d", m.unknown)
	}
	fmt.Fprintf(&b, " · %s", elapsed(now.Sub(m.start)))
	return b.String()
}

// appendCall adds the lines of c and of its visible descendants.
func appendCall(out []line, c *Call, depth int, now time.Time, current *Call) []line {
	if !visible(c) {
		return out
	}
	indent := strings.Repeat("  ", depth+1)
	var l line
	switch {
	case c.Kind == KindPlanTask:
		l = planLine(c, indent, current)
	case c.Kind == KindGroup:
		l = line{text: fmt.Sprintf("%s%s %d/%d  %s", indent, c.Kind, c.Done, c.Total, elapsed(now.Sub(c.Since))), style: styleCyan}
	case c.Phase == Waiting:
		l = line{text: fmt.Sprintf("%s… %s %s%s  waiting %s", indent, c.Kind, c.Name, executor(c), elapsed(now.Sub(c.Since))), style: styleDim}
	default:
		text := fmt.Sprintf("%s▸ %s %s%s", indent, c.Kind, c.Name, executor(c))
		if done, total := planCounts(c); total > 0 {
			text += fmt.Sprintf("  %d/%d tasks", done, total)
		}
		text += "  " + elapsed(now.Sub(c.Since))
		if c.Line != "" {
			text += "  │ " + c.Line
		}
		l = line{text: text}
		if c.leaf() {
			l.style = styleGreen
		}
	}
	out = append(out, l)
	waiting := 0
	for _, ch := range c.Children {
		if c.Kind == KindGroup && ch.leaf() && ch.Phase == Waiting {
			waiting++
			continue
		}
		out = appendCall(out, ch, depth+1, now, current)
	}
	if waiting > 0 {
		out = append(out, line{text: fmt.Sprintf("%s  … %d waiting", indent, waiting), style: styleDim})
	}
	return out
}

// planLine is a plan task's line: [x] or [ ], id, title, state and the
// current marker (§23.5).
func planLine(c *Call, indent string, current *Call) line {
	mark, state, style := "[ ]", "pending", styleDim
	if hasSubtasks(c) && c.Phase != Ended {
		c = containerState(c)
	}
	switch {
	case c.Phase == Ended && c.Status == "completed":
		mark, state, style = "[x]", "completed", ""
	case c.Phase == Ended:
		state, style = c.Status, styleRed
		if c.Status == "failed" {
			state = "blocked"
		}
	case c.active():
		state, style = "active", styleGreen
	}
	text := fmt.Sprintf("%s%s %s", indent, mark, c.Name)
	if c.Title != "" {
		text += " " + c.Title
	}
	if c.Executor != "" {
		text += fmt.Sprintf(" (%s, %s)", c.Executor, state)
	} else {
		text += fmt.Sprintf(" (%s)", state)
	}
	if current != nil && c.ID == current.ID {
		text += "  <-- current"
	}
	return line{text: text, style: style}
}

// planCounts returns, for a call holding the tasks of a plan (the step of
// a workflow's plan-run), how many of its plan tasks without subtasks are
// completed and how many there are; 0, 0 for any other call.
func planCounts(c *Call) (done, total int) {
	if c.Kind == KindPlanTask {
		return 0, 0
	}
	var count func(cs []*Call)
	count = func(cs []*Call) {
		for _, ch := range cs {
			if ch.Kind != KindPlanTask {
				continue
			}
			if hasSubtasks(ch) {
				count(ch.Children)
				continue
			}
			total++
			if ch.Phase == Ended && ch.Status == "completed" {
				done++
			}
		}
	}
	count(c.Children)
	return done, total
}

// hasSubtasks reports whether the plan task c is a container.
func hasSubtasks(c *Call) bool {
	for _, ch := range c.Children {
		if ch.Kind == KindPlanTask {
			return true
		}
	}
	return false
}

// containerState returns a copy of the plan task c whose phase follows its
// subtasks: completed when all are, active when one has started.
func containerState(c *Call) *Call {
	d := *c
	all, started := true, false
	for _, ch := range c.Children {
		if ch.Kind != KindPlanTask {
			continue
		}
		if ch.Phase != Ended || ch.Status != "completed" {
			all = false
		}
		if ch.Phase != Planned {
			started = true
		}
	}
	switch {
	case all:
		d.Phase, d.Status = Ended, "completed"
	case started:
		d.Phase = Running
	}
	return &d
}

// currentPlanTask is the plan task marked <-- current: the first one that
// runs, else the first one not finished.
func (m *Model) currentPlanTask() *Call {
	var first *Call
	var walk func(cs []*Call) *Call
	walk = func(cs []*Call) *Call {
		for _, c := range cs {
			if !visible(c) {
				continue // the tasks of a plan-run that has ended
			}
			if c.Kind == KindPlanTask {
				if c.active() {
					return c
				}
				if c.Phase != Ended && first == nil && !hasSubtasks(c) {
					first = c
				}
			}
			if r := walk(c.Children); r != nil {
				return r
			}
		}
		return nil
	}
	if r := walk(m.roots); r != nil {
		return r
	}
	return first
}

// visible reports whether c has a line: an active call, a running group,
// a step with something active below it, and every plan task.
func visible(c *Call) bool {
	switch {
	case c.Kind == KindPlanTask:
		return true
	case c.Phase == Ended || c.Phase == Planned:
		return false
	case c.leaf():
		return true
	case c.Kind == KindGroup:
		return true
	}
	for _, ch := range c.Children {
		if visible(ch) {
			return true
		}
	}
	return c.Phase == Running && len(c.Children) == 0
}

// executor returns "  EXECUTOR" or "".
func executor(c *Call) string {
	if c.Executor == "" {
		return ""
	}
	return "  " + c.Executor
}

// elapsed prints a duration the way the display does: 4s, 1m03s, 1h02m.
func elapsed(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	}
}

// usd writes an amount as the usage line does: four decimals below one
// dollar, two from one dollar up ($0.0123, $12.35).
func usd(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// thousands writes n with comma separators: 18,214.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	pre := len(s) % 3
	if pre > 0 {
		b.WriteString(s[:pre])
	}
	for i := pre; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// cut shortens s to at most width terminal columns — a wide character
// (CJK, most emoji) takes two, a combining mark none — ending it with …
// when cut, so that no line wraps and the frame erases exactly the lines it
// drew. Escape sequences (an agent's colours) are left out and other
// control characters become spaces: the text cannot move the cursor.
func cut(s string, width int) string {
	if width < 1 {
		width = 1
	}
	clean := strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, stripEscapes(s))
	if fits(clean, width) {
		return clean
	}
	var b strings.Builder
	used := 0
	for _, r := range clean {
		w := runeWidth(r)
		if used+w > width-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	b.WriteString("…")
	return b.String()
}

// stripEscapes leaves out the ANSI escape sequences of s: CSI (ESC [
// parameters, then a final byte from @ to ~), OSC (ESC ], up to BEL or
// ESC \\) and two-byte ones (ESC and one character).
func stripEscapes(s string) string {
	i := strings.IndexByte(s, 0x1b)
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+1:]
		switch {
		case s == "":
		case s[0] == '[':
			j := 1
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			s = s[min(j+1, len(s)):]
		case s[0] == ']':
			end := len(s)
			if k := strings.IndexByte(s, 0x07); k >= 0 {
				end = k + 1
			}
			if k := strings.Index(s, "\x1b\\"); k >= 0 && k+2 < end {
				end = k + 2
			}
			s = s[end:]
		default:
			_, n := utf8.DecodeRuneInString(s)
			s = s[n:]
		}
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}
