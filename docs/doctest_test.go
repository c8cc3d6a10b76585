// Package docs_test executes the examples of the user documentation, so that
// the pages under docs/ and the README stay true. The convention for
// runnable blocks is described in docs/README.md ("How these pages are
// tested"); in short:
//
//   - a fenced block whose info string is "LANG file=PATH" is written to PATH
//     in the page's temporary project before the blocks after it run;
//   - a "sexp eval" block holds lines "EXPR ; → PRINTED" (evalrun eval EXPR
//     prints PRINTED and exits 0) or "EXPR ; ⇒ error: MESSAGE" (it exits 1
//     and the first line of stderr ends with ": MESSAGE");
//   - a "sh run" block is a shell session: each "$ COMMAND" line runs with
//     sh -c in the page's project, and the lines below it, up to the next
//     "$ " line, are its standard output and standard error as they were
//     written, followed by "[exit N]" when the exit status N is not 0. In the
//     expected text "[..]" matches any text within a line and a line "..."
//     matches any number of lines.
//
// Run "go test ./docs -run TestDocExamples -update" to rewrite the expected
// outputs of the blocks that no longer match.
package docs_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of the runnable documentation examples")

// binDir holds the evalrun binary built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "evalrun-docs-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "evalrun"), "github.com/evalrun/evalrun/cmd/evalrun")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building evalrun:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// block is one fenced code block of a Markdown page.
type block struct {
	info  string   // the info string after the opening fence
	lines []string // the lines between the fences
	start int      // index in the page's lines of the first content line
}

// fenceRE matches an opening or closing code fence.
var fenceRE = regexp.MustCompile("^(```+|~~~+)(.*)$")

// parseBlocks returns the fenced code blocks of a page's lines.
func parseBlocks(lines []string) ([]block, error) {
	var blocks []block
	for i := 0; i < len(lines); i++ {
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		fence := m[1]
		b := block{info: strings.TrimSpace(m[2]), start: i + 1}
		j := i + 1
		for ; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], fence) && strings.TrimSpace(lines[j][len(fence):]) == "" {
				break
			}
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: unclosed code fence", i+1)
		}
		b.lines = lines[i+1 : j]
		blocks = append(blocks, b)
		i = j
	}
	return blocks, nil
}

// kind classifies a block by its info string: "file" (with its path),
// "eval", "run" or "" for a block that is only shown.
func (b block) kind() (kind, path string) {
	f := strings.Fields(b.info)
	if len(f) < 2 {
		return "", ""
	}
	switch {
	case strings.HasPrefix(f[1], "file="):
		return "file", strings.TrimPrefix(f[1], "file=")
	case f[0] == "sexp" && f[1] == "eval":
		return "eval", ""
	case f[0] == "sh" && f[1] == "run":
		return "run", ""
	}
	return "", ""
}

// docPages returns the pages whose examples are executed: README.md and
// every docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, pages...)
}

// project is the temporary project directory of one page with the
// environment its commands run in.
type project struct {
	dir string
	env []string
}

func newProject(t *testing.T) *project {
	t.Helper()
	base := t.TempDir()
	dir := filepath.Join(base, "project")
	home := filepath.Join(base, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{
		"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"EVALRUN_HOME=" + filepath.Join(home, "evalrun"),
		"EVALRUN_CEILING_DIRECTORIES=" + base,
		"NO_COLOR=1",
		"TZ=UTC",
		"LC_ALL=C.UTF-8",
		"GIT_AUTHOR_NAME=Docs", "GIT_AUTHOR_EMAIL=docs@example.com",
		"GIT_COMMITTER_NAME=Docs", "GIT_COMMITTER_EMAIL=docs@example.com",
		"GIT_CONFIG_NOSYSTEM=1",
	}
	return &project{dir: dir, env: env}
}

// run runs a command line with sh -c in the project; the output holds
// stdout and stderr in the order they were written.
func (p *project) run(command string) (out string, code int, err error) {
	var buf bytes.Buffer
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return buf.String(), ee.ExitCode(), nil
	}
	return buf.String(), 0, err
}

// runArgs runs evalrun with args (no shell) and returns stdout, stderr and
// the exit status.
func (p *project) runArgs(args ...string) (stdout, stderr string, code int, err error) {
	var o, e bytes.Buffer
	cmd := exec.Command(filepath.Join(binDir, "evalrun"), args...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode(), nil
	}
	return o.String(), e.String(), 0, err
}

// TestDocExamples executes every runnable block of every page.
func TestDocExamples(t *testing.T) {
	for _, page := range docPages(t) {
		t.Run(filepath.Base(page), func(t *testing.T) {
			data, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(data), "\n")
			blocks, err := parseBlocks(lines)
			if err != nil {
				t.Fatalf("%s: %v", page, err)
			}
			p := newProject(t)
			changed := false
			// Replacements are applied from the end so that earlier indices
			// stay valid.
			type edit struct {
				from, to int
				with     []string
			}
			var edits []edit
			for _, b := range blocks {
				kind, path := b.kind()
				switch kind {
				case "file":
					target := filepath.Join(p.dir, filepath.FromSlash(path))
					if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
						t.Fatal(err)
					}
					text := strings.Join(b.lines, "\n") + "\n"
					if err := os.WriteFile(target, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				case "eval":
					for i, line := range b.lines {
						got, ok := checkEvalLine(t, p, page, b.start+i+1, line)
						if !ok && *update && got != "" {
							edits = append(edits, edit{b.start + i, b.start + i + 1, []string{got}})
						}
					}
				case "run":
					got, ok := checkSession(t, p, page, b)
					if !ok && *update {
						edits = append(edits, edit{b.start, b.start + len(b.lines), got})
					}
				}
			}
			for i := len(edits) - 1; i >= 0; i-- {
				e := edits[i]
				lines = append(lines[:e.from], append(append([]string{}, e.with...), lines[e.to:]...)...)
				changed = true
			}
			if changed {
				if err := os.WriteFile(page, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: rewrote %d expected outputs", page, len(edits))
			}
		})
	}
}

// The arrows of a "sexp eval" line.
const (
	valueArrow = "; → "
	errorArrow = "; ⇒ error: "
)

// checkEvalLine checks one line of a "sexp eval" block. It returns the line
// as it should read (for -update) and whether it matched.
func checkEvalLine(t *testing.T, p *project, page string, lineNo int, line string) (string, bool) {
	t.Helper()
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || strings.HasPrefix(trimmed, ";") {
		return "", true
	}
	var expr, want string
	isErr := false
	if i := strings.LastIndex(line, valueArrow); i >= 0 {
		expr, want = line[:i], line[i+len(valueArrow):]
	} else if i := strings.LastIndex(line, errorArrow); i >= 0 {
		expr, want, isErr = line[:i], line[i+len(errorArrow):], true
	} else {
		t.Errorf("%s:%d: a line of a sexp eval block needs %q or %q: %s", page, lineNo, valueArrow, errorArrow, line)
		return "", false
	}
	pad := expr[len(strings.TrimRight(expr, " ")):]
	expr = strings.TrimSpace(expr)
	stdout, stderr, code, err := p.runArgs("eval", expr)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(stderr, "\n")
	switch {
	case !isErr && code == 0 && strings.TrimSuffix(stdout, "\n") == want:
		return "", true
	case isErr && code == 1 && strings.HasSuffix(first, ": "+want):
		return "", true
	}
	t.Errorf("%s:%d: evalrun eval %s\nwant %s\ngot exit %d\nstdout: %s\nstderr: %s", page, lineNo, expr, line[len(expr)+len(pad):], code, stdout, stderr)
	if code == 0 {
		return expr + pad + valueArrow + strings.TrimSuffix(stdout, "\n"), false
	}
	if code == 1 {
		if _, msg, ok := strings.Cut(first, ": "); ok {
			// first is "<eval>:L:C: MESSAGE"; the position has no ": ".
			return expr + pad + errorArrow + msg, false
		}
	}
	return "", false
}

// checkSession runs the commands of a "sh run" block and compares their
// output; it returns the block's lines as they should read.
func checkSession(t *testing.T, p *project, page string, b block) ([]string, bool) {
	t.Helper()
	var out []string
	ok := true
	for i := 0; i < len(b.lines); {
		line := b.lines[i]
		if !strings.HasPrefix(line, "$ ") {
			t.Errorf("%s:%d: a sh run block must start each command with \"$ \": %s", page, b.start+i+1, line)
			return nil, false
		}
		j := i + 1
		for j < len(b.lines) && !strings.HasPrefix(b.lines[j], "$ ") {
			j++
		}
		want := b.lines[i+1 : j]
		command := strings.TrimPrefix(line, "$ ")
		got, code, err := p.run(command)
		if err != nil {
			t.Fatalf("%s: %s: %v", page, command, err)
		}
		gotLines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if got == "" {
			gotLines = nil
		}
		if code != 0 {
			gotLines = append(gotLines, fmt.Sprintf("[exit %d]", code))
		}
		out = append(out, line)
		if matchLines(want, gotLines) {
			out = append(out, want...)
		} else {
			ok = false
			t.Errorf("%s:%d: $ %s\n--- want\n%s\n--- got\n%s", page, b.start+i+1, command, strings.Join(want, "\n"), strings.Join(gotLines, "\n"))
			out = append(out, gotLines...)
		}
		i = j
	}
	return out, ok
}

// matchLines matches got against want, where a want line "..." matches any
// number of lines and "[..]" inside a line matches any text.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(want[0], got[0]) && matchLines(want[1:], got[1:])
}

// matchLine matches one line, "[..]" matching any text.
func matchLine(want, got string) bool {
	parts := strings.Split(want, "[..]")
	if len(parts) == 1 {
		return want == got
	}
	var re strings.Builder
	re.WriteString("^")
	for i, part := range parts {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(part))
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String()).MatchString(got)
}

// TestMatchLines keeps the wildcard rules of the convention honest.
func TestMatchLines(t *testing.T) {
	for _, tc := range []struct {
		want, got []string
		ok        bool
	}{
		{[]string{"a"}, []string{"a"}, true},
		{[]string{"a"}, []string{"b"}, false},
		{[]string{"a"}, nil, false},
		{nil, []string{"a"}, false},
		{[]string{"run [..] done"}, []string{"run 20250101-x done"}, true},
		{[]string{"run [..] done"}, []string{"run x"}, false},
		{[]string{"...", "end"}, []string{"x", "y", "end"}, true},
		{[]string{"...", "end"}, []string{"x", "y"}, false},
		{[]string{"a", "..."}, []string{"a"}, true},
		{[]string{"a.b"}, []string{"axb"}, false},
	} {
		if got := matchLines(tc.want, tc.got); got != tc.ok {
			t.Errorf("matchLines(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
}
