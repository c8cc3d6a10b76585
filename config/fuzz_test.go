package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad loads any text as a local configuration file over a valid
// global one: Load never panics, and a failure is a list of errors that
// each point inside the file (line and column) with a message.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"default_agent = \"claude\"\ndefault_role = \"reviewer\"\n[agents.claude]\ncommand = \"claude -p --model {model}\"\nstdin = true\n[agents.mine]\ncommand = \"GEMINI_SYSTEM_MD={{.role_file}} {{.bin}} --model {{.model}} {{.prompt}}\"\nbin = \"/opt/gemini\"\nformat = \"gemini-json\"\ndefault_model = \"pro\"\nmodels = { pro = \"gemini-2.5-pro\" }\ntimeout = \"10m\"\nmax_parallel = 2\nenv = { DISABLE_AUTOUPDATER = \"1\" }\n[roles.reviewer]\nfile = \"~/roles/reviewer.md\"\nprompt = \"{file_contents}\\nToday is {date}.\"\ncommand_timeout = 5\n[contexts.alpha]\nprompt = \"Be kind.\"\ntags = [\"style\"]\n[tasks.git-diff-review]\nalias = \"gdr\"\nrole = \"reviewer\"\ncommand = \"git diff --staged\"\nprompt = \"\"\"\nReview this.\n{{.instructions}}\n{command_output}\n\"\"\"\n",
		"[agents.a]\ncommand = \"GEMINI_SYSTEM_MD=\\\"{{.role_file}}\\\" \\u00e9 {{.bin}} {{if .model}}-m {{.model}}{{end}}\"\n",
		"[agents.a]\ncommand = \"\"\"\nclaude \\\n  {{.prompt}\n\"\"\"\n",
		"[agents.a]\ncommand = '{{.Bin}} {{.prompt}}'\n",
		"[limits]\ntimeout = \"90s\"\nmax_depth = 99999999999\nmax_cost_usd = 1.5\n[providers.openai.prices]\ninput = 1\n",
		"[plan.agents]\n\"@code-developer\" = \"claude\"\n",
		"[temporal]\naddress = \"localhost:7233\"\n",
		"[prices.\"gpt-4o\"]\ninput = 2.5\noutput = 10\n",
		"a = [1,\n", "[[agents]]\n", "x = \"\\uD800\"\n", "\ufeff[roles.r]\nsystem = \"x\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		dir := t.TempDir()
		global := filepath.Join(dir, "global.toml")
		local := filepath.Join(dir, "local.toml")
		if err := os.WriteFile(global, []byte("[roles.reviewer]\nsystem = \"Review.\"\n[agents.base]\ncommand = \"base {prompt}\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(local, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(global, local, base)
		if err == nil {
			if cfg == nil {
				t.Fatal("no configuration and no error")
			}
			return
		}
		if cfg != nil {
			t.Fatalf("configuration returned with the error %v", err)
		}
		errs := Errors(err)
		if len(errs) == 0 {
			t.Fatalf("error %v holds no configuration error", err)
		}
		for _, e := range errs {
			if strings.TrimSpace(e.Msg) == "" {
				t.Fatalf("%q: error without a message: %#v", text, e)
			}
			if !e.Pos.IsValid() {
				t.Fatalf("%q: error without a position: %v", text, e)
			}
			if e.Pos.Off < 0 || e.Pos.Off > len(e.Pos.Src.Text) {
				t.Fatalf("%q: error offset %d outside the file: %v", text, e.Pos.Off, e)
			}
			p := e.Pos.Position()
			if p.Line < 1 || p.Column < 1 || !strings.HasPrefix(e.Error(), p.Filename) {
				t.Fatalf("%q: error at %+v: %v", text, p, e)
			}
			_ = e.Display()
		}
	})
}
