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

	"github.com/glimpse/glimpse/orchestrator"
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
	log := orchestrator.NewLogger(cfg.LogFormat, cfg.LogLevel, os.Stderr)
	// Packages that log without a logger of their own (storage) follow the
	// configured format too.
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := orchestrator.Run(ctx, cfg, log); err != nil {
		log.Error("orchestrator stopped", "err", err)
		os.Exit(1)
	}
}
