package tasksystem

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/evalrun/evalrun/agent"
)

// UTD is a text in the Unified Template Design of start, used by roles and
// contexts (SPEC §22.4, §22.5): a file, a command and a prompt with the
// placeholders {file}, {file_contents}, {command}, {command_output},
// {date} and {model}. The text is the prompt after substitution, else the
// file's contents, else the command's output.
type UTD struct {
	// File is a path; "~/" is the home directory, a relative path is
	// relative to the project root.
	File string
	// Command runs as SHELL -c COMMAND in the project root.
	Command string
	Shell   string
	// Timeout limits Command; 0 means DefaultCommandTimeout.
	Timeout time.Duration
	Prompt  string
}

// UTDVars are the values of a UTD text's placeholders that do not come
// from the text itself.
type UTDVars struct {
	Date, Model string
	// Root is the project root, Home the home directory.
	Root, Home string
}

// ErrUTDFileMissing is wrapped by ResolveUTD's error when the file does not
// exist, so that a context can be skipped with a warning (SPEC §22.5).
var ErrUTDFileMissing = errors.New("file not found")

var utdPlaceholder = regexp.MustCompile(`\{(file|file_contents|command|command_output|date|model)\}`)

// ResolveUTD computes a UTD text. The file is read when the prompt uses
// {file_contents} or there is no prompt; the command runs when the prompt
// uses {command_output} or there is neither prompt nor file. A command that
// fails (non-zero exit, timeout) is an error with reason
// tool_execution_error (a *failure).
func ResolveUTD(ctx context.Context, u UTD, v UTDVars) (string, error) {
	path := agent.ExpandHome(u.File, v.Home)
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(v.Root, path)
	}
	needFile := u.File != "" && (u.Prompt == "" || strings.Contains(u.Prompt, "{file_contents}"))
	needCmd := u.Command != "" && (strings.Contains(u.Prompt, "{command_output}") || u.Prompt == "" && u.File == "")
	var contents, output string
	if needFile {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", u.File, ErrUTDFileMissing)
		}
		if err != nil {
			return "", fmt.Errorf("cannot read %s: %w", u.File, err)
		}
		contents = string(data)
	}
	if needCmd {
		res, err := shellCommand{shell: u.Shell, text: u.Command, dir: v.Root, timeout: u.Timeout}.run(ctx)
		switch {
		case errors.Is(err, errCommandTimeout):
			return "", fail(ReasonToolExecution, "command "+u.Command+": "+commandTimeoutMessage(u.Timeout))
		case err != nil:
			return "", fail(ReasonToolExecution, "cannot run command "+u.Command+": "+err.Error())
		case res.status != 0:
			return "", fail(ReasonToolExecution, commandExitMessage(res))
		}
		output = res.output
	}
	if u.Prompt == "" {
		if u.File != "" {
			return contents, nil
		}
		return output, nil
	}
	vals := map[string]string{"file": path, "file_contents": contents, "command": u.Command,
		"command_output": output, "date": v.Date, "model": v.Model}
	return utdPlaceholder.ReplaceAllStringFunc(u.Prompt, func(m string) string { return vals[m[1:len(m)-1]] }), nil
}
