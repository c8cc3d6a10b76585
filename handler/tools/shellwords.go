package tools

import (
	"errors"
	"strings"
)

// SplitWords splits a command line into words with the POSIX shell's
// quoting rules (SPEC §19): blanks and newlines separate words; a backslash
// outside quotes takes the next character literally (backslash-newline is
// removed); single quotes keep everything up to the next single quote;
// double quotes keep everything but interpret a backslash before $ ` " \
// and newline; a word starting with # starts a comment up to the end of the
// line. Nothing is expanded: no variables, globs or tildes.
//
// Because the command runs without a shell, an unquoted operator
// (| & ; < > ( )), command substitution (` or $(…)) and parameter expansion
// ($NAME, ${…}) are errors rather than being passed on as text the user did
// not mean.
func SplitWords(s string) ([]string, error) {
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
				if d == '`' || d == '$' && expands(s, i) {
					return nil, errSubstitution
				}
				cur.WriteByte(d)
			}
			if !closed {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case '#':
			if inWord {
				cur.WriteByte(c)
				continue
			}
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case '|', '&', ';', '<', '>', '(', ')':
			return nil, errors.New("shell operator '" + string(c) + "' is not supported (the command runs without a shell)")
		case '`':
			return nil, errSubstitution
		case '$':
			if expands(s, i) {
				return nil, errSubstitution
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

var errSubstitution = errors.New("variable expansion and command substitution are not supported (the command runs without a shell)")

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
