package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

var updateCommands = flag.Bool("update-commands", false, "rewrite docs/commands.md from the kong definitions")

// commandsDoc is the generated command reference.
const commandsDoc = "../../docs/commands.md"

// commandReference renders the command reference of the kong model of the
// CLI: every command with its usage line, help, detailed help (the
// examples) and every argument and flag with its default.
func commandReference(t *testing.T) string {
	t.Helper()
	parser, err := kong.New(&cli{}, kong.Name("evalrun"),
		kong.Description("Run LLM workflows written as S-expressions."),
		kong.Vars{"version": "evalrun"})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# Command reference\n\n")
	b.WriteString("<!-- Generated from the kong definitions of cmd/evalrun by\n")
	b.WriteString("     go test ./cmd/evalrun -run TestCommandReference -update-commands\n")
	b.WriteString("     Do not edit by hand: TestCommandReference fails when this file is stale. -->\n\n")
	b.WriteString("Every command of `evalrun`, with its arguments, flags and examples; the same text as\n")
	b.WriteString("`evalrun COMMAND --help` (or `evalrun help COMMAND`). Exit codes are in [errors.md](errors.md), the configuration\n")
	b.WriteString("keys in [configuration.md](configuration.md).\n\n")
	app := parser.Model
	b.WriteString("```\nevalrun <command> [flags]\n```\n\n")
	b.WriteString(app.Help + "\n\n")
	writeDetail(&b, app.Detail)
	writeFlags(&b, app.Flags)
	b.WriteString("| Command | Does |\n|---|---|\n")
	var leaves []*kong.Node
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, c := range n.Children {
			if c.Hidden || c.Type != kong.CommandNode {
				continue
			}
			leaves = append(leaves, c)
			walk(c)
		}
	}
	walk(app.Node)
	for _, n := range leaves {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", n.Path(), anchor("evalrun "+n.Path()), cell(n.Help))
	}
	b.WriteString("\n")
	for _, n := range leaves {
		fmt.Fprintf(&b, "## evalrun %s\n\n", n.Path())
		fmt.Fprintf(&b, "```\nevalrun %s\n```\n\n", n.Summary())
		b.WriteString(n.Help + "\n\n")
		writeDetail(&b, n.Detail)
		if len(n.Positional) > 0 {
			b.WriteString("| Argument | Description |\n|---|---|\n")
			for _, p := range n.Positional {
				name := "`" + p.Summary() + "`"
				fmt.Fprintf(&b, "| %s | %s |\n", name, cell(p.Help+defaultText(p)))
			}
			b.WriteString("\n")
		}
		var flags []*kong.Flag
		for _, group := range n.AllFlags(true) {
			flags = append(flags, group...)
		}
		writeFlags(&b, flags)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// writeDetail writes a command's detailed help: its text, and its indented
// example lines as a code block.
func writeDetail(b *strings.Builder, detail string) {
	if detail == "" {
		return
	}
	var code []string
	flush := func() {
		if len(code) > 0 {
			b.WriteString("```\n" + strings.Join(code, "\n") + "\n```\n\n")
			code = nil
		}
	}
	for _, line := range strings.Split(detail, "\n") {
		if strings.HasPrefix(line, "  ") {
			code = append(code, strings.TrimPrefix(line, "  "))
			continue
		}
		flush()
		b.WriteString(line + "\n\n")
	}
	flush()
}

// writeFlags writes a table of flags.
func writeFlags(b *strings.Builder, flags []*kong.Flag) {
	var rows []string
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		name := "--" + f.Name
		if !f.IsBool() {
			name += "=" + f.FormatPlaceHolder()
		}
		if f.Short != 0 {
			name = fmt.Sprintf("-%c, %s", f.Short, name)
		}
		rows = append(rows, fmt.Sprintf("| `%s` | %s |", name, cell(f.Help+defaultText(f.Value))))
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("| Flag | Description |\n|---|---|\n" + strings.Join(rows, "\n") + "\n\n")
}

// defaultText is " Default: X." for a value with a default that its help
// does not already state.
func defaultText(v *kong.Value) string {
	if !v.HasDefault || v.Default == "" || strings.Contains(v.Help, "default") {
		return ""
	}
	return " Default: `" + v.Default + "`."
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// anchor is the anchor GitHub gives a heading.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestCommandReference fails when docs/commands.md differs from what the
// kong definitions generate, so the reference never drifts from the CLI.
func TestCommandReference(t *testing.T) {
	want := commandReference(t)
	if *updateCommands {
		if err := os.WriteFile(commandsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(commandsDoc)
	if err != nil {
		t.Fatalf("%v; generate it with: go test ./cmd/evalrun -run TestCommandReference -update-commands", err)
	}
	if string(got) != want {
		t.Fatalf("docs/commands.md is stale; regenerate it with: go test ./cmd/evalrun -run TestCommandReference -update-commands")
	}
}

// TestCommandReferenceCoversEveryCommand: every command and every flag of
// the CLI appears in the generated reference.
func TestCommandReferenceCoversEveryCommand(t *testing.T) {
	doc := commandReference(t)
	parser, err := kong.New(&cli{}, kong.Name("evalrun"), kong.Vars{"version": "evalrun"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var walk func(*kong.Node)
	walk = func(node *kong.Node) {
		for _, c := range node.Children {
			if c.Hidden {
				continue
			}
			n++
			if !strings.Contains(doc, "## evalrun "+c.Path()+"\n") {
				t.Errorf("command %q has no section", c.Path())
			}
			for _, f := range c.Flags {
				if !f.Hidden && !strings.Contains(doc, "--"+f.Name) {
					t.Errorf("flag --%s of %q is missing", f.Name, c.Path())
				}
			}
			walk(c)
		}
	}
	walk(parser.Model.Node)
	if n < 15 {
		t.Errorf("only %d commands found", n)
	}
}
