package sidecar

import "github.com/glimpse/glimpse/metrics"

// Stats is the sidecar's state for its Prometheus collectors.
func (srv *Server) Stats() metrics.SidecarStats {
	h := srv.sidecar.Health()
	background, _ := srv.background.counts()
	return metrics.SidecarStats{
		Up:            h.Status == StatusOK,
		Draining:      h.Status == StatusDraining || h.ReplacedGenerations > 0,
		OpenPages:     h.OpenPages,
		PagesCreated:  h.PagesCreated,
		Restarts:      h.Restarts,
		Recycles:      h.Recycles,
		MemoryBytes:   h.MemoryBytes,
		GuardRefusals: srv.guard.Refused(),
		AdsBlocked:    srv.guard.Blocked(),
		AuthRefusals:  srv.sidecar.AuthRefusals() + srv.proxyAuthRefusals.Load(),
		CDPRefusals:   srv.sidecar.CDPRefusals(),

		MaxPages:           h.MaxPages,
		AdmittedPages:      h.AdmittedPages,
		PagesRefused:       h.PagesRefused,
		BackgroundRefusals: background,
		BrowserStarted:     h.StartedAt,
	}
}
