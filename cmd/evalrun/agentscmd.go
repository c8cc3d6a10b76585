package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/evalrun/evalrun/engine"
)

// agentFlags are the flags of run, eval, task and repl about agents,
// roles and contexts (SPEC §22).
type agentFlags struct {
	Agent   string   `name:"agent" placeholder:"NAME" help:"Execute every task call with the coding agent NAME (none: with a provider). Cannot be combined with --provider."`
	Role    string   `name:"role" placeholder:"NAME" help:"Use the role NAME ([roles.NAME]) as the base system prompt of every call."`
	Context []string `name:"context" sep:"none" placeholder:"NAME" help:"Add the context NAME (or every context tagged NAME) before each prompt. Repeatable."`
	Verbose bool     `name:"verbose" short:"v" help:"Stream the agents' stderr, each line prefixed with [AGENT]."`
}

// agentOptions converts the flags for engine.Options; listContexts
// prints the contexts: list.
func (f agentFlags) agentOptions(listContexts bool) engine.AgentOptions {
	return engine.AgentOptions{Agent: f.Agent, Role: f.Role, Contexts: f.Context, Verbose: f.Verbose, ListContexts: listContexts}
}

// agentsCmd is "evalrun agents list".
type agentsCmd struct {
	List agentsListCmd `cmd:"" help:"List the built-in and configured agents with their scope, whether their program is on PATH, and their command."`
}

type agentsListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array."`
}

// Run implements "evalrun agents list".
func (c *agentsListCmd) Run(a *app) error {
	ws, code := a.loadWorkspace(nil, diagQuiet)
	if ws == nil {
		return exit(code)
	}
	list := ws.Agents()
	if c.JSON {
		return exit(a.printJSON(list))
	}
	rows := make([][]string, 0, len(list))
	for _, x := range list {
		found := "✓ " + x.Program
		if x.Path == "" {
			found = "✗ " + x.Program + " (not on PATH)"
		}
		name := x.Name
		if x.Default {
			name += " (default)"
		}
		scope := x.Scope
		if x.Source != "" {
			scope += " " + x.Source
		}
		rows = append(rows, []string{name, scope, found, x.Command})
	}
	io.WriteString(a.stdout, table(rows))
	return exit(exitOK)
}

// rolesCmd is "evalrun roles list".
type rolesCmd struct {
	List rolesListCmd `cmd:"" help:"List the configured roles with their description and where their text comes from."`
}

type rolesListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array."`
}

// Run implements "evalrun roles list".
func (c *rolesListCmd) Run(a *app) error {
	ws, code := a.loadWorkspace(nil, diagQuiet)
	if ws == nil {
		return exit(code)
	}
	list := ws.Roles()
	if c.JSON {
		return exit(a.printJSON(list))
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "no roles configured; calls use \"You are a helpful assistant.\"")
		return exit(exitOK)
	}
	rows := make([][]string, 0, len(list))
	for _, r := range list {
		name := r.Name
		if r.Default {
			name += " (default)"
		}
		rows = append(rows, []string{name, r.Kind, r.Origin, cutText(r.Description, listDescMax)})
	}
	io.WriteString(a.stdout, table(rows))
	return exit(exitOK)
}

// contextsCmd is "evalrun contexts list".
type contextsCmd struct {
	List contextsListCmd `cmd:"" help:"List the configured contexts: required ones are added to every prompt, others with --context."`
}

type contextsListCmd struct {
	JSON bool `name:"json" help:"Print a JSON array."`
}

// Run implements "evalrun contexts list".
func (c *contextsListCmd) Run(a *app) error {
	ws, code := a.loadWorkspace(nil, diagQuiet)
	if ws == nil {
		return exit(code)
	}
	list := ws.Contexts()
	if c.JSON {
		return exit(a.printJSON(list))
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "no contexts configured; [contexts.NAME] tables of config.toml add text before the prompts")
		return exit(exitOK)
	}
	rows := make([][]string, 0, len(list))
	for _, x := range list {
		mark := "✓"
		where := x.Where
		if !x.Found {
			mark, where = "✗", where+" (not found)"
		}
		kind := "optional"
		if x.Required {
			kind = "required"
		}
		tags := ""
		if len(x.Tags) > 0 {
			tags = "[" + strings.Join(x.Tags, ", ") + "]"
		}
		rows = append(rows, []string{mark + " " + x.Name, kind, where, tags})
	}
	io.WriteString(a.stdout, table(rows))
	return exit(exitOK)
}

// templatesAddCmd is "evalrun templates add NAME".
type templatesAddCmd struct {
	Name  string `arg:"" name:"name" help:"The asset template to add (see templates list)."`
	Scope string `name:"scope" default:"local" enum:"local,global" help:"Where to add it: local (.evalrun/templates, default) or global."`
	As    string `name:"as" placeholder:"NEW" help:"Add it under the name NEW."`
}

// Run implements "evalrun templates add".
func (c *templatesAddCmd) Run(a *app) error {
	ws, code := a.loadWorkspace(nil, diagQuiet)
	if ws == nil {
		return exit(code)
	}
	path, err := ws.AddAsset(c.Name, c.Scope, c.As, a.getenv)
	if err != nil {
		a.errorf("%v", unwrapEngine(err))
		return exit(exitUsage)
	}
	fmt.Fprintln(a.stdout, path)
	return exit(exitOK)
}

// unwrapEngine returns the cause of an *engine.Error for printing.
func unwrapEngine(err error) error {
	if ee, ok := err.(*engine.Error); ok && ee.Err != nil {
		return ee.Err
	}
	return err
}

// doctorCmd is "evalrun doctor".
type doctorCmd struct {
	JSON bool `name:"json" help:"Print the checks as a JSON array of {name, status, detail}."`
}

// Run implements "evalrun doctor" (SPEC §22.8): exit 1 when a check fails.
func (c *doctorCmd) Run(a *app) error {
	checks := engine.Doctor(context.Background(), engine.Options{Getenv: a.getenv})
	failed := false
	for _, ch := range checks {
		failed = failed || ch.Status == engine.CheckFailed
	}
	if c.JSON {
		if code := a.printJSON(checks); code != exitOK {
			return exit(code)
		}
	} else {
		var b strings.Builder
		for _, ch := range checks {
			mark := map[string]string{engine.CheckOK: "✓", engine.CheckWarning: "!", engine.CheckFailed: "✗"}[ch.Status]
			fmt.Fprintf(&b, "%s %s: %s\n", mark, ch.Name, ch.Detail)
		}
		io.WriteString(a.stdout, b.String())
	}
	if failed {
		return exit(exitEval)
	}
	return exit(exitOK)
}

// table aligns rows of cells in columns three spaces apart.
func table(rows [][]string) string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("   ")
			}
			line.WriteString(pad(c, widths[i]))
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// assetsListing is the last group of `templates list` (SPEC §22.7): the
// asset templates, which are not active until added.
func assetsListing(nameW int) string {
	assets := engine.Assets()
	var b strings.Builder
	fmt.Fprintf(&b, "assets (%d) (not active; add with: evalrun templates add NAME)\n", len(assets))
	for _, x := range assets {
		b.WriteString(strings.TrimRight("  "+pad(x.Name, nameW)+"   "+cutText(x.Description, listDescMax), " ") + "\n")
	}
	return b.String()
}
