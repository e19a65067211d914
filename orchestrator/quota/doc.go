// Package quota owns plans and API keys (the plans file) and the limiters
// that count each caller's requests in a fixed window: Memory, per process,
// and Redis, shared by every replica, which counts in memory while Redis
// cannot be reached. It imports none of the orchestrator's packages; api
// decides what a refusal looks like, and the root wires the metrics.
package quota
