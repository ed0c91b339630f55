package target_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/target"
)

// The endpoint's Model size reaches the options the run starts from
// (session.Options.WeightsGiB), so its decode cells get a roofline figure;
// one that is not a size is said with the field's name, and a size typed
// for an endpoint is not handed on once another target is chosen.
func TestEndpointModelSize(t *testing.T) {
	test.NewTempApp(t)
	c := target.NewChooser(target.Endpoint)
	c.Set(target.Choice{Kind: target.Endpoint, URL: "http://127.0.0.1:8000", WeightsGiB: "4.61"})
	o, err := c.Input().Options(session.Launching{})
	if err != nil || o.WeightsGiB != 4.61 || o.Endpoint != "http://127.0.0.1:8000" || c.Problem() != "" {
		t.Errorf("options %+v, %v, problem %q", o, err, c.Problem())
	}
	c.Set(target.Choice{Kind: target.Endpoint, WeightsGiB: "4,6"})
	if p := c.Problem(); !strings.HasPrefix(p, "Model size must be the model's size on the card in GiB") {
		t.Errorf("problem with a Model size of 4,6: %q", p)
	}
	c.Set(target.Choice{Kind: target.Demo})
	if in := c.Input(); in.WeightsGiB != "" || in.URL != "" {
		t.Errorf("the demo's input carries the endpoint's fields: %+v", in)
	}
}
