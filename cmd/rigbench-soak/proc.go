package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is one rigbench-cli process with its output read as it comes.
type proc struct {
	cmd    *exec.Cmd
	began  time.Time
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   int // finished cells seen in the progress lines
	lines  chan string
	exited chan struct{}
	err    error
	ended  time.Time
}

// cellDone matches a progress line of a finished cell (the CLI writes one
// per cell when its standard error is not a terminal).
var cellDone = regexp.MustCompile(`^\[\d+/\d+\] .*  (Valid|Requests queued|Over capacity|Exceeds model length|Failed)\b`)

// start runs the CLI with args; env adds to the environment.
func (s *soak) start(env []string, args ...string) (*proc, error) {
	return s.startWith(nil, env, args...)
}

// startWith is start with extra open files, the child's descriptors 3,
// 4, … in order.
func (s *soak) startWith(extra []*os.File, env []string, args ...string) (*proc, error) {
	p := &proc{cmd: exec.Command(s.cli, args...), lines: make(chan string, 1024), exited: make(chan struct{})}
	p.cmd.ExtraFiles = extra
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Dir = s.dir
	errPipe, err := p.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	p.cmd.Stdout = &lockedWriter{mu: &p.mu, w: &p.stdout}
	p.began = time.Now()
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(errPipe)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.stderr.WriteString(line + "\n")
			if cellDone.MatchString(line) {
				p.done++
			}
			p.mu.Unlock()
			select {
			case p.lines <- line:
			default:
			}
		}
		io.Copy(io.Discard, errPipe)
	}()
	go func() {
		<-read
		p.err = p.cmd.Wait()
		p.ended = time.Now()
		close(p.exited)
	}()
	return p, nil
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// waitLine waits for a stderr line containing sub; false when the process
// ended or ctx ran out first.
func (p *proc) waitLine(ctx context.Context, sub string) bool {
	return p.waitFor(ctx, func(l string) bool { return strings.Contains(l, sub) })
}

// wait waits for the process to end; false when ctx ran out (the process
// is then killed, and counts as hung).
func (p *proc) wait(ctx context.Context) bool {
	select {
	case <-p.exited:
		return true
	case <-ctx.Done():
		p.cmd.Process.Kill()
		<-p.exited
		return false
	}
}

func (p *proc) signal(sig syscall.Signal) { p.cmd.Process.Signal(sig) }

// code is the exit status, -1 when a signal ended the process.
func (p *proc) code() int { return p.cmd.ProcessState.ExitCode() }

func (p *proc) killedBy() syscall.Signal {
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// rssMB is the process's peak resident memory.
func (p *proc) rssMB() float64 {
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}

func (p *proc) finished() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// outText is what the process wrote to its standard output.
func (p *proc) outText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stdout.String()
}

func (p *proc) errText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// lastError is the CLI's last "rigbench-cli …:" line, what a user reads as
// the outcome ("" when there is none).
func (p *proc) lastError() string {
	lines := strings.Split(strings.TrimSpace(p.errText()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "rigbench-cli ") || strings.HasPrefix(lines[i], "cancelled") {
			return lines[i]
		}
	}
	return ""
}

// crashed reports a panic or a runtime fault in the output.
func (p *proc) crashed() bool {
	t := p.errText()
	return strings.Contains(t, "panic:") || strings.Contains(t, "fatal error:") || strings.Contains(t, "goroutine ")
}

// classify turns an ended run into an outcome: hung when it had to be
// killed, crashed on a panic or a fatal signal, ok on exit 0, clear error
// on another exit with a sentence for the user.
func classify(p *proc, ended bool) (outcome, detail string) {
	switch {
	case !ended:
		return "hung", "still running after the trial's limit; killed"
	case p.crashed():
		return "crashed", firstLine(p.errText(), "panic:", "fatal error:")
	case p.killedBy() != 0:
		return "crashed", "ended by " + p.killedBy().String()
	case p.code() == 0:
		return "ok", lastOr(p.lastError(), "exit 0")
	case p.lastError() != "":
		return "clear error", p.lastError()
	}
	return "crashed", "exit " + itoa(p.code()) + " with no message"
}

func firstLine(text string, prefixes ...string) string {
	for _, l := range strings.Split(text, "\n") {
		for _, pre := range prefixes {
			if strings.Contains(l, pre) {
				return l
			}
		}
	}
	return ""
}

func lastOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
