package metricstest

import (
	"errors"
	"os/exec"
)

// Promtool returns the path of the promtool binary. When it is missing the
// error says which Debian package provides it, so a failing test tells the
// reader what to install.
func Promtool() (string, error) {
	p, err := exec.LookPath("promtool")
	if err != nil {
		return "", errors.New("promtool is not installed: install Debian's prometheus package (apt-get install prometheus), which provides it")
	}
	return p, nil
}
