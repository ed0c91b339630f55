package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// boot is one simulated start-up: the compile time this start pays and
// whether the compile cache held its configuration.
type boot struct {
	// dir is the configuration's folder in the compile cache ("" without
	// a cache root), hit whether its marker was there.
	dir string
	hit bool
	// weightsS, compileS and graphS are the simulated seconds the log
	// reports for the weights load, torch.compile and graph capture.
	weightsS, compileS, graphS float64
}

// waitS is the simulated time /health answers 503 for: the whole start-up
// with a cache root, nothing without one (tests and the demo start at
// once, as before the compile cache was imitated).
func (b boot) waitS() float64 {
	if b.dir == "" {
		return 0
	}
	return b.weightsS + b.compileS + b.graphS
}

// compileMarker is the file a start writes into its configuration's
// folder of the compile cache; a later start that finds it loads the
// "compiled graphs" and pays CompileCachedSeconds instead of
// CompileSeconds.
const compileMarker = "rigbench-sim-compiled"

// openCompileCache looks for cfg's compiled graphs under cfg.CompileCache
// the way vLLM does (torch_compile_cache/HASH/rank_0_0/backbone, HASH of
// the configuration) and, when they are missing, writes the marker that
// stands for them. cfg is sized (its defaults filled).
func openCompileCache(cfg Config) (boot, error) {
	p := cfg.Profile
	b := boot{weightsS: p.LoadSeconds, compileS: p.CompileSeconds, graphS: p.GraphCaptureSeconds}
	if cfg.CompileCache == "" {
		return b, nil
	}
	b.dir = filepath.Join(cfg.CompileCache, "torch_compile_cache", compileKey(cfg), "rank_0_0", "backbone")
	marker := filepath.Join(b.dir, compileMarker)
	switch _, err := os.Stat(marker); {
	case err == nil:
		b.hit, b.compileS = true, p.CompileCachedSeconds
		return b, nil
	case !errors.Is(err, fs.ErrNotExist):
		return b, fmt.Errorf("cannot read the compile cache %s: %w", b.dir, err)
	}
	if err := mkdirShared(cfg.CompileCache, b.dir); err != nil {
		return b, fmt.Errorf("cannot create the compile cache folder %s: %w", b.dir, err)
	}
	if err := os.WriteFile(marker, []byte(compileKey(cfg)+"\n"), 0o666); err != nil {
		return b, fmt.Errorf("cannot write the compile cache %s: %w", marker, err)
	}
	return b, nil
}

// mkdirShared makes dir and the folders between root and it writable by
// anyone: in the image the simulator runs as root while the mounted folder
// is the user's, who could otherwise not remove what it wrote there (a
// test's temporary folder included).
func mkdirShared(root, dir string) error {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	for d := dir; len(d) > len(root); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o777); err != nil {
			return err
		}
	}
	return nil
}

// compileKey is the configuration's folder name in the compile cache: a
// hash of what changes the compiled graphs (the model and card, the
// lengths and batch limits the graphs are specialised for, the KV cache
// dtype), as vLLM hashes its configuration. The served name, the port, the
// API key and the memory share change nothing.
func compileKey(cfg Config) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%d|%d|%d|%s", cfg.Profile.Name, cfg.Profile.Model,
		cfg.MaxModelLen, cfg.MaxNumSeqs, cfg.MaxNumBatchedTokens, cfg.KVCacheDtype))
	return hex.EncodeToString(h[:5])
}

// WriteStartupLog prints the lines vLLM prints while starting, with the
// figures of this server, so log readers (the Docker launcher) can be tested
// against it: the version, the KV cache size in tokens, the maximum
// concurrency at max_model_len and "Application startup complete.".
func (s *Server) WriteStartupLog(w io.Writer) {
	p, c := s.prof, s.cfg
	ts := func() string { return time.Now().Format("01-02 15:04:05") }
	info := func(src, format string, a ...any) {
		fmt.Fprintf(w, "INFO %s [%s] %s\n", ts(), src, fmt.Sprintf(format, a...))
	}
	info("api_server.py:1900", "vLLM API server version %s", p.VLLMVersion+"-sim")
	info("utils.py:328", "non-default args: {'model': '%s', 'max_model_len': %d, 'max_num_seqs': %d, 'max_num_batched_tokens': %d, "+
		"'gpu_memory_utilization': %s, 'kv_cache_dtype': '%s', 'enable_prefix_caching': %s}",
		s.model, s.maxModelLen, c.MaxNumSeqs, c.MaxNumBatchedTokens, fmtFloat(c.GPUMemoryUtilization), c.KVCacheDtype, pyBool(c.EnablePrefixCaching))
	info("model.py:547", "Resolved architecture: SimulatedForCausalLM (RigBench simulator, profile %s)", p.Name)
	info("gpu_model_runner.py:2602", "Starting to load model %s on %s...", s.model, p.GPUName)
	info("gpu_model_runner.py:2634", "Model loading took %.4f GiB and %.6f seconds", p.WeightsGiB, p.LoadSeconds)
	b := s.boot
	if b.dir != "" {
		info("backends.py:548", "Using cache directory: %s for vLLM's torch.compile", b.dir)
	}
	if b.hit {
		info("backends.py:215", "Directly load the compiled graph(s) for shape None from the cache, took %.3f s", b.compileS)
	}
	info("monitor.py:34", "torch.compile takes %.2f s in total", b.compileS)
	info("gpu_worker.py:298", "Available KV cache memory: %.2f GiB", s.kv.availableBytes/giB)
	info("kv_cache_utils.py:1087", "GPU KV cache size: %s tokens", commas(s.kv.tokens))
	info("kv_cache_utils.py:1091", "Maximum concurrency for %s tokens per request: %.2fx",
		commas(s.maxModelLen), float64(s.kv.tokens)/float64(s.maxModelLen))
	info("gpu_model_runner.py:3480", "Graph capturing finished in %.0f secs, took 0.45 GiB", b.graphS)
	info("core.py:210", "init engine (profile, create kv cache, warmup model) took %.2f seconds", p.LoadSeconds/3)
	info("api_server.py:1971", "Starting vLLM API server 0 on http://%s:%d", c.Host, c.Port)
	info("launcher.py:34", "Available routes are: /health, /version, /v1/models, /tokenize, /v1/completions, /metrics")
	fmt.Fprintf(w, "INFO:     Started server process [1]\n")
	fmt.Fprintf(w, "INFO:     Waiting for application startup.\n")
	fmt.Fprintf(w, "INFO:     Application startup complete.\n")
	fmt.Fprintf(w, "INFO:     Uvicorn running on http://%s:%d (Press CTRL+C to quit)\n", c.Host, c.Port)
}

// commas formats n with thousands separators, as vLLM's logs do.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
