// Package quota owns plans and API keys (the plans file) and the limiter
// that counts each caller's requests in a fixed window. It imports none of
// the orchestrator's packages; api decides what a refusal looks like.
package quota
