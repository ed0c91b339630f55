package sim

import (
	"strings"
	"testing"
)

// BenchmarkStepDecode128 measures one scheduler step with 128 decoding
// sequences: the engine's cost per step when driven unthrottled.
func BenchmarkStepDecode128(b *testing.B) {
	p := noAPI(DefaultProfile())
	c := newCore(p, limits{maxNumSeqs: 256, maxNumBatchedTokens: 2048, prefixCaching: true, blockSize: 16}, 26977)
	for i := range 128 {
		c.add(req("r", seqTokens(1024, uint32(i)), 1<<30), 0)
	}
	for len(c.running) < 128 || c.running[127].output == 0 {
		c.step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/128, "ns/token")
}

// BenchmarkTokenize32K measures tokenising a prompt of about 32K tokens.
func BenchmarkTokenize32K(b *testing.B) {
	text := strings.Repeat("benchmarking inference servers on local cards ", 4096)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for range b.N {
		tokenize(text, true)
	}
}

// BenchmarkReferencePlanVirtual runs the whole reference plan in virtual
// time (what the calibration test does).
func BenchmarkReferencePlanVirtual(b *testing.B) {
	ref := loadReference(b)
	b.ReportAllocs()
	for range b.N {
		runReferencePlan(b, DefaultConfig(), ref)
	}
}
