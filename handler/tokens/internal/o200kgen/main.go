// Command o200kgen writes o200k.bin, the o200k_base rank table of package
// tokens, from the vocabulary embedded in github.com/pkoukk/tiktoken-go-loader.
// Package tokens runs it through go generate:
//
//	go generate ./handler/tokens
//
// The table is laid out so that it is searched in place, without parsing
// at start-up (all integers little-endian uint32):
//
//	magic   "o200kv1\n"
//	n       number of tokens; token ranks are 0 … n-1
//	bits    log2 of the number of hash slots
//	offsets n+1 offsets into the token bytes: token r is bytes[offsets[r]:offsets[r+1]]
//	slots   1<<bits open-addressing slots (linear probing): 0 is empty, else
//	        tag<<18 | (rank+1) where tag is the top 14 bits of the token's hash
//	bytes   the tokens' bytes in rank order
//
// The hash is 64-bit FNV-1a; a token's first slot is hash & (1<<bits - 1).
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

const (
	magic    = "o200kv1\n"
	bits     = 19
	rankBits = 18
)

func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func main() {
	out := flag.String("o", "o200k.bin", "output file")
	flag.Parse()
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		fmt.Fprintln(os.Stderr, "o200kgen:", err)
		os.Exit(1)
	}
	n := len(ranks)
	tokens := make([]string, n)
	for tok, r := range ranks {
		if r < 0 || r >= n || tokens[r] != "" {
			fmt.Fprintf(os.Stderr, "o200kgen: ranks are not 0 … %d without gaps (rank %d)\n", n-1, r)
			os.Exit(1)
		}
		tokens[r] = tok
	}
	if n+1 >= 1<<rankBits {
		fmt.Fprintln(os.Stderr, "o200kgen: too many tokens for the slot format")
		os.Exit(1)
	}
	size := 1 << bits
	slots := make([]uint32, size)
	for r, tok := range tokens {
		h := fnv1a(tok)
		tag := uint32(h >> (64 - (32 - rankBits)))
		for i := h & uint64(size-1); ; i = (i + 1) & uint64(size-1) {
			if slots[i] == 0 {
				slots[i] = tag<<rankBits | uint32(r+1)
				break
			}
		}
	}
	buf := []byte(magic)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(n))
	buf = binary.LittleEndian.AppendUint32(buf, bits)
	off := uint32(0)
	for _, tok := range tokens {
		buf = binary.LittleEndian.AppendUint32(buf, off)
		off += uint32(len(tok))
	}
	buf = binary.LittleEndian.AppendUint32(buf, off)
	for _, s := range slots {
		buf = binary.LittleEndian.AppendUint32(buf, s)
	}
	for _, tok := range tokens {
		buf = append(buf, tok...)
	}
	if err := os.WriteFile(*out, buf, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "o200kgen:", err)
		os.Exit(1)
	}
}
