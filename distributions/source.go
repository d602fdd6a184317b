package distributions

import "math"

// Source is the random source every distribution draws from.
//
// *pgregory.net/rand.Rand (the default, fast mode) satisfies it, and so does
// *[JavaRandom] (java.util.Random semantics, for runs that must reproduce
// LinkBench's random streams). Implementations need not be safe for
// concurrent use: each worker owns its source.
//
// The comment after each method names the java.util.Random call it stands
// for in LinkBench's algorithms (reference Appendix A.1).
type Source interface {
	// Float64 returns a uniform value in [0, 1) (Java nextDouble).
	Float64() float64
	// Int31n returns a uniform value in [0, n) for n > 0 (Java nextInt(n)).
	// It panics if n <= 0.
	Int31n(n int32) int32
	// Int63n returns a uniform value in [0, n) for n > 0. It panics if n <= 0.
	Int63n(n int64) int64
	// Uint32 returns 32 random bits (Java nextInt(), as uint32).
	Uint32() uint32
	// Uint64 returns 64 random bits (Java nextLong(), as uint64).
	Uint64() uint64
	// NormFloat64 returns a standard normal value (Java nextGaussian()).
	NormFloat64() float64
}

// LinkBench quirk §11.1-11 (RNG consumption order): kept in both modes; every algorithm here draws what LinkBench draws, in its order (the driver-level draws are the caller's).

// JavaRandom is java.util.Random: a 48-bit linear congruential generator
// (multiplier 0x5DEECE66D, increment 0xB) with Java's derived draws, exact to
// the bit, including the second Gaussian of each polar-method pair that
// nextGaussian saves for the next call (reference Appendix A.1; the
// algorithm is the one specified in the java.util.Random API documentation).
//
// The zero value is not useful; use [NewJavaRandom]. A JavaRandom is not safe
// for concurrent use.
type JavaRandom struct {
	state        uint64 // 48-bit LCG state
	haveGaussian bool
	nextGaussian float64
}

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = 1<<48 - 1
)

// NewJavaRandom returns the generator Java's new Random(seed) creates: its
// state is (seed XOR 0x5DEECE66D) mod 2^48.
func NewJavaRandom(seed int64) *JavaRandom {
	return &JavaRandom{state: (uint64(seed) ^ javaMultiplier) & javaMask}
}

// next advances the state and returns its top bits (1 <= bits <= 32) as a
// signed 32-bit value, as Java's protected next(bits).
func (j *JavaRandom) next(bits uint) int32 {
	j.state = (j.state*javaMultiplier + javaAddend) & javaMask
	return int32(j.state >> (48 - bits))
}

// Float64 returns Java's nextDouble(): ((next(26) << 27) + next(27)) * 2^-53,
// uniform in [0, 1).
func (j *JavaRandom) Float64() float64 {
	hi := int64(j.next(26))
	lo := int64(j.next(27))
	return float64(hi<<27+lo) * (1.0 / (1 << 53))
}

// Int31n returns Java's nextInt(n): uniform in [0, n), using one next(31)
// when n is a power of two and rejection sampling otherwise. It panics if
// n <= 0, as Java throws IllegalArgumentException.
func (j *JavaRandom) Int31n(n int32) int32 {
	if n <= 0 {
		panic("distributions: JavaRandom.Int31n: bound must be positive")
	}
	r := j.next(31)
	m := n - 1
	if n&m == 0 {
		return int32((int64(n) * int64(r)) >> 31)
	}
	for u := r; ; u = j.next(31) {
		r = u % n
		if u-r+m >= 0 { // int32 overflow makes this negative: reject
			return r
		}
	}
}

// Int63n returns a uniform value in [0, n). For n <= 2^31-1 it is exactly
// [JavaRandom.Int31n] (Java nextInt(n)), so algorithms that take a 64-bit
// bound where LinkBench calls nextInt draw the same values. For larger n
// (which LinkBench never draws) it is the bounded nextLong algorithm of
// Java 17's RandomGenerator.nextLong(bound), which java.util.Random
// inherits: one nextLong masked for a power of two, else
// u = nextLong() >>> 1 with rejection while u - u%n + (n-1) overflows. It
// panics if n <= 0.
func (j *JavaRandom) Int63n(n int64) int64 {
	if n <= 0 {
		panic("distributions: JavaRandom.Int63n: bound must be positive")
	}
	if n <= math.MaxInt32 {
		return int64(j.Int31n(int32(n)))
	}
	m := n - 1
	r := j.nextLong()
	if n&m == 0 {
		return r & m
	}
	for u := int64(uint64(r) >> 1); ; u = int64(uint64(j.nextLong()) >> 1) {
		r = u % n
		if u+m-r >= 0 {
			return r
		}
	}
}

// Uint32 returns Java's nextInt() (next(32)) as a uint32.
func (j *JavaRandom) Uint32() uint32 { return uint32(j.next(32)) }

// nextLong is Java's nextLong(): (next(32) << 32) + next(32), the second term
// sign-extended.
func (j *JavaRandom) nextLong() int64 {
	hi := int64(j.next(32))
	lo := int64(j.next(32))
	return hi<<32 + lo
}

// Uint64 returns Java's nextLong() as a uint64.
func (j *JavaRandom) Uint64() uint64 { return uint64(j.nextLong()) }

// NormFloat64 returns Java's nextGaussian(): Marsaglia's polar method on
// pairs of nextDouble draws, returning the first value of each accepted pair
// and saving the second for the next call.
func (j *JavaRandom) NormFloat64() float64 {
	if j.haveGaussian {
		j.haveGaussian = false
		return j.nextGaussian
	}
	for {
		v1 := 2*j.Float64() - 1
		v2 := 2*j.Float64() - 1
		s := float64(v1*v1) + float64(v2*v2) // no FMA: Java rounds each product
		if s >= 1 || s == 0 {
			continue
		}
		f := math.Sqrt(-2 * math.Log(s) / s)
		j.nextGaussian = v2 * f
		j.haveGaussian = true
		return v1 * f
	}
}

// javaLong converts a float64 to int64 as Java's (long) cast does:
// truncation toward zero, NaN to 0, saturation at the int64 limits. (A Go
// conversion of NaN or an out-of-range value is implementation-defined.)
func javaLong(x float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= math.MaxInt64: // 2^63 as a float64
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// javaRound is Java's Math.round(double): the closest long, ties rounding
// up (toward positive infinity), NaN to 0, saturating. It is computed without
// the x+0.5 rounding error of the naive floor(x+0.5), as Java 7+ does.
func javaRound(x float64) int64 {
	if x != x {
		return 0
	}
	f := math.Floor(x)
	if x-f >= 0.5 {
		f++
	}
	return javaLong(f)
}
