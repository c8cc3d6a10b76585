package journal

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/evalrun/evalrun/value"
)

// jsonString is s as encoding/json reads it back: invalid UTF-8 becomes
// U+FFFD.
func jsonString(s string) string {
	enc, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(enc, &out)
	return out
}

// FuzzLogEntry checks the call log's hand-written encoder: every entry is
// one line that encoding/json reads back as the entry, so that a journal
// recovers exactly what a dead process logged.
func FuzzLogEntry(f *testing.F) {
	f.Add("20250101-120000-ab12", 3, 1, "task", "review", "completed", "h1", `{"x":1}`, `{"status":"ok","content":"a\nb","parsedContent":null,"notes":{}}`, "", int64(12), int64(4), 0.0012, true)
	f.Add("r", 1, 0, "tool", "shell\u2028", "failed", "", "", "", "boom\x00\"\\", int64(-1), int64(1<<62), math.Copysign(0, -1), false)
	f.Fuzz(func(t *testing.T, run string, seq, parent int, kind, name, status, hash, inputs, result, errMsg string, in, out int64, cost float64, replayed bool) {
		started, finished := in, out
		e := logEntry{Run: run, Seq: seq, ParentSeq: parent, Kind: kind, Name: name, Status: status, InputHash: hash,
			Error: errMsg, Attempts: seq, Input: in, Output: out, Turns: parent, Cost: &cost, Replayed: replayed, Started: &started, Finished: &finished}
		if inputs != "" {
			e.Inputs = &inputs
		}
		if result != "" {
			e.Result = &result
		}
		var b bytes.Buffer
		e.appendTo(&b)
		line := b.Bytes()
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("entry is not one line: %q", line)
		}
		var got logEntry
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		want := e
		want.Run, want.Kind, want.Name, want.Status, want.InputHash, want.Error = jsonString(run), jsonString(kind), jsonString(name), jsonString(status), jsonString(hash), jsonString(errMsg)
		if e.Inputs != nil {
			s := jsonString(inputs)
			want.Inputs = &s
		}
		if e.Result != nil {
			s := jsonString(result)
			want.Result = &s
		}
		if math.IsNaN(cost) || math.IsInf(cost, 0) {
			want.Cost = nil // no JSON number: the cost is unknown
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q read back as\n%+v, want\n%+v", line, got, want)
		}
	})
}

// FuzzDecodeResult reads any stored text as a result (never panics) and
// checks that a task's result is read back as the TaskResult stored.
func FuzzDecodeResult(f *testing.F) {
	f.Add(`{"status":"ok","content":"a","parsedContent":null,"notes":{}}`, "ok", "answer", `{"n":1}`)
	f.Add(`{"status":1,"content":"a","parsedContent":null,"notes":{}}`, "error", "", `[1, "x", null]`)
	f.Add(`[1, 2`, "ok", "\x00", `not json`)
	f.Fuzz(func(t *testing.T, text, status, content, parsed string) {
		for _, kind := range []string{KindTask, KindTool, KindStep} {
			if v, err := decodeResult(kind, text); (err == nil) == (v == nil) {
				t.Fatalf("%s %q: %v, %v", kind, text, v, err)
			}
		}
		var pv value.Value
		if v, err := value.ParseJSON(parsed); err == nil {
			pv = v
		}
		tr := &value.TaskResult{Status: status, Content: content, Parsed: pv, Notes: value.NewDict(0)}
		v, err := decodeResult(KindTask, value.JSON(tr))
		if err != nil {
			t.Fatalf("%+v stored as %s: %v", tr, value.JSON(tr), err)
		}
		got, ok := v.(*value.TaskResult)
		if !ok {
			t.Fatalf("%s read back as %T", value.JSON(tr), v)
		}
		want := &value.TaskResult{Status: jsonString(status), Content: jsonString(content), Parsed: pv, Notes: value.NewDict(0)}
		if value.JSON(got) != value.JSON(want) {
			t.Fatalf("stored %s, read back %s", value.JSON(want), value.JSON(got))
		}
	})
}
