// Package devserver runs a Temporal development server inside the
// process: the server of go.temporal.io/server's temporaltest (SQLite in
// memory, every service in one process), with a namespace of the caller's
// choice, reachable at a fixed address. It is for trying evalrun's
// Temporal commands without the Temporal CLI; its state is gone when it
// stops.
//
//	s, err := devserver.Start(ctx, devserver.Options{Addr: "127.0.0.1:7233"})
//	if err != nil { ... }
//	defer s.Stop()
//	fmt.Println(s.Addr(), s.Namespace())
package devserver
