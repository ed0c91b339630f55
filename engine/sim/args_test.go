package sim

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	c, err := ParseArgs([]string{
		"--model", "org/m", "--max-model-len=32k", "--max-num-seqs", "64", "--max_num_batched_tokens", "4K",
		"--gpu-memory-utilization", "0.85", "--kv-cache-dtype", "fp8", "--no-enable-prefix-caching",
		"--api-key", "k", "--port", "9000", "--host", "127.0.0.1", "--profile", "tiny", "--speed", "20",
		"--seed", "7", "--startup-delay", "5s", "--fault-exit-after", "90", "--fault-stall-after-tokens", "3",
		"--fault-error-rate", "0.25", "--fault-malformed-chunk-after", "9", "--trust-remote-code", "--dtype", "auto", "-O3",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Profile: tinyProfile(), Model: "org/m", MaxModelLen: 32000, MaxNumSeqs: 64, MaxNumBatchedTokens: 4096,
		GPUMemoryUtilization: 0.85, KVCacheDtype: "fp8", EnablePrefixCaching: false, APIKey: "k", Host: "127.0.0.1",
		Port: 9000, Speed: 20, Seed: 7, StartupDelay: 5 * time.Second,
		Faults: Faults{ExitAfter: 90 * time.Second, StallAfterTokens: 3, ErrorRate: 0.25, MalformedChunkAfter: 9},
	}
	if c != want {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

func TestParseArgsDefaults(t *testing.T) {
	c, err := ParseArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.EnablePrefixCaching || c.Host != "0.0.0.0" || c.Port != 8000 || c.Speed != 1 || c.Profile.Name != "rtx3060-12gb" {
		t.Errorf("defaults: %+v", c)
	}
	c, err = ParseArgs([]string{"serve", "org/positional"})
	if err != nil || c.Model != "org/positional" {
		t.Errorf("positional model: %v %q", err, c.Model)
	}
}

func TestParseHumanInt(t *testing.T) {
	for in, want := range map[string]int{"32k": 32000, "32K": 32768, "25.6k": 25600, "1M": 1 << 20, "1m": 1000000, "auto": 0, "-1": 0, "8192": 8192} {
		got, err := parseHumanInt(in)
		if err != nil || got != want {
			t.Errorf("parseHumanInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1.5K", "k", "-5", "abc", "9999999999999"} {
		if _, err := parseHumanInt(in); err == nil {
			t.Errorf("parseHumanInt(%q) accepted", in)
		}
	}
}

func TestParseArgsErrorsLikeArgparse(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--foo"}, "api_server.py: error: unrecognized arguments: --foo"},
		{[]string{"--foo", "3", "--model", "m", "--bar=1"}, "api_server.py: error: unrecognized arguments: --foo 3 --bar=1"},
		{[]string{"--max-num-seqs", "many"}, "api_server.py: error: argument --max-num-seqs: invalid int value: 'many'"},
		{[]string{"--port"}, "api_server.py: error: argument --port: expected one argument"},
		{[]string{"--kv-cache-dtype", "fp7"}, "api_server.py: error: argument --kv-cache-dtype: invalid choice: 'fp7'"},
		{[]string{"--profile", "nope"}, "api_server.py: error: argument --profile: invalid choice: 'nope'"},
		{[]string{"--speed", "0.5"}, "api_server.py: error: argument --speed: invalid value"},
	} {
		_, err := ParseArgs(tc.args)
		var ae *ArgError
		if !errors.As(err, &ae) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseArgs(%q) = %v, want prefix %q", tc.args, err, tc.want)
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	f.Add("--model m --max-model-len 32k --port 8000")
	f.Add("--max-num-batched-tokens=1.5k --speed inf --fault-error-rate 1")
	f.Add("--kv-cache-dtype fp8 --no-enable-prefix-caching -O3 serve x")
	f.Add("--startup-delay 1e300 --max-model-len 99999999999K")
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseArgs(strings.Fields(line))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "api_server.py: error: ") {
				t.Fatalf("error not worded like argparse: %v", err)
			}
			return
		}
		if c.MaxModelLen < 0 || c.MaxNumSeqs < 0 || c.MaxNumBatchedTokens < 0 || c.Speed < 1 || c.StartupDelay < 0 {
			t.Fatalf("accepted a negative or invalid value: %+v", c)
		}
		// Whatever parses either starts or fails with a message.
		if s, err := New(c); err == nil {
			s.Close()
		} else if err.Error() == "" {
			t.Fatal("empty start-up error")
		}
	})
}
