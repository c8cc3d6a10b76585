package memory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"parseURL_v2", []string{"parse", "url", "v2"}},
		{"retryPolicy", []string{"retry", "policy"}},
		{"HTTPServer", []string{"httpserver"}}, // only lower→upper splits
		{"net/url/url.go", []string{"net", "url", "url", "go"}},
		{"utf8Valid", []string{"utf8valid"}}, // a digit is not lowercase
		{"SHA-256 checksum", []string{"sha", "256", "checksum"}},
		{"  a  b ", []string{"a", "b"}},
		{"ÉtéÀ vélo", []string{"été", "à", "vélo"}},
		{"日本語テキスト", []string{"日本語テキスト"}},
		{"x\u00a0y", []string{"x", "y"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Tokens(tt.in)); diff != "" {
			t.Errorf("Tokens(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestSummaryOf(t *testing.T) {
	long := strings.Repeat("é", 130)
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n\n  \t\n  first line  \nsecond", "first line"},
		{"\r\n  x\r\n", "x"},
		{long + "\n", strings.Repeat("é", 120)},
		{"   \n\t", ""},
	}
	for _, tt := range tests {
		if got := summaryOf(tt.in); got != tt.want {
			t.Errorf("summaryOf(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIdentifiersOf(t *testing.T) {
	text := `package memory
// Parse parses. parse is not one, nor _private, __init__, x_, 1_000 or _9.
func Parse(max_size int) { MAX_SIZE := snake_case_name; Parse(); Été_ok; a_1; ünïcode_id }
`
	want := []string{"Parse", "max_size", "MAX_SIZE", "snake_case_name", "Été_ok", "a_1", "ünïcode_id"}
	if diff := cmp.Diff(want, identifiersOf(text)); diff != "" {
		t.Errorf("identifiersOf (-want +got):\n%s", diff)
	}
	var b strings.Builder
	for i := range 30 {
		b.WriteString("Name")
		b.WriteByte(byte('A' + i))
		b.WriteString(" Name")
		b.WriteByte(byte('A' + i))
		b.WriteByte('\n')
	}
	got := identifiersOf(b.String())
	if len(got) != 20 || got[0] != "NameA" || got[19] != "NameT" {
		t.Errorf("identifiersOf keeps %d: %v, want the first 20 distinct", len(got), got)
	}
}

func TestIsBinary(t *testing.T) {
	pad := strings.Repeat("a", sniffSize-1)
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"empty", "", false},
		{"text", "hello\nworld\n", false},
		{"nul", "hel\x00lo", true},
		{"latin1", "caf\xe9 au lait", true},
		{"utf8", "café au lait ✓", false},
		{"cut at boundary", pad + "é and more", false},
		{"invalid at boundary", pad + "\xc3(", true},
		{"invalid after 8 KiB", pad + "aa\xff", false},
		{"nul after 8 KiB", pad + "aa\x00", false},
		{"truncated at end of file", "abc\xe2\x82", true},
	}
	for _, tt := range tests {
		if got := isBinary([]byte(tt.data)); got != tt.want {
			t.Errorf("%s: isBinary = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCutBytes(t *testing.T) {
	s := "aé" // 3 bytes
	for n, want := range map[int]string{0: "", 1: "a", 2: "a", 3: "aé", 10: "aé"} {
		if got := cutBytes(s, n); got != want {
			t.Errorf("cutBytes(%q, %d) = %q, want %q", s, n, got, want)
		}
	}
}

func TestPostingsRoundTrip(t *testing.T) {
	type posting struct {
		Doc int64
		TF  [numFields]uint32
	}
	tf := func(v ...uint32) [numFields]uint32 {
		var a [numFields]uint32
		copy(a[:], v)
		return a
	}
	var p plist
	for _, e := range []posting{{3, tf(1)}, {7, tf(0, 4, 0, 0, 200)}, {1000000, tf(0, 0, 0, 0, 0, 0, 70000)}} {
		p.add(e.Doc, &e.TF)
	}
	none := tf()
	p.add(1000001, &none) // a posting without frequencies is not stored
	var got []posting
	collect := func(doc int64, tf *[numFields]uint32) { got = append(got, posting{doc, *tf}) }
	if err := eachPosting(p.blob(), collect); err != nil {
		t.Fatal(err)
	}
	want := []posting{{3, tf(1)}, {7, tf(0, 4, 0, 0, 200)}, {1000000, tf(0, 0, 0, 0, 0, 0, 70000)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	var add plist
	two := tf(0, 0, 2)
	add.add(1000001, &two)
	merged, err := mergePostings(p.blob(), map[int64]bool{7: true}, &add)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	eachPosting(merged, collect)
	want = []posting{{3, tf(1)}, {1000000, tf(0, 0, 0, 0, 0, 0, 70000)}, {1000001, tf(0, 0, 2)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
	empty, err := mergePostings(p.blob(), map[int64]bool{3: true, 7: true, 1000000: true}, nil)
	if err != nil || empty != nil {
		t.Errorf("merge removing everything = %v, %v; want nil", empty, err)
	}
	if err := eachPosting([]byte{5, 1}, func(int64, *[numFields]uint32) {}); err == nil {
		t.Error("a truncated list decodes without error")
	}
	ids, err := decodeIDs(encodeIDs([]int64{1, 5, 900}))
	if err != nil || !cmp.Equal(ids, []int64{1, 5, 900}) {
		t.Errorf("decodeIDs(encodeIDs) = %v, %v", ids, err)
	}
	info := docInfo{flags: flagTest | flagGenerated, lens: tf(1, 2, 3, 4, 500, 6, 70000)}
	tbl, err := decodeDocTable(encodeDocTable([]int64{4, 9}, [][]byte{encodeDocInfo(docInfo{}), encodeDocInfo(info)}))
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(tbl.ids, []int64{4, 9}) || tbl.infos[1] != info || tbl.totals[fieldText] != 500 {
		t.Errorf("doc table round trip: %+v", tbl)
	}
}
