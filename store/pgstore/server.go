package pgstore

import (
	"context"
	"path/filepath"

	"github.com/jackc/pgx/v5"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/internal/sqlstore"
)

// serverSettings are the settings DescribeServer reports (those a result
// file keeps).
var serverSettings = []string{
	"server_version", "data_directory", "shared_buffers", "effective_cache_size", "synchronous_commit",
	"fsync", "full_page_writes", "wal_compression", "default_toast_compression", "max_wal_size", "checkpoint_timeout",
}

// DescribeServer describes the server for result files and host metrics
// (store.ServerDescriber), over a connection of its own named
// ServerApplicationName (told apart from the workers' backends), which the
// result's Close closes: the version and the settings of serverSettings
// (current_setting), the data directory and its postmaster.pid, whether
// the server runs on this host (a unix socket or a loopback address), and
// the size of the server database the schemas live in
// (pg_database_size(current_database()), whatever databases names).
// Errors: a failed connection (wrapped, password redacted), ctx's,
// store.ErrClosed.
func (s *Store) DescribeServer(ctx context.Context, databases []string) (*store.Server, error) {
	if err := s.c.eng.Check(ctx, "DescribeServer"); err != nil {
		return nil, err
	}
	cfg := s.c.cfg.Copy()
	cfg.RuntimeParams["application_name"] = ServerApplicationName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, s.c.eng.Wrap("DescribeServer", err)
	}
	srv := &store.Server{Kind: "PostgreSQL", Settings: map[string]string{}, Local: sqlstore.IsLoopback(cfg.Host),
		Close: func() { conn.Close(context.Background()) }}
	for _, k := range serverSettings {
		var v string
		if conn.QueryRow(ctx, "SELECT current_setting($1, true)", k).Scan(&v) == nil && v != "" {
			srv.Settings[k] = v
		}
	}
	srv.Version = srv.Settings["server_version"]
	srv.Size = func(ctx context.Context) (int64, error) {
		var n int64
		err := conn.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
		return n, err
	}
	srv.SizeSource = "pg_database_size"
	if srv.Datadir = srv.Settings["data_directory"]; srv.Datadir != "" {
		srv.PIDFile = filepath.Join(srv.Datadir, "postmaster.pid")
	}
	return srv, nil
}
