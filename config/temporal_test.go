package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTemporalMerge: the local file's [temporal] keys replace the global
// file's one by one; keys neither sets keep their defaults.
func TestTemporalMerge(t *testing.T) {
	dir := t.TempDir()
	g := write(t, dir, "g.toml", "[temporal]\naddress = \"temporal.example:7233\"\nnamespace = \"team\"\n")
	l := write(t, dir, "l.toml", "[temporal]\naddress = \"127.0.0.1:7233\"\n")
	cfg, err := Load(g, l)
	if err != nil {
		t.Fatal(err)
	}
	want := Temporal{Address: "127.0.0.1:7233", Namespace: "team", TaskQueue: "evalrun"}
	if diff := cmp.Diff(want, cfg.Temporal); diff != "" {
		t.Errorf("merged [temporal] (-want +got):\n%s", diff)
	}
	cfg, err = Load("", write(t, dir, "q.toml", "[temporal]\ntask_queue = \"evals\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want = Temporal{Namespace: "default", TaskQueue: "evals"}
	if diff := cmp.Diff(want, cfg.Temporal); diff != "" {
		t.Errorf("[temporal] task_queue only (-want +got):\n%s", diff)
	}
}

func TestTemporalErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"no port", "[temporal]\naddress = \"localhost\"\n",
			[]string{`c.toml:2:11: temporal.address: invalid address "localhost": expected HOST:PORT such as "127.0.0.1:7233"`}},
		{"no host", "[temporal]\naddress = \":7233\"\n",
			[]string{`c.toml:2:11: temporal.address: invalid address ":7233": expected HOST:PORT such as "127.0.0.1:7233"`}},
		{"url", "[temporal]\naddress = \"http://h:7233\"\n",
			[]string{`c.toml:2:11: temporal.address: invalid address "http://h:7233": expected HOST:PORT such as "127.0.0.1:7233"`}},
		{"bad port", "[temporal]\naddress = \"h:99999\"\n",
			[]string{`c.toml:2:11: temporal.address: invalid address "h:99999": the port must be a number from 1 to 65535`}},
		{"empty", "[temporal]\nnamespace = \"\"\ntask_queue = \" \"\n",
			[]string{"c.toml:2:13: temporal.namespace: must not be empty", "c.toml:3:14: temporal.task_queue: must not be empty"}},
		{"wrong type", "[temporal]\naddress = 7233\n",
			[]string{`c.toml:2:11: temporal.address: expected a string "HOST:PORT", got an integer`}},
		{"unknown key", "[temporal]\ntaskqueue = \"q\"\n",
			[]string{"c.toml:2:1: unknown key 'temporal.taskqueue' (did you mean 'task_queue'?)"}},
		{"unknown table", "[temporl]\naddress = \"h:1\"\n",
			[]string{"c.toml:1:2: unknown key 'temporl' (did you mean 'temporal'?)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(t, t.TempDir(), "c.toml", tc.text)
			_, err := Load("", p, base)
			if err == nil {
				t.Fatal("no error")
			}
			var got []string
			for _, e := range Errors(err) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
