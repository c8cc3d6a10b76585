package tasksystem

import (
	"context"
	"errors"
	"strings"

	"github.com/evalrun/evalrun/memory"
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

// failure is a task failure with a reason of SPEC §11.5; Execute turns it
// into a FAILED TaskResult.
type failure struct {
	reason, msg string
}

func (f *failure) Error() string { return f.msg }

func fail(reason, msg string) error { return &failure{reason, msg} }

// fileRef is a file a task may see, before it is resolved and read.
type fileRef struct {
	given  string // the path as written (or the match id)
	base   string // the directory a relative path is resolved against
	origin string
	// outsideOK allows a path outside the project root (--files).
	outsideOK bool
	// failOutside fails the task for a path outside the root instead of
	// skipping it (files argument, <file_paths>).
	failOutside bool
	// mustExist fails the task for a missing file instead of skipping it
	// (files argument).
	mustExist bool
}

// call holds the state of one Execute call.
type call struct {
	e        *Executor
	ctx      context.Context
	t        *templates.Template
	task     string
	settings templates.ContextSettings
	warnings []string
	skipped  []string
	// seen holds the resolved paths already delivered.
	seen map[string]bool
}

// warn adds a warning to the notes and prints it on stderr.
func (c *call) warn(msg string) {
	c.warnings = append(c.warnings, msg)
	c.e.printf("warning: task '%s': %s\n", c.task, msg)
}

// skip lists a file in notes.skipped_files.
func (c *call) skip(given string) {
	for _, s := range c.skipped {
		if s == given {
			return
		}
	}
	c.skipped = append(c.skipped, given)
}

// ownFiles selects the task's own files (SPEC §13.4 step 1): the call's
// files argument, else the template's <file_paths>, else a fresh lookup when
// fresh_context is enabled. It returns the context source, the files and the
// memory summary of the lookup that found them.
func (c *call) ownFiles(req *Request, parts *templates.Parts, lookup templates.Lookup, inputs map[string]value.Value) (string, []fileRef, string, error) {
	wd := c.e.roots.workDir
	if len(req.Files) > 0 {
		refs := make([]fileRef, len(req.Files))
		for i, f := range req.Files {
			refs[i] = fileRef{given: f, base: wd, origin: OriginExplicit, failOutside: true, mustExist: true}
		}
		return SourceExplicitRequest, refs, "", nil
	}
	if fp := c.t.FilePaths; fp != nil {
		var source, summary string
		var refs []fileRef
		switch fp.Source {
		case "", "literal":
			source = SourceTemplateLiteral
			for _, p := range parts.Paths {
				if path, _ := p.Render(lookup); strings.TrimSpace(path) != "" {
					refs = append(refs, fileRef{given: strings.TrimSpace(path), base: wd, origin: OriginTemplate, failOutside: true})
				}
			}
		case "command":
			source = SourceTemplateCommand
			text, err := renderCommand(parts.PathsCommand, lookup)
			if err != nil {
				return source, nil, "", fail(ReasonInputValidation, err.Error())
			}
			lines, err := c.filePathsCommand(text)
			if err != nil {
				return source, nil, "", err
			}
			for _, p := range lines {
				refs = append(refs, fileRef{given: p, base: wd, origin: OriginTemplate, failOutside: true})
			}
		case "description", "context_description":
			query := fp.Description
			source = SourceTemplateDescription
			if query == "" {
				query = c.t.Description
			}
			if fp.Source == "context_description" {
				source = SourceTemplateContextDescription
				query, _ = parts.ContextQuery.Render(lookup)
			}
			var err error
			refs, summary, err = c.memoryFiles(query, OriginTemplate)
			if err != nil {
				return source, nil, "", err
			}
		default:
			return SourceNone, nil, "", fail(ReasonXMLValidation, "unknown <file_paths> source '"+fp.Source+"'")
		}
		if len(refs) > 0 {
			return source, refs, summary, nil
		}
	}
	if c.settings.FreshContext == FreshEnabled {
		refs, summary, err := c.memoryFiles(freshQuery(c.t, req, inputs), OriginFresh)
		if err != nil || len(refs) > 0 {
			return SourceFresh, refs, summary, err
		}
	}
	return SourceNone, nil, "", nil
}

// freshQuery is the query of a fresh lookup (SPEC §13.4): the template
// description followed by one "name: value" line per input, the template's
// inputs first, then other named arguments in call order.
func freshQuery(t *templates.Template, req *Request, inputs map[string]value.Value) string {
	lines := []string{t.Description}
	done := map[string]bool{}
	add := func(name string) {
		if v, ok := inputs[name]; ok && !done[name] {
			done[name] = true
			lines = append(lines, name+": "+value.Text(v))
		}
	}
	for _, in := range t.Inputs {
		add(in.Name)
	}
	for _, a := range req.Named {
		add(a.Name)
	}
	return strings.TrimLeft(strings.Join(lines, "\n"), "\n")
}

// memoryFiles asks the memory index for the files matching query. Without a
// memory index it finds nothing and warns.
func (c *call) memoryFiles(query, origin string) ([]fileRef, string, error) {
	mem := c.e.opts.Memory
	if mem == nil {
		c.warn(WarnNoMemory)
		return nil, "", nil
	}
	res, err := mem.Lookup(c.ctx, memory.Query{Query: query, Strategy: memory.StrategyContent, TopK: c.e.freshTopK})
	if err != nil {
		if c.ctx.Err() != nil {
			return nil, "", fail(ReasonExecutionHalted, haltMessage(c.ctx))
		}
		return nil, "", fail(ReasonContextRetrieval, err.Error())
	}
	if res.Error != "" {
		if len(res.Matches) == 0 {
			return nil, "", fail(ReasonContextRetrieval, res.Error)
		}
		c.warn(res.Error)
	}
	refs := make([]fileRef, 0, len(res.Matches))
	for _, m := range res.Matches {
		if p := matchPath(m); p != "" {
			refs = append(refs, fileRef{given: p, base: c.e.roots.root, origin: origin})
		}
	}
	return refs, res.ContextSummary, nil
}

// filePathsCommand runs the command of a <file_paths source="command"> and
// returns the paths it prints, one per non-blank line. Any failure fails the
// task with context_retrieval_failure.
func (c *call) filePathsCommand(text string) ([]string, error) {
	if echoesCommands(c.t) {
		c.e.printf("running command of %s (%s): %s\n", c.t.Name, c.t.Scope, text)
	}
	sc := shellCommand{text: text, dir: c.e.roots.workDir}
	res, err := sc.run(c.ctx)
	switch {
	case errors.Is(err, errCommandTimeout):
		return nil, fail(ReasonContextRetrieval, commandTimeoutMessage(sc.timeout))
	case err != nil && c.ctx.Err() != nil:
		return nil, fail(ReasonExecutionHalted, haltMessage(c.ctx))
	case err != nil:
		return nil, fail(ReasonContextRetrieval, "cannot run command: "+err.Error())
	case res.status != 0:
		return nil, fail(ReasonContextRetrieval, commandExitMessage(res))
	}
	return commandLines(res.output), nil
}

// load resolves and reads one file for delivery (SPEC §13.4, §19). A file
// that cannot be delivered is skipped and listed in notes.skipped_files,
// unless the reference demands that the task fail; a file already delivered
// is dropped silently (ok false, no error).
func (c *call) load(ref fileRef) (deliveredFile, bool, error) {
	p, err := c.e.roots.resolve(ref.given, ref.base, ref.outsideOK)
	if err == nil {
		if c.seen[p.real] {
			return deliveredFile{}, false, nil
		}
		var text string
		if text, err = readContextFile(p); err == nil {
			c.seen[p.real] = true
			return deliveredFile{path: p.display, origin: ref.origin, text: text}, true, nil
		}
	}
	switch {
	case errors.Is(err, errOutside) && ref.failOutside:
		return deliveredFile{}, false, fail(ReasonInputValidation, "path outside the project root: "+ref.given)
	case errors.Is(err, errNotFound) && ref.mustExist:
		return deliveredFile{}, false, fail(ReasonInputValidation, "file not found: "+ref.given)
	}
	c.skip(ref.given)
	return deliveredFile{}, false, nil
}

// ambientRefs returns the run's ambient items (SPEC §13.3): the --files
// paths, then the with-context items of the call, without repeated ids.
// Match dicts name files relative to the project root, path strings relative
// to the working directory.
func (c *call) ambientRefs(req *Request) []fileRef {
	seen := map[string]bool{}
	var refs []fileRef
	add := func(id string, ref fileRef) {
		if id == "" || seen[id] {
			return
		}
		seen[id] = true
		refs = append(refs, ref)
	}
	wd := c.e.roots.workDir
	for _, f := range c.e.opts.RunFiles {
		add(f, fileRef{given: f, base: wd, origin: OriginInherited, outsideOK: true})
	}
	for _, it := range req.Ambient {
		switch v := it.(type) {
		case value.String, value.Symbol:
			p := value.Text(v)
			add(p, fileRef{given: p, base: wd, origin: OriginInherited})
		case *value.Dict:
			idv, _ := v.Get("id")
			id := value.Text(idv)
			p := id
			if sp, ok := v.Get("source_path"); ok && value.Text(sp) != "" {
				p = value.Text(sp)
			}
			add(id, fileRef{given: p, base: c.e.roots.root, origin: OriginInherited})
		}
	}
	return refs
}

// inherited returns the ambient files the task inherits (SPEC §13.4 step
// 2): all of them for full, the SubsetK that rank highest by BM25 against
// the rendered instructions for subset (path and text ranked together; best
// first, ties in ambient order; zero scores left out), none for none.
func (c *call) inherited(req *Request, instructions string) []deliveredFile {
	if c.settings.InheritContext != InheritFull && c.settings.InheritContext != InheritSubset {
		return nil
	}
	var files []deliveredFile
	for _, ref := range c.ambientRefs(req) {
		if f, ok, _ := c.load(ref); ok {
			files = append(files, f)
		}
	}
	if c.settings.InheritContext == InheritFull || len(files) == 0 {
		return files
	}
	docs := make([]string, len(files))
	for i, f := range files {
		docs[i] = f.path + "\n" + f.text
	}
	top := topByBM25(instructions, docs, c.e.subsetK)
	out := make([]deliveredFile, len(top))
	for i, j := range top {
		out[i] = files[j]
	}
	return out
}
