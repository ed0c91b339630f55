// Command rigbench is RigBench's desktop app: it only wires the Fyne
// application, the icon and the main window; everything else is in ui/.
package main

import (
	"fmt"
	"log"
	"os"
	"runtime"

	// Before Fyne: makes LANG=C.UTF-8 start without a locale error.
	_ "github.com/rigbench/rigbench/ui/locale"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/rigbench/rigbench/assets"
	"github.com/rigbench/rigbench/ui"
)

func main() {
	if msg := ui.NoDisplay(os.Getenv, runtime.GOOS); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	log.SetOutput(ui.QuietLog(os.Stderr))
	// GLFW panics on the main goroutine when the display cannot be opened.
	defer func() {
		if r := recover(); r != nil {
			if msg, ok := ui.DisplayFailed(r, os.Getenv); ok {
				fmt.Fprintln(os.Stderr, msg)
				os.Exit(1)
			}
			panic(r)
		}
	}()
	a := app.NewWithID(ui.AppID)
	a.SetIcon(fyne.NewStaticResource("icon.png", assets.IconPNG))
	w := a.NewWindow("RigBench")
	w.SetMaster()
	u := ui.New(a, w)
	w.ShowAndRun()
	if u.TourFailed() {
		os.Exit(1)
	}
}
