package distributions

import (
	"testing"

	"pgregory.net/rand"
)

func checkBijection(t *testing.T, seed, g, n int64) {
	t.Helper()
	s, err := NewInvertibleShuffler(seed, g, n)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, n)
	for i := int64(0); i < n; i++ {
		p := s.Permute(i)
		if p < 0 || p >= n || seen[p] {
			t.Fatalf("shuffler(%d, %d, %d): permute(%d) = %d is outside [0, n) or repeated", seed, g, n, i, p)
		}
		seen[p] = true
		if q := s.InvertPermute(p); q != i {
			t.Fatalf("shuffler(%d, %d, %d): invertPermute(permute(%d)) = %d", seed, g, n, i, q)
		}
	}
}

func TestShufflerBijection(t *testing.T) {
	// Reference §10.1 cases.
	for _, c := range [][2]int64{{10, 1}, {4, 2}, {10, 5}, {7, 3}, {10, 7}, {10, 11}, {10, 15}, {100, 11}} {
		checkBijection(t, 1234, c[1], c[0])
	}
	checkBijection(t, 13, 7, 10031)
	checkBijection(t, 13, 7, 111111)
	// Production groups and seeds, several sizes up to 10^5 (including
	// n <= 1024, the identity, and sizes that are and are not multiples of
	// 1024).
	for _, n := range []int64{1, 2, 1023, 1024, 1025, 2048, 4097, 33333, 65536, 100000} {
		for _, seed := range []int64{ShuffleSeedLinks, ShuffleSeedUncorr, ShuffleSeedNodes} {
			checkBijection(t, seed, ShuffleGroups, n)
		}
	}
	s, _ := NewInvertibleShuffler(ShuffleSeedLinks, ShuffleGroups, 1024)
	for i := int64(0); i < 1024; i++ {
		if s.Permute(i) != i {
			t.Fatal("a shuffler with n <= groups is not the identity")
		}
	}
}

func TestShufflerLarge(t *testing.T) {
	r := rand.New(5)
	for _, n := range []int64{1_000_000_000, 1 << 31, 1<<31 + 12345, 1 << 40, 1<<40 + 999} {
		for _, seed := range []int64{ShuffleSeedLinks, ShuffleSeedNodes} {
			s, err := NewInvertibleShuffler(seed, ShuffleGroups, n)
			if err != nil {
				t.Fatal(err)
			}
			moved := 0
			for k := 0; k < 20000; k++ {
				i := r.Int63n(n)
				if k < 4 {
					i = []int64{0, 1, n - 1, n - 2}[k]
				}
				p := s.Permute(i)
				if p < 0 || p >= n {
					t.Fatalf("n=%d: permute(%d) = %d outside the range", n, i, p)
				}
				if p != i {
					moved++
				}
				if q := s.InvertPermute(p); q != i {
					t.Fatalf("n=%d: invertPermute(permute(%d)) = %d", n, i, q)
				}
				if q := s.Permute(s.InvertPermute(i)); q != i {
					t.Fatalf("n=%d: permute(invertPermute(%d)) = %d", n, i, q)
				}
			}
			if moved < 19000 {
				t.Errorf("n=%d: only %d of 20000 ids moved", n, moved)
			}
		}
	}
	// Below 2^31 the 64-bit shuffler equals LinkBench's (the 32-bit cast is
	// a no-op there): the production golden values of §10.2 are checked in
	// TestShufflerGolden.
}

func TestShufflerPanicsOutOfRange(t *testing.T) {
	s, _ := NewInvertibleShuffler(1, 4, 10)
	for _, i := range []int64{-1, 10} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Permute(%d) on [0, 10) did not panic", i)
				}
			}()
			s.Permute(i)
		}()
	}
}

// permuteRef is the straightforward form of InvertibleShuffler.permute (the
// one LinkBench's algorithm was first ported to), which the branch-free
// form must match exactly.
func permuteRef(s *InvertibleShuffler, i int64, inverse bool) int64 {
	g := i % s.groups
	big := g < s.nMod
	rot := s.params[g]
	if inverse {
		size := s.minGroupSize
		if big {
			size++
		}
		rot = size - rot
	}
	j := i + s.groups*rot
	if j < s.n {
		return j
	}
	m := s.nDown
	if big {
		m = s.nUp
	}
	for j >= m {
		j -= m
	}
	if j >= s.n {
		return g
	}
	return j
}

// TestShufflerMatchesReference: Permute and InvertPermute equal the
// straightforward algorithm for production and odd group counts, and for
// Java shufflers beyond 2^31 ids (LinkBench's 32-bit cast), on random ids
// and the ids next to 0, n and multiples of G.
func TestShufflerMatchesReference(t *testing.T) {
	var shufs []*InvertibleShuffler
	for _, n := range []int64{1, 1000, 1025, 100_000, 1_000_000_000, 1<<40 + 12345} {
		for _, g := range []int64{ShuffleGroups, 7} {
			s, err := NewInvertibleShuffler(ShuffleSeedLinks, g, n)
			if err != nil {
				t.Fatal(err)
			}
			shufs = append(shufs, s)
		}
	}
	for _, n := range []int64{100_000, 1<<32 + 5_000_000, 1<<33 + 2_000_000_000} {
		s, err := newJavaShuffler(ShuffleSeedNodes, ShuffleGroups, n)
		if err != nil {
			t.Fatal(err)
		}
		shufs = append(shufs, s)
	}
	r := rand.New(8)
	for _, s := range shufs {
		ids := []int64{0, 1, s.n - 1, s.n - 2, s.n / 2}
		for k := int64(1); k <= 3; k++ {
			ids = append(ids, s.nDown-k, s.groups*k, s.groups*k-1)
		}
		for i := 0; i < 100_000; i++ {
			ids = append(ids, r.Int63n(s.n))
		}
		for _, id := range ids {
			if id < 0 || id >= s.n {
				continue
			}
			for _, inv := range []bool{false, true} {
				if got, want := s.permute(id, inv), permuteRef(s, id, inv); got != want {
					t.Fatalf("shuffler n=%d G=%d: permute(%d, inverse %v) = %d, reference %d", s.n, s.groups, id, inv, got, want)
				}
			}
		}
	}
}
