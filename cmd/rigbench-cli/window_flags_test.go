package main

import (
	"flag"
	"io"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestWindowFlags: without flags a run adapts its windows (±1%, at most
// 30 s); --duration 30s keeps the fixed method; --precision and
// --max-duration set the adaptive bounds.
func TestWindowFlags(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		window    string
		precision float64
		durationS float64
	}{
		{nil, rundoc.WindowAuto, 0.01, 30},
		{[]string{"--duration", "30s"}, rundoc.WindowFixed, 0, 30},
		{[]string{"--duration", "AUTO", "--precision", "2.5%", "--max-duration", "1m"}, rundoc.WindowAuto, 0.025, 60},
		{[]string{"--precision", "0.5"}, rundoc.WindowAuto, 0.005, 30},
	} {
		var f runFlags
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.register(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
		p, err := f.plan(set)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if p.Window != tc.window || p.Precision != tc.precision || p.DurationS != tc.durationS {
			t.Errorf("%v: window %q, precision %v, D %v; want %q, %v, %v", tc.args, p.Window, p.Precision, p.DurationS,
				tc.window, tc.precision, tc.durationS)
		}
	}
}
