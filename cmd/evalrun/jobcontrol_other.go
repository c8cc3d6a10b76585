//go:build !unix

package main

import "github.com/evalrun/evalrun/engine"

// watchJobControl does nothing where there is no job control.
func watchJobControl(p *engine.Progress) (stop func()) { return func() {} }
