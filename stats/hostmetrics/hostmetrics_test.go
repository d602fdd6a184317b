package hostmetrics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSnapshotAndDiff(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(Options{Paths: []string{dir}, ServerPID: 1 << 30, Size: func(context.Context) (int64, error) {
		return 0, errors.New("no size here")
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Snapshot(ctx)
	if err == nil || a.Size != -1 {
		t.Fatalf("a failing Size: err %v, size %d; want the error and -1", err, a.Size)
	}
	// Some CPU and some disk writes between the snapshots: spin until this
	// process has used 60 ms of CPU by getrusage's count (on a loaded host
	// that takes longer than 60 ms of wall time), at most 20 s.
	cpu := func() time.Duration { return selfCPU(t) }
	start, deadline := cpu(), time.Now().Add(20*time.Second)
	x := 0
	for cpu()-start < 60*time.Millisecond && time.Now().Before(deadline) {
		for range 100000 {
			x++
		}
	}
	f, err := os.Create(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, 4<<20)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := s.Snapshot(ctx)
	w := Diff(a, b)
	if !w.HasClient || w.ClientCPU < 30*time.Millisecond {
		t.Errorf("client CPU %v (has %v) after 60 ms of CPU spinning (getrusage: %v)", w.ClientCPU, w.HasClient, cpu()-start)
	}
	if !w.HasCPU || w.CPUPercent <= 0 || w.CPUPercent > 100 {
		t.Errorf("machine CPU %.1f%% (has %v)", w.CPUPercent, w.HasCPU)
	}
	if w.HasServer {
		t.Error("a process that does not exist was sampled")
	}
	if w.HasSize {
		t.Error("a size that failed is reported")
	}
	if len(s.Devices()) == 0 {
		if w.HasDisk {
			t.Error("disk figures without a device")
		}
		t.Logf("%s is on no block device: disk figures missing, as they should be", dir)
		return
	}
	if !w.HasDisk || w.WriteMBPerSec*w.Seconds < 4 {
		t.Errorf("devices %v: %.2f MB written (has %v) after fsyncing 4 MiB", s.Devices(), w.WriteMBPerSec*w.Seconds, w.HasDisk)
	}
}

func TestServerProcess(t *testing.T) {
	s, err := New(Options{ServerPID: os.Getpid(), Devices: []string{"no-such-device"}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Snapshot(context.Background())
	b, _ := s.Snapshot(context.Background())
	w := Diff(a, b)
	if !w.HasServer || w.ServerRSS <= 0 {
		t.Errorf("server process (this one): %+v", w)
	}
	if w.HasDisk || len(a.Disk.MissingDevices) != 1 {
		t.Errorf("an absent device: has disk %v, missing %v", w.HasDisk, a.Disk.MissingDevices)
	}
}

// TestDiffArithmetic checks Diff by hand on made-up snapshots.
func TestDiffArithmetic(t *testing.T) {
	t0 := time.Unix(1000, 0)
	a := Snapshot{Time: t0, Size: -1,
		CPU:    CPU{OK: true, User: 10 * time.Second, System: 5 * time.Second, Idle: 85 * time.Second, Cores: 4},
		Disk:   Disk{OK: true, Devices: []string{"sda"}, ReadIOs: 100, ReadBytes: 1e6, WriteBytes: 2e6},
		Server: Proc{OK: true, User: time.Second, RSS: 1}, Client: Proc{OK: true}}
	b := Snapshot{Time: t0.Add(10 * time.Second), Size: 5e9,
		CPU:    CPU{OK: true, User: 20 * time.Second, System: 10 * time.Second, Idle: 110 * time.Second, IOWait: 0, Cores: 4},
		Disk:   Disk{OK: true, Devices: []string{"sda"}, ReadIOs: 3100, ReadBytes: 21e6, WriteBytes: 52e6},
		Server: Proc{OK: true, User: 3 * time.Second, System: time.Second, RSS: 7e9}, Client: Proc{OK: true, User: time.Second}}
	w := Diff(a, b)
	// 15 s busy of 40 s counted: 37.5 %; 3000 reads in 10 s; 20 MB and 50 MB.
	if w.CPUPercent != 37.5 || w.ReadsPerSec != 300 || w.ReadMBPerSec != 2 || w.WriteMBPerSec != 5 ||
		w.ServerCPU != 3*time.Second || w.ServerRSS != 7e9 || w.ClientCPU != time.Second || !w.HasSize || w.Size != 5e9 {
		t.Errorf("Diff = %+v", w)
	}
}

// TestSeveralServers: with MoreServerPIDs the server is the sum of the
// processes that run (a pid that does not is left out), each listed.
func TestSeveralServers(t *testing.T) {
	s, err := New(Options{ServerPID: os.Getpid(), MoreServerPIDs: func() []int { return []int{1, 1 << 30, os.Getpid()} }})
	if err != nil {
		if errors.Is(err, ErrUnsupported) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	snap := s.SnapshotWithoutSize()
	if len(snap.Servers) != 2 || snap.Servers[0].PID != os.Getpid() || snap.Servers[1].PID != 1 {
		t.Fatalf("servers %+v, want this process and pid 1 (each once; 1<<30 does not run)", snap.Servers)
	}
	p0, p1 := snap.Servers[0].Proc, snap.Servers[1].Proc
	if !snap.Server.OK || snap.Server.RSS != p0.RSS+p1.RSS || snap.Server.CPU() != p0.CPU()+p1.CPU() {
		t.Errorf("server %+v is not the sum of %+v and %+v", snap.Server, p0, p1)
	}
}

// TestDiffSeveralServers: a window's server CPU over several processes is
// each one's CPU since the window's start, all of it for a process that
// started in the window (a restarted node), none for one that ended.
func TestDiffSeveralServers(t *testing.T) {
	t0 := time.Unix(1000, 0)
	proc := func(pid int, user time.Duration) PIDProc {
		return PIDProc{PID: pid, Proc: Proc{OK: true, User: user, RSS: 100}}
	}
	a := Snapshot{Time: t0, Server: Proc{OK: true}, Servers: []PIDProc{proc(10, 5*time.Second), proc(11, 7*time.Second), proc(12, 9*time.Second)}}
	// 11 ended, 13 started (11 restarted); 10 used 2 s, 12 used 1 s, 13 used 3 s.
	b := Snapshot{Time: t0.Add(10 * time.Second), Server: Proc{OK: true, RSS: 300},
		Servers: []PIDProc{proc(10, 7*time.Second), proc(12, 10*time.Second), proc(13, 3*time.Second)}}
	w := Diff(a, b)
	if !w.HasServer || w.ServerCPU != 6*time.Second || w.ServerRSS != 300 {
		t.Errorf("window: has %v, CPU %v, RSS %d; want true, 6s, 300", w.HasServer, w.ServerCPU, w.ServerRSS)
	}
}
