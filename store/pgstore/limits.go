package pgstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"

	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// ConnectionLimit returns what the server allows ordinary users: its
// max_connections minus superuser_reserved_connections, and the client
// backends connected now (this Store's own included), so that a tool can
// check, before a phase, that the sessions it will open fit: each session
// (store.OpenSession) holds one connection. Limit minus connected is what
// the server still accepts from a user without the superuser's reserve.
// Errors: the server's (wrapped, password redacted), ctx's, or
// store.ErrClosed.
func (s *Store) ConnectionLimit(ctx context.Context) (limit, connected int64, err error) {
	err = s.admin(ctx, sqlstore.OpOpen, func(c *conn) error {
		return c.pc.QueryRow(ctx, "SELECT current_setting('max_connections')::int8 - current_setting('superuser_reserved_connections')::int8, "+
			"(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')").Scan(&limit, &connected)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("pgstore: ConnectionLimit: %w", err)
	}
	return limit, connected, nil
}

// Connections returns what the server allows ordinary users and the
// client backends connected (store.ConnectionLimiter); a session holds
// one. Errors: those of ConnectionLimit.
func (s *Store) Connections(ctx context.Context) (store.Connections, error) {
	limit, connected, err := s.ConnectionLimit(ctx)
	return store.Connections{Server: "PostgreSQL", Limit: limit, Connected: connected, PerSession: 1,
		LimitName: "max_connections - superuser_reserved_connections"}, err
}
