package hardware_test

import (
	"slices"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

func TestThrottleReasons(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		mask uint64
		want []string
	}{
		{0, nil},
		{0x1, nil}, // GPU idle is not a limit
		{0x4, []string{"power cap"}},
		{0x20, []string{"thermal"}},
		{0x40, []string{"thermal"}},
		{0x20 | 0x40, []string{"thermal"}},
		{0x8, []string{"hw slowdown"}},
		{0x4 | 0x8 | 0x40 | 0x80, []string{"power cap", "thermal", "hw slowdown", "power brake"}},
		{0x2 | 0x10 | 0x100, []string{"sync boost", "application clocks", "display clocks"}},
		{0x1000, []string{"other"}},
	} {
		if got := hardware.ThrottleReasons(c.mask); !slices.Equal(got, c.want) {
			t.Errorf("ThrottleReasons(%#x) = %q, want %q", c.mask, got, c.want)
		}
	}
}

// FuzzThrottleReasons: any mask gives distinct, known names.
func FuzzThrottleReasons(f *testing.F) {
	for _, m := range []uint64{0, 1, 4, 0x7ff, 1 << 63, ^uint64(0)} {
		f.Add(m)
	}
	known := []string{"power cap", "thermal", "hw slowdown", "power brake", "sync boost", "application clocks", "display clocks", "other"}
	f.Fuzz(func(t *testing.T, mask uint64) {
		got := hardware.ThrottleReasons(mask)
		seen := map[string]bool{}
		for _, r := range got {
			if seen[r] || !slices.Contains(known, r) {
				t.Fatalf("ThrottleReasons(%#x) = %q: duplicate or unknown %q", mask, got, r)
			}
			seen[r] = true
		}
		if (mask&^1 == 0) != (len(got) == 0) {
			t.Fatalf("ThrottleReasons(%#x) = %q: empty iff only the idle bit may be set", mask, got)
		}
	})
}
