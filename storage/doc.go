// Package storage owns glimpse's blobs: rendered PDFs and screenshots, which
// are public under PublicPrefix, and shared cache entries, which are private.
// It offers one Store interface with two implementations, an S3/MinIO bucket
// and a local directory (the embedded default, served by Local.Handler), and
// it decides the public address of a stored object. It also keeps both
// bounded: the local store sweeps old objects and keeps a byte budget, and
// the S3 store sets the bucket's lifecycle rules. Choosing keys, cache policy
// and mounting the handler on the HTTP server are left to the caller.
package storage
