package client

import (
	"errors"
	"syscall"
)

// connRefused reports whether err is a connection the server's machine
// refused (nothing listens on the port): ECONNREFUSED, or Winsock's own
// code for it on Windows, which syscall.ECONNREFUSED does not match there.
func connRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || winsockRefused(err)
}

// connReset reports whether err is the server resetting or closing the
// connection under a request (ECONNRESET, EPIPE, or Winsock's reset and
// abort on Windows, where a close with unread data sends a reset).
func connReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || winsockReset(err)
}
