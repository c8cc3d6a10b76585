package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSets(t *testing.T) {
	for _, tc := range []struct {
		opt  string
		want string // canonical text of the value, or the error
	}{
		{"n=3", "3"},
		{"ok=true", "true"},
		{"who=Bob", `"Bob"`},
		{`cfg={"a":1}`, `(dict "a" 1)`},
		{"x=null", "null"},
		{"id=007", `"007"`},
		{"a=b=c", `"b=c"`},
		{"n= 3", "3"},
		{"n= 3 ", "3"},
		{"s= x", `" x"`},
		{"e=", `""`},
		{"l=[1,2]", "(1 2)"},
		{"l=[]", "nil"},
		{"f=2.50", "2.5"},
		{`q="quoted"`, `"quoted"`},
		{"t=1 2", `"1 2"`},
		{"user:goal=x", `"x"`},
		{"*loop-config*=1", "1"},
		{"n", `error: invalid --set "n": expected KEY=VALUE`},
		{"=1", `error: invalid --set "=1": the key is empty`},
		{":k=1", `error: invalid --set ":k=1": the key ":k" is a keyword; keywords cannot be bound`},
		{"1=1", `error: invalid --set "1=1": the key "1" is not a symbol`},
		{"nil=1", `error: invalid --set "nil=1": the key "nil" is not a symbol`},
		{"a b=1", `error: invalid --set "a b=1": the key "a b" is not a symbol`},
		{`a\ b=1`, `error: invalid --set "a\\ b=1": the key "a\\ b" is not a symbol`},
		{"'a=1", `error: invalid --set "'a=1": the key "'a" is not a symbol`},
		{"(a)=1", `error: invalid --set "(a)=1": the key "(a)" is not a symbol`},
		{"a;b=1", `error: invalid --set "a;b=1": the key "a;b" is not a symbol`},
	} {
		var got string
		sets, err := parseSets([]string{tc.opt})
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = sets[0].Value.String()
		}
		if got != tc.want {
			t.Errorf("parseSets(%q) = %s, want %s", tc.opt, got, tc.want)
		}
	}
}

// panicWriter panics on every write, to provoke an internal error.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("disk on fire") }

// TestPanicRecovered: a panic in the CLI is reported as an internal error
// with exit code 1, with a Go stack trace only when EVALRUN_DEBUG=1.
func TestPanicRecovered(t *testing.T) {
	t.Chdir(t.TempDir()) // the run's journal is not the module's
	for _, debug := range []bool{false, true} {
		var stderr bytes.Buffer
		a := &app{
			stdin:  strings.NewReader(""),
			stdout: panicWriter{},
			stderr: &stderr,
			getenv: withCeiling(func(k string) string {
				if k == "EVALRUN_DEBUG" && debug {
					return "1"
				}
				return ""
			}),
		}
		code := a.main([]string{"eval", "(+ 1 2)"})
		if code != exitEval {
			t.Errorf("debug=%v: exit code %d, want %d", debug, code, exitEval)
		}
		first, rest, _ := strings.Cut(stderr.String(), "\n")
		if want := "evalrun: internal error: disk on fire (please report this)"; first != want {
			t.Errorf("debug=%v: first line %q, want %q", debug, first, want)
		}
		if hasStack := strings.Contains(rest, "goroutine "); hasStack != debug {
			t.Errorf("debug=%v: stack trace printed: %v\n%s", debug, hasStack, rest)
		}
	}
}

// TestAppInProcess runs a few commands through app.main with buffers.
func TestAppInProcess(t *testing.T) {
	t.Chdir(t.TempDir()) // the run's journal is not the module's
	for _, tc := range []struct {
		args               []string
		stdin              string
		code               int
		stdout, stderrHead string
	}{
		{args: []string{"eval", "(+ 1 2)"}, stdout: "3\n"},
		{args: []string{"run", "-"}, stdin: "(define x 2) (* x 21)", stdout: "42\n"},
		{args: []string{"eval", "--json", "(list 1)"}, stdout: "[\n  1\n]\n"},
		{args: []string{"eval", "(", ""}, code: exitUsage, stderrHead: "evalrun: unexpected argument"},
		{args: []string{"eval", "("}, code: exitSyntax, stderrHead: "<eval>:1:1: unclosed '(': missing ')'"},
		{args: []string{"eval", "(error 1)"}, code: exitEval, stderrHead: "<eval>:1:1: 1"},
		{args: []string{"repl"}, stdin: "(+ 1 1)\n:quit\n", stdout: "2\n"},
	} {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(tc.stdin), stdout: &stdout, stderr: &stderr, getenv: withCeiling(func(string) string { return "" })}
		code := a.main(tc.args)
		// stderrHead is a prefix of the first line of stderr.
		head, _, _ := strings.Cut(stderr.String(), "\n")
		if strings.HasPrefix(head, tc.stderrHead) {
			head = tc.stderrHead
		}
		got := []any{code, stdout.String(), head}
		want := []any{tc.code, tc.stdout, tc.stderrHead}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: mismatch (-want +got):\n%s", tc.args, diff)
		}
	}
}
