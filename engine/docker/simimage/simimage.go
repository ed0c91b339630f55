// Package simimage builds RigBench's simulator as a container image without
// a Dockerfile on disk or a registry: it compiles cmd/rigbench-sim as a
// static binary (CGO_ENABLED=0) and sends the daemon an in-memory build
// context holding that binary and a three-line FROM-scratch Dockerfile. Tests
// of engine/docker and engine/session use it to launch a "vLLM" through the
// real Docker daemon on machines with no GPU.
package simimage

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/docker/docker/api/types/build"
)

// DefaultTag is the tag tests give the simulator image.
const DefaultTag = "rigbench-sim:test"

// ClusterTag is the same image under a tag of its own, which the cluster
// tests launch: the Docker daemon is the machine's, and a build of an
// older checkout retags DefaultTag and that checkout's cluster tag only.
// The tag changes when the stand-in gains what the cluster tests need
// (rigbench-sim:cluster had no `ray linktest`).
const ClusterTag = "rigbench-sim:cluster-link"

// Package is the import path of the simulator command.
const Package = "github.com/rigbench/rigbench/cmd/rigbench-sim"

// Builder is the part of the Docker client Build needs.
type Builder interface {
	ImageBuild(ctx context.Context, context io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
}

// The simulator answers as nvidia-smi, ray and vllm by the name it is run
// under: the stand-ins of a rig's card, of Ray (a cluster launch) and of
// `vllm serve` (run in the Ray head's container), each labelled as a
// stand-in where it prints.
//
// The image's VLLM_CACHE_ROOT is vLLM's default cache root, where a launch
// mounts the compile cache folder: the simulator then takes vLLM's
// start-up time, shorter when the folder holds its configuration's
// compiled graphs (engine/sim's Config.CompileCache).
const dockerfile = `FROM scratch
COPY rigbench-sim /rigbench-sim
COPY rigbench-sim /usr/bin/nvidia-smi
COPY rigbench-sim /usr/bin/ray
COPY rigbench-sim /usr/bin/vllm
ENV VLLM_CACHE_ROOT=/root/.cache/vllm
ENTRYPOINT ["/rigbench-sim"]
`

// Build compiles the simulator and builds the image tag (DefaultTag when
// empty, which ClusterTag names too). It must run inside the RigBench
// module (tests do), where `go build` finds the package.
func Build(ctx context.Context, api Builder, tag string) error {
	if tag == "" {
		tag = DefaultTag
	}
	tags := []string{tag}
	if tag == DefaultTag {
		tags = append(tags, ClusterTag)
	}
	bin, err := compile(ctx)
	if err != nil {
		return err
	}
	tarball, err := buildContext(bin)
	if err != nil {
		return err
	}
	resp, err := api.ImageBuild(ctx, bytes.NewReader(tarball), build.ImageBuildOptions{
		Tags: tags, Remove: true, ForceRemove: true, Dockerfile: "Dockerfile",
		Labels: map[string]string{"io.rigbench.simulator": "true"},
	})
	if err != nil {
		return fmt.Errorf("building image %s: %w", tag, err)
	}
	defer resp.Body.Close()
	return readBuildStream(resp.Body)
}

// compile builds the static simulator binary and returns its bytes.
func compile(ctx context.Context) ([]byte, error) {
	dir, err := os.MkdirTemp("", "rigbench-sim-build")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "rigbench-sim")
	cmd := exec.CommandContext(ctx, goTool(), "build", "-trimpath", "-o", out, Package)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compiling the simulator: %w\n%s", err, msg)
	}
	return os.ReadFile(out)
}

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// buildContext is the tar archive the daemon builds from.
func buildContext(bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"Dockerfile", 0o644, []byte(dockerfile)}, {"rigbench-sim", 0o755, bin}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readBuildStream drains the build output; an error message inside it is
// the build's failure.
func readBuildStream(r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var m struct {
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading the build output: %w", err)
		}
		if m.Error != "" {
			return errors.New("building the simulator image: " + m.Error)
		}
	}
}
