package evaluator_test

// The language tests of SPEC §6 and §7 are scripts: testdata/*.sexp files
// of chunks separated by lines "---". Each chunk is a program that runs in
// a new interpreter whose task system is fakeTasks, after the specPrelude
// (spec_test.go). Its expected outcome is written inline, in the style of
// starlark-go's test scripts, as a comment at the end of a line:
//
//	(+ 1 2) ;=> 3
//	(+ 1 "a") ;### type 6 "'+' argument 2 must be a number, got string."
//
// ";=> TEXT" says that the program's value prints as TEXT. ";### KIND COL
// "MESSAGE"" says that the program fails with an evaluation error of that
// kind and message (a Go string literal) on the comment's line, at column
// COL. Each chunk has exactly one expectation. Lines keep their numbers
// from the file: the chunk is evaluated with the lines before it blanked.

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalrun/evalrun/evaluator"
)

// scriptChunk is one program of a script and its expected outcome.
type scriptChunk struct {
	line int    // the chunk's first line in the file
	text string // the file's text with the lines outside the chunk blanked
	want specOutcome
}

var (
	valueComment = regexp.MustCompile(` ;=> (.*)$`)
	errorComment = regexp.MustCompile(` ;### (\w+) (\d+) ("(?:[^"\\]|\\.)*")$`)
)

// readScript splits a script into chunks and reads their expectations.
func readScript(t *testing.T, path string) []scriptChunk {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var chunks []scriptChunk
	start := 0
	flush := func(end int) {
		c := scriptChunk{line: start + 1}
		var b strings.Builder
		b.WriteString(strings.Repeat("\n", start))
		found := 0
		for i := start; i < end; i++ {
			l := lines[i]
			b.WriteString(l)
			b.WriteByte('\n')
			if m := valueComment.FindStringSubmatch(l); m != nil {
				c.want = specOutcome{Value: m[1]}
				found++
			}
			if m := errorComment.FindStringSubmatch(l); m != nil {
				msg, err := strconv.Unquote(m[3])
				if err != nil {
					t.Fatalf("%s:%d: bad message %s: %v", path, i+1, m[3], err)
				}
				c.want = specOutcome{Msg: msg, Kind: m[1], Pos: strconv.Itoa(i+1) + ":" + m[2]}
				found++
			}
		}
		if found != 1 {
			t.Fatalf("%s:%d: a chunk needs exactly one expectation (;=> or ;###), found %d", path, start+1, found)
		}
		c.text = b.String()
		chunks = append(chunks, c)
	}
	for i, l := range lines {
		if l == "---" {
			flush(i)
			start = i + 1
		}
	}
	flush(len(lines))
	return chunks
}

// TestScripts runs every chunk of testdata/*.sexp.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.sexp")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, path := range files {
		for _, c := range readScript(t, path) {
			name := filepath.Base(path) + ":" + strconv.Itoa(c.line)
			t.Run(name, func(t *testing.T) {
				h := newSpecHarness(t, evaluator.Limits{})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				got := outcomeOf(h.in.EvalString(ctx, path, c.text))
				if got != c.want {
					t.Errorf("%s:%d:\n got  %+v\n want %+v", path, c.line, got, c.want)
				}
			})
		}
	}
}

// scriptSources returns the programs of the scripts, for the fuzz seed
// corpus.
func scriptSources(t testing.TB) []string {
	files, _ := filepath.Glob("testdata/*.sexp")
	var out []string
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Split(string(data), "\n---\n")...)
	}
	return out
}
