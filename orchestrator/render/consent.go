package render

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"

	"github.com/glimpse/glimpse/metrics"
	"github.com/glimpse/glimpse/orchestrator/query"
)

// With `adblock` on, glimpse dismisses consent banners before a PDF, a
// screenshot or the Markdown of a rendered page: those of the consent
// managers in consent_rules.json, by the manager's own refusal button and
// by hiding its containers, then fixed overlays that read as a cookie
// notice, by hiding them. It runs in a world of its own and never clicks
// a button the list does not name.

//go:embed consent_rules.json
var consentRulesJSON []byte

//go:embed consent.js
var consentJS string

// consentRule is one consent manager: how to see it, the button that
// refuses consent, what to hide and which classes lock scrolling.
type consentRule struct {
	Name   string   `json:"name"`
	Detect []string `json:"detect"`
	Reject []string `json:"reject,omitempty"`
	Hide   []string `json:"hide,omitempty"`
	Unlock []string `json:"unlock,omitempty"`
}

// The generic rule's words, as regular expressions that read the same in
// Go and in JavaScript. consentTopic is what a notice speaks of;
// consentAnswer is what one of its buttons says.
const (
	consentTopic  = `\b(cookies?|consent|gdpr|rgpd|dsgvo|datenschutz\w*|privacy (settings|preferences|choices))\b`
	consentAnswer = `\b(accept\w*|agree\w*|allow\w*|reject\w*|decline\w*|refuse\w*|deny|got it|ok|okay|understood|akzeptieren|zustimmen|ablehnen|einverstanden|accepter|refuser|aceptar|rechazar|accetta|rifiuta)\b`
	// consentMaxText bounds a notice's text: longer is the page itself.
	consentMaxText = 3000
	// consentMaxAnswer bounds a button's text: longer is not a button's.
	consentMaxAnswer = 60
	// consentMaxElements bounds the elements looked at for fixed ones.
	consentMaxElements = 20000
	// consentWait bounds the step.
	consentWait = 2 * time.Second
)

// parseConsentRules reads and checks a list of rules.
func parseConsentRules(b []byte) ([]consentRule, error) {
	var f struct {
		Rules []consentRule `json:"rules"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the consent rules are not valid JSON: %w", err)
	}
	seen := map[string]bool{}
	for i, r := range f.Rules {
		switch {
		case r.Name == "":
			return nil, fmt.Errorf("consent rule %d has no name", i)
		case seen[r.Name]:
			return nil, fmt.Errorf("consent rule %q is listed twice", r.Name)
		case len(r.Detect) == 0:
			return nil, fmt.Errorf("consent rule %q has no selector to detect it by", r.Name)
		}
		seen[r.Name] = true
	}
	return f.Rules, nil
}

// consentRules is the embedded list, read once.
var consentRules = sync.OnceValues(func() ([]consentRule, error) { return parseConsentRules(consentRulesJSON) })

// consentResult is what the page reports of the step.
type consentResult struct {
	Found     []string `json:"found"`     // the managers on the page
	Dismissed []string `json:"dismissed"` // of those, the ones whose banner showed and went
	Rejected  []string `json:"rejected"`  // those whose refusal button was clicked
	Hidden    int      `json:"hidden"`    // elements hidden, the generic rule's included
	Generic   int      `json:"generic"`   // notices the generic rule hid
	Unlocked  bool     `json:"unlocked"`  // scrolling was given back
}

// consentApplies reports whether req's render dismisses consent banners:
// `adblock` on, and an answer a banner would spoil.
func consentApplies(req *query.Request) bool {
	if req.Controls.AdblockOff {
		return false
	}
	return req.PDF != nil || req.Screenshot != nil || readsMarkdown(req.Data)
}

// dismissConsent runs the rules in the page. It is best effort: a page
// that refuses is captured as it is.
func (r *Renderer) dismissConsent(ctx context.Context, lease Lease) {
	rules, err := consentRules()
	if err != nil {
		r.log.Error("the embedded consent rules do not load; consent banners stay", "err", err)
		return
	}
	opts, err := json.Marshal(map[string]any{
		"rules": rules, "topic": consentTopic, "answer": consentAnswer,
		"maxText": consentMaxText, "maxAnswer": consentMaxAnswer, "maxElements": consentMaxElements,
	})
	if err != nil {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, consentWait)
	defer cancel()
	var out consentResult
	if err := evaluate(cctx, lease.Page(), fmt.Sprintf("(%s)(%s)", consentJS, opts), &out); err != nil {
		r.log.Debug("consent banners could not be looked for", "err", err)
		return
	}
	for _, name := range out.Dismissed {
		if slices.ContainsFunc(rules, func(c consentRule) bool { return c.Name == name }) {
			r.m.ConsentDismissed.WithLabelValues(name).Inc()
		}
	}
	if out.Generic > 0 {
		r.m.ConsentDismissed.WithLabelValues(metrics.ConsentGeneric).Add(float64(out.Generic))
	}
	if len(out.Found) > 0 || out.Hidden > 0 {
		r.log.Debug("dismissed consent banners", "managers", out.Found, "rejected", out.Rejected,
			"hidden", out.Hidden, "generic", out.Generic, "unlocked", out.Unlocked)
	}
}

// hideListedConsent applies the list's hide rules to a document read by a
// plain fetch, for a banner its server wrote into the page: the elements
// get the inline display:none the Markdown converter skips. Without a
// browser there is no button to click and no layout for the generic rule.
func (r *Renderer) hideListedConsent(doc *goquery.Document) {
	rules, err := consentRules()
	if err != nil {
		r.log.Error("the embedded consent rules do not load; consent banners stay", "err", err)
		return
	}
	for _, name := range hideListed(doc, rules) {
		r.m.ConsentDismissed.WithLabelValues(name).Inc()
	}
}

// hideListed hides what the rules name in doc and reports the managers
// it found. A selector that cascadia cannot read is passed over.
func hideListed(doc *goquery.Document, rules []consentRule) []string {
	var found []string
	matches := func(sel string) *goquery.Selection {
		m, err := cascadia.Compile(sel)
		if err != nil {
			return &goquery.Selection{}
		}
		return doc.FindMatcher(m)
	}
	for _, rule := range rules {
		if !slices.ContainsFunc(rule.Detect, func(sel string) bool { return matches(sel).Length() > 0 }) {
			continue
		}
		hidden := 0
		for _, sel := range rule.Hide {
			matches(sel).Each(func(_ int, s *goquery.Selection) {
				style := strings.TrimRight(strings.TrimSpace(s.AttrOr("style", "")), ";")
				if style != "" {
					style += "; "
				}
				s.SetAttr("style", style+"display: none !important")
				hidden++
			})
		}
		if hidden > 0 {
			found = append(found, rule.Name)
		}
	}
	return found
}
