package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/sexp"
)

// The decoded form of one file: a nil pointer or a missing map entry means
// that the file does not set the key, so that merging can tell "not set"
// from a zero value.
type rawFile struct {
	DefaultProvider *string                 `toml:"default_provider"`
	Providers       map[string]*rawProvider `toml:"providers"`
	Limits          *rawLimits              `toml:"limits"`
	Context         *rawContext             `toml:"context"`
	Tools           *rawTools               `toml:"tools"`
	Roles           map[string]*rawRole     `toml:"roles"`
	Plan            *rawPlan                `toml:"plan"`
	Prices          map[string]*rawPrices   `toml:"prices"`
	Temporal        *rawTemporal            `toml:"temporal"`
	agentTables
}

type rawProvider struct {
	Type          *string    `toml:"type"`
	BaseURL       *string    `toml:"base_url"`
	APIKeyEnv     *string    `toml:"api_key_env"`
	Model         *string    `toml:"model"`
	ContextWindow *int64     `toml:"context_window"`
	Timeout       *string    `toml:"timeout"`
	Temperature   *float64   `toml:"temperature"`
	Cassette      *string    `toml:"cassette"`
	Prices        *rawPrices `toml:"prices"`
}

type rawLimits struct {
	MaxTurns        *int64   `toml:"max_turns"`
	ContextFraction *float64 `toml:"context_fraction"`
	Concurrency     *int64   `toml:"concurrency"`
	RecursionDepth  *int64   `toml:"recursion_depth"`
	Timeout         *string  `toml:"timeout"`
	MaxSteps        *int64   `toml:"max_steps"`
	MaxStringBytes  *int64   `toml:"max_string_bytes"`
	LLMAttempts     *int64   `toml:"llm_attempts"`
	MaxCostUSD      *float64 `toml:"max_cost_usd"`
	MaxTokens       *int64   `toml:"max_tokens"`
}

type rawContext struct {
	FreshTopK *int64 `toml:"fresh_top_k"`
	SubsetK   *int64 `toml:"subset_k"`
}

type rawTools struct {
	ShellAllow []string `toml:"shell_allow"`
}

type rawRole struct {
	System *string `toml:"system"`
	rawUTD
	Description *string `toml:"description"`
}

// keyKinds describes every key of SPEC §18 by its path, with "*" for the
// NAME of [providers.NAME] and [roles.NAME]: what a value must be, as said
// in type errors. It also lists the keys offered as "did you mean" hints.
var keyKinds = map[string]string{
	"default_provider":                "a string",
	"providers":                       "a table",
	"providers.*":                     "a table",
	"providers.*.type":                "a string",
	"providers.*.base_url":            "a string",
	"providers.*.api_key_env":         "a string",
	"providers.*.model":               "a string",
	"providers.*.context_window":      "an integer",
	"providers.*.timeout":             `a duration string such as "120s"`,
	"providers.*.temperature":         "a number",
	"providers.*.cassette":            "a string",
	"limits":                          "a table",
	"limits.max_turns":                "an integer",
	"limits.context_fraction":         "a number",
	"limits.concurrency":              "an integer",
	"limits.recursion_depth":          "an integer",
	"limits.timeout":                  `a duration string such as "10m" (or "" for none)`,
	"limits.max_steps":                "an integer",
	"limits.max_string_bytes":         "an integer",
	"limits.llm_attempts":             "an integer",
	"limits.max_cost_usd":             "a number",
	"limits.max_tokens":               "an integer",
	"providers.*.prices":              "a table",
	"providers.*.prices.input":        "a number",
	"providers.*.prices.output":       "a number",
	"providers.*.prices.cached_input": "a number",
	"prices":                          "a table",
	"prices.*":                        "a table",
	"prices.*.input":                  "a number",
	"prices.*.output":                 "a number",
	"prices.*.cached_input":           "a number",
	"context":                         "a table",
	"context.fresh_top_k":             "an integer",
	"context.subset_k":                "an integer",
	"tools":                           "a table",
	"tools.shell_allow":               "an array of strings",
	"roles":                           "a table",
	"roles.*":                         "a table",
	"roles.*.system":                  "a string",
	"temporal":                        "a table",
	"temporal.address":                `a string "HOST:PORT"`,
	"temporal.namespace":              "a string",
	"temporal.task_queue":             "a string",
}

// Load reads the global and then the local configuration file and merges
// them over the defaults (SPEC §18). A path that is "" or names no file is
// skipped. The error, when not nil, is an ErrorList of every problem found
// (use Errors to get them); the configuration is then nil.
func Load(globalPath, localPath string, opts ...Option) (*Config, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cfg := Default()
	m := merger{cfg: cfg, origin: map[string]sexp.Pos{}}
	var errs ErrorList
	for i, path := range []string{globalPath, localPath} {
		m.local = i == 1
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		name := o.display(path)
		if err == nil {
			if info, serr := os.Stat(path); serr == nil && info.IsDir() {
				err = errors.New("is a directory")
			}
		}
		if err != nil {
			errs = append(errs, &Error{File: name, Msg: "cannot read configuration: " + reason(err)})
			continue
		}
		f := &file{src: sexp.NewSource(name, string(data))}
		f.positions()
		raw, ferrs := f.decode()
		if len(ferrs) == 0 {
			ferrs = f.validate(raw)
		}
		if len(ferrs) > 0 {
			slices.SortStableFunc(ferrs, func(a, b *Error) int { return a.Pos.Off - b.Pos.Off })
			errs = append(errs, ferrs...)
			continue
		}
		m.overlay(f, raw)
		cfg.Files = append(cfg.Files, path)
	}
	if len(errs) == 0 {
		errs = m.check()
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}

// Option configures Load.
type Option func(*options)

type options struct {
	displayFn func(string) string
}

func (o *options) display(path string) string {
	if o.displayFn != nil {
		return o.displayFn(path)
	}
	return path
}

// WithDisplay sets how a file's path is shown in error positions, such as
// relative to the working directory or with "~" (templates.DisplayPath).
func WithDisplay(fn func(path string) string) Option {
	return func(o *options) { o.displayFn = fn }
}

// reason returns the part of a file error that says what went wrong.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// file is one configuration file being read.
type file struct {
	src *sexp.Source
	// pos maps a key path ("limits.timeout", `providers.local-llm`) to the
	// offset of its value, or of its key or table header when the value has
	// no single place.
	pos map[string]int
	// paths maps an offset to the longest key path placed there.
	paths map[int][]string
}

// at returns the position of the value of a key path, or of its nearest
// enclosing key, or the start of the file.
func (f *file) at(path ...string) sexp.Pos {
	for n := len(path); n > 0; n-- {
		if off, ok := f.pos[keyPath(path[:n])]; ok {
			return sexp.Pos{Src: f.src, Off: off}
		}
	}
	return sexp.Pos{Src: f.src, Off: 0}
}

// errorAt returns an error at the value of the key path.
func (f *file) errorAt(path []string, format string, args ...any) *Error {
	return &Error{Pos: f.at(path...), Key: keyPath(path), Msg: fmt.Sprintf(format, args...)}
}

// decode reads the file with go-toml, unknown keys being errors.
func (f *file) decode() (*rawFile, ErrorList) {
	var raw rawFile
	dec := toml.NewDecoder(strings.NewReader(f.src.Text))
	dec.DisallowUnknownFields()
	err := dec.Decode(&raw)
	if err == nil {
		return &raw, nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs ErrorList
		for i := range strict.Errors {
			de := &strict.Errors[i]
			key := []string(de.Key())
			errs = append(errs, &Error{Pos: f.offsetPos(de), Key: keyPath(key), Msg: unknownKeyMessage(key)})
		}
		return nil, errs
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		return nil, ErrorList{f.decodeError(de)}
	}
	return nil, ErrorList{{Pos: sexp.Pos{Src: f.src}, Msg: err.Error()}}
}

// offsetPos converts the line and byte column of a go-toml error into a
// position in the file.
func (f *file) offsetPos(de *toml.DecodeError) sexp.Pos {
	line, col := de.Position()
	off := 0
	text := f.src.Text
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	off += max(col-1, 0)
	return sexp.Pos{Src: f.src, Off: min(off, len(text))}
}

var decodeKindRE = regexp.MustCompile(`^cannot decode TOML (\w+(?: \w+)?) into (?:struct field \S+ of type )?(\S+)`)

// decodeError turns a go-toml syntax or type error into an Error naming the
// key.
func (f *file) decodeError(de *toml.DecodeError) *Error {
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	key := []string(de.Key())
	e := &Error{Pos: f.offsetPos(de), Key: keyPath(key)}
	// Inside inline tables go-toml names only the outer key; the value's
	// position tells the whole path.
	if p := f.paths[e.Pos.Off]; len(p) > len(key) && slices.Equal(p[:len(key)], key) {
		key = p
		e.Key = keyPath(key)
	}
	if m := decodeKindRE.FindStringSubmatch(msg); m != nil && len(key) > 0 {
		want := keyKinds[generic(key)]
		if want == "" {
			want = "another type"
		}
		got := withArticle(m[1])
		if want == keyKinds["tools.shell_allow"] && !strings.HasPrefix(m[2], "[]") {
			got = "an array holding " + got
		}
		e.Msg = fmt.Sprintf("%s: expected %s, got %s", keyPath(key), want, got)
		return e
	}
	if word := bareWord(f.src.Text[e.Pos.Off:]); word != "" && strings.Contains(msg, "at start of value") {
		// A string written without quotes: say how to write it.
		msg += fmt.Sprintf(" (a string needs quotes: %q)", word)
	}
	switch {
	case len(key) == 0:
		e.Msg = "TOML syntax error: " + msg
	case len(key) > 0 && strings.Contains(msg, key[len(key)-1]):
		e.Msg = "TOML syntax error: " + msg
	default:
		e.Msg = keyPath(key) + ": " + msg
	}
	return e
}

// bareWord returns the word that starts text when it starts with a letter
// (a value that should have been a quoted string), up to the end of the
// line or a comment, trimmed; "" otherwise.
func bareWord(text string) string {
	if text == "" || !unicode.IsLetter(rune(text[0])) {
		return ""
	}
	line, _, _ := strings.Cut(text, "\n")
	line, _, _ = strings.Cut(line, "#")
	return strings.TrimSpace(line)
}

// withArticle names a TOML kind with its article: "an integer", "a string".
func withArticle(kind string) string {
	switch kind {
	case "integer", "array", "inline table":
		return "an " + kind
	case "bool":
		return "a boolean"
	}
	return "a " + kind
}

// generic returns the key path with the NAME of providers and roles
// replaced by "*", as keyKinds lists it.
func generic(key []string) string {
	k := slices.Clone(key)
	if len(k) > 1 && (k[0] == "providers" || k[0] == "roles" || k[0] == "prices" || namedTables[k[0]]) {
		k[1] = "*"
	}
	return strings.Join(k, ".")
}

// unknownKeyMessage says that key is not a configuration key, with a hint
// naming a key of the same table within edit distance 2.
func unknownKeyMessage(key []string) string {
	msg := fmt.Sprintf("unknown key '%s'", keyPath(key))
	if len(key) == 0 {
		return msg
	}
	parent := generic(key[:len(key)-1])
	last := key[len(key)-1]
	best, bestDist := "", 3
	for k := range keyKinds {
		kp, kl, ok := cutLast(k)
		if !ok {
			kp, kl = "", k
		}
		if kp != parent || kl == "*" {
			continue
		}
		if d := suggest.Distance(strings.ToLower(last), kl); d < bestDist || d == bestDist && kl < best {
			best, bestDist = kl, d
		}
	}
	if best != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", best)
	} else if hint := startKeyHint(key); hint != "" {
		msg += " (" + hint + ")"
	}
	return msg
}

// startKeyHint explains the keys of start's configuration that a user
// pasting it brings along and that evalrun names differently or does not
// read, "" for any other key.
func startKeyHint(key []string) string {
	switch {
	case key[0] == "settings":
		return "start's [settings] table: write default_agent and default_role at the top level of the file; shell and command_timeout are keys of each role, context or task"
	case len(key) >= 2 && key[0] == "context":
		return fmt.Sprintf("start's [context.%s] is [contexts.%s] here", key[1], key[1])
	}
	return ""
}

func cutLast(k string) (parent, last string, ok bool) {
	i := strings.LastIndexByte(k, '.')
	if i < 0 {
		return "", k, false
	}
	return k[:i], k[i+1:], true
}

// bareKey matches the keys TOML allows without quotes.
var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// keyPath joins key parts with dots, quoting the parts that are not bare
// keys: providers."my llm".model.
func keyPath(key []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		if bareKey.MatchString(k) {
			parts[i] = k
		} else {
			parts[i] = fmt.Sprintf("%q", k)
		}
	}
	return strings.Join(parts, ".")
}

// The checks of the values after decoding.

var (
	envNameRE      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	providerNameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
)

// validate checks every value the file sets (SPEC §18), reporting all
// problems.
func (f *file) validate(raw *rawFile) ErrorList {
	var errs ErrorList
	add := func(e *Error) { errs = append(errs, e) }
	intMin := func(path []string, v *int64, lo int64) {
		if v != nil && *v < lo {
			add(f.errorAt(path, "%s: must be at least %d, got %d", keyPath(path), lo, *v))
		}
	}
	nonEmpty := func(path []string, v *string) {
		if v != nil && strings.TrimSpace(*v) == "" {
			add(f.errorAt(path, "%s: must not be empty", keyPath(path)))
		}
	}
	nonEmpty([]string{"default_provider"}, raw.DefaultProvider)
	errs = append(errs, f.validatePlan(raw.Plan)...)
	errs = append(errs, f.validateTemporal(raw.Temporal)...)
	for _, name := range sortedKeys(raw.Providers) {
		p := raw.Providers[name]
		if p == nil {
			continue
		}
		base := []string{"providers", name}
		sub := func(k string) []string { return append(slices.Clone(base), k) }
		if !providerNameRE.MatchString(name) {
			add(f.errorAt(base, "invalid provider name '%s': use letters, digits, '.', '_' and '-'", name))
		}
		if p.Type != nil {
			switch *p.Type {
			case TypeOpenAI, TypeEcho, TypeReplay:
			default:
				add(f.errorAt(sub("type"), "%s: invalid value %q: expected openai, echo or replay", keyPath(sub("type")), *p.Type))
			}
		}
		if p.BaseURL != nil {
			if u, err := url.Parse(*p.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				add(f.errorAt(sub("base_url"), "%s: invalid URL %q: expected http://HOST/... or https://HOST/...", keyPath(sub("base_url")), *p.BaseURL))
			}
		}
		if p.APIKeyEnv != nil && !envNameRE.MatchString(*p.APIKeyEnv) {
			add(f.errorAt(sub("api_key_env"), "%s: invalid environment variable name %q", keyPath(sub("api_key_env")), *p.APIKeyEnv))
		}
		nonEmpty(sub("model"), p.Model)
		nonEmpty(sub("cassette"), p.Cassette)
		intMin(sub("context_window"), p.ContextWindow, 1)
		if p.Timeout != nil {
			if d, err := parseDuration(*p.Timeout); err != nil {
				add(f.errorAt(sub("timeout"), "%s: %v", keyPath(sub("timeout")), err))
			} else if d <= 0 {
				add(f.errorAt(sub("timeout"), "%s: must be a positive duration, got %q", keyPath(sub("timeout")), *p.Timeout))
			}
		}
		errs = append(errs, f.validatePrices(sub("prices"), p.Prices)...)
		if p.Temperature != nil && (*p.Temperature < 0 || *p.Temperature > 2) {
			add(f.errorAt(sub("temperature"), "%s: must be between 0 and 2, got %v", keyPath(sub("temperature")), *p.Temperature))
		}
	}
	if l := raw.Limits; l != nil {
		p := func(k string) []string { return []string{"limits", k} }
		intMin(p("max_turns"), l.MaxTurns, 1)
		if l.ContextFraction != nil && (*l.ContextFraction <= 0 || *l.ContextFraction > 1) {
			add(f.errorAt(p("context_fraction"), "limits.context_fraction: must be greater than 0 and at most 1, got %v", *l.ContextFraction))
		}
		intMin(p("concurrency"), l.Concurrency, 1)
		intMin(p("recursion_depth"), l.RecursionDepth, 1)
		if l.Timeout != nil && *l.Timeout != "" {
			if d, err := parseDuration(*l.Timeout); err != nil {
				add(f.errorAt(p("timeout"), "limits.timeout: %v", err))
			} else if d < 0 {
				add(f.errorAt(p("timeout"), "limits.timeout: must not be negative, got %q", *l.Timeout))
			}
		}
		intMin(p("max_steps"), l.MaxSteps, 0)
		intMin(p("max_string_bytes"), l.MaxStringBytes, 1)
		intMin(p("llm_attempts"), l.LLMAttempts, 1)
		intMin(p("max_tokens"), l.MaxTokens, 0)
		if l.MaxCostUSD != nil && (*l.MaxCostUSD < 0 || math.IsNaN(*l.MaxCostUSD) || math.IsInf(*l.MaxCostUSD, 0)) {
			add(f.errorAt(p("max_cost_usd"), "limits.max_cost_usd: must be a number of US dollars, at least 0, got %v", *l.MaxCostUSD))
		}
		for _, v := range []struct {
			k string
			v *int64
		}{{"max_turns", l.MaxTurns}, {"concurrency", l.Concurrency}, {"recursion_depth", l.RecursionDepth}, {"max_string_bytes", l.MaxStringBytes}, {"llm_attempts", l.LLMAttempts}} {
			if v.v != nil && *v.v > maxInt32 {
				add(f.errorAt(p(v.k), "limits.%s: must be at most %d, got %d", v.k, maxInt32, *v.v))
			}
		}
	}
	if c := raw.Context; c != nil {
		intMin([]string{"context", "fresh_top_k"}, c.FreshTopK, 1)
		intMin([]string{"context", "subset_k"}, c.SubsetK, 1)
	}
	if t := raw.Tools; t != nil {
		for _, prog := range t.ShellAllow {
			if strings.TrimSpace(prog) == "" {
				add(f.errorAt([]string{"tools", "shell_allow"}, "tools.shell_allow: program names must not be empty"))
				break
			}
		}
	}
	for _, model := range sortedKeys(raw.Prices) {
		errs = append(errs, f.validatePrices([]string{"prices", model}, raw.Prices[model])...)
	}
	errs = append(errs, f.validateAgentTables(raw)...)
	return errs
}

const maxInt32 = 1<<31 - 1

// parseDuration reads a Go duration ("90s", "5m", "1h30m").
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: expected a Go duration such as \"90s\" or \"5m\"", s)
	}
	return d, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// positions records where every key of the file is, with go-toml's
// unstable parser: the value of a key/value pair, the first key of a table
// header.
func (f *file) positions() {
	f.pos = map[string]int{}
	f.paths = map[int][]string{}
	var p parser
	p.reset([]byte(f.src.Text))
	p.walk(func(path []string, off int) {
		k := keyPath(path)
		if _, seen := f.pos[k]; !seen {
			f.pos[k] = off
		}
		if len(path) > len(f.paths[off]) {
			f.paths[off] = slices.Clone(path)
		}
	})
}
