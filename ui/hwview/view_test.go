package hwview_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

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

// Two GPUs with a link between them get a card that names the path and
// the peer-to-peer status.
func TestTopologyCard(t *testing.T) {
	test.NewTempApp(t)
	v := hwview.New()
	v.Set(hardware.Snapshot{
		GPUs:     []hardware.GPU{{Index: 0, Name: "NVIDIA GeForce RTX 3060"}, {Index: 1, Name: "NVIDIA GeForce RTX 3060"}},
		Topology: []hardware.GPULink{{A: 0, B: 1, Path: hardware.PathHostBridge, Code: "PHB", P2P: "not supported"}},
	}, hwview.Docker{Checked: true})
	var texts []string
	card := false
	for _, o := range test.LaidOutObjects(v.Content()) {
		if l, ok := o.(*widget.Label); ok {
			texts = append(texts, l.Text)
		}
		if c, ok := o.(*widget.Card); ok && c.Title == "Links between GPUs" {
			card = true
		}
	}
	all := strings.Join(texts, "\n")
	if !card || !strings.Contains(all, "PCIe host bridge (PHB) · peer-to-peer: not supported") {
		t.Errorf("the view lacks the link:\n%s", all)
	}
}

// Findings on a rig name the rig; a rig not reached shows no findings (the
// picker above says why) (issue 25).
func TestFindingsOnARig(t *testing.T) {
	test.NewTempApp(t)
	v := hwview.New()
	v.SetOn("ssh://me@basement")
	v.Set(hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "no image to read the GPUs with is on the rig"}, hwview.Docker{Checked: true, Available: true})
	if got := v.Summary.Text; got != "GPU: none read on ssh://me@basement" {
		t.Errorf("top line %q, want the rig named", got)
	}
	v.SetUnreachable()
	if got := v.Summary.Text; !strings.Contains(got, "could not be reached") {
		t.Errorf("top line %q for a rig not reached", got)
	}
	v.SetOn("")
	v.Set(hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found"}, hwview.Docker{Checked: true})
	if got := v.Summary.Text; got != hwview.NoGPU {
		t.Errorf("top line %q back on this computer, want %q", got, hwview.NoGPU)
	}
}

// Issue 41 minor 6: a rig that reports no core counts and no available
// memory shows them as "not reported" (hardware.CPU.Text, Memory.Text, the
// CLI's wording), never as zeros ("0 cores", "0.0 GiB available").
func TestRigCardSaysNotReportedNotZero(t *testing.T) {
	test.NewTempApp(t)
	v := hwview.New()
	v.SetOn("ssh://me@basement")
	v.Set(hardware.Snapshot{GPUs: []hardware.GPU{}, CPU: hardware.CPU{Model: "AMD Ryzen 5 5600X", LogicalCores: 2},
		Memory: hardware.Memory{TotalBytes: 23 << 30}}, hwview.Docker{Checked: true})
	var texts []string
	for _, o := range test.LaidOutObjects(v.Content()) {
		if l, ok := o.(*widget.Label); ok {
			texts = append(texts, l.Text)
		}
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"AMD Ryzen 5 5600X (2 threads); cores " + hardware.NotReported, "23.0 GiB; available " + hardware.NotReported} {
		if !strings.Contains(all, want) {
			t.Errorf("the rig's card lacks %q:\n%s", want, all)
		}
	}
	for _, zero := range []string{"0 cores", "0.0 GiB"} {
		if strings.Contains(all, zero) {
			t.Errorf("the rig's card shows an unknown as %q:\n%s", zero, all)
		}
	}
}
