package deploy_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, USER, …
	args string
}

func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimSpace(line)
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s ends inside a continued line", path)
	}
	return out
}

// finalStage returns the instructions after the last FROM.
func finalStage(ins []instruction) []instruction {
	last := 0
	for i, in := range ins {
		if in.cmd == "FROM" {
			last = i
		}
	}
	return ins[last:]
}

var goBuild = regexp.MustCompile(`CGO_ENABLED=0 go build .*-o (\S+) (\./\S+)`)

func TestDockerfiles(t *testing.T) {
	cases := []struct {
		file     string
		pkg      string // the main package built
		port     string
		packages []string // Debian packages the image must install
	}{
		{"orchestrator.Dockerfile", "./orchestrator/cmd/orchestrator", "3000", []string{"tini", "ca-certificates", "poppler-utils"}},
		{"sidecar.Dockerfile", "./sidecar/cmd/sidecar", "9230", []string{"tini", "ca-certificates", "chromium-headless-shell", "fontconfig", "fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji", "fonts-liberation"}},
	}
	for _, tc := range cases {
		ins := parseDockerfile(t, tc.file)
		final := finalStage(ins)

		t.Run(tc.file+" builds a static binary in a separate stage", func(t *testing.T) {
			var froms []string
			for _, in := range ins {
				if in.cmd == "FROM" {
					froms = append(froms, in.args)
				}
			}
			if len(froms) < 2 || !strings.HasSuffix(froms[0], " AS build") {
				t.Fatalf("stages %q: want a build stage named build and a runtime stage", froms)
			}
			built := false
			for _, in := range ins[:len(ins)-len(final)] {
				if m := goBuild.FindStringSubmatch(in.args); in.cmd == "RUN" && m != nil {
					built = m[2] == tc.pkg
				}
			}
			if !built {
				t.Errorf("the build stage does not run CGO_ENABLED=0 go build of %s", tc.pkg)
			}
			for _, in := range final {
				if in.cmd == "COPY" && strings.HasPrefix(in.args, "--from=build ") {
					return
				}
			}
			t.Error("the runtime stage copies nothing from the build stage")
		})

		t.Run(tc.file+" runs as an unprivileged user", func(t *testing.T) {
			var user string
			for _, in := range final {
				if in.cmd == "USER" {
					user = in.args
				}
			}
			uid, _, _ := strings.Cut(user, ":")
			if n, err := strconv.Atoi(uid); err != nil || n == 0 {
				t.Errorf("the final USER is %q; want a numeric non-root uid, so runAsNonRoot can verify it", user)
			}
		})

		t.Run(tc.file+" starts under tini as PID 1", func(t *testing.T) {
			var entry []string
			for _, in := range final {
				if in.cmd == "ENTRYPOINT" {
					if err := json.Unmarshal([]byte(in.args), &entry); err != nil {
						t.Fatalf("ENTRYPOINT %s is not in exec form: %v", in.args, err)
					}
				}
			}
			if len(entry) != 3 || entry[0] != "/usr/bin/tini" || entry[1] != "--" {
				t.Errorf("ENTRYPOINT is %q, want tini -- <binary>", entry)
			}
		})

		t.Run(tc.file+" installs what it needs and exposes port "+tc.port, func(t *testing.T) {
			var installed []string
			exposed := false
			for _, in := range final {
				if in.cmd == "RUN" && strings.Contains(in.args, "apt-get install") {
					installed = append(installed, strings.Fields(in.args)...)
					if !strings.Contains(in.args, "--no-install-recommends") || !strings.Contains(in.args, "rm -rf /var/lib/apt/lists/*") {
						t.Error("apt-get install should skip recommends and drop the package lists")
					}
				}
				exposed = exposed || (in.cmd == "EXPOSE" && in.args == tc.port)
			}
			for _, p := range tc.packages {
				if !slices.Contains(installed, p) {
					t.Errorf("the image does not install %s", p)
				}
			}
			if !exposed {
				t.Errorf("the image does not expose %s", tc.port)
			}
		})
	}
}

func TestSidecarImagePointsAtTheRealChromium(t *testing.T) {
	for _, in := range finalStage(parseDockerfile(t, "sidecar.Dockerfile")) {
		if in.cmd == "ENV" && slices.Contains(strings.Fields(in.args), "GLIMPSE_CHROME_PATH=/usr/lib/chromium/chromium-headless-shell") {
			return
		}
	}
	t.Error("the sidecar image does not set GLIMPSE_CHROME_PATH to /usr/lib/chromium/chromium-headless-shell, the headless shell's binary")
}
