package serve

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/evalrun/evalrun/journal"
	"github.com/evalrun/evalrun/trace"
	"github.com/evalrun/evalrun/value"
)

// The browser tests drive the system's Chromium (headless) through
// chromedp — the Chrome DevTools Protocol spoken directly over a local
// pipe-free websocket, with no driver binary and nothing downloaded, which
// is what makes it reliable offline. Without Chromium they are skipped
// and TestMain says so in one line.

var updateDocs = flag.Bool("update-docs", false, "write the README screenshot docs/viewer.png from the browser test")

// chromiumInstall is the command that installs the browser the tests use.
const chromiumInstall = "apt-get install -y chromium"

// chromiumPath finds the system's Chromium, "" when there is none.
func chromiumPath() string {
	if p := os.Getenv("EVALRUN_CHROMIUM"); p != "" { // a browser of one's choice; one that is missing is none
		if found, err := exec.LookPath(p); err == nil {
			return found
		}
		return ""
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	flag.Parse()
	if chromiumPath() == "" && !testing.Short() {
		fmt.Fprintf(os.Stderr, "serve: browser tests skipped: Chromium not found (install it: %s)\n", chromiumInstall)
	}
	code := m.Run()
	cleanupBig()
	os.Exit(code)
}

// artifactDir is where screenshots go: $EVALRUN_ARTIFACTS, else a
// directory under the system's temporary directory (kept after the test).
func artifactDir(t *testing.T) string {
	dir := os.Getenv("EVALRUN_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "evalrun-viewer-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser starts a headless Chromium with a fresh profile and returns its
// context (a tab).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skipf("Chromium not found (install it: %s)", chromiumInstall)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.WindowSize(1440, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return ctx
}

// shot saves a screenshot of the viewport under name in the artifacts.
func shot(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(artifactDir(t), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return p
}

// waitJS polls the expression until it is true.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 2000)`))
			t.Fatalf("%s: not true after 20s: %s\npage text:\n%s", what, expr, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func jsString(ctx context.Context, t *testing.T, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// viewerServer serves the fixture with a fast poll.
func viewerServer(t *testing.T, f *fixture) *httptest.Server {
	t.Helper()
	s := New(Options{Root: f.root, Templates: fixtureTemplates, Poll: 50 * time.Millisecond})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

func TestBrowserRunsRunTreeAndDetail(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)

	// The runs page lists every run, newest first.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+f.failed+`"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "four runs listed", `document.querySelectorAll("table.runs tbody tr").length === 4`)
	if got := jsString(ctx, t, `[...document.querySelectorAll("table.runs tbody tr")].map(r => r.dataset.id).join(",")`); got != strings.Join([]string{f.running, f.resumed, f.failed, f.completed}, ",") {
		t.Errorf("runs order = %s", got)
	}
	waitJS(t, ctx, "counts on the status chips", `[...document.querySelectorAll(".chip")].map(c => c.textContent).join("|") === "all 4|running 1|completed 2|failed 1"`)
	if got := jsString(ctx, t, `document.querySelector('tr[data-id="`+f.failed+`"] .badge').textContent`); got != "failed" {
		t.Errorf("failed run badge = %q", got)
	}
	shot(t, ctx, "runs.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	shot(t, ctx, "runs-360.png")
	waitJS(t, ctx, "the runs page fits 360px", `document.documentElement.scrollWidth <= 361 && [...document.querySelectorAll(".page")].every(p => p.scrollWidth <= p.clientWidth + 1)`)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}

	// Click into the failed run: the header, the positioned error with its caret, the tree.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr[data-id="`+f.failed+`"] a`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "tree rows", `document.querySelectorAll(".row").length === 10`)
	if got := jsString(ctx, t, `document.title`); got != f.failed+" · evalrun" {
		t.Errorf("title = %q", got)
	}
	errText := jsString(ctx, t, `document.querySelector(".run-head .errbox").textContent`)
	if want := "release.sexp:10:4: unbound symbol: run-tests\n  (run-tests))\n   ^"; errText != want {
		t.Errorf("run error box = %q, want %q", errText, want)
	}
	if got := jsString(ctx, t, `document.querySelector(".row .tag.current") ? document.querySelector(".row .tag.current").closest(".row").dataset.seq : ""`); got != "10" {
		t.Errorf("current position row = %q, want seq 10 (the failed code/implement)", got)
	}
	// Parallel reviews overlap on the time axis; the third waited for its slot.
	if got := jsString(ctx, t, `[...document.querySelectorAll(".row .bar.wait")].map(b => b.closest(".row").dataset.seq).join(",")`); got != "8" {
		t.Errorf("rows with a wait = %q, want the third review (8)", got)
	}
	sum := jsString(ctx, t, `document.querySelector('.row[data-seq="10"] .sum').textContent`)
	if sum != "RESOURCE_EXHAUSTION turns (10/10)" {
		t.Errorf("failed task summary = %q", sum)
	}

	// Collapse the review step (its three tasks and the tool call hide), then expand it again.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="2"] .twist`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "collapsed", `document.querySelectorAll(".row").length === 6`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="2"] .twist`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "expanded", `document.querySelectorAll(".row").length === 10`)

	// Select the first review: its prompt and answer are shown.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="6"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "call detail", `(document.querySelector(".detail") || {}).innerText?.includes("Serve ignores the context")`)
	detail := jsString(ctx, t, `document.querySelector(".detail").innerText`)
	for _, want := range []string{"Review the file api.go and list at most three problems.", "1. Serve ignores the context.", "openai:gpt-4.1", "local .evalrun/templates/review-file.xml:1"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail panel lacks %q:\n%s", want, detail)
		}
	}
	// The system prompt section starts closed; open it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.detail details.sect summary`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "system prompt", `document.querySelector(".detail").innerText.includes("You review Go code for bugs. Be brief.")`)
	p := shot(t, ctx, "run.png")
	if *updateDocs {
		copyFile(t, p, filepath.Join("..", "docs", "viewer.png"))
	}

	// Keyboard: j moves to the tool call under the review, whose parameters show.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("j")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "j selects the next row", `document.querySelector(".row.sel") && document.querySelector(".row.sel").dataset.seq === "9"`)
	waitJS(t, ctx, "tool detail", `document.querySelector(".detail").innerText.includes("read_file")`)

	// The parsed JSON of the plan call is a tree.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="5"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "parsed content", `[...document.querySelectorAll(".detail .sect summary")].some(s => s.textContent.startsWith("parsedContent")) && document.querySelector(".detail .jt").innerText.includes("\"tag v1.4\"")`)

	// Small screens: at 360 px the run page still shows the tree and the panel.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "no horizontal overflow at 360px", `document.documentElement.scrollWidth <= 361`)
	shot(t, ctx, "run-360.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}

	// A run opened as "last" shows its full id in the address.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/last")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "last resolved", `location.pathname === "/runs/`+f.running+`" && document.querySelector(".run-title h1").textContent === "`+f.running+`"`)

	// The resumed run marks its replayed call; its header shows its arguments and value.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+f.resumed)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "replayed tag", `document.querySelectorAll(".row .tag.replayed").length === 1`)
	if got := jsString(ctx, t, `document.querySelector(".facts").innerText`); !strings.Contains(got, "args version=1.4") || !strings.Contains(got, `value "released"`) ||
		!strings.Contains(got, "resumed from "+f.failed) || !strings.Contains(got, "1 replayed") ||
		!strings.Contains(got, "cost $0.018") || !strings.Contains(got, "replayed $0.0024") {
		t.Errorf("resumed run facts = %q", got)
	}
	if got := jsString(ctx, t, `document.querySelector(".row .tag.replayed").closest(".row").querySelector(".nm").textContent`); got != "plan/generate" {
		t.Errorf("replayed call = %q", got)
	}
}

func TestBrowserLiveRunAddsNodesWithoutReload(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	// The runs page shows a run that starts while it is open.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "four runs", `document.querySelectorAll("table.runs tbody tr").length === 4`)
	waitJS(t, ctx, "runs page live", `document.querySelector("#live").classList.contains("on")`)
	started, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "nightly.sexp"})
	f.must(err)
	waitJS(t, ctx, "the new run appears first", `document.querySelector("table.runs tbody tr").dataset.id === "`+started.ID()+`" && document.querySelectorAll("table.runs tbody tr").length === 5`)
	f.must(started.Finish(journal.StatusFailed, nil, fmt.Errorf("boom")))
	waitJS(t, ctx, "its status changes in place", `document.querySelector('tr[data-id="`+started.ID()+`"] .badge').textContent === "failed"`)
	waitJS(t, ctx, "the counts follow", `[...document.querySelectorAll(".chip")].map(c => c.textContent).join("|") === "all 5|running 1|completed 2|failed 2"`)
	// The status chips filter.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.chip[data-status="failed"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "only failed runs", `[...document.querySelectorAll("table.runs tbody tr .badge")].map(b => b.textContent).join(",") === "failed,failed" && location.search === "?status=failed"`)

	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+f.running)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the running run's two steps", `document.querySelectorAll(".row").length === 2`)
	waitJS(t, ctx, "live", `document.querySelector("#live").classList.contains("on")`)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__sameDocument = true`)); err != nil {
		t.Fatal(err)
	}
	c := f.addLiveCall("plan/generate", "Plan the release, live.")
	waitJS(t, ctx, "a new node", `document.querySelectorAll(".row").length === 3 && document.querySelector('.row[data-seq="3"] .dot').classList.contains("running")`)
	if err := c.End(journal.StatusCompleted, ok("live answer", nil, providerNotes("plan/generate", 10, 5)), "", journal.Usage{InputTokens: 10, OutputTokens: 5, Turns: 1}, 0, false); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the node completes", `document.querySelector('.row[data-seq="3"] .dot').classList.contains("completed")`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="3"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "live call detail", `document.querySelector(".detail").innerText.includes("Plan the release, live.") && document.querySelector(".detail").innerText.includes("live answer")`)
	if err := f.live.Finish(journal.StatusCompleted, value.String("done"), nil); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run completes", `document.querySelector(".run-title .badge").textContent === "completed"`)
	if head := jsString(ctx, t, `document.querySelector(".run-head").innerText`); strings.Contains(head, "null") || strings.Contains(head, "undefined") {
		t.Errorf("run header shows a missing value:\n%s", head)
	}
	if same, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__sameDocument === true`)); err != nil || !same {
		t.Fatalf("the page was reloaded (marker %v, %v)", same, err)
	}
	shot(t, ctx, "live.png")
}

func TestBrowserPlanGraphTemplatesSearchAndTheme(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/plans/WFS-auth")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the SVG graph", `document.querySelectorAll(".graph-wrap svg.plan-graph g.node").length === 6`)
	if got := jsString(ctx, t, `[...document.querySelectorAll("svg.plan-graph g.node")].map(g => g.dataset.id + ":" + g.getAttribute("class").replace(" sel", "")).join(" ")`); got !=
		"IMPL-1:node st-completed IMPL-2:node st-active IMPL-2.1:node st-completed IMPL-2.2:node st-pending current IMPL-3:node st-blocked IMPL-4:node st-pending" {
		t.Errorf("graph nodes = %s", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`svg.plan-graph g.node[data-id="IMPL-1"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "task summary", `document.querySelector(".side").innerText.includes("short-lived JWTs")`)
	if page := jsString(ctx, t, `document.querySelector("main").innerText`); strings.Contains(page, "null") || strings.Contains(page, "undefined") {
		t.Errorf("plan page shows a missing value:\n%s", page)
	}
	shot(t, ctx, "plan.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the plan page fits 360px", `document.documentElement.scrollWidth <= 361 && [...document.querySelectorAll(".page")].every(p => p.scrollWidth <= p.clientWidth + 1)`)
	shot(t, ctx, "plan-360.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}

	// Templates: scopes, shadowing and the source.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/templates?name=review/file")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "template source", `document.querySelector(".side") && document.querySelector(".side").innerText.includes("Review the file {{path}}")`)
	if got := jsString(ctx, t, `[...document.querySelectorAll("tr.group-head")].map(r => r.innerText.trim()).join(" | ")`); got !=
		"builtin (1) | global (1) ~/.config/evalrun/templates | local (2) .evalrun/templates" {
		t.Errorf("template groups = %q", got)
	}
	if got := jsString(ctx, t, `document.querySelectorAll(".tag.shadowed").length + ""`); got != "1" {
		t.Errorf("shadowed marks = %s", got)
	}
	shot(t, ctx, "templates.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the templates page fits 360px", `document.documentElement.scrollWidth <= 361 && [...document.querySelectorAll(".page")].every(p => p.scrollWidth <= p.clientWidth + 1)`)
	shot(t, ctx, "templates-360.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}

	// Search: "/" focuses the box; a run id prefix and a template name are found.
	if err := chromedp.Do(ctx, chromedp.KeyEvent("/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "/ focuses the search box", `document.activeElement === document.querySelector("#search")`)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#search").value = ""`), chromedp.SendKeys(chromedp.CSS("#search"), "review")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "search results", `!document.querySelector("#search-results").hidden && document.querySelector("#search-results").innerText.includes("review/git-diff")`)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("#search").value = ""`), chromedp.SendKeys(chromedp.CSS("#search"), f.failed[:15])); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "run found", `document.querySelector("#search-results").innerText.includes("`+f.failed+`")`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "enter opens the run", `location.pathname === "/runs/`+f.failed+`"`)

	// Keyboard on the runs page: esc goes back, j/k move, enter opens.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "runs", `document.querySelectorAll("table.runs tbody tr").length === 4`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("k"), chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "j j k enter opens the second run", `location.pathname === "/runs/`+f.resumed+`"`)
	waitJS(t, ctx, "rows", `document.querySelectorAll(".row").length > 0`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\x1b")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "esc goes back to the runs", `location.pathname === "/"`)

	// Themes: the system's dark scheme is followed, and the toggle overrides it.
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "dark background", `getComputedStyle(document.body).backgroundColor === "rgb(14, 17, 22)"`)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+f.failed+"?call=6")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "detail from the URL", `document.querySelector(".detail") && !document.querySelector(".detail").hidden && document.querySelector(".detail").innerText.includes("api.go")`)
	shot(t, ctx, "run-dark.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#theme"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "light by the toggle", `document.documentElement.dataset.theme === "light" && getComputedStyle(document.body).backgroundColor === "rgb(246, 247, 249)"`)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", to)
}

func TestBrowserTenThousandCallRunIsVirtualised(t *testing.T) {
	skipBig(t)
	s, id := bigServer(t)
	ctx := browser(t)
	ts := httptest.NewServer(s)
	defer ts.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "rows drawn", `document.querySelectorAll(".row").length > 0`)
	// Only the rows in view (and a margin) are in the document.
	if n := jsString(ctx, t, `document.querySelectorAll(".row").length + ""`); n == "" || len(n) > 2 {
		t.Errorf("%s rows in the document for a run of 10,000 calls", n)
	}
	if got := jsString(ctx, t, `document.querySelector(".facts").innerText`); !strings.Contains(got, "calls 10,000") || !strings.Contains(got, "tokens 9,504,000") {
		t.Errorf("header facts = %q", got)
	}
	// Scrolling to the end draws the last call; G-style: fold the last batch with h.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => { const b = document.querySelector(".trace-body"); b.scrollTop = b.scrollHeight; b.dispatchEvent(new Event("scroll")); })()`)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the last call", `!!document.querySelector('.row[data-seq="10000"]')`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="10000"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "its detail", `document.querySelector(".detail").innerText.includes("Summary of file 9999")`)
	shot(t, ctx, "run-10k.png")

	// On a phone the page scrolls with the call panel below the tree, but
	// the tree keeps a height of its own: its rows are still drawn only as
	// they come into view (all 10,000 at full height left the page blank
	// where a selected call had scrolled it).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(ts.URL+"/runs/"+id+"?call=5000")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the selected call drawn", `!!document.querySelector('.row.sel[data-seq="5000"]')`)
	if n := jsString(ctx, t, `document.querySelectorAll(".row").length + ""`); len(n) > 2 {
		t.Errorf("%s rows in the document at 360 px for a run of 10,000 calls", n)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="5000"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "its panel", `document.querySelector(".detail").innerText.includes("Summary of file 4999")`)
	time.Sleep(400 * time.Millisecond) // the panel is brought into view smoothly
	if got := jsString(ctx, t, `(() => { const r = document.querySelector('.row.sel[data-seq="5000"]'), d = document.querySelector(".detail-head");
		const inView = (e) => { const b = e.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight; };
		return (r && inView(r) ? "row" : "no row") + ", " + (inView(d) ? "panel" : "no panel") })()`); got != "row, panel" {
		t.Errorf("at 360 px with call 5000 open: %s", got)
	}
	if h := jsString(ctx, t, `document.documentElement.scrollHeight + ""`); len(h) > 4 {
		t.Errorf("the page is %s px high at 360 px", h)
	}
	shot(t, ctx, "run-10k-360.png")
}

// TestBrowserPlanStepOutputs opens a plan that has run: the task table
// shows the tokens, a task's panel links its run and lists its step
// outputs, folded, whose text shows once opened and whose copy button
// copies it; the run link opens the task's node in the run.
func TestBrowserPlanStepOutputs(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	run := writePlanRun(f)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/plans/WFS-auth")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the task table", `document.querySelectorAll(".plan-layout tbody tr").length === 6`)
	if got := jsString(ctx, t, `[...document.querySelectorAll(".plan-layout tbody tr")].map(r => r.children[0].innerText.trim() + "=" + r.children[5].innerText.trim()).join(" ")`); got !=
		"IMPL-1=1,050 IMPL-2= IMPL-2.1=1,500 IMPL-2.2= IMPL-3= IMPL-4=" {
		t.Errorf("tokens column = %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.plan-layout tbody tr[data-id="IMPL-1"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the step outputs", `document.querySelectorAll(".side details.step-out").length === 2`)
	if got := jsString(ctx, t, `document.querySelector(".side a.run-link").getAttribute("href")`); got != "/runs/"+run+"?call=1" {
		t.Errorf("run link = %q", got)
	}
	if got := jsString(ctx, t, `[...document.querySelectorAll(".side details.step-out > summary")].map(s => s.innerText.replace(/\s+/g, " ").trim()).join(" | ")`); got !=
		"completed step gather 30ms copy | completed task plan/action-planning-agent 1,050 tok · 2.9s copy" {
		t.Errorf("step outputs = %q", got)
	}
	// Folded: the output is not shown until the step is opened.
	if got := jsString(ctx, t, `document.querySelector(".side details.step-out").open + ""`); got != "false" {
		t.Errorf("a completed step's output is open: %s", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.side details.step-out[data-seq="2"] > summary b`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the gather output", `document.querySelector('.side details.step-out[data-seq="2"]').open && document.querySelector('.side details.step-out[data-seq="2"] pre.text').innerText === `+jsQuote(planRunGather))
	if got := jsString(ctx, t, `getComputedStyle(document.querySelector('.side details.step-out[data-seq="2"] pre.text')).fontFamily`); !strings.Contains(strings.ToLower(got), "mono") {
		t.Errorf("step output font = %q, want monospace", got)
	}
	if got := jsString(ctx, t, `document.querySelector(".side").innerText`); !strings.Contains(got, "tokens\n1,050") || !strings.Contains(got, "cost\n$0.0031") {
		t.Errorf("task panel:\n%s", got)
	}
	if page := jsString(ctx, t, `document.querySelector("main").innerText`); strings.Contains(page, "null") || strings.Contains(page, "undefined") {
		t.Errorf("plan page shows a missing value:\n%s", page)
	}
	shot(t, ctx, "plan-outputs.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the plan page with outputs fits 360px", `document.documentElement.scrollWidth <= 361 && [...document.querySelectorAll(".page")].every(p => p.scrollWidth <= p.clientWidth + 1)`)
	shot(t, ctx, "plan-outputs-360.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}
	// A failed step is shown open, with its error.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.plan-layout tbody tr[data-id="IMPL-2.1"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the failed step", `document.querySelectorAll(".side details.step-out").length === 2 && document.querySelector(".side details.step-out").open`)
	if got := jsString(ctx, t, `document.querySelector(".side details.step-out .errbox").innerText`); got != planRunLintError {
		t.Errorf("failed step error = %q", got)
	}
	if got := jsString(ctx, t, `document.querySelector(".side details.step-out .body").innerText`); !strings.Contains(got, "no output recorded") {
		t.Errorf("failed step body = %q", got)
	}
	shot(t, ctx, "plan-failed-step.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.plan-layout tbody tr[data-id="IMPL-1"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "IMPL-1 again", `document.querySelector(".side a.run-link") && document.querySelector(".side h2").innerText.includes("IMPL-1")`)

	// The run link opens the run with the task's node selected.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.side a.run-link`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run of the plan", `location.pathname === "/runs/`+run+`" && document.querySelector(".detail") && document.querySelector(".detail").innerText.includes("IMPL-1")`)
}

// jsQuote writes s as a JavaScript string literal.
func jsQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A run that failed before its first call (an unbound symbol, a syntax
// error) has no nodes: its page still shows the header and the error with
// its caret, and an empty trace instead of a script error.
func TestBrowserRunWithoutCalls(t *testing.T) {
	f := newFixture(t)
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "release.sexp"})
	f.must(err)
	f.must(r.Finish(journal.StatusFailed, nil, fmt.Errorf("release.sexp:10:4: unbound symbol: run-tests")))
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+r.ID())); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the run's header", `document.querySelector(".run-title h1") && document.querySelector(".run-title h1").textContent === "`+r.ID()+`"`)
	if got, want := jsString(ctx, t, `document.querySelector(".run-head .errbox").textContent`), "release.sexp:10:4: unbound symbol: run-tests\n  (run-tests))\n   ^"; got != want {
		t.Errorf("error box = %q, want %q", got, want)
	}
	if n := jsString(ctx, t, `String(document.querySelectorAll(".row").length)`); n != "0" {
		t.Errorf("rows = %s, want none", n)
	}
	shot(t, ctx, "run-no-calls.png")
}

// The built-in templates have long names without spaces
// (internal:associative_matching_content): at 360 px they wrap, and the
// templates page does not grow wider than the screen. The asset library
// is the last group, marked as not active.
func TestBrowserTemplatesWithLongNamesFit360(t *testing.T) {
	f := newFixture(t)
	s := New(Options{Root: f.root, Poll: 50 * time.Millisecond, Templates: func(ctx context.Context) ([]Template, error) {
		ts, err := fixtureTemplates(ctx)
		long := Template{Name: "internal:associative_matching_content", Type: "atomic", Subtype: "associative_matching",
			Description: "Choose the project files most relevant to a query from their contents", Scope: "builtin", Path: "<builtin>", Line: 6,
			Source: "builtin <builtin>:6", XML: "<task/>\n"}
		asset := Template{Name: "code-review", Type: "review", Subtype: "code", Description: "Review source files for bugs, unclear code and missing tests",
			Scope: "asset", Path: "<asset>/code-review.xml", Line: 1, Source: "asset <asset>/code-review.xml:1", XML: "<task name=\"code-review\"/>\n"}
		return append(append([]Template{long}, ts...), asset), err
	}})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2)), chromedp.Navigate(ts.URL+"/templates")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "templates listed", `document.querySelector('tr[data-name="internal:associative_matching_content"]')`)
	shot(t, ctx, "templates-long-360.png")
	// The asset library closes the list, as in `templates list`.
	if got := jsString(ctx, t, `[...document.querySelectorAll("tr.group-head")].map(r => r.textContent).join(" | ")`); !strings.HasSuffix(got, "| assets (1)  not active; add with: evalrun templates add NAME") {
		t.Errorf("template groups = %q", got)
	}
	waitJS(t, ctx, "the templates page fits 360px", `document.documentElement.scrollWidth <= 361 && [...document.querySelectorAll(".page")].every(p => p.scrollWidth <= p.clientWidth + 1)`)
}

// On a narrow screen the source line of a positioned error does not wrap:
// the caret stays under the column it points at (the box scrolls
// sideways instead).
func TestBrowserErrorCaretStaysUnderItsColumnAt360(t *testing.T) {
	f := newFixture(t)
	src := `(define report (string-append "the first part of a long line " "and the second part" (summarise-everything items)))` + "\n"
	f.must(os.WriteFile(filepath.Join(f.root, "wide.sexp"), []byte(src), 0o644))
	col := strings.Index(src, "(summarise-everything") + 2 // the symbol, 1-based
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "wide.sexp"})
	f.must(err)
	f.must(r.Finish(journal.StatusFailed, nil, fmt.Errorf("wide.sexp:1:%d: unbound symbol: summarise-everything", col)))
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2)), chromedp.Navigate(ts.URL+"/runs/"+r.ID())); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the error box", `document.querySelector(".run-head .errbox .caret")`)
	shot(t, ctx, "error-caret-360.png")
	// The left edge of the caret's "^" and of the character it points at.
	got := jsString(ctx, t, `(() => {
		const box = document.querySelector(".run-head .errbox");
		const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
		let node, srcNode = null;
		while ((node = walker.nextNode())) { if (node.data.includes("(summarise-everything")) { srcNode = node; break; } }
		if (!srcNode) return "no source text";
		const at = srcNode.data.indexOf("(summarise-everything") + 1;
		const r1 = document.createRange(); r1.setStart(srcNode, at); r1.setEnd(srcNode, at + 1);
		const caret = document.querySelector(".run-head .errbox .caret").firstChild;
		const r2 = document.createRange(); r2.setStart(caret, caret.data.length - 1); r2.setEnd(caret, caret.data.length);
		const a = r1.getBoundingClientRect(), b = r2.getBoundingClientRect();
		const view = document.querySelector(".run-head .errbox .src").getBoundingClientRect();
		if (b.left < view.left || b.right > view.right) return "caret out of view: at " + b.left + ", box " + view.left + ".." + view.right;
		return Math.abs(a.left - b.left) < 1 && b.top > a.top ? "aligned" : "source char at " + a.left + "," + a.top + ", caret at " + b.left + "," + b.top;
	})()`)
	if got != "aligned" {
		t.Errorf("caret: %s", got)
	}
	waitJS(t, ctx, "the run page fits 360px", `document.documentElement.scrollWidth <= 361`)
}

// The time axis and the duration labels of the bars fit the width of the
// timeline: at 360 px (an 84 px timeline) as at 1440 px, no two tick
// labels overlap and no label leaves its row's timeline or lies on a
// slot-wait bar.
func TestBrowserTimelineLabelsFitTheirWidth(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	check := `(() => {
		const bad = [];
		const ticks = [...document.querySelectorAll(".axis span")].map(s => s.getBoundingClientRect());
		for (let i = 1; i < ticks.length; i++) if (ticks[i].left < ticks[i-1].right + 2) bad.push("ticks " + (i-1) + "," + i + " overlap");
		const axis = document.querySelector(".axis").getBoundingClientRect();
		ticks.forEach((r, i) => { if (r.left < axis.left - 0.5 || r.right > axis.right + 0.5) bad.push("tick " + i + " outside the axis"); });
		for (const l of document.querySelectorAll(".bar-label")) {
			const r = l.getBoundingClientRect(), cell = l.parentElement.getBoundingClientRect();
			if (r.left < cell.left - 0.5 || r.right > cell.right + 0.5) bad.push("label " + l.textContent + " of #" + l.closest(".row").dataset.seq + " outside its timeline");
			for (const w of l.parentElement.querySelectorAll(".bar.wait")) {
				const b = w.getBoundingClientRect();
				if (r.left < b.right && r.right > b.left) bad.push("label " + l.textContent + " of #" + l.closest(".row").dataset.seq + " on a wait bar");
			}
		}
		return bad.join("; ");
	})()`
	for _, width := range []int64{1440, 360} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 800), chromedp.Navigate(ts.URL+"/runs/"+f.failed)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "tree rows", `document.querySelectorAll(".row").length === 10`)
		shot(t, ctx, fmt.Sprintf("timeline-%d.png", width))
		if bad := jsString(ctx, t, check); bad != "" {
			t.Errorf("at %d px: %s", width, bad)
		}
	}
	// Opening the call panel narrows the timeline: the axis and the labels
	// are laid out again for the new width.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.URL+"/runs/"+f.failed)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "tree rows", `document.querySelectorAll(".row").length === 10`)
	wide := jsString(ctx, t, `String(document.querySelectorAll(".axis span").length)`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="7"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the call panel", `document.querySelector(".detail") && !document.querySelector(".detail").hidden`)
	time.Sleep(300 * time.Millisecond)
	shot(t, ctx, "timeline-panel.png")
	if bad := jsString(ctx, t, check); bad != "" {
		t.Errorf("with the call panel open: %s (ticks before: %s)", bad, wide)
	}
}

// The cost column of the runs page reads as `evalrun runs` prints it: "?"
// for a run none of whose calls had a known price, "+?" after a cost some
// calls' prices are missing from, "+r" after what a resuming run paid, "-"
// for a run that spent nothing.
func TestBrowserRunsCostColumn(t *testing.T) {
	f := newFixture(t)
	r, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "plain.sexp"})
	f.must(err)
	c, err := r.Begin(nil, journal.KindTask, "summarise", "h1", nil)
	f.must(err)
	f.must(c.Running())
	f.must(c.End(journal.StatusCompleted, ok("done", nil, notes("executor", value.String("agent:slow"))), "", journal.Usage{InputTokens: 3, OutputTokens: 2, Turns: 1}, 0, false))
	f.must(r.Finish(journal.StatusCompleted, value.String("done"), nil))
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "five runs", `document.querySelectorAll("table.runs tbody tr").length === 5`)
	got := jsString(ctx, t, `[...document.querySelectorAll("table.runs tbody tr")].map(tr => tr.lastElementChild.textContent).join(" | ")`)
	// plain (unknown), running (nothing yet), resumed (paid + replayed), failed (known + 3 unknown), completed (known)
	if want := "? | - | $0.018+r | $0.021+? | $0.0024"; got != want {
		t.Errorf("cost column = %q, want %q", got, want)
	}
}

// At 360 px the runs page hides the workflow column, but every run still
// shows its workflow (under its id): ids alone do not tell runs apart.
func TestBrowserRunsShowTheirWorkflowAt360(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2)), chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "four runs listed", `document.querySelectorAll("table.runs tbody tr").length === 4`)
	got := jsString(ctx, t, `[...document.querySelectorAll("table.runs tbody tr")].map(tr => tr.innerText.includes("release.sexp") ? "yes" : "no: " + tr.innerText.replace(/\s+/g, " ")).join(", ")`)
	if got != "yes, yes, yes, yes" {
		t.Errorf("workflow shown at 360 px: %s", got)
	}
	waitJS(t, ctx, "the runs page fits 360px", `document.documentElement.scrollWidth <= 361`)
	shot(t, ctx, "runs-workflow-360.png")
}

// A run's arguments read as the command line that gave them: its --set
// values and flags, not the JSON of the journal ("set={} files=[...]");
// a run given none shows none.
func TestBrowserRunArgsReadAsFlags(t *testing.T) {
	f := newFixture(t)
	set := value.NewDict(1)
	set.Set("focus", value.String("security"))
	args := value.NewDict(3)
	args.Set("set", set)
	args.Set("files", value.List{value.String("review.sexp")})
	args.Set("agent", value.String("slow"))
	given, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "review.sexp", Args: args})
	f.must(err)
	f.must(given.Finish(journal.StatusCompleted, value.String("LGTM"), nil))
	none := value.NewDict(2)
	none.Set("set", value.NewDict(0))
	none.Set("files", value.List{value.String("greet.sexp")})
	plain, err := f.store.StartRun(journal.RunInfo{WorkflowPath: "greet.sexp", Args: none})
	f.must(err)
	f.must(plain.Finish(journal.StatusCompleted, value.String("hi"), nil))
	ts := viewerServer(t, f)
	ctx := browser(t)
	for id, want := range map[string]string{given.ID(): "args --set focus=security --agent slow", plain.ID(): ""} {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+id)); err != nil {
			t.Fatal(err)
		}
		waitJS(t, ctx, "the run's facts", `document.querySelector(".run-title h1") && document.querySelector(".run-title h1").textContent === "`+id+`"`)
		got := jsString(ctx, t, `[...document.querySelectorAll(".facts > span")].map(s => s.textContent).filter(s => s.startsWith("args ")).join("|")`)
		if got != want {
			t.Errorf("run %s: args = %q, want %q", id, got, want)
		}
	}
}

// A step whose value is a string (a pre_analysis step's output, a shell
// command's text) shows it as text, line by line, with a copy button,
// not as one JSON-quoted line of \n escapes.
func TestBrowserStepStringValueIsText(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	run := writePlanRun(f)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+run+"?call=2")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the step's value", `[...document.querySelectorAll(".detail .sect summary")].some(s => s.textContent.startsWith("Value"))`)
	got := jsString(ctx, t, `(() => { const s = [...document.querySelectorAll(".detail .sect")].find(s => s.querySelector("summary").textContent.startsWith("Value")); const pre = s.querySelector("pre.text"); return pre ? pre.textContent : "no text block: " + s.innerText; })()`)
	if got != planRunGather {
		t.Errorf("step value = %q, want %q", got, planRunGather)
	}
}

// On a narrow screen the template and task panels go below their lists:
// selecting a template or a task (a tap, or enter) brings its panel into
// view rather than opening it out of sight.
func TestBrowserPanelsComeIntoViewAt360(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	s := New(Options{Root: f.root, Poll: 50 * time.Millisecond, Templates: func(ctx context.Context) ([]Template, error) {
		ts, err := fixtureTemplates(ctx)
		for i := 0; i < 12; i++ { // a list longer than the screen
			name := fmt.Sprintf("extra/t%02d", i)
			ts = append(ts, Template{Name: name, Type: "extra", Subtype: "t", Description: "One more template to make the list long",
				Scope: "local", Path: "extra.xml", Line: i + 1, Dir: ".evalrun/templates", Source: "local .evalrun/templates/extra.xml", XML: "<task/>\n"})
		}
		return ts, err
	}})
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	ctx := browser(t)
	inView := `(() => { const p = document.querySelector("aside.side"); if (!p || p.hidden) return false; const r = p.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })()`
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 640, chromedp.EmulateScale(2)), chromedp.Navigate(ts.URL+"/templates")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "templates listed", `document.querySelector('tr[data-name="review/file"]')`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr[data-name="review/file"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the template's panel in view", inView)
	shot(t, ctx, "templates-panel-360.png")

	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/plans/WFS-auth")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "tasks listed", `document.querySelector('tr[data-id="IMPL-4"]')`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr[data-id="IMPL-4"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the task's panel in view", inView)
	shot(t, ctx, "plan-panel-360.png")
}

// The time from a call's beginning to its start is not only a wait for a
// concurrency slot: the task system also runs the template's command,
// reads its files and builds its prompt then. The bar and the call panel
// say so.
func TestBrowserQueuedTimeIsNamedForWhatItIs(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+f.failed+"?call=8")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the third review's panel", `document.querySelector(".detail") && document.querySelector(".detail").innerText.includes("review/file")`)
	want := "7.8s before it started (waiting for a slot, running the template's command, building the prompt)"
	if got := jsString(ctx, t, `(() => { const dt = [...document.querySelectorAll(".detail dt")].find(d => d.textContent === "queued"); return dt ? dt.nextElementSibling.textContent : "no queued row: " + document.querySelector(".detail dl").innerText; })()`); got != want {
		t.Errorf("queued = %q, want %q", got, want)
	}
	if got := jsString(ctx, t, `document.querySelector('.row[data-seq="8"] .bar.wait').title`); got != "queued 7.8s before it started" {
		t.Errorf("wait bar title = %q", got)
	}
}

// The problems `plan check` reports are shown as it reports them: errors
// in the red error box, warnings apart in a warning box, so that a
// warning does not read as a broken plan.
func TestBrowserPlanWarningsAreNotErrors(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	task := filepath.Join(f.root, ".workflow", "active", "WFS-auth", ".task")
	f.must(os.WriteFile(filepath.Join(task, "IMPL-5.json"), []byte("{\"id\": \"IMPL-5\",\n  \"title\": }"), 0o644))
	f.must(os.WriteFile(filepath.Join(task, "IMPL-6.json"), []byte(`{"id": "IMPL-6", "title": "Tidy up", "status": "pending", "meta": {"type": "docs", "agent": "@nobody"}, "context": {}, "flow_control": {}}`), 0o644))
	ts := viewerServer(t, f)
	var p Plan
	resp, err := http.Get(ts.URL + "/api/plans/WFS-auth")
	f.must(err)
	f.must(json.NewDecoder(resp.Body).Decode(&p))
	resp.Body.Close()
	var errs, warns []string
	for _, x := range p.Problems {
		if strings.Contains(x, ": warning: ") {
			warns = append(warns, x)
		} else {
			errs = append(errs, x)
		}
	}
	if len(errs) != 1 || len(warns) != 1 {
		t.Fatalf("problems = %q, want an error and a warning", p.Problems)
	}
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/plans/WFS-auth")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the plan", `document.querySelector('tr[data-id="IMPL-1"]')`)
	if got := jsString(ctx, t, `[...document.querySelectorAll(".page > .errbox")].map(b => b.textContent).join("|")`); got != errs[0] {
		t.Errorf("error box = %q, want %q", got, errs[0])
	}
	if got := jsString(ctx, t, `[...document.querySelectorAll(".page > .warnbox")].map(b => b.textContent).join("|")`); got != warns[0] {
		t.Errorf("warning box = %q, want %q", got, warns[0])
	}
	shot(t, ctx, "plan-problems.png")
}

// On a narrow screen the call panel goes below the trace; tapping a call
// brings the panel into view.
func TestBrowserCallPanelComesIntoViewAt360(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 640, chromedp.EmulateScale(2)), chromedp.Navigate(ts.URL+"/runs/"+f.failed)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "tree rows", `document.querySelectorAll(".row").length === 10`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="6"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the call's panel in view", `(() => { const d = document.querySelector(".detail"); if (!d || d.hidden || !d.innerText.includes("review/file")) return false; const r = d.getBoundingClientRect(); return r.top < innerHeight - 40 && r.bottom > 0; })()`)
	shot(t, ctx, "call-panel-360.png")
}

// A task with a very long title keeps its row of the plan table a few
// lines high (the title is clamped, whole in its tooltip and panel).
func TestBrowserPlanLongTitleIsClamped(t *testing.T) {
	f := newFixture(t)
	writePlan(t, f.root)
	long := strings.Repeat("Rotate the signing keys without logging anyone out ", 12)
	f.must(os.WriteFile(filepath.Join(f.root, ".workflow", "active", "WFS-auth", ".task", "IMPL-6.json"),
		[]byte(`{"id": "IMPL-6", "title": "`+long+`", "status": "pending", "meta": {"type": "feature", "agent": "@code-developer"}, "context": {}, "flow_control": {}}`), 0o644))
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(ts.URL+"/plans/WFS-auth")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the task", `document.querySelector('tr[data-id="IMPL-6"]')`)
	if h := jsString(ctx, t, `String(Math.round(document.querySelector('tr[data-id="IMPL-6"]').getBoundingClientRect().height))`); len(h) > 2 {
		t.Errorf("row of the long title is %s px high", h)
	}
	if got := jsString(ctx, t, `document.querySelector('tr[data-id="IMPL-6"] td:nth-child(2)').title`); got != long {
		t.Errorf("title tooltip = %q", got)
	}
}

// srcDetail is a task span's detail with its template's provenance, as a
// *templates.Template has it.
type srcDetail string

func (s srcDetail) Source() string { return string(s) }

// TestBrowserRunningCallShowsItsExecutor: a call still running shows what
// executes it (an agent: the kind label "agent" and agent:claude) and its
// template's provenance, which the journal records when it starts, not
// only when it ends.
func TestBrowserRunningCallShowsItsExecutor(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+f.running)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the running run's two steps", `document.querySelectorAll(".row").length === 2`)
	// The call goes through the journal's sink, as a run's does.
	sink := journal.NewSink(f.live, nil, func(err error) { t.Error(err) })
	tctx := trace.WithSinks(context.Background(), sink)
	_, span := trace.Start(tctx, trace.Task, "code/implement", value.DictOf("plan", value.String("p")), trace.Key("k1"),
		trace.Executor("agent:claude"), trace.Detail(srcDetail("local .evalrun/templates/code-implement.xml:1")))
	span.Running()
	row := `document.querySelector('.row[data-seq="3"]')`
	waitJS(t, ctx, "the running agent call", row+` && `+row+`.querySelector(".dot").classList.contains("running")`)
	waitJS(t, ctx, "its kind and executor", row+`.querySelector(".kind").textContent === "agent" && `+row+`.querySelector(".exe").textContent === "agent:claude"`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="3"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "its panel", `document.querySelector(".detail .kv") && document.querySelector(".detail .kv").innerText.includes("local .evalrun/templates/code-implement.xml:1") && document.querySelector(".detail .kv").innerText.includes("agent:claude")`)
	span.End(trace.ResultOf(&value.TaskResult{Status: value.StatusComplete, Content: "done", Notes: value.DictOf("executor", value.String("agent:claude"))}, false), trace.Usage{})
}

// TestBrowserParallelCallsAreLabelled: the three calls of review/file of
// a parallel-map show their input values in the tree and in their bars'
// titles, so that they can be told apart without opening each.
func TestBrowserParallelCallsAreLabelled(t *testing.T) {
	f := newFixture(t)
	ts := viewerServer(t, f)
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/runs/"+f.failed)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the tree", `document.querySelectorAll(".row").length === 10`)
	got := jsString(ctx, t, `[...document.querySelectorAll(".row")].filter(r => r.querySelector(".nm").textContent === "review/file").map(r => (r.querySelector(".lbl") || {}).textContent + " | " + r.querySelector(".bar:not(.wait)").title.split(":")[0]).join("\n")`)
	want := "api.go | task review/file api.go\nstore.go | task review/file store.go\ncli.go | task review/file cli.go"
	if got != want {
		t.Errorf("review rows:\n%s\nwant:\n%s", got, want)
	}
	// A label gives way before the name does: where the row is too narrow
	// for both, the name is whole and the label cut (code/implement with
	// its "current" tag, in the 1440 px window with the call panel open).
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`.row[data-seq="10"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the call panel", `!document.querySelector(".detail").hidden`)
	names := `(() => [...document.querySelectorAll(".row")].filter(r => r.querySelector(".lbl")).map(r => {
		const nm = r.querySelector(".nm"), lbl = r.querySelector(".lbl");
		return nm.textContent + (nm.scrollWidth > nm.clientWidth ? " cut" : " whole") + (lbl.clientWidth === 0 ? ", no label" : lbl.scrollWidth > lbl.clientWidth ? ", label cut" : "");
	}).join("; "))()`
	want = "plan/generate whole; review/file whole; read_file whole; review/file whole; review/file whole; code/implement whole, label cut"
	if got := jsString(ctx, t, names); got != want {
		t.Errorf("labelled names at 1440 px with the panel open: %s\nwant: %s", got, want)
	}
	shot(t, ctx, "labels.png")
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(360, 740)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "narrow", `window.innerWidth === 360`)
	// On a phone a name may not fit even alone: then its label is gone.
	for _, row := range strings.Split(jsString(ctx, t, names), "; ") {
		if name, lbl, _ := strings.Cut(row, ", "); !strings.HasSuffix(name, " whole") && lbl != "no label" {
			t.Errorf("labelled name at 360 px: %s", row)
		}
	}
	shot(t, ctx, "labels-360.png")
}
