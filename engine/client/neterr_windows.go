//go:build windows

package client

import (
	"errors"

	"golang.org/x/sys/windows"
)

// winsockRefused is WSAECONNREFUSED.
func winsockRefused(err error) bool { return errors.Is(err, windows.WSAECONNREFUSED) }

// winsockReset is WSAECONNRESET, or WSAECONNABORTED (the local stack gave
// up on a connection the peer dropped), Winsock's words for a server that
// closed the connection without an answer.
func winsockReset(err error) bool {
	return errors.Is(err, windows.WSAECONNRESET) || errors.Is(err, windows.WSAECONNABORTED)
}
