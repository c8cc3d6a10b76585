package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/evalrun/evalrun/engine"
)

// initCmd is "evalrun init [DIR]".
type initCmd struct {
	Dir string `arg:"" optional:"" name:"dir" default:"." help:"The project directory (default: the working directory)."`
}

// Run implements "evalrun init": it creates DIR/.evalrun with a commented
// configuration, a first template and a .gitignore, and refuses to
// overwrite any of them (exit 2).
func (c *initCmd) Run(a *app) error {
	created, err := engine.Init(c.Dir)
	for _, p := range created {
		fmt.Fprintf(a.stdout, "created %s\n", filepath.ToSlash(filepath.Join(c.Dir, p)))
	}
	if err != nil {
		a.errorf("%v", err)
		if errors.Is(err, engine.ErrInitExists) {
			return exit(exitUsage)
		}
		return exit(exitEval)
	}
	next := "evalrun task hello --set name=Ada"
	if filepath.Clean(c.Dir) != "." {
		next = "cd " + c.Dir + " && " + next
	}
	fmt.Fprintln(a.stdout, "next: "+next)
	return nil
}
