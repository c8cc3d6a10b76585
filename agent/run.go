package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/handler/tokens"
)

// Limits of a call's output (SPEC §22.3).
const (
	DefaultMaxOutput  = 16 << 20
	DefaultStderrTail = 64 << 10
	DefaultGrace      = 5 * time.Second
)

// Usage is the tokens of a call.
type Usage struct {
	InputTokens  int
	OutputTokens int
}

// Result is a completed agent call.
type Result struct {
	// Content is the answer.
	Content string
	// Usage is the tokens reported by the agent, or counted with the
	// tokenizer when UsageEstimated.
	Usage Usage
	// UsageEstimated is true when the format reports no usage (text).
	UsageEstimated bool
	// Turns is the agent's number of turns, 1 when not reported.
	Turns int
	// CostUSD is the cost the agent reported; HasCost says whether it did.
	CostUSD float64
	HasCost bool
	// SessionID is the agent's session id where reported.
	SessionID string
	// Argv is the command as run, the prompt shown as {prompt}.
	Argv []string
	// ExitCode is the exit status.
	ExitCode int
	// Stderr is the last 64 KiB of stderr.
	Stderr string
	// Duration is the time from start to the end of the process group.
	Duration time.Duration
}

// Runner starts agent processes. Its zero value is not usable; use
// NewRunner. A Runner is safe for concurrent use; it holds each agent's
// max_parallel slots.
type Runner struct {
	// Grace is the time between SIGTERM and SIGKILL.
	Grace time.Duration
	// MaxOutput is the stdout limit in bytes.
	MaxOutput int
	// StderrTail is how much of the end of stderr is kept.
	StderrTail int
	// DefaultParallel is max_parallel for an agent that sets none; 0 means
	// no limit.
	DefaultParallel int
	// Verbose, when set, receives the agents' stderr lines prefixed
	// "[NAME] ".
	Verbose io.Writer
	// CountTokens counts tokens for the text format; nil means the o200k
	// tokenizer.
	CountTokens func(string) int
	// Environ returns the inherited environment; nil means os.Environ.
	Environ func() []string
	// LookPath finds a program; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// OnStart, when set, is called with the process id (= the process
	// group id) once the process started.
	OnStart func(def Definition, pid int)

	mu    sync.Mutex
	slots map[string]chan struct{}
	vmu   sync.Mutex
}

// NewRunner returns a Runner with the SPEC's limits.
func NewRunner() *Runner {
	return &Runner{Grace: DefaultGrace, MaxOutput: DefaultMaxOutput, StderrTail: DefaultStderrTail}
}

// slot returns the semaphore of an agent, nil when unlimited.
func (r *Runner) slot(d Definition) chan struct{} {
	n := d.MaxParallel
	if n <= 0 {
		n = r.DefaultParallel
	}
	if n <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.slots == nil {
		r.slots = map[string]chan struct{}{}
	}
	key := fmt.Sprintf("%s/%d", d.Name, n)
	s, ok := r.slots[key]
	if !ok {
		s = make(chan struct{}, n)
		r.slots[key] = s
	}
	return s
}

// Resolve finds the program an invocation starts: a word with a slash is a
// path (relative to root), any other is looked up on PATH. A program not
// found is a configuration_error.
func (r *Runner) Resolve(d Definition, prog, root string) (string, error) {
	if strings.ContainsRune(prog, '/') {
		p := prog
		if !filepath.IsAbs(p) && root != "" {
			p = filepath.Join(root, p)
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", &Error{Agent: d.Name, Kind: ReasonConfiguration, ExitCode: -1,
				Msg: fmt.Sprintf("agent '%s': program '%s' not found", d.Name, prog)}
		}
		return p, nil
	}
	look := r.LookPath
	if look == nil {
		look = exec.LookPath
	}
	p, err := look(prog)
	if err != nil {
		return "", &Error{Agent: d.Name, Kind: ReasonConfiguration, ExitCode: -1,
			Msg: fmt.Sprintf("agent '%s': program '%s' not found in PATH", d.Name, prog), err: err}
	}
	return p, nil
}

// Run starts the agent for a call and waits for its answer. It returns
// once the process and every process of its group are gone. Failures are
// *Error values with a reason; when ctx ends first, the error wraps
// ctx.Err() (reason execution_halted).
func (r *Runner) Run(ctx context.Context, d Definition, c Call) (*Result, error) {
	inv, err := d.Prepare(c, RoleFileMarker)
	if err != nil {
		return nil, err
	}
	path, err := r.Resolve(d, inv.Argv[0], c.Root)
	if err != nil {
		return nil, err
	}
	if s := r.slot(d); s != nil {
		select {
		case s <- struct{}{}:
			defer func() { <-s }()
		case <-ctx.Done():
			return nil, halted(d, ctx)
		}
	}
	if inv.UsesRoleFile {
		f, err := os.CreateTemp("", "evalrun-role-*.md")
		if err != nil {
			return nil, &Error{Agent: d.Name, Kind: ReasonAgent, ExitCode: -1, Msg: fmt.Sprintf("agent '%s': role file: %v", d.Name, err), err: err}
		}
		_, werr := f.WriteString(c.System)
		cerr := f.Close()
		defer os.Remove(f.Name())
		if werr != nil || cerr != nil {
			return nil, &Error{Agent: d.Name, Kind: ReasonAgent, ExitCode: -1, Msg: fmt.Sprintf("agent '%s': role file: %v", d.Name, errors.Join(werr, cerr))}
		}
		if inv, err = d.Prepare(c, f.Name()); err != nil {
			return nil, err
		}
	}
	display, _ := d.Display(c)
	tctx, cancel := context.WithTimeoutCause(ctx, d.timeout(), errTimeout)
	defer cancel()
	dir := c.Root
	if c.Dir != "" {
		dir = c.Dir
	}
	out, err := r.start(tctx, d, path, inv, dir, c.Lines)
	res := &Result{Argv: display, ExitCode: out.exit, Stderr: out.stderr, Duration: out.duration}
	tail := lastLine(out.stderr)
	switch {
	case err != nil:
		return nil, &Error{Agent: d.Name, Kind: ReasonAgent, ExitCode: -1, Msg: fmt.Sprintf("agent '%s': %v", d.Name, err), err: err, Result: res}
	case out.stopped && errors.Is(context.Cause(tctx), errTimeout) && ctx.Err() == nil:
		return nil, &Error{Agent: d.Name, Kind: ReasonTimeout, ExitCode: out.exit, Stderr: out.stderr, Result: res,
			Msg: fmt.Sprintf("agent '%s' timed out after %s", d.Name, d.timeout())}
	case out.stopped && ctx.Err() != nil:
		e := halted(d, ctx)
		e.ExitCode, e.Stderr, e.Result = out.exit, out.stderr, res
		return nil, e
	case out.overflow:
		return nil, &Error{Agent: d.Name, Kind: ReasonAgent, ExitCode: out.exit, Stderr: out.stderr, Result: res,
			Msg: fmt.Sprintf("agent '%s': output over %d MiB", d.Name, r.maxOutput()>>20)}
	}
	parsed, perr := parse(d.format(), out.stdout)
	// A failed call counts what its output reported (a claude result with
	// is_error still carries its usage and cost).
	res.Usage, res.Turns = parsed.usage, max(parsed.turns, 1)
	res.CostUSD, res.HasCost = parsed.cost, parsed.hasCost
	res.SessionID = parsed.sessionID
	var reported *agentReportedError
	errors.As(perr, &reported)
	if out.exit != 0 {
		// The error the agent printed as JSON (on stdout, or gemini's on
		// stderr) says more than the last stderr line, which may be the
		// closing brace of that JSON or an unrelated warning.
		if se := stderrReportedError(d.format(), out.stderr); se != nil {
			reported = se
		}
		if reported != nil {
			tail = reported.msg
		}
		return nil, &Error{Agent: d.Name, Kind: ReasonAgent, ExitCode: out.exit, Stderr: out.stderr, Result: res,
			Msg: exitedMessage(d.Name, out.exit, tail)}
	}
	if perr != nil {
		msg := fmt.Sprintf("agent '%s' printed no valid %s: %v", d.Name, d.format(), perr)
		if reported != nil {
			msg = reported.msg
		}
		return nil, &Error{Agent: d.Name, Kind: ReasonAgent, ExitCode: 0, Stderr: out.stderr, Result: res, Msg: msg, err: perr}
	}
	res.Content = parsed.content
	if !parsed.hasUsage {
		count := r.CountTokens
		if count == nil {
			count = tokens.Count
		}
		sys := c.System
		if sys != "" {
			sys += "\n\n"
		}
		res.Usage = Usage{InputTokens: count(sys + c.Prompt), OutputTokens: count(res.Content)}
		res.UsageEstimated = true
	}
	return res, nil
}

var errTimeout = errors.New("agent timeout")

// halted is the error of a call whose context ended.
func halted(d Definition, ctx context.Context) *Error {
	return &Error{Agent: d.Name, Kind: ReasonExecutionHalted, ExitCode: -1,
		Msg: fmt.Sprintf("agent '%s' stopped: %v", d.Name, ctx.Err()), err: ctx.Err()}
}

func (r *Runner) maxOutput() int {
	if r.MaxOutput > 0 {
		return r.MaxOutput
	}
	return DefaultMaxOutput
}

func (r *Runner) grace() time.Duration {
	if r.Grace > 0 {
		return r.Grace
	}
	return DefaultGrace
}

// lastLine returns the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// processOutput is what start measured of a process.
type processOutput struct {
	stdout   []byte
	stderr   string
	exit     int
	stopped  bool // terminated because ctx ended
	overflow bool
	duration time.Duration
}

// start runs the process to its end and the end of its group.
func (r *Runner) start(ctx context.Context, d Definition, path string, inv *Invocation, root string, lines func(string)) (processOutput, error) {
	var po processOutput
	environ := r.Environ
	if environ == nil {
		environ = os.Environ
	}
	cmd := &exec.Cmd{Path: path, Args: inv.Argv, Dir: root, Env: append(environ(), inv.Env...)}
	setProcessGroup(cmd)
	outR, outW, err := os.Pipe()
	if err != nil {
		return po, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return po, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	var inW *os.File
	if inv.Stdin != "" || d.Stdin {
		var inR *os.File
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return po, err
		}
		cmd.Stdin = inR
		defer inR.Close()
	}
	begin := time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return po, err
	}
	if cmd.Stdin != nil {
		cmd.Stdin.(*os.File).Close()
	}
	pgid := cmd.Process.Pid
	live.add(pgid)
	defer live.remove(pgid)
	if r.OnStart != nil {
		r.OnStart(d, pgid)
	}
	k := &killer{pgid: pgid, grace: r.grace()}
	defer k.stop()

	if inW != nil {
		go func() {
			_, _ = io.WriteString(inW, inv.Stdin)
			inW.Close()
		}()
	}
	overflow := make(chan struct{})
	over := false // written by the stdout reader before ioDone closes
	var stdout bytes.Buffer
	outLines, errLines := &lineWriter{fn: lines}, &lineWriter{fn: lines}
	var ioWG sync.WaitGroup
	ioWG.Add(2)
	go func() {
		defer ioWG.Done()
		limit := r.maxOutput()
		buf := make([]byte, 64<<10)
		for {
			n, err := outR.Read(buf)
			if n > 0 && !over {
				if stdout.Len()+n > limit {
					over = true
					close(overflow)
				} else {
					stdout.Write(buf[:n])
					outLines.Write(buf[:n])
				}
			}
			if err != nil {
				return
			}
		}
	}()
	tail := &tailWriter{max: r.tailSize()}
	go func() {
		defer ioWG.Done()
		var w io.Writer = tail
		if lines != nil {
			w = io.MultiWriter(tail, errLines)
		}
		var pw *prefixWriter
		if r.Verbose != nil {
			pw = &prefixWriter{r: r, prefix: "[" + d.Name + "] "}
			w = io.MultiWriter(w, pw)
		}
		_, _ = io.Copy(w, errR)
		if pw != nil {
			pw.flush()
		}
	}()
	ioDone := make(chan struct{})
	go func() { ioWG.Wait(); close(ioDone) }()

	leader := make(chan error, 1)
	go func() { leader <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-leader:
	case <-ctx.Done():
		po.stopped = true
		k.terminate()
		werr = <-leader
	case <-overflow:
		k.terminate()
		werr = <-leader
	}
	// The leader is gone; so must be every process it started.
	if groupAlive(pgid) {
		k.terminate()
	}
	// The output ends when every writer closed it. A process that left the
	// group (setsid, a daemon the agent started) may hold it open for
	// ever: after the grace period the pipes are closed without it.
	held := time.NewTimer(r.grace())
	defer held.Stop()
	select {
	case <-ioDone:
	case <-k.afterKill(time.Second):
		outR.Close()
		errR.Close()
		<-ioDone
	case <-held.C:
		outR.Close()
		errR.Close()
		<-ioDone
	}
	if groupAlive(pgid) {
		// A process of the group closed its output and lives on.
		k.terminate()
		deadline := k.afterKill(time.Second)
	wait:
		for groupAlive(pgid) {
			select {
			case <-deadline:
				break wait
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	outR.Close()
	errR.Close()
	if inW != nil {
		inW.Close()
	}
	po.overflow = over
	po.duration = time.Since(begin)
	po.stdout = stdout.Bytes()
	po.stderr = tail.String()
	po.exit = 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			return po, werr
		}
		po.exit = exitStatus(ee)
	}
	return po, nil
}

func (r *Runner) tailSize() int {
	if r.StderrTail > 0 {
		return r.StderrTail
	}
	return DefaultStderrTail
}

// killer terminates a process group once: SIGTERM, then SIGKILL after the
// grace period.
type killer struct {
	pgid   int
	grace  time.Duration
	once   sync.Once
	mu     sync.Mutex
	timer  *time.Timer
	killed chan struct{}
}

func (k *killer) terminate() {
	k.once.Do(func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		k.killed = make(chan struct{})
		signalGroup(k.pgid, false)
		k.timer = time.AfterFunc(k.grace, func() {
			signalGroup(k.pgid, true)
			close(k.killed)
		})
	})
}

// afterKill returns a channel closed d after SIGKILL was sent; it never
// closes when the group was not terminated.
func (k *killer) afterKill(d time.Duration) <-chan struct{} {
	k.mu.Lock()
	killed := k.killed
	k.mu.Unlock()
	ch := make(chan struct{})
	if killed == nil {
		return ch
	}
	go func() {
		<-killed
		time.Sleep(d)
		close(ch)
	}()
	return ch
}

func (k *killer) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.timer != nil {
		k.timer.Stop()
	}
}

// tailWriter keeps the last max bytes written.
type tailWriter struct {
	max int
	buf []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return string(b)
}

// prefixWriter writes whole lines to the runner's Verbose writer, each
// prefixed; a partial line waits for its end (at most 64 KiB).
type prefixWriter struct {
	r      *Runner
	prefix string
	line   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	for _, c := range b {
		p.line = append(p.line, c)
		if c == '\n' || len(p.line) >= 64<<10 {
			p.emit()
		}
	}
	return len(b), nil
}

func (p *prefixWriter) emit() {
	if len(p.line) == 0 {
		return
	}
	if p.line[len(p.line)-1] != '\n' {
		p.line = append(p.line, '\n')
	}
	p.r.vmu.Lock()
	_, _ = io.WriteString(p.r.Verbose, p.prefix+string(p.line))
	p.r.vmu.Unlock()
	p.line = p.line[:0]
}

func (p *prefixWriter) flush() { p.emit() }

// live holds the process groups of the agents running in this process.
var live = &groups{m: map[int]bool{}}

type groups struct {
	mu sync.Mutex
	m  map[int]bool
}

func (g *groups) add(pgid int) {
	g.mu.Lock()
	g.m[pgid] = true
	g.mu.Unlock()
}

func (g *groups) remove(pgid int) {
	g.mu.Lock()
	delete(g.m, pgid)
	g.mu.Unlock()
}

// KillAll sends SIGKILL to the process group of every agent running in
// this process. A program that must exit at once (a second Ctrl-C) calls
// it first, so that no agent process outlives it.
func KillAll() {
	live.mu.Lock()
	defer live.mu.Unlock()
	for pgid := range live.m {
		signalGroup(pgid, true)
	}
}

// lineWriter calls fn with each complete non-empty line written to it,
// trimmed, without its line ending (\n, or \r, with which a progress bar
// redraws its line); a nil fn makes it do nothing. A line longer
// than 4 KiB is reported by its first 4 KiB.
type lineWriter struct {
	fn  func(string)
	buf []byte
}

const maxReportedLine = 4 << 10

func (w *lineWriter) Write(p []byte) (int, error) {
	if w.fn == nil {
		return len(p), nil
	}
	for _, b := range p {
		// A carriage return ends a line too: a progress bar or a
		// spinner redraws its line with \r, and its latest state is
		// the line to show, not the whole run of states at the \n.
		if b == '\n' || b == '\r' {
			if line := strings.TrimSpace(string(w.buf)); line != "" {
				w.fn(line)
			}
			w.buf = w.buf[:0]
			continue
		}
		if len(w.buf) < maxReportedLine {
			w.buf = append(w.buf, b)
		}
	}
	return len(p), nil
}
