// Package release is the small module the release example plans changes
// for: a retry delay computation that does not yet honour Retry-After.
package release

import "time"

// Delay returns the wait before attempt n+1 (n from 1): one second times
// 2^(n-1), at most 30 seconds.
func Delay(n int) time.Duration {
	d := time.Second << (n - 1)
	if n > 6 || d > 30*time.Second {
		return 30 * time.Second
	}
	return d
}
