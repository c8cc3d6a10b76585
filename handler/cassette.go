package handler

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The replay provider's defaults (SPEC §14.5).
const (
	ReplayName = "replay"
	// CassetteEnv names the environment variable with the cassette path.
	CassetteEnv = "EVALRUN_CASSETTE"
	// DefaultCassette is the cassette path relative to the project root.
	DefaultCassette = ".evalrun/cassette.jsonl"
)

// CassettePath returns the replay cassette: the configured path, else
// $EVALRUN_CASSETTE, else DefaultCassette; a relative configured or default
// path is taken relative to root. getenv nil means os.Getenv.
func CassettePath(configured, root string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	p := configured
	if p == "" {
		if p = getenv(CassetteEnv); p != "" {
			return p
		}
		p = DefaultCassette
	}
	if !filepath.IsAbs(p) && root != "" {
		p = filepath.Join(root, p)
	}
	return p
}

// record is one line of a cassette (SPEC §14.6). The field order is the
// order written.
type record struct {
	Hash       string         `json:"hash"`
	Model      string         `json:"model"`
	Response   recordResponse `json:"response"`
	RecordedAt string         `json:"recorded_at"`
}

type recordResponse struct {
	Content   string      `json:"content"`
	ToolCalls []ToolCall  `json:"tool_calls"`
	Usage     recordUsage `json:"usage"`
	// CostUSD is the cost an agent or the server reported (SPEC §22.3,
	// §14.9); absent otherwise. Replay answers with it as the server's
	// cost, so a replayed run costs what the recorded one did.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

type recordUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Replay answers from a cassette (SPEC §14.5, §14.6): the recorded response
// of the request's hash, the first record of a hash winning. The cassette
// is read once, at the first call. It is safe for concurrent use.
type Replay struct {
	name string
	path string
	// Model is the configured model (the section's model), reported by
	// DefaultModel.
	Model string

	once    sync.Once
	records map[string]*Response
	costs   map[string]*float64
	err     error
}

// NewReplay returns a replay provider called name ("" means "replay")
// reading the cassette at path (see CassettePath).
func NewReplay(name, path string) *Replay {
	if name == "" {
		name = ReplayName
	}
	return &Replay{name: name, path: path}
}

// Name implements Provider.
func (r *Replay) Name() string { return r.name }

// DefaultModel implements DefaultModeler.
func (r *Replay) DefaultModel() string { return r.Model }

// Path returns the cassette path.
func (r *Replay) Path() string { return r.path }

// Complete implements Provider. An unknown hash fails with reason
// llm_error: "replay: no recorded response for request HASH".
func (r *Replay) Complete(ctx context.Context, req *Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, cost, err := r.Lookup(RequestHash(req))
	if resp != nil {
		// A replayed answer costs what was recorded with it, else nothing:
		// no model is asked (SPEC §14.9).
		if cost == nil {
			cost = new(float64)
		}
		resp.CostUSD = cost
	}
	return resp, err
}

// Lookup returns the recorded answer of a hash and the cost recorded with
// it (nil when none). An unknown hash fails with reason llm_error:
// "replay: no recorded response for request HASH".
func (r *Replay) Lookup(hash string) (*Response, *float64, error) {
	r.once.Do(r.load)
	if r.err != nil {
		return nil, nil, r.err
	}
	resp, ok := r.records[hash]
	if !ok {
		return nil, nil, NewError(ReasonLLMError, "replay: no recorded response for request "+hash, nil)
	}
	out := *resp
	out.ToolCalls = append([]ToolCall(nil), resp.ToolCalls...)
	return &out, r.costs[hash], nil
}

// load reads the cassette.
func (r *Replay) load() {
	r.records = make(map[string]*Response)
	r.costs = make(map[string]*float64)
	data, err := os.ReadFile(r.path)
	if err != nil {
		r.err = NewError(ReasonLLMError, "replay: cannot read cassette "+r.path+": "+PathReason(err), err)
		return
	}
	line := 0
	for len(data) > 0 {
		line++
		var text []byte
		text, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		var rec record
		if err := json.Unmarshal(text, &rec); err != nil || rec.Hash == "" {
			if err == nil {
				err = errors.New("no hash")
			}
			r.err = NewError(ReasonLLMError, fmt.Sprintf("replay: %s:%d: invalid record: %v", r.path, line, err), err)
			return
		}
		if _, dup := r.records[rec.Hash]; dup {
			continue // the first record of a hash wins
		}
		r.costs[rec.Hash] = rec.Response.CostUSD
		r.records[rec.Hash] = &Response{
			Content:   rec.Response.Content,
			ToolCalls: rec.Response.ToolCalls,
			Usage:     Usage{InputTokens: rec.Response.Usage.InputTokens, OutputTokens: rec.Response.Usage.OutputTokens},
		}
	}
}

// Cassette appends the answers of providers to a JSON Lines file for
// --record (SPEC §14.6): one line per answer, a hash already in the file
// never written again. The file is read and opened at the first answer, so
// a run without model calls leaves no file. It is safe for concurrent use;
// one Cassette should serve all the providers of a run.
type Cassette struct {
	path string
	// Now gives recorded_at; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	file   *os.File
	hashes map[string]bool
	err    error
}

// NewCassette returns a cassette writing to path.
func NewCassette(path string) *Cassette { return &Cassette{path: path} }

// Path returns the cassette's file path.
func (c *Cassette) Path() string { return c.path }

// Wrap returns a provider that answers like p and records every answer in
// the cassette. Its Name, default model, context window and temperature
// are p's.
func (c *Cassette) Wrap(p Provider) Provider { return &recording{p: p, c: c} }

// Record appends the answer to req unless its hash is already in the
// file.
func (c *Cassette) Record(req *Request, resp *Response) error {
	cost := resp.CostUSD
	if cost != nil && *cost == 0 {
		cost = nil // free answers (echo) are replayed as free without it
	}
	return c.RecordHash(RequestHash(req), req.Model, resp, cost)
}

// RecordHash appends an answer under a hash computed by the caller (an
// agent call's hash adds the agent's name, SPEC §22.3), with the cost the
// answer reported when known, unless the hash is already in the file.
func (c *Cassette) RecordHash(hash, model string, resp *Response, costUSD *float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.open(); err != nil {
		return err
	}
	if c.hashes[hash] {
		return nil
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	rec := record{
		Hash:  hash,
		Model: model,
		Response: recordResponse{
			Content:   resp.Content,
			ToolCalls: resp.ToolCalls,
			Usage:     recordUsage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens},
			CostUSD:   costUSD,
		},
		RecordedAt: now().UTC().Format(time.RFC3339),
	}
	if rec.Response.ToolCalls == nil {
		rec.Response.ToolCalls = []ToolCall{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return err
	}
	if _, err := c.file.Write(b.Bytes()); err != nil {
		return fmt.Errorf("record: cannot write %s: %w", c.path, err)
	}
	c.hashes[hash] = true
	return nil
}

// open reads the hashes already in the file and opens it for appending;
// c.mu is held.
func (c *Cassette) open() error {
	if c.file != nil || c.err != nil {
		return c.err
	}
	c.hashes = make(map[string]bool)
	if f, err := os.Open(c.path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<30)
		for sc.Scan() {
			var rec struct {
				Hash string `json:"hash"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Hash != "" {
				c.hashes[rec.Hash] = true
			}
		}
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		c.err = fmt.Errorf("record: cannot read %s: %w", c.path, err)
		return c.err
	}
	if dir := filepath.Dir(c.path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			c.err = fmt.Errorf("record: cannot create %s: %w", dir, err)
			return c.err
		}
	}
	f, err := os.OpenFile(c.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		c.err = fmt.Errorf("record: cannot open %s: %w", c.path, err)
		return c.err
	}
	// A cassette whose last line has no line end (edited by hand, or cut
	// short) gets one, so that the first record appended is a line of
	// its own.
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				f.Close()
				c.err = fmt.Errorf("record: cannot write %s: %w", c.path, err)
				return c.err
			}
		}
	}
	c.file = f
	return nil
}

// Close closes the file.
func (c *Cassette) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return nil
	}
	err := c.file.Close()
	c.file = nil
	if c.err == nil {
		c.err = errors.New("record: cassette closed")
	}
	return err
}

// recording is a provider wrapped by a Cassette.
type recording struct {
	p Provider
	c *Cassette
}

func (r *recording) Name() string { return r.p.Name() }

func (r *recording) Complete(ctx context.Context, req *Request) (*Response, error) {
	resp, err := r.p.Complete(ctx, req)
	if err != nil || resp == nil {
		return resp, err
	}
	if err := r.c.Record(req, resp); err != nil {
		return nil, NewError(ReasonUnexpected, err.Error(), err)
	}
	return resp, nil
}

func (r *recording) DefaultModel() string {
	if dm, ok := r.p.(DefaultModeler); ok {
		return dm.DefaultModel()
	}
	return ""
}

func (r *recording) ContextWindow() int {
	if cw, ok := r.p.(ContextWindower); ok {
		return cw.ContextWindow()
	}
	return 0
}

func (r *recording) DefaultTemperature() *float64 {
	if dt, ok := r.p.(DefaultTemperaturer); ok {
		return dt.DefaultTemperature()
	}
	return nil
}

// Unwrap returns the recorded provider.
func (r *recording) Unwrap() Provider { return r.p }
