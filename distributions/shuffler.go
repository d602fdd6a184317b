package distributions

import (
	"fmt"
	"math"
)

// Shuffler parameters LinkBench uses (reference §6.6, §7.9): every shuffler
// has ShuffleGroups groups; the seed depends on the access kind.
const (
	// ShuffleGroups is the number of groups of every LinkBench shuffler.
	ShuffleGroups = 1024
	// ShuffleSeedLinks seeds the out-degree shuffler and the correlated link
	// read/write access shufflers (LINKS, LINK_READS, LINK_WRITES).
	ShuffleSeedLinks int64 = 20343988438726021
	// ShuffleSeedUncorr seeds the uncorrelated link access shufflers
	// (LINK_READS_UNCORR, LINK_WRITES_UNCORR).
	ShuffleSeedUncorr int64 = 53238253823453
	// ShuffleSeedNodes seeds the node access shufflers (NODE_READS,
	// NODE_UPDATES, NODE_DELETES).
	ShuffleSeedNodes int64 = 4766565305853767165
)

// InvertibleShuffler is LinkBench's cheap invertible permutation of [0, n)
// (reference §7.9): the ids are split into G residue classes modulo G
// ("groups") and each group is rotated by its own pseudo-random offset. It
// takes O(G) memory and O(1) time per id, and is immutable and safe for
// concurrent use.
//
// Offsets are drawn from java.util.Random(seed) exactly as LinkBench does,
// so the permutations are LinkBench's. The one difference is the fix of
// §11.2-13: LinkBench computes the minimum group size from n cast to 32 bits;
// here n is 64-bit throughout, which gives identical permutations for
// n < 2^31 and a valid permutation beyond. [JavaMode]'s shufflers keep
// LinkBench's cast.
type InvertibleShuffler struct {
	n, groups    int64
	minGroupSize int64
	nMod         int64 // n mod G: groups below it have minGroupSize+1 members
	nDown, nUp   int64
	mask         int64 // G-1 when G is a power of two, else -1
	params       []int64
}

// NewInvertibleShuffler returns the shuffler of [0, n) with the given seed
// and number of groups. groups > n is reduced to n (a shuffler with n <=
// groups is the identity, as in LinkBench). Offsets: for g = 0..G-1 in order,
// |nextInt(minGroupSize)| of java.util.Random(seed), with minGroupSize = n/G
// (for minGroupSize > 2^31-1, which LinkBench cannot reach, the 64-bit
// bounded draw of [JavaRandom.Int63n]).
// Errors (*ParamError): n < 1 or n >= 2^61 ("n"), groups < 1 ("groups").
func NewInvertibleShuffler(seed, groups, n int64) (*InvertibleShuffler, error) {
	if n < 1 || n > math.MaxInt64/4 {
		return nil, paramErr("n", n, "the shuffled range must hold between 1 and 2^61-1 ids")
	}
	if groups < 1 {
		return nil, paramErr("groups", groups, "must be >= 1")
	}
	if groups > n {
		// LinkBench quirk §11.1-5 (no shuffling at all for n <= 1024 ids): kept in both modes.
		groups = n
	}
	// LinkBench quirk §11.2-13 (InvertibleShuffler casts n to 32 bits): fixed in default mode.
	return newShuffler(seed, groups, n, n/groups), nil
}

// newJavaShuffler returns LinkBench's shuffler exactly, including quirk
// §11.2-13 (kept for Java-compatible streams, see [JavaMode]): the minimum
// group size is ((int) n) / G, n truncated to its low 32 bits as a signed
// int. Errors (*ParamError): those of NewInvertibleShuffler; "groups" above
// 2^31-1; "n" when ((int) n) / G <= 0.
func newJavaShuffler(seed, groups, n int64) (*InvertibleShuffler, error) {
	if n < 1 || n > math.MaxInt64/4 {
		return nil, paramErr("n", n, "the shuffled range must hold between 1 and 2^61-1 ids")
	}
	if groups < 1 || groups > math.MaxInt32 {
		return nil, paramErr("groups", groups, "must be in [1, 2^31-1]")
	}
	if groups > n {
		// LinkBench quirk §11.1-5 (no shuffling at all for n <= 1024 ids): kept in both modes.
		groups = n
	}
	// LinkBench quirk §11.2-13 (InvertibleShuffler casts n to 32 bits): kept in Java-compatible mode.
	mgs := int64(int32(n)) / groups
	if mgs <= 0 {
		return nil, paramErr("n", n, "LinkBench's InvertibleShuffler fails for this n: (int) n / %d = %d, and nextInt needs a positive bound", groups, mgs)
	}
	return newShuffler(seed, groups, n, mgs), nil
}

// newShuffler builds the shuffler with the given minimum group size (the
// offsets are |nextInt(mgs)|, and the inverse rotates by the group size
// minus the offset).
func newShuffler(seed, groups, n, mgs int64) *InvertibleShuffler {
	s := &InvertibleShuffler{n: n, groups: groups, minGroupSize: mgs, nMod: n % groups, mask: -1}
	if groups&(groups-1) == 0 {
		s.mask = groups - 1
	}
	rng := NewJavaRandom(seed)
	s.params = make([]int64, groups)
	for g := range s.params {
		s.params[g] = rng.Int63n(s.minGroupSize) // >= 0: LinkBench's abs is a no-op
	}
	s.nDown = (n / groups) * groups
	s.nUp = s.nDown
	if n != s.nDown {
		s.nUp += groups
	}
	return s
}

// Permute returns the image of i in [0, n). It panics if i is outside
// [0, n) (LinkBench throws).
func (s *InvertibleShuffler) Permute(i int64) int64 { return s.permute(i, false) }

// InvertPermute returns the preimage of i in [0, n):
// InvertPermute(Permute(i)) == i. It panics if i is outside [0, n).
func (s *InvertibleShuffler) InvertPermute(i int64) int64 { return s.permute(i, true) }

// N returns the size of the permuted range.
func (s *InvertibleShuffler) N() int64 { return s.n }

func (s *InvertibleShuffler) permute(i int64, inverse bool) int64 {
	if uint64(i) >= uint64(s.n) {
		panic(fmt.Sprintf("distributions: InvertibleShuffler: id %d outside [0, %d)", i, s.n))
	}
	var g int64
	if s.mask >= 0 {
		g = i & s.mask
	} else {
		g = i % s.groups
	}
	// Group g holds g, g+G, ... below n: minGroupSize members, one more for
	// g < n mod G; i moves rot members on, modulo the group's span m.
	rot := s.params[g]
	// big is -1 for the groups below n mod G, which have one member more
	// (span nUp = nDown + G), else 0: arithmetic rather than a branch, which
	// random ids would mispredict.
	big := (g - s.nMod) >> 63
	m, size := s.nDown+big&s.groups, s.minGroupSize-big
	if inverse {
		rot = size - rot
	}
	j := i + s.groups*rot
	// Branch-free in the common case: j < n, or j < 2m and j - m < n.
	// (j < n implies j < m: a j >= m below n would lie in [nDown, n) with
	// g >= n mod G, which has no member there.)
	if j >= m {
		j -= m
	}
	if j < s.n {
		return j
	}
	return s.reduce(j, m, g)
}

// reduce finishes permute when one subtraction of the span m did not bring
// j below n: j mod m, or g if that is not below n. Defensive: the offsets
// the constructors draw are below the group size (the Java mode's 32-bit
// cast only makes them smaller), so one subtraction always does.
func (s *InvertibleShuffler) reduce(j, m, g int64) int64 {
	for j >= m {
		j -= m
	}
	if j >= s.n {
		return g
	}
	return j
}
