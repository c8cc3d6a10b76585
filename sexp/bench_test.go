package sexp

import "testing"

// TestA100kCounts checks the node counts that the benchmark manifest gives
// for a_parse_100k.sexp: every list (the top-level one included) and every
// atom.
func TestA100kCounts(t *testing.T) {
	text := readBench(t, "a_parse_100k.sexp")
	forms, err := ParseString("a_parse_100k.sexp", text)
	if err != nil {
		t.Fatal(err)
	}
	lists, atoms := 0, 0
	todo := append([]*Node(nil), forms...)
	for len(todo) > 0 {
		n := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if n.Kind == List {
			lists++
			todo = append(todo, n.Items...)
		} else {
			atoms++
		}
	}
	if lists != 5421 || atoms != 14225 {
		t.Errorf("read %d lists and %d atoms, want 5421 and 14225", lists, atoms)
	}
}

// BenchmarkParseA100k reads the ~100 KB parse benchmark of the shared
// workflows; ARCHITECTURE.md asks for at least 50 MB/s.
func BenchmarkParseA100k(b *testing.B) {
	text := readBench(b, "a_parse_100k.sexp")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(NewSource("a_parse_100k.sexp", text)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseSmall reads a typical small workflow, as the REPL and
// evalrun eval do.
func BenchmarkParseSmall(b *testing.B) {
	text := readBench(b, "e_director_loop_5.sexp")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(NewSource("e_director_loop_5.sexp", text)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFormat formats the ~100 KB parse benchmark, reading included.
func BenchmarkFormat(b *testing.B) {
	text := readBench(b, "a_parse_100k.sexp")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Format(NewSource("a_parse_100k.sexp", text)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNodeString prints the forms of the ~100 KB parse benchmark.
func BenchmarkNodeString(b *testing.B) {
	text := readBench(b, "a_parse_100k.sexp")
	forms, err := ParseString("a_parse_100k.sexp", text)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = buf[:0]
		for _, n := range forms {
			buf = AppendNode(buf, n)
		}
	}
}
