package templates

import (
	"errors"
	"fmt"
	"github.com/evalrun/evalrun/internal/suggest"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"

	"github.com/evalrun/evalrun/sexp"
	"github.com/evalrun/evalrun/value"
)

// Option configures ParseFile.
type Option func(*parseConfig)

type parseConfig struct {
	knownTools func(string) bool
	knownRoles func(string) bool
	schemas    *Schemas
}

// WithKnownTools makes ParseFile check that every <tool> of <allowed_tools>
// names a tool for which known returns true (SPEC §9.4). Without it tools
// are not checked. known may be called from several goroutines at once by
// Load.
func WithKnownTools(known func(name string) bool) Option {
	return func(c *parseConfig) { c.knownTools = known }
}

// WithKnownRoles makes ParseFile check that a role attribute names a
// configured [roles.NAME] (SPEC §9.4). Without it roles are not checked.
// known may be called from several goroutines at once by Load.
func WithKnownRoles(known func(name string) bool) Option {
	return func(c *parseConfig) { c.knownRoles = known }
}

// WithSchemas resolves named output schemas with schemas, which holds the
// NAME.schema.json files of the template directories (SPEC §9.5). Without
// it only built-in and shorthand schemas resolve.
func WithSchemas(schemas *Schemas) Option {
	return func(c *parseConfig) { c.schemas = schemas }
}

// ParseFile reads and validates one template file (SPEC §9): path is the
// name used in positions and stored in Template.Path (for the builtin scope
// Template.Path stays empty), data its contents and scope the scope its
// templates belong to. It returns the templates that are valid, in document
// order, each prepared by Infer, and every diagnostic of the file in
// position order: all validation errors (not only the first) and the
// warnings. Two templates of the file with the same name or alias are an
// error; Load also checks across the files of one directory.
func ParseFile(path string, data []byte, scope Scope, opts ...Option) ([]*Template, []Diagnostic) {
	var cfg parseConfig
	for _, o := range opts {
		o(&cfg)
	}
	fr := parseFile(path, data, scope, &cfg)
	fr.diags = append(fr.diags, checkDuplicates(map[string]*parsedTemplate{}, fr.templates)...)
	sortDiagnostics(fr.diags)
	return fr.valid(), fr.diags
}

// fileResult is one parsed file.
type fileResult struct {
	templates []*parsedTemplate
	diags     []Diagnostic
}

// valid returns the templates without errors.
func (fr *fileResult) valid() []*Template {
	var ts []*Template
	for _, pt := range fr.templates {
		if pt.ok {
			ts = append(ts, pt.t)
		}
	}
	return ts
}

// parsedTemplate is one <task> element of a file with what the duplicate
// check needs.
type parsedTemplate struct {
	t        *Template
	ok       bool     // no error so far
	pos      sexp.Pos // the '<' of the <task> element
	aliasPos sexp.Pos // the alias attribute; invalid when absent
}

// parseFile reads and validates one file without the duplicate check.
func parseFile(path string, data []byte, scope Scope, cfg *parseConfig) *fileResult {
	src := sexp.NewSource(path, string(data))
	fr := &fileResult{}
	x, xerr := readXML(src)
	if xerr != nil {
		fr.diags = append(fr.diags, Diagnostic{Pos: sexp.Pos{Src: src, Off: xerr.off}, Severity: SeverityError, Msg: xerr.msg})
		return fr
	}
	p := &parser{x: x, cfg: cfg, scope: scope, path: path}
	switch tag := x.root.FullTag(); tag {
	case "task":
		fr.templates = append(fr.templates, p.task(x.root))
	case "tasks":
		p.attrs(x.root)
		n := 0
		for _, el := range p.children(x.root, []string{"task"}, "task") {
			fr.templates = append(fr.templates, p.task(el))
			n++
		}
		if n == 0 {
			p.errorf(x.info(x.root).off, "<tasks> has no <task> element")
		}
	default:
		p.errorf(x.info(x.root).off, "expected root element <task> or <tasks>, got <%s>", tag)
	}
	fr.diags = p.diags
	return fr
}

// checkDuplicates reports templates whose name or alias is already in idx
// (SPEC §9.4) and adds the others' names and aliases to it.
func checkDuplicates(idx map[string]*parsedTemplate, pts []*parsedTemplate) []Diagnostic {
	var diags []Diagnostic
	for _, pt := range pts {
		if pt.t.Name == "" || !ValidName(pt.t.Name) {
			continue
		}
		type key struct {
			name string
			pos  sexp.Pos
		}
		keys := []key{{pt.t.Name, pt.pos}}
		if a := pt.t.Alias; a != "" && a != pt.t.Name && ValidName(a) {
			keys = append(keys, key{a, pt.aliasPos})
		}
		for _, k := range keys {
			if first, ok := idx[k.name]; ok {
				diags = append(diags, Diagnostic{Pos: k.pos, Severity: SeverityError,
					Msg: fmt.Sprintf("duplicate template name '%s' (first defined at %s)", k.name, first.pos)})
				pt.ok = false
				continue
			}
			idx[k.name] = pt
		}
	}
	return diags
}

// parser validates the elements of one file.
type parser struct {
	x     *xmlDoc
	cfg   *parseConfig
	scope Scope
	path  string
	diags []Diagnostic
	nerr  int // errors reported so far
}

func (p *parser) errorf(off int, format string, args ...any) {
	p.nerr++
	p.diags = append(p.diags, Diagnostic{Pos: p.x.pos(off), Severity: SeverityError, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) warnf(off int, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{Pos: p.x.pos(off), Severity: SeverityWarning, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) off(el *etree.Element) int { return p.x.info(el).off }

// attrSet holds the known attributes of an element.
type attrSet []attrInfo

// get returns the attribute called name.
func (as attrSet) get(name string) (attrInfo, bool) {
	for _, a := range as {
		if a.name == name {
			return a, true
		}
	}
	return attrInfo{}, false
}

// attrs reports unknown and repeated attributes of el and returns the known
// ones.
func (p *parser) attrs(el *etree.Element, known ...string) attrSet {
	all := p.x.info(el).attrs
	if len(all) == 0 {
		return nil
	}
	out := make(attrSet, 0, len(all))
	for i, a := range all {
		repeated := false
		for _, b := range all[:i] {
			repeated = repeated || b.name == a.name
		}
		if repeated {
			p.errorf(a.off, "duplicate attribute '%s' on <%s>", a.name, el.FullTag())
			continue
		}
		if a.name == "xmlns" || strings.HasPrefix(a.name, "xmlns:") {
			continue // a namespace declaration, not an attribute
		}
		if !contains(known, a.name) {
			if hint := suggest.Near(a.name, known); hint != "" {
				p.errorf(a.off, "unknown attribute '%s' on <%s> (did you mean '%s'?)", a.name, el.FullTag(), hint)
			} else {
				p.errorf(a.off, "unknown attribute '%s' on <%s>", a.name, el.FullTag())
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// children reports text, unknown elements and repeated elements (other than
// the repeatable ones) inside the container el and returns the remaining
// child elements in document order.
func (p *parser) children(el *etree.Element, known []string, repeatable ...string) []*etree.Element {
	var out []*etree.Element
	seen := map[string]bool{}
	for _, tok := range el.Child {
		switch c := tok.(type) {
		case *etree.CharData:
			if s := strings.TrimSpace(c.Data); s != "" {
				off := p.x.texts[c].start
				raw := p.x.src.Text[off:p.x.texts[c].end]
				off += len(raw) - len(strings.TrimLeft(raw, " \t\r\n"))
				p.errorf(off, "unexpected text %s in <%s>", quoteCut(s), el.FullTag())
			}
		case *etree.Element:
			name := c.FullTag()
			switch {
			case !contains(known, name):
				p.unknownElement(c, el, known)
			case seen[name] && !contains(repeatable, name):
				p.errorf(p.off(c), "duplicate element <%s>", name)
			default:
				seen[name] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// unknownElement reports the element c inside parent, with a hint from known.
func (p *parser) unknownElement(c, parent *etree.Element, known []string) {
	name := c.FullTag()
	if hint := suggest.Near(name, known); hint != "" {
		p.errorf(p.off(c), "unknown element <%s> in <%s> (did you mean <%s>?)", name, parent.FullTag(), hint)
		return
	}
	p.errorf(p.off(c), "unknown element <%s> in <%s>", name, parent.FullTag())
}

// text returns the text of the text-only element el cleaned by mode and
// reports child elements inside it.
func (p *parser) text(el *etree.Element, mode textMode) string {
	for _, c := range el.ChildElements() {
		p.unknownElement(c, el, nil)
	}
	return elemText(el, mode)
}

// textElem is text for an element without attributes.
func (p *parser) textElem(el *etree.Element, mode textMode) string {
	p.attrs(el)
	return p.text(el, mode)
}

// nonEmpty reports an empty text of el.
func (p *parser) nonEmpty(el *etree.Element, s string) bool {
	if s == "" {
		p.errorf(p.off(el), "invalid value \"\" for <%s>: expected non-empty text", el.FullTag())
		return false
	}
	return true
}

func (p *parser) badElemValue(el *etree.Element, val, expected string) {
	p.errorf(p.off(el), "invalid value %s for <%s>: expected %s", strconv.Quote(val), el.FullTag(), expected)
}

func (p *parser) badAttrValue(el *etree.Element, a attrInfo, expected string) {
	p.errorf(a.off, "invalid value %s for attribute %s of <%s>: expected %s", strconv.Quote(a.value), a.name, el.FullTag(), expected)
}

// enumElem reads the text of el, which must be one of values.
func (p *parser) enumElem(el *etree.Element, values ...string) string {
	s := p.textElem(el, modeTrim)
	if !contains(values, s) {
		p.badElemValue(el, s, orList(values))
		return ""
	}
	return s
}

// boolElem reads a true/false element.
func (p *parser) boolElem(el *etree.Element) *bool {
	switch p.enumElem(el, "true", "false") {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	return nil
}

// orList writes "a, b or c".
func orList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// taskAttrs and taskChildren are the attributes and child elements of
// <task> (SPEC §9.2), in the order of its tables.
var (
	taskAttrs    = []string{"name", "type", "subtype", "alias", "role"}
	taskChildren = []string{
		"description", "inputs", "system", "instructions", "model", "provider", "agent", "temperature",
		"output_format", "context_management", "file_paths", "command", "file", "allowed_tools",
		"history_config", "limits", "criteria",
	}
)

// placeholderText is an element whose text may hold placeholders.
type placeholderText struct {
	el   *etree.Element
	mode textMode
}

// taskState is the state of one <task> while it is validated.
type taskState struct {
	t       *Template
	texts   map[string][]placeholderText // by PlaceholderError.Field
	command *etree.Element
	fresh   *etree.Element
}

// task validates one <task> element.
func (p *parser) task(el *etree.Element) *parsedTemplate {
	errsBefore := p.nerr
	info := p.x.info(el)
	pos := p.x.pos(info.off).Position()
	t := &Template{
		Type:    "atomic",
		Subtype: "standard",
		Scope:   p.scope,
		Path:    p.path,
		Line:    pos.Line,
		Col:     pos.Column,
		XML:     p.x.src.Text[info.off:info.end],
	}
	if p.scope == ScopeBuiltin {
		t.Path = ""
	}
	pt := &parsedTemplate{t: t, pos: p.x.pos(info.off)}
	st := &taskState{t: t, texts: map[string][]placeholderText{}}

	attrs := p.attrs(el, taskAttrs...)
	if a, ok := attrs.get("name"); !ok {
		p.errorf(info.off, "<task> is missing required attribute 'name'")
	} else if !ValidName(a.value) {
		p.errorf(a.off, "invalid template name '%s': must match %s", a.value, NamePattern)
	} else {
		t.Name = a.value
	}
	if a, ok := attrs.get("type"); !ok {
		p.errorf(info.off, "<task> is missing required attribute 'type'")
	} else if a.value != "atomic" {
		p.errorf(a.off, "type must be \"atomic\", got %s", strconv.Quote(a.value))
	}
	if a, ok := attrs.get("subtype"); ok {
		if !ValidSubtype(a.value) {
			p.errorf(a.off, "invalid subtype '%s': must match ^[a-z0-9]+([-_][a-z0-9]+)*$", a.value)
		} else {
			t.Subtype = a.value
		}
	}
	if a, ok := attrs.get("alias"); ok {
		if !ValidName(a.value) {
			p.errorf(a.off, "invalid template alias '%s': must match %s", a.value, NamePattern)
		} else {
			t.Alias = a.value
			pt.aliasPos = p.x.pos(a.off)
		}
	}
	if a, ok := attrs.get("role"); ok {
		switch {
		case a.value == "":
			p.badAttrValue(el, a, "a role name")
		case p.cfg.knownRoles != nil && !p.cfg.knownRoles(a.value):
			p.errorf(a.off, "unknown role '%s': no [roles.%s] in the configuration", a.value, a.value)
		default:
			t.Role = a.value
		}
	}

	var haveDesc, haveInstr bool
	for _, c := range p.children(el, taskChildren) {
		switch c.FullTag() {
		case "description":
			haveDesc = true
			t.Description = p.textElem(c, modeDedent)
			p.nonEmpty(c, t.Description)
		case "instructions":
			haveInstr = true
			t.Instructions = p.textElem(c, modeDedent)
			p.nonEmpty(c, t.Instructions)
			st.texts["instructions"] = []placeholderText{{c, modeDedent}}
		case "system":
			t.System = p.textElem(c, modeDedent)
			st.texts["system"] = []placeholderText{{c, modeDedent}}
		case "criteria":
			t.Criteria = p.textElem(c, modeDedent)
		case "model":
			t.Model = p.textElem(c, modeTrim)
			p.nonEmpty(c, t.Model)
		case "provider":
			t.Provider = p.textElem(c, modeTrim)
			p.nonEmpty(c, t.Provider)
		case "agent":
			t.Agent = p.textElem(c, modeTrim)
			p.nonEmpty(c, t.Agent)
		case "temperature":
			s := p.textElem(c, modeTrim)
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || !(f >= 0 && f <= 2) {
				p.badElemValue(c, s, "a number from 0 to 2")
			} else {
				t.Temperature = &f
			}
		case "file":
			t.File = p.textElem(c, modeTrim)
			p.nonEmpty(c, t.File)
			st.texts["file"] = []placeholderText{{c, modeTrim}}
		case "inputs":
			p.inputs(c, t)
		case "output_format":
			p.outputFormat(c, st)
		case "context_management":
			p.contextManagement(c, st)
		case "file_paths":
			p.filePaths(c, st)
		case "command":
			p.command(c, st)
		case "allowed_tools":
			p.allowedTools(c, t)
		case "history_config":
			p.historyConfig(c, t)
		case "limits":
			p.limits(c, t)
		}
	}
	if !haveDesc {
		p.errorf(info.off, "<task> is missing required element <description>")
	}
	if !haveInstr {
		p.errorf(info.off, "<task> is missing required element <instructions>")
	}
	if t.FilePaths != nil && t.FilePaths.Source == "description" && t.FilePaths.Description == "" {
		t.FilePaths.Description = t.Description
	}
	if st.fresh != nil && t.Context.FreshContext == "enabled" &&
		(t.Context.InheritContext == "full" || t.Context.InheritContext == "subset") {
		p.errorf(p.off(st.fresh), "fresh_context enabled requires inherit_context none")
	}

	// Placeholders (SPEC §9.4): well formed, and naming declared inputs.
	if err := Infer(t); err != nil {
		var list ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				off := info.off
				if texts := st.texts[e.Field]; e.Index < len(texts) {
					txt := texts[e.Index]
					off = p.x.textOffset(txt.el, txt.mode, e.Offset)
				}
				p.errorf(off, "%s", e.Msg)
			}
		} else {
			p.errorf(info.off, "%s", err.Error())
		}
	} else if st.command != nil {
		parts, _ := t.Parts()
		if !parts.Instructions.Uses("command_output") && !parts.System.Uses("command_output") {
			p.warnf(p.off(st.command), "the output of <command> is never used: {{command_output}} appears in neither <instructions> nor <system>")
		}
	}
	pt.ok = p.nerr == errsBefore
	return pt
}

// inputs reads <inputs> (SPEC §9.2, §9.3).
func (p *parser) inputs(el *etree.Element, t *Template) {
	p.attrs(el)
	t.InputsDeclared = true
	t.Inputs = []Input{}
	seen := map[string]bool{}
	for _, c := range p.children(el, []string{"input"}, "input") {
		attrs := p.attrs(c, "name", "type", "required", "default")
		in := Input{Type: TypeAny, Required: true, Description: p.text(c, modeTrim)}
		a, ok := attrs.get("name")
		if !ok {
			p.errorf(p.off(c), "<input> is missing required attribute 'name'")
		} else {
			in.Name = a.value
			if !ValidInputName(a.value) {
				p.errorf(a.off, "invalid input name '%s': must match ^[A-Za-z_][A-Za-z0-9_-]*$", a.value)
			} else if seen[a.value] {
				p.errorf(a.off, "duplicate input '%s'", a.value)
				continue
			}
			seen[a.value] = true
		}
		typeOK := true
		if a, ok := attrs.get("type"); ok {
			typ, err := NormalizeType(a.value)
			if err != nil {
				p.badAttrValue(c, a, "string, int, float, number, bool, list, dict or any")
				typeOK = false
			} else {
				in.Type = typ
			}
		}
		if a, ok := attrs.get("required"); ok {
			switch a.value {
			case "true":
			case "false":
				in.Required = false
			default:
				p.badAttrValue(c, a, "true or false")
			}
		}
		if a, ok := attrs.get("default"); ok && typeOK {
			if v, expected := parseDefault(a.value, in.Type, in.Required); expected != "" {
				p.badAttrValue(c, a, expected)
			} else {
				in.Default = v
			}
		}
		if in.Name != "" {
			t.Inputs = append(t.Inputs, in)
		}
	}
}

// parseDefault reads the default of an input of type typ: the text itself
// for a string, else a JSON value (SPEC §5.6) that must match the type.
// On failure it returns what was expected.
func parseDefault(text, typ string, required bool) (value.Value, string) {
	if typ == TypeString {
		return value.String(text), ""
	}
	v, ok := simpleJSON(text)
	if !ok {
		var err error
		if v, err = value.ParseJSON(text); err != nil {
			return nil, "JSON (" + err.Error() + ")"
		}
	}
	if cv, ok := conformType(v, typ, required); ok {
		return cv, ""
	}
	return nil, typ + ", got " + v.Type()
}

// simpleJSON reads the commonest defaults, small integers, true, false and
// null, without a JSON decoder; ok is false for any other text.
func simpleJSON(text string) (value.Value, bool) {
	switch text {
	case "true":
		return value.Bool(true), true
	case "false":
		return value.Bool(false), true
	case "null":
		return value.Null{}, true
	}
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || len(digits) > 18 || (digits[0] == '0' && len(digits) > 1) {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return nil, false
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return value.Int(n), err == nil
}

// conformType checks v against an input type (SPEC §11.2 rule 4) and
// returns it converted (an int for a float input becomes a float).
func conformType(v value.Value, typ string, required bool) (value.Value, bool) {
	if _, isNull := v.(value.Null); isNull {
		return v, typ == TypeAny || !required
	}
	switch typ {
	case TypeAny:
		return v, true
	case TypeString:
		switch s := v.(type) {
		case value.String:
			return s, true
		case value.Symbol:
			return value.String(s), true
		}
	case TypeInt:
		_, ok := v.(value.Int)
		return v, ok
	case TypeFloat:
		switch n := v.(type) {
		case value.Int:
			return value.Float(n), true
		case value.Float:
			return n, true
		}
	case TypeNumber:
		switch v.(type) {
		case value.Int, value.Float:
			return v, true
		}
	case TypeBool:
		_, ok := v.(value.Bool)
		return v, ok
	case TypeList:
		_, ok := v.(value.List)
		return v, ok
	case TypeDict:
		_, ok := v.(*value.Dict)
		return v, ok
	}
	return nil, false
}

// outputFormat reads <output_format> and resolves its schema (SPEC §9.5).
func (p *parser) outputFormat(el *etree.Element, st *taskState) {
	attrs := p.attrs(el, "type", "schema")
	of := &OutputFormat{Type: "text"}
	st.t.OutputFormat = of
	typ, haveType := attrs.get("type")
	switch {
	case !haveType:
		p.errorf(p.off(el), "<output_format> is missing required attribute 'type'")
	case typ.value != "json" && typ.value != "text":
		p.badAttrValue(el, typ, "json or text")
	default:
		of.Type = typ.value
	}
	schemaAttr, haveAttr := attrs.get("schema")
	var schemaEl *etree.Element
	if cs := p.children(el, []string{"schema"}); len(cs) > 0 {
		schemaEl = cs[0]
	}
	if haveAttr && schemaEl != nil {
		p.errorf(p.off(schemaEl), "<output_format> has both a schema attribute and a <schema> element")
		return
	}
	if (haveAttr || schemaEl != nil) && haveType && typ.value == "text" {
		p.badAttrValue(el, typ, "json (a schema is given)")
		return
	}
	switch {
	case haveAttr:
		of.Schema = schemaAttr.value
		if schemaAttr.value == "" {
			p.badAttrValue(el, schemaAttr, "a schema name")
			return
		}
		sch, err := p.cfg.schemas.Resolve(schemaAttr.value)
		if err != nil {
			p.errorf(schemaAttr.off, "%s", err.Error())
			return
		}
		of.Compiled = sch
	case schemaEl != nil:
		text := p.textElem(schemaEl, modeTrim)
		of.InlineSchema = text
		if !p.nonEmpty(schemaEl, text) {
			return
		}
		sch, err := CompileSchema("", SchemaInline, text)
		if err != nil {
			var je *JSONError
			if errors.As(err, &je) {
				p.errorf(p.x.textOffset(schemaEl, modeTrim, je.Offset), "invalid JSON in <schema>: %s", je.Msg)
				return
			}
			p.errorf(p.off(schemaEl), "invalid JSON Schema in <schema>: %s",
				strings.TrimPrefix(err.Error(), "invalid JSON Schema: "))
			return
		}
		of.Compiled = sch
	}
}

// contextManagement reads <context_management> (SPEC §13.1).
func (p *parser) contextManagement(el *etree.Element, st *taskState) {
	p.attrs(el)
	cs := &st.t.Context
	for _, c := range p.children(el, []string{"inherit_context", "accumulate_data", "accumulation_format", "fresh_context"}) {
		switch c.FullTag() {
		case "inherit_context":
			cs.InheritContext = p.enumElem(c, "full", "subset", "none")
		case "accumulate_data":
			cs.AccumulateData = p.enumElem(c, "true", "false")
		case "accumulation_format":
			cs.AccumulationFormat = p.enumElem(c, "full_output", "notes_only")
		case "fresh_context":
			cs.FreshContext = p.enumElem(c, "enabled", "disabled")
			st.fresh = c
		}
	}
}

// filePathSources maps each source of <file_paths> to the child element it
// uses.
var filePathSources = map[string]string{
	"literal":             "path",
	"command":             "command",
	"description":         "description",
	"context_description": "context_query",
}

// filePaths reads <file_paths> (SPEC §9.2, §13.4).
func (p *parser) filePaths(el *etree.Element, st *taskState) {
	attrs := p.attrs(el, "source")
	fp := &FilePaths{Source: "literal"}
	st.t.FilePaths = fp
	sourceOK := true
	if a, ok := attrs.get("source"); ok {
		if _, known := filePathSources[a.value]; !known {
			p.badAttrValue(el, a, "literal, command, description or context_description")
			sourceOK = false
		} else {
			fp.Source = a.value
		}
	}
	want := filePathSources[fp.Source]
	found := false
	for _, c := range p.children(el, []string{"path", "command", "description", "context_query"}, "path") {
		name := c.FullTag()
		if sourceOK && name != want {
			src := ""
			for s, child := range filePathSources {
				if child == name {
					src = s
				}
			}
			p.errorf(p.off(c), "element <%s> requires source=\"%s\" in <file_paths>", name, src)
			continue
		}
		found = found || name == want
		switch name {
		case "path":
			s := p.textElem(c, modeTrim)
			p.nonEmpty(c, s)
			fp.Paths = append(fp.Paths, s)
			st.texts["path"] = append(st.texts["path"], placeholderText{c, modeTrim})
		case "command":
			fp.Command = p.textElem(c, modeDedent)
			p.nonEmpty(c, fp.Command)
			st.texts["paths_command"] = []placeholderText{{c, modeDedent}}
		case "description":
			fp.Description = p.textElem(c, modeDedent)
			p.nonEmpty(c, fp.Description)
		case "context_query":
			fp.ContextQuery = p.textElem(c, modeDedent)
			p.nonEmpty(c, fp.ContextQuery)
			st.texts["context_query"] = []placeholderText{{c, modeDedent}}
		}
	}
	if sourceOK && !found && want != "description" {
		p.errorf(p.off(el), "<file_paths source=\"%s\"> is missing required element <%s>", fp.Source, want)
	}
}

// command reads the template's <command> (SPEC §12.4).
func (p *parser) command(el *etree.Element, st *taskState) {
	attrs := p.attrs(el, "shell", "timeout", "fail_on_error")
	cmd := &Command{Shell: "sh", Timeout: 30 * time.Second, FailOnError: true}
	st.t.Command = cmd
	st.command = el
	if a, ok := attrs.get("shell"); ok {
		if strings.TrimSpace(a.value) == "" {
			p.badAttrValue(el, a, "a shell program")
		} else {
			cmd.Shell = a.value
		}
	}
	if a, ok := attrs.get("timeout"); ok {
		n, err := strconv.Atoi(a.value)
		if err != nil || n < 1 || n > 3600 {
			p.badAttrValue(el, a, "an integer from 1 to 3600")
		} else {
			cmd.Timeout = time.Duration(n) * time.Second
		}
	}
	if a, ok := attrs.get("fail_on_error"); ok {
		switch a.value {
		case "true":
		case "false":
			cmd.FailOnError = false
		default:
			p.badAttrValue(el, a, "true or false")
		}
	}
	cmd.Text = p.text(el, modeDedent)
	p.nonEmpty(el, cmd.Text)
	st.texts["command"] = []placeholderText{{el, modeDedent}}
}

// allowedTools reads <allowed_tools>.
func (p *parser) allowedTools(el *etree.Element, t *Template) {
	p.attrs(el)
	t.AllowedTools = []string{}
	for _, c := range p.children(el, []string{"tool"}, "tool") {
		name := p.textElem(c, modeTrim)
		switch {
		case !p.nonEmpty(c, name):
		case contains(t.AllowedTools, name):
			p.errorf(p.off(c), "duplicate tool '%s' in <allowed_tools>", name)
		case p.cfg.knownTools != nil && !p.cfg.knownTools(name):
			p.errorf(p.off(c), "unknown tool '%s' in <allowed_tools>", name)
		default:
			t.AllowedTools = append(t.AllowedTools, name)
		}
	}
}

// historyConfig reads <history_config> (SPEC §13.6).
func (p *parser) historyConfig(el *etree.Element, t *Template) {
	p.attrs(el)
	for _, c := range p.children(el, []string{"use_session_history", "history_turns_to_include", "record_in_session_history"}) {
		switch c.FullTag() {
		case "use_session_history":
			t.History.UseSessionHistory = p.boolElem(c)
		case "record_in_session_history":
			t.History.RecordInSessionHistory = p.boolElem(c)
		case "history_turns_to_include":
			s := p.textElem(c, modeTrim)
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				p.badElemValue(c, s, "an integer >= 1")
			} else {
				t.History.HistoryTurnsToInclude = &n
			}
		}
	}
}

// limits reads <limits> (SPEC §14.2).
func (p *parser) limits(el *etree.Element, t *Template) {
	attrs := p.attrs(el, "max_turns", "max_context_fraction")
	p.children(el, nil)
	if a, ok := attrs.get("max_turns"); ok {
		n, err := strconv.Atoi(a.value)
		if err != nil || n < 1 {
			p.badAttrValue(el, a, "an integer >= 1")
		} else {
			t.Limits.MaxTurns = n
		}
	}
	if a, ok := attrs.get("max_context_fraction"); ok {
		f, err := strconv.ParseFloat(a.value, 64)
		if err != nil || math.IsNaN(f) || !(f > 0 && f <= 1) {
			p.badAttrValue(el, a, "a number > 0 and <= 1")
		} else {
			t.Limits.MaxContextFraction = f
		}
	}
}
