package memory

import (
	"unicode"
	"unicode/utf8"
)

// scanTerms calls emit with each index term of text (SPEC §15.2): the parts
// Tokens finds, each reduced by stem, and after the parts of a run of
// letters, digits and underscores that splits into two parts or more, the
// whole run lowercased without its underscores, so that ListenAndServe,
// listen_and_serve and listenandserve are one term. The slice passed to
// emit is only valid during the call. With wholes false the whole
// identifiers are left out.
func scanTerms(text string, buf []byte, wholes bool, emit func([]byte)) {
	cur := buf[:0]
	var whole []byte // the current run, lowercased, underscores dropped
	parts := 0       // parts emitted in the current run
	prevLower := false
	flushPart := func() {
		if len(cur) > 0 {
			emit(stem(cur))
			parts++
			cur = cur[:0]
		}
	}
	endRun := func() {
		flushPart()
		if wholes && parts >= 2 && len(whole) > 0 {
			emit(whole)
		}
		whole = whole[:0]
		parts = 0
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z':
				cur = append(cur, c)
				whole = append(whole, c)
				prevLower = true
			case '0' <= c && c <= '9':
				cur = append(cur, c)
				whole = append(whole, c)
				prevLower = false
			case 'A' <= c && c <= 'Z':
				if prevLower {
					flushPart()
				}
				cur = append(cur, c+'a'-'A')
				whole = append(whole, c+'a'-'A')
				prevLower = false
			case c == '_':
				flushPart()
				prevLower = false
			default:
				endRun()
				prevLower = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			endRun()
			prevLower = false
			continue
		}
		if prevLower && unicode.IsUpper(r) {
			flushPart()
		}
		prevLower = unicode.IsLower(r)
		lr := unicode.ToLower(r)
		cur = utf8.AppendRune(cur, lr)
		whole = utf8.AppendRune(whole, lr)
	}
	endRun()
}

// Terms returns the index terms of text in order (see scanTerms): stemmed
// parts, then the whole compound identifier. "ListenAndServe" → listen,
// and, serv, listenandserve.
func Terms(text string) []string {
	var out []string
	scanTerms(text, make([]byte, 0, 32), true, func(b []byte) { out = append(out, string(b)) })
	return out
}

// stem reduces an English word to a light stem, in place: plural and verb
// endings (-s, -es, -ies, -ing, -ed) are removed and a final e dropped, so
// parse, parses, parsed and parsing all become "pars". Words of three
// letters or fewer and words with anything but ASCII lowercase letters
// are left as they are. It is deliberately lighter than Porter's: -er,
// -ion and -ly stay, so server and serve remain apart.
func stem(w []byte) []byte {
	if len(w) <= 3 {
		return w
	}
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return w
		}
	}
	n := len(w)
	switch {
	case hasSuffix(w, "ies") && n > 4:
		w = append(w[:n-3], 'y')
		return w
	case hasSuffix(w, "sses"):
		return w[:n-2]
	case hasSuffix(w, "ss"), hasSuffix(w, "us"), hasSuffix(w, "is"):
		return w
	case hasSuffix(w, "s"):
		w = w[:n-1]
	case hasSuffix(w, "ing") && n-3 >= 3 && hasVowel(w[:n-3]):
		w = undouble(w[:n-3])
	case hasSuffix(w, "ed") && n-2 >= 3 && hasVowel(w[:n-2]):
		w = undouble(w[:n-2])
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		switch c {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			return true
		}
	}
	return false
}

// undouble drops the last letter of a stem ending in a doubled consonant
// other than l, s or z (running → run, but install, pass stay).
func undouble(w []byte) []byte {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] {
		switch w[n-1] {
		case 'a', 'e', 'i', 'o', 'u', 'l', 's', 'z':
			return w
		}
		return w[:n-1]
	}
	return w
}

// stopwords are English words a query's terms leave out: they occur in
// nearly every file's comments and only blur the ranking. Their stems are
// listed where stemming changes them.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "is": true, "and": true, "or": true,
	"for": true, "on": true, "with": true, "by": true, "it": true, "that": true, "this": true, "as": true,
	"be": true, "are": true, "from": true, "at": true, "its": true, "if": true, "which": true, "whose": true,
	"was": true, "were": true, "been": true, "has": true, "have": true, "had": true, "not": true, "but": true,
	"can": true, "will": true, "should": true, "would": true, "may": true, "into": true, "than": true,
	"then": true, "there": true, "these": true, "those": true, "such": true, "any": true, "all": true,
	"each": true, "how": true, "what": true, "when": true, "where": true, "who": true, "do": true, "does": true,
	"doe": true, "i": true, "we": true, "you": true, "my": true, "our": true, "your": true, "so": true,
	"one": true, "given": true, "giv": true, "giving": true, "us": true, "also": true, "other": true,
	"only": true, "some": true, "their": true, "them": true, "they": true, "via": true,
}

// queryTerms returns the distinct terms of a query, stop words left out
// unless nothing else is left, in order of first occurrence.
func queryTerms(q string) []string {
	var all, kept []string
	seen := make(map[string]bool)
	scanTerms(q, make([]byte, 0, 32), true, func(b []byte) {
		t := string(b)
		if seen[t] {
			return
		}
		seen[t] = true
		all = append(all, t)
		if !stopwords[t] {
			kept = append(kept, t)
		}
	})
	if len(kept) == 0 {
		return all
	}
	return kept
}
