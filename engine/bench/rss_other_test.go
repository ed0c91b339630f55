//go:build !unix

package bench_test

// peakRSSMB is not read where getrusage does not exist: the benchmark then
// reports no peak-rss-MB.
func peakRSSMB() (float64, bool) { return 0, false }
