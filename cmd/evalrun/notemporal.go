//go:build !temporal

package main

// temporalSupport says whether this evalrun was built with the temporal
// tag, which links the Temporal SDK (docs/temporal.md). Without it the
// worker command and the --temporal flags of run and status are refused
// with a usage error: the SDK's packages would make every evalrun process
// start more slowly.
const temporalSupport = false

// errNoTemporal is the usage error of the Temporal commands in a build
// without the temporal tag.
const errNoTemporal = "this evalrun was built without Temporal support; build it with: go build -tags temporal ./cmd/evalrun"

// worker refuses "evalrun worker": this build has no Temporal support.
func (a *app) worker(*workerCmd) int {
	a.errorf("%s", errNoTemporal)
	return exitUsage
}

// runTemporal refuses "evalrun run --temporal": this build has no Temporal
// support.
func (a *app) runTemporal(*runCmd) int {
	a.errorf("%s", errNoTemporal)
	return exitUsage
}

// statusTemporal refuses "evalrun status --temporal": this build has no
// Temporal support.
func (a *app) statusTemporal(temporalFlags, string, bool, bool) int {
	a.errorf("%s", errNoTemporal)
	return exitUsage
}

// runsTemporal refuses "evalrun runs --temporal": this build has no
// Temporal support.
func (a *app) runsTemporal(temporalFlags, bool) int {
	a.errorf("%s", errNoTemporal)
	return exitUsage
}
