package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// proc is a glimpse binary the benchmark started, logging into a file.
type proc struct {
	name    string
	cmd     *exec.Cmd
	log     string
	done    chan struct{} // closed when the process has ended
	waitErr error         // how it ended; read after done
}

// startProc runs bin with env added to the benchmark's own environment,
// its output in logPath. The child gets SIGTERM should the benchmark die,
// so a crashed run leaves no Chromium behind.
func startProc(name, bin string, env []string, logPath string) (*proc, error) {
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("creating the log of %s: %w", name, err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, bin, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended, and how.
func (p *proc) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.waitErr
	default:
		return false, nil
	}
}

// stop asks the process to shut down gracefully and kills it after grace.
func (p *proc) stop(grace time.Duration) error {
	if ended, _ := p.exited(); ended {
		return fmt.Errorf("%s had already exited (%v); its log is %s", p.name, p.waitErr, p.log)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		var ee *exec.ExitError
		if errors.As(p.waitErr, &ee) && !ee.Exited() {
			return nil // ended by our signal
		}
		return p.waitErr
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not stop within %s of SIGTERM and was killed", p.name, grace)
	}
}

// freeAddr finds a loopback port nobody listens on. Another program could
// take it before the child binds it; the child then fails to start, loudly.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitReady polls url until it answers 200, the process exits, or ctx ends.
func waitReady(ctx context.Context, p *proc, url string) error {
	client := &http.Client{Timeout: 2 * time.Second}
	var last string
	for {
		if ended, err := p.exited(); ended {
			return fmt.Errorf("%s exited while starting (%v); its log is %s", p.name, err, p.log)
		}
		resp, err := client.Get(url)
		if err == nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = strconv.Itoa(resp.StatusCode) + " " + string(b)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s was not ready at %s in time (last answer: %s); its log is %s", p.name, url, last, p.log)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
