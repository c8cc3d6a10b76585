// Package httpclient is an HTTP client that retries failed requests.
package httpclient

import (
	"context"
	"net/http"
	"time"
)

// Client sends requests and retries them under its Policy.
type Client struct {
	HTTP   *http.Client
	Policy Policy
	// Sleep waits between attempts; nil means a timer that honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Do sends req and retries it while the answer is retryable and attempts
// remain. Only requests without a body are retried.
func (c *Client) Do(ctx context.Context, req *http.Request) (*http.Response, error) {
	var resp *http.Response
	var err error
	for attempt := 1; ; attempt++ {
		resp, err = c.HTTP.Do(req.WithContext(ctx))
		if !c.Policy.Retryable(resp, err) || attempt >= c.Policy.MaxAttempts || req.Body != nil {
			return resp, err
		}
		wait := c.Policy.Delay(attempt, resp)
		if resp != nil {
			resp.Body.Close()
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
