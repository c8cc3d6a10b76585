package engine_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/evalrun/evalrun/engine"
)

// lockedBuffer is a strings.Builder safe for the display's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPlanProgress: during a plan run the display shows the whole task
// tree (SPEC §23.5) with [x] / [ ], states, agents and <-- current on the
// task that runs; after Close nothing of it stays.
func TestPlanProgress(t *testing.T) {
	root := copyExample(t)
	fakeAgentBin(t)
	t.Setenv("FAKE_AGENT_SLOW", "claude") // a claude task takes a second, so frames show it running
	cfg := "[plan.agents]\n\"@code-developer\" = \"claude\"\n\"@action-planning-agent\" = \"gemini\"\n\"@test-fix-agent\" = \"codex\"\n"
	if err := os.WriteFile(filepath.Join(root, ".evalrun", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	prog, err := engine.NewProgress(engine.ProgressAlways, &out, func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runPlan(t, root, engine.Options{Progress: prog, Stderr: prog, Journal: &engine.JournalInfo{WorkflowPath: "plan"}}, engine.PlanRun{}); err != nil {
		t.Fatal(err)
	}
	if err := prog.Close(); err != nil {
		t.Fatal(err)
	}
	// The frames are what follows each erase (ESC[J).
	frames := strings.Split(out.String(), "\x1b[J")
	want := regexp.MustCompile(`(?m)^\d+ done · 1 running · 0 waiting · [0-9,]+ tokens · ([^·\n]+ · )?\ds\n` +
		`  \[x\] IMPL-001 Design the token model \(@action-planning-agent, completed\)\n` +
		`  \[ \] IMPL-002 Token issuing \(@code-developer, active\)\n` +
		`    \[x\] IMPL-002\.1 Token generation \(@code-developer, completed\)\n` +
		`    \[ \] IMPL-002\.2 Refresh tokens \(@code-developer, active\)  <-- current\n` +
		`      ▸ agent plan/code-developer  agent:claude  \ds\n` +
		`  \[ \] IMPL-003 Request validation \(@code-developer, pending\)\n` +
		`    \[ \] IMPL-003\.1 Token validation middleware \(@code-developer, pending\)\n`)
	found := false
	for _, f := range frames {
		if want.MatchString(f) {
			t.Logf("frame:\n%s", f)
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no frame shows the tree with IMPL-002.2 current; frames:\n%s", strings.Join(frames, "\n-----\n"))
	}
	if n := strings.Count(out.String(), "\x1b[J"); n < 5 {
		t.Errorf("%d redraws for a run of about 2 s", n)
	}
}
