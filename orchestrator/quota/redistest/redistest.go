// Package redistest runs a real redis-server for tests: on a free loopback
// port, in a temporary directory, with nothing saved to disk (--save ""
// --appendonly no), optionally behind a password, and killed when the test
// ends. Stop and Start simulate an outage on the same address. The binary
// is Debian's redis-server package; when it is missing, a test run with
// -short skips and any other run fails, saying to run `make deps`.
package redistest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// startTimeout is generous: test machines are often busy compiling other
// packages.
const startTimeout = 15 * time.Second

// Server is a redis-server owned by one test.
type Server struct {
	// Addr is host:port on 127.0.0.1.
	Addr string
	// Password is what AUTH needs; empty: none.
	Password string

	bin, dir string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	out  *logTail
}

// New starts a redis-server, with password unless it is empty, and kills
// it when the test ends.
func New(t testing.TB, password string) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if testing.Short() {
			t.Skipf("%v (skipped with -short)", err)
		}
		t.Fatal(err)
	}
	s := &Server{Password: password, bin: bin, dir: t.TempDir()}
	// Registered after TempDir, so it runs first: the process must be gone
	// before its directory is removed.
	t.Cleanup(s.kill)
	var lastErr error
	// A free port can be taken by someone else between probing and
	// binding; a few fresh tries make that race harmless.
	for range 3 {
		if s.Addr, err = freeAddr(); err != nil {
			t.Fatal(err)
		}
		if lastErr = s.start(); lastErr == nil {
			return s
		}
		s.kill()
	}
	t.Fatalf("redistest: redis-server did not start: %v", lastErr)
	return nil
}

// URL is the redis:// URL of the server, with its password.
func (s *Server) URL() string {
	u := url.URL{Scheme: "redis", Host: s.Addr, Path: "/0"}
	if s.Password != "" {
		u.User = url.UserPassword("", s.Password)
	}
	return u.String()
}

// Stop kills the server abruptly, as an outage would, and waits until it
// is gone. Everything it held is lost.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.kill()
}

// Start restarts a stopped server on the same address and password, and
// waits until it answers.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		s.kill()
		t.Fatalf("redistest: redis-server did not restart on %s: %v", s.Addr, err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	if s.cmd != nil {
		s.mu.Unlock()
		return errors.New("the server is already running")
	}
	host, port, _ := net.SplitHostPort(s.Addr)
	args := []string{"--bind", host, "--port", port, "--dir", s.dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--loglevel", "warning"}
	if s.Password != "" {
		args = append(args, "--requirepass", s.Password)
	}
	cmd := exec.Command(s.bin, args...)
	out := &logTail{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		s.mu.Unlock()
		return fmt.Errorf("could not run %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	s.cmd, s.done, s.out = cmd, done, out
	s.mu.Unlock()

	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("the process exited early; its output:\n%s", out)
		default:
		}
		if answers(s.Addr) {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("it did not answer PING within %s; its output:\n%s", startTimeout, out)
}

// answers reports whether a server on addr replies to PING: +PONG, or an
// error asking for the password, both mean it is serving.
func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && (strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH"))
}

// kill ends the process and waits for it to be reaped.
func (s *Server) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd, s.done = nil, nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	killGroup(cmd)
	<-done
}

// Binary finds redis-server on PATH or where Debian's package puts it.
func Binary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("/usr/bin/redis-server"); err == nil {
		return p, nil
	}
	return "", errors.New("redistest: redis-server is not installed: run `make deps`, which installs Debian's redis-server package, or apt-get install redis-server")
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("redistest: could not find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// logTail keeps the first 64 KiB the server writes, enough to explain a
// failed start.
type logTail struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() < 64<<10 {
		l.buf.Write(p)
	}
	return len(p), nil
}

func (l *logTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
