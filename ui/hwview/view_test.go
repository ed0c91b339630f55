package hwview_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
)

// The top line never shows a driver error as if it were a GPU name; the
// reason has its own card.
func TestTopLineWithoutGPU(t *testing.T) {
	test.NewTempApp(t)
	v := hwview.New()
	v.Set(hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found (libnvidia-ml.so.1)"}, hwview.Docker{Checked: true})
	if got := v.Summary.Text; got != hwview.NoGPU || strings.Contains(got, "libnvidia") {
		t.Errorf("top line %q, want %q", got, hwview.NoGPU)
	}
	v.Set(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}, DriverVersion: "550.1"}, hwview.Docker{Checked: true})
	if got := v.Summary.Text; !strings.Contains(got, "RTX 3060") {
		t.Errorf("top line %q lacks the card", got)
	}
}
