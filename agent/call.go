package agent

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Call is one task call given to an agent.
type Call struct {
	// Prompt is the user prompt ({prompt}, or stdin).
	Prompt string
	// System is the system prompt: the role and the template's <system>
	// text ({role}, {role_file}).
	System string
	// FallbackRole is the start of System that is only the built-in
	// fallback role ("You are a helpful assistant."), "" when a role was
	// chosen: a command without {role} or {role_file} gets the rest of
	// System before its prompt, not this.
	FallbackRole string
	// Model is the model name before the definition's models map; empty
	// means the definition's default model.
	Model string
	// Date is {date}.
	Date string
	// Instructions is {instructions}.
	Instructions string
	// Task is {task}, the template name.
	Task string
	// Root is the project root, {root} and, unless Dir is set, the
	// process's directory.
	Root string
	// Dir, when set, is the process's directory instead of Root (a plan's
	// `ccw cli --cd DIR`); a relative program word is still resolved
	// against Root.
	Dir string
	// ReadOnly appends the definition's ReadOnlyArgs.
	ReadOnly bool
	// Lines, when set, receives each non-empty line the process prints on
	// stdout or stderr (a \r ends a line too: a progress bar's states),
	// as it prints it (the live display's last line,
	// SPEC §17.3.1). It is called from the goroutines that read the
	// process's output and must not block for long.
	Lines func(line string)
}

// Invocation is a call's process as it would be started.
type Invocation struct {
	// Env holds NAME=VALUE pairs added to the inherited environment: the
	// definition's env (sorted by name), then the command's leading
	// assignments.
	Env []string
	// Argv is the program and its arguments.
	Argv []string
	// Stdin is what the process reads on stdin (the prompt when the
	// definition says stdin = true).
	Stdin string
	// UsesPrompt reports whether {prompt} is in the arguments.
	UsesPrompt bool
	// UsesRoleFile reports whether {role_file} is used.
	UsesRoleFile bool
}

// PromptMarker and RoleFileMarker stand for the prompt and the role file in
// Display.
const (
	PromptMarker   = "{prompt}"
	RoleFileMarker = "{role_file}"
)

// Prepare builds the invocation of a call: the command's words with the
// placeholders replaced, roleFile standing for {role_file}. A prompt over
// 100 KiB given as an argument fails with input_validation_failure.
//
// A command with neither {role} nor {role_file} (codex exec, aider, most
// commands written for start) has no place for the system prompt: it is
// then put before the user prompt, separated by a blank line, so that the
// role and the template's <system> text still reach the agent (unless it is
// only the fallback role, Call.FallbackRole).
func (d Definition) Prepare(c Call, roleFile string) (*Invocation, error) {
	if !d.PlacesSystem() {
		sys := strings.TrimLeft(strings.TrimPrefix(c.System, c.FallbackRole), "\n")
		if sys != "" {
			c.Prompt = sys + "\n\n" + c.Prompt
		}
	}
	inv, err := d.expand(c, c.Prompt, roleFile)
	if err != nil {
		return nil, err
	}
	if inv.UsesPrompt && len(c.Prompt) > maxArgumentPromptBytes {
		return nil, &Error{Agent: d.Name, Kind: ReasonInputValidation, ExitCode: -1,
			Msg: fmt.Sprintf("prompt too long for an argument (%d bytes); set stdin = true", len(c.Prompt))}
	}
	if d.Stdin {
		inv.Stdin = c.Prompt
	}
	return inv, nil
}

// PlacesSystem reports whether the command passes the system prompt
// ({role} or {role_file}); when it does not, Prepare puts the system
// prompt before the user prompt. An invalid command places nothing.
func (d Definition) PlacesSystem() bool {
	cmd, err := ParseCommand(d.Command)
	return err == nil && (cmd.Uses("role") || cmd.Uses("role_file"))
}

// Display returns the invocation's words as the journal and dry-run files
// show them: the command's leading environment assignments first (not the
// definition's env, which may hold secrets), the prompt shown as {prompt}
// and the role file as {role_file}.
func (d Definition) Display(c Call) ([]string, error) {
	inv, err := d.expand(c, PromptMarker, RoleFileMarker)
	if err != nil {
		return nil, err
	}
	// The definition's env is left out: it may hold secrets.
	return append(inv.Env[len(d.Env):], inv.Argv...), nil
}

// expand substitutes the placeholders of the definition's command.
func (d Definition) expand(c Call, prompt, roleFile string) (*Invocation, error) {
	cmd, err := ParseCommand(d.Command)
	if err != nil {
		return nil, &Error{Agent: d.Name, Kind: ReasonConfiguration, ExitCode: -1,
			Msg: fmt.Sprintf("agent '%s': command: %v", d.Name, err), err: err}
	}
	bin := d.Bin
	if bin == "" {
		bin = cmd.Program()
	}
	if bin == "" {
		bin = d.Name
	}
	vars := map[string]string{
		"prompt": prompt, "role": c.System, "role_file": roleFile, "model": d.Model(c.Model),
		"date": c.Date, "instructions": c.Instructions, "task": c.Task, "root": c.Root, "bin": ExpandHome(bin, ""),
	}
	inv := &Invocation{UsesPrompt: cmd.Uses("prompt") && !d.Stdin, UsesRoleFile: cmd.Uses("role_file")}
	for _, k := range slices.Sorted(maps.Keys(d.Env)) {
		inv.Env = append(inv.Env, k+"="+d.Env[k])
	}
	for _, e := range cmd.Env {
		inv.Env = append(inv.Env, e.Name+"="+e.Value.expand(vars))
	}
	words := cmd.Words
	if c.ReadOnly {
		for _, a := range d.ReadOnlyArgs {
			w, err := parsePlaceholders(a)
			if err != nil {
				return nil, &Error{Agent: d.Name, Kind: ReasonConfiguration, ExitCode: -1,
					Msg: fmt.Sprintf("agent '%s': read_only_args: %v", d.Name, err), err: err}
			}
			words = append(slices.Clip(words), w)
		}
	}
	for i, w := range words {
		v := w.expand(vars)
		// An empty {model} word leaves the choice to the agent: the word
		// and the option before it are dropped.
		if v == "" && w.soleName() == "model" && i > 0 {
			if n := len(inv.Argv); n > 1 && strings.HasPrefix(inv.Argv[n-1], "-") && words[i-1].soleName() == "" {
				inv.Argv = inv.Argv[:n-1]
			}
			continue
		}
		inv.Argv = append(inv.Argv, v)
	}
	return inv, nil
}
