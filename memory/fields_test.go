package memory

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTermsAndStem(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ListenAndServe", []string{"listen", "and", "serv", "listenandserve"}},
		{"listen_and_serve", []string{"listen", "and", "serv", "listenandserve"}},
		{"handshake_client.go", []string{"handshak", "client", "handshakeclient", "go"}},
		{"parse parses parsed parsing", []string{"pars", "pars", "pars", "pars"}},
		{"server serves running classes", []string{"server", "serv", "run", "class"}},
		{"policies address status uses bus", []string{"policy", "address", "status", "use", "bus"}},
		{"parseURL_v2", []string{"pars", "url", "v2", "parseurlv2"}},
		{"Größe_Wert", []string{"größe", "wert", "größewert"}},
		{"x _ __init__", []string{"x", "init"}},
	}
	for _, tt := range tests {
		if got := Terms(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("Terms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := queryTerms("the TLS clients handshake of the client"), []string{"tls", "client", "handshak"}; !cmp.Equal(got, want) {
		t.Errorf("queryTerms = %q, want %q", got, want)
	}
	if got, want := queryTerms("the of and"), []string{"the", "of", "and"}; !cmp.Equal(got, want) {
		t.Errorf("queryTerms of stop words only = %q, want %q", got, want)
	}
}

func TestDefinitions(t *testing.T) {
	tests := []struct {
		path, text string
		want       []string
	}{
		{"a.go", "package a\n\n// Serve serves.\nfunc Serve() {}\nfunc (s *Server) ListenAndServe() error {\n\tx := 1\n}\ntype Handler interface{}\nconst Max = 1\nvar (\n\tErrX = 1\n\terrY = 2\n)\nconst (\n\tA = iota\n)\n", []string{"Serve", "ListenAndServe", "Handler", "Max", "ErrX", "errY", "A"}},
		{"m.py", "import os\nMAX_SIZE = 10\nx = 1\nclass Parser:\n    def parse(self):\n        pass\nasync def fetch():\n    pass\n", []string{"MAX_SIZE", "Parser", "parse", "fetch"}},
		{"m.ts", "export default function main() {}\nexport class Api {}\ninterface Opts {}\nexport type Id = string\nconst limit = 3\n  const inner = 4\n", []string{"main", "Api", "Opts", "Id", "limit"}},
		{"l.rs", "pub fn run() {}\npub(crate) struct Conf;\nimpl Conf {\n    pub async fn start(&self) {}\n}\nconst fn twice() {}\nmacro_rules! m {}\nstatic mut COUNT: u32 = 0;\n", []string{"run", "Conf", "start", "twice", "m", "COUNT"}},
		{"A.java", "public class Api {\n  private static int count(String s) {\n    if (x) {}\n  }\n  enum Kind {}\n}\n", []string{"Api", "count", "Kind"}},
		{"x.c", "#define MAX 3\nstatic int\nparse_args(int argc)\n{\n  if (x) return;\n}\nint helper(void);\nstruct conf {\n};\ntypedef unsigned long size_type;\nvoid Cls::method() {}\n", []string{"MAX", "parse_args", "conf", "size_type", "method"}},
		{"run.sh", "#!/bin/sh\nusage() {\n  echo\n}\nfunction build {\n}\n", []string{"usage", "build"}},
		{"README.md", "# Title\n\n```\n# not a heading\n```\n## Getting started\n#nospace\n", []string{"Title", "Getting started"}},
		{"data.txt", "see ParseURL and max_size here", []string{"ParseURL", "max_size"}},
	}
	for _, tt := range tests {
		if got := scanFields(tt.path, tt.text).symbols; !cmp.Equal(got, tt.want) {
			t.Errorf("%s: symbols %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestComments(t *testing.T) {
	goSrc := "// Doc line.\nvar s = \"// not a comment\"\nvar r = `/* raw */`\nvar c = '\"'\n/* block\ncomment */\nx := 1 // trailing\n"
	if got, want := scanFields("a.go", goSrc).comments, []string{" Doc line.", " block\ncomment ", " trailing"}; !cmp.Equal(got, want) {
		t.Errorf("Go comments %q, want %q", got, want)
	}
	pySrc := "# top\ndef f():\n    \"\"\"Return the thing.\"\"\"\n    s = '# not'\n    return s  # why\n"
	if got, want := scanFields("m.py", pySrc).comments, []string{" top", "Return the thing.", " why"}; !cmp.Equal(got, want) {
		t.Errorf("Python comments %q, want %q", got, want)
	}
	// Docstrings in single or double quotes are comments; other strings
	// alone on a line are not.
	pySrc = "'Module doc.'\nclass C:\n    'Class doc.'\ndef add(a, b) -> int:\n    \"Same as a + b.\"  # doc\n    x = (\n        \"not a doc\"\n    )\n    return 'no'\n"
	if got, want := scanFields("op.py", pySrc).comments, []string{"Module doc.", "Class doc.", "Same as a + b.", " doc"}; !cmp.Equal(got, want) {
		t.Errorf("Python one-line docstrings %q, want %q", got, want)
	}
	shSrc := "echo $# # count\n# note\n"
	if got, want := scanFields("a.sh", shSrc).comments, []string{" count", " note"}; !cmp.Equal(got, want) {
		t.Errorf("shell comments %q, want %q", got, want)
	}
}

func TestKindFlags(t *testing.T) {
	tests := []struct {
		path, text string
		want       uint8
	}{
		{"net/http/server.go", "package http", 0},
		{"net/http/server_test.go", "", flagTest},
		{"net/http/example_test.go", "", flagTest | flagExample},
		{"testing/testing.go", "", 0},
		{"test/test_os.py", "", flagTest},
		{"lib/test_util.py", "", flagTest},
		{"src/app.spec.ts", "", flagTest},
		{"internal/testdata/x.go", "", flagTest},
		{"examples/demo/main.go", "", flagExample},
		{"syscall/zerrors_linux.go", "// Code generated by the command above; DO NOT EDIT.\n", flagGenerated},
		{"api/x.pb.go", "", flagGenerated},
	}
	for _, tt := range tests {
		if got := kindFlags(tt.path, tt.text); got != tt.want {
			t.Errorf("kindFlags(%q) = %b, want %b", tt.path, got, tt.want)
		}
	}
}
