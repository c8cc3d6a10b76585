package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": 1,}`, "1:9: trailing comma before '}'"},
		{`{"a" 1}`, "1:6: unexpected character '1', expected ':' after the key \"a\""},
		{`[1, 2`, "1:6: unexpected end of file, expected ',' or ']'"},
		{"{\n  \"a\": \"x\n\"}", "2:10: control character U+000A in a string (write it escaped)"},
		{`{"a": tru}`, "1:7: unexpected character 't', expected a value"},
		{`{"a": 01}`, "1:7: invalid number 01"},
		{`{} x`, "1:4: unexpected character 'x' after the JSON value"},
		{`"abc`, "1:1: unterminated string"},
	} {
		_, err := parseJSON([]byte(c.in))
		se, ok := err.(*SyntaxError)
		if !ok {
			t.Errorf("%q: err = %v", c.in, err)
			continue
		}
		line, col := newLineIndex([]byte(c.in)).pos(se.Offset)
		if got := fmtPos(line, col) + ": " + se.Msg; got != c.want {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
	}
}

func fmtPos(line, col int) string { return fmt.Sprintf("%d:%d", line, col) }

// FuzzParseJSON checks that the positioned reader accepts exactly the
// texts encoding/json accepts, never panics, and that every span it
// records holds valid JSON.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, "x\u00e9"], "b": {"c": null, "d": true}}`, `[]`, `{"a":}`, `"\ud800"`, "[1,\n2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseJSON([]byte(s))
		// A leading byte order mark is read as Windows tools write it.
		valid := json.Valid(bytes.TrimPrefix([]byte(s), utf8BOM))
		if (err == nil) != valid {
			t.Fatalf("%q: parse error %v, json.Valid %v", s, err, valid)
		}
		if err != nil {
			return
		}
		var walk func(n *Node)
		walk = func(n *Node) {
			if !json.Valid([]byte(s[n.Start:n.End])) {
				t.Fatalf("%q: span %d:%d is not JSON", s, n.Start, n.End)
			}
			for _, it := range n.Items {
				walk(it)
			}
			for _, m := range n.Members {
				walk(m.Value)
			}
		}
		walk(n)
	})
}

// A JSON file of the plan that is read again while the plan runs (the
// run records, a task file changed meanwhile) and is no longer JSON is an
// error at its line and column.
func TestRereadErrorsHavePositions(t *testing.T) {
	p, _ := writePlan(t, map[string]string{"IMPL-1": `{"id": "IMPL-1", "title": "T", "status": "pending", "description": "d"}`}, Options{})
	if err := WriteAtomic(p.StatePath(), []byte("{\n  \"tasks\": {,}\n}\n")); err != nil {
		t.Fatal(err)
	}
	_, err := p.ReadState()
	if want := p.StatePath() + ":2:13: invalid JSON: unexpected character ','"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("ReadState: %v\nwant %s…", err, want)
	}
	if err := WriteAtomic(p.StatePath(), []byte(`{"tasks": {"IMPL-1": {"tokens": "many"}}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadState(); err == nil || !strings.HasPrefix(err.Error(), p.StatePath()+": json: cannot unmarshal") {
		t.Errorf("ReadState: %v", err)
	}
	path := p.Tasks[0].File.Path
	if err := WriteAtomic(path, []byte("{\"id\": \"IMPL-1\",\n\"title\": tru}")); err != nil {
		t.Fatal(err)
	}
	if _, err := readJSONFile(path); err == nil || err.Error() != path+":2:10: invalid JSON: unexpected character 't', expected a value" {
		t.Errorf("readJSONFile: %v", err)
	}
}
