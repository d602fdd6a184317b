package mysqlstore

import "github.com/linkbench-go/linkbench/store/internal/sqlstore"

// Name is the name the store registers under (store.Register), with the
// alias LinkStoreMysql, LinkBench's class name of its MySQL store (and
// mariadb). store.Open takes an Options or *Options as the driver options
// (nil: the defaults), with the DSN, when not empty, as their DSN and the
// logger, when set, as their Logger.
const Name = "mysql"

func init() { sqlstore.Register(Name, Open, "mariadb", "LinkStoreMysql") }
