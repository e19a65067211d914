package sidecar

import (
	"path/filepath"
	"strings"
)

// isHeadlessShell reports whether the binary at path is Chromium's headless
// shell (Debian's chromium-headless-shell, Puppeteer's chrome-headless-shell)
// rather than the full browser. The shell runs the old headless mode: no
// windows, no browser UI, no process singleton. Everything glimpse asks of
// a browser works in both (browser contexts, printing, screenshots,
// isolated worlds, Fetch interception, denied downloads), so this only
// names the kind in logs and lets tests expect what the shell leaves out.
func isHeadlessShell(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	return strings.Contains(base, "headless-shell") || strings.Contains(base, "headless_shell")
}

// browserKind names the kind of browser at path for the logs.
func browserKind(path string) string {
	if isHeadlessShell(path) {
		return "headless shell"
	}
	return "full browser in headless mode"
}
