// Command orchestrator is the glimpse HTTP API. With no sidecars
// configured it runs the embedded default: one sidecar in-process and
// files in a local directory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/glimpse/glimpse/orchestrator"
	"github.com/glimpse/glimpse/sidecar/logging"
)

func main() {
	cfg, err := orchestrator.LoadConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "orchestrator:", err)
		os.Exit(2)
	}
	// Log lines leave in batches (a tenth of a second at most); warnings
	// and errors at once.
	out := logging.NewBuffer(os.Stderr, 100*time.Millisecond)
	defer out.Close()
	log := logging.New(out, cfg.LogFormat, cfg.LogLevel)
	// Packages that log without a logger of their own (storage) follow the
	// configured format too.
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := orchestrator.Run(ctx, cfg, log); err != nil {
		log.Error("orchestrator stopped", "err", err)
		out.Close()
		os.Exit(1)
	}
}
