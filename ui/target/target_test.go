package target_test

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/ui/target"
)

// The endpoint's Model size reaches the choice the run starts from
// (session.Options.WeightsGiB), so its decode cells get a roofline figure.
func TestEndpointModelSize(t *testing.T) {
	test.NewTempApp(t)
	c := target.NewChooser(target.Endpoint)
	c.Set(target.Choice{Kind: target.Endpoint, URL: "http://127.0.0.1:8000", WeightsGiB: 4.61})
	if got := c.Choice(); got.WeightsGiB != 4.61 || got.URL != "http://127.0.0.1:8000" || c.WeightsProblem() != "" {
		t.Errorf("choice %+v, problem %q", got, c.WeightsProblem())
	}
}
