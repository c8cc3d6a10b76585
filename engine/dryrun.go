package engine

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/handler/tokens"
	"github.com/evalrun/evalrun/internal/shellwords"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/trace"
)

// newRunID returns a run id of SPEC §16.1: the start time and four random
// hex digits, 20250106-140300-a1b2.
func newRunID(start time.Time) string {
	var b [2]byte
	if _, err := rand.Read(b[:]); err != nil {
		b = [2]byte{byte(start.Nanosecond() >> 8), byte(start.Nanosecond())}
	}
	return start.Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// dryRun writes every prompt a run would send into
// .evalrun/dry-run/RUN-ID/NNN-NAME.md (SPEC §17.7). It is a trace sink and
// gate on the model spans: each request is written down just before the
// echo provider answers it (Span.Before), and a request that cannot be
// written fails its task. It is safe for concurrent use; prompts are
// numbered in the order the requests arrive.
type dryRun struct {
	// dir is the absolute directory of the run's prompts, shown is it as
	// printed (relative to the working directory, with a final '/').
	dir, shown string
	counter    tokens.Counter

	mu sync.Mutex
	n  int
}

func newDryRun(root, runID string, display func(string) string) *dryRun {
	dir := filepath.Join(root, ".evalrun", "dry-run", runID)
	return &dryRun{dir: dir, shown: display(dir) + "/", counter: tokens.O200k()}
}

// unsafeName matches the characters replaced by '_' in prompt file names.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// Observe implements trace.Sink; the dry run acts in Before.
func (d *dryRun) Observe(trace.Event) {}

// Before implements trace.Gate: it writes the prompt of a model span and
// lets the request go on, or fails it when the prompt cannot be written.
func (d *dryRun) Before(s *trace.Span) (trace.Answer, bool) {
	mc, ok := s.Detail().(handler.ModelCall)
	if s.Kind() != trace.Model || !ok {
		return trace.Answer{}, false
	}
	if err := d.record(templateOf(s), mc.Provider.Name(), mc.Request); err != nil {
		return trace.Answer{Err: handler.NewError(handler.ReasonUnexpected, "dry run: "+err.Error(), err)}, true
	}
	return trace.Answer{}, false
}

// record writes one request of a task of template t (nil when unknown) to
// a new prompt file.
func (d *dryRun) record(t *templates.Template, provider string, req *handler.Request) error {
	text := d.render(t, provider, req)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		if err := os.MkdirAll(d.dir, 0o755); err != nil {
			return err
		}
	}
	d.n++
	name := "task"
	if t != nil {
		name = t.Name
	}
	file := fmt.Sprintf("%03d-%s.md", d.n, unsafeName.ReplaceAllString(name, "_"))
	return os.WriteFile(filepath.Join(d.dir, file), []byte(text), 0o644)
}

// writeHeader writes the title and the template lines of a prompt file.
func writeHeader(b *strings.Builder, t *templates.Template) {
	name, source := "(unknown)", ""
	if t != nil {
		name, source = t.Name, t.Source()
	}
	fmt.Fprintf(b, "# %s\n\n", name)
	fmt.Fprintf(b, "- template: %s\n", name)
	if source != "" {
		fmt.Fprintf(b, "- source: %s\n", source)
	}
}

// render is the text of a prompt file: a header with the template, its
// scope and path, the provider, the model and the token count of the
// request (SPEC §14.2), then a "## system" section and one section per
// message ("## user", and "## assistant" and "## tool" for earlier turns
// and session history).
func (d *dryRun) render(t *templates.Template, provider string, req *handler.Request) string {
	var b strings.Builder
	writeHeader(&b, t)
	fmt.Fprintf(&b, "- provider: %s\n", provider)
	fmt.Fprintf(&b, "- model: %s\n", req.Model)
	fmt.Fprintf(&b, "- tokens: %d\n", d.tokens(req))
	if req.Temperature != nil {
		fmt.Fprintf(&b, "- temperature: %s\n", strconv.FormatFloat(*req.Temperature, 'g', -1, 64))
	}
	if rf := req.ResponseFormat; rf != nil {
		if rf.Name != "" {
			fmt.Fprintf(&b, "- response_format: %s (%s)\n", rf.Type, rf.Name)
		} else {
			fmt.Fprintf(&b, "- response_format: %s\n", rf.Type)
		}
	}
	if len(req.Tools) > 0 {
		names := make([]string, len(req.Tools))
		for i, t := range req.Tools {
			names[i] = t.Name
		}
		fmt.Fprintf(&b, "- tools: %s\n", strings.Join(names, ", "))
	}
	section := func(title, text string) {
		fmt.Fprintf(&b, "\n## %s\n\n%s", title, text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	section("system", req.System)
	for _, m := range req.Messages {
		title := m.Role
		if m.Role == handler.RoleTool && m.ToolCallID != "" {
			title += " (" + m.ToolCallID + ")"
		}
		text := m.Content
		for _, c := range m.ToolCalls {
			text += fmt.Sprintf("\n[tool call %s: %s %s]", c.ID, c.Name, c.Arguments)
		}
		section(title, text)
	}
	return b.String()
}

// tokens counts the request as a session does before a call (SPEC §14.2):
// every message's content plus 4, the system prompt included, the tool
// definitions as compact JSON, and 3 for the reply.
func (d *dryRun) tokens(req *handler.Request) int {
	n := d.counter.Count(req.System) + tokens.PerMessage + tokens.ReplyPriming
	if len(req.Tools) > 0 {
		type def struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		defs := make([]def, len(req.Tools))
		for i, t := range req.Tools {
			defs[i] = def{t.Name, t.Description, t.Parameters}
		}
		if data, err := json.Marshal(defs); err == nil {
			n += d.counter.Count(string(data))
		}
	}
	for _, m := range req.Messages {
		n += d.counter.Count(m.Content) + tokens.PerMessage
		for _, c := range m.ToolCalls {
			n += d.counter.Count(c.Name) + d.counter.Count(c.Arguments)
		}
	}
	return n
}

// summary is the last line of a dry run's stderr (SPEC §17.7).
func (d *dryRun) summary() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		return "dry run: no prompts written"
	}
	noun := "prompts"
	if d.n == 1 {
		noun = "prompt"
	}
	return fmt.Sprintf("dry run: %d %s written to %s", d.n, noun, d.shown)
}

// recordAgent writes the prompt file of an agent call (SPEC §22.3): the
// header names the agent and the argv that would run (the prompt shown as
// {prompt}); the sections are the system prompt and the user prompt. When
// the command has no place for the system prompt (placesSystem false) the
// header says it goes before the user prompt.
func (d *dryRun) recordAgent(t *templates.Template, agentName string, argv []string, req *handler.Request, placesSystem bool) error {
	var b strings.Builder
	writeHeader(&b, t)
	fmt.Fprintf(&b, "- agent: %s\n", agentName)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellWord(a)
	}
	fmt.Fprintf(&b, "- argv: %s\n", strings.Join(quoted, " "))
	if !placesSystem {
		b.WriteString("- system: sent before the user prompt (the command has no {role} or {role_file})\n")
	}
	fmt.Fprintf(&b, "- model: %s\n", req.Model)
	fmt.Fprintf(&b, "- tokens: %d\n", d.tokens(req))
	for _, sec := range []struct{ title, text string }{{"system", req.System}, {"user", req.Messages[0].Content}} {
		fmt.Fprintf(&b, "\n## %s\n\n%s", sec.title, sec.text)
		if !strings.HasSuffix(sec.text, "\n") {
			b.WriteByte('\n')
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		if err := os.MkdirAll(d.dir, 0o755); err != nil {
			return err
		}
	}
	d.n++
	name := "(unknown)"
	if t != nil {
		name = t.Name
	}
	file := fmt.Sprintf("%03d-%s.md", d.n, unsafeName.ReplaceAllString(name, "_"))
	return os.WriteFile(filepath.Join(d.dir, file), []byte(b.String()), 0o644)
}

// shellWord quotes a word for display when it holds anything but plain
// characters; {prompt} and {role_file} stay as they are.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:{}@%+,") == "" {
		return s
	}
	return shellwords.Quote(s)
}
