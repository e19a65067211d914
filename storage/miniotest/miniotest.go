// Package miniotest runs a real MinIO server for tests, on free loopback
// ports with a temporary data directory and random root credentials: New
// for one test (killed when it ends), Launch for a package's TestMain to
// share. Stop and Start simulate an outage on the same address and data.
// The binary comes from $GLIMPSE_MINIO_BIN, PATH or the cache `make test`
// fills; when it is missing, the test fails and says how to get it.
package miniotest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glimpse/glimpse/internal/testtool"
)

// Module is the MinIO server version the project tests against.
const Module = "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"

// EnvBinary names the variable that points at a MinIO server binary.
const EnvBinary = "GLIMPSE_MINIO_BIN"

// startTimeout is generous: a first start formats the drive, and test
// machines are often busy compiling other packages.
const startTimeout = 30 * time.Second

// Server is a MinIO server owned by one test.
type Server struct {
	// Endpoint is host:port of the S3 API, on 127.0.0.1.
	Endpoint string
	// AccessKey and SecretKey are the root credentials.
	AccessKey, SecretKey string
	// Dir is the data directory, kept across Stop and Start.
	Dir string

	bin     string
	console string
	ownsDir bool

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	out  *tail
}

// URL is the base URL of the S3 API, such as http://127.0.0.1:41234.
func (s *Server) URL() string { return "http://" + s.Endpoint }

// New starts a MinIO server and stops it when the test ends. It fails the
// test, naming the fix, when no MinIO binary can be found.
func New(t testing.TB) *Server {
	t.Helper()
	if _, err := Binary(); err != nil {
		testtool.Missing(t, err)
	}
	s, err := launch(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Registered after TempDir, so it runs first: the process must be gone
	// before its data directory is removed.
	t.Cleanup(s.kill)
	return s
}

// Launch starts a MinIO server that outlives any one test, for a package
// whose tests share it; the caller ends it with Close, typically after
// m.Run in TestMain.
func Launch() (*Server, error) {
	dir, err := os.MkdirTemp("", "miniotest-")
	if err != nil {
		return nil, fmt.Errorf("miniotest: could not create a data directory: %w", err)
	}
	s, err := launch(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.ownsDir = true
	return s, nil
}

// Close kills the server and, for a server from Launch, removes its data.
func (s *Server) Close() {
	s.kill()
	if s.ownsDir {
		os.RemoveAll(s.Dir)
	}
}

func launch(dir string) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	s := &Server{
		AccessKey: "glimpse-" + randomHex(6),
		SecretKey: randomHex(20),
		Dir:       dir,
		bin:       bin,
	}
	var lastErr error
	// A free port can be taken by someone else between probing and binding;
	// a few fresh tries make that race harmless.
	for range 3 {
		if s.Endpoint, err = freeAddr(); err != nil {
			return nil, err
		}
		if s.console, err = freeAddr(); err != nil {
			return nil, err
		}
		if lastErr = s.start(); lastErr == nil {
			return s, nil
		}
		s.kill()
	}
	return nil, fmt.Errorf("miniotest: MinIO did not start: %w", lastErr)
}

// Stop kills the server abruptly, as an outage would, and waits until it is
// gone.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	s.kill()
}

// Pause freezes the server without closing its port, as a hung store is:
// connections are accepted and nothing is answered. Resume ends it, and
// it runs on when the test ends.
func (s *Server) Pause(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd == nil {
		t.Fatal("miniotest: Pause of a server that is not running")
	}
	pauseGroup(cmd, true)
	t.Cleanup(func() { pauseGroup(cmd, false) })
}

// Resume lets a paused server run again.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	if cmd != nil {
		pauseGroup(cmd, false)
	}
}

// Start restarts a stopped server on the same address, credentials and data,
// and waits until it answers.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		s.kill()
		t.Fatalf("miniotest: MinIO did not restart on %s: %v", s.Endpoint, err)
	}
}

func (s *Server) start() error {
	s.mu.Lock()
	if s.cmd != nil {
		s.mu.Unlock()
		return errors.New("the server is already running")
	}
	cmd := exec.Command(s.bin, "server", "--quiet", "--address", s.Endpoint, "--console-address", s.console, s.Dir)
	cmd.Env = append(environWithoutMinio(),
		"MINIO_ROOT_USER="+s.AccessKey,
		"MINIO_ROOT_PASSWORD="+s.SecretKey,
		"MINIO_BROWSER=off",
		"MINIO_UPDATE=off",
	)
	out := &tail{max: 64 << 10}
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

	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("the process exited early; its output:\n%s", out.String())
		default:
		}
		if live(client, s.URL()+"/minio/health/live") && servingS3(client, s.URL()+"/") {
			client.CloseIdleConnections()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("it did not answer /minio/health/live and S3 requests within %s; its output:\n%s", startTimeout, out.String())
}

// servingS3 reports whether the S3 API has finished starting: the health
// endpoints answer a moment before it stops replying 503 "Server not
// initialized yet". An anonymous request is refused (403) once it is up.
func servingS3(c *http.Client, url string) bool {
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode < 500
}

func live(c *http.Client, url string) bool {
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// kill ends the process group and waits for the process to be reaped.
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

// Binary finds the MinIO server: $GLIMPSE_MINIO_BIN, then minio on PATH,
// then $HOME/.cache/glimpse/bin/minio, where `make test` builds it.
func Binary() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("miniotest: %s is set to %s, but %v; point it at a MinIO server binary, or unset it", EnvBinary, p, err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("minio"); err == nil {
		return p, nil
	}
	var cached string
	if home, err := os.UserHomeDir(); err == nil {
		cached = filepath.Join(home, ".cache", "glimpse", "bin", "minio")
		if executable(cached) == nil {
			return cached, nil
		}
	}
	return "", fmt.Errorf("miniotest: the MinIO server binary was not found: %s is unset, there is no minio on PATH and no %s; "+
		"run `make test`, which builds it, or `GOBIN=$HOME/.cache/glimpse/bin go install %s`", EnvBinary, cached, Module)
}

func executable(p string) error {
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return errors.New("it is not an executable file")
	}
	return nil
}

// environWithoutMinio keeps the developer's own MinIO settings out of the
// test server.
func environWithoutMinio() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MINIO_") {
			env = append(env, kv)
		}
	}
	return env
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("miniotest: could not find a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// tail keeps the last max bytes written to it, enough to explain a failed
// start without holding a long-running server's whole log.
type tail struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - t.max; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}
