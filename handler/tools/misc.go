package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/evalrun/evalrun/handler"
	"io"
	"os"
	"strings"

	"github.com/evalrun/evalrun/value"
)

// getContext implements system_get_context (SPEC §14.4, §15.4) through the
// configured ContextRetriever.
func (t *Tools) getContext(ctx context.Context, params *value.Dict) *value.TaskResult {
	if t.cfg.Context == nil {
		return value.Failed(handler.ReasonConfiguration, ToolGetContext+" is not available: "+errNoMemory, nil)
	}
	query, _ := paramString(params, "query")
	topK := 0
	if n, ok := paramNumber(params, "top_k"); ok {
		if n < 1 {
			return value.Failed(handler.ReasonInputValidation, fmt.Sprintf(
				"Parameter 'top_k' of tool '%s' must be at least 1, got %d", ToolGetContext, int64(n)), nil)
		}
		topK = int(n)
	}
	res := t.cfg.Context.ContextTool(ctx, query, topK)
	if ctx.Err() != nil {
		return value.Failed(handler.ReasonExecutionHalted, "cancelled", nil)
	}
	if res == nil {
		return value.Failed(handler.ReasonUnexpected, ToolGetContext+": the memory returned no result", nil)
	}
	return res
}

// interactive reports whether request_user_input can be offered.
func (t *Tools) interactive() bool {
	if t.cfg.Interactive != nil {
		return t.cfg.Interactive()
	}
	return IsTerminal(os.Stdin) && IsTerminal(os.Stderr)
}

// IsTerminal reports whether f (an *os.File reader or writer) is a
// terminal: a character device other than the null device.
func IsTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	info, err := file.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(info, null) {
		return false
	}
	return true
}

// userInput implements request_user_input: the prompt goes to stderr
// (followed by a space unless it ends in white space) and the answer is the
// next line of stdin without its line ending. Calls are serialized.
func (t *Tools) userInput(ctx context.Context, params *value.Dict) *value.TaskResult {
	prompt, _ := paramString(params, "prompt")
	type answer struct {
		line string
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		t.stdinMu.Lock()
		defer t.stdinMu.Unlock()
		if ctx.Err() != nil {
			done <- answer{err: ctx.Err()}
			return
		}
		if t.stdin == nil {
			var in io.Reader = os.Stdin
			if t.cfg.Stdin != nil {
				in = t.cfg.Stdin
			}
			t.stdin = bufio.NewReader(in)
		}
		var out io.Writer = os.Stderr
		if t.cfg.Stderr != nil {
			out = t.cfg.Stderr
		}
		text := prompt
		if text != "" && !strings.HasSuffix(text, " ") && !strings.HasSuffix(text, "\n") {
			text += " "
		}
		io.WriteString(out, text)
		line, err := t.stdin.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		done <- answer{strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), err}
	}()
	select {
	case <-ctx.Done():
		return value.Failed(handler.ReasonExecutionHalted, "cancelled", nil)
	case a := <-done:
		switch {
		case errors.Is(a.err, io.EOF):
			return value.Failed(handler.ReasonToolExecution, "no input: end of file", nil)
		case a.err != nil && ctx.Err() != nil:
			return value.Failed(handler.ReasonExecutionHalted, "cancelled", nil)
		case a.err != nil:
			return value.Failed(handler.ReasonToolExecution, "cannot read input: "+a.err.Error(), nil)
		}
		return complete(a.line, value.NewDict(0))
	}
}
