package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/evalrun/evalrun/templates"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the evalrun command: testscript puts
// it on the scripts' PATH under that name, and the signal tests start it the
// same way. As the test runner (not as the evalrun command, which keeps the
// environment it is given) it bounds project-root discovery at the
// temporary directory, so that an .evalrun/ or .git above it plays no part;
// the signal tests' commands inherit the bound, the scripts get it from
// setupScript.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) != "evalrun" {
		os.Setenv(templates.CeilingEnv, os.TempDir())
	}
	testscript.Main(m, map[string]func(){"evalrun": main})
}

// withCeiling wraps the environment of an in-process app: the test
// runner's bound on project-root discovery is kept, everything else is
// what getenv says.
func withCeiling(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == templates.CeilingEnv {
			return os.Getenv(k)
		}
		return getenv(k)
	}
}

// setupScript gives every script the test runner's bound on project-root
// discovery (testscript passes the scripts only a few variables of its
// own).
func setupScript(env *testscript.Env) error {
	env.Setenv(templates.CeilingEnv, os.Getenv(templates.CeilingEnv))
	return nil
}

// TestScripts runs the CLI scripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":   cmdExitcode,
			"setmtime":   cmdSetmtime,
			"checkmtime": cmdCheckmtime,
			"checkperm":  cmdCheckperm,
			"globcp":     cmdGlobcp,
		},
		Condition:           scriptCondition,
		Setup:               setupScript,
		RequireExplicitExec: true,
	})
}

// scriptCondition answers the scripts' own conditions: [temporal] is true
// in an evalrun built with -tags temporal.
func scriptCondition(cond string) (bool, error) {
	if cond == "temporal" {
		return temporalSupport, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdExitcode is "exitcode N PROG ARGS...": it runs PROG like exec and fails
// unless the exit code is N. stdout and stderr are kept for the next
// commands.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with code %d, want %d", args[1], got, want)
	}
}

// oldTime is the modification time setmtime gives a file.
var oldTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// cmdSetmtime is "setmtime FILE": it sets the file's modification time to a
// fixed time in the past.
func cmdSetmtime(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: setmtime file")
	}
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), oldTime, oldTime))
}

// cmdCheckmtime is "[!] checkmtime FILE": it fails unless the file still has
// the modification time setmtime gave it (with !, unless it changed).
func cmdCheckmtime(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: checkmtime file")
	}
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	same := info.ModTime().Equal(oldTime)
	if same == neg {
		ts.Fatalf("%s: modification time %v (rewritten: %v)", args[0], info.ModTime(), !same)
	}
}

// cmdCheckperm is "checkperm FILE MODE": it fails unless the file's
// permission bits are MODE (octal).
func cmdCheckperm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: checkperm file mode")
	}
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	info, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	if got := info.Mode().Perm(); got != os.FileMode(want) {
		ts.Fatalf("%s: mode %v, want %v", args[0], got, os.FileMode(want))
	}
}

// cmdGlobcp is "globcp PATTERN DEST": it copies the one file matching the
// glob PATTERN to DEST, and fails unless exactly one file matches. Dry-run
// prompt files live in a directory named by a random run id.
func cmdGlobcp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: globcp pattern dest")
	}
	matches, err := filepath.Glob(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(matches) != 1 {
		ts.Fatalf("%s matches %d files, want 1: %v", args[0], len(matches), matches)
	}
	data, err := os.ReadFile(matches[0])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o644))
}
