package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/serve"
)

// DefaultServeAddr is the address `evalrun serve` binds by default.
const DefaultServeAddr = serve.DefaultAddr

// ServeOptions configures Serve.
type ServeOptions struct {
	// WorkDir, Templates and Getenv are those of Options: the project
	// whose journal, plans and templates are shown.
	WorkDir   string
	Templates []string
	Getenv    func(string) string
	// Addr is host:port to bind (default DefaultServeAddr). A host that is
	// not a loopback address prints a warning.
	Addr string
	// Stderr receives the address line and warnings; nil discards them.
	Stderr io.Writer
	// Open, when true, opens the page in the system's browser.
	Open bool
	// Ready, when not nil, is called with the page's URL once the server
	// listens.
	Ready func(url string)
}

// Serve runs the run viewer of SPEC §24 until ctx is done: a read-only web
// page over the project's journal, plans and templates, and its JSON API.
// A problem with the address (malformed, in use) is an *Error of
// KindUsage.
func Serve(ctx context.Context, opts ServeOptions) error {
	stderr := opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	ws, err := LoadWorkspace(Options{WorkDir: opts.WorkDir, Templates: opts.Templates, Getenv: opts.Getenv})
	if err != nil {
		return err
	}
	addr := opts.Addr
	if addr == "" {
		addr = DefaultServeAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return errorf(KindUsage, "--addr %s: %v (write HOST:PORT, as 127.0.0.1:7700)", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return errorf(KindUsage, "cannot listen on %s: %v (is another evalrun serve running? --addr 127.0.0.1:0 picks a free port)", addr, err)
		}
		return errorf(KindUsage, "cannot listen on %s: %v", addr, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	bound := net.JoinHostPort(host, port) // the address as given, with the port chosen for :0
	if !isLoopback(host) {
		fmt.Fprintf(stderr, "warning: serving on %s, beyond this machine: the viewer has no login, and anyone who can reach the address can read the journal, the plans and the templates\n", bound)
	}
	srv := serve.New(serve.Options{
		Root:      ws.Root,
		WorkDir:   ws.WorkDir,
		Journal:   filepath.Join(ws.Root, journal.DefaultPath),
		Templates: serveTemplates(opts),
		Plan:      ws.PlanOptions(),
	})
	defer srv.Close()
	url := "http://" + pageHost(bound) + "/"
	fmt.Fprintf(stderr, "evalrun serve: %s (read-only; Ctrl-C stops)\n", url)
	if opts.Ready != nil {
		opts.Ready(url)
	}
	if opts.Open {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(stderr, "warning: cannot open a browser: %v\n", err)
		}
	}
	if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// serveTemplates lists the registry for the templates page, loading it
// again at every request so that edited templates show at once.
func serveTemplates(opts ServeOptions) func(context.Context) ([]serve.Template, error) {
	return func(context.Context) ([]serve.Template, error) {
		ws, err := LoadWorkspace(Options{WorkDir: opts.WorkDir, Templates: opts.Templates, Getenv: opts.Getenv})
		if err != nil {
			return nil, err
		}
		return TemplateListing(ws), nil
	}
}

// TemplateListing is the registry as `templates list --json` lists it
// (SPEC §10.4): the active templates, then the asset library (scope
// "asset", not active until `templates add`), each item with its
// directory, provenance line and XML.
func TemplateListing(ws *Workspace) []serve.Template {
	items := ws.Templates.List()
	out := make([]serve.Template, len(items), len(items)+len(Assets()))
	for i, e := range ws.Templates.Entries {
		it := items[i]
		out[i] = serve.Template{
			Name: it.Name, Alias: it.Alias, Type: it.Type, Subtype: it.Subtype, Description: it.Description,
			Scope: it.Scope, Path: it.Path, Line: it.Line, ShadowedBy: it.ShadowedBy, Dir: it.Dir,
			Source: e.Template.Source(), XML: e.Template.XML,
		}
	}
	assets := Assets()
	for i, it := range AssetItems() { // the same library, in the same order
		out = append(out, serve.Template{
			Name: it.Name, Alias: it.Alias, Type: it.Type, Subtype: it.Subtype, Description: it.Description,
			Scope: it.Scope, Path: it.Path, Line: it.Line, ShadowedBy: it.ShadowedBy, Source: it.Source, XML: assets[i].XML,
		})
	}
	return out
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// pageHost is the host:port of the page's URL: an unspecified address
// (all interfaces) is shown as localhost.
func pageHost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// openBrowser opens url in the system's browser.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
