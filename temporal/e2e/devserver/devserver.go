package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/server/temporaltest"
	"google.golang.org/protobuf/types/known/durationpb"
)

// Options configure a development server.
type Options struct {
	// Addr is the HOST:PORT clients connect to; "" means 127.0.0.1:7233,
	// and port 0 picks a free port.
	Addr string
	// Namespace is the namespace registered for clients; "" means
	// "default".
	Namespace string
}

// Server is a running development server.
type Server struct {
	ts        *temporaltest.TestServer
	ln        net.Listener
	namespace string
	stopOnce  sync.Once
}

// Start starts the server, registers the namespace and listens on the
// address; it returns once a client can use the namespace.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Addr == "" {
		o.Addr = "127.0.0.1:7233"
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	s := &Server{ln: ln, namespace: o.Namespace}
	// temporaltest panics when the server cannot start (it reports to a
	// *testing.T when it has one, and there is none here).
	if err := recovered(func() { s.ts = temporaltest.NewServer() }); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("start the Temporal server: %w", err)
	}
	if err := s.register(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	go s.forward()
	return s, nil
}

// register registers the namespace and waits until the frontend serves
// it.
func (s *Server) register(ctx context.Context) error {
	nc, err := client.NewNamespaceClient(client.Options{HostPort: s.ts.GetFrontendHostPort()})
	if err != nil {
		return fmt.Errorf("connect to the server: %w", err)
	}
	defer nc.Close()
	err = nc.Register(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace:                        s.namespace,
		WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour),
	})
	var exists *serviceerror.NamespaceAlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("register namespace %s: %w", s.namespace, err)
	}
	for {
		if _, err := nc.Describe(ctx, s.namespace); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("namespace %s: %w", s.namespace, context.Cause(ctx))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// forward passes each connection to the address on to the server's
// frontend, whose port temporaltest chooses.
func (s *Server) forward() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			f, err := net.Dial("tcp", s.ts.GetFrontendHostPort())
			if err != nil {
				return
			}
			defer f.Close()
			done := make(chan struct{}, 2)
			pipe := func(dst, src net.Conn) {
				_, _ = io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					_ = tc.CloseWrite()
				}
				done <- struct{}{}
			}
			go pipe(f, c)
			go pipe(c, f)
			<-done
			<-done
		}()
	}
}

// Addr is the HOST:PORT clients connect to.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Namespace is the namespace registered for clients.
func (s *Server) Namespace() string { return s.namespace }

// Stop stops the server; connections still open are cut.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		_ = s.ln.Close()
		// An error while stopping is logged to the *testing.T that
		// temporaltest does not have here: the server is stopped anyway.
		_ = recovered(s.ts.Stop)
	})
}

// recovered runs f and returns the value it panicked with as an error.
func recovered(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	f()
	return nil
}
