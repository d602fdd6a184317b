package pgstore

import "github.com/linkbench-go/linkbench/store/internal/sqlstore"

// Name is the name the store registers under (store.Register), with the
// alias LinkStorePgsql, LinkBench's class name of its PostgreSQL store
// (and postgresql, pg, pgsql). store.Open takes an Options or *Options as
// the driver options (nil: the defaults), with the DSN, when not empty, as
// their DSN and the logger, when set, as their Logger.
const Name = "postgres"

func init() { sqlstore.Register(Name, Open, "postgresql", "pg", "pgsql", "LinkStorePgsql") }
