package memory

import (
	"encoding/binary"
	"errors"
)

// A posting list is stored as one BLOB per term and field: uvarint count,
// then per document in increasing id order uvarint(id − previous id),
// uvarint(term frequency), uvarint(document length). Keeping the document
// length in the posting means a query never reads the files table to score.

// posting is one document's entry in a term's posting list.
type posting struct {
	doc int64
	tf  uint32
	dl  uint32
}

var errCorrupt = errors.New("memory index: corrupt posting list")

// plist accumulates the new postings of one term and field, appended in
// increasing document order.
type plist struct {
	buf   []byte
	last  int64
	count int
}

func (p *plist) add(doc int64, tf, dl uint32) {
	p.buf = binary.AppendUvarint(p.buf, uint64(doc-p.last))
	p.buf = binary.AppendUvarint(p.buf, uint64(tf))
	p.buf = binary.AppendUvarint(p.buf, uint64(dl))
	p.last = doc
	p.count++
}

// blob returns the stored form of the list.
func (p *plist) blob() []byte {
	if p == nil || p.count == 0 {
		return nil
	}
	out := make([]byte, 0, len(p.buf)+binary.MaxVarintLen32)
	out = binary.AppendUvarint(out, uint64(p.count))
	return append(out, p.buf...)
}

// postingCount returns the document frequency stored at the start of blob.
func postingCount(blob []byte) (int, []byte, error) {
	if len(blob) == 0 {
		return 0, nil, nil
	}
	n, k := binary.Uvarint(blob)
	if k <= 0 {
		return 0, nil, errCorrupt
	}
	return int(n), blob[k:], nil
}

// eachPosting calls fn for every posting of blob in document order.
func eachPosting(blob []byte, fn func(doc int64, tf, dl uint32)) error {
	n, rest, err := postingCount(blob)
	if err != nil {
		return err
	}
	var doc int64
	for range n {
		d, k1 := binary.Uvarint(rest)
		if k1 <= 0 {
			return errCorrupt
		}
		tf, k2 := binary.Uvarint(rest[k1:])
		if k2 <= 0 {
			return errCorrupt
		}
		dl, k3 := binary.Uvarint(rest[k1+k2:])
		if k3 <= 0 {
			return errCorrupt
		}
		rest = rest[k1+k2+k3:]
		doc += int64(d)
		fn(doc, uint32(tf), uint32(dl))
	}
	return nil
}

// mergePostings returns old without the documents in removed, followed by
// the postings of add, whose documents all have larger ids than old's. It
// returns nil when nothing is left.
func mergePostings(old []byte, removed map[int64]bool, add *plist) ([]byte, error) {
	var kept plist
	err := eachPosting(old, func(doc int64, tf, dl uint32) {
		if !removed[doc] {
			kept.add(doc, tf, dl)
		}
	})
	if err != nil {
		return nil, err
	}
	if add != nil && add.count > 0 {
		err = eachPosting(add.blob(), func(doc int64, tf, dl uint32) { kept.add(doc, tf, dl) })
		if err != nil {
			return nil, err
		}
	}
	return kept.blob(), nil
}

// encodeIDs stores a sorted list of term ids as uvarint deltas.
func encodeIDs(ids []int64) []byte {
	out := make([]byte, 0, len(ids)*2+2)
	out = binary.AppendUvarint(out, uint64(len(ids)))
	var last int64
	for _, id := range ids {
		out = binary.AppendUvarint(out, uint64(id-last))
		last = id
	}
	return out
}

// decodeIDs is the inverse of encodeIDs.
func decodeIDs(b []byte) ([]int64, error) {
	if len(b) == 0 {
		return nil, nil
	}
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errCorrupt
	}
	b = b[k:]
	ids := make([]int64, 0, min(n, uint64(len(b))))
	var last int64
	for range n {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errCorrupt
		}
		b = b[k:]
		last += int64(d)
		ids = append(ids, last)
	}
	return ids, nil
}
