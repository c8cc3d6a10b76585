package jsonschema

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalrun/evalrun/value"
)

func mustParse(t testing.TB, text string) value.Value {
	t.Helper()
	v, err := value.ParseJSON(text)
	if err != nil {
		t.Fatalf("ParseJSON(%s): %v", text, err)
	}
	return v
}

func mustCompile(t testing.TB, text string) *Schema {
	t.Helper()
	s, err := CompileJSON(text)
	if err != nil {
		t.Fatalf("CompileJSON(%s): %v", text, err)
	}
	return s
}

func strs(vs []Violation) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}

// vcase is one validation: want lists the violations as "POINTER:
// message"; none means valid.
type vcase struct {
	schema, doc string
	want        []string
}

func ok(schema, doc string) vcase                  { return vcase{schema, doc, nil} }
func bad(schema, doc string, want ...string) vcase { return vcase{schema, doc, want} }

var keywordCases = map[string][]vcase{
	"type": {
		ok(`{"type": "integer"}`, `3`),
		ok(`{"type": "integer"}`, `3.0`),
		ok(`{"type": "integer"}`, `-0.0`),
		bad(`{"type": "integer"}`, `3.5`, "/: got number, want integer"),
		bad(`{"type": "integer"}`, `"3"`, "/: got string, want integer"),
		ok(`{"type": "number"}`, `3`),
		ok(`{"type": "number"}`, `3.5e10`),
		bad(`{"type": "number"}`, `true`, "/: got boolean, want number"),
		ok(`{"type": "string"}`, `""`),
		bad(`{"type": "string"}`, `null`, "/: got null, want string"),
		ok(`{"type": "boolean"}`, `false`),
		bad(`{"type": "boolean"}`, `0`, "/: got number, want boolean"),
		ok(`{"type": "null"}`, `null`),
		bad(`{"type": "null"}`, `{}`, "/: got object, want null"),
		ok(`{"type": "array"}`, `[]`),
		bad(`{"type": "array"}`, `{}`, "/: got object, want array"),
		ok(`{"type": "object"}`, `{}`),
		bad(`{"type": "object"}`, `[1]`, "/: got array, want object"),
		ok(`{"type": ["string", "null"]}`, `null`),
		bad(`{"type": ["string", "null"]}`, `1`, "/: got number, want string or null"),
		bad(`{"type": ["integer", "boolean", "null"]}`, `1.5`, "/: got number, want integer, boolean or null"),
		ok(`{"type": ["integer", "boolean", "null"]}`, `7`),
	},
	"enum": {
		ok(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `"a"`),
		ok(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `1.0`),
		ok(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `null`),
		ok(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `[1.0]`),
		ok(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `{"x": 1}`),
		bad(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `"b"`, `/: value must be one of "a", 1, null, [1], {"x":1}`),
		bad(`{"enum": ["a", 1, null, [1], {"x": 1}]}`, `{"x": 1, "y": 2}`, `/: value must be one of "a", 1, null, [1], {"x":1}`),
		bad(`{"enum": [0]}`, `false`, `/: value must be one of 0`),
		bad(`{"enum": []}`, `1`, `/: no value is allowed (enum is empty)`),
		bad(`{"properties": {"verdict": {"enum": ["approve", "changes"]}}}`, `{"verdict": "maybe"}`,
			`/verdict: value must be one of "approve", "changes"`),
	},
	"const": {
		ok(`{"const": {"a": [1, 2], "b": "x"}}`, `{"b": "x", "a": [1.0, 2]}`),
		bad(`{"const": {"a": [1, 2], "b": "x"}}`, `{"a": [2, 1], "b": "x"}`, `/: value must be {"a":[1,2],"b":"x"}`),
		bad(`{"const": 0}`, `false`, `/: value must be 0`),
		ok(`{"const": null}`, `null`),
		bad(`{"const": null}`, `0`, `/: value must be null`),
		ok(`{"const": 9007199254740993}`, `9007199254740993`),
		bad(`{"const": 9007199254740993}`, `9007199254740992.0`, `/: value must be 9007199254740993`),
	},
	"properties and required": {
		ok(`{"properties": {"a": {"type": "string"}}, "required": ["a", "b"]}`, `{"a": "x", "b": 1}`),
		bad(`{"properties": {"a": {"type": "string"}}, "required": ["a", "b"]}`, `{"a": 1}`,
			"/: missing required property 'b'", "/a: got number, want string"),
		bad(`{"required": ["issues"]}`, `{}`, "/: missing required property 'issues'"),
		ok(`{"properties": {"a": {"type": "string"}}, "required": ["a"]}`, `"not an object"`),
		bad(`{"properties": {"a": false}}`, `{"a": 1}`, "/: property 'a' is not allowed"),
		ok(`{"properties": {"a": false}}`, `{"b": 1}`),
		bad(`{"properties": {"a/b": {"type": "integer"}, "t~x": {"type": "boolean"}}}`, `{"a/b": "1", "t~x": null}`,
			"/a~1b: got string, want integer", "/t~0x: got null, want boolean"),
	},
	"additionalProperties": {
		bad(`{"properties": {"a": true}, "additionalProperties": false}`, `{"a": 1, "c": 3, "b": 2}`,
			"/: property 'b' is not allowed", "/: property 'c' is not allowed"),
		ok(`{"properties": {"a": true}, "additionalProperties": false}`, `{"a": 1}`),
		ok(`{"properties": {"a": true}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`,
			`{"a": "any", "x-1": "s", "n": 1}`),
		bad(`{"properties": {"a": true}, "patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`,
			`{"x-1": 2, "n": "s"}`, "/n: got string, want integer", "/x-1: got number, want string"),
		ok(`{"additionalProperties": true}`, `{"a": 1}`),
	},
	"patternProperties": {
		bad(`{"patternProperties": {"o": {"type": "null"}}}`, `{"foo": 1, "bar": 2}`, "/foo: got number, want null"),
		bad(`{"properties": {"foo": {"type": "number"}}, "patternProperties": {"^f": {"minimum": 10}}}`, `{"foo": 5}`,
			"/foo: 5 is less than the minimum 10"),
		bad(`{"patternProperties": {"^\\d+$": false}}`, `{"12": 1, "a1": 2}`, "/: property '12' is not allowed"),
	},
	"propertyNames": {
		ok(`{"propertyNames": {"pattern": "^[a-z]+$", "maxLength": 3}}`, `{"ab": 1}`),
		bad(`{"propertyNames": {"pattern": "^[a-z]+$", "maxLength": 3}}`, `{"ab": 1, "Abcd": 2}`,
			"/: property name 'Abcd': string does not match the pattern '^[a-z]+$'",
			"/: property name 'Abcd': string has 4 characters, more than the maximum 3"),
		ok(`{"propertyNames": false}`, `{}`),
		bad(`{"propertyNames": false}`, `{"a": 1}`, "/: property 'a' is not allowed"),
		bad(`{"properties": {"o": {"propertyNames": {"enum": ["x"]}}}}`, `{"o": {"y": 1}}`,
			`/o: property name 'y': value must be one of "x"`),
	},
	"minProperties and maxProperties": {
		bad(`{"minProperties": 2}`, `{"a": 1}`, "/: object has 1 property, fewer than the minimum 2"),
		bad(`{"minProperties": 2}`, `{}`, "/: object has 0 properties, fewer than the minimum 2"),
		ok(`{"minProperties": 2}`, `{"a": 1, "b": 2}`),
		bad(`{"maxProperties": 1}`, `{"a": 1, "b": 2}`, "/: object has 2 properties, more than the maximum 1"),
		ok(`{"maxProperties": 1}`, `{"a": 1}`),
		ok(`{"minProperties": 1}`, `[]`),
	},
	"dependentRequired and dependentSchemas": {
		ok(`{"dependentRequired": {"card": ["billing", "cvv"]}}`, `{"x": 1}`),
		ok(`{"dependentRequired": {"card": ["billing", "cvv"]}}`, `{"card": 1, "billing": 2, "cvv": 3}`),
		bad(`{"dependentRequired": {"card": ["billing", "cvv"]}}`, `{"card": 1, "cvv": 2}`,
			"/: missing property 'billing', required when 'card' is present"),
		bad(`{"dependentSchemas": {"a": {"required": ["b"]}}}`, `{"a": 1}`, "/: missing required property 'b'"),
		ok(`{"dependentSchemas": {"a": {"required": ["b"]}}}`, `{"c": 1}`),
	},
	"items and prefixItems": {
		bad(`{"items": {"type": "integer"}}`, `[1, 2, "x", 4.5]`, "/2: got string, want integer", "/3: got number, want integer"),
		ok(`{"items": {"type": "integer"}}`, `{"a": "not an array"}`),
		ok(`{"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}`, `["a", 1]`),
		ok(`{"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}`, `["a"]`),
		bad(`{"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false}`, `[1, "a", "extra"]`,
			"/: array has 3 items, more than the 2 allowed", "/0: got number, want string", "/1: got string, want number"),
		ok(`{"items": false}`, `[]`),
		bad(`{"items": false}`, `[1]`, "/: array has 1 item, but must be empty"),
		ok(`{"prefixItems": [{"const": "cmd"}], "items": {"type": "integer"}}`, `["cmd", 1, 2]`),
		bad(`{"prefixItems": [{"const": "cmd"}], "items": {"type": "integer"}}`, `["x", "y"]`,
			`/0: value must be "cmd"`, "/1: got string, want integer"),
		bad(`{"prefixItems": [true, false]}`, `[1, 2, 3]`, "/1: value is not allowed"),
	},
	"contains": {
		ok(`{"contains": {"type": "string"}}`, `[1, "a"]`),
		bad(`{"contains": {"type": "string"}}`, `[1, 2]`, "/: array has no item that matches the schema under 'contains'"),
		bad(`{"contains": {"type": "string"}}`, `[]`, "/: array has no item that matches the schema under 'contains'"),
		ok(`{"contains": {"const": 1}, "minContains": 2, "maxContains": 3}`, `[1, 1]`),
		bad(`{"contains": {"const": 1}, "minContains": 2, "maxContains": 3}`, `[1, 2]`,
			"/: array has 1 item matching 'contains', fewer than the minimum 2"),
		bad(`{"contains": {"const": 1}, "minContains": 2, "maxContains": 3}`, `[1, 1, 1, 1]`,
			"/: array has 4 items matching 'contains', more than the maximum 3"),
		ok(`{"contains": {"const": 1}, "minContains": 0}`, `[]`),
		ok(`{"maxContains": 0, "minContains": 5}`, `[1]`),
	},
	"minItems and maxItems": {
		bad(`{"minItems": 2}`, `[1]`, "/: array has 1 item, fewer than the minimum 2"),
		ok(`{"minItems": 2}`, `[1, 2]`),
		bad(`{"properties": {"steps": {"type": "array", "maxItems": 5}}}`, `{"steps": [1, 2, 3, 4, 5, 6, 7]}`,
			"/steps: array has 7 items, more than the maximum 5"),
		ok(`{"maxItems": 5.0}`, `[1, 2, 3, 4, 5]`),
	},
	"uniqueItems": {
		bad(`{"uniqueItems": true}`, `[1, 2, 1.0, {"a": 1, "b": [true]}, {"b": [true], "a": 1.0}]`,
			"/: items 0 and 2 are equal, but array items must be unique",
			"/: items 3 and 4 are equal, but array items must be unique"),
		ok(`{"uniqueItems": true}`, `[1, "1", true, [1], {"a": 1}, {"a": 2}, null, 1.5, [[1]]]`),
		ok(`{"uniqueItems": false}`, `[1, 1]`),
	},
	"minLength, maxLength and pattern": {
		bad(`{"minLength": 3}`, `"hé"`, "/: string has 2 characters, fewer than the minimum 3"),
		ok(`{"minLength": 3}`, `"héé"`),
		bad(`{"maxLength": 2}`, `"日本語"`, "/: string has 3 characters, more than the maximum 2"),
		ok(`{"maxLength": 2}`, `"日本"`),
		bad(`{"maxLength": 0}`, `"a"`, "/: string has 1 character, more than the maximum 0"),
		ok(`{"minLength": 3}`, `1`),
		ok(`{"pattern": "^\\d{3}$"}`, `"123"`),
		bad(`{"pattern": "^\\d{3}$"}`, `"12a"`, `/: string does not match the pattern '^\d{3}$'`),
		ok(`{"pattern": "b"}`, `"abc"`),
		ok(`{"pattern": "^a"}`, `5`),
	},
	"numbers": {
		bad(`{"minimum": 0}`, `-1`, "/: -1 is less than the minimum 0"),
		ok(`{"minimum": 0}`, `0`),
		bad(`{"maximum": 1}`, `1.5`, "/: 1.5 is more than the maximum 1"),
		ok(`{"maximum": 1}`, `1.0`),
		bad(`{"exclusiveMinimum": 0}`, `0`, "/: 0 is not more than the exclusive minimum 0"),
		ok(`{"exclusiveMinimum": 0}`, `0.1`),
		bad(`{"exclusiveMaximum": 5}`, `5.0`, "/: 5.0 is not less than the exclusive maximum 5"),
		ok(`{"exclusiveMaximum": 5}`, `4.99`),
		ok(`{"multipleOf": 0.1}`, `0.3`),
		bad(`{"multipleOf": 0.1}`, `0.35`, "/: 0.35 is not a multiple of 0.1"),
		bad(`{"multipleOf": 2}`, `7`, "/: 7 is not a multiple of 2"),
		ok(`{"multipleOf": 2}`, `4.0`),
		bad(`{"multipleOf": 2}`, `4.5`, "/: 4.5 is not a multiple of 2"),
		ok(`{"multipleOf": 1e-300}`, `1e300`),
		ok(`{"multipleOf": 2.5}`, `-10`),
		bad(`{"maximum": 9007199254740992.0}`, `9007199254740993`, "/: 9007199254740993 is more than the maximum 9007199254740992.0"),
		ok(`{"minimum": -9223372036854775808, "maximum": 9223372036854775807}`, `9223372036854775807`),
		bad(`{"minimum": 1e300}`, `9223372036854775807`, "/: 9223372036854775807 is less than the minimum 1e+300"),
		ok(`{"minimum": 5, "multipleOf": 3}`, `"1"`),
	},
	"allOf": {
		bad(`{"allOf": [{"type": "object"}, {"required": ["a"]}, {"required": ["b"]}]}`, `{}`,
			"/: missing required property 'a'", "/: missing required property 'b'"),
		bad(`{"allOf": [{"required": ["a"]}, {"required": ["a"]}]}`, `{}`, "/: missing required property 'a'"),
		ok(`{"allOf": [{"type": "object"}, {"required": ["a"]}]}`, `{"a": 1}`),
	},
	"anyOf": {
		ok(`{"anyOf": [{"type": "string"}, {"type": "null"}]}`, `"a"`),
		bad(`{"anyOf": [{"type": "string"}, {"type": "null"}]}`, `1`,
			"/: value does not match any anyOf alternative: [0] got number, want string; [1] got number, want null"),
		bad(`{"properties": {"x": {"anyOf": [{"required": ["a"]}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]}}}`,
			`{"x": {"b": 1}}`,
			"/x: value does not match any anyOf alternative: [0] missing required property 'a'; [1] /x/b: got number, want string"),
		bad(`{"anyOf": [{"required": ["a", "b", "c", "d", "e"]}, false]}`, `{}`,
			"/: value does not match any anyOf alternative: [0] missing required property 'a'; [0] missing required property 'b'; "+
				"[0] missing required property 'c'; [0] … and 2 more; [1] value is not allowed"),
	},
	"oneOf": {
		ok(`{"oneOf": [{"type": "integer"}, {"minimum": 2}]}`, `1`),
		ok(`{"oneOf": [{"type": "integer"}, {"minimum": 2}]}`, `2.5`),
		bad(`{"oneOf": [{"type": "integer"}, {"minimum": 2}]}`, `3`, "/: value matches oneOf alternatives 0 and 1, but must match exactly one"),
		bad(`{"oneOf": [true, {}, {"type": "number"}]}`, `3`, "/: value matches oneOf alternatives 0, 1 and 2, but must match exactly one"),
		bad(`{"oneOf": [{"type": "integer"}, {"minimum": 2}]}`, `1.5`,
			"/: value does not match any oneOf alternative: [0] got number, want integer; [1] 1.5 is less than the minimum 2"),
	},
	"not": {
		ok(`{"not": {"type": "string"}}`, `1`),
		bad(`{"not": {"type": "string"}}`, `"a"`, "/: value must not match the schema under 'not'"),
		ok(`{"not": false}`, `1`),
		bad(`{"not": true}`, `1`, "/: value must not match the schema under 'not'"),
	},
	"if, then, else": {
		ok(`{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, `{"kind": "a", "x": 1}`),
		bad(`{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, `{"kind": "a"}`,
			"/: missing required property 'x'"),
		bad(`{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, `{"kind": "b"}`,
			"/: missing required property 'y'"),
		bad(`{"if": {"properties": {"kind": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, `{}`,
			"/: missing required property 'x'"),
		ok(`{"if": false}`, `1`),
		ok(`{"then": false, "else": false}`, `1`),
		ok(`{"if": true, "else": false}`, `1`),
		bad(`{"if": true, "then": false}`, `1`, "/: value is not allowed"),
	},
	"boolean schemas": {
		ok(`true`, `{"anything": [1, null]}`),
		bad(`false`, `null`, "/: value is not allowed"),
		ok(`{}`, `1`),
		bad(`{"allOf": [true, false]}`, `1`, "/: value is not allowed"),
		bad(`{"properties": {"a": {"items": false}}}`, `{"a": [1, 2]}`, "/a: array has 2 items, but must be empty"),
		bad(`{"additionalProperties": {"items": [false]}}`, `{}`, "compile"),
	},
	"$ref": {
		bad(`{"$defs": {"pos": {"type": "integer", "minimum": 1}}, "properties": {"n": {"$ref": "#/$defs/pos"}}}`, `{"n": 0}`,
			"/n: 0 is less than the minimum 1"),
		bad(`{"definitions": {"s": {"type": "string"}}, "items": {"$ref": "#/definitions/s"}}`, `[1]`, "/0: got number, want string"),
		bad(`{"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}, "required": ["name"]}`,
			`{"name": "a", "children": [{"name": "b", "children": [{}]}]}`,
			"/children/0/children/0: missing required property 'name'"),
		ok(`{"$defs": {"a/b": {"const": 1}, "c~d": {"const": 2}, "e f": {"const": 3}, "%": {"const": 4}},
			"prefixItems": [{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/c~0d"}, {"$ref": "#/$defs/e%20f"}, {"$ref": "#/%24defs/%25"}]}`, `[1, 2, 3, 4]`),
		bad(`{"$defs": {"a/b": {"const": 1}, "c~d": {"const": 2}, "e f": {"const": 3}, "%": {"const": 4}},
			"prefixItems": [{"$ref": "#/$defs/a~1b"}, {"$ref": "#/$defs/c~0d"}, {"$ref": "#/$defs/e%20f"}, {"$ref": "#/%24defs/%25"}]}`, `[0, 0, 0, 0]`,
			"/0: value must be 1", "/1: value must be 2", "/2: value must be 3", "/3: value must be 4"),
		bad(`{"prefixItems": [{"type": "string"}, {"$ref": "#/prefixItems/0"}]}`, `["a", 1]`, "/1: got number, want string"),
		bad(`{"$defs": {"d": {"required": ["a"]}}, "$ref": "#/$defs/d", "type": "object"}`, `[]`, "/: got array, want object"),
		bad(`{"$defs": {"d": {"required": ["a"]}}, "$ref": "#/$defs/d", "type": "object"}`, `{}`, "/: missing required property 'a'"),
		bad(`{"x-defs": {"a": {"type": "string"}}, "$ref": "#/x-defs/a"}`, `1`, "/: got number, want string"),
		bad(`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/c"}, "c": {"type": "null"}}, "$ref": "#/$defs/a"}`, `1`,
			"/: got number, want null"),
		ok(`{"$defs": {"list": {"type": ["object", "null"], "properties": {"next": {"$ref": "#/$defs/list"}}}}, "$ref": "#/$defs/list"}`,
			`{"next": {"next": {"next": null}}}`),
	},
	"annotations and unknown keywords": {
		ok(`{"$id": "https://example.com/s", "$schema": "https://json-schema.org/draft/2020-12/schema", "$comment": "c",
			"title": "T", "description": "D", "default": 1, "examples": [1], "format": "email", "readOnly": true,
			"writeOnly": false, "deprecated": true}`, `"not an email"`),
		ok(`{"$id": 5, "title": [], "format": {}, "examples": 3, "x-custom": {"type": "nonsense"}, "unevaluatedProperties": false}`, `{"a": 1}`),
	},
}

func TestKeywords(t *testing.T) {
	for kw, cases := range keywordCases {
		for _, tt := range cases {
			t.Run(kw+" "+tt.schema+" "+tt.doc, func(t *testing.T) {
				if len(tt.want) == 1 && tt.want[0] == "compile" {
					if _, err := CompileJSON(tt.schema); err == nil {
						t.Fatal("compiled")
					}
					return
				}
				s := mustCompile(t, tt.schema)
				v := mustParse(t, tt.doc)
				got := strs(s.Validate(v))
				if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("Validate (-want +got):\n%s", diff)
				}
				if s.Valid(v) != (len(tt.want) == 0) {
					t.Errorf("Valid = %v", s.Valid(v))
				}
			})
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"$ref": "other.json"}`, "/$ref: remote $ref is not supported: other.json"},
		{`{"properties": {"a": {"$ref": "https://example.com/s.json#/x"}}}`,
			"/properties/a/$ref: remote $ref is not supported: https://example.com/s.json#/x"},
		{`{"$ref": ""}`, "/$ref: remote $ref is not supported: "},
		{`{"$ref": "#foo"}`, `/$ref: $ref "#foo" is not supported: only JSON-pointer fragments (#/...) are`},
		{`{"$ref": "#/$defs/nope"}`, `/$ref: $ref "#/$defs/nope" points to nothing: no "$defs" at /`},
		{`{"$defs": {}, "$ref": "#/$defs/nope"}`, `/$ref: $ref "#/$defs/nope" points to nothing: no "nope" at /$defs`},
		{`{"allOf": [true], "$ref": "#/allOf/1"}`, `/$ref: $ref "#/allOf/1" points to nothing: no item "1" at /allOf`},
		{`{"allOf": [true], "$ref": "#/allOf/01"}`, `/$ref: $ref "#/allOf/01" points to nothing: no item "01" at /allOf`},
		{`{"title": "t", "$ref": "#/title/x"}`, `/$ref: $ref "#/title/x" points to nothing: /title is a string`},
		{`{"$ref": "#/a~2"}`, `/$ref: $ref "#/a~2" has an invalid escape: ~ must be followed by 0 or 1`},
		{`{"$ref": "#/a%2"}`, `/$ref: $ref "#/a%2" has an invalid percent escape`},
		{`{"enum": [1], "$ref": "#/enum/0"}`, `/$ref: $ref "#/enum/0" points to a number, not to a schema`},
		{`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}`,
			"/$defs/a/$ref: $ref cycle that never moves into the value: #/$defs/a → #/$defs/b → #/$defs/a"},
		{`{"$ref": "#"}`, "/$ref: $ref cycle that never moves into the value: # → #"},
		{`{"allOf": [{"$ref": "#"}]}`, "/allOf/0/$ref: $ref cycle that never moves into the value: # → #/allOf/0 → #"},
		{`{"$defs": {"a": {"not": {"if": {"$ref": "#/$defs/a"}}}}}`,
			"/$defs/a/not/if/$ref: $ref cycle that never moves into the value: #/$defs/a → #/$defs/a/not → #/$defs/a/not/if → #/$defs/a"},
		{`{"$defs": {"a": {"dependentSchemas": {"x": {"$ref": "#/$defs/a"}}}}}`,
			"/$defs/a/dependentSchemas/x/$ref: $ref cycle that never moves into the value: #/$defs/a → #/$defs/a/dependentSchemas/x → #/$defs/a"},
		{`{"type": "thing"}`, `/type: unknown type "thing" (want array, boolean, integer, null, number, object or string)`},
		{`{"type": ["string", "thing"]}`, `/type/1: unknown type "thing" (want array, boolean, integer, null, number, object or string)`},
		{`{"type": ["string", "string"]}`, `/type: type "string" is listed twice`},
		{`{"type": []}`, "/type: must not be an empty array"},
		{`{"type": ["string", 1]}`, "/type/1: must be a type name (a string), not a number"},
		{`{"type": 5}`, "/type: must be a type name or an array of type names, not a number"},
		{`{"minLength": -1}`, "/minLength: must be a non-negative integer, not a number"},
		{`{"maxItems": 1.5}`, "/maxItems: must be a non-negative integer, not a number"},
		{`{"minItems": "2"}`, "/minItems: must be a non-negative integer, not a string"},
		{`{"minimum": "0"}`, "/minimum: must be a number, not a string"},
		{`{"exclusiveMinimum": true}`, "/exclusiveMinimum: must be a number, not a boolean"},
		{`{"multipleOf": 0}`, "/multipleOf: must be greater than 0, not 0"},
		{`{"multipleOf": -1.5}`, "/multipleOf: must be greater than 0, not -1.5"},
		{`{"pattern": "(?=a)"}`, "/pattern: invalid pattern (Go RE2 syntax): error parsing regexp: invalid or unsupported Perl syntax: `(?=`"},
		{`{"pattern": 1}`, "/pattern: must be a string, not a number"},
		{`{"patternProperties": {"a(": {}}}`, "/patternProperties/a(: invalid pattern (Go RE2 syntax): error parsing regexp: missing closing ): `a(`"},
		{`{"required": "a"}`, "/required: must be an array of strings, not a string"},
		{`{"required": ["a", 1]}`, "/required/1: must be a string, not a number"},
		{`{"properties": []}`, "/properties: must be an object, not an array"},
		{`{"properties": {"a/b": 1}}`, "/properties/a~1b: a schema must be an object or a boolean, not a number"},
		{`{"allOf": []}`, "/allOf: must not be an empty array"},
		{`{"anyOf": {}}`, "/anyOf: must be a non-empty array of schemas, not an object"},
		{`{"items": [{}]}`, "/items: must be a schema (JSON Schema 2020-12); a list of schemas for the first items is prefixItems"},
		{`{"uniqueItems": 1}`, "/uniqueItems: must be a boolean, not a number"},
		{`{"enum": 1}`, "/enum: must be an array, not a number"},
		{`{"$ref": 1}`, "/$ref: must be a string, not a number"},
		{`{"dependentRequired": {"a": "b"}}`, "/dependentRequired/a: must be an array of strings, not a string"},
		{`{"$defs": {"unused": {"minimum": "x"}}}`, "/$defs/unused/minimum: must be a number, not a string"},
		{`5`, "/: a schema must be an object or a boolean, not a number"},
		{`null`, "/: a schema must be an object or a boolean, not null"},
		{`[]`, "/: a schema must be an object or a boolean, not an array"},
		{`{"not": "x"}`, "/not: a schema must be an object or a boolean, not a string"},
		{`{"type": "x", "properties": {"a": {"minimum": "y"}}, "maxLength": -2}`,
			`/type: unknown type "x" (want array, boolean, integer, null, number, object or string); ` +
				`/properties/a/minimum: must be a number, not a string; /maxLength: must be a non-negative integer, not a number`},
	}
	for _, tt := range tests {
		_, err := CompileJSON(tt.schema)
		var ce *CompileError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v, want a *CompileError", tt.schema, err)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.schema, err, tt.want)
		}
		doc := mustParse(t, tt.schema)
		for _, p := range ce.Problems {
			if _, _, e := lookup(doc, p.Pointer); e != "" {
				t.Errorf("%s: problem pointer %q is not in the schema: %s", tt.schema, p.Pointer, e)
			}
		}
	}
	if _, err := CompileJSON(`{"type": `); err == nil || err.Error() != "invalid JSON: unexpected end of JSON input" {
		t.Errorf("CompileJSON(bad JSON) = %v", err)
	}
}

// TestCompileValid lists schemas that must compile, among them references
// that come back to a schema only after moving into the value.
func TestCompileValid(t *testing.T) {
	for _, s := range []string{
		`{"items": {"$ref": "#"}}`,
		`{"properties": {"next": {"$ref": "#"}}}`,
		`{"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}, {"type": "null"}]}, "b": {"items": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}`,
		`{"contains": {"$ref": "#"}, "propertyNames": {"$ref": "#/$defs/n"}, "$defs": {"n": {"maxLength": 3}}}`,
		`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/c"}, "c": true}, "allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}`,
		`{"maxItems": 1e30, "minLength": 0, "maxLength": 5.0}`,
		`{"properties": {"~": {"items": {"$ref": "#/properties/~0"}}}}`,
	} {
		if _, err := CompileJSON(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	if _, err := CompileJSON(`{"properties": {"~": {"$ref": "#/properties/~0"}}}`); err == nil ||
		!strings.Contains(err.Error(), "cycle") {
		// A property schema that refers to itself is a cycle without
		// progress.
		t.Errorf("self-referring property: %v", err)
	}
}

func TestCompileDepth(t *testing.T) {
	deep := strings.Repeat(`{"not": `, maxCompileDepth+5) + "true" + strings.Repeat("}", maxCompileDepth+5)
	_, err := CompileJSON(deep)
	if err == nil || !strings.Contains(err.Error(), "schemas are nested more than 1000 levels deep") {
		t.Errorf("deep schema: %v", err)
	}
	ok := strings.Repeat(`{"not": `, 100) + "true" + strings.Repeat("}", 100)
	s := mustCompile(t, ok)
	if !s.Valid(value.Int(1)) {
		t.Errorf("100 nots (even) of true should accept")
	}
}

// TestHostValues checks the JSON mapping of values that JSON text cannot
// produce.
func TestHostValues(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "properties": {
		"sym": {"const": "abc"}, "syms": {"items": {"enum": ["x"]}, "uniqueItems": true},
		"nan": {"type": "null"}, "inf": {"type": "null"}, "nil": {"type": "null"},
		"r": {"type": "object", "required": ["status", "content", "parsedContent", "notes"],
		      "properties": {"status": {"const": "COMPLETE"}, "parsedContent": {"type": "object"}}},
		"f": {"type": "integer"}}}`)
	v := value.DictOf(
		"sym", value.Symbol("abc"),
		"syms", value.List{value.Symbol("x"), value.String("x")},
		"nan", value.Float(math.NaN()),
		"inf", value.Float(math.Inf(-1)),
		"r", &value.TaskResult{Status: value.StatusComplete, Content: "c", Parsed: value.DictOf("a", value.Int(1))},
		"f", value.Float(2),
	)
	v.Set("nil", nil)
	want := []string{"/syms: items 0 and 1 are equal, but array items must be unique"}
	if diff := cmp.Diff(want, strs(s.Validate(v))); diff != "" {
		t.Errorf("Validate (-want +got):\n%s", diff)
	}
	var nilDict *value.Dict
	if got := strs(mustCompile(t, `{"type": "object", "required": ["a"]}`).Validate(nilDict)); len(got) != 1 || got[0] != "/: missing required property 'a'" {
		t.Errorf("nil dict: %v", got)
	}
	if got := strs(mustCompile(t, `{"type": "array", "minItems": 1}`).Validate(value.List(nil))); len(got) != 1 {
		t.Errorf("nil list: %v", got)
	}
}

// TestOrder checks that violations are sorted by pointer, array indices in
// numeric order, a pointer before those below it, then by message.
func TestOrder(t *testing.T) {
	s := mustCompile(t, `{"required": ["z"], "properties": {"a": {"items": {"type": "string", "required": ["k"]}}, "b": {"minimum": 5, "multipleOf": 3}}}`)
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprint(i))
	}
	v := mustParse(t, `{"b": 1, "a": [`+strings.Join(items, ",")+`]}`)
	got := strs(s.Validate(v))
	want := []string{"/: missing required property 'z'"}
	for i := range 12 {
		want = append(want, fmt.Sprintf("/a/%d: got number, want string", i))
	}
	want = append(want, "/b: 1 is less than the minimum 5", "/b: 1 is not a multiple of 3")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "/a", -1}, {"/a", "/a/b", -1}, {"/a/b", "/a", 1}, {"/2", "/10", -1}, {"/10", "/9/x", 1},
		{"/a", "/b", -1}, {"/a~1b", "/a~1b", 0}, {"/x/02", "/x/1", 1}, {"/", "/a", -1}, {"/", "", 1},
	} {
		if got := comparePointers(c.a, c.b); got != c.want {
			t.Errorf("comparePointers(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestUniqueItemsLarge checks uniqueItems on arrays long enough to be
// compared through their canonical texts.
func TestUniqueItemsLarge(t *testing.T) {
	s := mustCompile(t, `{"uniqueItems": true}`)
	var items []string
	for i := range 40 {
		items = append(items, fmt.Sprintf(`{"n": %d, "s": "%d"}`, i, i))
	}
	if got := s.Validate(mustParse(t, "["+strings.Join(items, ",")+"]")); got != nil {
		t.Errorf("distinct items: %v", got)
	}
	items = append(items, `{"s": "7", "n": 7.0}`, `1`, `1.0`, `"1"`, `[1, 2]`, `[2, 1]`, `[1.0, 2.0]`,
		`9007199254740993`, `9007199254740992.0`, `1e300`, `1e300`, `0.5`, `null`, `true`, `false`, `{"a": "b1:"}`, `{"a": "b", "1:": 1}`)
	got := strs(s.Validate(mustParse(t, "["+strings.Join(items, ",")+"]")))
	want := []string{
		"/: items 41 and 42 are equal, but array items must be unique",
		"/: items 44 and 46 are equal, but array items must be unique",
		"/: items 49 and 50 are equal, but array items must be unique",
		"/: items 7 and 40 are equal, but array items must be unique",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
}

// TestLimits checks that validation stops, with one violation, when a value
// is nested deeper than maxDepth schema applications or needs more than
// maxSteps of them.
func TestLimits(t *testing.T) {
	defer func(d, s int) { maxDepth, maxSteps = d, s }(maxDepth, maxSteps)
	tree := mustCompile(t, `{"items": {"$ref": "#"}, "type": "array"}`)
	nested := mustParse(t, strings.Repeat("[", 30)+strings.Repeat("]", 30))
	if got := tree.Validate(nested); got != nil {
		t.Errorf("30 levels: %v", got)
	}
	maxDepth = 20
	got := tree.Validate(nested)
	if len(got) != 1 || got[0].Message != "validation stopped: the schema applies more than 20 levels deep here" ||
		got[0].Pointer != "/0/0/0/0/0/0/0/0/0/0" {
		t.Errorf("depth limit: %v", got)
	}
	if tree.Valid(nested) {
		t.Errorf("Valid past the depth limit")
	}
	maxDepth = 2000

	// Both alternatives fail at the innermost item, so every level tries
	// both: 2^25 schema applications without the limit.
	exp := mustCompile(t, `{"$defs": {"a": {"anyOf": [{"type": "array", "items": {"$ref": "#/$defs/a"}}, {"type": "array", "items": {"$ref": "#/$defs/a"}}]}}, "$ref": "#/$defs/a"}`)
	deep := mustParse(t, strings.Repeat("[", 25)+`"x"`+strings.Repeat("]", 25))
	maxSteps = 10000
	got = exp.Validate(deep)
	if len(got) != 1 || got[0].Message != "validation stopped: checking this value takes more than 10000 schema applications" {
		t.Errorf("step limit: %v", got)
	}
	if exp.Valid(deep) {
		t.Errorf("Valid past the step limit")
	}
	shallow := mustParse(t, `[["x"]]`)
	if got := strs(exp.Validate(shallow)); len(got) != 1 || !strings.HasPrefix(got[0], "/: value does not match any anyOf alternative: [0] /0: value does not match") {
		t.Errorf("shallow: %v", got)
	}
	maxSteps = 1 << 22

	// Explanations of nested alternatives are cut, so messages stay short.
	s := mustCompile(t, strings.Repeat(`{"anyOf": [{"type": "null"}, {"required": ["a", "b", "c", "d"]}, `, 12)+
		"false"+strings.Repeat("]}", 12))
	got = s.Validate(mustParse(t, `{}`))
	if len(got) != 1 || len(got[0].Message) > 2000 || !strings.Contains(got[0].Message, "…") {
		t.Errorf("nested anyOf: %d violations, message of %d bytes", len(got), len(got[0].Message))
	}
	if got := shorten("aé", 2); got != "a…" {
		t.Errorf("shorten = %q", got)
	}
}

// TestConcurrent validates with one schema from many goroutines (run with
// -race).
func TestConcurrent(t *testing.T) {
	s := mustCompile(t, `{"type": "object", "required": ["a"], "properties": {"b": {"pattern": "^x", "anyOf": [{"minLength": 3}, {"maxLength": 1}]}}}`)
	v := mustParse(t, `{"b": "yy"}`)
	want := strs(s.Validate(v))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if got := strs(s.Validate(v)); !cmp.Equal(got, want) {
					t.Errorf("got %v", got)
					return
				}
			}
		})
	}
	wg.Wait()
}
