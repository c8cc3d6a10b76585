package sexp

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Source is one named source text: a file, an `evalrun eval` argument or a REPL
// input. Positions refer to a Source and an offset into its Text; line and
// column are computed only when a position is printed.
type Source struct {
	// Name is the file name shown in positions: the path as given, <eval>,
	// <repl> or <stdin>.
	Name string
	// Text is the whole source text.
	Text string
	// FirstLine is the line number of the first line of Text; 0 means 1. The
	// REPL numbers lines over the whole session, so its later inputs start
	// further down.
	FirstLine int

	once       sync.Once
	lineStarts []int // byte offsets at which each line starts

	built []any // the values of the quoted data read by ParseBuilding
}

// NewSource returns a Source named name holding text.
func NewSource(name, text string) *Source {
	return &Source{Name: name, Text: text}
}

func (s *Source) lines() []int {
	s.once.Do(func() {
		starts := make([]int, 1, 64)
		for i := 0; i < len(s.Text); i++ {
			if s.Text[i] == '\n' {
				starts = append(starts, i+1)
			}
		}
		s.lineStarts = starts
	})
	return s.lineStarts
}

// lineIndex returns the index (from 0) of the line holding byte offset off.
func (s *Source) lineIndex(off int) int {
	starts := s.lines()
	lo, hi := 0, len(starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Position converts a byte offset into a Position with a line and a column
// counted in code points (a tab is one column; a leading byte-order mark takes
// none).
func (s *Source) Position(off int) Position {
	if off < 0 {
		off = 0
	}
	if off > len(s.Text) {
		off = len(s.Text)
	}
	idx := s.lineIndex(off)
	start := s.lines()[idx]
	if idx == 0 {
		// A leading byte-order mark is ignored (SPEC §4.1): it takes no column.
		start = min(s.bomLen(), off)
	}
	first := s.FirstLine
	if first == 0 {
		first = 1
	}
	return Position{
		Filename: s.Name,
		Line:     first + idx,
		Column:   utf8.RuneCountInString(s.Text[start:off]) + 1,
		Offset:   off,
	}
}

// bom is the UTF-8 byte-order mark, ignored at the start of a text.
const bom = "\uFEFF"

// bomLen returns the length of the byte-order mark that starts the text, or 0.
func (s *Source) bomLen() int {
	if strings.HasPrefix(s.Text, bom) {
		return len(bom)
	}
	return 0
}

// LineText returns the source line holding byte offset off, without its line
// terminator (LF or CRLF) and, on the first line, without a leading
// byte-order mark.
func (s *Source) LineText(off int) string {
	if off < 0 {
		off = 0
	}
	if off > len(s.Text) {
		off = len(s.Text)
	}
	starts := s.lines()
	idx := s.lineIndex(off)
	start := starts[idx]
	end := len(s.Text)
	if idx+1 < len(starts) {
		end = starts[idx+1] - 1
	}
	if idx == 0 {
		start = s.bomLen()
		end = max(end, start)
	}
	line := s.Text[start:end]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// Pos is a compact position: a source and a byte offset into it. The zero Pos
// has no source and is not valid.
type Pos struct {
	Src *Source
	Off int
}

// IsValid reports whether p refers to a source.
func (p Pos) IsValid() bool { return p.Src != nil }

// Position expands p into file, line and column. An invalid Pos gives the zero
// Position.
func (p Pos) Position() Position {
	if p.Src == nil {
		return Position{}
	}
	return p.Src.Position(p.Off)
}

// String formats p as FILE:LINE:COL, or "-" when p is not valid.
func (p Pos) String() string {
	if p.Src == nil {
		return "-"
	}
	return p.Position().String()
}

// Position is a printable source position.
type Position struct {
	Filename string
	Line     int // from 1
	Column   int // from 1, in code points
	Offset   int // byte offset
}

// String formats the position as FILE:LINE:COL.
func (p Position) String() string {
	return p.Filename + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
}
