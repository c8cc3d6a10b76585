package journal

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestLogEntryEncoding: the hand-written encoding of a call log line reads
// back, with encoding/json, exactly as encoding/json's own encoding of the
// entry does, and is one line.
func TestLogEntryEncoding(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(n int64) *int64 { return &n }
	cost := func(f float64) *float64 { return &f }
	entries := []*logEntry{
		{Run: "20250106-140300-a1b2", Seq: 3, Kind: KindTask, Name: "greet", Status: StatusCompleted, InputHash: "h",
			Inputs: str(`{"name":"Ada"}`), Result: str(`{"status":"COMPLETE","content":"Hi \"Ada\"\n<b>&</b>"}`),
			Attempts: 2, Input: 12, Output: 3, Turns: 1, Cost: cost(0.000125), Started: num(1736172180000000000),
			Finished: num(1736172181000000000)},
		{Run: "r", Seq: 1, ParentSeq: 7, Kind: KindStep, Name: "step \u2028 \x01 \\ \t", Status: StatusFailed,
			Error: "bad \xff byte", Replayed: true, Cost: cost(1e21)},
		{Run: "r", Seq: 2, Kind: KindTool, Name: "t", Status: StatusSkipped, Cost: cost(math.Inf(1))},
		{Run: "r", Seq: -4, Kind: KindTool, Name: "", Status: StatusCompleted, Input: math.MinInt64, Output: math.MaxInt64},
	}
	for i, e := range entries {
		var b bytes.Buffer
		e.appendTo(&b)
		line := b.Bytes()
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("entry %d: not one line: %q", i, line)
		}
		var got logEntry
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("entry %d: %v\n%s", i, err, line)
		}
		want := *e
		if want.Cost != nil && math.IsInf(*want.Cost, 0) {
			want.Cost = nil // not representable in JSON: left out
		}
		ref, err := json.Marshal(&want)
		if err != nil {
			t.Fatal(err)
		}
		var wantBack logEntry
		if err := json.Unmarshal(ref, &wantBack); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, wantBack) {
			t.Errorf("entry %d reads back as\n%+v\nwant\n%+v\n%s", i, got, wantBack, line)
		}
	}
}
