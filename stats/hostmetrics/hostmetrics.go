// Package hostmetrics samples what database benchmarkers publish beside a
// benchmark's rates: the reads and writes of the block devices that hold
// the database (iostat's r/s, rMB/s, wMB/s), the machine's CPU utilisation
// (vmstat's us + sy), the database server process's CPU and resident
// memory, the benchmark client's own CPU, and the database's size.
//
// It reads Linux's /proc and /sys through github.com/prometheus/procfs.
// What cannot be measured (another OS, a server on another host, a
// database on a filesystem with no block device) is reported as missing,
// never as zero: each figure of a Snapshot and a Window has a validity
// flag.
//
// A Sampler takes Snapshots; Diff turns two of them into a Window of
// per-second rates over the time between them.
package hostmetrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// ErrUnsupported is returned (wrapped) by New on systems without Linux's
// /proc.
var ErrUnsupported = errors.New("hostmetrics: needs Linux's /proc")

// sectorBytes is the unit of /proc/diskstats' sector counts.
const sectorBytes = 512

// Options say what a Sampler samples. The zero value samples the machine's
// CPU and this process only.
type Options struct {
	// Devices are block device names as in /proc/diskstats (sda, nvme0n1,
	// vda, dm-0); their counters are summed.
	Devices []string
	// Paths are directories (a database's data directory) whose block
	// devices are sampled too: each resolves, through the mount table, to
	// the device of the filesystem holding it. A path on a filesystem
	// without a block device (tmpfs, overlay) adds none.
	Paths []string
	// ServerPID is the database server's process (0: none). Its CPU and
	// resident memory are sampled while it runs on this host.
	ServerPID int
	// MoreServerPIDs, when not nil, returns the processes of further
	// servers (the other nodes of a cluster on this host), asked at each
	// sample (a restarted node has a new process): their CPU and resident
	// memory are added to ServerPID's (Snapshot.Server is the sum,
	// Snapshot.Servers each).
	MoreServerPIDs func() []int
	// ClientPID is the benchmark client's process (0: this process).
	ClientPID int
	// Size, when not nil, returns the database's size in bytes (the store
	// knows how: information_schema, the datadir's size, ...).
	Size func(ctx context.Context) (int64, error)
}

// Sampler takes Snapshots of what Options names.
type Sampler struct {
	opts    Options
	fs      procfs.FS
	bfs     blockdevice.FS
	devices []string // resolved and deduplicated
	cores   int
}

// New returns a Sampler. It resolves Options.Paths to devices now.
// Errors: ErrUnsupported without /proc; a path that does not exist.
func New(o Options) (*Sampler, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("%w (GOOS=%s)", ErrUnsupported, runtime.GOOS)
	}
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	bfs, err := blockdevice.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	s := &Sampler{opts: o, fs: fs, bfs: bfs, cores: runtime.NumCPU()}
	s.devices = append(s.devices, o.Devices...)
	for _, p := range o.Paths {
		d, err := s.deviceOf(p)
		if err != nil {
			return nil, err
		}
		if d != "" {
			s.devices = append(s.devices, d)
		}
	}
	slices.Sort(s.devices)
	s.devices = slices.Compact(s.devices)
	return s, nil
}

// Devices returns the block devices sampled.
func (s *Sampler) Devices() []string { return slices.Clone(s.devices) }

// deviceOf returns the block device of the filesystem holding path ("" when
// the filesystem has none).
func (s *Sampler) deviceOf(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", fmt.Errorf("hostmetrics: path %s: %w", path, err)
	}
	self, err := s.fs.Self()
	if err != nil {
		return "", err
	}
	mounts, err := self.MountInfo()
	if err != nil {
		return "", err
	}
	best := -1
	for i, m := range mounts {
		mp := m.MountPoint
		if (abs == mp || strings.HasPrefix(abs, strings.TrimSuffix(mp, "/")+"/")) &&
			(best < 0 || len(mp) >= len(mounts[best].MountPoint)) {
			best = i
		}
	}
	if best < 0 {
		return "", nil
	}
	mm := mounts[best].MajorMinorVer
	if strings.HasPrefix(mm, "0:") {
		return "", nil // a virtual filesystem
	}
	link, err := os.Readlink("/sys/dev/block/" + mm)
	if err != nil {
		return "", nil
	}
	return filepath.Base(link), nil
}

// Proc is a process's CPU time and resident memory.
type Proc struct {
	OK     bool // false: not sampled (no such process, not on this host)
	User   time.Duration
	System time.Duration
	RSS    int64 // bytes
}

// CPU returns User + System.
func (p Proc) CPU() time.Duration { return p.User + p.System }

// Disk is the summed counters of the sampled block devices.
type Disk struct {
	OK                    bool // false: no device sampled
	ReadIOs, WriteIOs     int64
	ReadBytes, WriteBytes int64
	ReadTime, WriteTime   time.Duration
	IOTime                time.Duration
	Devices               []string
	MissingDevices        []string // named but absent from /proc/diskstats
}

// CPU is the machine's CPU time, all cores together, as /proc/stat counts
// it.
type CPU struct {
	OK                       bool
	User, Nice, System, Idle time.Duration
	IOWait, IRQ, SoftIRQ     time.Duration
	Steal                    time.Duration
	Cores                    int
}

// Busy is the time vmstat counts as us + sy: user, nice, system, irq and
// softirq.
func (c CPU) Busy() time.Duration { return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ }

// Total is all the time counted (steal included).
func (c CPU) Total() time.Duration {
	return c.Busy() + c.Idle + c.IOWait + c.Steal
}

// Snapshot is one sample.
type Snapshot struct {
	Time time.Time
	CPU  CPU
	Disk Disk
	// Server is the server's process, or the sum of the servers'
	// (Options.MoreServerPIDs), each of which is in Servers then.
	Server  Proc
	Servers []PIDProc
	Client  Proc
	Size    int64 // bytes; -1 when unknown
}

// PIDProc is one server process of a Snapshot of several.
type PIDProc struct {
	PID int
	Proc
}

// Snapshot samples now. Figures that cannot be read are marked missing;
// the error is that of Options.Size, if any (the rest is still sampled).
func (s *Sampler) Snapshot(ctx context.Context) (Snapshot, error) {
	snap := s.SnapshotWithoutSize()
	var err error
	if s.opts.Size != nil {
		var n int64
		if n, err = s.opts.Size(ctx); err == nil {
			snap.Size = n
		}
	}
	return snap, err
}

// SnapshotWithoutSize samples now, as Snapshot, except the database size
// (Size is -1): for samples taken more often than the size needs to be
// read (a query or a walk of the data directory).
func (s *Sampler) SnapshotWithoutSize() Snapshot {
	snap := Snapshot{Time: time.Now(), Size: -1}
	if st, err := s.fs.Stat(); err == nil {
		c := st.CPUTotal
		sec := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
		snap.CPU = CPU{OK: true, User: sec(c.User), Nice: sec(c.Nice), System: sec(c.System), Idle: sec(c.Idle),
			IOWait: sec(c.Iowait), IRQ: sec(c.IRQ), SoftIRQ: sec(c.SoftIRQ), Steal: sec(c.Steal), Cores: s.cores}
	}
	if len(s.devices) > 0 {
		snap.Disk = s.disk()
	}
	if s.opts.ServerPID > 0 {
		snap.Server = s.proc(s.opts.ServerPID)
	}
	if s.opts.MoreServerPIDs != nil {
		s.sumServers(&snap)
	}
	pid := s.opts.ClientPID
	if pid <= 0 {
		pid = os.Getpid()
	}
	snap.Client = s.proc(pid)
	return snap
}

// sumServers samples the processes of ServerPID and MoreServerPIDs (those
// that run) into snap.Servers and their sum into snap.Server.
func (s *Sampler) sumServers(snap *Snapshot) {
	pids := append([]int{s.opts.ServerPID}, s.opts.MoreServerPIDs()...)
	var sum Proc
	for _, pid := range pids {
		if pid <= 0 || slices.ContainsFunc(snap.Servers, func(p PIDProc) bool { return p.PID == pid }) {
			continue
		}
		p := s.proc(pid)
		if !p.OK {
			continue
		}
		snap.Servers = append(snap.Servers, PIDProc{PID: pid, Proc: p})
		sum.OK = true
		sum.User += p.User
		sum.System += p.System
		sum.RSS += p.RSS
	}
	snap.Server = sum
}

func (s *Sampler) disk() Disk {
	stats, err := s.bfs.ProcDiskstats()
	if err != nil {
		return Disk{}
	}
	d := Disk{}
	for _, name := range s.devices {
		i := slices.IndexFunc(stats, func(x blockdevice.Diskstats) bool { return x.DeviceName == name })
		if i < 0 {
			d.MissingDevices = append(d.MissingDevices, name)
			continue
		}
		x := stats[i]
		d.OK = true
		d.Devices = append(d.Devices, name)
		d.ReadIOs += int64(x.ReadIOs)
		d.WriteIOs += int64(x.WriteIOs)
		d.ReadBytes += int64(x.ReadSectors) * sectorBytes
		d.WriteBytes += int64(x.WriteSectors) * sectorBytes
		d.ReadTime += time.Duration(x.ReadTicks) * time.Millisecond
		d.WriteTime += time.Duration(x.WriteTicks) * time.Millisecond
		d.IOTime += time.Duration(x.IOsTotalTicks) * time.Millisecond
	}
	return d
}

func (s *Sampler) proc(pid int) Proc {
	p, err := s.fs.Proc(pid)
	if err != nil {
		return Proc{}
	}
	st, err := p.Stat()
	if err != nil {
		return Proc{}
	}
	tick := time.Second / time.Duration(userHZ)
	return Proc{OK: true, User: time.Duration(st.UTime) * tick, System: time.Duration(st.STime) * tick,
		RSS: int64(st.ResidentMemory())}
}

// userHZ is the unit of /proc/PID/stat's CPU times (USER_HZ, 100 on every
// Linux ABI).
const userHZ = 100

// Window is what happened between two snapshots, per second. Each figure
// comes with its validity flag; a missing figure is never 0 by accident.
type Window struct {
	Start, End time.Time
	Seconds    float64

	HasDisk                                  bool
	ReadsPerSec, ReadMBPerSec, WriteMBPerSec float64 // MB = 10^6 bytes, as iostat -m
	WritesPerSec                             float64

	HasCPU     bool
	CPUPercent float64 // the machine's us + sy, percent of all cores (vmstat)
	Cores      int

	HasServer bool
	ServerCPU time.Duration // the server's user + system CPU in the window
	ServerRSS int64         // bytes, at the end
	HasClient bool
	ClientCPU time.Duration
	ClientRSS int64
	HasSize   bool
	Size      int64 // bytes, at the end
}

// Diff returns the window from a to b (b later).
func Diff(a, b Snapshot) Window {
	w := Window{Start: a.Time, End: b.Time, Seconds: b.Time.Sub(a.Time).Seconds()}
	if w.Seconds <= 0 {
		return w
	}
	if a.Disk.OK && b.Disk.OK && slices.Equal(a.Disk.Devices, b.Disk.Devices) {
		w.HasDisk = true
		w.ReadsPerSec = float64(b.Disk.ReadIOs-a.Disk.ReadIOs) / w.Seconds
		w.WritesPerSec = float64(b.Disk.WriteIOs-a.Disk.WriteIOs) / w.Seconds
		w.ReadMBPerSec = float64(b.Disk.ReadBytes-a.Disk.ReadBytes) / 1e6 / w.Seconds
		w.WriteMBPerSec = float64(b.Disk.WriteBytes-a.Disk.WriteBytes) / 1e6 / w.Seconds
	}
	if a.CPU.OK && b.CPU.OK {
		if total := b.CPU.Total() - a.CPU.Total(); total > 0 {
			w.HasCPU = true
			w.CPUPercent = 100 * float64(b.CPU.Busy()-a.CPU.Busy()) / float64(total)
			w.Cores = b.CPU.Cores
		}
	}
	switch {
	case len(b.Servers) > 0 && a.Server.OK:
		// Several processes: each one's CPU since a, or since it started
		// when it did in the window (a restarted node); one that ended in
		// the window is left out (its last CPU cannot be read).
		w.HasServer = true
		for _, p := range b.Servers {
			cpu := p.CPU()
			if i := slices.IndexFunc(a.Servers, func(q PIDProc) bool { return q.PID == p.PID }); i >= 0 {
				cpu -= a.Servers[i].CPU()
			}
			w.ServerCPU += cpu
		}
		w.ServerRSS = b.Server.RSS
	case a.Server.OK && b.Server.OK:
		w.HasServer = true
		w.ServerCPU = b.Server.CPU() - a.Server.CPU()
		w.ServerRSS = b.Server.RSS
	}
	if a.Client.OK && b.Client.OK {
		w.HasClient = true
		w.ClientCPU = b.Client.CPU() - a.Client.CPU()
		w.ClientRSS = b.Client.RSS
	}
	if b.Size >= 0 {
		w.HasSize, w.Size = true, b.Size
	}
	return w
}
