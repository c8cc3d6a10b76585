package sexp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassifyAtom(t *testing.T) {
	type result struct {
		Kind Kind
		I    int64
		F    float64
		Err  string
	}
	tests := []struct {
		text string
		want result
	}{
		{"nil", result{Kind: Nil}},
		{"true", result{Kind: Bool}},
		{"false", result{Kind: Bool}},
		{"+5", result{Kind: Int, I: 5}},
		{"007", result{Kind: Int, I: 7}},
		{"1_000", result{Kind: Int, I: 1000}},
		{"-0", result{Kind: Int}},
		{"1.5", result{Kind: Float, F: 1.5}},
		{".5", result{Kind: Float, F: .5}},
		{"1.", result{Kind: Float, F: 1}},
		{"1e3", result{Kind: Float, F: 1000}},
		{"2.5E-3", result{Kind: Float, F: 2.5e-3}},
		{"1_000.5", result{Kind: Float, F: 1000.5}},
		{"99999999999999999999", result{Kind: Int, Err: "integer literal out of range: 99999999999999999999"}},
		{"1e999", result{Kind: Float, Err: "float literal out of range: 1e999"}},
		{"", result{Kind: Symbol}},
		{"inf", result{Kind: Symbol}},
		{"1__0", result{Kind: Symbol}},
		{" 42", result{Kind: Symbol}},
	}
	for _, tt := range tests {
		kind, i, f, err := ClassifyAtom(tt.text)
		got := result{Kind: kind, I: i, F: f}
		if err != nil {
			got.Err = err.Error()
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ClassifyAtom(%q) mismatch (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestReadsAsNumber(t *testing.T) {
	for text, want := range map[string]bool{
		"1": true, "-1_000": true, "1e999": true, "99999999999999999999": true, ".5": true,
		"1.": true, "nil": false, "true": false, "": false, "-": false, "1/2": false,
		"inf": false, "0x10": false, "1e": false,
	} {
		if got := ReadsAsNumber(text); got != want {
			t.Errorf("ReadsAsNumber(%q) = %v, want %v", text, got, want)
		}
	}
}
