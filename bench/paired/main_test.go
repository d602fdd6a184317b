package main

import "testing"

// TestRowsWithoutLoad checks that a pair measured with -skip-load (no load
// measurement) prints its request rows and leaves the load rows out
// instead of dereferencing the missing load measurement.
func TestRowsWithoutLoad(t *testing.T) {
	q := &measurement{requests: 100, reportRate: 50, user: 1e6, sys: 1e6}
	for _, r := range rows(statusVars) {
		v, ok := r.val(nil, q)
		switch {
		case len(r.name) >= 4 && r.name[:4] == "load":
			if ok {
				t.Errorf("%s: got %v with no load measured, want it left out", r.name, v)
			}
		case r.name == "request tps":
			if !ok || v != 50 {
				t.Errorf("%s = %v, %v; want 50, true", r.name, v, ok)
			}
		}
	}
}
