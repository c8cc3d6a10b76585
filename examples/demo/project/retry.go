package httpclient

import (
	"math/rand/v2"
	"net/http"
	"time"
)

// Policy says which answers are retried and how long to wait in between.
type Policy struct {
	MaxAttempts int           // attempts in total, the first included
	BaseDelay   time.Duration // the wait before the second attempt
	MaxDelay    time.Duration // no wait is longer, Retry-After included
	Now         func() time.Time
}

// Retryable reports whether an answer is worth another attempt: a network
// error, 429 Too Many Requests, or a 502, 503 or 504 from a gateway.
func (p Policy) Retryable(resp *http.Response, err error) bool {
	if err != nil {
		return true
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// Delay is the wait before attempt+1: the server's Retry-After when it
// gives one, else BaseDelay doubled per attempt with ±20% jitter; never
// more than MaxDelay.
func (p Policy) Delay(attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), p.now()); ok {
			return min(d, p.MaxDelay)
		}
	}
	d := p.BaseDelay << (attempt - 1)
	jitter := 0.8 + 0.4*rand.Float64()
	return min(time.Duration(float64(d)*jitter), p.MaxDelay)
}

func (p Policy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}
