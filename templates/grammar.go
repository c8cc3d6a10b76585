package templates

import (
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/evalrun/evalrun/value"
)

// The placeholder expression grammar (SPEC §12.1), the text between "{{" and
// "}}":
//
//	Expr   = Ref { "|" Filter } .
//	Ref    = name { "." ( name | digits ) } .        (one Ref token)
//	Filter = name [ "(" [ Arg { "," Arg } ] ")" ] .
//	Arg    = String | Float | Int | "true" | "false" | "null" .
//
// A reference is lexed as one token so that a digit segment such as the ".0"
// of "steps.0" never reads as the float ".0"; it is split at its dots by
// hand. Filter names use the same token.
//
// The lexer and parser are built on first use, so that programs that render no
// template pay nothing for them at start-up.
var exprLexerRules = []lexer.SimpleRule{
	{Name: "Ref", Pattern: `[A-Za-z_][A-Za-z0-9_-]*(\.([A-Za-z_][A-Za-z0-9_-]*|[0-9]+))*`},
	{Name: "Float", Pattern: `[-+]?([0-9]+(_[0-9]+)*\.([0-9]+(_[0-9]+)*)?([eE][-+]?[0-9]+(_[0-9]+)*)?|\.[0-9]+(_[0-9]+)*([eE][-+]?[0-9]+(_[0-9]+)*)?|[0-9]+(_[0-9]+)*[eE][-+]?[0-9]+(_[0-9]+)*)`},
	{Name: "Int", Pattern: `[-+]?[0-9]+(_[0-9]+)*`},
	{Name: "String", Pattern: `"(\\.|[^"\\])*"`},
	{Name: "Punct", Pattern: `[|(),]`},
	{Name: "Space", Pattern: `[ \t\r\n]+`},
}

type exprAST struct {
	Ref     refAST       `parser:"@@"`
	Filters []*filterAST `parser:"( \"|\" @@ )*"`
}

type refAST struct {
	Pos  lexer.Position
	Text string `parser:"@Ref"`
}

type filterAST struct {
	Pos  lexer.Position
	Name string    `parser:"@Ref"`
	Call bool      `parser:"( @\"(\""`
	Args []*argAST `parser:"  ( @@ ( \",\" @@ )* )? \")\" )?"`
}

type argAST struct {
	Pos   lexer.Position
	Str   *string `parser:"  @String"`
	Float *string `parser:"| @Float"`
	Int   *string `parser:"| @Int"`
	Bool  *string `parser:"| @( \"true\" | \"false\" )"`
	Null  bool    `parser:"| @\"null\""`
}

var exprParser = sync.OnceValue(func() *participle.Parser[exprAST] {
	return participle.MustBuild[exprAST](
		participle.Lexer(lexer.MustSimple(exprLexerRules)),
		participle.Elide("Space"),
	)
})

// literal converts a parsed argument into its value. The lexer guarantees the
// token shapes; an int that does not fit 64 bits or a float out of range is an
// error naming the literal.
func (a *argAST) literal() (value.Value, string) {
	switch {
	case a.Str != nil:
		return value.String(unquote(*a.Str)), ""
	case a.Float != nil:
		f, err := strconv.ParseFloat(strings.ReplaceAll(*a.Float, "_", ""), 64)
		if err != nil {
			return nil, "float literal out of range: " + *a.Float
		}
		return value.Float(f), ""
	case a.Int != nil:
		n, err := strconv.ParseInt(strings.ReplaceAll(*a.Int, "_", ""), 10, 64)
		if err != nil {
			return nil, "integer literal out of range: " + *a.Int
		}
		return value.Int(n), ""
	case a.Bool != nil:
		return value.Bool(*a.Bool == "true"), ""
	}
	return value.Null{}, ""
}

// unquote removes the quotes of a string literal and replaces the escapes of
// SPEC §4.3; any other backslash sequence is kept verbatim.
func unquote(s string) string {
	s = s[1 : len(s)-1]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
