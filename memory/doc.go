// Package memory is evalrun's memory system (SPEC §15): a persistent,
// incremental index of the project's files in .evalrun/index.db, BM25F
// ranking of those files against a query over their path, name, defined
// symbols, comments and text (the content and metadata strategies),
// sharded associative matching by a model (the llm and llm-metadata
// strategies) and get_relevant_context_for, the lookup behind get-context,
// fresh context, template description sources and the system_get_context
// tool.
//
// # Entry points
//
//   - Index(ctx, root) builds or updates the index: `evalrun index [PATH]`
//     prints the Stats it returns.
//   - New(root, runner, poolSize) returns the Memory of one run. Its first
//     lookup refreshes the index (building it when absent); later lookups
//     of the same Memory use it as it is. GetRelevantContextFor returns
//     {context_summary, matches, error?}; Result.Value is the dict
//     get-context returns and Result.ToolResult the system_get_context
//     result.
//   - The llm strategies run the built-in templates
//     internal:associative_matching_content and
//     internal:associative_matching_metadata through a TemplateRunner, which
//     the caller implements over its executor: this package does not
//     execute templates.
//
// # The index
//
// Files come from `git ls-files -z --cached --others --exclude-standard` in
// a git work tree and from a directory walk elsewhere (SPEC §15.1). .evalrun/
// and the database itself are never indexed. Files are read, checked,
// hashed and tokenised on runtime.NumCPU() goroutines and written by one,
// in a single transaction (WAL journal, prepared statements; reads go
// through a memory map of the database). A file whose
// size and modification time are unchanged is not read; one whose time
// changed but whose SHA-256 did not only gets its new time. Skipped files
// (binary, too large) are remembered with their size and time so they are
// not read again either.
//
// Each term has one row holding its posting list as a BLOB: per file, in
// increasing id order, the id delta, a byte of the fields the term occurs
// in and its frequency in each of them (uvarints). The fields' lengths and
// the file's kind (test, generated, example) are stored once per file and
// gathered into one BLOB of the stats row, so that a query reads the stats
// row and one row per query term, never the files table, to score. Each
// file row keeps the ids of its terms, so an update rewrites exactly the
// lists of the terms of the files that changed; a changed file gets a new
// id, so new postings are always appended.
//
// A refresh first reads the manifest of the last update (manifest.go), one
// BLOB of the stats row: per directory, in path order, its path, its file
// count and its change time (ctime) as the walk saw it just before reading
// it; per file its name, type, size and modification time. Outside a git
// work tree (found by looking for .git upwards, without starting git), when
// every directory's ctime is older than that walk by 2 s, the refresh
// checks the manifest instead of walking: each directory is opened with
// O_PATH (nothing read) and must still have its ctime, and each file
// (fstatat relative to it) its type, size and time, on up to four
// goroutines. Creating, removing or renaming an entry changes its
// directory's ctime, and editing a file its size or time, so a tree that
// passes this check would list exactly as the manifest: nothing else is
// read and nothing is written. The 2 s margin keeps a change made in the
// same clock tick as the walk's read of its directory from passing
// unseen. The check is Linux's (O_PATH); elsewhere the refresh lists the
// tree every time.
//
// In a git work tree the files are what git ls-files lists, which changes
// only with the git index, an entry created, removed or renamed in a
// directory git looks into, or what git reads to decide what is ignored.
// When the root holds its repository's .git directory, a git listing
// therefore records in the manifest the ctime of every directory git may
// list a file from (a walk skipping .git, .evalrun, nested repositories
// and the directories an ignore pattern matches as a whole, as git
// check-ignore says; a directory holding only ignored files is walked) and the
// stats, through symbolic links, of the index, HEAD, the repository's
// config and info/exclude, every .gitignore in those directories, the
// global and system configuration files, every file git read a setting
// from or that an include names, and the global excludes file, with the GIT_*, HOME and
// XDG_CONFIG_HOME variables (gitstate.go). When all of them hold, with
// the same 2 s rule for every recorded ctime, the refresh runs no git and
// checks the manifest as above. A linked work tree or submodule (a .git
// file), a root below the top of its work tree, or a configuration git
// cannot report always runs git ls-files. A listing whose recorded git
// state still holds (only files or directories changed) reuses what git
// reported of its configuration and ignored directories and runs only git
// ls-files; the state and the directories are recorded while it runs.
//
// Otherwise the refresh lists the tree (directories read by a pool of up to
// four workers through blocking descriptors, each file's size and time read
// by fstatat relative to its directory). When the files are the same as the
// manifest's, nothing is written but a new manifest, when the old one could
// not be trusted and the new one can (without waiting for the write lock;
// a read-only or busy database is left as it is). Otherwise the write
// transaction begins and the stored rows are compared file by file. A file
// that could not be read is therefore tried again only once it changes.
//
// The one change a refresh does not see follows from SPEC §15.1 (files
// whose size and time are unchanged are not re-read): a file rewritten with
// the same size and its old modification time put back, or rewritten
// within the same tick of a coarse file system clock.
//
// # Ranking
//
// The content and metadata strategies rank with BM25F (SPEC §15.2) over
// these fields of a file:
//
//   - dir: the directory part of the path; name: the base name;
//   - symbols: the names the file defines, found by a light scanner of line
//     starts: Go func (methods too), type, const and var, also in ( )
//     blocks; Python def, async def, class and upper-case module
//     constants; JavaScript/TypeScript function, class, interface, type,
//     enum, namespace and top-level const/let/var; Rust fn, struct, enum,
//     trait, type, union, mod, const, static and macro_rules!; Java, Kotlin,
//     C#, Scala and Swift classes, interfaces, enums, records and methods
//     with a modifier; C and C++ #define, struct, class, union, enum,
//     namespace, typedef and functions defined at column 0; shell
//     functions; Markdown headings; for any other file its 20 identifiers;
//   - comments: // and /* */ comments (C-like languages), # comments
//     (Python, shell, YAML, TOML, Makefiles …), Python's triple-quoted
//     strings and its docstrings in single or double quotes (a string
//     alone on its line after a line ending in ':'), other string literals
//     skipped;
//   - text: the text outside the comments;
//   - summary and identifiers: the metadata of SPEC §15.1.
//
// Every field is split into terms the same way: Tokens' parts, each
// reduced by a light English stemmer (parse, parses, parsed, parsing →
// pars; -er, -ion, -ly are kept), and after the parts of an identifier made
// of two parts or more the whole identifier lowercased without
// underscores (ListenAndServe and listen_and_serve → listenandserve), in
// every field but the text and summary of files other than tests. A
// query is split the same way, its repeated terms counted once and common
// English words (the, a, of, returns is not one …) left out unless nothing
// else is left.
//
// Per query term and file, each field's frequency is divided by
// 1 − b_f + b_f·len_f/avglen_f and multiplied by the field's weight w_f; the
// sum x gives idf·x·(k1+1)/(x+k1) with k1 = 1.2 and idf of SPEC §15.2 over
// the files where the term occurs in a ranked field. Files of a kind are
// then multiplied by a factor: test files (_test.go, test_*.py, *.test.ts,
// …, or under test/, tests/, testdata/ …) unless the query says test,
// tests, testing or spec; example files (example_*, under examples/)
// unless it says example; generated files ("Code generated … DO NOT
// EDIT", "@generated"). The weights, chosen on the Go half of the retrieval
// benchmark (bench_retrieval_test.go, TestTuneRetrieval) and checked on the
// Python half, are:
//
//	field        content w / b     metadata w / b
//	dir          1 / 1             4 / 0.3
//	name         2 / 0.3           4 / 0.75
//	symbols      4 / 0.3           —
//	comments     4 / 0.3           —
//	text         0.1 / 0.75        —
//	summary      —                 1 / 0.75
//	identifiers  —                 1 / 0.75
//	test files   × 0.5             × 0.3
//	example      × 0.6             × 0.6
//	generated    × 1               × 1
//
// The search on the Go half preferred dir and name at 0 and text at 0;
// they were set back to the values above, which cost 0.3 and 0.9 points
// of recall@5 there, because people name files and directories in their
// questions ("the HTTP server") and because a term found only in code
// must still find its file. docs/retrieval.md has the benchmark's
// figures.
//
// No prior for files whose symbols many files reference is applied.
// BenchmarkReferencePrior (bench_prior_test.go) measured one — the score
// multiplied by 1 + β·min(1, ln(1 + refs)/ln 101), refs counting the files
// of other directories that mention a symbol the file defines — by
// reranking the content ranking: on the Go half no β from 0.02 to 0.2
// moved recall@1, recall@5 or MRR by more than one or two queries in 600,
// and on the Python half every β from 0.05 up lost recall@5, so the index
// does not compute it.
//
// # Why posting lists and not FTS5
//
// modernc.org/sqlite includes FTS5, and an FTS5 table of pre-tokenised text
// was measured against the posting lists of the plain BM25 the package
// served before BM25F, on GOROOT/src (9,632 files indexed, 752 skipped; 2
// cores, `go test -bench 'FTS5|Goroot' ./memory/`, fts5_compare_test.go,
// which still builds that FTS5 table and checks it against the plain BM25
// baseline of the retrieval benchmark):
//
//	                              posting lists      FTS5 (contentless)
//	cold build, wall / CPU        2.3 s / 2.8 s      2.9 s / 2.9 s (content only)
//	database size                 26.8 MiB           23.1 MiB (content only)
//	rank, p50 / p90               0.64 / 1.96 ms     6.0 / 33.8 ms
//	rank with FTS5's own bm25()   —                  4.5 / 14.0 ms (wrong idf)
//
// FTS5's bm25() fixes idf = ln((N−n+0.5)/(n+0.5)), not the ln(1 + …) of
// SPEC §15.2, and cannot be told otherwise from Go, so the exact ranking
// needs one MATCH per query term and a rescaling of each term's score: ten
// times slower than decoding the term's posting BLOB, with a long tail for
// common terms. BM25F needs per-field frequencies, which one FTS5 column
// per field could give only with a MATCH per term and column, so the
// package keeps its own posting lists.
//
// TestRelevanceGoroot checks that 12 natural-language questions about the
// standard library (testdata/relevance.json) find the file a Go engineer
// would name in the top 5; 11 do ("SHA-256 checksum of data" finds the
// SHA-512 and FIPS SHA-256 files first).
//
// # Decisions beyond the specification
//
//   - BM25F sums over the distinct query terms, as tasksystem's BM25 over
//     ambient items does.
//   - Identifier candidates are runs of letters, digits and underscores not
//     starting with a digit.
//   - The llm strategies take their 40 candidates from the content ranking;
//     when fewer than 40 files score above zero the rest are filled in path
//     order, so that a small project is shown to the model whole. A
//     candidate block is `<file path="P">`, the metadata lines, `---` and up
//     to 4 KiB of text for llm, then `</file>`.
//   - The stemmer of scanTerms is lighter than Porter's and the same at
//     indexing and at query time; a query's stop words are a fixed English
//     list (stopwords in terms.go).
//   - The summary quotes the query with its white space collapsed and says
//     `, K unknown ids dropped` inside the parentheses when an llm strategy
//     dropped ids.
//
// # Example
//
//	mem := memory.New(root, runner, 8) // runner: a TemplateRunner, or nil
//	defer mem.Close()
//	res := mem.GetRelevantContextFor(ctx, memory.Query{Query: "retry policy", TopK: 5})
//	fmt.Println(res.ContextSummary) // 2 matches for "retry policy" (content strategy, 412 files indexed)
//	for _, m := range res.Matches {
//		fmt.Println(m.ID, m.RelevanceScore)
//	}
package memory
