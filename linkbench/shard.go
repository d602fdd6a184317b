package linkbench

import (
	"fmt"
	"regexp"
	"strconv"
)

// MaxShards is the largest Shard.Count: more client processes than this
// is a mistake, not a benchmark.
const MaxShards = 4096

// Shard is one process's share of a run that several processes (client
// hosts) drive together, written I/N (the shard key, the tool's -shard):
// shard Index of Count, 0 <= Index < Count <= MaxShards. The zero value is
// 0/1 (the whole run).
//
// A sharded load writes shard Index's share of the id1 chunks (every
// Count-th chunk of the heavy-first order, starting at Index: the heaviest
// adjacency lists are dealt out round robin) and of the nodes (every
// Count-th chunk of ids), each chunk drawn from its own stream of
// load_random_seed: the Count processes together write exactly the rows
// one process writes with the same seed (and the same Config.StartAt,
// which the rows' times come from). A sharded request phase drives the
// whole id space; its requester i is requester Index*requesters + i of
// the run (its random stream), so that 4 shards of 4 requesters draw what
// one process of 16 draws.
type Shard struct {
	Index, Count int
}

// String returns the shard as I/N ("0/1" for the zero value).
func (s Shard) String() string {
	return fmt.Sprintf("%d/%d", s.Index, s.count())
}

// count is Count, with 0 read as 1.
func (s Shard) count() int { return max(s.Count, 1) }

// Sharded reports whether the run has more than one shard.
func (s Shard) Sharded() bool { return s.Count > 1 }

// shardSyntax is a shard as written: I/N, decimal, no sign, space or
// leading zero.
var shardSyntax = regexp.MustCompile(`^(0|[1-9][0-9]*)/([1-9][0-9]*)$`)

// ParseShard reads a shard written I/N (strictly: two decimal numbers
// without sign, space or leading zero) and checks its range (Check); the
// errors say what is allowed.
func ParseShard(v string) (Shard, error) {
	m := shardSyntax.FindStringSubmatch(v)
	if m == nil {
		return Shard{}, fmt.Errorf("want I/N, two decimal numbers without sign, space or leading zero (shard I of N, such as 0/3)")
	}
	a, err1 := strconv.Atoi(m[1])
	b, err2 := strconv.Atoi(m[2])
	s := Shard{Index: a, Count: b}
	if r := s.Check(); err1 != nil || err2 != nil || r != "" {
		return Shard{}, fmt.Errorf("want I/N with 0 <= I < N <= %d", MaxShards)
	}
	return s, nil
}

// Check returns "" when s is allowed, else why not.
func (s Shard) Check() string {
	if s.Count == 0 && s.Index == 0 {
		return ""
	}
	if s.Count < 1 || s.Count > MaxShards || s.Index < 0 || s.Index >= s.Count {
		return fmt.Sprintf("want I/N with 0 <= I < N <= %d", MaxShards)
	}
	return ""
}

// CheckShardedLoad refuses a sharded load (Config.Shard with more than
// one shard) without an explicit load_random_seed: each process would
// draw a seed of its own, and the shards would not write the rows one
// process writes. The error is a *ConfigError naming load_random_seed.
func CheckShardedLoad(cfg Config) error {
	if cfg.Shard.Sharded() && !cfg.LoadRandomSeed.Set {
		return &ConfigError{Key: "load_random_seed", Reason: fmt.Sprintf(
			"a sharded load (shard %s) needs it set, the same in every shard (e.g. -D load_random_seed=1): without it each process draws a seed of its own", cfg.Shard)}
	}
	return nil
}

// shardAllowed is the shard key's allowed values.
var shardAllowed = fmt.Sprintf("I/N with 0 <= I < N <= %d (0/1: one process)", MaxShards)

// splitmix64 is SplitMix64's output function (Steele, Lea and Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014): a
// bijective mix of x.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// RequestStreamSeed returns the seed a request phase's requester streams
// derive from: seed itself for the first step of a run without a sweep
// (step <= 1, sweep 0: a plain request phase draws what it always drew),
// else a SplitMix64 mix of seed, step and sweep (a non-negative int64),
// so that every step and sweep value has streams of its own. Requester g
// of the run (g = shard index * requesters + i) then draws from
// pgregory.net/rand.New(stream seed, 3, g) in the default mode.
func RequestStreamSeed(seed int64, step, sweep int) int64 {
	if step <= 1 && sweep == 0 {
		return seed
	}
	x := splitmix64(uint64(seed) ^ splitmix64(uint64(uint32(max(step, 1)))<<32|uint64(uint32(sweep))))
	return int64(x >> 1)
}
