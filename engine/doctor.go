package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalrun/evalrun/agent"
	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/tasksystem"
	"github.com/evalrun/evalrun/templates"
)

// The statuses of a doctor check.
const (
	CheckOK      = "ok"
	CheckWarning = "warning"
	CheckFailed  = "failed"
)

// DoctorCheck is one line of `evalrun doctor` (SPEC §22.8).
type DoctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// versionTimeout limits an agent's --version.
const versionTimeout = 5 * time.Second

// Doctor runs the checks of SPEC §22.8 on the workspace of opts: the
// configuration parses, the default provider's key is set, every
// configured agent's program is on PATH (with its --version), every role
// and context resolves, every template and configuration task validates,
// aliases do not collide, and the index and journal databases open. It
// writes nothing: a database that does not exist yet is a warning and is
// not created. Role and context commands do run.
func Doctor(ctx context.Context, opts Options) []DoctorCheck {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var checks []DoctorCheck
	add := func(name, status, format string, args ...any) {
		checks = append(checks, DoctorCheck{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
	}
	ws, err := LoadWorkspace(opts)
	if err != nil {
		var cl config.ErrorList
		if errors.As(err, &cl) {
			for _, e := range cl {
				add("configuration", CheckFailed, "%s", e.Error())
			}
		} else {
			add("configuration", CheckFailed, "%v", err)
		}
		return checks
	}
	cfg := ws.Config
	files := "no configuration files (defaults)"
	if len(cfg.Files) > 0 {
		shown := make([]string, len(cfg.Files))
		for i, f := range cfg.Files {
			shown[i] = ws.Display(f)
		}
		files = strings.Join(shown, ", ")
	}
	add("configuration", CheckOK, "%s", files)

	// The default provider's key.
	name := cfg.DefaultProvider
	if name == "" {
		if getenv("OPENAI_API_KEY") != "" {
			name = config.TypeOpenAI
		} else {
			add("provider", CheckWarning, "no provider configured and OPENAI_API_KEY is unset: calls go to the echo provider")
		}
	}
	if name != "" {
		pc, _ := cfg.Provider(name)
		if pc.EffectiveType(name) == config.TypeOpenAI {
			env := pc.APIKeyEnv
			if env == "" {
				env = "OPENAI_API_KEY"
			}
			if getenv(env) != "" {
				add("provider", CheckOK, "%s: %s is set", name, env)
			} else {
				add("provider", CheckFailed, "%s: %s is not set", name, env)
			}
		} else {
			add("provider", CheckOK, "%s (%s) needs no key", name, pc.EffectiveType(name))
		}
	}

	// Agents: the configured ones and the default one.
	for _, a := range ws.Agents() {
		if a.Scope == "builtin" && !a.Default {
			continue
		}
		check := "agent " + a.Name
		if a.Path == "" {
			add(check, CheckFailed, "program '%s' not found in PATH", a.Program)
			continue
		}
		add(check, CheckOK, "%s (%s)", a.Path, agentVersion(ctx, a.Path, ws.Root))
		// A command written for an interactive session (start's
		// "{{.bin}} --model {{.model}}") gives the agent no prompt.
		if d, ok := cfg.AgentDefinition(a.Name); ok && !d.Stdin {
			if c, err := agent.ParseCommand(d.Command); err == nil && !c.Uses("prompt") {
				add(check, CheckWarning, "the command has no {prompt} and stdin is not set: the agent is not given the prompt")
			}
		}
	}

	// Roles and contexts resolve.
	vars := tasksystem.UTDVars{Date: time.Now().Format(tasksystem.DateLayout), Root: ws.Root, Home: ws.Home}
	for _, r := range ws.Roles() {
		role := cfg.RoleDefs[r.Name]
		if r.Kind == "system" {
			add("role "+r.Name, CheckOK, "system text")
			continue
		}
		text, err := tasksystem.ResolveUTD(ctx, utdOf(role.UTD), vars)
		if err != nil {
			add("role "+r.Name, CheckFailed, "%v", err)
			continue
		}
		add("role "+r.Name, CheckOK, "%s from %s", plural(len(text), "byte", "bytes"), r.Kind)
	}
	for _, c := range cfg.Contexts {
		text, err := tasksystem.ResolveUTD(ctx, utdOf(c.UTD), vars)
		switch {
		case errors.Is(err, tasksystem.ErrUTDFileMissing):
			add("context "+c.Name, CheckWarning, "%s not found: the context is skipped", c.File)
		case err != nil:
			add("context "+c.Name, CheckFailed, "%v", err)
		default:
			add("context "+c.Name, CheckOK, "%s", plural(len(text), "byte", "bytes"))
		}
	}

	// Templates and configuration tasks.
	nErr := 0
	for _, d := range ws.Diagnostics {
		if d.IsError() {
			nErr++
			add("templates", CheckFailed, "%s", strings.TrimSpace(d.Error()))
		}
	}
	if nErr == 0 {
		add("templates", CheckOK, "%s valid (%d from configuration tasks)", plural(len(ws.Templates.Templates()), "template", "templates"), len(cfg.Tasks))
	}
	// Aliases.
	byName := map[string]*templates.Template{}
	for _, t := range ws.Templates.Templates() {
		byName[t.Name] = t
	}
	collisions := 0
	seen := map[string]*templates.Template{}
	for _, t := range ws.Templates.Templates() {
		if t.Alias == "" {
			continue
		}
		if o := byName[t.Alias]; o != nil && o != t {
			add("aliases", CheckFailed, "alias '%s' of %s (%s) is the name of %s (%s)", t.Alias, t.Name, t.Source(), o.Name, o.Source())
			collisions++
		}
		if o := seen[t.Alias]; o != nil {
			add("aliases", CheckFailed, "alias '%s' of %s (%s) is also the alias of %s (%s)", t.Alias, t.Name, t.Source(), o.Name, o.Source())
			collisions++
		}
		seen[t.Alias] = t
	}
	if collisions == 0 {
		add("aliases", CheckOK, "%s, no collision", plural(len(seen), "alias", "aliases"))
	}

	// Databases.
	idx := filepath.Join(ws.Root, filepath.FromSlash(memory.DefaultDBPath))
	if _, err := os.Stat(idx); err != nil {
		add("index", CheckWarning, "%s does not exist yet (evalrun index creates it)", ws.Display(idx))
	} else if s, err := memory.OpenStore(ws.Root); err != nil {
		add("index", CheckFailed, "%v", err)
	} else {
		s.Close()
		add("index", CheckOK, "%s opens", ws.Display(idx))
	}
	jp := filepath.Join(ws.Root, journal.DefaultPath)
	if _, err := os.Stat(jp); err != nil {
		add("journal", CheckWarning, "%s does not exist yet (the first run creates it)", ws.Display(jp))
	} else if s, err := journal.Open(jp); err != nil {
		add("journal", CheckFailed, "%v", err)
	} else {
		s.Close()
		add("journal", CheckOK, "%s opens", ws.Display(jp))
	}
	return checks
}

// agentVersion runs PROGRAM --version in dir (the project root, where
// agents run) with a 5 s limit and returns the first line of its output,
// or what went wrong.
func agentVersion(ctx context.Context, path, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	line := strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	switch {
	case ctx.Err() != nil:
		return "--version did not answer within 5s"
	case err != nil && line == "":
		return "--version failed: " + err.Error()
	case line == "":
		return "--version printed nothing"
	}
	return line
}
