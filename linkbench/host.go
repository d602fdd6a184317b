package linkbench

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/linkbench-go/linkbench/stats/hostmetrics"
	"github.com/linkbench-go/linkbench/stats/results"
	"github.com/linkbench-go/linkbench/store"
)

// HostOptions say what a run's host metrics sample (Plan.Host), beside
// what the store says of its server (store.ServerDescriber): the block
// devices' counters, the machine's CPU, the server's and the client's
// processes, and the database's size, at each phase's start and end and at
// every interval (Linux; elsewhere nothing is sampled).
type HostOptions struct {
	// Datadir is the database's data directory: its block device is
	// sampled and its size is the database's. "": the server's, when the
	// store's server runs on this host.
	Datadir string
	// Devices are block devices to sample, as in /proc/diskstats
	// ("nvme0n1"), beside Datadir's.
	Devices []string
	// ServerPID is the database server's process; 0: from the server's
	// pid file, when it runs on this host.
	ServerPID int
}

// hostSource is what a run's host metrics sample: the sampler's options,
// the server's description for result files, and how to flush the
// server's memtables before its size is read.
type hostSource struct {
	opts   hostmetrics.Options
	server *results.Server
	flush  func(ctx context.Context) error // nil: nothing to flush
	// finalSize, when not nil, is the database size at a phase's end,
	// after flush (ROCKSDB: its size leaves out the memtables between
	// flushes, so the intervals have none); nil: opts.Size.
	finalSize func(ctx context.Context) (int64, error)
	sizeNote  string // where the size comes from, for the log
	close     func()
	notes     []string // why something is not sampled, for the log
	// morePIDFiles is the number of other servers' pid files sampled
	// (the nodes of a cluster), for the log.
	morePIDFiles int
}

// newHostSource finds what to sample for st: o's directory, devices and
// process, and what the store's server says of itself (its settings, data
// directory, process and database size, when it runs on this host).
func newHostSource(ctx context.Context, o HostOptions, st store.Store, databases []string) *hostSource {
	h := &hostSource{close: func() {}}
	h.opts.Devices = append(h.opts.Devices, o.Devices...)
	h.opts.ServerPID = o.ServerPID
	datadir := h.describeServer(ctx, st, databases)
	if o.Datadir != "" {
		datadir = o.Datadir
	}
	if datadir != "" {
		if _, err := os.Stat(datadir); err == nil {
			h.opts.Paths = append(h.opts.Paths, datadir)
			if h.opts.Size == nil && h.finalSize == nil {
				dir := datadir
				h.opts.Size = func(context.Context) (int64, error) { return dirSize(dir) }
				h.sizeNote = "the data directory's files"
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

// describeServer takes the server's description from the store
// (store.ServerDescriber): its settings for the result files, the size
// function, and, when it runs on this host, its process. It returns the
// server's data directory when it is on this host.
func (h *hostSource) describeServer(ctx context.Context, st store.Store, databases []string) string {
	d, ok := store.AsServerDescriber(st)
	if !ok {
		return ""
	}
	srv, err := d.DescribeServer(ctx, databases)
	if err != nil {
		h.notes = append(h.notes, fmt.Sprintf("server settings: %v", err))
		return ""
	}
	if srv.Close != nil {
		h.close = srv.Close
	}
	h.server = &results.Server{Version: srv.Version, Settings: maps.Clone(srv.Settings)}
	if h.server.Settings == nil {
		h.server.Settings = map[string]string{}
	}
	h.flush = srv.Flush
	if srv.Size != nil {
		h.sizeNote = srv.SizeSource
		if srv.SizeAtEnd {
			h.finalSize = srv.Size
		} else {
			h.opts.Size = srv.Size
		}
	}
	if srv.Datadir == "" {
		return ""
	}
	if !srv.Local {
		h.notes = append(h.notes, fmt.Sprintf("the %s server is not on this host (not a loopback address or a socket): give its data directory, devices and process to sample it", srv.Kind))
		return ""
	}
	if _, err := os.Stat(srv.Datadir); err != nil {
		return srv.Datadir // newHostSource notes it is not here
	}
	h.server.Datadir = srv.Datadir
	if len(srv.DataDirs) > 0 && !srv.SizeAtEnd && allDirs(srv.DataDirs) {
		// The databases' directories on disk are what the server holds,
		// more exact than its statistics (information_schema read 0.001
		// GB for 170 MB written).
		dirs := srv.DataDirs
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
	if h.opts.ServerPID == 0 && srv.PIDFile != "" {
		pf := srv.PIDFile
		if !filepath.IsAbs(pf) {
			pf = filepath.Join(srv.Datadir, pf)
		}
		h.opts.ServerPID = readPID(pf)
	}
	if more := srv.MorePIDFiles; len(more) > 0 {
		// The other nodes of a cluster on this host: their pid files are
		// read at each sample (a node restarted has a new process).
		h.opts.MoreServerPIDs = func() []int {
			pids := make([]int, 0, len(more))
			for _, pf := range more {
				if pid := readPID(pf); pid > 0 {
					pids = append(pids, pid)
				}
			}
			return pids
		}
		h.morePIDFiles = len(more)
	}
	return srv.Datadir
}

// sampler starts the host metrics sampler of h, logging what is not
// sampled and why; nil on a system without Linux's /proc.
func (h *hostSource) sampler(log *slog.Logger) *hostmetrics.Sampler {
	for _, n := range h.notes {
		log.Warn("host metrics: " + n)
	}
	s, err := hostmetrics.New(h.opts)
	if err != nil {
		log.Warn("host metrics: not sampled", "err", err)
		return nil
	}
	log.Info("host metrics", "devices", strings.Join(s.Devices(), ","), "server_pid", h.opts.ServerPID,
		"more_servers", h.morePIDFiles, "size", h.sizeNote)
	return s
}

// allDirs reports whether every path of dirs is a directory.
func allDirs(dirs []string) bool {
	for _, d := range dirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
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
