package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/image"
)

// PullProgress is one step of an image pull. Layer is empty for messages
// about the whole image. Bytes and BytesTotal add up all layers seen so far,
// so Bytes/BytesTotal is the overall fraction for a progress bar.
type PullProgress struct {
	Ref     string
	Layer   string
	Status  string // "Downloading", "Extracting", "Pull complete", …
	Current int64
	Total   int64
	// Layers counts layers seen; LayersDone those complete.
	Layers, LayersDone int
	Bytes, BytesTotal  int64
}

// pullMessage is one JSON object of the daemon's pull stream.
type pullMessage struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	ProgressDetail struct {
		Current int64 `json:"current"`
		Total   int64 `json:"total"`
	} `json:"progressDetail"`
	Error       string `json:"error"`
	ErrorDetail struct {
		Message string `json:"message"`
	} `json:"errorDetail"`
}

// EnsureImage makes sure ref is present locally, pulling it when it is not.
// progress (may be nil) gets every step of the pull. An error inside the
// pull stream is an error, even though the HTTP request succeeded.
func (l *Launcher) EnsureImage(ctx context.Context, ref string, progress func(PullProgress)) error {
	present, err := l.ImagePresent(ctx, ref)
	if err != nil || present {
		return err
	}
	rc, err := l.api.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		return pullError(ref, classify(err))
	}
	defer rc.Close()
	return readPullStream(ref, rc, progress)
}

// ImagePresent reports whether ref is in the daemon's image store.
func (l *Launcher) ImagePresent(ctx context.Context, ref string) (bool, error) {
	_, err := l.api.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		return true, nil
	case cerrdefs.IsNotFound(err):
		return false, nil
	}
	return false, classify(err)
}

// readPullStream decodes the pull stream, folding per-layer messages into
// running totals.
func readPullStream(ref string, r io.Reader, progress func(PullProgress)) error {
	type layer struct {
		current, total int64
		done           bool
	}
	layers := map[string]*layer{}
	var order []string
	dec := json.NewDecoder(r)
	for {
		var m pullMessage
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return pullError(ref, fmt.Errorf("reading the pull stream: %w", err))
		}
		if m.Error != "" || m.ErrorDetail.Message != "" {
			msg := m.ErrorDetail.Message
			if msg == "" {
				msg = m.Error
			}
			return pullError(ref, errors.New(msg))
		}
		p := PullProgress{Ref: ref, Layer: m.ID, Status: m.Status,
			Current: m.ProgressDetail.Current, Total: m.ProgressDetail.Total}
		if m.ID != "" && m.ID != ref && isLayerStatus(m.Status) {
			ly := layers[m.ID]
			if ly == nil {
				ly = &layer{}
				layers[m.ID] = ly
				order = append(order, m.ID)
			}
			if m.Status == "Downloading" && m.ProgressDetail.Total > 0 {
				ly.current, ly.total = m.ProgressDetail.Current, m.ProgressDetail.Total
			}
			if m.Status == "Download complete" || m.Status == "Pull complete" || m.Status == "Already exists" {
				ly.current = ly.total
				ly.done = ly.done || m.Status != "Download complete"
			}
		}
		for _, id := range order {
			ly := layers[id]
			p.Layers++
			p.Bytes += ly.current
			p.BytesTotal += ly.total
			if ly.done {
				p.LayersDone++
			}
		}
		if progress != nil {
			progress(p)
		}
	}
}

// isLayerStatus tells per-layer messages from image-wide ones ("Pulling
// from …", "Digest: …", "Status: …").
func isLayerStatus(s string) bool {
	switch s {
	case "Pulling fs layer", "Waiting", "Downloading", "Verifying Checksum", "Download complete",
		"Extracting", "Pull complete", "Already exists":
		return true
	}
	return false
}

// ImageID is ref's image ID on the daemon (the digest of its
// configuration, equal on every machine that holds the same build), ""
// when the image is not there.
func (l *Launcher) ImageID(ctx context.Context, ref string) (string, error) {
	info, err := l.api.ImageInspect(ctx, ref)
	switch {
	case err == nil:
		return info.ID, nil
	case cerrdefs.IsNotFound(err):
		return "", nil
	}
	return "", classify(err)
}
