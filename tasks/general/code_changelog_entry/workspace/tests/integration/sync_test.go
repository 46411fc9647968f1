package integration

import "testing"

func TestSyncRespectsRetryAfter(t *testing.T) {
	srv := newRateLimitedServer(t, 2)
	if err := runSync(srv.URL); err != nil {
		t.Fatal(err)
	}
}
