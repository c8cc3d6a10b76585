package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPlanSection(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(local, []byte("[plan]\nmax_tasks = 12\n[plan.agents]\n\"@code-developer\" = \"claude\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load("", local)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Plan.MaxTasks != 12 || cfg.Plan.Agents["@code-developer"] != "claude" {
		t.Errorf("plan = %+v", cfg.Plan)
	}
	if err := os.WriteFile(local, []byte("[plan]\nmax_tasks = 0\n[plan.agents]\ncode-developer = \"claude\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load("", local)
	want := local + ":2:13: plan.max_tasks: must be at least 1, got 0\n" + local + ":4:18: plan.agents: key \"code-developer\" must name a meta.agent such as \"@code-developer\""
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	def, _ := Load("", "")
	if def.Plan.MaxTasks != 0 {
		t.Errorf("default max_tasks %d", def.Plan.MaxTasks)
	}
}
