package serve

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalrun/evalrun/sexp"
)

// ErrorDisplay is an error whose message starts with FILE:LINE:COL, shown
// as SPEC §4.7 displays it: the position and message, the source line and
// the caret line.
type ErrorDisplay struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
	// Source is the text of the line; Caret the caret line under it.
	Source string `json:"source"`
	Caret  string `json:"caret"`
	// Text is the whole three-line display.
	Text string `json:"text"`
}

// positionRE matches an error message that starts with a position.
var positionRE = regexp.MustCompile(`^(.+?):([0-9]+):([0-9]+): `)

// errorDisplay returns the display of msg when it starts with FILE:LINE:COL
// and FILE is readable inside root (a workflow, relative to the working
// directory, to the project root, or absolute); nil otherwise. Only files
// inside root are read.
func errorDisplay(root, workDir, msg string) *ErrorDisplay {
	msg = strings.TrimSpace(msg)
	m := positionRE.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	line, err1 := strconv.Atoi(m[2])
	col, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return nil
	}
	text, ok := readInside(root, workDir, m[1])
	if !ok {
		if text, ok = readInside(root, root, m[1]); !ok {
			return nil
		}
	}
	off, ok := offsetOf(text, line, col)
	if !ok {
		return nil
	}
	rest := msg[len(m[0]):]
	rest, _, _ = strings.Cut(rest, "\n")
	shown := sexp.FormatError(sexp.Pos{Src: sexp.NewSource(m[1], text), Off: off}, rest)
	lines := strings.SplitN(strings.TrimSuffix(shown, "\n"), "\n", 3)
	if len(lines) != 3 {
		return nil
	}
	return &ErrorDisplay{File: m[1], Line: line, Col: col, Message: rest, Source: lines[1], Caret: lines[2], Text: shown}
}

// readInside reads name (relative to base unless absolute) when it lies
// inside root after resolving symbolic links.
func readInside(root, base, name string) (string, bool) {
	if root == "" || name == "" || strings.HasPrefix(name, "<") {
		return "", false
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(rootReal, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	b, err := os.ReadFile(real)
	if err != nil || len(b) > 16<<20 {
		return "", false
	}
	return string(b), true
}

// offsetOf returns the byte offset of line and column (in code points) in
// text; a column just past the end of the line is allowed.
func offsetOf(text string, line, col int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text) - off
	}
	lineText := text[off : off+end]
	n := 1
	for i := range lineText {
		if n == col {
			return off + i, true
		}
		n++
	}
	if col == utf8.RuneCountInString(lineText)+1 {
		return off + len(lineText), true
	}
	return 0, false
}
