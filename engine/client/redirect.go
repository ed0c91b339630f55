package client

import (
	"fmt"
	"net/http"
	"net/url"
)

// RedirectError is a server answering a request with a redirect (HTTP 3xx
// with a Location), which the client never follows: to another port or
// host it would send the API key there (curl stopped doing so for a port
// change, CVE-2022-27776) and measure another server under the first one's
// address; a 301/302/303 would also turn a POST into a GET (/tokenize then
// fails as "cannot calibrate"). The sentence names where it leads, so the
// user can give that address as the endpoint if it is the server meant.
type RedirectError struct {
	// From is the URL requested, To where the server sent the client
	// (without user info or query, which may hold secrets).
	From, To string
	Status   int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server at %s answered with a redirect (HTTP %d) to %s; RigBench does not follow redirects, since it would measure another server and send it your API key: give that address as the endpoint if it is the server you mean",
		e.From, e.Status, e.To)
}

// refuseRedirect is every client's CheckRedirect: the first redirect ends
// the request with a *RedirectError.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	status := 0
	if req.Response != nil {
		status = req.Response.StatusCode
	}
	from := ""
	if len(via) > 0 {
		from = shownURL(via[len(via)-1].URL)
	}
	return &RedirectError{From: from, To: shownURL(req.URL), Status: status}
}

// shownURL is u without user info, query or fragment.
func shownURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}
