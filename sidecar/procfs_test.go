package sidecar

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    procStat
		wantErr bool
	}{
		{
			name: "a plain command name is read",
			line: "42 (chromium) S 1 40 40 0 -1 4194560 100",
			want: procStat{pid: 42, state: 'S', ppid: 1, pgrp: 40},
		},
		{
			name: "a command name with spaces and parentheses does not shift the fields",
			line: "42 (a) b (c) Z 7 9 9 0",
			want: procStat{pid: 42, state: 'Z', ppid: 7, pgrp: 9},
		},
		{name: "a line without a command name is an error", line: "42 chromium S 1 40", wantErr: true},
		{name: "a line cut short is an error", line: "42 (chromium) S 1", wantErr: true},
		{name: "a non-numeric parent is an error", line: "42 (chromium) S x 40", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat(42, []byte(tt.line))
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseStat error = %v, want error %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("parseStat = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestProcessMemory(t *testing.T) {
	t.Run("the test process itself uses some memory", func(t *testing.T) {
		n, err := processMemory(procRoot, os.Getpid())
		if err != nil || n <= 0 {
			t.Fatalf("processMemory(self) = %d, %v; want a positive size", n, err)
		}
	})

	fake := func(t *testing.T, files map[string]string) string {
		root := t.TempDir()
		dir := filepath.Join(root, "7")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	tests := []struct {
		name    string
		files   map[string]string
		want    int64
		wantErr bool
	}{
		{
			name:  "PSS from smaps_rollup is preferred",
			files: map[string]string{"smaps_rollup": "Rss:   2048 kB\nPss:   1024 kB\n", "statm": "100 50 10 0 0 0 0"},
			want:  1024 * 1024,
		},
		{
			name:  "RSS from statm is used when smaps_rollup is missing",
			files: map[string]string{"statm": "100 50 10 0 0 0 0"},
			want:  50 * int64(os.Getpagesize()),
		},
		{
			name:  "RSS from statm is used when smaps_rollup has no PSS line",
			files: map[string]string{"smaps_rollup": "Rss: 2048 kB\n", "statm": "100 3 10 0 0 0 0"},
			want:  3 * int64(os.Getpagesize()),
		},
		{name: "a process without either file is an error", files: map[string]string{}, wantErr: true},
		{name: "an unreadable statm is an error", files: map[string]string{"statm": "100 x"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := processMemory(fake(t, tt.files), 7)
			if (err != nil) != tt.wantErr {
				t.Fatalf("processMemory error = %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("processMemory = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMembersFindsAProcessGroup(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	pid := cmd.Process.Pid

	ms, err := members(procRoot, pid, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].pid != pid || ms[0].pgrp != pid {
		t.Fatalf("members of group %d = %+v, want just the sleeper", pid, ms)
	}
	if got := groupMemory(procRoot, pid); got <= 0 {
		t.Errorf("groupMemory = %d, want a positive size", got)
	}
	if ms, _ := members(procRoot, 0, "/no/process/has/this/in/its/command/line"); len(ms) != 0 {
		t.Errorf("members by an unknown command line = %+v, want none", ms)
	}
}

func TestCmdlineMentions(t *testing.T) {
	dir := "/scratch/glimpse-chromium-12"
	tests := []struct {
		name    string
		cmdline string
		want    bool
	}{
		{name: "the profile flag names the directory", cmdline: "chromium\x00--user-data-dir=/scratch/glimpse-chromium-12\x00about:blank\x00", want: true},
		{name: "a path inside the directory counts", cmdline: "helper\x00--log=/scratch/glimpse-chromium-12/log\x00", want: true},
		{name: "the directory as the last argument counts", cmdline: "sh\x00/scratch/glimpse-chromium-12", want: true},
		{name: "a directory that only starts the same does not count", cmdline: "chromium\x00--user-data-dir=/scratch/glimpse-chromium-123\x00", want: false},
		{name: "a later exact mention after a longer one counts", cmdline: "x\x00/scratch/glimpse-chromium-123\x00/scratch/glimpse-chromium-12\x00", want: true},
		{name: "an unrelated command line does not count", cmdline: "sleep\x0030\x00", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "9"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "9", "cmdline"), []byte(tt.cmdline), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := cmdlineMentions(root, 9, dir); got != tt.want {
				t.Errorf("cmdlineMentions = %v, want %v", got, tt.want)
			}
		})
	}
}
