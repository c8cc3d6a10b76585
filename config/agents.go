package config

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/evalrun/evalrun/agent"
	"github.com/evalrun/evalrun/internal/gotmpl"
	"github.com/evalrun/evalrun/internal/suggest"
)

// AgentConfig holds the tables of SPEC §22: agents, roles with the UTD
// fields of start, contexts and tasks in start's format.
//
// Decisions where the SPEC is silent: a table [agents.NAME], [roles.NAME],
// [contexts.NAME] or [tasks.NAME] of the local file replaces the global
// table of the same name whole, as start does (its fields are not merged
// one by one); contexts keep the order of their tables, global ones first.
type AgentConfig struct {
	// DefaultAgent is default_agent; "" means calls go to a provider.
	DefaultAgent string
	// Agents are the configured [agents.NAME] tables by name (built-in
	// agents are not listed; see AgentDefinition).
	Agents map[string]agent.Definition
	// DefaultRole is default_role.
	DefaultRole string
	// RoleDefs are the [roles.NAME] tables by name with all their fields.
	RoleDefs map[string]Role
	// Contexts are the [contexts.NAME] tables, global file first, each
	// file in the order of its tables.
	Contexts []ContextDef
	// Tasks are the [tasks.NAME] tables by name.
	Tasks map[string]Task
}

// init makes the maps of the configuration.
func (c *AgentConfig) init() {
	if c.Agents == nil {
		c.Agents = map[string]agent.Definition{}
		c.RoleDefs = map[string]Role{}
		c.Tasks = map[string]Task{}
	}
}

// UTD is the Unified Template Design of start: a text made of a file, a
// command's output and a prompt with placeholders.
type UTD struct {
	// File is a path; "~/" is expanded when the text is resolved.
	File string
	// Command is run with Shell (default "sh") -c.
	Command string
	Shell   string
	// CommandTimeout limits Command; 0 means 30 s.
	CommandTimeout time.Duration
	// Prompt is the text with {file}, {file_contents}, {command},
	// {command_output}, {date}, {model} (and {instructions} for tasks).
	Prompt string
}

// Origin says where a table was defined.
type Origin struct {
	// Scope is global or local.
	Scope string
	// Path is the configuration file as displayed; Line the table's line.
	Path string
	Line int
}

// String returns "local (.evalrun/config.toml:14)".
func (o Origin) String() string {
	if o.Path == "" {
		return o.Scope
	}
	return fmt.Sprintf("%s (%s:%d)", o.Scope, o.Path, o.Line)
}

// Role is a [roles.NAME] table.
type Role struct {
	Name        string
	Description string
	// System is the system prompt text when given as system = "…".
	System string
	UTD
	Origin
}

// ContextDef is a [contexts.NAME] table.
type ContextDef struct {
	Name        string
	Description string
	Required    bool
	// Default is start's default = true: the context is selected by the
	// pseudo-tag "default" (--context default), as in start.
	Default bool
	Tags    []string
	UTD
	Origin
}

// Task is a [tasks.NAME] table in start's format.
type Task struct {
	Name        string
	Alias       string
	Description string
	Role        string
	Agent       string
	Model       string
	UTD
	Origin
}

// AgentDefinition returns the agent called name: a configured one, else a
// built-in one.
func (c *AgentConfig) AgentDefinition(name string) (agent.Definition, bool) {
	if d, ok := c.Agents[name]; ok {
		return d, true
	}
	return agent.Builtin(name)
}

// AgentNames returns the configured and built-in agent names, sorted.
func (c *AgentConfig) AgentNames() []string {
	names := agent.BuiltinNames()
	for n := range c.Agents {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// UnknownAgent returns the message for an agent name that is neither
// configured nor built in: unknown agent 'cluade' (did you mean 'claude'?).
func (c *AgentConfig) UnknownAgent(name string) string {
	msg := fmt.Sprintf("unknown agent '%s'", name)
	if s := suggest.Near(name, c.AgentNames()); s != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", s)
	}
	return msg
}

// UnknownRole returns the message for a role name that is not configured:
// with a "did you mean" for a near one, or saying that none is configured.
func (c *AgentConfig) UnknownRole(name string) string {
	msg := fmt.Sprintf("unknown role '%s'", name)
	if len(c.RoleDefs) == 0 {
		return msg + " (no role is configured: a [roles.NAME] table of config.toml defines one)"
	}
	if s := suggest.Near(name, slices.Sorted(maps.Keys(c.RoleDefs))); s != "" {
		msg += fmt.Sprintf(" (did you mean '%s'?)", s)
	}
	return msg
}

// namedTables are the top-level tables whose second key is a NAME.
var namedTables = map[string]bool{"agents": true, "contexts": true, "tasks": true}

// The raw forms of the tables.
type agentTables struct {
	DefaultAgent *string                   `toml:"default_agent"`
	AgentsRaw    map[string]*rawAgent      `toml:"agents"`
	DefaultRole  *string                   `toml:"default_role"`
	ContextsRaw  map[string]*rawContextDef `toml:"contexts"`
	TasksRaw     map[string]*rawTask       `toml:"tasks"`
}

type rawAgent struct {
	Description  *string           `toml:"description"`
	Command      *string           `toml:"command"`
	Bin          *string           `toml:"bin"`
	Stdin        *bool             `toml:"stdin"`
	Format       *string           `toml:"format"`
	DefaultModel *string           `toml:"default_model"`
	Models       map[string]any    `toml:"models"`
	Timeout      *string           `toml:"timeout"`
	MaxParallel  *int64            `toml:"max_parallel"`
	Env          map[string]string `toml:"env"`
	ReadOnlyArgs []string          `toml:"read_only_args"`
	// Keys of start's agent definitions that describe the agent and that
	// evalrun accepts and does not use.
	Tags      []string `toml:"tags"`
	Origin    *string  `toml:"origin"`
	URL       *string  `toml:"url"`
	ModelsURL *string  `toml:"models_url"`
}

type rawUTD struct {
	File           *string `toml:"file"`
	Command        *string `toml:"command"`
	Shell          *string `toml:"shell"`
	CommandTimeout any     `toml:"command_timeout"`
	// Timeout is start's name of command_timeout in its CUE schema.
	Timeout any     `toml:"timeout"`
	Prompt  *string `toml:"prompt"`
	// Tags and Origin are start's descriptive keys, accepted and unused.
	Tags   []string `toml:"tags"`
	Origin *string  `toml:"origin"`
}

// timeout returns command_timeout, else start's timeout.
func (u *rawUTD) timeout() any {
	if u.CommandTimeout != nil {
		return u.CommandTimeout
	}
	return u.Timeout
}

type rawContextDef struct {
	rawUTD
	Description *string `toml:"description"`
	Required    *bool   `toml:"required"`
	// Default is start's "include in a plain session": evalrun has no
	// such session; as in start, such a context is selected by the
	// pseudo-tag "default" (a task call takes the required contexts and
	// those named with --context, as start task does).
	Default *bool `toml:"default"`
}

type rawTask struct {
	rawUTD
	Alias       *string `toml:"alias"`
	Description *string `toml:"description"`
	Role        *string `toml:"role"`
	Agent       *string `toml:"agent"`
	Model       *string `toml:"model"`
}

func init() {
	for k, v := range map[string]string{
		"default_agent": "a string", "default_role": "a string",
		"agents": "a table", "agents.*": "a table",
		"agents.*.description": "a string", "agents.*.command": "a string", "agents.*.bin": "a string",
		"agents.*.stdin": "a boolean", "agents.*.format": "a string", "agents.*.default_model": "a string",
		"agents.*.models": "a table of model ids (strings, or tables with id)", "agents.*.timeout": `a duration string such as "30m"`,
		"agents.*.max_parallel": "an integer", "agents.*.env": "a table of strings",
		"agents.*.read_only_args": "an array of strings",
		"agents.*.tags":           "an array of strings", "agents.*.origin": "a string",
		"agents.*.url": "a string", "agents.*.models_url": "a string",
		"contexts.*.default":  "a boolean",
		"roles.*.description": "a string",
		"contexts":            "a table", "contexts.*": "a table", "contexts.*.description": "a string",
		"contexts.*.required": "a boolean", "contexts.*.tags": "an array of strings",
		"tasks": "a table", "tasks.*": "a table", "tasks.*.alias": "a string", "tasks.*.description": "a string",
		"tasks.*.role": "a string", "tasks.*.agent": "a string", "tasks.*.model": "a string",
	} {
		keyKinds[k] = v
	}
	for _, t := range []string{"roles", "contexts", "tasks"} {
		keyKinds[t+".*.file"] = "a string"
		keyKinds[t+".*.command"] = "a string"
		keyKinds[t+".*.shell"] = "a string"
		keyKinds[t+".*.command_timeout"] = "an integer (seconds) or a duration string"
		keyKinds[t+".*.prompt"] = "a string"
		keyKinds[t+".*.timeout"] = "an integer (seconds) or a duration string"
		keyKinds[t+".*.tags"] = "an array of strings"
		keyKinds[t+".*.origin"] = "a string"
	}
}

var (
	aliasRE     = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	nameRE      = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	braceNameRE = regexp.MustCompile(`\{([a-z][a-z0-9_]*)\}`)
)

// The placeholders of role and context prompts, and of task prompts.
var (
	utdPlaceholders  = []string{"file", "file_contents", "command", "command_output", "date", "model"}
	taskPlaceholders = []string{"instructions", "file", "file_contents", "command", "command_output", "date", "model"}
)

// validateAgentTables checks the tables of SPEC §22 in one file.
func (f *file) validateAgentTables(raw *rawFile) ErrorList {
	var errs ErrorList
	add := func(path []string, format string, args ...any) {
		errs = append(errs, f.errorAt(path, "%s: "+format, append([]any{keyPath(path)}, args...)...))
	}
	for _, k := range []struct {
		key string
		v   *string
	}{{"default_agent", raw.DefaultAgent}, {"default_role", raw.DefaultRole}} {
		if k.v != nil && strings.TrimSpace(*k.v) == "" {
			add([]string{k.key}, "must not be empty")
		}
	}
	for _, name := range sortedKeys(raw.AgentsRaw) {
		a := raw.AgentsRaw[name]
		base := []string{"agents", name}
		sub := func(k string) []string { return append(slices.Clone(base), k) }
		if !nameRE.MatchString(name) {
			errs = append(errs, f.errorAt(base, "invalid agent name '%s': use letters, digits, '.', '_' and '-'", name))
		}
		if a == nil || a.Command == nil {
			errs = append(errs, f.errorAt(base, "agents.%s: missing key 'command'", keyPath([]string{name})))
			continue
		}
		def := agent.Definition{Name: name, Command: *a.Command}
		if a.Stdin != nil {
			def.Stdin = *a.Stdin
		}
		if a.Format != nil {
			if !agent.ValidFormat(agent.Format(*a.Format)) {
				add(sub("format"), "unknown format %q (want one of %s)", *a.Format, agent.FormatList())
			}
		}
		if err := def.Validate(); err != nil {
			e := f.errorAt(sub("command"), "%s: %v", keyPath(sub("command")), err)
			var ce *agent.CommandError
			if errors.As(err, &ce) {
				// Point at the placeholder inside the string.
				e.Pos = f.inString(sub("command"), ce.Offset)
			}
			errs = append(errs, e)
		}
		for i, arg := range a.ReadOnlyArgs {
			if err := (agent.Definition{Command: "x " + arg}).Validate(); err != nil && strings.Contains(err.Error(), "placeholder") {
				add(sub("read_only_args"), "element %d: %v", i+1, err)
			}
		}
		if a.Timeout != nil {
			if d, err := parseDuration(*a.Timeout); err != nil {
				add(sub("timeout"), "%v", err)
			} else if d <= 0 {
				add(sub("timeout"), "must be a positive duration, got %q", *a.Timeout)
			}
		}
		if a.MaxParallel != nil && (*a.MaxParallel < 1 || *a.MaxParallel > maxInt32) {
			add(sub("max_parallel"), "must be at least 1, got %d", *a.MaxParallel)
		}
		for _, k := range sortedKeys(a.Env) {
			if !envNameRE.MatchString(k) {
				add(sub("env"), "invalid environment variable name %q", k)
			}
		}
		if a.DefaultModel != nil && strings.TrimSpace(*a.DefaultModel) == "" {
			add(sub("default_model"), "must not be empty")
		}
		for _, k := range sortedKeys(a.Models) {
			if _, ok := modelID(a.Models[k]); !ok {
				p := append(sub("models"), k)
				add(p, "expected a model id string, or a table with id = \"MODEL-ID\" (start's form)")
			}
		}
	}
	for _, name := range sortedKeys(raw.Roles) {
		r := raw.Roles[name]
		if r == nil {
			continue
		}
		base := []string{"roles", name}
		if r.System == nil && r.File == nil && r.Command == nil && r.Prompt == nil {
			errs = append(errs, f.errorAt(base, "roles.%s: needs one of 'system', 'file', 'command' or 'prompt'", keyPath([]string{name})))
		}
		errs = append(errs, f.validateUTD(base, &r.rawUTD, utdPlaceholders)...)
	}
	for _, name := range sortedKeys(raw.ContextsRaw) {
		c := raw.ContextsRaw[name]
		if c == nil {
			continue
		}
		base := []string{"contexts", name}
		if c.File == nil && c.Command == nil && c.Prompt == nil {
			errs = append(errs, f.errorAt(base, "contexts.%s: needs one of 'file', 'command' or 'prompt'", keyPath([]string{name})))
		}
		errs = append(errs, f.validateUTD(base, &c.rawUTD, utdPlaceholders)...)
		for _, tag := range c.Tags {
			if strings.TrimSpace(tag) == "" {
				add(append(base, "tags"), "tags must not be empty")
				break
			}
		}
	}
	aliases := map[string]string{}
	for _, name := range sortedKeys(raw.TasksRaw) {
		t := raw.TasksRaw[name]
		if t == nil {
			continue
		}
		base := []string{"tasks", name}
		if !aliasRE.MatchString(name) && !nameRE.MatchString(name) {
			errs = append(errs, f.errorAt(base, "invalid task name '%s'", name))
		}
		if t.File == nil && t.Command == nil && t.Prompt == nil {
			errs = append(errs, f.errorAt(base, "tasks.%s: needs one of 'file', 'command' or 'prompt'", keyPath([]string{name})))
		}
		if t.Alias != nil {
			p := append(slices.Clone(base), "alias")
			switch {
			case !aliasRE.MatchString(*t.Alias):
				add(p, "invalid alias %q: use lower-case letters and digits in words joined by '-'", *t.Alias)
			case aliases[*t.Alias] != "":
				add(p, "alias %q is already the alias of task '%s'", *t.Alias, aliases[*t.Alias])
			default:
				aliases[*t.Alias] = name
			}
		}
		for _, k := range []struct {
			key string
			v   *string
		}{{"role", t.Role}, {"agent", t.Agent}, {"model", t.Model}} {
			if k.v != nil && strings.TrimSpace(*k.v) == "" {
				add(append(slices.Clone(base), k.key), "must not be empty")
			}
		}
		errs = append(errs, f.validateUTD(base, &t.rawUTD, taskPlaceholders)...)
	}
	return errs
}

// validateUTD checks the UTD fields of a table.
func (f *file) validateUTD(base []string, u *rawUTD, placeholders []string) ErrorList {
	var errs ErrorList
	sub := func(k string) []string { return append(slices.Clone(base), k) }
	if u.Prompt != nil {
		// start's {{.name}}: a known name, or an error at its column.
		p := *u.Prompt
		failed := false
		for i := 0; i < len(p) && !failed; i++ {
			n, name, err, ok := gotmpl.Action(p[i:])
			if !ok {
				continue
			}
			if err == nil && !slices.Contains(placeholders, name) {
				err = unknownUTDPlaceholder(p[i:i+n], name, placeholders)
			}
			if err != nil {
				e := f.errorAt(sub("prompt"), "%s: %v", keyPath(sub("prompt")), err)
				e.Pos = f.inString(sub("prompt"), i)
				errs = append(errs, e)
				failed = true
				continue
			}
			i += n - 1
		}
		for _, m := range braceNameRE.FindAllStringSubmatch(*u.Prompt, -1) {
			if failed {
				break
			}
			if !slices.Contains(placeholders, m[1]) {
				msg := fmt.Sprintf("%s: unknown placeholder {%s}", keyPath(sub("prompt")), m[1])
				if s := suggest.Near(m[1], placeholders); s != "" {
					msg += fmt.Sprintf(" (did you mean {%s}?)", s)
				} else {
					msg += " (known: {" + strings.Join(placeholders, "}, {") + "})"
				}
				errs = append(errs, f.errorAt(sub("prompt"), "%s", msg))
			}
		}
	}
	for _, k := range []struct {
		key string
		v   *string
	}{{"file", u.File}, {"command", u.Command}, {"shell", u.Shell}} {
		if k.v != nil && strings.TrimSpace(*k.v) == "" {
			errs = append(errs, f.errorAt(sub(k.key), "%s: must not be empty", keyPath(sub(k.key))))
		}
	}
	if u.CommandTimeout != nil && u.Timeout != nil {
		errs = append(errs, f.errorAt(sub("timeout"), "%s: give one of command_timeout and timeout (start's name of it)", keyPath(sub("timeout"))))
	} else if _, err := utdTimeout(u.timeout()); err != nil {
		key := "command_timeout"
		if u.CommandTimeout == nil {
			key = "timeout"
		}
		errs = append(errs, f.errorAt(sub(key), "%s: %v", keyPath(sub(key)), err))
	}
	return errs
}

// unknownUTDPlaceholder is the error of a placeholder, as written, that the
// prompt does not know.
func unknownUTDPlaceholder(as, name string, placeholders []string) error {
	if s := suggest.Closest(name, placeholders); s != "" {
		return fmt.Errorf("unknown placeholder %s (did you mean {%s}?)", as, s)
	}
	return fmt.Errorf("unknown placeholder %s (known: {%s})", as, strings.Join(placeholders, "}, {"))
}

// singleBraces writes start's placeholders {{.name}} of a validated prompt
// as {name}, the form evalrun replaces.
func singleBraces(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); {
		if n, name, err, ok := gotmpl.Action(p[i:]); ok && err == nil {
			b.WriteString("{" + name + "}")
			i += n
			continue
		}
		b.WriteByte(p[i])
		i++
	}
	return b.String()
}

// utdTimeout reads command_timeout: integer seconds (start's form) or a
// duration string.
func utdTimeout(v any) (time.Duration, error) {
	switch t := v.(type) {
	case nil:
		return 0, nil
	case int64:
		if t < 1 {
			return 0, fmt.Errorf("must be at least 1 second, got %d", t)
		}
		return time.Duration(t) * time.Second, nil
	case string:
		d, err := parseDuration(t)
		if err == nil && d <= 0 {
			err = fmt.Errorf("must be a positive duration, got %q", t)
		}
		return d, err
	default:
		return 0, fmt.Errorf("expected an integer (seconds) or a duration string, got %v", v)
	}
}

func utdFrom(u rawUTD) UTD {
	var out UTD
	setString(&out.File, u.File)
	setString(&out.Command, u.Command)
	setString(&out.Shell, u.Shell)
	setString(&out.Prompt, u.Prompt)
	out.Prompt = singleBraces(out.Prompt)
	out.CommandTimeout, _ = utdTimeout(u.timeout()) // validated
	return out
}

// scopeOf returns global for the first file read and local for the second.
func (m *merger) scopeOf(f *file) string {
	if m.local {
		return agent.ScopeLocal
	}
	return agent.ScopeGlobal
}

// origin returns where a table of f is.
func (m *merger) originOf(f *file, path ...string) Origin {
	p := f.at(path...).Position()
	return Origin{Scope: m.scopeOf(f), Path: f.src.Name, Line: p.Line}
}

// overlayAgentTables merges the tables of SPEC §22 of one file.
func (m *merger) overlayAgentTables(f *file, raw *rawFile) {
	c := &m.cfg.AgentConfig
	c.init()
	if setString(&c.DefaultAgent, raw.DefaultAgent) {
		m.set(f, "default_agent")
	}
	if setString(&c.DefaultRole, raw.DefaultRole) {
		m.set(f, "default_role")
	}
	for _, name := range sortedKeys(raw.AgentsRaw) {
		a := raw.AgentsRaw[name]
		o := m.originOf(f, "agents", name)
		models := modelIDs(a.Models)
		d := agent.Definition{Name: name, Command: *a.Command, Models: models, Env: a.Env,
			ReadOnlyArgs: slices.Clone(a.ReadOnlyArgs), Scope: o.Scope, Source: fmt.Sprintf("%s:%d", o.Path, o.Line)}
		setString(&d.Description, a.Description)
		setString(&d.Bin, a.Bin)
		if a.Stdin != nil {
			d.Stdin = *a.Stdin
		}
		if a.Format != nil {
			d.Format = agent.Format(*a.Format)
		}
		if !setString(&d.DefaultModel, a.DefaultModel) {
			d.DefaultModel = f.firstKey([]string{"agents", name, "models"}, models)
		}
		if a.Timeout != nil {
			d.Timeout, _ = parseDuration(*a.Timeout) // validated
		}
		setInt(&d.MaxParallel, a.MaxParallel)
		c.Agents[name] = d
		m.set(f, "agents", name)
	}
	for _, name := range sortedKeys(raw.Roles) {
		r := raw.Roles[name]
		if r == nil {
			continue
		}
		role := Role{Name: name, UTD: utdFrom(r.rawUTD), Origin: m.originOf(f, "roles", name)}
		setString(&role.System, r.System)
		setString(&role.Description, r.Description)
		c.RoleDefs[name] = role
	}
	// Contexts of this file in the order of their tables.
	names := sortedKeys(raw.ContextsRaw)
	slices.SortStableFunc(names, func(a, b string) int {
		return f.at("contexts", a).Off - f.at("contexts", b).Off
	})
	for _, name := range names {
		x := raw.ContextsRaw[name]
		if x == nil {
			continue
		}
		cd := ContextDef{Name: name, UTD: utdFrom(x.rawUTD), Tags: slices.Clone(x.Tags), Origin: m.originOf(f, "contexts", name)}
		setString(&cd.Description, x.Description)
		if x.Required != nil {
			cd.Required = *x.Required
		}
		if x.Default != nil {
			cd.Default = *x.Default
		}
		c.Contexts = slices.DeleteFunc(c.Contexts, func(o ContextDef) bool { return o.Name == name })
		c.Contexts = append(c.Contexts, cd)
	}
	for _, name := range sortedKeys(raw.TasksRaw) {
		t := raw.TasksRaw[name]
		if t == nil {
			continue
		}
		task := Task{Name: name, UTD: utdFrom(t.rawUTD), Origin: m.originOf(f, "tasks", name)}
		setString(&task.Alias, t.Alias)
		setString(&task.Description, t.Description)
		setString(&task.Role, t.Role)
		setString(&task.Agent, t.Agent)
		setString(&task.Model, t.Model)
		c.Tasks[name] = task
		m.set(f, "tasks", name)
	}
}

// checkAgentTables validates what only the merged configuration shows:
// default_agent names an agent, default_role and the tasks' roles name a
// role.
func (m *merger) checkAgentTables() ErrorList {
	var errs ErrorList
	c := &m.cfg.AgentConfig
	if a := c.DefaultAgent; a != "" && a != "none" {
		if _, ok := c.AgentDefinition(a); !ok {
			errs = append(errs, &Error{Pos: m.origin["default_agent"], Key: "default_agent", Msg: "default_agent: " + c.UnknownAgent(a)})
		}
	}
	if r := c.DefaultRole; r != "" {
		if _, ok := c.RoleDefs[r]; !ok {
			errs = append(errs, &Error{Pos: m.origin["default_role"], Key: "default_role", Msg: "default_role: " + c.UnknownRole(r)})
		}
	}
	for _, name := range sortedKeys(c.Tasks) {
		t := c.Tasks[name]
		if t.Role == "" {
			continue
		}
		if _, ok := c.RoleDefs[t.Role]; !ok {
			path := []string{"tasks", name}
			errs = append(errs, &Error{Pos: m.origin[keyPath(path)], Key: keyPath(append(path, "role")),
				Msg: fmt.Sprintf("tasks.%s.role: %s", keyPath([]string{name}), c.UnknownRole(t.Role))})
		}
	}
	return errs
}

// firstKey returns the key of m written first in the file under the table
// at path, "" for an empty m: an agent without default_model takes the
// first entry of its models table, as start does (TOML keeps the order in
// which keys are written; a decoded map does not).
func (f *file) firstKey(path []string, m map[string]string) string {
	first, firstOff := "", -1
	for k := range m {
		off, ok := f.pos[keyPath(append(slices.Clone(path), k))]
		if !ok {
			continue
		}
		if firstOff < 0 || off < firstOff {
			first, firstOff = k, off
		}
	}
	return first
}

// modelID reads a value of an agent's models table: a model id, or start's
// table form { id = "MODEL-ID" } (other keys of it are descriptive).
func modelID(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case map[string]any:
		id, ok := t["id"].(string)
		return id, ok
	}
	return "", false
}

// modelIDs maps an agent's models table to model ids, nil for none.
func modelIDs(m map[string]any) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k], _ = modelID(v) // validated
	}
	return out
}
