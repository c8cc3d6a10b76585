package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkEvalProcess measures a whole "evalrun eval '(+ 1 2)'" process:
// start-up, evaluation, output and exit. The target is at most 15 ms per
// operation. The binary is built once with go build (no race detector, no
// coverage), as a user would run it.
func BenchmarkEvalProcess(b *testing.B) {
	if testing.Short() {
		b.Skip("builds the binary")
	}
	exe := filepath.Join(b.TempDir(), "evalrun")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	build := exec.Command("go", "build", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	b.ResetTimer()
	for b.Loop() {
		out, err := exec.Command(exe, "eval", "(+ 1 2)").Output()
		if err != nil || string(out) != "3\n" {
			b.Fatalf("evalrun eval: %q, %v", out, err)
		}
	}
}
