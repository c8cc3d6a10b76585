package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evalrun/evalrun/agent"
	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/internal/suggest"
	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
)

// AgentOptions are the options of a run about agents, roles and contexts
// (SPEC §22), embedded in Options.
type AgentOptions struct {
	// Agent is --agent: an agent name, or "none" to send every call to a
	// provider. It cannot be combined with Provider.
	Agent string
	// Role is --role.
	Role string
	// Contexts are the --context names or tags.
	Contexts []string
	// Verbose streams the agents' stderr to Stderr, each line prefixed
	// "[NAME] " (-v).
	Verbose bool
	// ReadOnly appends each agent's read_only_args to its command (for
	// analysis runs, SPEC §23.7).
	ReadOnly bool
	// ListContexts prints the list of the run's contexts once on Stderr
	// (SPEC §22.5: run, task and plan run do; repl, eval and context do
	// not).
	ListContexts bool
}

// KillAgents kills the process group of every agent running in this
// process. A command that exits at once (a second Ctrl-C) calls it first.
func KillAgents() { agent.KillAll() }

// agentSettings builds the executor's agent, role and context settings
// for a run.
func (e *Engine) agentSettings(ctx context.Context, cfg *config.Config) (tasksystem.AgentSettings, error) {
	opts := e.opts
	ws := e.ws
	if opts.Agent != "" && opts.Agent != "none" && opts.Provider != "" {
		return tasksystem.AgentSettings{}, errorf(KindUsage, "--agent and --provider cannot be used together")
	}
	if opts.Role != "" {
		if _, ok := cfg.RoleDefs[opts.Role]; !ok {
			return tasksystem.AgentSettings{}, errorf(KindConfig, "--role: %s", cfg.UnknownRole(opts.Role))
		}
	}
	runner := agent.NewRunner()
	runner.DefaultParallel = cfg.Limits.Concurrency
	if opts.Verbose {
		// Whole lines, never interleaved with the run's other messages.
		runner.Verbose = e.stderr
	}
	s := tasksystem.AgentSettings{
		Agent:        opts.Agent,
		DefaultAgent: cfg.DefaultAgent,
		LookupAgent:  cfg.AgentDefinition,
		AgentNames:   cfg.AgentNames,
		Runner:       runner,
		ReadOnly:     opts.ReadOnly,
		Role:         opts.Role,
		DefaultRole:  cfg.DefaultRole,
		RoleText:     newRoleResolver(cfg, ws, e.start).text,
		AnnounceAgent: func(def agent.Definition, argv []string) {
			e.stderr.printf("%s\n", announceLine(def))
		},
	}
	if e.dry != nil {
		s.AgentDryRun = func(ctx context.Context, t *templates.Template, def agent.Definition, argv []string, req *handler.Request) error {
			return e.dry.recordAgent(t, def.Name, argv, req, def.PlacesSystem())
		}
	} else if p := opts.Provider; p != "" {
		if pc, ok := cfg.Provider(p); ok && pc.EffectiveType(p) == config.TypeReplay {
			s.AgentReplay = handler.NewReplay(p, handler.CassettePath(pc.Cassette, ws.Root, opts.Getenv)).Lookup
		}
	}
	if e.cassette != nil {
		s.AgentRecord = e.cassette.RecordHash
	}
	ctxs, err := selectedContexts(cfg, opts.Contexts)
	if err != nil {
		return s, err
	}
	if !opts.ListContexts {
		// eval, repl, context: the contexts are rendered before the first
		// task call, so a command that calls no task runs no context
		// command and reads no context file.
		s.LoadContexts = func(ctx context.Context) (string, error) { return e.contextsText(ctx, ctxs) }
		return s, nil
	}
	// run, task and plan run list the contexts at their start, as start
	// does, and refuse to begin with one that cannot be rendered.
	text, err := e.contextsText(ctx, ctxs)
	if err != nil {
		return s, err
	}
	s.Contexts = text
	return s, nil
}

// roleResolver computes the text of roles with UTD fields once per model.
type roleResolver struct {
	cfg   *config.Config
	ws    *Workspace
	start time.Time

	mu    sync.Mutex
	cache map[[2]string]string
}

func newRoleResolver(cfg *config.Config, ws *Workspace, start time.Time) *roleResolver {
	return &roleResolver{cfg: cfg, ws: ws, start: start, cache: map[[2]string]string{}}
}

// text implements tasksystem.AgentSettings.RoleText.
func (r *roleResolver) text(ctx context.Context, name, model string) (string, bool, error) {
	role, ok := r.cfg.RoleDefs[name]
	if !ok {
		return "", false, nil
	}
	if role.File == "" && role.Command == "" && role.Prompt == "" {
		return role.System, true, nil
	}
	key := [2]string{name, model}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.cache[key]; ok {
		return t, true, nil
	}
	t, err := tasksystem.ResolveUTD(ctx, utdOf(role.UTD), tasksystem.UTDVars{
		Date: r.start.Local().Format(tasksystem.DateLayout), Model: model, Root: r.ws.Root, Home: r.ws.Home})
	if err != nil {
		return "", true, fmt.Errorf("role '%s': %w", name, err)
	}
	r.cache[key] = t
	return t, true, nil
}

func utdOf(u config.UTD) tasksystem.UTD {
	return tasksystem.UTD{File: u.File, Command: u.Command, Shell: u.Shell, Timeout: u.CommandTimeout, Prompt: u.Prompt}
}

// ContextStatus is one context of a run as `run` lists it (SPEC §22.5).
type ContextStatus struct {
	Name string
	// Where is the file (as shown), else the command, else "prompt".
	Where string
	// Found is false for a context whose file is missing.
	Found bool
}

// selectedContexts returns the contexts of a run: every required one and
// those --context names (by name, tag, or "default" for those marked
// default = true), in configuration order. An
// unknown name or tag is a configuration error.
func selectedContexts(cfg *config.Config, want []string) ([]config.ContextDef, error) {
	var names []string
	for _, c := range cfg.Contexts {
		names = append(names, c.Name)
		names = append(names, c.Tags...)
		if c.Default {
			// start's pseudo-tag of the contexts marked default = true.
			names = append(names, "default")
		}
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			msg := fmt.Sprintf("--context: unknown context or tag '%s'", w)
			if len(names) == 0 {
				msg += " (no context is configured: a [contexts.NAME] table of config.toml defines one)"
			} else if s := suggest.Near(w, names); s != "" {
				msg += fmt.Sprintf(" (did you mean '%s'?)", s)
			}
			return nil, errorf(KindConfig, "%s", msg)
		}
	}
	var out []config.ContextDef
	for _, c := range cfg.Contexts {
		selected := c.Required || slices.Contains(want, c.Name) || c.Default && slices.Contains(want, "default")
		for _, tag := range c.Tags {
			selected = selected || slices.Contains(want, tag)
		}
		if selected {
			out = append(out, c)
		}
	}
	return out, nil
}

// contextsText renders the run's contexts, joined by blank lines, and
// with ListContexts prints their list once on stderr (SPEC §22.5). A context whose file is
// missing is skipped; a failing command is a configuration error.
func (e *Engine) contextsText(ctx context.Context, ctxs []config.ContextDef) (string, error) {
	if len(ctxs) == 0 {
		return "", nil
	}
	var parts []string
	var list strings.Builder
	list.WriteString("contexts:\n")
	width := 0
	for _, c := range ctxs {
		width = max(width, len(c.Name))
	}
	for _, c := range ctxs {
		where := "prompt"
		switch {
		case c.File != "":
			where = c.File
		case c.Command != "":
			where = "$ " + c.Command
		}
		text, err := tasksystem.ResolveUTD(ctx, utdOf(c.UTD), tasksystem.UTDVars{
			Date: e.start.Local().Format(tasksystem.DateLayout), Model: e.opts.Model, Root: e.ws.Root, Home: e.ws.Home})
		if errors.Is(err, tasksystem.ErrUTDFileMissing) {
			fmt.Fprintf(&list, "  ✗ %-*s   %s (not found)\n", width, c.Name, where)
			continue
		}
		if err != nil {
			return "", errorf(KindConfig, "context '%s': %v", c.Name, err)
		}
		fmt.Fprintf(&list, "  ✓ %-*s   %s\n", width, c.Name, where)
		if text = strings.TrimRight(text, "\n"); text != "" {
			parts = append(parts, text)
		}
	}
	if e.opts.ListContexts {
		io.WriteString(e.stderr, list.String())
	}
	return strings.Join(parts, "\n\n"), nil
}

// configTasks converts the configuration's [tasks.NAME] tables into
// templates (SPEC §22.6).
func configTasks(cfg *config.Config) ([]*templates.Template, error) {
	var out []*templates.Template
	names := make([]string, 0, len(cfg.Tasks))
	for n := range cfg.Tasks {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		t := cfg.Tasks[n]
		scope := templates.ScopeGlobal
		if t.Scope == agent.ScopeLocal {
			scope = templates.ScopeLocal
		}
		tm, err := templates.FromConfigTask(templates.ConfigTask{
			Name: t.Name, Alias: t.Alias, Description: t.Description, Role: t.Role, Agent: t.Agent, Model: t.Model,
			File: t.File, Command: t.Command, Shell: t.Shell, CommandTimeout: t.CommandTimeout, Prompt: t.Prompt,
			Scope: scope, Path: t.Origin.Path, Line: t.Origin.Line,
		})
		if err != nil {
			return nil, errorf(KindConfig, "%s:%d: tasks.%s: %v", t.Origin.Path, t.Origin.Line, n, err)
		}
		out = append(out, tm)
	}
	return out, nil
}

// AgentInfo is one line of `evalrun agents list` (SPEC §22.1).
type AgentInfo struct {
	Name        string `json:"name"`
	Scope       string `json:"scope"`
	Source      string `json:"source,omitempty"`
	Description string `json:"description"`
	Command     string `json:"command"`
	Format      string `json:"format"`
	Stdin       bool   `json:"stdin"`
	// Program is the program the command starts; Path where it was found
	// on PATH, "" when it was not.
	Program string `json:"program"`
	Path    string `json:"path"`
	Default bool   `json:"default"`
}

// Agents lists every agent of the workspace: built-in and configured, by
// name, with whether its program is on PATH.
func (w *Workspace) Agents() []AgentInfo {
	cfg := w.Config
	var out []AgentInfo
	for _, n := range cfg.AgentNames() {
		d, _ := cfg.AgentDefinition(n)
		info := AgentInfo{Name: n, Scope: d.Scope, Source: d.Source, Description: d.Description, Command: d.Command,
			Format: string(d.Format), Stdin: d.Stdin, Default: n == cfg.DefaultAgent}
		if info.Format == "" {
			info.Format = string(agent.FormatText)
		}
		if c, err := agent.ParseCommand(d.Command); err == nil {
			info.Program = c.Program()
			if info.Program == "" {
				info.Program = d.Bin
			}
			if info.Program == "" {
				info.Program = n
			}
			prog := agent.ExpandHome(info.Program, "")
			if strings.ContainsRune(prog, '/') {
				if _, err := os.Stat(absTo(w.Root, prog)); err == nil {
					info.Path = absTo(w.Root, prog)
				}
			} else if p, err := exec.LookPath(prog); err == nil {
				info.Path = p
			}
		}
		out = append(out, info)
	}
	return out
}

// RoleInfo is one line of `evalrun roles list` (SPEC §22.4).
type RoleInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Kind is system, file, command or prompt: where the text comes from.
	Kind    string `json:"kind"`
	Origin  string `json:"origin"`
	Default bool   `json:"default"`
}

// Roles lists the configured roles by name.
func (w *Workspace) Roles() []RoleInfo {
	cfg := w.Config
	var out []RoleInfo
	names := make([]string, 0, len(cfg.RoleDefs))
	for n := range cfg.RoleDefs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		r := cfg.RoleDefs[n]
		kind := "system"
		switch {
		case r.Prompt != "":
			kind = "prompt"
		case r.File != "":
			kind = "file"
		case r.Command != "":
			kind = "command"
		}
		out = append(out, RoleInfo{Name: n, Description: r.Description, Kind: kind, Origin: r.Origin.String(),
			Default: n == cfg.DefaultRole || cfg.DefaultRole == "" && n == "default"})
	}
	return out
}

// ContextInfo is one line of `evalrun contexts list` (SPEC §22.5).
type ContextInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Required    bool     `json:"required"`
	Tags        []string `json:"tags"`
	Where       string   `json:"where"`
	// Found is false for a file context whose file is missing.
	Found  bool   `json:"found"`
	Origin string `json:"origin"`
}

// Contexts lists the configured contexts in configuration order.
func (w *Workspace) Contexts() []ContextInfo {
	var out []ContextInfo
	for _, c := range w.Config.Contexts {
		info := ContextInfo{Name: c.Name, Description: c.Description, Required: c.Required, Tags: c.Tags,
			Found: true, Origin: c.Origin.String()}
		if info.Tags == nil {
			info.Tags = []string{}
		}
		switch {
		case c.File != "":
			info.Where = c.File
			p := agent.ExpandHome(c.File, w.Home)
			if !filepath.IsAbs(p) {
				p = filepath.Join(w.Root, p)
			}
			if _, err := os.Stat(p); err != nil {
				info.Found = false
			}
		case c.Command != "":
			info.Where = "$ " + c.Command
		default:
			info.Where = "prompt"
		}
		out = append(out, info)
	}
	return out
}

// AddAsset copies the asset template name into the local (default) or
// global template directory, as templates add does (SPEC §22.7); it
// returns the path written as shown.
func (w *Workspace) AddAsset(name, scope, as string, getenv func(string) string) (string, error) {
	var dir string
	switch scope {
	case "", "local":
		dir = filepath.Join(w.Root, ".evalrun", "templates")
	case "global":
		g := config.GlobalDir(getenv)
		if g == "" {
			return "", errorf(KindUsage, "no global configuration directory (set EVALRUN_HOME or HOME)")
		}
		dir = filepath.Join(g, "templates")
	default:
		return "", errorf(KindUsage, "--scope must be local or global, got '%s'", scope)
	}
	p, err := templates.AddAsset(dir, name, as)
	if err != nil {
		return "", &Error{Kind: KindUsage, Err: err}
	}
	return w.Display(p), nil
}

// AgentDiagnostics reports, for `check` (SPEC §22.2), every template of
// the global, local or dir scope (configured tasks included) whose agent
// is unknown (an error) or whose agent's program is not on PATH (a
// warning, since check may run where the agents are not installed), and
// a default_agent whose program is missing.
func (w *Workspace) AgentDiagnostics() []templates.Diagnostic {
	cfg := w.Config
	found := map[string]bool{}
	for _, a := range w.Agents() {
		found[a.Name] = a.Path != ""
	}
	program := func(name string) string {
		for _, a := range w.Agents() {
			if a.Name == name {
				return a.Program
			}
		}
		return name
	}
	var out []templates.Diagnostic
	for _, e := range w.Templates.Entries {
		t := e.Template
		if t.Scope == templates.ScopeBuiltin || e.ShadowedBy != nil || t.Agent == "" || t.Agent == "none" {
			continue
		}
		pos := templatePos(e)
		if e.Dir != nil && e.Dir.Path == "" && t.Path != "" {
			// A configured task: its table in the configuration file.
			if data, err := os.ReadFile(absTo(w.WorkDir, t.Path)); err == nil {
				text := string(data)
				pos = sexp.Pos{Src: sexp.NewSource(t.Path, text), Off: offsetOf(text, t.Line, 1)}
			}
		}
		if _, ok := cfg.AgentDefinition(t.Agent); !ok {
			out = append(out, templates.Diagnostic{Pos: pos, Severity: templates.SeverityError,
				Msg: fmt.Sprintf("template '%s': %s", t.Name, cfg.UnknownAgent(t.Agent))})
			continue
		}
		if !found[t.Agent] {
			out = append(out, templates.Diagnostic{Pos: pos, Severity: templates.SeverityWarning,
				Msg: fmt.Sprintf("template '%s': agent '%s': program '%s' not found in PATH", t.Name, t.Agent, program(t.Agent))})
		}
	}
	if a := cfg.DefaultAgent; a != "" && a != "none" && !found[a] {
		out = append(out, templates.Diagnostic{Severity: templates.SeverityWarning,
			Msg: fmt.Sprintf("default_agent '%s': program '%s' not found in PATH", a, program(a))})
	}
	return out
}

// Asset is a template of the embedded asset library (SPEC §22.7).
type Asset = templates.Asset

// Assets returns the asset library in name order; `evalrun templates
// list` shows it last, as not active.
func Assets() []Asset { return templates.Assets() }

// announceLine is the line that echoes an agent of the local configuration
// before its first start (SPEC §22.3): its command, and what else decides
// what runs — the program {bin} stands for and the names (never the
// values, which may be secrets) of the variables its env sets, such as
// NODE_OPTIONS or LD_PRELOAD, which a cloned repository's configuration
// could otherwise set unseen.
func announceLine(def agent.Definition) string {
	line := fmt.Sprintf("agent %s from local (%s): %s", def.Name, def.Source, def.Command)
	var extra []string
	if def.Bin != "" {
		extra = append(extra, "bin = "+def.Bin)
	}
	if len(def.Env) > 0 {
		extra = append(extra, "env sets "+strings.Join(slices.Sorted(maps.Keys(def.Env)), ", "))
	}
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, "; ") + ")"
	}
	return line
}
