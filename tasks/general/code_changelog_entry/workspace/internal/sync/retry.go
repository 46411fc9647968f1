package sync

import (
	"net/http"
	"strconv"
	"time"
)

// retryAfter returns how long to wait before retrying a 429 response.
func retryAfter(resp *http.Response) time.Duration {
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 5 * time.Second
}
