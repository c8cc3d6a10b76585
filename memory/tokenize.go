package memory

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens splits text for BM25 ranking (SPEC §15.2): at every character that
// is not a letter or digit and at every change from a lowercase to an
// uppercase letter, lowercased. "parseURL_v2" → parse, url, v2.
func Tokens(text string) []string {
	var toks []string
	scanTokens(text, make([]byte, 0, 32), func(tok []byte) { toks = append(toks, string(tok)) })
	return toks
}

// scanTokens calls emit with each BM25 token of text. The slice passed to emit
// is buf's storage and is only valid during the call.
func scanTokens(text string, buf []byte, emit func([]byte)) {
	cur := buf[:0]
	prevLower := false
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z':
				cur = append(cur, c)
				prevLower = true
			case '0' <= c && c <= '9':
				cur = append(cur, c)
				prevLower = false
			case 'A' <= c && c <= 'Z':
				if prevLower {
					emit(cur)
					cur = cur[:0]
				}
				cur = append(cur, c+'a'-'A')
				prevLower = false
			default:
				if len(cur) > 0 {
					emit(cur)
					cur = cur[:0]
				}
				prevLower = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if len(cur) > 0 {
				emit(cur)
				cur = cur[:0]
			}
			prevLower = false
			continue
		}
		if prevLower && unicode.IsUpper(r) {
			emit(cur)
			cur = cur[:0]
		}
		prevLower = unicode.IsLower(r)
		cur = utf8.AppendRune(cur, unicode.ToLower(r))
	}
	if len(cur) > 0 {
		emit(cur)
	}
}

// fieldCounts are the terms of one file: the distinct terms in order of
// first occurrence, their frequency in each field, and each field's length
// in terms.
type fieldCounts struct {
	terms []string
	tf    [][numFields]uint32
	lens  [numFields]uint32
}

// maxInterned bounds a counter's table of term strings.
const maxInterned = 1 << 20

// termCounter counts the terms of one file after another, reusing its
// tables: a worker keeps one. Term strings are interned, so a term common to
// many files is allocated once per counter.
type termCounter struct {
	intern map[string]string
	index  map[string]int
	buf    []byte
	field  int
	cur    fieldCounts
}

func newTermCounter() *termCounter {
	return &termCounter{intern: make(map[string]string, 1<<12), index: make(map[string]int, 1<<10), buf: make([]byte, 0, 64)}
}

// count returns the counts of the terms of each field's texts, each text
// split on its own (a term never spans two texts). With wholes false no
// whole identifier is kept.
func (tc *termCounter) count(fields *[numFields][]string, wholes bool) *fieldCounts {
	clear(tc.index)
	tc.cur = fieldCounts{terms: tc.cur.terms[:0], tf: tc.cur.tf[:0]}
	for f, texts := range fields {
		tc.field = f
		// Whole identifiers are kept where names are and in comments; in
		// the text they would add a term for every compound name a body
		// uses.
		keep := wholes && f != fieldText && f != fieldSummary
		for _, p := range texts {
			scanTerms(p, tc.buf, keep, tc.emit)
		}
	}
	return &fieldCounts{terms: slices.Clone(tc.cur.terms), tf: slices.Clone(tc.cur.tf), lens: tc.cur.lens}
}

func (tc *termCounter) emit(tok []byte) {
	tc.cur.lens[tc.field]++
	if i, ok := tc.index[string(tok)]; ok {
		tc.cur.tf[i][tc.field]++
		return
	}
	s, ok := tc.intern[string(tok)]
	if !ok {
		if len(tc.intern) >= maxInterned {
			clear(tc.intern)
		}
		s = string(tok)
		tc.intern[s] = s
	}
	tc.index[s] = len(tc.cur.terms)
	tc.cur.terms = append(tc.cur.terms, s)
	var tf [numFields]uint32
	tf[tc.field] = 1
	tc.cur.tf = append(tc.cur.tf, tf)
}

// maxSummaryRunes is the length limit of a file summary (SPEC §15.1).
const maxSummaryRunes = 120

// summaryOf returns the first non-blank line of text, trimmed and cut to 120
// code points.
func summaryOf(text string) string {
	for text != "" {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		return cutRunes(line, maxSummaryRunes)
	}
	return ""
}

// cutRunes returns s cut to at most n code points.
func cutRunes(s string, n int) string {
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// cutBytes returns s cut to at most n bytes without splitting a UTF-8
// sequence.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && i > n-utf8.UTFMax && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// maxIdentifiers is how many identifiers a file's metadata keeps.
const maxIdentifiers = 20

// identifiersOf returns up to 20 distinct identifiers of text in order of
// first occurrence (SPEC §15.1). A candidate is a maximal run of letters,
// digits and underscores that does not start with a digit; it is an
// identifier when it starts with an uppercase letter or has an underscore
// with a letter or digit on each side (Parse, MAX_SIZE, snake_case, but not
// _private, x or 1_000).
func identifiersOf(text string) []string {
	var ids []string
	seen := make(map[string]bool, maxIdentifiers)
	start := -1 // start of the current run, -1 outside a run
	for i := 0; i <= len(text); {
		var r rune
		size := 1
		if i < len(text) {
			if c := text[i]; c < utf8.RuneSelf {
				r = rune(c)
			} else {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
		}
		inRun := i < len(text) && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
		if inRun && start < 0 {
			start = i
		}
		if !inRun && start >= 0 {
			tok := text[start:i]
			start = -1
			if isIdentifier(tok) && !seen[tok] {
				seen[tok] = true
				ids = append(ids, tok)
				if len(ids) == maxIdentifiers {
					return ids
				}
			}
		}
		i += size
	}
	return ids
}

// isIdentifier reports whether tok, a run of letters, digits and
// underscores, counts as an identifier for the metadata.
func isIdentifier(tok string) bool {
	first, _ := utf8.DecodeRuneInString(tok)
	if unicode.IsDigit(first) {
		return false
	}
	if unicode.IsUpper(first) {
		return true
	}
	prevAlnum := false
	for i, r := range tok {
		if r == '_' {
			if prevAlnum {
				next, _ := utf8.DecodeRuneInString(tok[i+1:])
				if next != utf8.RuneError && next != '_' && (unicode.IsLetter(next) || unicode.IsDigit(next)) {
					return true
				}
			}
			prevAlnum = false
			continue
		}
		prevAlnum = true
	}
	return false
}
