// Package assets holds RigBench's bundled resources. It exports bytes, not
// Fyne resources, so that nothing outside ui/ and cmd/rigbench imports Fyne.
package assets

import _ "embed"

// IconPNG is the application icon, 256×256: four rising bars in the decode
// matrix's colours on a dark rounded tile.
//
//go:embed icon.png
var IconPNG []byte
