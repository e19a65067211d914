package api

import (
	"context"
	"errors"

	"github.com/glimpse/glimpse/orchestrator/answer"
	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// renderAnswer renders req's target and composes its answer. When a bot
// wall answered and the operator named a proxy for walls
// (GLIMPSE_WALL_PROXY), the render is tried once more through it, unless
// the caller named a proxy of their own. The second answer, the page or
// the wall again, is the answer; when the second try fails otherwise,
// the caller learns of the wall.
func (s *Server) renderAnswer(ctx context.Context, req *query.Request, key string, pre answer.Prefetched) (*answer.Result, error) {
	res, err := s.renderCompose(ctx, req, key, pre)
	if s.cfg.WallProxy == nil || req.Proxy != nil || !walled(res, err) || ctx.Err() != nil {
		return res, err
	}
	retry := *req
	retry.Proxy = s.cfg.WallProxy
	if cerr := query.CheckProxy(ctx, s.deps.Policy, s.deps.Resolver, retry.Proxy); cerr != nil {
		s.log.Warn("GLIMPSE_WALL_PROXY cannot be used", "proxy", query.ProxyHost(retry.Proxy), "err", cerr)
		return res, err
	}
	s.log.Info("a bot wall answered; trying once through GLIMPSE_WALL_PROXY", "proxy", query.ProxyHost(retry.Proxy))
	res2, err2 := s.renderCompose(ctx, &retry, key, pre)
	if err2 != nil && !walled(nil, err2) {
		s.log.Warn("the render through GLIMPSE_WALL_PROXY failed; answering with the wall", "proxy", query.ProxyHost(retry.Proxy), "err", err2)
		return res, err
	}
	return res2, err2
}

func (s *Server) renderCompose(ctx context.Context, req *query.Request, key string, pre answer.Prefetched) (*answer.Result, error) {
	var res *answer.Result
	err := s.renderer.Render(ctx, req, func(ctx context.Context, p *render.Page) error {
		var err error
		res, err = s.composer.Compose(ctx, req, key, p, pre)
		return err
	})
	return res, err
}

// walled reports whether a render ended at a bot wall.
func walled(res *answer.Result, err error) bool {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e.Code == apierr.CodeProxyNeeded
	}
	return err == nil && res != nil && res.Wall != ""
}
