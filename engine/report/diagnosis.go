package report

import (
	"bufio"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// diagnosisLines are a run's bottlenecks and advice as the reports list
// them, in diagnose's own words (the CLI prints the same lines).
func diagnosisLines(r *rundoc.Run) (bottlenecks, advice []string) {
	for _, b := range diagnose.Run(r) {
		bottlenecks = append(bottlenecks, b.Text())
	}
	for _, a := range diagnose.Advise(r) {
		advice = append(advice, a.Text())
	}
	return bottlenecks, advice
}

// mdDiagnosis is the Markdown report's section of what limits each cell
// and what to try, left out when the run shows no limit.
func mdDiagnosis(b *bufio.Writer, r *rundoc.Run) {
	limits, advice := diagnosisLines(r)
	if len(limits) == 0 && len(advice) == 0 {
		return
	}
	b.WriteString("\n## Diagnosis\n\n")
	for _, l := range limits {
		b.WriteString("- " + mdText(l) + "\n")
	}
	if len(advice) > 0 {
		b.WriteString("\nAdvice, as RigBench's capacity model predicts it:\n\n")
		for _, a := range advice {
			b.WriteString("- " + mdText(a) + "\n")
		}
	}
}

// mdEnergy is the Markdown report's section of where the energy figures
// come from and how a multi-GPU cell splits them (rundoc.EnergyLines),
// left out when no cell has energy.
func mdEnergy(b *bufio.Writer, r *rundoc.Run) {
	lines := rundoc.EnergyLines(r)
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n## Energy\n\n")
	for _, l := range lines {
		b.WriteString("- " + mdText(l) + "\n")
	}
}
