package tokens

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// tiktoken-go's o200k_base is the oracle: the counts of this package must
// equal len(EncodeOrdinary(text)) for every text. It is used by tests
// only; the package itself does not import it.
var (
	oracleOnce sync.Once
	oracleEnc  *tiktoken.Tiktoken
	oracleErr  error
)

func oracle(tb testing.TB) *tiktoken.Tiktoken {
	tb.Helper()
	oracleOnce.Do(func() {
		tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
		oracleEnc, oracleErr = tiktoken.GetEncoding(Encoding)
	})
	if oracleErr != nil {
		tb.Fatalf("tiktoken-go: %v", oracleErr)
	}
	return oracleEnc
}

// checkSame fails when count and the oracle disagree on text, showing the
// first differing token.
func checkSame(tb testing.TB, name, text string) {
	tb.Helper()
	want := oracle(tb).EncodeOrdinary(text)
	if got := count(text); got != len(want) {
		tb.Errorf("%s: count %d, tiktoken-go %d (%d bytes; %s)", name, got, len(want), len(text), firstDiff(tb, text))
	}
}

// firstDiff describes the first piece boundary where this package and the
// oracle's tokens disagree.
func firstDiff(tb testing.TB, text string) string {
	enc := oracle(tb)
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	pos := 0
	for i := 0; i < len(text); {
		end := match(text, i)
		piece := text[i:end]
		toks := enc.EncodeOrdinary(text[:end])
		if len(toks) != pos+vocab.pieceTokens(piece) {
			return fmt.Sprintf("at byte %d piece %q: %d tokens here, oracle prefix %d tokens, expected %d", i, piece,
				vocab.pieceTokens(piece), len(toks), pos+vocab.pieceTokens(piece))
		}
		pos = len(toks)
		i = end
	}
	return "no piece differs"
}

// corpus returns texts covering the pre-tokenizer's rules: scripts with
// and without case, marks, emoji sequences, contractions, numbers, white
// space and punctuation, and invalid UTF-8.
func corpus() map[string]string {
	c := map[string]string{
		"english":     "Hello Bob! You're here, aren't you? I'LL go; they've said we'd be OK. It's John's book.",
		"contraction": "don't DON'T Don'T we'Re they'VE I'M she'D he'LL x's 's 't 're 'RE 'q ' 'll' 'l l'",
		"cjk":         "こんにちは世界。今日は良い天気ですね！中文测试，汉字与标点。한국어 텍스트입니다.",
		"arabic":      "مرحبا بالعالم، كيف حالك؟ ٱلْعَرَبِيَّةُ ١٢٣٤٥ ۱۲۳",
		"hebrew":      "שָׁלוֹם עוֹלָם",
		"devanagari":  "नमस्ते दुनिया, यह परीक्षण है। १२३४",
		"thai":        "สวัสดีชาวโลก ภาษาไทย",
		"greek":       "Καλημέρα κόσμε ΑΘΗΝΑ ǅemal ǈ ǋ",
		"cyrillic":    "Привет, мир! ПРИВЕТ Мир",
		"emoji":       "👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 ❤️ 🇫🇷🇩🇪 a👍b 1️⃣ #️⃣ 🧑🏿‍🚀",
		"combining":   "e\u0301 a\u0308\u0304 \u0301\u0301x \u0301 Z\u0335\u0358a\u0336l\u0337g\u0338o \u20dd \u0489",
		"marks-first": "\u0301abc \u0301ABC (\u0301) \u0308\u0308",
		"digits":      "0 12 123 1234 12345 123456789012345678901234567890 3.14159 1,000,000 ⅓ ½ ² ³ ①②③ ٣٤٥ 𝟙𝟚𝟛",
		"whitespace":  "a  b   c\t\td \n\ne\r\nf \r\n \n  \n\tg\v\fh\u00a0i\u2003j\u3000k\u0085l\u2028m  \n",
		"trailing":    "end with spaces   ",
		"newlines":    "\n\n\n\r\n\r\r\n   \n",
		"punct":       "!!! ... --- /// \\\\ ::= ->> <|endoftext|> <|endofprompt|> {{x}} (a) [b] \"c\" 'd' `e` ~~ @@ $$ %% ^^ && ** __ ++ == ||",
		"punct-nl":    "};\n}\n\t//\r\n/* x */\n// y\n;;\r\n/\n/\r/",
		"mixed":       "CamelCaseIdentifier snake_case_name XMLHttpRequest iPhone HTTPServer mRNA iOS ÉCOLE École",
		"code":        "func main() {\n\tfmt.Println(\"héllo, 世界\") // comment\n\treturn x+1\n}\n",
		"invalid":     "a\xffb\xfe\xfd c\xc3 \xe2\x82 d\xed\xa0\x80e \xf4\x90\x80\x80 \x80\x80\x80",
		"controls":    "\x00\x01\x02 a\x7fb \x1b[31mred\x1b[0m",
		"titlecase":   "ǅ ǅa aǅ ǅǅ ᾈ ᾈa",
		"modifier":    "ʰʲ ʰa aʰ Aʰ ʰA ꜀ ゝゞ 々",
		"math":        "∀x∈ℝ: x²≥0 ⟹ √x ∑ᵢ aᵢ ∫₀¹ f(x)dx",
		"long-word":   strings.Repeat("a", 3000) + " " + strings.Repeat("ab", 1000),
		"long-spaces": strings.Repeat(" ", 2000) + "x" + strings.Repeat("\t", 300) + "\n",
		"long-punct":  strings.Repeat("-=", 700) + strings.Repeat("😀", 300),
		"long-digits": strings.Repeat("9876543210", 200),
		"long-cjk":    strings.Repeat("漢字かなカナ", 300),
	}
	// Random texts over an alphabet chosen to hit the rules' edges.
	alphabet := []string{"a", "Z", "é", "É", "ǅ", "ʰ", "漢", "か", "\u0301", "\u0308", "1", "٣", "½", " ", "  ", "\t",
		"\n", "\r", "\r\n", "\u00a0", "\u3000", "'", "'s", "'T", "'re", "'LL", "/", ".", "!", "-", "😀", "👍🏽", "\u200d",
		"\ufe0f", "\xff", "\xe2\x82", "<|endoftext|>", "\x00", "\u0085", "ß", "İ", "ﬁ", "Ⅻ", "ⅻ"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		var b strings.Builder
		for range 1 + rng.IntN(120) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		c[fmt.Sprintf("random-%03d", i)] = b.String()
	}
	return c
}

func TestMatchesTiktokenCorpus(t *testing.T) {
	for name, text := range corpus() {
		checkSame(t, name, text)
	}
}

// TestMatchesTiktokenGoSource compares the counts of every file of the Go
// source tree ($GOROOT/src), text and binary, with the oracle's. It takes
// about a minute (the oracle tokenizes a few MB/s): skipped with -short
// and under the race detector.
func TestMatchesTiktokenGoSource(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("tokenizes the whole Go source tree twice (skipped with -short and -race)")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 1000 {
		t.Fatalf("only %d files under %s", len(files), root)
	}
	oracle(t)
	work := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for path := range work {
				data, err := os.ReadFile(path)
				if err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s: %v", path, err))
					mu.Unlock()
					continue
				}
				text := string(data)
				if want, got := len(oracleEnc.EncodeOrdinary(text)), count(text); got != want {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s: count %d, tiktoken-go %d", path, got, want))
					mu.Unlock()
				}
			}
		}()
	}
	for _, f := range files {
		work <- f
	}
	close(work)
	wg.Wait()
	for _, f := range failed {
		t.Error(f)
	}
	t.Logf("%d files compared", len(files))
}

// FuzzMatchesTiktoken compares the count of any text with the oracle's.
// The seed corpus (the texts of corpus) runs with go test.
func FuzzMatchesTiktoken(f *testing.F) {
	for _, text := range corpus() {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			t.Skip("the oracle is quadratic on long pieces")
		}
		checkSame(t, "fuzz", text)
	})
}
