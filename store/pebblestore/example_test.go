package pebblestore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/linkbench-go/linkbench/store"
	"github.com/linkbench-go/linkbench/store/pebblestore"
)

// Open a store in a directory, write links, and read the newest first.
func Example() {
	dir, err := os.MkdirTemp("", "pebblestore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	for i, t := range []int64{30, 10, 20} {
		l := store.Link{ID1: 1, LinkType: store.DefaultLinkType, ID2: int64(100 + i), Visibility: store.VisibilityDefault,
			Data: []byte(fmt.Sprint("link ", i)), Time: t}
		if _, err := s.AddLink(ctx, l, true); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := s.DeleteLink(ctx, 1, store.DefaultLinkType, 101, true, false); err != nil { // hide one
		log.Fatal(err)
	}
	links, err := s.GetLinkList(ctx, store.FullRange(1, store.DefaultLinkType), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range links {
		fmt.Printf("id2 %d time %d %q\n", l.ID2, l.Time, l.Data)
	}
	n, _ := s.CountLinks(ctx, 1, store.DefaultLinkType)
	fmt.Println("count", n)
	// Output:
	// id2 100 time 30 "link 0"
	// id2 102 time 20 "link 2"
	// count 2
}

// The options' text form, as a result file or a command line holds it.
func ExampleParseOptions() {
	o, err := pebblestore.ParseOptions("dir=/data/lb cache_size=512MiB wal_sync=off")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(o.CacheSize>>20, o.Sync)
	o.Compression = "zstd"
	fmt.Println(o)
	// Output:
	// 512 off
	// dir=/data/lb compression=zstd cache_size=536870912 wal_sync=off
}

// Per-interval engine figures from two snapshots.
func ExampleDiff() {
	dir, err := os.MkdirTemp("", "pebblestore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, err := pebblestore.Open(ctx, pebblestore.Options{Dir: dir, Sync: pebblestore.SyncOff})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	before, _ := s.Metrics()
	for i := range 1000 {
		if _, err := s.AddLink(ctx, store.Link{ID1: 1, LinkType: 1, ID2: int64(i), Visibility: store.VisibilityDefault}, true); err != nil {
			log.Fatal(err)
		}
	}
	if err := s.Flush(ctx); err != nil {
		log.Fatal(err)
	}
	after, _ := s.Metrics()
	iv := pebblestore.Diff(before, after)
	fmt.Println("flushes:", iv.Flushes)
	fmt.Println("write amplification known:", iv.HasWriteAmp, iv.WriteAmp > 1)
	// Output:
	// flushes: 1
	// write amplification known: true true
}
