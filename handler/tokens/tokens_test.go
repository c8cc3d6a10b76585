package tokens

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestNotLoadedBeforeCount must stay the first test of the package: the
// vocabulary is loaded by the first Count and by nothing else.
func TestNotLoadedBeforeCount(t *testing.T) {
	_ = O200k()
	if Loaded() {
		t.Fatal("the vocabulary was loaded before any Count")
	}
	if None.Count("hello world") != 0 || O200k().Count("") != 0 {
		t.Error("None or the empty text counted")
	}
	if Loaded() {
		t.Fatal("None or an empty text loaded the vocabulary")
	}
	Count("x")
	if !Loaded() || Err() != nil {
		t.Fatalf("Loaded %v, Err %v", Loaded(), Err())
	}
}

func TestCount(t *testing.T) {
	// o200k_base counts as tiktoken-go computes them (regression values).
	tests := []struct {
		text string
		want int
	}{
		{"Hello Bob!", 3},
		{"You are a helpful assistant.", 6},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // special tokens count as ordinary text
		{"   ", 1},
		{"こんにちは世界", 2},
		{"func main() {\n\tfmt.Println(\"hi\")\n}\n", 10},
	}
	for _, tt := range tests {
		if got := Count(tt.text); got != tt.want {
			t.Errorf("Count(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestCountConcurrent(t *testing.T) {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 50)
	want := Count(text)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := O200k().Count(text); got != want {
				t.Errorf("concurrent count %d, want %d", got, want)
			}
		}()
	}
	wg.Wait()
}

func TestCountCached(t *testing.T) {
	text := strings.Repeat("cached text ", 1000)
	n := Count(text)
	if again := Count(text); again != n || n != len(oracle(t).EncodeOrdinary(text)) {
		t.Errorf("cached count %d, first %d", again, n)
	}
}

// BenchmarkCount measures the tokenizer's throughput on Go-like source
// text, every text new (the cache of long texts does not apply). The
// BenchmarkTiktoken* benchmarks measure tiktoken-go on the same texts.
func BenchmarkCount(b *testing.B) {
	texts := benchTexts()
	b.SetBytes(int64(len(texts[0])))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		count(texts[i%len(texts)])
		i++
	}
}

// BenchmarkCountRepeated counts the same long text again (a system prompt
// shared by many task calls).
func BenchmarkCountRepeated(b *testing.B) {
	text := strings.Repeat("func (s *Session) Run(ctx context.Context) (*Answer, error) { // résumé of 12345 items\n", 200)
	Count(text)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Count(text)
	}
}

// benchTexts are the texts of BenchmarkCount.
func benchTexts() []string {
	line := "func (s *Session) Run(ctx context.Context) (*Answer, error) { // résumé of 12345 items\n"
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = strings.Repeat(line, 200) + strconv.Itoa(i)
	}
	return texts
}

// BenchmarkTiktokenCount is BenchmarkCount with tiktoken-go's o200k_base,
// the implementation this package replaces.
func BenchmarkTiktokenCount(b *testing.B) {
	enc := oracle(b)
	texts := benchTexts()
	b.SetBytes(int64(len(texts[0])))
	i := 0
	for b.Loop() {
		enc.EncodeOrdinary(texts[i%len(texts)])
		i++
	}
}

// BenchmarkCountMultilingual measures the throughput on the mixed-script
// texts of the exactness tests, without the long pathological pieces.
func BenchmarkCountMultilingual(b *testing.B) {
	var sb strings.Builder
	for name, t := range corpus() {
		if !strings.HasPrefix(name, "long-") {
			sb.WriteString(t)
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		count(text)
	}
}

// BenchmarkCountGoFiles counts the Go files of $GOROOT/src/net/http, each
// text new: real source with its vocabulary.
func BenchmarkCountGoFiles(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command")
	}
	paths, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "src", "net", "http", "*.go"))
	var texts []string
	size := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(data))
		size += len(data)
	}
	if size == 0 {
		b.Skip("no files")
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for _, t := range texts {
			count(t)
		}
	}
}
