// Package suggest finds the "did you mean" hints of evalrun's messages: the
// known name nearest to a misspelt one (SPEC §9.4, §12.1, §18).
//
//	suggest.Closest("uper", []string{"upper", "lower"}) // "upper"
//	suggest.Near("x", []string{"y"})                     // "": too short for a hint
//
// Near is the rule of the hints users see (docs/errors.md): no hint for a
// name of one or two characters, one edit for up to four, two beyond.
package suggest
