package hwview

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/hardware"
)

// topologyCard shows how each pair of GPUs is linked and whether they
// reach each other peer to peer: the path a tensor-parallel server's
// all-reduces take (NVLink is several times faster than through the PCIe
// host bridge).
func topologyCard(links []hardware.GPULink) fyne.CanvasObject {
	form := widget.NewForm()
	for _, l := range links {
		p2p := "peer-to-peer: unknown"
		if l.P2P != "" {
			p2p = "peer-to-peer: " + l.P2P
		}
		// Named in words: the app's font draws "↔" as an emoji.
		form.Append(fmt.Sprintf("GPUs %d and %d", l.A, l.B), widget.NewLabel(hardware.PathText(l)+" · "+p2p))
	}
	return widget.NewCard("Links between GPUs", "", form)
}
