package httpclient

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 6, 14, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{"-1", 0, false},
		{"Mon, 06 Jan 2025 14:00:30 GMT", 30 * time.Second, true},
		{"Mon, 06 Jan 2025 13:00:00 GMT", 0, true},
		{"soon", 0, false},
		{"", 0, false},
	} {
		d, ok := parseRetryAfter(tc.h, now)
		if d != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.h, d, ok, tc.want, tc.ok)
		}
	}
}
