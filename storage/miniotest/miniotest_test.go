package miniotest

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBinary(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "minio-data")
	if err := os.WriteFile(notExec, []byte("not a program"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     string
		wantErr []string
	}{
		{"a variable pointing at a missing file is reported with its name", filepath.Join(dir, "missing"), []string{EnvBinary, "missing"}},
		{"a variable pointing at a file that cannot run is reported", notExec, []string{EnvBinary, "not an executable"}},
		{"a variable pointing at a folder is reported", dir, []string{EnvBinary, "not an executable"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(EnvBinary, tt.env)
			_, err := Binary()
			if err == nil {
				t.Fatal("Binary() succeeded, want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Binary() error = %q, want it to mention %q", err, want)
				}
			}
		})
	}

	t.Run("with nothing installed the error names make test and go install", func(t *testing.T) {
		t.Setenv(EnvBinary, "")
		t.Setenv("PATH", dir)
		t.Setenv("HOME", dir)
		_, err := Binary()
		if err == nil {
			t.Fatal("Binary() succeeded, want an error")
		}
		for _, want := range []string{"make test", "go install " + Module} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Binary() error = %q, want it to mention %q", err, want)
			}
		}
	})
}

func TestServerStopsAndStartsOnTheSameAddress(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a MinIO server; skipped with -short")
	}
	s := New(t)
	client := &http.Client{Timeout: 2 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	alive := func() bool {
		resp, err := client.Get(s.URL() + "/minio/health/live")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}

	if !alive() {
		t.Fatal("a new server does not answer its health check")
	}
	s.Stop(t)
	client.CloseIdleConnections()
	if alive() {
		t.Fatal("a stopped server still answers its health check")
	}
	s.Start(t)
	if !alive() {
		t.Fatal("a restarted server does not answer its health check")
	}
	if _, err := os.Stat(filepath.Join(s.Dir, ".minio.sys")); err != nil {
		t.Errorf("the data directory was not used by the server: %v", err)
	}
}
