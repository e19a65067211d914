// Command sidecar runs headless Chromium behind a health endpoint and a
// stable DevTools WebSocket, for the glimpse orchestrator's pool.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/sidecar"
)

func main() {
	cfg, err := sidecar.ParseFlags(os.Args[1:], os.LookupEnv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sidecar: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	reg := metrics.NewRegistry()
	cfg.Metrics = metrics.Handler(reg)
	srv, err := sidecar.NewServer(cfg)
	if err != nil {
		cfg.Sidecar.Logger.Error("The sidecar could not start.", "err", err)
		os.Exit(1)
	}
	metrics.RegisterSidecar(reg, srv.Stats)
	if err := srv.Run(ctx); err != nil {
		cfg.Sidecar.Logger.Error("The sidecar stopped with an error.", "err", err)
		os.Exit(1)
	}
}
