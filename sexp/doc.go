// Package sexp reads the S-expression source text of evalrun workflows into
// nodes with positions, prints atoms canonically, displays errors with a caret
// and formats source text (SPEC §4, §5.5, §4.7 and §17.5).
//
// # Reading
//
// Parse reads the top-level forms of a Source; ParseString is the same for a
// name and a text; ParseFile also returns the comments (for the formatter) and
// can accept a text without forms. The reader is a hand-written lexer driven
// by an explicit stack, so nesting of any depth is read without recursion. It
// allocates nodes in blocks and takes names and string values as substrings
// of the text when they have no escapes. Every error is an *Error with a
// position; Parse and ParseFile return the first one in reading order.
// ParseAll keeps reading after an error, as go/scanner does, and returns an
// ErrorList of all of them (evalrun check prints them all). ParseBuilding
// hands quoted lists to a Builder that makes their values while they are
// read, so that a large quoted datum never exists as nodes (the evaluator
// reads programs so).
//
//	forms, err := sexp.ParseString("<eval>", `(list 1 "two" 'three)`)
//	if err != nil {
//		var se *sexp.Error
//		if errors.As(err, &se) {
//			fmt.Fprint(os.Stderr, se.Display()) // FILE:LINE:COL: MSG, line, caret
//		}
//		return err
//	}
//	fmt.Println(forms[0]) // (list 1 "two" (quote three))
//
// A Node is an atom (Symbol, String, Int, Float, Bool, Nil) or a List. The
// empty list () is a List without items, the atom nil has Kind Nil, and 'd is
// the list (quote d) with Quoted set.
//
// # Printing
//
// QuoteString, FormatFloat and SymbolText write strings, floats and symbols as
// the canonical printer of SPEC §5.5 does; Node.String prints a whole node.
// The Append variants append to a byte slice. FormatError and
// FormatDiagnostic produce the three-line error display of SPEC §4.7.
//
// # Formatting
//
// Format lays out a source text by the rules of SPEC §17.5. It keeps the text
// of atoms, strings and comments, and its result reads to the same forms;
// formatting twice gives the same text as formatting once.
//
// # Decisions
//
// Where the SPEC leaves a choice open, this package decides:
//
// Reader:
//   - A CRLF line break inside a string reads as one LF, so a file's line
//     endings never change a program's values. A lone CR stays.
//   - A backslash that ends the text has nothing to escape and stands for
//     itself; the atom is a symbol like any atom with a backslash.
//   - A float literal too small for float64 reads as 0 (or a subnormal); only
//     one too large is an error.
//   - When a text has several errors, Parse reports the first one met while
//     reading from left to right; ParseAll reports all, reading on after
//     each: a stray '[', ']' or ')' is skipped, a quote before ')' is
//     dropped, an out-of-range number reads as a symbol, an invalid UTF-8
//     byte reads as one byte. A string without its closing quote takes the
//     rest of the text, and nesting beyond MaxNesting stops the reading. An
//     invalid UTF-8 sequence is reported where the reader meets it, also
//     inside strings and comments.
//   - A leading byte-order mark takes no column: the character after it is at
//     column 1, and error displays leave it out.
//   - In 'd the symbol quote is at the position of the ' and its Raw is "'".
//
// Printer:
//   - SymbolText also puts a backslash before a backslash, so that the name
//     a\b prints as a\\b and reads back, and before a byte-order mark that
//     starts a name. The empty symbol name has no written form and prints as
//     the empty text.
//   - QuoteString and SymbolText write invalid UTF-8 bytes as they are; only
//     valid UTF-8 text reads back.
//   - Non-finite floats, which evalrun never makes, print as +Inf, -Inf, NaN.
//
// Formatter:
//   - Each top-level form starts on its own line at column 0. Blank lines
//     between top-level forms and comments are kept, collapsed to one; none
//     are added. Leading blank lines are dropped.
//   - "Fits in 80 columns" counts from the list's column and includes the
//     closing parentheses that follow the list on its line.
//   - The first line of a broken list (head and first N arguments) ends at
//     the first comment; all further elements go on their own lines.
//   - A trailing comment stays on its line after one space. A closing
//     parenthesis that follows a comment goes on the next line, in the column
//     of its '('.
//   - Comments keep their text except for trailing white space, which is
//     removed. Line breaks inside strings and escaped characters are kept as
//     they are; they are the only places where trailing white space can stay.
//   - Two atoms get a backslash so that they read the same in their new
//     place: a symbol that ends the text with a lone backslash (which would
//     escape the final newline) and a symbol starting with a byte-order mark
//     that comes first in the output (where the mark would be ignored).
//   - A comment between ' and its datum stays there; the datum then starts a
//     new line in the column of the '.
//   - Blank lines are kept only between elements that end up on different
//     lines.
//   - The output ends its lines as the input ends its first line, with LF
//     or CRLF; line breaks inside strings are kept as they are. The output
//     has no byte-order mark.
//   - Lists and quotes nested deeper than MaxNesting are the syntax error
//     "nesting too deep" for every command, fmt included.
//   - A text without forms is the syntax error "empty program", as for run.
package sexp
