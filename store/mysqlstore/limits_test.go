package mysqlstore

import (
	"context"
	"errors"
	"testing"

	"github.com/linkbench-go/linkbench/store"
)

// TestConnectionLimit: the server's max_connections, and a count of open
// connections that includes this Store's own.
func TestConnectionLimit(t *testing.T) {
	dsn := testDSN(t)
	ctx := context.Background()
	s, err := Open(ctx, Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var want int64
	if err := s.DB().QueryRowContext(ctx, "SELECT @@max_connections").Scan(&want); err != nil {
		t.Fatal(err)
	}
	max, connected, err := s.ConnectionLimit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if max != want || connected < 1 || connected > max+1 {
		t.Errorf("ConnectionLimit = %d, %d; max_connections is %d", max, connected, want)
	}
	s.Close()
	if _, _, err := s.ConnectionLimit(ctx); !errors.Is(err, store.ErrClosed) {
		t.Errorf("after Close: %v, want store.ErrClosed", err)
	}
}
