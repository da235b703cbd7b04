package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Count(0, "chain", "chains"), "0 chains"},
		{Count(1, "chain", "chains"), "1 chain"},
		{Count(2, "chain", "chains"), "2 chains"},
		{Count(-1, "draw", "draws"), "-1 draws"},
		{Count(int64(1), "trajectory", "trajectories"), "1 trajectory"},
		{Count(uint64(18446744073709551615), "draw", "draws"), "18446744073709551615 draws"},
		{Word(1, "its", "their"), "its"},
		{Word(3, "its", "their"), "their"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
