package shellwords

import (
	"errors"
	"strings"
)

// Mode says what Split does with the shell syntax it does not interpret.
type Mode int

const (
	// Literal treats operators (| & ; < > ( )), $, backquotes and # as
	// ordinary characters: the words go to a program, never to a shell,
	// so `a | b` is the three words a, |, b (agent commands, SPEC §22.1).
	Literal Mode = iota
	// Strict refuses what a shell would interpret and a program would
	// not: an unquoted operator, command substitution (` or $(…)) and
	// parameter expansion ($NAME, ${…}) are errors, and a word that
	// starts with # starts a comment up to the end of the line (the
	// shell tool, SPEC §19; a plan's bash(…) command that can run
	// without a shell).
	Strict
)

// ErrSubstitution is the error of Strict for a command substitution or a
// parameter expansion.
var ErrSubstitution = errors.New("variable expansion and command substitution are not supported (the command runs without a shell)")

// Split splits a command line into words with the POSIX shell's quoting
// rules: blanks and newlines separate words; a backslash outside quotes
// takes the next character literally (backslash-newline is removed);
// single quotes keep everything up to the next single quote; double quotes
// keep everything but interpret a backslash before $ ` " \ and newline.
// Nothing is expanded: no variables, globs or tildes. mode says what
// becomes of the other shell syntax.
func Split(s string, mode Mode) ([]string, error) {
	strict := mode == Strict
	var words []string
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			end()
		case '\\':
			if i+1 >= len(s) {
				return nil, errors.New("unterminated escape at the end of the command")
			}
			i++
			if s[i] == '\n' {
				continue
			}
			cur.WriteByte(s[i])
			inWord = true
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			i++
			closed := false
			for ; i < len(s); i++ {
				d := s[i]
				if d == '"' {
					closed = true
					break
				}
				if d == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						cur.WriteByte(s[i])
					}
					continue
				}
				if strict && (d == '`' || d == '$' && expands(s, i)) {
					return nil, ErrSubstitution
				}
				cur.WriteByte(d)
			}
			if !closed {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case '#':
			if inWord || !strict {
				cur.WriteByte(c)
				inWord = true
				continue
			}
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '|', '&', ';', '<', '>', '(', ')':
			if strict {
				return nil, errors.New("shell operator '" + string(c) + "' is not supported (the command runs without a shell)")
			}
			cur.WriteByte(c)
			inWord = true
		case '`':
			if strict {
				return nil, ErrSubstitution
			}
			cur.WriteByte(c)
			inWord = true
		case '$':
			if strict && expands(s, i) {
				return nil, ErrSubstitution
			}
			cur.WriteByte(c)
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

// expands reports whether the $ at s[i] would start an expansion in a
// shell.
func expands(s string, i int) bool {
	if i+1 >= len(s) {
		return false
	}
	c := s[i+1]
	return c == '{' || c == '(' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
		c >= '0' && c <= '9' || strings.IndexByte("@*#?$!-", c) >= 0
}

// Quote quotes s for a POSIX shell: single quotes, with '\” for an
// embedded quote.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteAt quotes s for the place at the end of the shell text prefix, so
// that the shell reads it back as exactly s however prefix left the
// quoting: outside quotes (and at the top of a command substitution) it is
// Quote(s); inside single quotes each ' becomes '\” (close, quoted quote,
// reopen); inside double quotes \ $ ` and " are escaped with a backslash,
// so that $(…), `…` and $NAME in s stay text; in the body of a here-document
// \ $ and ` are escaped when its delimiter is unquoted (<<EOF) and nothing
// is when it is quoted (<<'EOF'). A value substituted into `grep "{{pattern}}"`
// or `echo '[var]'` can thus not start a command. The error is
// ErrHeredocDelimiter for a value with a line that would end the
// here-document it stands in, which no quoting can prevent.
func QuoteAt(prefix, s string) (string, error) {
	st := quoteState(prefix)
	switch st.state {
	case inSingle:
		s = strings.ReplaceAll(s, "'", `'\''`)
	case inDouble:
		s = escape(s, "\\$`\"")
	case inComment:
		// The rest of a comment line: a value with a newline would start
		// a command.
		if strings.ContainsAny(s, "\n\r") {
			return "", ErrCommentNewline
		}
	case inHeredoc:
		for _, line := range strings.Split(st.line+s, "\n") {
			if st.dash {
				line = strings.TrimLeft(line, "\t")
			}
			if line == st.delim {
				return "", ErrHeredocDelimiter
			}
		}
		if !st.quotedDelim {
			s = escape(s, "\\$`")
		}
	default:
		s = Quote(s)
	}
	// Inside `…` the shell first removes a backslash before \ $ and `.
	for range st.backquotes {
		s = escape(s, "\\$`")
	}
	return s, nil
}

// ErrCommentNewline is the error of QuoteAt for a value with a line
// break substituted into a comment.
var ErrCommentNewline = errors.New("the value holds a line break and stands in a comment, where the next line would run")

// ErrHeredocDelimiter is the error of QuoteAt for a value holding the
// delimiter line of the here-document it would be put in.
var ErrHeredocDelimiter = errors.New("the value holds the line that ends the here-document it is substituted into")

// escape puts a backslash before every byte of s that is in chars.
func escape(s, chars string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// The quoting states of quoteState.
const (
	unquoted = iota
	inSingle
	inDouble
	inHeredoc
	inComment
)

// position is the quoting at the end of a shell text (quoteState).
type position struct {
	state      int
	backquotes int // `…` substitutions open around it
	// In a here-document's body: its delimiter, whether the delimiter
	// was quoted (no expansion in the body), whether it was <<- (leading
	// tabs stripped) and the text of the body's current line so far.
	delim       string
	quotedDelim bool
	dash        bool
	line        string
}

// heredoc is a here-document whose body starts at the next newline.
type heredoc struct {
	delim  string
	quoted bool
	dash   bool
}

// quoteState scans the shell text s and returns the quoting in force at
// its end. Command substitutions ($(…) and `…`) open a new unquoted level
// that their closing character ends, so that the double quotes around
// "$(cmd 'x')" are found again after it. A here-document (<<EOF, <<-EOF,
// <<'EOF') has its body from the next newline up to its delimiter line.
func quoteState(s string) position {
	// stack holds the enclosing levels: their state and what closes a
	// substitution started in them (')' or '`').
	type level struct {
		state int
		close byte
	}
	stack := []level{{unquoted, 0}}
	top := func() *level { return &stack[len(stack)-1] }
	var pending []heredoc
	for i := 0; i < len(s); i++ {
		c := s[i]
		l := top()
		switch l.state {
		case inSingle:
			if c == '\'' {
				l.state = unquoted
			}
			continue
		case inDouble:
			switch {
			case c == '\\':
				i++
			case c == '"':
				l.state = unquoted
			case c == '$' && i+1 < len(s) && s[i+1] == '(':
				i++
				stack = append(stack, level{unquoted, ')'})
			case c == '`':
				stack = append(stack, level{unquoted, '`'})
			}
			continue
		}
		switch {
		case c == '\\':
			i++
		case c == '#' && (i == 0 || strings.IndexByte(" \t\n;&|()", s[i-1]) >= 0):
			// A comment, up to the end of the line: its quotes are text.
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return position{state: inComment}
			}
			i += j - 1
		case c == '\'':
			l.state = inSingle
		case c == '"':
			l.state = inDouble
		case len(stack) > 1 && c == l.close:
			stack = stack[:len(stack)-1]
		case strings.HasPrefix(s[i:], "$((") || strings.HasPrefix(s[i:], "((") && (i == 0 || strings.IndexByte(" \t\n;&|", s[i-1]) >= 0):
			// Arithmetic, where << is a shift: up to the closing )).
			if j := strings.Index(s[i:], "))"); j >= 0 {
				i += j + 1
			} else {
				i = len(s)
			}
		case c == '(':
			// $( or a subshell: both end at the matching ).
			stack = append(stack, level{unquoted, ')'})
		case c == '`':
			stack = append(stack, level{unquoted, '`'})
		case c == '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<"):
			h, end := readHeredoc(s, i+2)
			pending = append(pending, h)
			i = end - 1
		case c == '\n' && len(pending) > 0:
			// The bodies follow one another from the next line.
			rest := s[i+1:]
			for len(pending) > 0 {
				h := pending[0]
				line, after, ok := strings.Cut(rest, "\n")
				if !ok {
					p := position{state: inHeredoc, delim: h.delim, quotedDelim: h.quoted, dash: h.dash, line: line}
					for _, l := range stack {
						if l.close == '`' {
							p.backquotes++
						}
					}
					return p
				}
				if h.dash {
					line = strings.TrimLeft(line, "\t")
				}
				if line == h.delim {
					pending = pending[1:]
				}
				rest = after
			}
			i = len(s) - len(rest) - 1
		}
	}
	p := position{state: top().state}
	for _, l := range stack {
		if l.close == '`' {
			p.backquotes++
		}
	}
	return p
}

// readHeredoc reads the delimiter word of a here-document whose << ends
// at s[i]: an optional -, blanks, then the word, its quotes removed. end
// is the index after the word.
func readHeredoc(s string, i int) (h heredoc, end int) {
	if i < len(s) && s[i] == '-' {
		h.dash = true
		i++
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var b strings.Builder
	for ; i < len(s) && strings.IndexByte(" \t\n;&|<>()", s[i]) < 0; i++ {
		switch c := s[i]; c {
		case '\'', '"':
			h.quoted = true
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				b.WriteString(s[i+1:])
				return heredoc{delim: b.String(), quoted: true, dash: h.dash}, len(s)
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case '\\':
			h.quoted = true
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	h.delim = b.String()
	return h, i
}
