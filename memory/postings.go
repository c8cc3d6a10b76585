package memory

import (
	"encoding/binary"
	"errors"
)

// A posting list is stored as one BLOB per term: uvarint count, then per
// file in increasing id order uvarint(id − previous id), one byte whose
// bit f is set when the term occurs in field f, and uvarint(frequency) for
// each set bit in field order. The fields' lengths are stored once per
// file, in the docs BLOB of the stats row (see docInfo).

var errCorrupt = errors.New("memory index: corrupt posting list")

// plist accumulates the new postings of one term, appended in increasing
// document order.
type plist struct {
	buf   []byte
	last  int64
	count int
}

func (p *plist) add(doc int64, tf *[numFields]uint32) {
	var mask byte
	for f, n := range tf {
		if n > 0 {
			mask |= 1 << f
		}
	}
	if mask == 0 {
		return
	}
	p.buf = binary.AppendUvarint(p.buf, uint64(doc-p.last))
	p.buf = append(p.buf, mask)
	for _, n := range tf {
		if n > 0 {
			p.buf = binary.AppendUvarint(p.buf, uint64(n))
		}
	}
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

// postingCount returns the number of files stored at the start of blob.
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

// eachPosting calls fn for every posting of blob in document order with the
// term's frequency in each field (tf is reused between calls).
func eachPosting(blob []byte, fn func(doc int64, tf *[numFields]uint32)) error {
	n, rest, err := postingCount(blob)
	if err != nil {
		return err
	}
	var doc int64
	var tf [numFields]uint32
	for range n {
		d, k := binary.Uvarint(rest)
		if k <= 0 || len(rest) <= k {
			return errCorrupt
		}
		mask := rest[k]
		rest = rest[k+1:]
		for f := range numFields {
			tf[f] = 0
			if mask&(1<<f) == 0 {
				continue
			}
			v, k := binary.Uvarint(rest)
			if k <= 0 {
				return errCorrupt
			}
			tf[f] = uint32(v)
			rest = rest[k:]
		}
		doc += int64(d)
		fn(doc, &tf)
	}
	return nil
}

// mergePostings returns old without the documents in removed, followed by
// the postings of add, whose documents all have larger ids than old's. It
// returns nil when nothing is left.
func mergePostings(old []byte, removed map[int64]bool, add *plist) ([]byte, error) {
	var kept plist
	err := eachPosting(old, func(doc int64, tf *[numFields]uint32) {
		if !removed[doc] {
			kept.add(doc, tf)
		}
	})
	if err != nil {
		return nil, err
	}
	if add != nil && add.count > 0 {
		err = eachPosting(add.blob(), func(doc int64, tf *[numFields]uint32) { kept.add(doc, tf) })
		if err != nil {
			return nil, err
		}
	}
	return kept.blob(), nil
}

// docInfo is what ranking needs to know of one file beyond its postings.
type docInfo struct {
	flags uint8
	lens  [numFields]uint32
}

// encodeDocInfo is a file's lens column: flags, then the field lengths.
func encodeDocInfo(d docInfo) []byte {
	out := make([]byte, 0, 1+2*numFields)
	out = append(out, d.flags)
	for _, n := range d.lens {
		out = binary.AppendUvarint(out, uint64(n))
	}
	return out
}

func decodeDocInfo(b []byte) (docInfo, []byte, error) {
	var d docInfo
	if len(b) == 0 {
		return d, nil, errCorrupt
	}
	d.flags = b[0]
	b = b[1:]
	for f := range numFields {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return d, nil, errCorrupt
		}
		d.lens[f] = uint32(v)
		b = b[k:]
	}
	return d, b, nil
}

// docTable is the docs BLOB of the stats row decoded: every file's
// docInfo by id, and each field's total length.
type docTable struct {
	ids    []int64 // increasing
	infos  []docInfo
	totals [numFields]float64
}

// encodeDocTable stores (id delta, docInfo) per file in increasing id order.
func encodeDocTable(ids []int64, infos [][]byte) []byte {
	out := binary.AppendUvarint(nil, uint64(len(ids)))
	var last int64
	for i, id := range ids {
		out = binary.AppendUvarint(out, uint64(id-last))
		out = append(out, infos[i]...)
		last = id
	}
	return out
}

func decodeDocTable(b []byte) (*docTable, error) {
	t := &docTable{}
	if len(b) == 0 {
		return t, nil
	}
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errCorrupt
	}
	b = b[k:]
	t.ids = make([]int64, 0, min(n, uint64(len(b))))
	t.infos = make([]docInfo, 0, min(n, uint64(len(b))))
	var last int64
	for range n {
		d, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errCorrupt
		}
		last += int64(d)
		info, rest, err := decodeDocInfo(b[k:])
		if err != nil {
			return nil, err
		}
		b = rest
		t.ids = append(t.ids, last)
		t.infos = append(t.infos, info)
		for f, l := range info.lens {
			t.totals[f] += float64(l)
		}
	}
	return t, nil
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
