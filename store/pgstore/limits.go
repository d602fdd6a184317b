package pgstore

import (
	"context"
	"fmt"
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
	err = s.admin(ctx, opOpen, func(c *conn) error {
		return c.pc.QueryRow(ctx, "SELECT current_setting('max_connections')::int8 - current_setting('superuser_reserved_connections')::int8, "+
			"(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')").Scan(&limit, &connected)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("pgstore: ConnectionLimit: %w", err)
	}
	return limit, connected, nil
}

// CloseIdle closes the connections of the idle sessions the Store's own
// methods borrow (Open's check, NodeStats, ...; of every schema view):
// they are opened again when needed. A tool calls it before a phase whose
// workers open sessions of their own, so that the server holds only
// theirs during the run (16 requesters: 16 backends, not 18).
func (s *Store) CloseIdle() {
	c := s.c
	c.mu.Lock()
	views := make([]*Store, 0, len(c.views))
	for _, v := range c.views {
		views = append(views, v)
	}
	c.mu.Unlock()
	for _, v := range views {
		v.closePool()
	}
}
