// Package jsonschema is a small JSON Schema (draft 2020-12) validator for
// the output schemas of evalrun's templates (SPEC §9.5, §14.8).
//
// # Why it exists
//
// evalrun used github.com/santhosh-tekuri/jsonschema/v6, whose package
// initialisation compiles every meta-schema of every draft: about 79 ms and
// 21,000 allocations at the start of every evalrun process, whatever the
// command, since Go initialises every linked package. v5 still costs 1.7 ms
// and 8,500 allocations; github.com/google/jsonschema-go is cheap but reports
// only the first violation, while notes.schemaError lists every violation as
// "JSON-POINTER: message". This package has:
//
//   - zero initialisation cost: no package-level state is computed at start;
//     a schema is compiled only when Compile is called;
//   - every violation, each with the JSON pointer (RFC 6901) of the offending
//     part of the instance and a message written for the person or model
//     that produced it (Violation);
//   - no remote references: a $ref must point inside the schema document, so
//     compiling a schema never reads a file or the network.
//
// Schema documents and instances are value.Value trees as value.ParseJSON
// builds them. An instance may also hold symbols (validated as strings),
// task results (as their JSON objects) and non-finite floats (as null),
// following the JSON mapping of SPEC §5.6.
//
// # Keywords
//
// Assertions: type (an int, or a float without fraction, is an integer),
// enum, const, properties, required, additionalProperties,
// patternProperties, propertyNames, minProperties, maxProperties,
// dependentRequired, dependentSchemas, prefixItems, items (its 2020-12
// meaning: the items after prefixItems), contains, minContains, maxContains,
// minItems, maxItems, uniqueItems, minLength, maxLength (in code points),
// pattern (unanchored), minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf (exact, on the shortest decimal form of the
// numbers), allOf, anyOf, oneOf, not, if/then/else and $ref, next to which
// the other keywords of a schema still apply. Boolean schemas true and false
// are schemas. Numbers and enum/const/uniqueItems equality follow JSON: 1
// equals 1.0, object key order does not matter.
//
// $ref takes a JSON pointer fragment of the same document: "#",
// "#/$defs/x", "#/definitions/x", with the escapes ~0 and ~1 and percent
// encoding. Anything not starting with '#' is refused ("remote $ref is not
// supported: URL"), as are plain-name fragments ("#name"). A chain of
// references that comes back to where it started without moving into the
// instance (a → b → a, or a schema that refers to itself through allOf) is a
// compile error, and validation depth and work are bounded, so no schema can
// make Validate loop or recurse without end.
//
// Annotations, accepted and ignored: $id, $schema, $comment, $defs and
// definitions (their schemas are compiled and checked), title, description,
// default, examples, format (not asserted), readOnly, writeOnly, deprecated.
// Keywords this package does not know are ignored, as the specification
// allows for unknown keywords; among them unevaluatedProperties,
// unevaluatedItems, $anchor, $dynamicRef and the draft-07 forms
// (dependencies, additionalItems). $id does not change the base of
// references: "#..." always means the whole document.
//
// # Differences from a full implementation
//
// pattern and patternProperties use Go's regexp (RE2) syntax, not ECMA-262: a
// pattern Go cannot compile (a lookahead, a backreference) is a compile error
// naming its pointer. A schema is not validated against the meta-schema;
// instead every keyword this package applies checks its own value (type
// names, non-negative integers, schemas where schemas belong), and the
// problems are reported together with the JSON pointer into the schema
// (CompileError).
package jsonschema
