package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// The Markdown and HTML reports say which kind of server was measured and
// which figures it could not give (issue 17).
func TestReportsNameServerKindAndNotReported(t *testing.T) {
	r := reference(t)
	r.Server.Personality = "llama-server"
	r.Server.NotReported = []string{rundoc.NotReportedKVUsage, rundoc.NotReportedPreemptions}
	for _, f := range []report.Format{report.Markdown, report.HTML} {
		var b bytes.Buffer
		if err := report.Write(&b, f, []*rundoc.Run{r}, report.Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "llama-server") || !strings.Contains(strings.ToLower(b.String()), "not reported by this server") ||
			!strings.Contains(b.String(), "preemptions") {
			t.Errorf("%s report does not name the server kind and what it does not report", f)
		}
	}
}
