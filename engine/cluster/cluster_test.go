package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

func input(gpus ...int) Input {
	in := Input{Interface: "enp1s0", ID: "abc", Launch: vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0",
		Model: "Qwen/Qwen3-32B", HFCache: "~/.cache/huggingface", TokenSource: vllm.TokenInline, HFToken: "hf_secret123"}}
	for i, g := range gpus {
		in.Rigs = append(in.Rigs, Rig{Name: []string{"ssh://a", "ssh://b", "ssh://c"}[i], GPUs: g, Address: []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}[i]})
	}
	in.Launch.Set("--max-model-len", "8192")
	return in
}

func TestProposeSplit(t *testing.T) {
	p, err := Propose(input(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	if p.Split.TP != 2 || p.Split.PP != 2 {
		t.Fatalf("two rigs of 2 GPUs: %s; want TP 2 × PP 2", p.Split.Text())
	}
	var refused, other bool
	for _, s := range p.Others {
		if s.TP == 4 && s.PP == 1 && strings.Contains(s.Why, "refused") && strings.Contains(s.Why, "cross the network") {
			refused = true
		}
		if s.TP == 1 && s.PP == 4 && s.Why != "" {
			other = true
		}
	}
	if !refused || !other {
		t.Errorf("other splits %+v; want TP 4 × PP 1 refused with its reason and TP 1 × PP 4 with one", p.Others)
	}
	p, err = Propose(input(2, 1))
	if err != nil {
		t.Fatal(err)
	}
	if p.Split.TP != 1 || p.Split.PP != 2 || !strings.Contains(p.Split.Why, "ssh://a has 2") || p.Nodes[0].GPUs != "count=1" {
		t.Errorf("rigs of 2 and 1 GPUs: %s (%s), head --gpus %s; want TP 1 × PP 2, naming the larger rig, each node count=1", p.Split.Text(), p.Split.Why, p.Nodes[0].GPUs)
	}
}

// A split the launch's flags ask for is planned where the rigs allow it:
// TP 1 on two 2-GPU rigs takes one GPU a node.
func TestProposeAskedSplit(t *testing.T) {
	in := input(2, 2)
	in.Launch.Set("--tensor-parallel-size", "1")
	in.Launch.Set("--pipeline-parallel-size", "2")
	p, err := Propose(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Split.TP != 1 || p.Split.PP != 2 || !strings.Contains(p.Split.Why, "asked for") || p.Nodes[1].GPUs != "count=1" {
		t.Errorf("split %+v, worker GPUs %s; want TP 1 × PP 2 as asked, one GPU a node", p.Split, p.Nodes[1].GPUs)
	}
	if v, _ := p.Serve.Get("--tensor-parallel-size"); v != "1" {
		t.Errorf("serve line's TP %s, want 1", v)
	}
}

func TestProposeRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		in   Input
		want string
	}{
		"one rig":       {input(1), "two rigs or more"},
		"a rig no GPU":  {input(1, 0), "ssh://b has no GPU"},
		"same address":  {func() Input { in := input(1, 1); in.Rigs[1].Address = "10.0.0.1"; return in }(), "share the address 10.0.0.1"},
		"no IP address": {func() Input { in := input(1, 1); in.Rigs[1].Address = "box-b"; return in }(), "no IP address"},
		"TP across rigs": {func() Input { in := input(2, 1); in.Launch.Set("--tensor-parallel-size", "2"); return in }(),
			"TP 2 is refused: rig ssh://b gives 1 GPU(s), and vLLM needs the same on every node"},
		"PP not the rigs": {func() Input { in := input(1, 1); in.Launch.Set("--pipeline-parallel-size", "3"); return in }(),
			"PP 3 is refused: a cluster runs one pipeline stage a rig, so PP is its 2 rigs"},
		"TP not a number": {func() Input { in := input(1, 1); in.Launch.Set("--tensor-parallel-size", "two"); return in }(), "not a whole number"},
	} {
		_, err := Propose(tc.in)
		if !errors.Is(err, ErrPlan) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrPlan saying %q", name, err, tc.want)
		}
	}
}

func TestCommandLines(t *testing.T) {
	p, err := Propose(input(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	lines := p.DockerCommands()
	if len(lines) != 2 {
		t.Fatalf("%d docker lines; want 2", len(lines))
	}
	for i, want := range [][]string{
		{"docker run -d --name rigbench-ray-abc-head --network host --ipc=host --gpus 1", "-v ~/.cache/huggingface:/root/.cache/huggingface",
			"-e VLLM_HOST_IP=10.0.0.1", "-e NCCL_SOCKET_IFNAME=enp1s0", "-e GLOO_SOCKET_IFNAME=enp1s0", "-e HF_TOKEN",
			"--label io.rigbench.cluster=abc", "--label io.rigbench.managed=true",
			"--entrypoint ray vllm/vllm-openai:v0.11.0 start --block --head --port=6379 --node-ip-address=10.0.0.1"},
		{"--name rigbench-ray-abc-node2", "-e VLLM_HOST_IP=10.0.0.2", "start --block --address=10.0.0.1:6379 --node-ip-address=10.0.0.2"},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("line %d lacks %q:\n%s", i, w, lines[i])
			}
		}
		if strings.Contains(lines[i], "hf_secret123") {
			t.Errorf("line %d shows the token:\n%s", i, lines[i])
		}
	}
	serve := p.ServeLine()
	for _, w := range []string{"docker exec rigbench-ray-abc-head vllm serve --model Qwen/Qwen3-32B", "--max-model-len 8192",
		"--tensor-parallel-size 1", "--pipeline-parallel-size 2", "--distributed-executor-backend ray", "--host 127.0.0.1 --port 8000"} {
		if !strings.Contains(serve, w) {
			t.Errorf("serve line lacks %q:\n%s", w, serve)
		}
	}
	if strings.Contains(serve, "KEY") || !strings.Contains(serve, "--api-key") {
		t.Errorf("serve line does not hide its API key:\n%s", serve)
	}
	// What starts carries the token, hidden from the shown line.
	spec := p.NodeSpec(1, "hf_secret123")
	if !strings.Contains(strings.Join(spec.Env, " "), "HF_TOKEN=hf_secret123") || strings.Contains(spec.DockerCommand(), "hf_secret123") {
		t.Errorf("node spec env %v, line %s; want the token in the env and not in the line", spec.Env, spec.DockerCommand())
	}
}

func TestChecksFail(t *testing.T) {
	p, err := Propose(input(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	good := func() []RigFacts {
		return []RigFacts{{Rig: "ssh://a", ImageID: "sha256:aaaaaaaaaaaaaaaa", GPUs: 1, FreeGPUs: 1},
			{Rig: "ssh://b", ImageID: "sha256:aaaaaaaaaaaaaaaa", GPUs: 1, FreeGPUs: 1, Probed: true}}
	}
	if probs := Check(p, good()); len(probs) != 0 {
		t.Fatalf("good facts: %v; want no problem", probs)
	}
	for name, tc := range map[string]struct {
		change      func(f []RigFacts)
		check, want string
	}{
		"different images": {func(f []RigFacts) { f[1].ImageID = "sha256:bbbbbbbbbbbbbbbb" }, "image", "different build"},
		"image missing":    {func(f []RigFacts) { f[1].ImageID = "" }, "image", "does not have the image"},
		"rig without GPUs": {func(f []RigFacts) { f[1].GPUs, f[1].FreeGPUs = 0, 0 }, "gpus", "has no GPU"},
		"GPUs taken":       {func(f []RigFacts) { f[1].FreeGPUs = 0 }, "gpus", "0 free GPU(s)"},
		"head unreachable": {func(f []RigFacts) { f[1].Reach = errors.New("connection refused") }, "reach", "cannot reach the head's Ray port at 10.0.0.1:6379 (connection refused)"},
	} {
		f := good()
		tc.change(f)
		probs := Check(p, f)
		if len(probs) != 1 || probs[0].Check != tc.check || probs[0].Rig != "ssh://b" || !strings.Contains(probs[0].Sentence, tc.want) {
			t.Errorf("%s: %v; want one %s problem on ssh://b saying %q", name, probs, tc.check, tc.want)
		}
	}
}

func TestParseRigs(t *testing.T) {
	got, err := ParseRigs("ssh://u@b:2202, head=ssh://u@a:2201")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Port != 2201 || got[1].Port != 2202 {
		t.Errorf("head= marked second: %+v; want it first", got)
	}
	for in, want := range map[string]string{
		"ssh://a":                     "two rigs or more",
		"head=ssh://a,head=ssh://b":   "more than one",
		"ssh://u@a,ssh://u@a":         "named twice",
		"ssh://a,ftp://b":             "not supported",
		"head=ssh://a,ssh://b,,":      "",
		"local,ssh://u@127.0.0.1:22":  "",
		"ctx-a,ctx-b":                 "",
		"ssh://a,ssh://b:99999":       "port",
		"  ,  ":                       "two rigs or more",
		"head=ssh://a, ssh://a":       "named twice",
		"ssh://u@box,ssh://v@box":     "",
		"ssh://box:22,ssh://box:2222": "",
	} {
		_, err := ParseRigs(in)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseRigs(%q) = %v; want %q", in, err, want)
		}
	}
}

func FuzzParseRigs(f *testing.F) {
	for _, s := range []string{"head=ssh://u@a:2201,ssh://u@b:2202", "local,ctx", "head=,ssh://a", "ssh://a,ssh://a", "a,b,c,head=d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rigs, err := ParseRigs(s)
		if err != nil {
			return
		}
		if len(rigs) < 2 {
			t.Errorf("%q: %d rigs accepted", s, len(rigs))
		}
	})
}

// CheckSplit judges a variant's split by Propose's rules before anything
// is started: PP is the rigs' count, TP at most the fewest GPUs, a rig
// whose GPUs are not read yet taken as the fewest known.
func TestCheckSplit(t *testing.T) {
	withSplit := func(tp, pp string) vllm.LaunchConfig {
		c := vllm.LaunchConfig{Model: "m"}
		if tp != "" {
			c.Set("--tensor-parallel-size", tp)
		}
		if pp != "" {
			c.Set("--pipeline-parallel-size", pp)
		}
		return c
	}
	rigs := []Rig{{Name: "a", GPUs: 2}, {Name: "b", GPUs: 1}, {Name: "c"}}
	for _, ok := range [][2]string{{"", ""}, {"1", ""}, {"1", "3"}, {"", "3"}} {
		if err := CheckSplit(withSplit(ok[0], ok[1]), rigs); err != nil {
			t.Errorf("TP %q PP %q: %v", ok[0], ok[1], err)
		}
	}
	if err := CheckSplit(withSplit("2", "3"), rigs); err == nil || !strings.Contains(err.Error(), "TP 2 is refused: rig b gives 1 GPU(s)") {
		t.Errorf("TP 2 with rig b at 1 GPU: %v", err)
	}
	// An unread rig ahead of the one with the fewest is not blamed.
	if err := CheckSplit(withSplit("2", "2"), []Rig{{Name: "unread"}, {Name: "b", GPUs: 1}}); err == nil || !strings.Contains(err.Error(), "rig b gives 1 GPU(s)") {
		t.Errorf("TP 2 with the unread rig first: %v, want rig b named", err)
	}
	if err := CheckSplit(withSplit("1", "2"), rigs); err == nil || !strings.Contains(err.Error(), "PP 2 is refused") {
		t.Errorf("PP 2 over 3 rigs: %v", err)
	}
	// No GPUs known: only PP is judged here.
	unknown := []Rig{{Name: "a"}, {Name: "b"}}
	if err := CheckSplit(withSplit("8", "2"), unknown); err != nil {
		t.Errorf("TP 8 on unread rigs: %v", err)
	}
}
