package docker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// fakeAPI records calls and returns canned answers, for error paths the
// real daemon on a test machine cannot produce (no GPU toolkit, a pull
// stream that fails half-way).
type fakeAPI struct {
	mu         sync.Mutex
	pingErr    error
	inspectErr error
	pullStream string
	startErr   error
	created    []*container.HostConfig
	createdCfg []*container.Config
	removed    []string
	list       []container.Summary // what ContainerList answers
	// stdout is the container's whole log, as ContainerLogs streams it
	// (Docker's multiplexed format) before the container ends.
	stdout string
}

var _ API = (*fakeAPI)(nil)

func (f *fakeAPI) Ping(context.Context) (types.Ping, error) { return types.Ping{}, f.pingErr }
func (f *fakeAPI) ImageInspect(context.Context, string, ...client.ImageInspectOption) (image.InspectResponse, error) {
	return image.InspectResponse{}, f.inspectErr
}
func (f *fakeAPI) ImagePull(context.Context, string, image.PullOptions) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(f.pullStream)), nil
}
func (f *fakeAPI) ContainerCreate(_ context.Context, c *container.Config, h *container.HostConfig, _ *network.NetworkingConfig, _ *ocispec.Platform, name string) (container.CreateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created = append(f.created, h)
	f.createdCfg = append(f.createdCfg, c)
	return container.CreateResponse{ID: "id-" + name}, nil
}
func (f *fakeAPI) ContainerStart(context.Context, string, container.StartOptions) error {
	return f.startErr
}
func (f *fakeAPI) ContainerInspect(context.Context, string) (container.InspectResponse, error) {
	return container.InspectResponse{}, errors.New("not used")
}
func (f *fakeAPI) ContainerLogs(context.Context, string, container.LogsOptions) (io.ReadCloser, error) {
	var b bytes.Buffer
	if f.stdout != "" {
		if _, err := stdcopy.NewStdWriter(&b, stdcopy.Stdout).Write([]byte(f.stdout)); err != nil {
			return nil, err
		}
	}
	return io.NopCloser(&b), nil
}
func (f *fakeAPI) ContainerStop(context.Context, string, container.StopOptions) error { return nil }
func (f *fakeAPI) ContainerRemove(_ context.Context, id string, _ container.RemoveOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, id)
	return nil
}
func (f *fakeAPI) ContainerList(context.Context, container.ListOptions) ([]container.Summary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.list), nil
}
func (f *fakeAPI) ContainerExecCreate(context.Context, string, container.ExecOptions) (container.ExecCreateResponse, error) {
	return container.ExecCreateResponse{}, errors.New("not used")
}
func (f *fakeAPI) ContainerExecAttach(context.Context, string, container.ExecAttachOptions) (types.HijackedResponse, error) {
	return types.HijackedResponse{}, errors.New("not used")
}
func (f *fakeAPI) ContainerExecInspect(context.Context, string) (container.ExecInspect, error) {
	return container.ExecInspect{}, errors.New("not used")
}
func (f *fakeAPI) Close() error { return nil }

func (f *fakeAPI) ContainerStatPath(context.Context, string, string) (container.PathStat, error) {
	return container.PathStat{}, cerrdefs.ErrNotFound
}
