package engine

import (
	"testing"

	"github.com/evalrun/evalrun/agent"
)

// TestAnnounceLine: the echo of a local agent names the program {bin}
// stands for and the variables its env sets, without their values.
func TestAnnounceLine(t *testing.T) {
	def := agent.Definition{Name: "claude", Source: ".evalrun/config.toml:3", Command: "{bin} -p {prompt}", Bin: "./tools/claude",
		Env: map[string]string{"NODE_OPTIONS": "--require ./x.js", "API_TOKEN": "s3cret"}}
	want := "agent claude from local (.evalrun/config.toml:3): {bin} -p {prompt} (bin = ./tools/claude; env sets API_TOKEN, NODE_OPTIONS)"
	if got := announceLine(def); got != want {
		t.Errorf("announceLine = %q\nwant %q", got, want)
	}
	def.Bin, def.Env = "", nil
	if got := announceLine(def); got != "agent claude from local (.evalrun/config.toml:3): {bin} -p {prompt}" {
		t.Errorf("plain: %q", got)
	}
}
