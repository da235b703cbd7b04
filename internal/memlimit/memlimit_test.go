package memlimit

import (
	"errors"
	"strings"
	"testing"
)

// TestDrawsFormula pins the draws' formula to peak RSS measured with
// /usr/bin/time -f %M on `subtemper mvn --n 10 --dims P --sampler none
// --inner mh --chains C --warmup none --draws K --quiet` (pure-Go backend):
// it must lie within 20% of each, less the 26 MB such a run takes with no
// draws. The old estimate (16 B per value) was 7 times low.
func TestDrawsFormula(t *testing.T) {
	for _, m := range []struct {
		c, p, k int
		rssKB   float64
	}{
		{1, 3, 500000, 187196},
		{1, 3, 1000000, 339568},
		{1, 12, 1000000, 785280},
		{3, 6, 300000, 434804},
		{1, 1, 1000000, 257268},
	} {
		got := Draws(m.c, m.k, m.p, m.k)
		want := m.rssKB*1024 - 26e6
		if r := got / want; r < 0.8 || r > 1.2 {
			t.Errorf("C=%d P=%d K=%d: estimate %s, measured %s (ratio %.2f)", m.c, m.p, m.k, Format(got), Format(want), r)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"8G": 8 << 30, "512MiB": 512 << 20, "1.5GB": 3 << 29, "1000": 1000, "2k": 2048} {
		if v, err := ParseSize(s); err != nil || v != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, v, err, want)
		}
	}
	for _, s := range []string{"", "-1G", "x", "1e30T"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q): no error", s)
		}
	}
}

func TestCheck(t *testing.T) {
	err := Check([]Item{{"the GP model (--n 200000)", GP(200000, 3, 3, true, false), "use a smaller --n"}}, 16<<30, "--max-memory")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "use a smaller --n") || !strings.Contains(err.Error(), "16.0 GiB") {
		t.Errorf("error %v", err)
	}
	if err := Check([]Item{{"x", 1 << 20, ""}}, 1<<30, ""); err != nil {
		t.Error(err)
	}
}

// TestCheckMessages: a refusal whose estimate is mostly the program itself
// names it and says what allowance would do, instead of "needs about
// 32 MiB (), …; , or set …"; allowances under a MiB are not "0 MiB".
func TestCheckMessages(t *testing.T) {
	err := Check([]Item{{"the model", 1000, "use less"}}, 1024, "--max-memory")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, bad := range []string{"()", "; ,", "0 MiB available"} {
		if strings.Contains(msg, bad) {
			t.Errorf("message holds %q: %s", bad, msg)
		}
	}
	for _, want := range []string{"the program itself 32 MiB", "1 KiB available", "set --max-memory to at least 32 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
}
