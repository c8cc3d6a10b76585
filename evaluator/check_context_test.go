package evaluator_test

import (
	"context"

	"github.com/evalrun/evalrun/evaluator"
	"github.com/evalrun/evalrun/value"
)

// The check fakes never run lookups; GetContext completes their Tasks
// (inputTasks embeds checkTasks).

func (checkTasks) GetContext(context.Context, evaluator.ContextQuery) *value.Dict {
	return evaluator.NoMemory()
}
