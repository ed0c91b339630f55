package hardware

import (
	"fmt"
	"strings"
)

// NotReported is how the machine's unknowns read wherever a person reads
// them (the app's Hardware view, the CLI's hw, the reports): a rig read
// through Docker reports threads and total memory only, and its zero
// cores or zero available bytes are unknowns, not facts.
const NotReported = "not reported"

// GiB is the one wording of a byte count: GiB with one decimal, "11.8 GiB",
// as nvidia-smi and the OS report memory. Every view, report and the GPU
// label use it, so a card never reads "12 GB" in one place and "11.8 GiB"
// in another. A 0 prints "0.0 GiB": callers that may hold an unknown 0
// (a field the card did not report) say NotReported or NA themselves.
func GiB(bytes uint64) string { return fmt.Sprintf("%.1f GiB", float64(bytes)/(1<<30)) }

// Text is the CPU in one line, the same in the app, the CLI and the
// reports: "AMD Ryzen 9 5950X (16 cores, 32 threads)" when all is known;
// what is known, then what is not, for a partial snapshot ("32 threads;
// model and cores not reported", as a rig read through Docker gives);
// NotReported when nothing is. A 0 count is never printed: it is unknown.
func (c CPU) Text() string {
	model := strings.TrimSpace(c.Model)
	var counts, missing []string
	if model == "" {
		missing = append(missing, "model")
	}
	if c.PhysicalCores > 0 {
		counts = append(counts, fmt.Sprintf("%d cores", c.PhysicalCores))
	} else {
		missing = append(missing, "cores")
	}
	if c.LogicalCores > 0 {
		counts = append(counts, fmt.Sprintf("%d threads", c.LogicalCores))
	} else {
		missing = append(missing, "threads")
	}
	known := strings.Join(counts, ", ")
	if model != "" && known != "" {
		known = model + " (" + known + ")"
	} else if model != "" {
		known = model
	}
	return knownThenMissing(known, missing)
}

// Text is the system memory in one line, the same in the app, the CLI and
// the reports: "64.0 GiB (48.3 GiB available)", "64.0 GiB; available not
// reported" for a rig read through Docker, NotReported when nothing is
// known. An unknown 0 is never printed as "0.0 GiB".
func (m Memory) Text() string {
	var known string
	var missing []string
	switch {
	case m.TotalBytes > 0 && m.AvailableBytes > 0:
		known = GiB(m.TotalBytes) + " (" + GiB(m.AvailableBytes) + " available)"
	case m.TotalBytes > 0:
		known, missing = GiB(m.TotalBytes), []string{"available"}
	case m.AvailableBytes > 0:
		known, missing = GiB(m.AvailableBytes)+" available", []string{"total"}
	}
	return knownThenMissing(known, missing)
}

// knownThenMissing joins what is known and the names of what is not:
// "32 threads; model and cores not reported".
func knownThenMissing(known string, missing []string) string {
	if known == "" {
		return NotReported
	}
	if len(missing) == 0 {
		return known
	}
	names := missing[0]
	if n := len(missing); n > 1 {
		names = strings.Join(missing[:n-1], ", ") + " and " + missing[n-1]
	}
	return known + "; " + names + " " + NotReported
}
