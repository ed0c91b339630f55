// Package ui is RigBench's desktop interface, built with Fyne. New builds
// the main window: Hardware, Launch, Run, Results, History and Compare
// tabs, export, keyboard shortcuts, notifications and remembered settings.
// Each view lives in its own subpackage; this package wires them to the
// engine, the hardware detection and the history store.
//
// Long work never runs on the Fyne goroutine: detection, runs, launches and
// chart drawing run on goroutines of their own and hand results back with
// fyne.Do.
package ui
