package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalrun/evalrun/config"
	"github.com/evalrun/evalrun/value"
)

// TestInitCreatesAWorkingProject: the files Init writes load, and the first
// template runs.
func TestInitCreatesAWorkingProject(t *testing.T) {
	dir := t.TempDir()
	created, err := Init(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".evalrun/config.toml", ".evalrun/templates/hello.xml", ".evalrun/.gitignore"}
	if strings.Join(created, ",") != strings.Join(want, ",") {
		t.Fatalf("created %v, want %v", created, want)
	}
	home := t.TempDir()
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return home
		case "EVALRUN_HOME":
			return filepath.Join(home, "evalrun")
		}
		return ""
	}
	e, err := Open(Options{WorkDir: dir, Provider: "echo", Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Task(context.Background(), "hello", []Input{{Name: "name", Value: value.String("Ada")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != value.StatusComplete || r.Content != "Write a one-sentence friendly greeting for Ada." {
		t.Errorf("hello: %s %q", r.Status, r.Content)
	}
}

// TestInitConfigDefaults: uncommenting every key line of the written
// configuration gives a valid configuration whose values are the defaults
// of package config, so the comments never advertise a wrong default.
func TestInitConfigDefaults(t *testing.T) {
	keyLine := regexp.MustCompile(`^# (\[[a-z0-9._"/-]+\]|[a-z_]+ = .*)$`)
	var b strings.Builder
	n := 0
	for _, line := range strings.Split(InitConfig, "\n") {
		if m := keyLine.FindStringSubmatch(line); m != nil {
			b.WriteString(m[1] + "\n")
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d key lines found in InitConfig", n)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load("", path)
	if err != nil {
		t.Fatalf("the uncommented configuration does not load: %v\n%s", err, b.String())
	}
	def := config.Default()
	if cfg.Limits != def.Limits {
		t.Errorf("[limits] as documented = %+v, defaults = %+v", cfg.Limits, def.Limits)
	}
	if cfg.Context != def.Context {
		t.Errorf("[context] as documented = %+v, defaults = %+v", cfg.Context, def.Context)
	}
	if cfg.Roles["default"] != "You are a helpful assistant." {
		t.Errorf("roles.default = %q", cfg.Roles["default"])
	}
}

// TestInitRefusesToOverwrite: an existing file stops Init before anything
// is written, and the error names it.
func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, ".evalrun", "templates", "hello.xml")
	if err := os.MkdirAll(filepath.Dir(tmpl), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmpl, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Init(dir)
	if !errors.Is(err, ErrInitExists) || err.Error() != filepath.ToSlash(tmpl)+" already exists; nothing was written" {
		t.Fatalf("Init over an existing template: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".evalrun", "config.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config.toml was written although Init refused: %v", err)
	}
	if data, _ := os.ReadFile(tmpl); string(data) != "mine" {
		t.Errorf("the existing template was changed: %q", data)
	}
}
