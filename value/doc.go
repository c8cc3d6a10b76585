// Package value is evalrun's value model: the types a workflow computes with
// (int, float, bool, string, symbol, list, null, dict, task-result), their
// truthiness, structural equality, canonical printed form, JSON mapping and
// rendering as prompt text (SPEC §5).
//
// It is a leaf package shared by the evaluator, the template renderer, the task
// system and the journal, so that a TaskResult or a placeholder value means the
// same thing everywhere. Closures live in the evaluator, which implements the
// Value interface for them.
//
// Values are immutable: no function here modifies a List, a Dict or a
// TaskResult that has been handed out; Dict.With and friends return copies.
//
//	v, _ := value.ParseJSON(`{"a": [1, 2.5]}`)
//	fmt.Println(v)                 // (dict "a" (1 2.5))
//	fmt.Println(value.Text(v))     // {"a":[1,2.5]}
package value
