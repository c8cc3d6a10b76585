// Package suggest finds the "did you mean" hints of evalrun's messages: the
// known name nearest to a misspelt one (SPEC §9.4, §12.1, §18).
//
//	suggest.Closest("uper", []string{"upper", "lower"}) // "upper"
package suggest
