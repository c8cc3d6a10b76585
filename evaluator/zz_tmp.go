package evaluator

import (
	"github.com/evalrun/evalrun/templates"
	"github.com/evalrun/evalrun/value"
)

func parseContextArg(task string, v value.Value) (templates.ContextSettings, error) {
	return templates.ContextSettings{}, nil
}
func parseHistoryArg(task string, v value.Value) (templates.HistoryConfig, error) {
	return templates.HistoryConfig{}, nil
}
