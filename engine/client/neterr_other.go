//go:build !windows

package client

// winsockRefused and winsockReset match nothing off Windows: the errno
// checks of connRefused and connReset cover every other platform.
func winsockRefused(error) bool { return false }

func winsockReset(error) bool { return false }
