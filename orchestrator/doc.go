// Package orchestrator owns glimpse's HTTP API: parsing and validating the
// query (dot notation, the target URL rules), the JSON envelope, the error
// codes and their messages, response headers, the answer cache, plans and
// quotas, and the render steps (navigate, wait, extract metadata, print).
// Which browsers exist and how they are leased is left to package pool;
// where blobs are kept and their public addresses, to package storage.
package orchestrator
