package handler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Defaults of the openai provider (SPEC §14.5, §14.7, §18).
const (
	OpenAIName           = "openai"
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultAPIKeyEnv     = "OPENAI_API_KEY"
	DefaultTimeout       = 120 * time.Second
	DefaultAttempts      = 3
	// maxResponseBytes bounds the body read from the server.
	maxResponseBytes = 64 << 20
)

// OpenAIConfig configures an OpenAI provider: its name, the settings of
// its [providers.NAME] section (ProviderConfig: BaseURL, "" meaning
// $OPENAI_BASE_URL, else DefaultOpenAIBaseURL; APIKeyEnv, "" meaning
// OPENAI_API_KEY, the key read once by NewOpenAI; Model; ContextWindow;
// Timeout per request, 0 meaning DefaultTimeout; Temperature, sent when
// the template sets none) and the run-wide options (RunOptions: Attempts,
// 0 meaning DefaultAttempts; HTTPClient, nil meaning a client of its own,
// whose Timeout should be zero; Getenv; Notify for the retry lines, nil
// writing them to os.Stderr; Sleep, Jitter and Now, which tests replace).
// Type, Cassette and Root are not used.
type OpenAIConfig struct {
	// Name is the configured provider name, used in notes and messages;
	// "" means "openai".
	Name string
	ProviderConfig
	RunOptions
}

// OpenAI is the provider for any OpenAI-compatible chat-completions server
// (SPEC §14.5). It is safe for concurrent use.
//
// Requests are encoded with go-openai's wire types (messages, function
// tools, response formats, tool calls, usage and error bodies) and sent
// with net/http rather than go-openai's client: go-openai v1.43.0 declares
// temperature as float32 with omitempty, so a temperature of 0 would never
// be sent (sashabaranov/go-openai#9), and its errors drop the Retry-After
// header that SPEC §14.7 needs.
type OpenAI struct {
	cfg    OpenAIConfig
	url    string
	key    string
	client *http.Client
	own    *http.Transport // the transport of a client of our own
}

// IdleConnsPerHost is how many idle connections to the API host the
// provider's own HTTP client keeps for reuse: more than any sensible
// [limits] concurrency, so that parallel calls reuse their connections
// from one round to the next.
const IdleConnsPerHost = 64

// NewOpenAI returns an OpenAI provider. A missing key is not an error here:
// CheckKey reports it, and every call fails with configuration_error.
func NewOpenAI(cfg OpenAIConfig) *OpenAI {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if cfg.Name == "" {
		cfg.Name = OpenAIName
	}
	if cfg.APIKeyEnv == "" {
		cfg.APIKeyEnv = DefaultAPIKeyEnv
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = getenv("OPENAI_BASE_URL")
		if cfg.BaseURL == "" {
			cfg.BaseURL = DefaultOpenAIBaseURL
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = DefaultAttempts
	}
	p := &OpenAI{cfg: cfg, url: strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions", key: getenv(cfg.APIKeyEnv)}
	p.client = cfg.HTTPClient
	if p.client == nil {
		p.own = http.DefaultTransport.(*http.Transport).Clone()
		// Keep a connection per concurrent call alive between calls: with
		// net/http's default of 2 idle connections per host, 8 parallel
		// calls would close 6 connections after each round and dial 6
		// new ones for the next.
		p.own.MaxIdleConnsPerHost = IdleConnsPerHost
		p.own.MaxIdleConns = max(p.own.MaxIdleConns, IdleConnsPerHost)
		p.client = &http.Client{Transport: p.own}
	}
	return p
}

// Name implements Provider.
func (p *OpenAI) Name() string { return p.cfg.Name }

// DefaultModel implements DefaultModeler.
func (p *OpenAI) DefaultModel() string { return p.cfg.Model }

// ContextWindow implements ContextWindower.
func (p *OpenAI) ContextWindow() int { return p.cfg.ContextWindow }

// DefaultTemperature implements DefaultTemperaturer.
func (p *OpenAI) DefaultTemperature() *float64 { return p.cfg.Temperature }

// CheckKey returns a configuration_error when the API key is not set. The
// CLI calls it for a provider chosen for the whole run (exit 2, SPEC §14.5).
func (p *OpenAI) CheckKey() error {
	if p.key == "" {
		return NewError(ReasonConfiguration, "provider '"+p.cfg.Name+"': the environment variable "+
			p.cfg.APIKeyEnv+" is not set", nil)
	}
	return nil
}

// Close releases the idle connections of the provider's own HTTP client.
func (p *OpenAI) Close() {
	if p.own != nil {
		p.own.CloseIdleConnections()
	}
}

// wireRequest is the chat-completions request body. Temperature is a
// pointer so that 0 is sent.
type wireRequest struct {
	Model          string                               `json:"model"`
	Messages       []wireMessage                        `json:"messages"`
	Tools          []openai.Tool                        `json:"tools,omitempty"`
	ResponseFormat *openai.ChatCompletionResponseFormat `json:"response_format,omitempty"`
	Temperature    *float64                             `json:"temperature,omitempty"`
}

// wireMessage is one request message. Content is always sent, except as
// null for an assistant message that holds only tool calls (go-openai's
// message type would drop an empty user message's content).
type wireMessage struct {
	Role       string            `json:"role"`
	Content    *string           `json:"content"`
	ToolCalls  []openai.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string            `json:"tool_call_id,omitempty"`
}

// body encodes req as the request body.
func (p *OpenAI) body(req *Request) ([]byte, error) {
	w := wireRequest{Model: req.Model, Temperature: req.Temperature}
	w.Messages = make([]wireMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		sys := req.System
		w.Messages = append(w.Messages, wireMessage{Role: "system", Content: &sys})
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		wm := wireMessage{Role: m.Role, ToolCallID: m.ToolCallID}
		if m.Content != "" || len(m.ToolCalls) == 0 {
			c := m.Content
			wm.Content = &c
		}
		for _, c := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}})
		}
		w.Messages = append(w.Messages, wm)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		w.Tools = append(w.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params}})
	}
	if rf := req.ResponseFormat; rf != nil {
		switch rf.Type {
		case FormatJSONSchema:
			w.ResponseFormat = &openai.ChatCompletionResponseFormat{
				Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
				JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
					Name: SchemaName(rf.Name), Schema: rf.Schema},
			}
		default:
			w.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatType(rf.Type)}
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Complete implements Provider: POST {base_url}/chat/completions with the
// retries of SPEC §14.7.
func (p *OpenAI) Complete(ctx context.Context, req *Request) (*Response, error) {
	if err := p.CheckKey(); err != nil {
		return nil, err
	}
	body, err := p.body(req)
	if err != nil {
		return nil, NewError(ReasonLLMError, "cannot encode the request for "+p.cfg.Name+": "+err.Error(), err)
	}
	for attempt := 1; ; attempt++ {
		resp, failure := p.attempt(ctx, body)
		if failure == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !failure.retry || attempt >= p.cfg.Attempts {
			return nil, p.redactErr(failure.err)
		}
		delay := backoff(attempt, p.jitter())
		if failure.retryAfter >= 0 {
			delay = min(failure.retryAfter, maxRetryAfter)
		}
		p.notify(fmt.Sprintf("retrying %s request (attempt %d/%d) in %s: %s",
			p.cfg.Name, attempt+1, p.cfg.Attempts, delay.Round(100*time.Millisecond), p.redact(failure.short)))
		if err := p.sleep(ctx, delay); err != nil {
			return nil, err
		}
	}
}

// failure describes a failed attempt.
type failure struct {
	err        error
	retry      bool
	short      string        // the reason in a retry line: "HTTP 429"
	retryAfter time.Duration // -1 when the server gave none
}

// attempt sends one request with the per-request timeout.
func (p *OpenAI) attempt(ctx context.Context, body []byte) (*Response, *failure) {
	actx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, &failure{err: NewError(ReasonConfiguration, "provider '"+p.cfg.Name+"': invalid base_url "+displayURL(p.cfg.BaseURL), nil)}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("Authorization", "Bearer "+p.key)
	hresp, err := p.client.Do(hreq)
	if err != nil {
		return nil, p.transportFailure(ctx, actx, err)
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, maxResponseBytes))
	if err != nil {
		return nil, p.transportFailure(ctx, actx, err)
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return nil, p.httpFailure(hresp, data)
	}
	resp, err := decodeResponse(data)
	if err != nil {
		return nil, &failure{err: NewError(ReasonLLMError, "invalid response from "+p.cfg.Name+": "+err.Error(), err)}
	}
	return resp, nil
}

// transportFailure classifies an error of the connection: a timeout of the
// attempt, or a network error. Both are retried.
func (p *OpenAI) transportFailure(ctx, actx context.Context, err error) *failure {
	if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return &failure{
			err:   NewError(ReasonExecutionTimeout, p.cfg.Name+" request timed out after "+p.cfg.Timeout.String(), err),
			retry: true, short: "timeout after " + p.cfg.Timeout.String(), retryAfter: -1,
		}
	}
	detail := networkDetail(err)
	return &failure{
		err:   NewError(ReasonConnectionError, "connection error talking to "+p.cfg.Name+": "+detail, err),
		retry: true, short: "connection error: " + detail, retryAfter: -1,
	}
}

// networkDetail returns the innermost useful text of a network error,
// without the URL that *url.Error adds.
func networkDetail(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	for {
		u := errors.Unwrap(err)
		if u == nil {
			break
		}
		err = u
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "connection closed by the server"
	}
	return err.Error()
}

// retryStatus reports whether an HTTP status is retried (SPEC §14.7).
func retryStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// httpFailure builds the failure of a non-2xx answer, with the server's
// message and, for 401, 403 and 404, what to check: the key's variable, or
// the model and base_url.
func (p *OpenAI) httpFailure(hresp *http.Response, data []byte) *failure {
	code := hresp.StatusCode
	msg := serverMessage(data)
	if msg == "" {
		msg = http.StatusText(code)
	}
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg += " (check the key in " + p.cfg.APIKeyEnv + ")"
	case http.StatusNotFound:
		msg += " (check the model and the server's base_url, " + displayURL(p.cfg.BaseURL) + ")"
	}
	f := &failure{
		err:        NewError(ReasonLLMError, p.cfg.Name+": HTTP "+strconv.Itoa(code)+": "+msg, nil),
		retry:      retryStatus(code),
		short:      "HTTP " + strconv.Itoa(code),
		retryAfter: -1,
	}
	if f.retry {
		if d, ok := parseRetryAfter(hresp.Header.Get("Retry-After"), p.now()); ok {
			f.retryAfter = d
		}
	}
	return f
}

// serverMessage extracts the error message of an error body: the
// "error.message" of an OpenAI error object, else the text, cut to 500
// bytes (at a character boundary).
func serverMessage(data []byte) string {
	var er openai.ErrorResponse
	if err := json.Unmarshal(data, &er); err == nil && er.Error != nil && er.Error.Message != "" {
		return er.Error.Message
	}
	text := strings.TrimSpace(string(data))
	if len(text) > 500 {
		cut := 500
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut-- // not inside a character
		}
		text = text[:cut] + "…"
	}
	return strings.Join(strings.Fields(text), " ")
}

// decodeResponse reads a chat-completions answer.
func decodeResponse(data []byte) (*Response, error) {
	var cr openai.ChatCompletionResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return nil, err
	}
	if len(cr.Choices) == 0 {
		return nil, errors.New("no choices in the answer")
	}
	m := cr.Choices[0].Message
	resp := &Response{Content: m.Content, Usage: Usage{InputTokens: cr.Usage.PromptTokens, OutputTokens: cr.Usage.CompletionTokens}}
	if cr.Usage.PromptTokensDetails != nil {
		resp.CachedInputTokens = cr.Usage.PromptTokensDetails.CachedTokens
	}
	// usage.cost is not part of the OpenAI answer: routers such as
	// OpenRouter add it (SPEC §14.9).
	var extra struct {
		Usage struct {
			Cost *float64 `json:"cost"`
		} `json:"usage"`
	}
	if json.Unmarshal(data, &extra) == nil && extra.Usage.Cost != nil {
		resp.CostUSD = extra.Usage.Cost
	}
	for i, c := range m.ToolCalls {
		id := c.ID
		if id == "" {
			id = "call_" + strconv.Itoa(i+1)
		}
		resp.ToolCalls = append(resp.ToolCalls, ToolCall{ID: id, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	return resp, nil
}

func (p *OpenAI) notify(msg string) {
	if p.cfg.Notify != nil {
		p.cfg.Notify(msg)
		return
	}
	fmt.Fprintln(os.Stderr, msg)
}

func (p *OpenAI) sleep(ctx context.Context, d time.Duration) error {
	if p.cfg.Sleep != nil {
		return p.cfg.Sleep(ctx, d)
	}
	return SleepContext(ctx, d)
}

func (p *OpenAI) jitter() float64 {
	if p.cfg.Jitter != nil {
		return p.cfg.Jitter()
	}
	return rand.Float64()
}

func (p *OpenAI) now() time.Time {
	if p.cfg.Now != nil {
		return p.cfg.Now()
	}
	return time.Now()
}

// redact removes the API key from a text (SPEC §19), however short the key
// (a local server's key may be a word such as "ollama").
func (p *OpenAI) redact(s string) string {
	if p.key != "" {
		s = strings.ReplaceAll(s, p.key, "[redacted]")
	}
	return s
}

// displayURL is a base URL as messages show it: a password in it is
// replaced by "xxxxx" and a query string by "?…", since either may hold a
// credential (https://user:KEY@host/v1, …/v1?api-key=KEY). Text that does
// not parse as a URL is shown as "(unparsable URL)".
func displayURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	query := u.RawQuery != "" || u.ForceQuery
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	s := u.Redacted()
	if query {
		s += "?…"
	}
	return s
}

// redactErr returns err with the API key removed from its message.
func (p *OpenAI) redactErr(err error) error {
	var he *Error
	if errors.As(err, &he) {
		if red := p.redact(he.msg); red != he.msg {
			return NewError(he.reason, red, nil)
		}
	}
	return err
}

// SleepContext waits for d or until ctx is done, whichever comes first.
func SleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// The retry delays of SPEC §14.7.
const (
	maxBackoff    = 30 * time.Second
	maxRetryAfter = 60 * time.Second
)

// backoff returns the delay before attempt k+1 after attempt k failed: 1 s
// × 2^(k−1) with ±20 % jitter (j in [0, 1) maps to −20 %…+20 %), at most 30 s.
func backoff(k int, j float64) time.Duration {
	base := float64(time.Second) * float64(uint64(1)<<min(k-1, 30))
	d := time.Duration(base * (0.8 + 0.4*j))
	return min(d, maxBackoff)
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date. A
// date in the past gives 0; the wait is at most maxRetryAfter.
func parseRetryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(h, 64); err == nil {
		if math.IsNaN(secs) {
			return 0, false // "NaN" parses as a number but is none
		}
		if secs < 0 {
			return 0, true
		}
		if secs > maxRetryAfter.Seconds() {
			return maxRetryAfter, true
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(h); err == nil {
		return min(max(t.Sub(now), 0), maxRetryAfter), true
	}
	return 0, false
}
