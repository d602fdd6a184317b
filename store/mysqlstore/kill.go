package mysqlstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// killTimeout bounds the connection and the KILL statement of one kill.
const killTimeout = 2 * time.Second

// killPause is how long the killer is not tried again after it could not
// connect, so that a stalled server does not make every abandoned call
// wait killTimeout.
const killPause = 10 * time.Second

// erNoSuchThread is ER_NO_SUCH_THREAD: the connection is already gone.
const erNoSuchThread = 1094

// killer is a Store's connection to one server for KILL statements: opened at the first
// abandoned statement (none is held before), kept until Close.
type killer struct {
	mu     sync.Mutex
	c      *conn
	pauses time.Time // no connection attempt before then
}

// kill ends the server's connection id and the statement it runs (KILL
// CONNECTION, from the killer connection): a statement abandoned by its
// caller (a done context) would otherwise keep running on the server,
// waiting for a lock and applying its write later, and keep its
// connection slot. The transaction it was part of is rolled back by the
// server. Errors are logged at debug level and otherwise ignored: the
// caller's call has already failed.
func (c *shared) kill(ep int, id uint64) {
	if id == 0 || c.eng.Closed() {
		return
	}
	k := &c.eps[ep].killer
	k.mu.Lock()
	defer k.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	if k.c == nil || !k.c.valid() {
		if k.c != nil {
			k.c.close()
			k.c = nil
		}
		if time.Now().Before(k.pauses) {
			return
		}
		kc, err := c.connect(ctx, connRead, ep)
		if err != nil {
			k.pauses = time.Now().Add(killPause)
			c.log.Debug("mysqlstore: cannot connect to kill an abandoned statement", "connection", id,
				"err", c.red().Str(err.Error()))
			return
		}
		k.c = kc
	}
	if k.c.nc != nil {
		_ = k.c.nc.SetDeadline(time.Now().Add(killTimeout))
		defer func() {
			if k.c != nil {
				_ = k.c.nc.SetDeadline(time.Time{})
			}
		}()
	}
	_, err := k.c.execText(ctx, "KILL CONNECTION "+strconv.FormatUint(id, 10))
	var me *mysql.MySQLError
	switch {
	case err == nil:
		c.eng.Events.Killed.Add(1)
	case errors.As(err, &me) && me.Number == erNoSuchThread:
	default:
		c.log.Debug("mysqlstore: KILL of an abandoned statement failed", "connection", id,
			"err", c.red().Str(err.Error()))
		if !k.c.valid() {
			k.c.close()
			k.c = nil
		}
	}
}

// closeKillers closes the killer connections (Store.Close).
func (c *shared) closeKillers() {
	for i := range c.eps {
		k := &c.eps[i].killer
		k.mu.Lock()
		if k.c != nil {
			k.c.close()
			k.c = nil
		}
		k.mu.Unlock()
	}
}
