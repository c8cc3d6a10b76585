package engine_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalrun/evalrun/engine"
	"github.com/evalrun/evalrun/sexp"
)

// BenchmarkProgress2000EchoCalls evaluates a program of 2,000 echo task
// calls (Open, Run, Close) three ways, alternately: without a Progress
// (none: as before the live display existed), with the display off (off:
// --progress never, or stderr not a terminal) and on (on: drawing to
// io.Discard). It reports the time per task call of each and off-%, how
// much slower off is than none (SPEC §17.3.1: no measurable time when
// off; with the display off no sink is installed at all).
func BenchmarkProgress2000EchoCalls(b *testing.B) {
	const calls = 2000
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".evalrun"), 0o755); err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "EVALRUN_HOME":
			return filepath.Join(home, ".evalrun")
		}
		return ""
	}
	text := fmt.Sprintf(`(defatom greet (params name) (instructions "Hello {{name}}!"))
(length (map (lambda (i) (greet (name i))) (range 0 %d)))`, calls)
	prog, err := engine.Compile(sexp.NewSource("<bench>", text))
	if err != nil {
		b.Fatal(err)
	}
	run := func(mode string) time.Duration {
		var p *engine.Progress
		if mode != "none" {
			var err error
			if p, err = engine.NewProgress(mode, io.Discard, getenv); err != nil {
				b.Fatal(err)
			}
		}
		opts := engine.Options{WorkDir: dir, Provider: "echo", Getenv: getenv, Progress: p}
		if p != nil {
			opts.Stderr = p
		}
		start := time.Now()
		e, err := engine.Open(opts)
		if err != nil {
			b.Fatal(err)
		}
		v, err := e.Run(context.Background(), prog)
		if err != nil || v.String() != fmt.Sprint(calls) {
			b.Fatalf("value %v, error %v", v, err)
		}
		e.Close()
		if p != nil {
			p.Close()
		}
		return time.Since(start)
	}
	// The three runs alternate, each first in turn, so that neither a
	// change of the machine's load nor the garbage of the run before
	// falls on one of them only.
	modes := []string{"none", engine.ProgressNever, engine.ProgressAlways}
	total := map[string]time.Duration{}
	for i := 0; b.Loop(); i++ {
		for k := range modes {
			m := modes[(i+k)%len(modes)]
			total[m] += run(m)
		}
	}
	none, off, on := total["none"], total[engine.ProgressNever], total[engine.ProgressAlways]
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*calls) }
	b.ReportMetric(per(none), "none-ns/call")
	b.ReportMetric(per(off), "off-ns/call")
	b.ReportMetric(per(on), "on-ns/call")
	b.ReportMetric(100*(per(off)-per(none))/per(none), "off-%")
}
