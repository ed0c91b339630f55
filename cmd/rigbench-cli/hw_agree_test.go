package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/hwview"
)

// A rig's partial snapshot (a rig read through Docker: threads and total
// memory, no model, cores or available memory) reads the same in the
// app's Hardware view, the CLI's hw and the Markdown and HTML reports, and
// none of them words an unknown as 0 (issue 42 item 4: the app read "n/a
// (0 cores, 32 threads)" and "64.0 GiB (0.0 GiB available)", the CLI "n/a
// cores, 32 threads", the reports "n/a" with the threads dropped).
func TestPartialSnapshotReadsTheSameEverywhere(t *testing.T) {
	snap := hardware.Snapshot{
		GPUs:   []hardware.GPU{{Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMTotalBytes: 24 << 30, VRAMUsedBytes: 1 << 30, VRAMFreeBytes: 23 << 30}},
		CPU:    hardware.CPU{LogicalCores: 32},
		Memory: hardware.Memory{TotalBytes: 64 << 30},
		OS:     hardware.OS{Name: "Ubuntu", Version: "24.04"},
	}
	cpu, mem := "32 threads; model and cores not reported", "64.0 GiB; available not reported"

	var cli bytes.Buffer
	if err := printSnapshot(&cli, snap); err != nil {
		t.Fatal(err)
	}

	run := &rundoc.Run{Schema: rundoc.Schema, UUID: "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f", Status: rundoc.RunComplete,
		CreatedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Hardware: &snap,
		Plan:   rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 30, MaxOutput: 64},
		Server: rundoc.Server{Model: "m", Engine: "vllm", KVCapacitySource: rundoc.KVSourceUnknown}}
	render := func(f report.Format) string {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{run}, report.Options{}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}

	test.NewTempApp(t)
	v := hwview.New()
	v.SetOn("ssh://me@basement")
	v.Set(snap, hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true})
	var labels []string
	for _, o := range test.LaidOutObjects(v.Content()) {
		if l, ok := o.(*widget.Label); ok {
			labels = append(labels, l.Text)
		}
	}
	app := "\n" + strings.Join(labels, "\n") + "\n"

	for name, out := range map[string]string{
		"the app's Hardware view": app, "the CLI's hw": cli.String(),
		"the Markdown report": render(report.Markdown), "the HTML report": render(report.HTML),
	} {
		for _, want := range []string{cpu, mem} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
		for _, never := range []string{"0 cores", "0.0 GiB available", "n/a cores", "n/a available"} {
			if strings.Contains(out, never) {
				t.Errorf("%s words an unknown as %q:\n%s", name, never, out)
			}
		}
		if gb := regexp.MustCompile(`[0-9] GB\b[^/]`).FindString(out); gb != "" {
			t.Errorf("%s words a size in GB (%q):\n%s", name, gb, out)
		}
	}
	// The card reads in GiB wherever its memory is named.
	if want := "24.0 GiB"; !strings.Contains(app, want) || !strings.Contains(cli.String(), want) || !strings.Contains(render(report.Markdown), want) {
		t.Errorf("a view lacks the card's %s", want)
	}
}
