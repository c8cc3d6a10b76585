package memory

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits of SPEC §15.1.
const (
	maxFileSize = 1 << 20 // larger files are skipped
	sniffSize   = 8 << 10 // the prefix checked for NUL bytes and invalid UTF-8
)

// Reasons a listed file is not indexed, as stored in the skipped table.
const (
	skipBinary   = "binary"
	skipTooLarge = "too large"
)

// Stats counts what one Update did.
type Stats struct {
	// Files is the number of files in the index afterwards.
	Files int
	// Added, Updated and Removed count the files whose entries were
	// created, replaced and deleted.
	Added, Updated, Removed int
	// Skipped counts the listed files that are not indexed: symbolic links
	// and other non-regular files, files over 1 MiB, binary files and files
	// that could not be read.
	Skipped int
	// DBPath is the database as the caller named it.
	DBPath string
	// Elapsed is how long the update took.
	Elapsed time.Duration
}

// String returns the line `evalrun index` prints (SPEC §15.1):
// `indexed 412 files (12 added, 3 updated, 1 removed, 7 skipped) in .evalrun/index.db`.
func (st Stats) String() string {
	return fmt.Sprintf("indexed %d files (%d added, %d updated, %d removed, %d skipped) in %s",
		st.Files, st.Added, st.Updated, st.Removed, st.Skipped, st.DBPath)
}

// Index builds or updates the index of the project at root (by default in
// root/.evalrun/index.db) and returns what it did: `evalrun index [PATH]`.
func Index(ctx context.Context, root string, opts ...Option) (Stats, error) {
	s, err := OpenStore(root, opts...)
	if err != nil {
		return Stats{}, err
	}
	st, err := s.Update(ctx)
	if cerr := s.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("memory index: %w", cerr)
	}
	return st, err
}

// storedFile is a files row as the update compares it with the disk.
type storedFile struct {
	id    int64
	size  int64
	mtime int64
	sha   []byte
}

type skipRow struct {
	size, mtime int64
	reason      string
}

// readJob is a file whose content must be read; old is its current row, if
// any.
type readJob struct {
	f   listedFile
	old *storedFile
}

// readResult is what a worker learned about one file.
type readResult struct {
	job      readJob
	err      error  // unreadable
	skip     string // a skip reason, or ""
	sameHash bool   // content unchanged: only the time moved
	doc      *docData
}

// docData is everything stored for one indexed file.
type docData struct {
	path, name, ext string
	size, mtime     int64
	sha             []byte
	summary         string
	identifiers     []string
	info            docInfo
	counts          *fieldCounts
}

// termEntry is a term touched by an update: its id, whether it is already
// stored, and its new postings.
type termEntry struct {
	id       int64
	term     string
	existing bool
	p        plist
}

// Update brings the index up to date with the files under the root and
// returns what it did. Files whose size and modification time are unchanged
// are not read again; files that disappeared are removed. The whole update
// is one transaction.
func (s *Store) Update(ctx context.Context) (Stats, error) {
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	start := time.Now()
	st, err := s.update(ctx)
	st.DBPath = s.display
	st.Elapsed = time.Since(start)
	if err != nil {
		return st, fmt.Errorf("memory index %s: %w", s.display, err)
	}
	return st, nil
}

// exclude reports whether a listed path is the index itself or under
// .evalrun/, which is never indexed.
func (s *Store) exclude(p string) bool {
	if p == ".evalrun" || strings.HasPrefix(p, ".evalrun/") {
		return true
	}
	if s.opts.exclude != nil && s.opts.exclude(p) {
		return true
	}
	rel := s.rel
	if rel == "" || !strings.HasPrefix(p, rel) {
		return false
	}
	switch p[len(rel):] {
	case "", "-wal", "-shm", "-journal":
		return true
	}
	return false
}

// refreshKind says how the last update of a Store went (for tests).
type refreshKind int

const (
	refreshNone     refreshKind = iota
	refreshVerified             // the manifest still held: nothing listed
	refreshListed               // listed, nothing changed
	refreshWritten              // listed and compared in a write transaction
)

// saveManifest replaces the stored manifest old by cur, so that the next
// refresh can trust it, unless another update replaced it meanwhile. It is
// an optimisation of a refresh that found nothing to do: it does not wait
// for the write lock, and its failures (a locked or read-only database)
// are ignored.
func (s *Store) saveManifest(ctx context.Context, old, cur []byte) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return
	}
	conn.ExecContext(ctx, "UPDATE stats SET listing = ? WHERE id = 1 AND listing = ?", cur, old)
	conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeoutMS))
}

// dbRel returns the database's path relative to the root, '/'-separated,
// or "" when it lies outside the root.
func dbRel(root, dbPath string) string {
	rel, err := filepath.Rel(root, dbPath)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// updatePlan is what an update must do, decided by comparing the listing
// with the stored rows.
type updatePlan struct {
	keep     map[string]bool // stored paths that stay
	newSkips map[string]skipRow
	jobs     []readJob
	skipped  int
}

// plan compares the listed files with the stored ones.
func plan(listed []listedFile, stored map[string]storedFile, oldSkips map[string]skipRow) *updatePlan {
	p := &updatePlan{keep: make(map[string]bool, len(stored)), newSkips: make(map[string]skipRow)}
	for _, f := range listed {
		switch {
		case !f.regular:
			p.skipped++
			continue
		case f.size > maxFileSize:
			p.skipped++
			p.newSkips[f.path] = skipRow{f.size, f.mtime, skipTooLarge}
			continue
		}
		old, ok := stored[f.path]
		if ok && old.size == f.size && old.mtime == f.mtime {
			p.keep[f.path] = true
			continue
		}
		if sk, ok := oldSkips[f.path]; ok && sk.size == f.size && sk.mtime == f.mtime {
			p.skipped++
			p.newSkips[f.path] = sk
			continue
		}
		job := readJob{f: f}
		if ok {
			job.old = &old
		}
		p.jobs = append(p.jobs, job)
	}
	return p
}

func (s *Store) update(ctx context.Context) (st Stats, err error) {
	// The manifest of the last update comes first: when the tree is
	// walked (not listed by git) and a check of its directories' ctimes
	// and files' stats finds nothing changed, as on most lookups, nothing
	// else is read and nothing is written (manifest.go).
	var snapFiles, snapSkipped int
	var snap []byte
	snapErr := s.stmtListing.QueryRowContext(ctx).Scan(&snapFiles, &snapSkipped, &snap)
	if snapErr != nil && !errors.Is(snapErr, sql.ErrNoRows) {
		return st, snapErr
	}
	var old *manifest
	if snapErr == nil {
		old, _ = decodeManifest(snap)
	}
	walk := s.opts.walk || !inGitTree(s.root)
	var gitHolds bool // the git state of old holds
	if old != nil && !walk && old.git != nil {
		gitHolds = gitDirAtRoot(s.root) && old.git.stampOK(s.root)
	}
	if old != nil && old.trusted(s.rel) && (walk && old.walked || gitHolds) && verifyManifest(ctx, s.root, old) {
		st.Files, st.Skipped = snapFiles, snapSkipped
		s.lastRefresh = refreshVerified
		return st, nil
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}

	// Otherwise list the tree. When the files are the same, only the
	// manifest is rewritten, and only when the new one can be trusted
	// by the next refresh.
	var prev *gitStamp
	if gitHolds && old.gitStateTrusted() {
		prev = old.git
	}
	listed, err := listFiles(ctx, s.root, s.exclude, walk, prev)
	if err != nil {
		return st, err
	}
	listing := encodeManifest(listed, s.rel)
	if old != nil {
		cur, err := decodeManifest(listing)
		if err != nil {
			return st, err
		}
		if sameFiles(old, cur) {
			st.Files, st.Skipped = snapFiles, snapSkipped
			s.lastRefresh = refreshListed
			if canVerify && cur.trusted(s.rel) && !bytes.Equal(snap, listing) {
				s.saveManifest(ctx, snap, listing)
			}
			return st, nil
		}
	}

	s.lastRefresh = refreshWritten
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return st, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return st, err
	}
	committed := false
	defer func() {
		if !committed {
			// The context may be cancelled: roll back regardless.
			conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()

	// Another process may have updated the index meanwhile: plan again
	// inside the transaction.
	stored, maxID, err := loadFiles(ctx, conn)
	if err != nil {
		return st, err
	}
	oldSkips, err := loadSkips(ctx, conn)
	if err != nil {
		return st, err
	}
	p := plan(listed.files, stored, oldSkips)
	keep, newSkips, jobs := p.keep, p.newSkips, p.jobs
	st.Skipped = p.skipped
	// The hashes of the files to read tell a touched file from a changed one.
	for i := range jobs {
		if jobs[i].old == nil {
			continue
		}
		if err := conn.QueryRowContext(ctx, "SELECT sha256 FROM files WHERE id = ?", jobs[i].old.id).Scan(&jobs[i].old.sha); err != nil {
			return st, err
		}
	}

	w := &writer{s: s, conn: conn, ctx: ctx, cold: len(stored) == 0, nextID: maxID + 1,
		terms: make(map[string]*termEntry), removed: make(map[int64]bool), touched: make(map[int64]bool)}
	if err := w.prepare(); err != nil {
		return st, err
	}
	defer w.close()
	if w.cold {
		// No file, so no posting: start the terms afresh.
		if _, err := conn.ExecContext(ctx, "DELETE FROM terms"); err != nil {
			return st, err
		}
	} else if err := w.loadNextTermID(); err != nil {
		return st, err
	}

	// Read, hash and tokenise in parallel; write in this goroutine.
	results := s.readAll(ctx, jobs)
	for r := range results {
		if err != nil {
			continue // drain
		}
		switch {
		case r.err != nil:
			st.Skipped++
		case r.skip != "":
			st.Skipped++
			newSkips[r.job.f.path] = skipRow{r.job.f.size, r.job.f.mtime, r.skip}
		case r.sameHash:
			keep[r.job.f.path] = true
			if _, e := w.touch.ExecContext(ctx, r.job.f.mtime, r.job.old.id); e != nil {
				err = e
			}
			w.changed = true
		default:
			if r.job.old != nil {
				st.Updated++
				if e := w.removeDoc(r.job.old.id); e != nil {
					err = e
					continue
				}
			} else {
				st.Added++
			}
			if e := w.addDoc(r.doc); e != nil {
				err = e
			}
		}
	}
	if err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}

	// Files no longer listed (or now skipped) are removed.
	for p, f := range stored {
		if !keep[p] && !w.removed[f.id] {
			st.Removed++
			if err := w.removeDoc(f.id); err != nil {
				return st, err
			}
		}
	}
	if err := w.flushTerms(); err != nil {
		return st, err
	}
	if err := w.syncSkips(oldSkips, newSkips); err != nil {
		return st, err
	}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM files").Scan(&st.Files); err != nil {
		return st, err
	}
	if err := w.writeStats(w.changed, listing, st.Skipped); err != nil {
		return st, err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return st, err
	}
	committed = true
	if st.Added+st.Updated+st.Removed > 1000 {
		// Give the space of a large rebuild's write-ahead log back.
		conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	return st, nil
}

// querier is a *sql.DB or a *sql.Conn.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// loadFiles reads the stored files' ids, paths, sizes and times (not their
// hashes, which only the files to read need).
func loadFiles(ctx context.Context, conn querier) (map[string]storedFile, int64, error) {
	rows, err := conn.QueryContext(ctx, "SELECT id, path, size, mtime FROM files")
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := make(map[string]storedFile)
	var maxID int64
	for rows.Next() {
		var f storedFile
		var p string
		if err := rows.Scan(&f.id, &p, &f.size, &f.mtime); err != nil {
			return nil, 0, err
		}
		out[p] = f
		maxID = max(maxID, f.id)
	}
	return out, maxID, rows.Err()
}

func loadSkips(ctx context.Context, conn querier) (map[string]skipRow, error) {
	rows, err := conn.QueryContext(ctx, "SELECT path, size, mtime, reason FROM skipped")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]skipRow)
	for rows.Next() {
		var p string
		var r skipRow
		if err := rows.Scan(&p, &r.size, &r.mtime, &r.reason); err != nil {
			return nil, err
		}
		out[p] = r
	}
	return out, rows.Err()
}

// readAll reads the jobs' files on runtime.NumCPU() goroutines and delivers
// the results on the returned channel, which is closed when all are done.
func (s *Store) readAll(ctx context.Context, jobs []readJob) <-chan readResult {
	workers := s.opts.workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(jobs)))
	in := make(chan readJob)
	out := make(chan readResult, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 64<<10)
			tc := newTermCounter()
			for j := range in {
				var r readResult
				r, buf = s.readFile(j, buf, tc)
				out <- r
			}
		}()
	}
	go func() {
		defer close(in)
		for _, j := range jobs {
			select {
			case in <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

// readFile reads, checks, hashes and tokenises one file. buf is reused
// storage for the file's bytes, tc the worker's term counter.
func (s *Store) readFile(j readJob, buf []byte, tc *termCounter) (readResult, []byte) {
	r := readResult{job: j}
	f, err := os.Open(filepath.Join(s.root, filepath.FromSlash(j.f.path)))
	if err != nil {
		r.err = err
		return r, buf
	}
	defer f.Close()
	want := int(min(j.f.size, maxFileSize)) + 1
	if cap(buf) < want {
		buf = make([]byte, want)
	}
	data := buf[:want]
	n, err := readFull(f, data)
	if err != nil {
		r.err = err
		return r, buf
	}
	data = data[:n]
	if n == want && want <= maxFileSize {
		// The file grew after it was listed: read the rest, up to the limit.
		rest, err := io.ReadAll(io.LimitReader(f, maxFileSize+1-int64(n)))
		if err != nil {
			r.err = err
			return r, buf
		}
		data = append(data[:n:n], rest...)
		n = len(data)
	}
	if n > maxFileSize {
		r.skip = skipTooLarge
		return r, buf
	}
	if isBinary(data) {
		r.skip = skipBinary
		return r, buf
	}
	sum := sha256.Sum256(data)
	if j.old != nil && bytes.Equal(j.old.sha, sum[:]) && int64(n) == j.old.size {
		r.sameHash = true
		return r, buf
	}
	text := string(data)
	d := &docData{
		path:  j.f.path,
		name:  path.Base(j.f.path),
		ext:   path.Ext(j.f.path),
		size:  int64(n),
		mtime: j.f.mtime,
		sha:   sum[:],
	}
	d.summary = summaryOf(text)
	d.identifiers = identifiersOf(text)
	ff := scanFields(d.path, text)
	d.info.flags = ff.flags
	var fields [numFields][]string
	fields[fieldDir] = []string{path.Dir(d.path)}
	fields[fieldName] = []string{d.name}
	fields[fieldSymbols] = ff.symbols
	fields[fieldComments] = ff.comments
	fields[fieldText] = ff.code
	fields[fieldSummary] = []string{d.summary}
	fields[fieldIdents] = d.identifiers
	// The names a test file defines (TestParseURL, BenchmarkCopy17) are
	// not kept whole: in GOROOT/src they are one term row in twelve, and
	// their parts find them as well.
	d.counts = tc.count(&fields, ff.flags&flagTest == 0)
	d.info.lens = d.counts.lens
	r.doc = d
	return r, buf
}

// readFull reads into buf until it is full or the file ends.
func readFull(r io.Reader, buf []byte) (int, error) {
	n, err := io.ReadFull(r, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// isBinary reports whether data has a NUL byte or invalid UTF-8 in its first
// 8 KiB. A character cut by the 8 KiB boundary is not invalid.
func isBinary(data []byte) bool {
	head := data
	cut := len(head) > sniffSize
	if cut {
		head = head[:sniffSize]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if utf8.Valid(head) {
		return false
	}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			// Valid only as the start of a character the boundary cut.
			return !(cut && !utf8.FullRune(head[i:]) && validAt(data, i))
		}
		i += size
	}
	return false
}

// validAt reports whether a valid character starts at data[i].
func validAt(data []byte, i int) bool {
	r, size := utf8.DecodeRune(data[i:])
	return !(r == utf8.RuneError && size == 1)
}

// writer applies one update's changes inside its transaction.
type writer struct {
	s       *Store
	conn    *sql.Conn
	ctx     context.Context
	cold    bool // the index was empty: no stored term needs merging
	changed bool

	nextID     int64
	nextTermID int64
	terms      map[string]*termEntry
	removed    map[int64]bool // ids of deleted rows (updated or gone)
	touched    map[int64]bool // ids of the terms of deleted rows

	insFile, delFile, touch, termID, termByID, insTerm, updTerm, delTerm, fwd *sql.Stmt
}

func (w *writer) prepare() error {
	var err error
	prep := func(dst **sql.Stmt, q string) {
		if err == nil {
			*dst, err = w.conn.PrepareContext(w.ctx, q)
		}
	}
	prep(&w.insFile, `INSERT INTO files(id, path, name, ext, size, mtime, sha256, summary, identifiers, info, terms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	prep(&w.delFile, "DELETE FROM files WHERE id = ?")
	prep(&w.touch, "UPDATE files SET mtime = ? WHERE id = ?")
	prep(&w.termID, "SELECT id FROM terms WHERE term = ?")
	prep(&w.termByID, "SELECT data FROM terms WHERE id = ?")
	prep(&w.insTerm, "INSERT INTO terms(id, term, data) VALUES "+valueRows(insertBatch))
	prep(&w.updTerm, "UPDATE terms SET data = ? WHERE id = ?")
	prep(&w.delTerm, "DELETE FROM terms WHERE id = ?")
	prep(&w.fwd, "SELECT terms FROM files WHERE id = ?")
	return err
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.insFile, w.delFile, w.touch, w.termID, w.termByID, w.insTerm, w.updTerm, w.delTerm, w.fwd} {
		if st != nil {
			st.Close()
		}
	}
}

func (w *writer) loadNextTermID() error {
	var maxID sql.NullInt64
	if err := w.conn.QueryRowContext(w.ctx, "SELECT max(id) FROM terms").Scan(&maxID); err != nil {
		return err
	}
	w.nextTermID = maxID.Int64 + 1
	return nil
}

// entry returns the update's entry for term, looking up its stored id.
func (w *writer) entry(term string) (*termEntry, error) {
	if e := w.terms[term]; e != nil {
		return e, nil
	}
	e := &termEntry{term: term}
	if !w.cold {
		err := w.termID.QueryRowContext(w.ctx, term).Scan(&e.id)
		switch {
		case err == nil:
			e.existing = true
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	}
	if !e.existing {
		if w.nextTermID == 0 {
			w.nextTermID = 1
		}
		e.id = w.nextTermID
		w.nextTermID++
	}
	w.terms[term] = e
	return e, nil
}

// addDoc inserts a file row with a new id and queues its postings.
func (w *writer) addDoc(d *docData) error {
	id := w.nextID
	w.nextID++
	w.changed = true
	termIDs := make([]int64, 0, len(d.counts.terms))
	for i, t := range d.counts.terms {
		e, err := w.entry(t)
		if err != nil {
			return err
		}
		e.p.add(id, &d.counts.tf[i])
		termIDs = append(termIDs, e.id)
	}
	slices.Sort(termIDs)
	_, err := w.insFile.ExecContext(w.ctx, id, d.path, d.name, d.ext, d.size, d.mtime, d.sha, d.summary,
		strings.Join(d.identifiers, " "), encodeDocInfo(d.info), encodeIDs(termIDs))
	return err
}

// removeDoc deletes a file row and remembers its terms, whose posting
// lists lose the document when flushed.
func (w *writer) removeDoc(id int64) error {
	w.changed = true
	w.removed[id] = true
	var b []byte
	if err := w.fwd.QueryRowContext(w.ctx, id).Scan(&b); err != nil {
		return err
	}
	tids, err := decodeIDs(b)
	if err != nil {
		return err
	}
	for _, tid := range tids {
		w.touched[tid] = true
	}
	_, err = w.delFile.ExecContext(w.ctx, id)
	return err
}

// insertBatch is how many new terms one INSERT statement writes.
const insertBatch = 128

// valueRows returns n rows of three placeholders: (?, ?, ?), (?, ?, ?) …
func valueRows(n int) string {
	return strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", n), ", ")
}

// flushTerms writes the posting lists of every touched term.
func (w *writer) flushTerms() error {
	entries := make([]*termEntry, 0, len(w.terms)+len(w.touched))
	for _, e := range w.terms {
		entries = append(entries, e)
		if e.existing {
			delete(w.touched, e.id)
		}
	}
	for id := range w.touched {
		entries = append(entries, &termEntry{id: id, existing: true})
	}
	slices.SortFunc(entries, func(a, b *termEntry) int { return cmp.Compare(a.id, b.id) })
	// New terms are inserted insertBatch rows per statement: a cold build
	// inserts hundreds of thousands.
	var batch []any
	flush := func() error {
		n := len(batch) / 3
		if n == 0 {
			return nil
		}
		var err error
		if n == insertBatch {
			_, err = w.insTerm.ExecContext(w.ctx, batch...)
		} else {
			_, err = w.conn.ExecContext(w.ctx, "INSERT INTO terms(id, term, data) VALUES "+valueRows(n), batch...)
		}
		batch = batch[:0]
		return err
	}
	for _, e := range entries {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if !e.existing {
			batch = append(batch, e.id, e.term, nullBlob(e.p.blob()))
			if len(batch) == 3*insertBatch {
				if err := flush(); err != nil {
					return err
				}
			}
			continue
		}
		var old []byte
		if err := w.termByID.QueryRowContext(w.ctx, e.id).Scan(&old); err != nil {
			return err
		}
		merged, err := mergePostings(old, w.removed, &e.p)
		if err != nil {
			return err
		}
		if merged == nil {
			_, err = w.delTerm.ExecContext(w.ctx, e.id)
		} else if !bytes.Equal(merged, old) {
			_, err = w.updTerm.ExecContext(w.ctx, merged, e.id)
		}
		if err != nil {
			return err
		}
	}
	return flush()
}

// writeStats rewrites the stats row: the listing the update saw and its
// count of skipped files, and when files changed the file count and the
// docs table of every file's flags and field lengths.
func (w *writer) writeStats(changed bool, listing []byte, skipped int) error {
	if !changed {
		res, err := w.conn.ExecContext(w.ctx, "UPDATE stats SET listing = ?, skipped = ? WHERE id = 1", listing, skipped)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
	}
	rows, err := w.conn.QueryContext(w.ctx, "SELECT id, info FROM files ORDER BY id")
	if err != nil {
		return err
	}
	var ids []int64
	var infos [][]byte
	for rows.Next() {
		var id int64
		var info []byte
		if err := rows.Scan(&id, &info); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
		infos = append(infos, info)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	_, err = w.conn.ExecContext(w.ctx, "INSERT OR REPLACE INTO stats(id, files, docs, listing, skipped) VALUES (1, ?, ?, ?, ?)",
		len(ids), encodeDocTable(ids, infos), listing, skipped)
	return err
}

// nullBlob stores an empty list as NULL.
func nullBlob(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// syncSkips makes the skipped table hold exactly newSkips.
func (w *writer) syncSkips(old, cur map[string]skipRow) error {
	for p := range old {
		if _, ok := cur[p]; !ok {
			if _, err := w.conn.ExecContext(w.ctx, "DELETE FROM skipped WHERE path = ?", p); err != nil {
				return err
			}
		}
	}
	for p, r := range cur {
		if o, ok := old[p]; ok && o == r {
			continue
		}
		if _, err := w.conn.ExecContext(w.ctx, "INSERT OR REPLACE INTO skipped(path, size, mtime, reason) VALUES (?, ?, ?, ?)",
			p, r.size, r.mtime, r.reason); err != nil {
			return err
		}
	}
	return nil
}
