package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pendingPages are pages that other changes add to docs/. Until a page
// exists, links to it are not checked, so that this change and those can be
// merged in any order; once it exists, every link to it (and its anchors)
// is checked like any other.
var pendingPages = map[string]bool{
	"docs/architecture.md": true,
	"docs/agents.md":       true,
	"docs/plans.md":        true,
	"docs/viewer.md":       true,
	"docs/retrieval.md":    true,
}

// linkRE matches an inline Markdown link or image target: [text](target).
var linkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// linkedPages are the Markdown files whose links are checked: the README,
// every page of docs/ and the READMEs of examples/ and editors/.
func linkedPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"../README.md"}
	for _, pattern := range []string{"*.md", "../examples/*.md", "../examples/*/README.md", "../editors/*.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	return pages
}

// TestLinks checks that every link of the README and the docs resolves to
// a file (and anchor) inside the repository, so that a fresh clone has no
// broken link. Links to web pages are not followed.
func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range linkedPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		text := stripCode(string(data))
		if strings.Contains(text, "../shared") {
			t.Errorf("%s: mentions ../shared, which is not part of the repository", page)
		}
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			abs, _ := filepath.Abs(page)
			if file != "" {
				abs = filepath.Join(filepath.Dir(abs), filepath.FromSlash(file))
			}
			rel, err := filepath.Rel(root, abs)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s: link %s leaves the repository", page, target)
				continue
			}
			// A page of docs/ links only inside docs/, so that the pages
			// read as one set wherever they are published; other files of
			// the repository are named as paths, not linked.
			if strings.HasPrefix(filepath.ToSlash(pageOf(root, page)), "docs/") && !strings.HasPrefix(filepath.ToSlash(rel), "docs/") {
				t.Errorf("%s: link %s leaves docs/; name the file as a path instead", page, target)
				continue
			}
			info, err := os.Stat(abs)
			if err != nil {
				if pendingPages[filepath.ToSlash(rel)] {
					continue
				}
				t.Errorf("%s: link %s: %s does not exist", page, target, filepath.ToSlash(rel))
				continue
			}
			checked++
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(abs, ".md") {
				t.Errorf("%s: link %s: an anchor needs a Markdown file", page, target)
				continue
			}
			body, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			if !anchors(string(body))[anchor] {
				t.Errorf("%s: link %s: %s has no heading with the anchor #%s", page, target, filepath.ToSlash(rel), anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no link was checked")
	}
}

// stripCode removes fenced code blocks and inline code spans, whose text is
// not a link.
func stripCode(text string) string {
	lines := strings.Split(stripFences(text), "\n")
	for i, l := range lines {
		lines[i] = codeSpanRE.ReplaceAllString(l, "``")
	}
	return strings.Join(lines, "\n")
}

// stripFences removes fenced code blocks.
func stripFences(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	fence := ""
	for _, l := range lines {
		if m := fenceRE.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[1]
				continue
			case strings.HasPrefix(l, fence) && strings.TrimSpace(l[len(fence):]) == "":
				fence = ""
				continue
			}
		}
		if fence == "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

var codeSpanRE = regexp.MustCompile("`[^`]*`")

// anchors returns the anchors GitHub gives the headings of a page: the
// heading text lower-cased, with everything but letters, digits, spaces,
// hyphens and underscores removed and spaces turned into hyphens; repeated
// anchors get -1, -2….
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, l := range strings.Split(stripFences(text), "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimLeft(l, "#")
		if h == "" || h[0] != ' ' {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && !strings.ContainsRune("→⇒…—–‘’“”", r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[a+"-"+itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// TestAnchors pins the heading-to-anchor rule on a few headings.
func TestAnchors(t *testing.T) {
	a := anchors("# evalrun\n## 7. Special forms\n## `let`, `let*`\n## Exit codes\n## Exit codes\n```\n# not a heading\n```\n")
	for _, want := range []string{"evalrun", "7-special-forms", "let-let", "exit-codes", "exit-codes-1"} {
		if !a[want] {
			t.Errorf("anchor %q missing from %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line inside a code block was taken for a heading")
	}
}

// pageOf returns page relative to the repository root.
func pageOf(root, page string) string {
	abs, _ := filepath.Abs(page)
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return page
	}
	return rel
}
