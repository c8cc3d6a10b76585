package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler/tools"
	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
)

// Workspace is what every run, and every command that knows templates,
// starts from: the working directory, the project root, the merged
// configuration (SPEC §18) and the templates of every scope (SPEC §10.1)
// with the diagnostics of loading them.
type Workspace struct {
	// WorkDir is the absolute working directory.
	WorkDir string
	// Root is the project root: the nearest ancestor of WorkDir holding
	// .evalrun/ or .git, else WorkDir, never at or above a directory of
	// $EVALRUN_CEILING_DIRECTORIES (templates.CeilingEnv).
	Root string
	// Home is the home directory, shown as "~" in paths.
	Home string
	// Config is the global configuration merged with the local one.
	Config *config.Config
	// Templates holds the templates of the built-in, global, local and
	// dir scopes, shadowed ones included.
	Templates *templates.Set
	// Diagnostics are the errors and warnings of loading the templates,
	// in load order.
	Diagnostics []templates.Diagnostic

	tools *tools.Tools
}

// LoadWorkspace finds the project root from opts.WorkDir, reads the
// configuration (global, then local) and loads the templates of the
// built-in, global, local and opts.Templates scopes. Only opts.WorkDir,
// opts.Templates and opts.Getenv are used. It writes nothing: the template
// diagnostics are in the Workspace, and Err reports whether any is an
// error. The error is an *Error of KindUsage (no working directory, a
// templates directory that is a file) or KindConfig (an invalid
// configuration, wrapping a config.ErrorList).
func LoadWorkspace(opts Options) (*Workspace, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ws, err := locate(opts)
	if err != nil {
		return nil, err
	}
	wd := ws.WorkDir
	cfg, err := config.Load(config.GlobalPath(getenv), config.LocalPath(ws.Root),
		config.WithDisplay(ws.Display))
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: err}
	}
	ws.Config = cfg
	for _, d := range opts.Templates {
		if info, err := os.Stat(absTo(wd, d)); err == nil && !info.IsDir() {
			return nil, errorf(KindUsage, "--templates %s: not a directory", d)
		}
	}
	var src templates.Sources
	if g := config.GlobalDir(getenv); g != "" {
		src.Global = filepath.Join(g, "templates")
	}
	src.Local = filepath.Join(ws.Root, ".evalrun", "templates")
	src.Dirs = opts.Templates
	ws.tools = tools.NewTools(tools.ToolsConfig{Root: ws.Root, WorkDir: wd})
	tasks, err := configTasks(cfg)
	if err != nil {
		return nil, err
	}
	ws.Templates, ws.Diagnostics = templates.Load(templates.LoadOptions{
		Sources:     src,
		WorkDir:     wd,
		Home:        ws.Home,
		KnownTools:  ws.tools.HasTool,
		KnownRoles:  cfg.HasRole,
		ConfigTasks: tasks,
	})
	return ws, nil
}

// Err returns an *Error of KindTemplate, wrapping the error diagnostics,
// when a template did not validate; else nil.
func (w *Workspace) Err() error {
	if !templates.HasErrors(w.Diagnostics) {
		return nil
	}
	var errs []error
	for _, d := range w.Diagnostics {
		if d.IsError() {
			errs = append(errs, d)
		}
	}
	return &Error{Kind: KindTemplate, Err: errors.Join(errs...)}
}

// Display shows a path as evalrun does: relative to the working directory
// when below it, else with ~ for the home directory (SPEC §10.1).
func (w *Workspace) Display(path string) string {
	return templates.DisplayPath(path, w.WorkDir, w.Home)
}

// registry returns a new registry of the workspace's templates, added in
// load order so that a later scope replaces an earlier one (SPEC §10.2).
func (w *Workspace) registry() *tasksystem.Registry {
	reg := tasksystem.NewRegistry()
	for _, t := range w.Templates.Templates() {
		reg.Add(t)
	}
	return reg
}

// toolset returns the built-in tools as templates are validated against
// them: rooted at the project, without the settings of a run (no shell
// commands allowed, no memory).
func (w *Workspace) toolset() *tools.Tools { return w.tools }

// Context is the get-context lookup (SPEC §15.4) without a run, for the
// content and metadata strategies, which ask no model: it opens the
// project's index, refreshes it, looks q up under [limits] timeout and
// closes the index. The llm strategies run templates on a run's providers:
// use Engine.Context for them.
func (w *Workspace) Context(ctx context.Context, q ContextQuery) ContextResult {
	m := memory.New(w.Root, nil, w.Config.Limits.Concurrency)
	defer m.Close()
	ctx, cancel := withTimeout(ctx, w.Config.Limits.Timeout)
	defer cancel()
	return contextResult(m.GetRelevantContextFor(ctx, q.query()))
}

// locate returns a Workspace with only its directories: the working
// directory (opts.WorkDir made absolute, else the process's), the project
// root (bounded by $EVALRUN_CEILING_DIRECTORIES read through opts.Getenv)
// and the home directory.
func locate(opts Options) (*Workspace, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	wd := opts.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, errorf(KindUsage, "cannot find the working directory: %v", err)
		}
	} else if abs, err := filepath.Abs(wd); err == nil {
		wd = abs
	}
	root := templates.ProjectRootBelow(wd, templates.Ceilings(getenv(templates.CeilingEnv)))
	return &Workspace{WorkDir: wd, Root: root, Home: home(getenv)}, nil
}

// home returns the home directory: $HOME, else the system's idea of it.
func home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// HiddenWarning is the warning for a template whose name a special form or
// primitive hides, or (when isTool is not nil) whose name is a tool's
// (SPEC §10.1, §17.4), without the "warning: " prefix; "" when the name is
// free.
func HiddenWarning(name string, isTool func(string) bool) string {
	if by := hiddenBy(name); by != "" {
		return fmt.Sprintf("template '%s' is hidden by the %s '%s'; use (call \"%s\" ...)", name, by, name, name)
	}
	if isTool != nil && isTool(name) {
		return fmt.Sprintf("template '%s' has the name of a tool; (%s ...) calls the template", name, name)
	}
	return ""
}

// hiddenBy says what makes a template of this name unreachable by bare name
// (SPEC §10.1): "special form", "primitive", or "" when nothing does.
func hiddenBy(name string) string {
	switch {
	case evaluator.IsSpecialForm(name):
		return "special form"
	case evaluator.IsPrimitive(name):
		return "primitive"
	}
	return ""
}

// originText is "SCOPE (PATH:LINE)", or the scope alone for a template
// without a file, as the shadowing warnings write it (SPEC §10.1).
func originText(t *templates.Template) string {
	src := t.Source()
	scope, rest, ok := strings.Cut(src, " ")
	if !ok {
		return src
	}
	return scope + " (" + rest + ")"
}

// lockedWriter serialises writes to a stream shared by the goroutines of a
// run (log lines, warnings, provenance lines, notices), so that lines never
// interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// printf writes one formatted message whole.
func (l *lockedWriter) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, format, args...)
}
