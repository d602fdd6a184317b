package cli

import (
	"testing"

	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/store/mysqlstore"
)

// TestEngineKeyAgreesWithMySQLStore: the engine key accepts exactly the
// names mysqlstore.ParseEngine accepts (engine = myrocks was accepted by
// the store but refused by Validate), and the tool builds the store's
// options from each of them.
func TestEngineKeyAgreesWithMySQLStore(t *testing.T) {
	for _, name := range []string{"innodb", "InnoDB", "rocksdb", "ROCKSDB", "myrocks", "MyRocks", "myisam", "memory", "tokudb"} {
		cfg := linkbench.DefaultConfig()
		cfg.Store.Engine = name
		vErr := cfg.Validate()
		e, pErr := mysqlstore.ParseEngine(name)
		if (vErr == nil) != (pErr == nil) {
			t.Errorf("engine = %s: Validate says %v, mysqlstore.ParseEngine says %v", name, vErr, pErr)
			continue
		}
		if vErr != nil {
			continue
		}
		opts, err := mysqlOptions(&options{}, &cfg)
		if err != nil || opts.Engine != e {
			t.Errorf("engine = %s: mysqlOptions = %v (engine %q), want engine %q", name, err, opts.Engine, e)
		}
	}
}
