package value

import "strings"

// Text renders v as prompt text (SPEC §5.7), the one rule used by placeholder
// substitution, to-string, string-join, log-message and render: a string is
// itself, a symbol its name, a number its printed form, a bool true/false,
// null the empty string, a list or dict its compact JSON, a TaskResult its
// content, a closure its printed form. A list or dict whose JSON would
// exceed MaxRenderBytes renders as the JSON string TooLarge.
func Text(v Value) string {
	switch v := v.(type) {
	case String:
		return string(v)
	case Symbol:
		return string(v)
	case Null, nil:
		return ""
	case List, *Dict:
		return JSON(v)
	case *TaskResult:
		return v.Content
	}
	return v.String()
}

// WriteText appends Text(v) to b.
func WriteText(b *strings.Builder, v Value) {
	switch v := v.(type) {
	case String:
		b.WriteString(string(v))
	case List, *Dict:
		writeJSONBounded(b, v, "", "")
	default:
		b.WriteString(Text(v))
	}
}
