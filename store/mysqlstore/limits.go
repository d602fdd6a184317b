package mysqlstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// ConnectionLimit returns the server's connection limit (the
// max_connections variable) and the number of client connections open on
// it now (the Threads_connected status variable, which counts this Store's
// own connections too), so that a tool can check, before a phase, that the
// sessions it will open fit: each session (store.OpenSession) holds two
// connections. Max minus connected is what the server still accepts
// (MariaDB and MySQL keep one more for a user with the SUPER or
// CONNECTION ADMIN privilege). Errors: the server's (wrapped, password
// redacted), ctx's, or store.ErrClosed.
func (s *Store) ConnectionLimit(ctx context.Context) (max, connected int64, err error) {
	if err := s.check(ctx, "ConnectionLimit"); err != nil {
		return 0, 0, err
	}
	if err := s.c.db.QueryRowContext(ctx, "SELECT @@GLOBAL.max_connections").Scan(&max); err != nil {
		return 0, 0, s.c.red().Err(fmt.Errorf("mysqlstore: ConnectionLimit: max_connections: %w", err))
	}
	var name string
	if err := s.c.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &connected); err != nil {
		return 0, 0, s.c.red().Err(fmt.Errorf("mysqlstore: ConnectionLimit: Threads_connected: %w", err))
	}
	return max, connected, nil
}

// Connections returns the server's connection limit (max_connections) and
// the connections open on it (store.ConnectionLimiter); a session holds
// two. Errors: those of ConnectionLimit.
func (s *Store) Connections(ctx context.Context) (store.Connections, error) {
	limit, connected, err := s.ConnectionLimit(ctx)
	return store.Connections{Server: "MySQL", Limit: limit, LimitName: "max_connections", Connected: connected, PerSession: 2}, err
}
