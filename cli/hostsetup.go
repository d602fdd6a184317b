package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/linkbench-go/linkbench/hostmetrics"
	"github.com/linkbench-go/linkbench/linkbench"
	"github.com/linkbench-go/linkbench/results"
	"github.com/linkbench-go/linkbench/store"
)

// hostSource is what the run's host metrics sample: the options of the
// sampler, the server's description, and how to flush the server's
// memtables before the database size is read (from the store's
// store.ServerDescriber).
type hostSource struct {
	opts   hostmetrics.Options
	server *results.Server
	flush  func(ctx context.Context) error // nil: nothing to flush
	// finalSize, when not nil, is the database size at a phase's end,
	// after flush (ROCKSDB: information_schema counts flushed memtables
	// only, so its intervals have no size); nil: opts.Size.
	finalSize func(ctx context.Context) (int64, error)
	// sizeFixed: opts.Size was chosen by the store's setup (nil: not
	// measured per interval), not to be replaced by the datadir's size.
	sizeFixed bool
	sizeNote  string // where the size comes from, for the log
	close     func()
	notes     []string // why something is not sampled, for the log
}

// newHostSource finds what to sample for the store: the -datadir and
// -device flags, else, for a store that describes its server
// (store.ServerDescriber) running on this host, its datadir, process and
// database size.
func newHostSource(ctx context.Context, o *options, cfg *linkbench.Config, st *openedStore) *hostSource {
	h := &hostSource{close: func() {}}
	h.opts.Devices = append(h.opts.Devices, o.devices...)
	h.opts.ServerPID = o.serverPID
	var datadir string
	if d, ok := store.AsServerDescriber(st.Store); ok {
		datadir = h.describe(ctx, d, cfg)
	}
	if o.datadir != "" {
		datadir = o.datadir
	}
	if datadir != "" {
		if _, err := os.Stat(datadir); err == nil {
			h.opts.Paths = append(h.opts.Paths, datadir)
			if h.opts.Size == nil && !h.sizeFixed {
				dir := datadir
				h.opts.Size = func(context.Context) (int64, error) { return dirSize(dir) }
			}
		} else {
			h.notes = append(h.notes, fmt.Sprintf("datadir %s is not on this host: no device or size sampled", datadir))
		}
	}
	if h.server != nil {
		h.server.PID = h.opts.ServerPID
	}
	return h
}

// describe takes the server's description (settings, size, flush), and,
// for a server on this host, its datadir, process and the databases'
// directories. It returns the datadir, "" when it is unknown or on
// another host.
func (h *hostSource) describe(ctx context.Context, d store.ServerDescriber, cfg *linkbench.Config) string {
	srv, err := d.DescribeServer(ctx, cfg.DatabaseNames())
	if err != nil {
		h.notes = append(h.notes, fmt.Sprintf("server settings: %v", err))
		return ""
	}
	if srv.Close != nil {
		h.close = srv.Close
	}
	h.server = &results.Server{Version: srv.Version, Settings: srv.Settings}
	h.flush = srv.Flush
	h.opts.Size, h.sizeNote = srv.Size, srv.SizeSource
	if srv.SizeAtEnd {
		// Between flushes the server's figures leave out what Flush
		// writes (ROCKSDB's memtables: 0 during a load): the intervals
		// have no size, the phase's end has it after a flush.
		h.opts.Size, h.finalSize, h.sizeFixed = nil, srv.Size, true
	}
	dir := srv.Datadir
	if dir == "" {
		return ""
	}
	if !srv.Local {
		kind := srv.Kind
		if kind == "" {
			kind = "database"
		}
		h.notes = append(h.notes, fmt.Sprintf("the %s server is not on this host (not a loopback address or a socket): give -datadir or -device, and -server-pid, to sample it", kind))
		return ""
	}
	if _, err := os.Stat(dir); err != nil {
		return dir // newHostSource notes it is remote
	}
	h.server.Datadir = dir
	if len(srv.DataDirs) > 0 && !srv.SizeAtEnd {
		// The databases' directories on disk are what the server holds,
		// more exact than its statistics (information_schema read 0.001
		// GB for 170 MB written).
		var dirs []string
		for _, d := range srv.DataDirs {
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) == len(srv.DataDirs) {
			h.opts.Size = func(context.Context) (int64, error) {
				var n int64
				for _, d := range dirs {
					m, err := dirSize(d)
					if err != nil {
						return 0, err
					}
					n += m
				}
				return n, nil
			}
			h.sizeNote = "the databases' directories in the datadir"
		}
	}
	if h.opts.ServerPID == 0 && srv.PIDFile != "" {
		h.opts.ServerPID = readPID(srv.PIDFile)
	}
	return dir
}

// readPID returns the process id in the first line of a pid file if that
// process runs on this host, else 0.
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		return 0
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		return 0
	}
	return pid
}

// dirSize returns the bytes of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil // files come and go while the server runs
			}
			return err
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}
