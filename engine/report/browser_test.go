package report_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// findChromium returns the Chromium binary, or "" when none is installed.
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestHTMLInChromium opens the comparison report in headless Chromium at a
// desktop and a phone width, takes screenshots, and fails on console
// errors, uncaught exceptions, any request that leaves the file, or a page
// wider than a phone screen. It is required when CI=true (scripts/deps.sh
// installs Chromium for make test) and skipped without Chromium otherwise.
// RIGBENCH_REPORT_SCREENSHOTS=DIR keeps the screenshots.
func TestHTMLInChromium(t *testing.T) {
	if goruntime.GOOS == "windows" {
		// make test-windows runs this package under Wine, which has no
		// browser; the Linux passes open the report in Chromium.
		t.Skip("the Windows tests run under Wine, without a browser: the Linux passes open the HTML report in Chromium")
	}
	exe := findChromium()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("Chromium is not installed; CI needs it: run scripts/deps.sh test (apt-get install chromium)")
		}
		t.Skip("Chromium is not installed (apt-get install chromium); skipping the browser check of the HTML report")
	}
	ref := reference(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, renderHTML(t, ref, tuned(t, ref)), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("no-first-run", true), chromedp.UserDataDir(filepath.Join(dir, "profile")))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()

	var mu sync.Mutex
	var problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, "console "+string(e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				problems = append(problems, "log error: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if u := e.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "request to "+u)
			}
		}
	}
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("Chromium: %s: %v", what, err)
		}
	}
	must("listen", chromedp.Listen(ctx, listen))
	_, err := chromedp.Call(ctx, log.Enable, cdp.Empty{})
	must("enable log", err)
	_, err = chromedp.Call(ctx, network.Enable, network.EnableParams{})
	must("enable network", err)
	must("open the report", chromedp.Do(ctx, chromedp.EmulateViewport(1200, 900),
		chromedp.Navigate("file://"+page), chromedp.WaitVisible("#method")))
	title, err := chromedp.Run(ctx, chromedp.Title())
	must("title", err)
	desktop, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	must("desktop screenshot", err)
	must("phone view", chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
		chromedp.Reload(), chromedp.WaitVisible("#method")))
	phoneOverflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`))
	must("measure width", err)
	phone, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	must("phone screenshot", err)
	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the page reported problems: %s", strings.Join(problems, "; "))
	}
	if !strings.Contains(title, "RigBench comparison") {
		t.Errorf("page title %q, want the comparison title", title)
	}
	if phoneOverflow {
		t.Error("at phone width the page scrolls sideways; wide tables must scroll in their own box")
	}
	if len(desktop) < 10000 || len(phone) < 10000 {
		t.Errorf("screenshots are suspiciously small (%d and %d bytes)", len(desktop), len(phone))
	}
	if out := os.Getenv("RIGBENCH_REPORT_SCREENSHOTS"); out != "" {
		_ = os.WriteFile(filepath.Join(out, "report-desktop.jpg"), desktop, 0o644)
		_ = os.WriteFile(filepath.Join(out, "report-phone.png"), phone, 0o644)
	}
}
