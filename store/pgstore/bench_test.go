package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/linkbench-go/linkbench/store"
)

// BenchmarkRoundTrips measures the choice of sending each step of a write
// path as one batch (the store's way) against one round trip per
// statement (BEGIN, S-ins-link, S-cnt-upsert, COMMIT each waited for; the
// same prepared statements on the same connection), for AddLink's insert
// path and UpdateLink's path, on one session. Run it with
// LINKBENCH_TEST_PG_DSN set:
//
//	go test -run '^$' -bench RoundTrips -benchtime 5000x ./store/pgstore/
func BenchmarkRoundTrips(b *testing.B) {
	s := newTestStore(b, nil)
	ctx := context.Background()
	sess, err := s.Session(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	ss := sess.(*Session)
	c, err := ss.prepared(ctx)
	if err != nil {
		b.Fatal(err)
	}
	one := func(id int, set func(*encoder)) {
		var bt batch
		if set != nil {
			set(c.args(id))
		}
		if err := c.add(&bt, id); err != nil {
			b.Fatal(err)
		}
		if _, err := c.run(ctx, &bt, nil); err != nil {
			b.Fatal(err)
		}
	}
	data := []byte("0123456789abcdefghijklm")
	// Each variant inserts into an id1 of its own, then updates the links
	// it inserted.
	var n1, n2 int64
	b.Run("insert/batched", func(b *testing.B) {
		for b.Loop() {
			n1++
			if _, err := ss.AddLink(ctx, store.Link{ID1: 1, LinkType: lt, ID2: n1, Visibility: 1, Data: data, Time: n1}, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("insert/statement-per-round-trip", func(b *testing.B) {
		for b.Loop() {
			n2++
			one(sBegin, nil)
			one(sInsLink, func(e *encoder) { e.int(2).int(n2).int(lt).int(1).bytes(data).int(0).int(n2) })
			one(sCntUpsert, func(e *encoder) { e.int(2).int(lt).int(1).int(time.Now().UnixMilli()) })
			one(sCommit, nil)
		}
	})
	// The first update of a freshly inserted row costs the server more
	// (pruning, hint bits): one untimed pass over both id1s first.
	for id1, n := range map[int64]int64{1: n1, 2: n2} {
		for id2 := int64(1); id2 <= n; id2++ {
			if _, err := ss.UpdateLink(ctx, store.Link{ID1: id1, LinkType: lt, ID2: id2, Visibility: 1, Data: data}, true); err != nil {
				b.Fatal(err)
			}
		}
	}
	var k int64
	b.Run("update/batched", func(b *testing.B) {
		for b.Loop() {
			k = k%n1 + 1
			if _, err := ss.UpdateLink(ctx, store.Link{ID1: 1, LinkType: lt, ID2: k, Visibility: 1, Data: data, Time: -k}, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update/statement-per-round-trip", func(b *testing.B) {
		for b.Loop() {
			k = k%n2 + 1
			one(sBegin, nil)
			one(sLock, func(e *encoder) { e.int(2).int(k).int(lt) })
			one(sUpdLink, func(e *encoder) { e.int(1).bytes(data).int(0).int(-k).int(2).int(k).int(lt) })
			one(sCommit, nil)
		}
	})
}
