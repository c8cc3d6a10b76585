package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// DefaultDBPath is where the index lives, relative to the project root.
const DefaultDBPath = ".evalrun/index.db"

// schemaVersion is stored in PRAGMA user_version; an index of another
// version is dropped and rebuilt.
const schemaVersion = 3

const schema = `
CREATE TABLE IF NOT EXISTS files (
	id          INTEGER PRIMARY KEY,
	path        TEXT NOT NULL UNIQUE,
	name        TEXT NOT NULL,
	ext         TEXT NOT NULL,
	size        INTEGER NOT NULL,
	mtime       INTEGER NOT NULL,
	sha256      BLOB NOT NULL,
	summary     TEXT NOT NULL,
	identifiers TEXT NOT NULL,
	info        BLOB NOT NULL,
	terms       BLOB
);
CREATE TABLE IF NOT EXISTS skipped (
	path   TEXT PRIMARY KEY,
	size   INTEGER NOT NULL,
	mtime  INTEGER NOT NULL,
	reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS terms (
	id    INTEGER PRIMARY KEY,
	term  TEXT NOT NULL UNIQUE,
	data  BLOB
);
CREATE TABLE IF NOT EXISTS stats (
	id      INTEGER PRIMARY KEY CHECK (id = 1),
	files   INTEGER NOT NULL,
	docs    BLOB,
	listing BLOB,
	skipped INTEGER NOT NULL DEFAULT 0
);
`

// Store is an open index database (SPEC §15.1): the indexed files with their
// metadata and the BM25 posting lists of their content and metadata. It is
// safe for concurrent use; updates are serialised.
type Store struct {
	root    string // absolute
	dbPath  string // absolute
	display string // the database path as the caller named it
	rel     string // the database path relative to the root, "" outside it
	db      *sql.DB
	opts    options

	updateMu    sync.Mutex
	lastRefresh refreshKind // how the last update went; guarded by updateMu

	stmtStats     *sql.Stmt
	stmtCount     *sql.Stmt
	stmtListing   *sql.Stmt
	stmtTerm      *sql.Stmt
	stmtFileByID  *sql.Stmt
	stmtFileByPth *sql.Stmt
}

// Option configures OpenStore, Index and New.
type Option func(*options)

type options struct {
	exclude    func(string) bool // more paths to leave out (benchmarks)
	walk       bool              // list by walking even inside a git work tree (benchmarks)
	dbPath     string
	tokenCount func(string) int
	workers    int
}

// WithDBPath stores the index at path instead of .evalrun/index.db under the
// root; a relative path is taken from the current directory.
func WithDBPath(path string) Option { return func(o *options) { o.dbPath = path } }

// WithTokenCounter replaces the token estimate of the llm strategies
// (bytes/4, rounded up) by f, such as the handler's tokenizer.
func WithTokenCounter(f func(string) int) Option { return func(o *options) { o.tokenCount = f } }

// WithWorkers sets how many goroutines read and hash files while indexing
// (default runtime.NumCPU()).
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

func buildOptions(opts []Option) options {
	var o options
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// OpenStore opens the index of the project at root, creating the database
// (and its directory) when absent. It does not scan the files: call Update.
func OpenStore(root string, opts ...Option) (*Store, error) {
	o := buildOptions(opts)
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	if li, err := os.Lstat(absRoot); err == nil && li.Mode()&os.ModeSymlink != 0 {
		// The walk does not follow links, so resolve a linked root itself.
		if resolved, err := filepath.EvalSymlinks(absRoot); err == nil {
			absRoot = resolved
		}
	}
	info, err := os.Stat(absRoot)
	if err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("memory index: %s is not a directory", root)
	}
	display := o.dbPath
	if display == "" {
		display = filepath.Join(root, filepath.FromSlash(DefaultDBPath))
	}
	dbPath, err := filepath.Abs(display)
	if err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o755); err != nil {
		return nil, fmt.Errorf("memory index: %w", err)
	}
	s := &Store{root: absRoot, dbPath: dbPath, display: display, rel: dbRel(absRoot, dbPath), opts: o}
	if err := s.open(); err != nil {
		if s.db != nil {
			s.db.Close()
		}
		return nil, fmt.Errorf("memory index %s: %w", display, err)
	}
	return s, nil
}

// busyTimeoutMS is how long a connection waits for another's lock.
const busyTimeoutMS = 60000

func (s *Store) open() error {
	q := url.Values{}
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS), "journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(OFF)", "cache_size(-16000)", "mmap_size(268435456)"} {
		q.Add("_pragma", p)
	}
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(s.dbPath)}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	s.db = db
	db.SetMaxIdleConns(4)
	ctx := context.Background()
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if version != schemaVersion {
		stmts := []string{"DROP TABLE IF EXISTS files", "DROP TABLE IF EXISTS skipped", "DROP TABLE IF EXISTS terms", "DROP TABLE IF EXISTS stats",
			schema, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)}
		for _, st := range stmts {
			if _, err := db.ExecContext(ctx, st); err != nil {
				return err
			}
		}
	}
	prep := func(dst **sql.Stmt, q string) {
		if err != nil {
			return
		}
		*dst, err = db.PrepareContext(ctx, q)
	}
	prep(&s.stmtStats, "SELECT files, docs FROM stats WHERE id = 1")
	prep(&s.stmtCount, "SELECT files FROM stats WHERE id = 1")
	prep(&s.stmtListing, "SELECT files, skipped, listing FROM stats WHERE id = 1")
	prep(&s.stmtTerm, "SELECT data FROM terms WHERE term = ?")
	prep(&s.stmtFileByID, "SELECT path, name, ext, size, summary, identifiers FROM files WHERE id = ?")
	prep(&s.stmtFileByPth, "SELECT id, name, ext, size, summary, identifiers FROM files WHERE path = ?")
	return err
}

// Close closes the database.
func (s *Store) Close() error {
	if s == nil || s.db == nil {
		return nil
	}
	for _, st := range []*sql.Stmt{s.stmtStats, s.stmtCount, s.stmtListing, s.stmtTerm, s.stmtFileByID, s.stmtFileByPth} {
		if st != nil {
			st.Close()
		}
	}
	return s.db.Close()
}

// Root returns the absolute project root.
func (s *Store) Root() string { return s.root }

// DBPath returns the database path as the caller named it (for messages).
func (s *Store) DBPath() string { return s.display }

// corpusStats are the figures BM25F needs about the whole index.
type corpusStats struct {
	files int
	docs  *docTable
}

// stats reads the file count and the docs table.
func (s *Store) stats(ctx context.Context) (corpusStats, error) {
	var st corpusStats
	var blob []byte
	err := s.stmtStats.QueryRowContext(ctx).Scan(&st.files, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return corpusStats{}, nil
	}
	if err != nil {
		return st, err
	}
	st.docs, err = decodeDocTable(blob)
	return st, err
}

// FileCount returns the number of indexed files.
func (s *Store) FileCount(ctx context.Context) (int, error) {
	var n int
	err := s.stmtCount.QueryRowContext(ctx).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// FileInfo is the stored metadata of one indexed file.
type FileInfo struct {
	Path        string
	Name        string
	Ext         string
	Size        int64
	Summary     string
	Identifiers []string
}

// MetadataText returns the metadata lines a file_metadata match carries and
// the llm strategies show the model.
func (f FileInfo) MetadataText() string {
	var b strings.Builder
	b.WriteString("path: ")
	b.WriteString(f.Path)
	b.WriteString("\nname: ")
	b.WriteString(f.Name)
	b.WriteString("\nextension: ")
	b.WriteString(f.Ext)
	fmt.Fprintf(&b, "\nsize: %d bytes", f.Size)
	b.WriteString("\nsummary: ")
	b.WriteString(f.Summary)
	b.WriteString("\nidentifiers: ")
	b.WriteString(strings.Join(f.Identifiers, ", "))
	return b.String()
}

// File returns the metadata of the indexed file at path (relative,
// '/'-separated); ok is false when path is not indexed.
func (s *Store) File(ctx context.Context, path string) (info FileInfo, ok bool, err error) {
	var id int64
	var ids string
	err = s.stmtFileByPth.QueryRowContext(ctx, path).Scan(&id, &info.Name, &info.Ext, &info.Size, &info.Summary, &ids)
	if errors.Is(err, sql.ErrNoRows) {
		return FileInfo{}, false, nil
	}
	if err != nil {
		return FileInfo{}, false, err
	}
	info.Path = path
	info.Identifiers = strings.Fields(ids)
	return info, true, nil
}

func (s *Store) fileByID(ctx context.Context, id int64) (FileInfo, error) {
	var info FileInfo
	var ids string
	err := s.stmtFileByID.QueryRowContext(ctx, id).Scan(&info.Path, &info.Name, &info.Ext, &info.Size, &info.Summary, &ids)
	info.Identifiers = strings.Fields(ids)
	return info, err
}

// maxMatchText is the most file text a file_content match carries.
const maxMatchText = 100 << 10

// ReadText returns the text of the indexed file at path, cut to limit bytes
// (at a character boundary) when limit > 0. Invalid UTF-8 is replaced.
func (s *Store) ReadText(path string, limit int) (string, error) {
	f, err := os.Open(filepath.Join(s.root, filepath.FromSlash(path)))
	if err != nil {
		return "", err
	}
	defer f.Close()
	var data []byte
	if limit > 0 {
		buf := make([]byte, limit+4)
		n, err := readFull(f, buf)
		if err != nil {
			return "", err
		}
		data = buf[:n]
	} else {
		st, err := f.Stat()
		if err != nil {
			return "", err
		}
		buf := make([]byte, st.Size()+1)
		n, err := readFull(f, buf)
		if err != nil {
			return "", err
		}
		data = buf[:n]
	}
	text := string(data)
	if limit > 0 {
		text = cutBytes(text, limit)
	}
	return strings.ToValidUTF8(text, "\uFFFD"), nil
}
