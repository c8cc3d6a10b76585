// Package e2e tests evalrun on a real Temporal server: the server of
// go.temporal.io/server's temporaltest runs inside the test process, and
// the evalrun binary, built with the build tag temporal, runs as separate
// worker and client processes against it, with a fake OpenAI-compatible
// provider on loopback that counts the requests of every worker.
//
// It is a module of its own (temporal/e2e/go.mod) so that the server and
// its dependencies stay out of evalrun's module: `go test ./...` at the
// repository root does not build it, and no evalrun binary links it.
//
//	cd temporal/e2e && go test -count=1 ./...          # the end-to-end tests
//	cd temporal/e2e && go test -run '^$' -bench . -benchtime 1x   # the benchmark
//	cd temporal/e2e && go run ./cmd/devserver -port 7233          # a development server
//
// The tests build the evalrun command from the repository root (two
// directories up) with `go build -tags temporal`.
package e2e
