package tokens

import (
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer splits text into the pieces tiktoken's o200k_base
// regular expression matches, without a regular expression engine. The
// expression, as tiktoken-go compiles it with regexp2 (a backtracking,
// .NET-style engine where \s is unicode.IsSpace), is the alternation of
//
//	1. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	2. [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	3. \p{N}{1,3}
//	4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
//	5. \s*[\r\n]+
//	6. \s+(?!\S)
//	7. \s+
//
// tried in this order at each position; every character starts a match of
// one of them, so the pieces cover the text. match computes, for each
// alternative, the end the backtracking engine would find first.

// Character classes, as bits.
const (
	cU     = 1 << iota // \p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}: "upper" run
	cLo                // \p{Ll}\p{Lm}\p{Lo}\p{M}: "lower" run
	cL                 // \p{L}
	cN                 // \p{N}
	cSpace             // \s (unicode.IsSpace)
	cNL                // \r or \n
)

// asciiClass holds the classes of the ASCII characters.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classify(r)
	}
	return t
}()

// classify returns the classes of r.
func classify(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsSpace(r):
		c = cSpace
		if r == '\r' || r == '\n' {
			c |= cNL
		}
	case unicode.IsLetter(r):
		c = cL
		switch {
		case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
			c |= cU
		case unicode.Is(unicode.Ll, r):
			c |= cLo
		default: // Lm, Lo
			c |= cU | cLo
		}
	case unicode.IsMark(r):
		c = cU | cLo
	case unicode.IsNumber(r):
		c = cN
	}
	return c
}

// isP reports [^\r\n\p{L}\p{N}], the optional first character of the
// letter alternatives.
func isP(c uint8) bool { return c&(cNL|cL|cN) == 0 }

// isQ reports [^\s\p{L}\p{N}], the characters of the punctuation
// alternative.
func isQ(c uint8) bool { return c&(cSpace|cL|cN) == 0 }

// classBlocks caches the classes of the non-ASCII characters, 256 code
// points a block, each block computed from the unicode tables the first
// time one of its characters is seen.
var classBlocks [(unicode.MaxRune + 1) >> 8]atomic.Pointer[[256]uint8]

// classOf returns the classes of r.
func classOf(r rune) uint8 {
	if r < utf8.RuneSelf && r >= 0 {
		return asciiClass[r]
	}
	if r < 0 || r > unicode.MaxRune {
		return classify(r)
	}
	b := classBlocks[r>>8].Load()
	if b == nil {
		b = new([256]uint8)
		base := r &^ 0xff
		for i := range rune(256) {
			b[i] = classify(base + i)
		}
		classBlocks[r>>8].Store(b)
	}
	return b[r&0xff]
}

// classAt returns the classes and the size of the character at s[i:]; s is
// valid UTF-8 and i < len(s).
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	return classOf(r), size
}

// runEnd returns the end of the run of characters from i having any of
// the classes want.
func runEnd(s string, i int, want uint8) int {
	for i < len(s) {
		c, size := classAt(s, i)
		if c&want == 0 {
			break
		}
		i += size
	}
	return i
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
// regexp2 compares unicode.ToLower of the text, and no character outside
// ASCII lowers to one of these letters.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	lower := func(b byte) byte {
		if 'A' <= b && b <= 'Z' {
			return b + 'a' - 'A'
		}
		return b
	}
	switch lower(s[i+1]) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && lower(s[i+2]) == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && lower(s[i+2]) == 'l' {
			return i + 3
		}
	}
	return i
}

// letters1 matches U*Lo+ at p (alternative 1 after its optional first
// character): U* takes the longest run, then gives characters back until
// Lo+ can match.
func letters1(s string, p int) (int, bool) {
	lastLo := -1 // end of the last character of the U run that is also Lo
	j := p
	for j < len(s) {
		c, size := classAt(s, j)
		if c&cU == 0 {
			break
		}
		j += size
		if c&cLo != 0 {
			lastLo = j
		}
	}
	if j < len(s) {
		if c, _ := classAt(s, j); c&cLo != 0 {
			return runEnd(s, j, cLo), true
		}
	}
	if lastLo >= 0 {
		// Lo+ starts at the last Lo character of the run: the characters
		// after it in the run are not Lo, nor is the one after the run.
		return lastLo, true
	}
	return 0, false
}

// match returns the end of the piece that starts at i < len(s).
func match(s string, i int) int {
	c0, size0 := classAt(s, i)
	var c1 uint8
	has1 := i+size0 < len(s)
	if has1 {
		c1, _ = classAt(s, i+size0)
	}
	// 1. [^\r\n\p{L}\p{N}]? U* Lo+ contraction?
	if c0&(cU|cLo) != 0 || isP(c0) && has1 && c1&(cU|cLo) != 0 {
		if isP(c0) && has1 {
			if end, ok := letters1(s, i+size0); ok {
				return contraction(s, end)
			}
		}
		if end, ok := letters1(s, i); ok {
			return contraction(s, end)
		}
	}
	// 2. [^\r\n\p{L}\p{N}]? U+ Lo* contraction?
	p := -1
	switch {
	case isP(c0) && has1 && c1&cU != 0:
		p = i + size0
	case c0&cU != 0:
		p = i
	}
	if p >= 0 {
		return contraction(s, runEnd(s, runEnd(s, p, cU), cLo))
	}
	// 3. \p{N}{1,3}
	if c0&cN != 0 {
		j := i + size0
		for k := 1; k < 3 && j < len(s); k++ {
			c, size := classAt(s, j)
			if c&cN == 0 {
				break
			}
			j += size
		}
		return j
	}
	// 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
	q := -1
	switch {
	case s[i] == ' ' && has1 && isQ(c1):
		q = i + 1
	case isQ(c0):
		q = i
	}
	if q >= 0 {
		j := q
		for j < len(s) {
			c, size := classAt(s, j)
			if !isQ(c) {
				break
			}
			j += size
		}
		for j < len(s) && (s[j] == '\r' || s[j] == '\n' || s[j] == '/') {
			j++
		}
		return j
	}
	// c0 is white space: 5. \s*[\r\n]+, 6. \s+(?!\S), 7. \s+
	j, lastNL, lastStart := i, -1, i
	for j < len(s) {
		c, size := classAt(s, j)
		if c&cSpace == 0 {
			break
		}
		if c&cNL != 0 {
			lastNL = j + size
		}
		lastStart = j
		j += size
	}
	switch {
	case lastNL >= 0:
		return lastNL
	case j == len(s):
		return j
	case lastStart > i:
		return lastStart
	}
	return j
}
