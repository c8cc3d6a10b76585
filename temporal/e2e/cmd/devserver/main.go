// Command devserver runs a Temporal development server for evalrun's
// Temporal commands until Ctrl-C, for those without the Temporal CLI:
//
//	cd temporal/e2e && go run ./cmd/devserver -port 7233
//
// It prints the address and namespace to give to evalrun worker and
// evalrun run. The server keeps its state in memory.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/evalrun/evalrun/temporal/e2e/devserver"
)

func main() {
	port := flag.Int("port", 7233, "the port to listen on (0 picks a free one)")
	ip := flag.String("ip", "127.0.0.1", "the address to listen on")
	namespace := flag.String("namespace", "default", "the namespace to register")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	s, err := devserver.Start(ctx, devserver.Options{Addr: net.JoinHostPort(*ip, strconv.Itoa(*port)), Namespace: *namespace})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "devserver: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("Temporal development server at %s, namespace %s (Ctrl-C stops it)\n", s.Addr(), s.Namespace())
	flags := "--temporal " + s.Addr()
	if s.Namespace() != "default" {
		flags += " --namespace " + s.Namespace()
	}
	fmt.Printf("  evalrun worker %s\n  evalrun run %s FILE\n", flags, flags)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Stop()
}
