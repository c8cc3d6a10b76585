// Package shellwords splits command lines into words with the quoting
// rules of the POSIX shell, without running a shell: the one splitter of
// the shell tool, agent commands and plan steps. Nothing is expanded.
//
//	words, err := shellwords.Split(`git diff -- 'a b.go'`, shellwords.Strict)
//	// words: ["git" "diff" "--" "a b.go"]
package shellwords
