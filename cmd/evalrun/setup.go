package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/handler"
	"github.com/evalrun/evalrun/templates"
)

// workspace is what every command that knows templates starts from: the
// working directory, the project root, the merged configuration (SPEC §18)
// and the templates of every scope (SPEC §10.1).
type workspace struct {
	wd, root, home string
	cfg            *config.Config
	set            *templates.Set
}

// diagStyle says how template diagnostics are printed.
type diagStyle int

const (
	// diagRun prints them as run, eval, task and templates do (SPEC §4.7).
	diagRun diagStyle = iota
	// diagCheck writes the severity after every position (SPEC §17.4).
	diagCheck
	// diagQuiet prints none (templates validate reports its own files).
	diagQuiet
)

// loadWorkspace finds the project root, reads the configuration and loads
// the templates of the built-in, global, local and dirs scopes. Template
// diagnostics (errors, shadowing and other warnings) are printed. It
// returns exitUsage for a configuration error, exitSyntax when a template
// does not validate.
func (a *app) loadWorkspace(dirs []string, style diagStyle) (*workspace, int) {
	wd, err := os.Getwd()
	if err != nil {
		a.errorf("cannot find the working directory: %v", err)
		return nil, exitUsage
	}
	ws := &workspace{wd: wd, root: templates.ProjectRoot(wd), home: a.home()}
	cfg, err := config.Load(config.GlobalPath(a.getenv), config.LocalPath(ws.root),
		config.WithDisplay(ws.display))
	if err != nil {
		for _, e := range config.Errors(err) {
			io.WriteString(a.stderr, e.Display())
		}
		return nil, exitUsage
	}
	ws.cfg = cfg
	for _, d := range dirs {
		if info, err := os.Stat(d); err == nil && !info.IsDir() {
			a.errorf("--templates %s: not a directory", d)
			return nil, exitUsage
		}
	}
	var src templates.Sources
	if g := config.GlobalDir(a.getenv); g != "" {
		src.Global = filepath.Join(g, "templates")
	}
	src.Local = filepath.Join(ws.root, ".evalrun", "templates")
	src.Dirs = dirs
	tools := handler.NewTools(handler.ToolsConfig{Root: ws.root, WorkDir: wd})
	set, diags := templates.Load(templates.LoadOptions{
		Sources:    src,
		WorkDir:    wd,
		Home:       ws.home,
		KnownTools: tools.HasTool,
		KnownRoles: cfg.HasRole,
	})
	ws.set = set
	for _, d := range diags {
		switch style {
		case diagCheck:
			io.WriteString(a.stderr, d.DisplaySeverity())
		case diagRun:
			io.WriteString(a.stderr, d.Display())
		}
	}
	if templates.HasErrors(diags) {
		return ws, exitSyntax
	}
	return ws, exitOK
}

// display shows a path as evalrun does: relative to the working directory
// when below it, else with ~ for the home directory (SPEC §10.1).
func (ws *workspace) display(path string) string {
	return templates.DisplayPath(path, ws.wd, ws.home)
}

// home returns the home directory: $HOME, else the system's idea of it.
func (a *app) home() string {
	if h := a.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
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

// hiddenMessage is the warning for a template whose name a special form or
// primitive hides, or whose name is a tool's (SPEC §10.1, §17.4); "" when
// the name is free.
func hiddenMessage(name string, isTool func(string) bool) string {
	if by := hiddenBy(name); by != "" {
		return fmt.Sprintf("template '%s' is hidden by the %s '%s'; use (call \"%s\" ...)", name, by, name, name)
	}
	if isTool != nil && isTool(name) {
		return fmt.Sprintf("template '%s' has the name of a tool; (%s ...) calls the template", name, name)
	}
	return ""
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
