package memory

import (
	"path"
	"strings"
)

// The fields of a file that BM25F ranks (SPEC §15.2). A term's posting
// holds its frequency in each field; a file's field lengths are kept
// apart (see docInfo).
const (
	fieldDir      = iota // the directory part of the path
	fieldName            // the base name
	fieldSymbols         // the names the file defines
	fieldComments        // comments and docstrings
	fieldText            // the whole text
	fieldSummary         // the summary line (metadata)
	fieldIdents          // the 20 identifiers of the metadata
	numFields
)

// File kinds weighted down unless the query asks for them.
const (
	flagTest = 1 << iota
	flagGenerated
	flagExample
)

// language selects the comment syntax and definition scanner of a file.
type language int

const (
	langOther language = iota
	langGo
	langPython
	langJS
	langRust
	langJava
	langC
	langShell
	langMarkdown
	langHash // other languages whose comments start with #
)

// languageOf picks the scanner by extension (or, without one, by name).
func languageOf(name string) language {
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return langGo
	case ".py", ".pyi", ".pyw":
		return langPython
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts":
		return langJS
	case ".rs":
		return langRust
	case ".java", ".kt", ".kts", ".scala", ".cs", ".swift", ".groovy":
		return langJava
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm", ".s":
		return langC
	case ".sh", ".bash", ".zsh", ".ksh", ".rc", ".bats":
		return langShell
	case ".md", ".markdown", ".mdx":
		return langMarkdown
	case ".yaml", ".yml", ".toml", ".rb", ".pl", ".pm", ".mk", ".cfg", ".ini", ".conf", ".r", ".tcl", ".cmake", ".dockerfile":
		return langHash
	case "":
		switch name {
		case "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Rakefile", "Gemfile":
			return langHash
		}
	}
	return langOther
}

// fileFields is what the scanner finds in one file beyond its text.
type fileFields struct {
	symbols  []string // defined names, in order
	comments []string // comment and docstring texts
	code     []string // the text outside the comments
	flags    uint8
}

// scanFields scans the text of the file at p (relative, '/'-separated)
// for its definitions, its comments and its kind.
func scanFields(p, text string) fileFields {
	var ff fileFields
	name := path.Base(p)
	lang := languageOf(name)
	ff.flags = kindFlags(p, text)
	var spans []span
	switch lang {
	case langGo, langJS, langRust, langJava, langC:
		spans = slashComments(text, lang == langGo || lang == langJS)
	case langPython:
		spans = hashComments(text, true)
	case langShell, langHash:
		spans = hashComments(text, false)
	}
	ff.comments, ff.code = splitComments(text, spans)
	switch lang {
	case langOther, langHash:
		ff.symbols = identifiersOf(text)
	case langMarkdown:
		ff.symbols = markdownHeadings(text)
	default:
		ff.symbols = definitions(lang, text)
	}
	return ff
}

// kindFlags classifies a file as test, generated or example code by its
// path and, for generated code, the marker of its first 2 KiB.
func kindFlags(p, text string) uint8 {
	var f uint8
	name := path.Base(p)
	lower := strings.ToLower(name)
	stemName := strings.TrimSuffix(lower, path.Ext(lower))
	switch {
	case strings.HasSuffix(lower, "_test.go"), strings.HasPrefix(lower, "test_") && strings.HasSuffix(lower, ".py"),
		strings.HasSuffix(stemName, "_test"), strings.HasSuffix(stemName, "_tests"),
		strings.Contains(lower, ".test."), strings.Contains(lower, ".spec."),
		strings.HasSuffix(name, "Test.java"), strings.HasSuffix(name, "Tests.java"), stemName == "conftest":
		f |= flagTest
	}
	if strings.HasPrefix(lower, "example_") || strings.HasPrefix(lower, "example.") {
		f |= flagExample
	}
	dirs := strings.Split(path.Dir(p), "/")
	for _, d := range dirs {
		switch d {
		case "test", "tests", "testdata", "__tests__", "test_data", "testsuite":
			f |= flagTest
		case "example", "examples", "_example", "_examples":
			f |= flagExample
		}
		if strings.HasSuffix(d, "_test") || strings.HasSuffix(d, "_tests") || strings.HasPrefix(d, "test_") {
			f |= flagTest
		}
	}
	head := text
	if len(head) > 2048 {
		head = head[:2048]
	}
	if (strings.Contains(head, "Code generated") && strings.Contains(head, "DO NOT EDIT")) || strings.Contains(head, "@generated") ||
		strings.HasSuffix(lower, ".pb.go") {
		f |= flagGenerated
	}
	return f
}

// span is a comment's text: text[start:end].
type span struct{ start, end int }

// splitComments returns the comments of text (the spans) and the text
// between them.
func splitComments(text string, spans []span) (comments, code []string) {
	pos := 0
	for _, sp := range spans {
		comments = append(comments, text[sp.start:sp.end])
		code = append(code, text[pos:sp.start])
		pos = sp.end
	}
	return comments, append(code, text[pos:])
}

// slashComments returns the spans of the // and /* */ comments of C-like text, skipping
// string literals ("…", '…' when it closes within a few bytes, and `…`
// when raw is set).
func slashComments(text string, raw bool) []span {
	var out []span
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		switch {
		case c == '/' && i+1 < n && text[i+1] == '/':
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = n - i
			}
			out = append(out, span{i + 2, i + end})
			i += end
		case c == '/' && i+1 < n && text[i+1] == '*':
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return append(out, span{i + 2, n})
			}
			out = append(out, span{i + 2, i + 2 + end})
			i += end + 4
		case c == '"':
			i = skipQuoted(text, i+1, '"')
		case c == '\'':
			// A character literal closes within a few bytes; otherwise it
			// is a Rust lifetime or an apostrophe.
			if j := strings.IndexByte(text[i+1:min(n, i+6)], '\''); j >= 0 {
				i = skipQuoted(text, i+1, '\'')
			} else {
				i++
			}
		case c == '`' && raw:
			end := strings.IndexByte(text[i+1:], '`')
			if end < 0 {
				return out
			}
			i += end + 2
		default:
			i++
		}
	}
	return out
}

// skipQuoted returns the index after the closing quote of a string that
// starts at i, honouring backslash escapes; a string ends at a newline too.
func skipQuoted(text string, i int, quote byte) int {
	for i < len(text) {
		switch text[i] {
		case '\\':
			i += 2
			continue
		case quote:
			return i + 1
		case '\n':
			return i + 1
		}
		i++
	}
	return i
}

// hashComments returns the spans of the # comments of text (a # at the start of a line
// or after white space) and, with docstrings set (Python), its
// triple-quoted strings and its docstrings in single or double quotes
// (isDocstring).
func hashComments(text string, docstrings bool) []span {
	var out []span
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		switch {
		case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n'):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = n - i
			}
			out = append(out, span{i + 1, i + end})
			i += end
		case docstrings && (c == '"' || c == '\''):
			if i+2 < n && text[i+1] == c && text[i+2] == c {
				delim := text[i : i+3]
				end := strings.Index(text[i+3:], delim)
				if end < 0 {
					return append(out, span{i + 3, n})
				}
				out = append(out, span{i + 3, i + 3 + end})
				i += end + 6
				continue
			}
			end := skipQuoted(text, i+1, c)
			if end > i+1 && text[end-1] == c && isDocstring(text, i, end) {
				out = append(out, span{i + 1, end - 1})
			}
			i = end
		default:
			i++
		}
	}
	return out
}

// isDocstring reports whether the one-line string literal text[i:end] is a
// Python docstring: alone on its line (but for white space and a #
// comment) and the first statement of a def or class, so that the line
// before it that is not blank ends with ':' (the start of the file counts
// too). Docstrings with single quotes ("Same as a + b.") are as much
// documentation as triple-quoted ones.
func isDocstring(text string, i, end int) bool {
	rest := text[end:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
		return false
	}
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	if j > 0 && text[j-1] != '\n' {
		return false // not at the start of its line
	}
	before := strings.TrimRight(text[:j], " \t\r\n")
	return before == "" || strings.HasSuffix(before, ":")
}

// markdownHeadings returns the text of the # headings of Markdown text.
func markdownHeadings(text string) []string {
	var out []string
	inFence := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if len(line)-len(h) > 6 || (h != "" && h[0] != ' ' && h[0] != '\t') {
			continue
		}
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// identAt returns the identifier at the start of s ("" when there is none).
func identAt(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' || c >= 0x80 {
			i++
			continue
		}
		break
	}
	return s[:i]
}

// cutWord removes the keyword kw and the white space after it from the
// start of s; ok is false when s does not start with kw followed by white
// space (or by one of the bytes in also).
func cutWord(s, kw, also string) (string, bool) {
	if !strings.HasPrefix(s, kw) || len(s) == len(kw) {
		return s, false
	}
	c := s[len(kw)]
	if c != ' ' && c != '\t' && !strings.ContainsRune(also, rune(c)) {
		return s, false
	}
	return strings.TrimLeft(s[len(kw):], " \t"), true
}

// stripWords removes any of the leading modifier words from s and returns
// how many it removed.
func stripWords(s string, words ...string) (string, int) {
	n := 0
	for {
		found := false
		for _, w := range words {
			if rest, ok := cutWord(s, w, ""); ok {
				s, found = rest, true
				n++
				break
			}
		}
		if !found {
			return s, n
		}
	}
}

// cKeywords are words a C-like line may start with before '(' that are not
// a function's name.
var cKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "return": true, "sizeof": true, "else": true,
	"do": true, "case": true, "goto": true, "new": true, "delete": true, "catch": true, "throw": true,
	"super": true, "this": true, "synchronized": true, "assert": true, "defined": true,
}

// definitions returns the names the file's lines define, by a light
// per-language scanner of line starts (see the package documentation).
func definitions(lang language, text string) []string {
	var out []string
	add := func(name string) {
		if name != "" && !cKeywords[name] {
			out = append(out, name)
		}
	}
	block := false // inside a Go type/const/var ( … ) block
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		if trimmed == "" {
			continue
		}
		switch lang {
		case langGo:
			if block {
				if line == ")" {
					block = false
				} else if indent == 1 && line[0] == '\t' {
					add(identAt(trimmed))
				}
				continue
			}
			if indent != 0 {
				continue
			}
			if rest, ok := cutWord(line, "func", "("); ok {
				if strings.HasPrefix(rest, "(") {
					// A method: skip the receiver.
					depth := 0
					for i := 0; i < len(rest); i++ {
						if rest[i] == '(' {
							depth++
						} else if rest[i] == ')' {
							depth--
							if depth == 0 {
								rest = strings.TrimLeft(rest[i+1:], " \t")
								break
							}
						}
					}
				}
				add(identAt(rest))
				continue
			}
			for _, kw := range []string{"type", "const", "var"} {
				if rest, ok := cutWord(line, kw, "("); ok {
					if strings.HasPrefix(rest, "(") {
						block = true
					} else {
						add(identAt(rest))
					}
					break
				}
			}
		case langPython:
			s, _ := stripWords(trimmed, "async")
			if rest, ok := cutWord(s, "def", ""); ok {
				add(identAt(rest))
			} else if rest, ok := cutWord(s, "class", ""); ok {
				add(identAt(rest))
			} else if indent == 0 {
				// A module-level constant: NAME = …
				if id := identAt(trimmed); id != "" && id == strings.ToUpper(id) && len(id) > 1 {
					if rest := strings.TrimLeft(trimmed[len(id):], " \t"); strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
						add(id)
					}
				}
			}
		case langJS:
			s, _ := stripWords(trimmed, "export", "default", "declare", "abstract", "async")
			if rest, ok := cutWord(s, "function", "*"); ok {
				add(identAt(strings.TrimLeft(rest, "* \t")))
				continue
			}
			for _, kw := range []string{"class", "interface", "type", "enum", "namespace"} {
				if rest, ok := cutWord(s, kw, ""); ok {
					add(identAt(rest))
					break
				}
			}
			if indent == 0 {
				for _, kw := range []string{"const", "let", "var"} {
					if rest, ok := cutWord(s, kw, ""); ok {
						add(identAt(rest))
						break
					}
				}
			}
		case langRust:
			s := trimmed
			for {
				var n int
				s, n = stripWords(s, "pub", "async", "unsafe", "default", "extern")
				if strings.HasPrefix(s, "pub(") {
					if j := strings.IndexByte(s, ')'); j > 0 {
						s, n = strings.TrimLeft(s[j+1:], " \t"), n+1
					}
				}
				if strings.HasPrefix(s, "\"") { // extern "C"
					if j := strings.IndexByte(s[1:], '"'); j >= 0 {
						s, n = strings.TrimLeft(s[j+2:], " \t"), n+1
					}
				}
				if n == 0 {
					break
				}
			}
			if rest, ok := cutWord(s, "const", ""); ok {
				if r2, ok := cutWord(rest, "fn", ""); ok {
					add(identAt(r2))
				} else {
					add(identAt(rest))
				}
				continue
			}
			for _, kw := range []string{"fn", "struct", "enum", "trait", "type", "union", "mod", "static", "macro_rules!"} {
				if rest, ok := cutWord(s, kw, ""); ok {
					rest, _ = stripWords(rest, "mut")
					add(identAt(rest))
					break
				}
			}
		case langJava:
			s, mods := stripWords(trimmed, "public", "private", "protected", "internal", "static", "final", "abstract",
				"sealed", "synchronized", "native", "default", "override", "open", "data", "inline", "suspend", "async",
				"virtual", "partial", "readonly", "strictfp", "transient")
			found := false
			for _, kw := range []string{"class", "interface", "enum", "record", "@interface", "struct", "object", "fun", "def", "func", "trait"} {
				if rest, ok := cutWord(s, kw, ""); ok {
					add(identAt(rest))
					found = true
					break
				}
			}
			if !found && mods > 0 {
				if j := strings.IndexByte(s, '('); j > 0 && !strings.Contains(s[:j], "=") {
					add(lastIdent(s[:j]))
				}
			}
		case langC:
			if trimmed[0] == '#' {
				d := strings.TrimLeft(trimmed[1:], " \t")
				if rest, ok := cutWord(d, "define", ""); ok {
					add(identAt(rest))
				}
				continue
			}
			s, _ := stripWords(trimmed, "static", "inline", "extern", "export", "template<>")
			if rest, ok := cutWord(s, "typedef", ""); ok {
				if strings.HasSuffix(rest, ";") && !strings.Contains(rest, "(") {
					add(lastIdent(strings.TrimSuffix(rest, ";")))
				}
				continue
			}
			found := false
			for _, kw := range []string{"struct", "class", "union", "enum", "namespace"} {
				if rest, ok := cutWord(s, kw, ""); ok {
					if !strings.HasSuffix(rest, ";") || strings.Contains(rest, "{") {
						add(identAt(rest))
					}
					found = true
					break
				}
			}
			if found || indent != 0 {
				continue
			}
			switch trimmed[0] {
			case '{', '}', '/', '*', '#', ')':
				continue
			}
			if j := strings.IndexByte(s, '('); j > 0 && !strings.HasSuffix(strings.TrimSpace(line), ";") && !strings.Contains(s[:j], "=") {
				add(lastIdent(s[:j]))
			}
		case langShell:
			if rest, ok := cutWord(trimmed, "function", ""); ok {
				add(identAt(rest))
				continue
			}
			if indent == 0 {
				id := identAt(trimmed)
				if rest := strings.TrimLeft(trimmed[len(id):], " \t"); id != "" && strings.HasPrefix(rest, "()") {
					add(id)
				}
			}
		}
	}
	return out
}

// lastIdent returns the last identifier of s, ignoring trailing white
// space and pointer or reference marks.
func lastIdent(s string) string {
	s = strings.TrimRight(s, " \t*&")
	i := len(s)
	for i > 0 {
		c := s[i-1]
		if c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == ':' || c == '~' {
			i--
			continue
		}
		break
	}
	id := s[i:]
	if j := strings.LastIndex(id, "::"); j >= 0 { // Class::method
		id = id[j+2:]
	}
	return strings.TrimLeft(id, "~:")
}
