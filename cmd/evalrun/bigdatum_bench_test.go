package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Process-level benchmarks of large data in a workflow: `evalrun run` on a
// file holding a 10 MB quoted datum (its length printed, or all of it), and
// on one holding a 10 MB string literal. Each reports the wall time of the whole process (ms/op), its
// peak resident set (peak-MB, from the child's rusage) and that peak as a
// multiple of the file's size (rss-x-input), and its CPU time, user and
// system (cpu-ms), which a loaded machine disturbs less than wall time.
// With EVALRUN_BENCH_BASELINE naming an earlier build, that build is run
// alternately and its figures are reported too (base-…).

// bigDatumSize is the size of the generated workflow files.
const bigDatumSize = 10 << 20

// bigDatumProgram returns a program of about size bytes that binds a quoted
// list of nested lists of symbols, ints and strings and prints its length,
// and that length.
func bigDatumProgram(size int) (text string, length int) {
	var b strings.Builder
	b.Grow(size + 256)
	b.WriteString("(define data '(\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "  (item-%d %d \"name %d\" (tag-%d %d (x y z)) (1.5 true nil))\n", i%97, i, i, i%13, i*7)
		length++
	}
	b.WriteString("))\n(length data)\n")
	return b.String(), length
}

// bigPrintedProgram is bigDatumProgram whose result is the datum itself,
// which evalrun prints; it returns the program and the expected output.
func bigPrintedProgram(size int) (text, printed string) {
	var b, p strings.Builder
	b.Grow(size + 256)
	p.Grow(size)
	b.WriteString("(define data '(\n")
	p.WriteByte('(')
	for i := 0; b.Len() < size; i++ {
		item := fmt.Sprintf("(item-%d %d \"name %d\" (tag-%d %d (x y z)) (1.5 true nil))", i%97, i, i, i%13, i*7)
		b.WriteString("  " + item + "\n")
		if i > 0 {
			p.WriteByte(' ')
		}
		p.WriteString(item)
	}
	b.WriteString("))\ndata\n")
	p.WriteString(")\n")
	return b.String(), p.String()
}

// bigStringProgram returns a program of about size bytes that binds one
// string literal and prints its length, and that length.
func bigStringProgram(size int) (text string, length int) {
	body := strings.Repeat("lorem ipsum dolor sit amet, \\\"quoted\\\" text\\n", size/46)
	length = (size / 46) * len("lorem ipsum dolor sit amet, \"quoted\" text\n")
	return "(define s \"" + body + "\")\n(string-length s)\n", length
}

// launcherSource is a program that runs its arguments as a command, with
// its own standard streams, and writes the command's peak resident set
// (KiB) and CPU time (µs, user and system) into the file named by
// EVALRUN_RUSAGE_FILE. The benchmarks start evalrun through it because on
// Linux the peak a process reports includes the resident set of the
// process it was forked from, up to its exec: forked from this test
// process, which holds the 10 MB inputs and outputs, evalrun would report
// the test's peak where its own is smaller.
const launcherSource = `package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(125)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
	if werr := os.WriteFile(os.Getenv("EVALRUN_RUSAGE_FILE"), []byte(fmt.Sprintf("%d %d", ru.Maxrss, cpu)), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, werr)
		os.Exit(125)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
`

// buildLauncher builds launcherSource into a temporary directory.
func buildLauncher(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module launcher\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(launcherSource), 0o644); err != nil {
		b.Fatal(err)
	}
	exe := filepath.Join(dir, "launcher")
	cmd := exec.Command("go", "build", "-o", exe, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build launcher: %v\n%s", err, out)
	}
	return exe
}

// runMeasured runs exe with args in dir, through launcher, and returns its
// stdout, wall time, CPU time and peak resident set in bytes; a non-zero
// exit fails the benchmark.
func runMeasured(b *testing.B, launcher, dir string, env []string, exe string, args ...string) (out string, wall, cpu time.Duration, peak int64) {
	usage := filepath.Join(b.TempDir(), "rusage")
	cmd := exec.Command(launcher, append([]string{exe}, args...)...)
	cmd.Dir, cmd.Env = dir, append(env[:len(env):len(env)], "EVALRUN_RUSAGE_FILE="+usage)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("evalrun %s: %v\n%s", strings.Join(args, " "), err, &stderr)
	}
	wall = time.Since(start)
	data, err := os.ReadFile(usage)
	if err != nil {
		b.Fatal(err)
	}
	var kib, micros int64
	if _, err := fmt.Sscanf(string(data), "%d %d", &kib, &micros); err != nil {
		b.Fatalf("rusage %q: %v", data, err)
	}
	return stdout.String(), wall, time.Duration(micros) * time.Microsecond, kib * 1024 // Linux reports KiB
}

// benchBigProgram runs `evalrun run big.sexp` on text and checks that it
// prints want.
func benchBigProgram(b *testing.B, text string, want string) {
	exe, launcher := buildEvalrun(b), buildLauncher(b)
	dir, env := benchProject(b, "")
	file := filepath.Join(dir, "big.sexp")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	type figures struct {
		wall, cpu time.Duration
		peak      int64
	}
	measure := func(exe string, f *figures) {
		out, w, c, rss := runMeasured(b, launcher, dir, env, exe, "run", "big.sexp")
		if out != want {
			b.Fatalf("output %.80q… (%d bytes), want %.80q… (%d bytes)", out, len(out), want, len(want))
		}
		f.wall, f.cpu = f.wall+w, f.cpu+c
		f.peak = max(f.peak, rss)
	}
	base := baselineExe()
	var now, was figures
	b.ResetTimer()
	for b.Loop() {
		measure(exe, &now)
		if base != "" {
			measure(base, &was)
		}
	}
	report := func(f figures, prefix string) {
		b.ReportMetric(float64(f.wall.Microseconds())/1000/float64(b.N), prefix+"ms/op")
		b.ReportMetric(float64(f.cpu.Microseconds())/1000/float64(b.N), prefix+"cpu-ms")
		b.ReportMetric(float64(f.peak)/(1<<20), prefix+"peak-MB")
		b.ReportMetric(float64(f.peak)/float64(len(text)), prefix+"rss-x-input")
	}
	report(now, "")
	if base != "" {
		report(was, "base-")
	}
	b.ReportMetric(float64(len(text))/(1<<20), "input-MB")
}

// BenchmarkRunBigDatum measures `evalrun run` on a 10 MB quoted datum
// (target: peak RSS ≤ 10× the input).
func BenchmarkRunBigDatum(b *testing.B) {
	text, n := bigDatumProgram(bigDatumSize)
	benchBigProgram(b, text, strconv.Itoa(n)+"\n")
}

// BenchmarkRunBigDatumPrinted measures `evalrun run` on a 10 MB quoted
// datum that is the program's result, so that evalrun prints all of it.
func BenchmarkRunBigDatumPrinted(b *testing.B) {
	text, printed := bigPrintedProgram(bigDatumSize)
	benchBigProgram(b, text, printed)
}

// BenchmarkRunBigString measures `evalrun run` on a 10 MB string literal.
func BenchmarkRunBigString(b *testing.B) {
	text, n := bigStringProgram(bigDatumSize)
	benchBigProgram(b, text, strconv.Itoa(n)+"\n")
}

// BenchmarkRunBigDatumInProcess runs the quoted-datum program through the
// command's own entry point in this process, for go test -memprofile.
func BenchmarkRunBigDatumInProcess(b *testing.B) {
	text, n := bigDatumProgram(bigDatumSize)
	dir, _ := benchProject(b, "")
	b.Chdir(dir)
	if err := os.WriteFile("big.sexp", []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	env := map[string]string{"HOME": home, "EVALRUN_HOME": filepath.Join(home, ".evalrun")}
	for b.Loop() {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: withCeiling(func(k string) string { return env[k] })}
		if code := a.main([]string{"run", "big.sexp"}); code != exitOK || stdout.String() != strconv.Itoa(n)+"\n" {
			b.Fatalf("exit %d, stdout %q, stderr %q", code, &stdout, &stderr)
		}
	}
}
