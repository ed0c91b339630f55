package vllm_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/redact"
)

func TestParseDockerCommand(t *testing.T) {
	t.Parallel()
	line := `sudo docker run --runtime nvidia --gpus all --ipc=host -p 8000:8000 \
  -v ~/.cache/huggingface:/root/.cache/huggingface \
  -e HF_TOKEN=hf_secret -e VLLM_LOGGING_LEVEL=DEBUG --name vllm -it --rm \
  vllm/vllm-openai:v0.10.1.1 --model Qwen/Qwen2.5-7B-Instruct --max-model-len 32k \
  --gpu-memory-utilization=0.85 --no-enable-prefix-caching -tp 1 \
  --limit-mm-per-prompt '{"image":0,"video":0}' --some-new-flag x 2>&1 | tee log.txt`
	c, rep, err := vllm.ParseCommandReport(line)
	if err != nil {
		t.Fatal(err)
	}
	want := vllm.LaunchConfig{
		Image: "vllm/vllm-openai", Tag: "v0.10.1.1", Model: "Qwen/Qwen2.5-7B-Instruct",
		Flags: []vllm.FlagValue{
			{Name: "--max-model-len", Value: "32k"},
			{Name: "--gpu-memory-utilization", Value: "0.85"},
			{Name: "--enable-prefix-caching", Value: "false"},
			{Name: "--tensor-parallel-size", Value: "1"},
			{Name: "--limit-mm-per-prompt", Value: `{"image":0,"video":0}`},
		},
		Extra: []string{"--some-new-flag", "x"},
		GPUs:  "all", Port: 8000, HFCache: "~/.cache/huggingface",
		Env:         []string{"VLLM_LOGGING_LEVEL=DEBUG"},
		TokenSource: vllm.TokenInline, HFToken: "hf_secret",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
	if !slices.Contains(rep.Ignored, "--runtime nvidia") || !slices.Contains(rep.Ignored, "2>&1 | tee log.txt") {
		t.Errorf("report %q should list --runtime nvidia and the pipe", rep.Ignored)
	}
}

func TestParseServeForms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line  string
		model string
		flags []vllm.FlagValue
		extra []string
	}{
		{"vllm serve meta-llama/Llama-3.1-8B --enforce-eager", "meta-llama/Llama-3.1-8B",
			[]vllm.FlagValue{{Name: "--enforce-eager", Value: "true"}}, nil},
		{"python3 -m vllm.entrypoints.openai.api_server --model m --kv-cache-dtype fp8 --port 9000", "m",
			[]vllm.FlagValue{{Name: "--kv-cache-dtype", Value: "fp8"}, {Name: "--port", Value: "9000"}}, nil},
		{"--max-num-seqs 8 --max-num-seqs 16", "", []vllm.FlagValue{{Name: "--max-num-seqs", Value: "16"}}, nil},
		{"vllm serve --foo bar m2", "m2", nil, []string{"--foo", "bar"}},
		{"vllm serve m --enforce-eager=false", "m", nil, nil},
		{"vllm serve m -O3 -- x", "m", nil, []string{"-O3", "--", "x"}},
	}
	for _, tc := range cases {
		c, err := vllm.ParseCommand(tc.line)
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if c.Model != tc.model || !reflect.DeepEqual(c.Flags, tc.flags) || !reflect.DeepEqual(c.Extra, tc.extra) {
			t.Errorf("%s:\n got model %q flags %v extra %q\nwant model %q flags %v extra %q",
				tc.line, c.Model, c.Flags, c.Extra, tc.model, tc.flags, tc.extra)
		}
	}
}

func TestParseDockerOptions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opts string
		test func(c vllm.LaunchConfig) bool
	}{
		{`--gpus '"device=0,1"'`, func(c vllm.LaunchConfig) bool { return c.GPUs == "0,1" }},
		{`--gpus device=2`, func(c vllm.LaunchConfig) bool { return c.GPUs == "2" }},
		{`--gpus 2`, func(c vllm.LaunchConfig) bool { return c.GPUs == "count=2" }},
		{`-p 127.0.0.1:8123:8000`, func(c vllm.LaunchConfig) bool { return c.Port == 8123 }},
		{`-p8001:8000/tcp`, func(c vllm.LaunchConfig) bool { return c.Port == 8001 }},
		{`-e HF_TOKEN`, func(c vllm.LaunchConfig) bool { return c.TokenSource == vllm.TokenEnv && c.HFToken == "" }},
		{`-e HUGGING_FACE_HUB_TOKEN=a -e HF_TOKEN=b`, func(c vllm.LaunchConfig) bool { return c.HFToken == "b" }},
		{`-v vllmcache:/root/.cache/vllm`, func(c vllm.LaunchConfig) bool {
			return slices.Equal(c.Volumes, []string{"vllmcache:/root/.cache/vllm"})
		}},
	}
	for _, tc := range cases {
		line := "docker run " + tc.opts + " vllm/vllm-openai --model m"
		c, err := vllm.ParseCommand(line)
		if err != nil || !tc.test(c) {
			t.Errorf("%s: got %+v, %v", line, c, err)
		}
		if c.Tag != "latest" {
			t.Errorf("%s: tag %q, want latest", line, c.Tag)
		}
	}
}

func TestParseCommandErrors(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"", "ls -l", "docker ps", "docker run --gpus all", "vllm serve m --max-model-len",
		`vllm serve 'unclosed`, "docker run --gpus bogus vllm/vllm-openai", "vllm serve m --enforce-eager=maybe"} {
		if _, err := vllm.ParseCommand(line); err == nil {
			t.Errorf("ParseCommand(%q) should fail", line)
		} else if !strings.Contains(err.Error(), " ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseCommand(%q): error %q is not one sentence", line, err)
		}
	}
}

func TestRenderCommands(t *testing.T) {
	t.Parallel()
	c := vllm.LaunchConfig{
		Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "Qwen/Qwen3-8B", GPUs: "0,1", Port: 8000,
		HFCache: "/home/me/.cache/huggingface", CompileCache: "/home/me/.local/share/rigbench/compile-cache",
		TokenSource: vllm.TokenInline, HFToken: "hf_abc",
		Flags: []vllm.FlagValue{{Name: "--max-model-len", Value: "16384"}, {Name: "--enable-prefix-caching", Value: "false"},
			{Name: "--api-key", Value: "sk-1"}, {Name: "--speculative-config", Value: `{"method":"ngram"}`}},
		Extra: []string{"--hf-token", "hf_xyz"},
	}
	wantDocker := `docker run --rm --gpus '"device=0,1"' --ipc=host -p 127.0.0.1:8000:8000 ` +
		`-v /home/me/.cache/huggingface:/root/.cache/huggingface -v /home/me/.local/share/rigbench/compile-cache:/root/.cache/vllm ` +
		`-e HF_TOKEN -e HUGGING_FACE_HUB_TOKEN vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B --max-model-len 16384 --no-enable-prefix-caching ` +
		`--api-key '<redacted>' --speculative-config '{"method":"ngram"}' --tensor-parallel-size 2 --hf-token '<redacted>'`
	// Two GPUs picked and no parallelism set: tensor parallelism over both.
	if got := c.DockerCommand(true); got != wantDocker {
		t.Errorf("DockerCommand(true)\n got %s\nwant %s", got, wantDocker)
	}
	full := c.DockerCommand(false)
	for _, s := range []string{"HF_TOKEN=hf_abc", "--api-key sk-1", "--hf-token hf_xyz"} {
		if !strings.Contains(full, s) {
			t.Errorf("DockerCommand(false) lacks %q: %s", s, full)
		}
	}
	wantServe := `vllm serve Qwen/Qwen3-8B --max-model-len 16384 --no-enable-prefix-caching --api-key '<redacted>' ` +
		`--speculative-config '{"method":"ngram"}' --tensor-parallel-size 2 --hf-token '<redacted>'`
	if got := c.ServeCommand(); got != wantServe {
		t.Errorf("ServeCommand\n got %s\nwant %s", got, wantServe)
	}
	if got := c.ServeArgs(); !slices.Equal(got[:2], []string{"--model", "Qwen/Qwen3-8B"}) || !slices.Contains(got, "sk-1") {
		t.Errorf("ServeArgs = %q", got)
	}
	if got := c.LaunchArgs(); slices.Contains(got, "--api-key") {
		t.Errorf("LaunchArgs keeps the managed --api-key: %q", got)
	}
	rec := c.Record()
	for _, s := range append([]string{rec.ServeCommand, rec.DockerCommand, rec.Image, rec.Model}, rec.Args...) {
		for _, secret := range []string{"hf_abc", "sk-1", "hf_xyz"} {
			if strings.Contains(s, secret) {
				t.Errorf("Record leaks %s in %q", secret, s)
			}
		}
	}
	if rec.Image != "vllm/vllm-openai:v0.11.0" || rec.GPUs != "0,1" {
		t.Errorf("Record = %+v", rec)
	}
	// Both cache mounts come back from the shown line as their own fields.
	back, err := vllm.ParseCommand(wantDocker)
	if err != nil || back.HFCache != c.HFCache || back.CompileCache != c.CompileCache || len(back.Volumes) != 0 {
		t.Errorf("ParseCommand(DockerCommand) = %+v, %v", back, err)
	}
}

// normalize makes nil and empty slices equal for comparisons.
func normalize(c vllm.LaunchConfig) vllm.LaunchConfig {
	if len(c.Flags) == 0 {
		c.Flags = nil
	}
	if len(c.Extra) == 0 {
		c.Extra = nil
	}
	if len(c.Volumes) == 0 {
		c.Volumes = nil
	}
	if len(c.Env) == 0 {
		c.Env = nil
	}
	return c
}

var parseSeeds = []string{
	"docker run --gpus all --ipc=host -p 8000:8000 -v ~/.cache/huggingface:/root/.cache/huggingface -e HF_TOKEN=x vllm/vllm-openai:v0.6.3 --model m --max-model-len 8192",
	"vllm serve Qwen/Qwen2.5-1.5B --enable-prefix-caching --kv-cache-dtype fp8_e4m3 --compilation-config '{\"level\":3}'",
	"python -m vllm.entrypoints.openai.api_server --model m -tp 2 --foo --bar=1 pos",
	"docker run --rm -it --gpus '\"device=0,1\"' -e FOO -e HUGGING_FACE_HUB_TOKEN=y img@sha256:abc m --served-model-name 'a b'",
	"--max-num-seqs 4 --max-num-batched-tokens=2048 -- rest",
	"vllm serve -- --model",
	"docker run img:tag --model '' --swap-space -1 'it'\\''s'",
	"vllm serve --model=-m --served-model-name=-x --max-num-seqs=--y",
}

// FuzzParseRenderFixedPoint: parse → render → parse gives the same config,
// through both the docker and the vllm serve renderings.
func FuzzParseRenderFixedPoint(f *testing.F) {
	for _, s := range parseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c1, err := vllm.ParseCommand(line)
		if err != nil {
			return
		}
		c1 = normalize(c1)
		docker := c1.DockerCommand(false)
		c2, err := vllm.ParseCommand(docker)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", docker, err)
		}
		want := c1
		if want.Image == "" {
			want.Image, want.Tag = vllm.DefaultImage, vllm.DefaultTag
		}
		if !reflect.DeepEqual(normalize(c2), want) {
			t.Fatalf("docker fixed point broken for %q\nrendered %s\n got  %#v\nwant %#v", line, docker, normalize(c2), want)
		}
		if strings.Contains(c1.ServeCommand(), redact.Mask) {
			return // redaction is meant to lose the secret
		}
		serve := c1.ServeCommand()
		c3, err := vllm.ParseCommand(serve)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", serve, err)
		}
		wantServe := vllm.LaunchConfig{Model: c1.Model, Flags: c1.Flags, Extra: c1.Extra}
		if !reflect.DeepEqual(normalize(c3), wantServe) {
			t.Fatalf("serve fixed point broken for %q\nrendered %s\n got  %#v\nwant %#v", line, serve, normalize(c3), wantServe)
		}
	})
}

func TestParseArgsAndSplitImageRef(t *testing.T) {
	t.Parallel()
	c, err := vllm.ParseArgs([]string{"--max-model-len", "8192", "--limit-mm-per-prompt", `{"image": 0}`, "--new-flag"})
	if err != nil || len(c.Flags) != 2 || c.Flags[1].Value != `{"image": 0}` || !slices.Equal(c.Extra, []string{"--new-flag"}) {
		t.Errorf("ParseArgs = %+v, %v", c, err)
	}
	for ref, want := range map[string][2]string{
		"vllm/vllm-openai:v0.11.0": {"vllm/vllm-openai", "v0.11.0"},
		"localhost:5000/sim":       {"localhost:5000/sim", "latest"},
		"rigbench-sim:test":        {"rigbench-sim", "test"},
	} {
		img, tag, err := vllm.SplitImageRef(ref)
		if err != nil || img != want[0] || tag != want[1] {
			t.Errorf("SplitImageRef(%q) = %q, %q, %v", ref, img, tag, err)
		}
	}
	if _, _, err := vllm.SplitImageRef("Bad Image"); err == nil {
		t.Error("a bad reference must fail")
	}
}

func BenchmarkParseCommand(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := vllm.ParseCommand(parseSeeds[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRedactAbbreviatedSecrets: argparse takes any unambiguous prefix of a
// long option, so "--hf-tok X" and "--api-k=Y" carry the token and the key
// as "--hf-token" would, and --print-docker showed them (issue 36 item 7).
func TestRedactAbbreviatedSecrets(t *testing.T) {
	args := []string{"--hf-tok", "hf_a", "--api-k=sk_b", "--hf_token=hf_c", "--to", "t_d", "--max-model-len", "4096", "--tokenizer", "tok/e"}
	got := vllm.RedactArgs(args)
	want := []string{"--hf-tok", redact.Mask, "--api-k=" + redact.Mask, "--hf_token=" + redact.Mask, "--to", redact.Mask, "--max-model-len", "4096", "--tokenizer", "tok/e"}
	if !slices.Equal(got, want) {
		t.Errorf("RedactArgs = %q, want %q", got, want)
	}
	if vals := vllm.SecretValues(args); !slices.Equal(vals, []string{"hf_a", "sk_b", "hf_c", "t_d"}) {
		t.Errorf("SecretValues = %q", vals)
	}
	// The same walk drops them from a kept launch (a sweep's spec): the
	// options and their values, in every spelling, a trailing bare one too.
	if kept := vllm.WithoutSecretArgs(append(slices.Clone(args), "--api-key")); !slices.Equal(kept, []string{"--max-model-len", "4096", "--tokenizer", "tok/e"}) {
		t.Errorf("WithoutSecretArgs = %q", kept)
	}
	c := vllm.LaunchConfig{Model: "m", HFToken: "hf_inline", Extra: args}
	c.Set("--api-key", "sk_flag")
	c.Set("--max-num-seqs", "8")
	bare := c.WithoutSecrets()
	if bare.HFToken != "" || len(bare.Flags) != 1 || bare.Flags[0].Name != "--max-num-seqs" || len(bare.Extra) != 4 || len(c.Flags) != 2 {
		t.Errorf("WithoutSecrets = %+v (from %+v)", bare, c)
	}
	for _, name := range []string{"--h", "-t", "--max-model-len", "--tokenizer", "--model"} {
		if vllm.SecretOption(name) {
			t.Errorf("SecretOption(%q) = true", name)
		}
	}
}

// TestFromRecordReadsBackRecord: a launch's record read back with
// FromRecord is the launch again (image, tag, model, flags, extra
// arguments, GPUs, compile cache), the secrets aside; a demo's record names
// no image, and a record whose arguments vLLM would refuse is an error, not
// a configuration with the flags dropped.
func TestFromRecordReadsBackRecord(t *testing.T) {
	t.Parallel()
	c := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "Qwen/Qwen2.5-7B-Instruct", GPUs: "all",
		CompileCache: "/data/cc", HFToken: "hf_secret", TokenSource: vllm.TokenInline,
		Flags: []vllm.FlagValue{{Name: "--max-num-seqs", Value: "64"}, {Name: "--kv-cache-dtype", Value: "fp8"}},
		Extra: []string{"--some-new-flag", "x"}}
	got, err := vllm.FromRecord(c.Record())
	if err != nil {
		t.Fatal(err)
	}
	if got.ImageRef() != c.ImageRef() || got.Model != c.Model || got.GPUs != c.GPUs || got.CompileCache != c.CompileCache ||
		!reflect.DeepEqual(got.Flags, c.Flags) || !reflect.DeepEqual(got.Extra, c.Extra) || got.HFToken != "" {
		t.Errorf("FromRecord(Record) = %+v, want %+v without the token", got, c)
	}
	demo, err := vllm.FromRecord(rundoc.Launch{Model: "agents/a1-4b-fp8", Args: []string{"--max-num-seqs", "4"}})
	if v, _ := demo.Get("--max-num-seqs"); err != nil || demo.Image != "" || v != "4" {
		t.Errorf("a demo's record read back as %+v, %v", demo, err)
	}
	if _, err := vllm.FromRecord(rundoc.Launch{Args: []string{"--max-num-seqs"}}); err == nil {
		t.Error("a record whose flag lacks its value was read back")
	}
}
