package config

import (
	"net"
	"strconv"
	"strings"
)

// The defaults of the [temporal] section, the same as the flags'
// (docs/temporal.md).
const (
	DefaultTemporalNamespace = "default"
	DefaultTemporalTaskQueue = "evalrun"
)

// Temporal is the [temporal] section: where runs on Temporal go when the
// flags of evalrun worker, run and status do not say (docs/temporal.md).
// A flag given on the command line wins over the key. Reading the section
// needs no Temporal support: an evalrun built without it reads and checks
// the section but still refuses the Temporal commands.
type Temporal struct {
	// Address is the Temporal frontend's HOST:PORT; "" means none is
	// configured.
	Address string
	// Namespace is the Temporal namespace (default "default").
	Namespace string
	// TaskQueue is the task queue of workflows and activities (default
	// "evalrun").
	TaskQueue string
}

type rawTemporal struct {
	Address   *string `toml:"address"`
	Namespace *string `toml:"namespace"`
	TaskQueue *string `toml:"task_queue"`
}

// overlayTemporal merges a file's [temporal] section key by key.
func (m *merger) overlayTemporal(raw *rawTemporal) {
	if raw == nil {
		return
	}
	t := &m.cfg.Temporal
	setString(&t.Address, raw.Address)
	setString(&t.Namespace, raw.Namespace)
	setString(&t.TaskQueue, raw.TaskQueue)
}

// validateTemporal checks a file's [temporal] section: address is
// HOST:PORT with a port from 1 to 65535, namespace and task_queue are not
// empty.
func (f *file) validateTemporal(raw *rawTemporal) ErrorList {
	if raw == nil {
		return nil
	}
	var errs ErrorList
	if a := raw.Address; a != nil {
		if err := checkHostPort(*a); err != "" {
			errs = append(errs, f.errorAt([]string{"temporal", "address"}, "temporal.address: invalid address %q: %s", *a, err))
		}
	}
	for _, k := range []struct {
		key string
		v   *string
	}{{"namespace", raw.Namespace}, {"task_queue", raw.TaskQueue}} {
		if k.v != nil && strings.TrimSpace(*k.v) == "" {
			errs = append(errs, f.errorAt([]string{"temporal", k.key}, "temporal.%s: must not be empty", k.key))
		}
	}
	return errs
}

// checkHostPort says what is wrong with a HOST:PORT address, or "".
func checkHostPort(a string) string {
	const want = "expected HOST:PORT such as \"127.0.0.1:7233\""
	host, port, err := net.SplitHostPort(a)
	if err != nil || strings.TrimSpace(host) == "" || strings.ContainsAny(host, " \t/") {
		return want
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "the port must be a number from 1 to 65535"
	}
	return ""
}
