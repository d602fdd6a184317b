package sqlstore

import (
	"context"
	"fmt"

	"github.com/linkbench-go/linkbench/store"
)

// Calls runs the calls of one session of a view: the checks at their
// start (Enter), the context watch that interrupts the session's
// connections when the calls' context ends, and the retries (Run). A
// dialect's session holds one as a field, set up with Init.
type Calls struct {
	e                *Engine
	db               string
	closed           bool
	w                Watch
	rearm, interrupt func()
	onFail           func(error)
}

// OnFail sets f to run after each failed attempt of the session's calls,
// before the retry policy decides (a dialect moves a session off a
// cluster node that is not ready).
func (c *Calls) OnFail(f func(error)) { c.onFail = f }

// Init sets up the calls of a session of database db: interrupt
// interrupts the session's connections (a past deadline), rearm makes the
// ones interrupted while idle usable again (see Watch.Follow).
func (c *Calls) Init(e *Engine, db string, rearm, interrupt func()) {
	c.e, c.db, c.rearm, c.interrupt = e, db, rearm, interrupt
}

// Watch returns the session's context watch.
func (c *Calls) Watch() *Watch { return &c.w }

// Close marks the session closed and stops its watch, running f under the
// watch's lock with whether the context had fired (see Watch.Stop). It
// reports whether this call closed it (false: it was closed already).
func (c *Calls) Close(f func(fired bool)) bool {
	if c.closed {
		return false
	}
	c.closed = true
	c.w.Stop(f)
	return true
}

// Enter starts a call named o: it fails on a closed session or store or a
// done context (wrapped), and makes the watch follow ctx (once per phase:
// a worker passes the same context to every call).
func (c *Calls) Enter(ctx context.Context, o Op) error {
	if err := c.e.Enter(ctx, o, c.closed); err != nil {
		return err
	}
	if !c.w.Current(ctx) {
		c.w.Follow(ctx, c.rearm, c.interrupt)
	}
	return nil
}

// Run runs call o: Enter, then the attempts of f (Engine.Retry).
// idempotent says whether an attempt may be repeated after it possibly
// reached the server; f gets the number of attempts that failed before
// it.
func (c *Calls) Run(ctx context.Context, o Op, idempotent bool, f func(attempt int) error) error {
	if err := c.Enter(ctx, o); err != nil {
		return err
	}
	if c.onFail == nil {
		return c.e.Retry(ctx, o, c.db, idempotent, f)
	}
	return c.e.Retry(ctx, o, c.db, idempotent, func(attempt int) error {
		err := f(attempt)
		if err != nil {
			c.onFail(err)
		}
		return err
	})
}

// maxPathSwitches bounds how often one attempt of AddLink or UpdateLink
// may switch between its insert and update paths (each switch means a
// concurrent writer inserted or expunged the link in between).
const maxPathSwitches = 32

// WriteLink is one attempt of AddLink (insertFirst) or UpdateLink of l,
// MD's way: the insert path (insert inserts l and counts it; dup reports a
// duplicate key, nothing done) and the update path (update locks the row,
// overwrites it and adjusts the count; missing reports there was no row,
// nothing done), switching to the other path when the link appeared or
// disappeared in between (counted as add_to_upd and upd_to_add), at most
// 32 times: then abandon (if not nil) ends the transaction left open and
// the attempt fails.
func (c *Calls) WriteLink(l *store.Link, insertFirst bool, insert func() (dup bool, err error),
	update func() (res store.WriteResult, missing bool, err error), abandon func()) (store.WriteResult, error) {
	ins := insertFirst
	for range maxPathSwitches {
		if ins {
			dup, err := insert()
			if err != nil || !dup {
				return store.LinkInsert, err
			}
			c.e.Events.AddToUpd.Add(1)
			ins = false
			continue
		}
		res, missing, err := update()
		if err != nil || !missing {
			return res, err
		}
		c.e.Events.UpdToAdd.Add(1)
		ins = true
	}
	if abandon != nil {
		abandon()
	}
	return 0, fmt.Errorf("link (%d, %d, %d) kept appearing and disappearing under concurrent writers (%d tries)",
		l.ID1, l.LinkType, l.ID2, maxPathSwitches)
}

// CheckBulk checks the rows of a bulk load before anything is sent: no
// negative count, no node id below 1 (AUTO_INCREMENT and sequences start
// at 1). It returns the largest node id (0 without nodes).
func (e *Engine) CheckBulk(counts []store.LinkCount, nodes []store.Node) (maxID int64, err error) {
	for i := range counts {
		if counts[i].Count < 0 {
			return 0, fmt.Errorf("%s: AddBulkCounts: negative count %d for (%d, %d)",
				e.d.Pkg, counts[i].Count, counts[i].ID1, counts[i].LinkType)
		}
	}
	for i := range nodes {
		if nodes[i].ID < 1 {
			return 0, fmt.Errorf("%s: AddBulkNodes: node id %d < 1", e.d.Pkg, nodes[i].ID)
		}
		maxID = max(maxID, nodes[i].ID)
	}
	return maxID, nil
}

// WriteNode runs call o, UpdateNode or DeleteNode of node id: write (an
// attempt) runs the statement that matches the node by its key and type
// and returns the rows it affected. found reports one row; more is an
// error.
//
// A DeleteNode whose attempt lost its connection after the statement
// was sent may have deleted the node (an autocommit statement the server
// committed before the connection broke): a retry that then finds no
// node reports found, the delete the first attempt may have done, and
// counts the call as ambiguous (Events.Ambiguous). Reporting it missed
// would hide a delete that took effect: the acknowledged-writes audit
// logs no missed delete, so it would count earlier writes of that node as
// lost (seen so once in the durability crash test, ROCKSDB, flush at
// commit 1).
func (c *Calls) WriteNode(ctx context.Context, o Op, id int64, write func() (affected int64, err error)) (found bool, err error) {
	var maybeApplied bool
	err = c.Run(ctx, o, true, func(int) error {
		k, err := write()
		if err == nil && k > 1 {
			what := "update"
			if o == OpDeleteNode {
				what = "delete"
			}
			err = fmt.Errorf("%s of node %d affected %d rows", what, id, k)
		}
		found = k == 1
		if err == nil && !found && maybeApplied {
			found = true
			c.e.Events.Ambiguous.Add(1)
		}
		if err != nil && o == OpDeleteNode {
			if class, _ := c.e.d.Classify(err); class == Conn && !c.e.d.Unsent(err) {
				maybeApplied = true
			}
		}
		return err
	})
	return found && err == nil, err
}
