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
