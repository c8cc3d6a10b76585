package agent_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain turns the test binary into a fake agent when EVALRUN_FAKE_AGENT
// is set: it records what it received and prints what FAKE_* asks for.
func TestMain(m *testing.M) {
	if os.Getenv("EVALRUN_FAKE_AGENT") != "" {
		os.Exit(fakeAgent())
	}
	os.Exit(m.Run())
}

// fakeRecord is what a fake agent received.
type fakeRecord struct {
	Argv     []string          `json:"argv"`
	Stdin    string            `json:"stdin"`
	Env      map[string]string `json:"env"`
	Dir      string            `json:"dir"`
	RoleFile string            `json:"role_file"` // contents of $GEMINI_SYSTEM_MD
	Pid      int               `json:"pid"`
	Pgid     int               `json:"pgid"`
}

func fakeAgent() int {
	mode := os.Getenv("FAKE_MODE")
	if mode == "sleep" || mode == "sleep-ignore-term" {
		if mode == "sleep-ignore-term" {
			signal.Ignore(syscall.SIGTERM)
		}
		if f := os.Getenv("FAKE_PIDFILE"); f != "" {
			appendLine(f, strconv.Itoa(os.Getpid()))
		}
		time.Sleep(time.Hour)
		return 0
	}
	rec := fakeRecord{Argv: os.Args[1:], Env: map[string]string{}, Pid: os.Getpid(), Pgid: syscall.Getpgrp()}
	if os.Getenv("FAKE_NO_STDIN") == "" {
		b, _ := io.ReadAll(os.Stdin)
		rec.Stdin = string(b)
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		rec.Env[k] = v
	}
	rec.Dir, _ = os.Getwd()
	if p := os.Getenv("GEMINI_SYSTEM_MD"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			rec.RoleFile = "ERROR " + err.Error()
		} else {
			rec.RoleFile = string(b)
		}
	}
	if f := os.Getenv("FAKE_RECORD"); f != "" {
		b, _ := json.Marshal(rec)
		_ = os.WriteFile(f, b, 0o644)
	}
	if f := os.Getenv("FAKE_PIDFILE"); f != "" {
		appendLine(f, strconv.Itoa(os.Getpid()))
	}
	switch mode {
	case "interval":
		start := time.Now().UnixNano()
		time.Sleep(150 * time.Millisecond)
		appendLine(os.Getenv("FAKE_INTERVALS"), fmt.Sprintf("%d %d", start, time.Now().UnixNano()))
	case "huge":
		n, _ := strconv.Atoi(os.Getenv("FAKE_BYTES"))
		chunk := []byte(strings.Repeat("x", 1<<16))
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := os.Stdout.Write(chunk[:k]); err != nil {
				return 1
			}
			n -= k
		}
		return 0
	case "hang":
		if os.Getenv("FAKE_IGNORE_TERM") != "" {
			signal.Ignore(syscall.SIGTERM)
		}
		if os.Getenv("FAKE_GRANDCHILD") != "" {
			spawnGrandchild()
		}
		time.Sleep(time.Hour)
	case "orphan":
		// Exit at once, leaving a grandchild asleep in the group.
		spawnGrandchild()
	case "daemon":
		// Exit at once, leaving a process in a session of its own that
		// holds stdout open.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "FAKE_MODE=sleep")
		cmd.Stdout = os.Stdout
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "spawn:", err)
			return 9
		}
	}
	fmt.Fprint(os.Stderr, os.Getenv("FAKE_STDERR"))
	fmt.Print(os.Getenv("FAKE_STDOUT"))
	code, _ := strconv.Atoi(os.Getenv("FAKE_EXIT"))
	return code
}

func spawnGrandchild() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "FAKE_MODE=sleep-ignore-term")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "spawn:", err)
		os.Exit(9)
	}
	// Wait until the grandchild has written its pid.
	for i := 0; i < 500; i++ {
		b, _ := os.ReadFile(os.Getenv("FAKE_PIDFILE"))
		if strings.Count(string(b), "\n") >= 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	_, _ = f.WriteString(line + "\n")
	_ = f.Close()
}
