package tempering

import (
	"reflect"
	"testing"
)

// TestPathScheme: each driver is the path × scheme of the table in
// path.go, and the subset paths refuse a target without observations.
func TestPathScheme(t *testing.T) {
	type want struct {
		subsets, fresh, swaps, additive bool
	}
	for d, w := range map[Driver]want{
		None: {swaps: true},
		PT:   {swaps: true},
		TT:   {},
		SPT:  {subsets: true, swaps: true},
		STT:  {subsets: true, fresh: true, additive: true},
	} {
		s := &Settings{Sampler: Sampler{Driver: d, Swap: Sweep, BaseSteps: 3}}
		p, sc, err := newPathScheme(s, 2, 5)
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		sp, subsets := p.(*subsetPath)
		if _, power := p.(*powerPath); subsets == power || subsets != w.subsets {
			t.Errorf("%v: path %T, want subsets %v", d, p, w.subsets)
		}
		if subsets && (sp.fresh != w.fresh || len(sp.perm) != 5) {
			t.Errorf("%v: subsets fresh %v over %d observations, want fresh %v over 5", d, sp.fresh, len(sp.perm), w.fresh)
		}
		switch sc := sc.(type) {
		case *swapScheme:
			if !w.swaps || sc.sched != Sweep || !sc.replicas() {
				t.Errorf("%v: swaps with schedule %v, want swaps %v with sweep", d, sc.sched, w.swaps)
			}
		case *transitionScheme:
			if w.swaps || sc.base != 3 || sc.additive != w.additive || sc.replicas() || len(sc.work.U) != 2 {
				t.Errorf("%v: tempered transitions with %d base steps, additive %v; want swaps %v, 3 base steps, additive %v", d, sc.base, sc.additive, w.swaps, w.additive)
			}
		default:
			t.Errorf("%v: scheme %T", d, sc)
		}
		if _, _, err := newPathScheme(s, 2, 0); (err != nil) != w.subsets {
			t.Errorf("%v without observations: error %v, want one: %v", d, err, w.subsets)
		}
	}
}

// TestChainKeepsNoDriver: the chain holds its path and scheme, not the
// driver they were chosen from, so that nothing in it can branch on the
// driver.
func TestChainKeepsNoDriver(t *testing.T) {
	ct := reflect.TypeFor[Chain]()
	for i := range ct.NumField() {
		if f := ct.Field(i); f.Type == reflect.TypeFor[Driver]() {
			t.Errorf("Chain.%s is a Driver", f.Name)
		}
	}
}

// TestLayoutCoversPaths: the checkpoint's layout hash covers the path of
// every driver, which a chain's layout alone records by name only.
func TestLayoutCoversPaths(t *testing.T) {
	lt := reflect.TypeFor[stateLayout]()
	for _, d := range allDrivers {
		p, _, err := newPathScheme(&Settings{Sampler: Sampler{Driver: d}}, 1, 3)
		if err != nil {
			t.Fatal(err)
		}
		pt := reflect.TypeOf(p).Elem()
		found := false
		for i := range lt.NumField() {
			found = found || lt.Field(i).Type == pt
		}
		if !found {
			t.Errorf("%v: the checkpoint's layout leaves out its path %v", d, pt)
		}
	}
}
