package tasksystem

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestResolveUTD(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "ROLE.md"), []byte("Be kind."), 0o644)
	os.WriteFile(filepath.Join(home, "h.md"), []byte("From home."), 0o644)
	v := UTDVars{Date: "2026-01-02T03:04:05+00:00", Model: "m1", Root: root, Home: home}
	tests := []struct {
		name string
		u    UTD
		want string
	}{
		{"file only", UTD{File: "ROLE.md"}, "Be kind."},
		{"home file", UTD{File: "~/h.md"}, "From home."},
		{"command only", UTD{Command: "printf 'out %s' \"$PWD\""}, "out " + root},
		{"prompt", UTD{File: "ROLE.md", Command: "echo hi", Prompt: "{file_contents} [{command}] -> {command_output}{model} {date} {unknown} {file}"},
			"Be kind. [echo hi] -> hi\nm1 2026-01-02T03:04:05+00:00 {unknown} " + filepath.Join(root, "ROLE.md")},
		{"prompt without file contents does not read the file", UTD{File: "MISSING.md", Prompt: "path {file}"}, "path " + filepath.Join(root, "MISSING.md")},
		{"prompt without command output does not run it", UTD{Command: "exit 1", Prompt: "static"}, "static"},
		{"file wins over command", UTD{File: "ROLE.md", Command: "echo no"}, "Be kind."},
	}
	for _, tt := range tests {
		got, err := ResolveUTD(context.Background(), tt.u, v)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	_, err := ResolveUTD(context.Background(), UTD{File: "NOPE.md"}, v)
	if !errors.Is(err, ErrUTDFileMissing) || err.Error() != "NOPE.md: file not found" {
		t.Errorf("missing file: %v", err)
	}
	_, err = ResolveUTD(context.Background(), UTD{Command: "echo bad; exit 3"}, v)
	var f *failure
	if !errors.As(err, &f) || f.reason != ReasonToolExecution || f.msg != "command exited with status 3: bad" {
		t.Errorf("failing command: %#v", err)
	}
	_, err = ResolveUTD(context.Background(), UTD{Command: "sleep 5", Timeout: 100 * time.Millisecond}, v)
	if !errors.As(err, &f) || f.reason != ReasonToolExecution {
		t.Errorf("timeout: %#v", err)
	}
}
