package docker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// waitReady polls until /health answers 200 and /v1/models lists the served
// model, the container exits, the timeout passes, or ctx ends. The log lines
// that announce readiness are only hints; the HTTP answers decide.
func (c *Container) waitReady(ctx context.Context) error {
	deadline := time.NewTimer(c.l.readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(c.l.poll)
	defer tick.Stop()
	exited := c.logsDone
	waiting := "for /health to answer"
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return &Error{Kind: ErrNotReady,
				Message: fmt.Sprintf("the server did not become ready within %s: it was waiting %s", rundoc.ShortDuration(c.l.readyTimeout), waiting),
				Hint:    "read its log: a large first download may need a longer timeout"}
		case <-exited:
			if err := c.exitFailure(ctx); err != nil {
				return err
			}
			exited = nil // the log stream broke but the server runs: keep polling
		case <-tick.C:
			ok, why := c.ready(ctx)
			if ok {
				return nil
			}
			waiting = why
		}
	}
}

// ready reports whether the server is up and serving the model; when it
// is not, why says what readiness waits for ("for /v1/models to list …").
func (c *Container) ready(ctx context.Context) (ok bool, why string) {
	if code, _ := c.get(ctx, "/health", nil); code != http.StatusOK {
		return false, "for /health to answer"
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	want := c.cfg.ServedModelName()
	if code, err := c.get(ctx, "/v1/models", &models); code != http.StatusOK || err != nil {
		return false, fmt.Sprintf("for /v1/models to list the model %q", want)
	}
	var listed []string
	for _, m := range models.Data {
		if m.ID == want {
			return true, ""
		}
		listed = append(listed, fmt.Sprintf("%q", c.redact.String(m.ID)))
	}
	if len(listed) == 0 {
		return false, fmt.Sprintf("for /v1/models to list the model %q (it lists none yet)", want)
	}
	return false, fmt.Sprintf("for /v1/models to list the model %q, and it lists %s: check --served-model-name", want, strings.Join(listed, ", "))
}

// get fetches path with the launch's API key and decodes JSON into out.
func (c *Container) get(ctx context.Context, path string, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Endpoint()+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	resp, err := c.l.httpClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out != nil && resp.StatusCode == http.StatusOK {
		return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode, nil
}
