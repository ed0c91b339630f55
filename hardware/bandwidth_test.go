package hardware_test

import (
	"math"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

func TestPeakBandwidthGBs(t *testing.T) {
	t.Parallel()
	// Published peak bandwidths, from NVML's bus width and max memory clock.
	for _, c := range []struct {
		card           string
		bits, clockMHz int
		want, spec     float64
	}{
		{"RTX 3060 GDDR6", 192, 7501, 360.048, 360},
		{"RTX 3090 GDDR6X", 384, 9751, 936.096, 936},
		{"RTX 4090 GDDR6X", 384, 10501, 1008.096, 1008},
		{"A100 40GB HBM2", 5120, 1215, 1555.2, 1555},
		{"H100 SXM5 HBM3", 5120, 2619, 3352.32, 3350},
		{"unknown bus", 0, 2619, 0, 0},
		{"unknown clock", 5120, 0, 0, 0},
	} {
		got := hardware.PeakBandwidthGBs(c.bits, c.clockMHz)
		if math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s: PeakBandwidthGBs(%d, %d) = %v, want %v", c.card, c.bits, c.clockMHz, got, c.want)
		}
		if math.Abs(got-c.spec) > 0.01*c.spec {
			t.Errorf("%s: %v GB/s is more than 1%% off the published %v GB/s", c.card, got, c.spec)
		}
	}
}
