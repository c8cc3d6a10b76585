package agent

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/evalrun/evalrun/internal/gotmpl"
	"github.com/evalrun/evalrun/internal/shellwords"
)

var spacedPlaceholder = regexp.MustCompile(`\{\{\s*\.?([a-z][a-z0-9_]*)\s*\}\}`)

// Placeholders lists the names a command may use inside braces (SPEC §22.1).
var Placeholders = []string{"prompt", "role", "role_file", "model", "date", "instructions", "task", "root", "bin"}

func knownPlaceholder(name string) bool {
	for _, p := range Placeholders {
		if p == name {
			return true
		}
	}
	return false
}

// Command is a command line split into words, each a sequence of literal
// text and placeholders.
type Command struct {
	// Env holds the leading NAME=VALUE words: Env[i].Name and its value
	// parts.
	Env []EnvWord
	// Words holds the program and its arguments.
	Words []Word
}

// EnvWord is a leading NAME=VALUE word of a command.
type EnvWord struct {
	Name  string
	Value Word
}

// Word is one word of a command: literal text and placeholders in order.
type Word []Part

// Part is a piece of a word: literal text, or a placeholder when Name is
// set.
type Part struct {
	Text string
	Name string
}

// CommandError is an error in a command line: Offset is the byte offset in
// the line of what it concerns, so that a configuration error can point at
// the placeholder inside the string.
type CommandError struct {
	Offset int
	Msg    string
}

// Error returns the message.
func (e *CommandError) Error() string { return e.Msg }

// ParseCommand splits a command line with POSIX quoting rules and finds the
// placeholders in each word. Only quoting is interpreted: '…', "…" (where a
// backslash escapes $ ` " \ and newline) and a backslash outside quotes;
// every other character, | ; $( included, is literal text. A placeholder
// error is a *CommandError.
func ParseCommand(line string) (Command, error) {
	if err := checkBraces(line); err != nil {
		return Command{}, err
	}
	// start's {{ .name }} may hold blanks; it is the placeholder {name}
	// whatever the quoting around it.
	line = spacedPlaceholder.ReplaceAllString(line, "{$1}")
	words, err := shellwords.Split(line, shellwords.Literal)
	if err != nil {
		return Command{}, err
	}
	var c Command
	for _, w := range words {
		parts, err := parsePlaceholders(w)
		if err != nil {
			return Command{}, err
		}
		if len(c.Words) == 0 {
			if name, val, ok := envAssignment(w); ok {
				vp, _ := parsePlaceholders(val)
				c.Env = append(c.Env, EnvWord{Name: name, Value: vp})
				continue
			}
		}
		c.Words = append(c.Words, parts)
	}
	if len(c.Words) == 0 {
		return Command{}, errors.New("empty command")
	}
	return c, nil
}

// Uses reports whether any word of the command uses the placeholder name.
func (c Command) Uses(name string) bool {
	for _, e := range c.Env {
		if e.Value.uses(name) {
			return true
		}
	}
	for _, w := range c.Words {
		if w.uses(name) {
			return true
		}
	}
	return false
}

func (w Word) uses(name string) bool {
	for _, p := range w {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Program returns the first program word as written when it holds no
// placeholder, else "".
func (c Command) Program() string {
	w := c.Words[0]
	if len(w) == 1 && w[0].Name == "" {
		return w[0].Text
	}
	return ""
}

// expand substitutes vars into the word. An unset name is an error the
// validation prevented. A word whose literal text starts with ~/ (or is ~)
// has it replaced by the home directory, as a shell would: start runs its
// commands with one, so "~/.local/bin/claude" works there.
func (w Word) expand(vars map[string]string) string {
	var b strings.Builder
	for i, p := range w {
		if p.Name == "" {
			if i == 0 && (strings.HasPrefix(p.Text, "~/") || p.Text == "~" && len(w) == 1) {
				b.WriteString(ExpandHome(p.Text, ""))
				continue
			}
			b.WriteString(p.Text)
		} else {
			b.WriteString(vars[p.Name])
		}
	}
	return b.String()
}

// ExpandHome replaces a leading ~/ (or a sole ~) of path with home, or
// with the user's home directory when home is ""; path is returned
// unchanged when it has no ~ or no home is known. It is the one home
// expansion of agent commands, their bin and start's file assets.
func ExpandHome(path, home string) string {
	if path != "~" && !strings.HasPrefix(path, "~/") {
		return path
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return path
		}
		home = h
	}
	return home + path[1:]
}

// soleName returns the placeholder name when the word is exactly one
// placeholder.
func (w Word) soleName() string {
	if len(w) == 1 {
		return w[0].Name
	}
	return ""
}

// envAssignment reports whether w has the shell's NAME=VALUE form.
func envAssignment(w string) (name, val string, ok bool) {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return "", "", false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return "", "", false
		}
	}
	return w[:eq], w[eq+1:], true
}

// checkBraces checks the placeholders of a command line as written, before
// it is split, so that an error has the offset of its placeholder. Every
// Go template action ({{…}}, start's syntax) must be a placeholder
// {{.NAME}} (package gotmpl).
func checkBraces(line string) error {
	for i := 0; i < len(line); i++ {
		if line[i] != '{' {
			continue
		}
		if n, name, err, ok := gotmpl.Action(line[i:]); ok {
			if err == nil {
				err = unknownPlaceholder(name, line[i:i+n])
			}
			if err != nil {
				return &CommandError{Offset: i, Msg: err.Error()}
			}
			i += n - 1
			continue
		}
		if name, n := matchPlaceholder(line[i:]); n > 0 {
			if err := unknownPlaceholder(name, line[i:i+n]); err != nil {
				return &CommandError{Offset: i, Msg: err.Error()}
			}
			i += n - 1
		}
	}
	return nil
}

// unknownPlaceholder returns the error for a placeholder name that is not
// known, nil for a known one; as is the placeholder as written.
func unknownPlaceholder(name, as string) error {
	if knownPlaceholder(name) {
		return nil
	}
	if name == "system_prompt" {
		return fmt.Errorf("unknown placeholder %s (start's earlier name of the role: write {role})", as)
	}
	return fmt.Errorf("unknown placeholder %s (known: {%s})", as, strings.Join(Placeholders, "}, {"))
}

// checkPlaceholders reports the first unknown placeholder of s.
func checkPlaceholders(s string) error {
	_, err := parsePlaceholders(s)
	return err
}

// parsePlaceholders cuts s into literal text and placeholders. {name} and
// {{.name}} (spaces allowed inside the double braces, the dot optional) are
// placeholders when name is lower case letters, digits and underscores; an
// unknown name is an error; every other brace is literal.
func parsePlaceholders(s string) (Word, error) {
	var parts Word
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, Part{Text: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		if s[i] != '{' {
			lit.WriteByte(s[i])
			i++
			continue
		}
		name, n := matchPlaceholder(s[i:])
		if n == 0 {
			lit.WriteByte(s[i])
			i++
			continue
		}
		if !knownPlaceholder(name) {
			if name == "system_prompt" {
				return nil, fmt.Errorf("unknown placeholder {system_prompt} (start's earlier name of the role: write {role})")
			}
			return nil, fmt.Errorf("unknown placeholder {%s} (known: {%s})", name, strings.Join(Placeholders, "}, {"))
		}
		flush()
		parts = append(parts, Part{Name: name})
		i += n
	}
	flush()
	if parts == nil {
		parts = Word{{Text: ""}}
	}
	return parts, nil
}

// matchPlaceholder matches {name} or {{ .name }} at the start of s and
// returns the name and the length matched, 0 when s does not start with one.
func matchPlaceholder(s string) (string, int) {
	if strings.HasPrefix(s, "{{") {
		i := 2
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
		}
		j := i
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		name := s[i:j]
		k := j
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if name != "" && strings.HasPrefix(s[k:], "}}") {
			return name, k + 2
		}
		return "", 0
	}
	j := 1
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	if j > 1 && j < len(s) && s[j] == '}' && s[1] >= 'a' && s[1] <= 'z' {
		return s[1:j], j + 1
	}
	return "", 0
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}
