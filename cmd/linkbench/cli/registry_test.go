package cli

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/memstore"
)

// cliTestStore counts the GetNode calls that reach it, the way a store of
// a user's own package registered from its init would be driven.
type cliTestStore struct {
	store.Forward
	getNodes *atomic.Int64
}

func (s cliTestStore) GetNode(ctx context.Context, nodeType int32, id int64) (store.Node, bool, error) {
	s.getNodes.Add(1)
	return s.Forward.GetNode(ctx, nodeType, id)
}

// cliTestOpened records what the registered opener was given.
var cliTestOpened struct {
	sync.Mutex
	dsns     []string
	getNodes atomic.Int64
}

// The test binary is "a build of the tool" with one more store: it
// registers from init, as a store package imported for its side effect
// would.
func init() {
	store.Register("clitest", func(_ context.Context, dsn string, o store.OpenOptions) (store.Store, error) {
		cliTestOpened.Lock()
		cliTestOpened.dsns = append(cliTestOpened.dsns, dsn)
		cliTestOpened.Unlock()
		if dsn == "refuse:secretpw" {
			return nil, errors.New("cannot reach " + dsn)
		}
		var wrap func(store.Store) store.Store
		wrap = func(s store.Store) store.Store {
			return cliTestStore{Forward: store.Forward{Inner: s, Wrap: wrap}, getNodes: &cliTestOpened.getNodes}
		}
		return wrap(memstore.New()), nil
	}, "CliTestLinkStore")
}

// TestRegisteredStore runs the tool on a store registered by name: -store
// and the linkstore key find it (LinkBench class name style included),
// -dsn reaches its opener, its calls are the run's, and the unknown-store
// message lists it.
func TestRegisteredStore(t *testing.T) {
	t.Setenv("LINKBENCH_HOME", t.TempDir())
	t.Chdir(t.TempDir())
	before := cliTestOpened.getNodes.Load()
	code, out, stderr := runCLI(t, "-store", "clitest", "-dsn", "mem://x", "-D", "maxid1=2001", "-D", "maxtime=1",
		"-D", "requesters=1", "-D", "nlinks_func=const", "-D", "nlinks_default=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := cliTestOpened.getNodes.Load() - before; got == 0 {
		t.Errorf("the registered store saw no GetNode call; output:\n%s", out)
	}
	if !strings.Contains(out, "GET_NODE count") {
		t.Errorf("no GET_NODE line in the report:\n%s", out)
	}
	cliTestOpened.Lock()
	last := cliTestOpened.dsns[len(cliTestOpened.dsns)-1]
	cliTestOpened.Unlock()
	if last != "mem://x" {
		t.Errorf("opener got DSN %q, want mem://x", last)
	}

	// The linkstore key, with LinkBench's package prefix, selects it too.
	code, _, stderr = runCLI(t, "-D", "linkstore=com.facebook.LinkBench.CliTestLinkStore", "-D", "maxid1=2001",
		"-D", "maxtime=0", "-D", "requesters=1", "-D", "nlinks_func=const", "-D", "nlinks_default=1")
	if code != 0 {
		t.Fatalf("linkstore key: exit %d: %s", code, stderr)
	}

	// The opener's error is reported with the password masked.
	code, out, stderr = runCLI(t, "-store", "clitest", "-dsn", "refuse:secretpw", "-D", "maxid1=2001")
	if code == 0 || !strings.Contains(stderr, "clitest store: cannot reach") || strings.Contains(stderr+out, "secretpw") {
		t.Errorf("refusing opener: exit %d, stderr %q", code, stderr)
	}

	// An unknown store: exit 2, the registered ones listed, built-in first.
	code, _, stderr = runCLI(t, "-store", "oracle")
	if code != 2 || !strings.Contains(stderr, "available: pebble, memory, discard, mysql, postgres, clitest") {
		t.Errorf("unknown store: exit %d, stderr %q", code, stderr)
	}
	// -create-schema stays for the SQL stores.
	code, _, stderr = runCLI(t, "-store", "clitest", "-create-schema")
	if code != 2 || !strings.Contains(stderr, "-create-schema") {
		t.Errorf("-create-schema on a registered store: exit %d, stderr %q", code, stderr)
	}
}
