package legacy

import (
	"testing"

	"github.com/relay-dev/relay/internal/config"
)

// v1 configs must be rejected with a pointer to `relay config migrate` (see #474).
func TestV1ConfigIsRejected(t *testing.T) {
	_, err := config.Load("testdata/v1.yaml")
	if err == nil || !config.IsV1(err) {
		t.Fatalf("expected a v1 rejection error, got %v", err)
	}
}

func TestMigrateV1(t *testing.T) {
	out, err := config.MigrateFile("testdata/v1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if out.Version != 2 {
		t.Fatalf("migrated version = %d, want 2", out.Version)
	}
}
