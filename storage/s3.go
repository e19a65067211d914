package storage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/minio/minio-go/v7/pkg/s3utils"
)

const (
	// partSize is S3's smallest part size: an upload of unknown length holds
	// one such buffer at a time, whatever the object's size.
	partSize = 5 << 20
	// maxParts is S3's limit, which caps an object of unknown length at
	// about 48 GiB, far beyond any PDF.
	maxParts = 10000
	// s3Attempts is how many times a failed request is tried: a couple of
	// retries ride out a blip, more would keep callers waiting on an outage.
	s3Attempts = 3
	// dialTimeout bounds connecting to an endpoint that drops packets
	// instead of refusing, when the caller's context has no deadline.
	dialTimeout = 5 * time.Second
	// abortTimeout bounds the clean-up of a failed upload, which runs on a
	// context of its own so that a cancelled caller still gets it.
	abortTimeout = 3 * time.Second
	// maxOrphans bounds the uploads remembered for a later abort.
	maxOrphans = 1000
)

// S3Config configures the S3/MinIO store.
type S3Config struct {
	// Endpoint is host:port, such as minio:9000 or s3.amazonaws.com. An
	// http:// or https:// prefix is accepted and sets Secure.
	Endpoint string
	Bucket   string
	// AccessKey and SecretKey are the credentials; both are required.
	AccessKey, SecretKey string
	// Region defaults to us-east-1, which is also what MinIO expects.
	Region string
	// Secure selects https.
	Secure bool
	// PublicBaseURL is where the bucket's root is reachable without
	// credentials (the bucket itself or a CDN in front of it). A public key
	// files/ab/c.pdf gets the URL PublicBaseURL + "files/ab/c.pdf". Default:
	// scheme://Endpoint/Bucket/.
	PublicBaseURL string
	// SkipBucketPolicy leaves the bucket policy untouched, for buckets whose
	// public access is managed elsewhere (a CDN with its own credentials, a
	// policy the operator owns). That policy must then keep cache/ private.
	SkipBucketPolicy bool
	// ExpireAfterDays is how many days after it was written the service
	// deletes an object under cache/ or files/, by the lifecycle rules
	// NewS3 sets on the bucket (see LifecycleRules): at least as long as
	// the longest-lived cached answer that may name it. Zero means
	// DefaultExpireAfterDays.
	ExpireAfterDays int
	// SkipLifecycle leaves the bucket's lifecycle rules untouched, for
	// buckets whose expiry is managed elsewhere. Something must then expire
	// cache/ and files/, or the bucket only grows.
	SkipLifecycle bool
}

// S3 stores objects in one bucket of an S3-compatible service such as MinIO.
// Its credentials need s3:ListBucket (for the bucket checks), s3:GetObject,
// s3:PutObject, s3:DeleteObject and s3:AbortMultipartUpload; s3:CreateBucket
// if the bucket may be missing; s3:PutBucketPolicy unless SkipBucketPolicy;
// s3:GetLifecycleConfiguration and s3:PutLifecycleConfiguration unless
// SkipLifecycle (without them glimpse starts, and says who must set the
// rules).
type S3 struct {
	client    *minio.Client
	core      minio.Core
	transport *http.Transport
	endpoint  string
	bucket    string
	region    string
	base      string
	buffers   sync.Pool // *[]byte of partSize

	expireAfterDays int

	mu      sync.Mutex
	orphans map[string]string // upload ID → key, for uploads whose abort failed
}

var _ Store = (*S3)(nil)

// NewS3 connects to the endpoint, creates the bucket if it is missing and,
// unless cfg.SkipBucketPolicy, replaces its policy with one that lets anyone
// read objects under PublicPrefix and nothing else. Unless
// cfg.SkipLifecycle, it then adds glimpse's lifecycle rules to the bucket's
// (see ensureLifecycle), so that old cache entries and files expire.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	s, err := newS3(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.ensureBucket(ctx, s.region); err != nil {
		s.Close()
		return nil, err
	}
	if !cfg.SkipBucketPolicy {
		if err := s.client.SetBucketPolicy(ctx, s.bucket, publicReadPolicy(s.bucket)); err != nil {
			s.Close()
			return nil, s.fail(fmt.Sprintf("setting the policy that makes %s* public in bucket %q", PublicPrefix, s.bucket), "", err)
		}
	}
	if !cfg.SkipLifecycle {
		if _, err := s.ensureLifecycle(ctx, s.expireAfterDays); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// newS3 checks cfg and sets up the client without any network traffic.
func newS3(cfg S3Config) (*S3, error) {
	endpoint, secure, err := parseEndpoint(cfg.Endpoint, cfg.Secure)
	if err != nil {
		return nil, err
	}
	if cfg.Bucket == "" {
		return nil, errors.New("storage: no S3 bucket was given")
	}
	if err := s3utils.CheckValidBucketNameStrict(cfg.Bucket); err != nil {
		return nil, fmt.Errorf("storage: %q is not a valid S3 bucket name (3-63 characters of a-z, 0-9, '.' and '-'): %w", cfg.Bucket, err)
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, fmt.Errorf("storage: S3 storage at %s needs both an access key and a secret key", endpoint)
	}
	expire := cfg.ExpireAfterDays
	switch {
	case expire == 0:
		expire = DefaultExpireAfterDays
	case expire < 0:
		return nil, fmt.Errorf("storage: stored objects cannot expire %d days after they are written; give a positive number of days, or leave it unset for %d", expire, DefaultExpireAfterDays)
	}
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	scheme := "http"
	if secure {
		scheme = "https"
	}
	base := cfg.PublicBaseURL
	if base == "" {
		base = scheme + "://" + endpoint + "/" + cfg.Bucket + "/"
	}
	if base, err = parseBaseURL(base); err != nil {
		return nil, err
	}

	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, fmt.Errorf("storage: could not set up the connection to %s: %w", endpoint, err)
	}
	tr.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	client, err := minio.New(endpoint, &minio.Options{
		Creds:     credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:    secure,
		Region:    region,
		Transport: tr,
		// Region is known, so no bucket-location lookups; few attempts, so an
		// outage is reported in about a second instead of after ten retries.
		MaxRetries: s3Attempts,
	})
	if err != nil {
		return nil, fmt.Errorf("storage: could not set up a client for the S3 endpoint %s: %w", endpoint, err)
	}
	s := &S3{
		client:    client,
		core:      minio.Core{Client: client},
		transport: tr,
		endpoint:  endpoint,
		bucket:    cfg.Bucket,
		region:    region,
		base:      base,
		orphans:   make(map[string]string),

		expireAfterDays: expire,
	}
	s.buffers.New = func() any { b := make([]byte, partSize); return &b }
	return s, nil
}

// parseEndpoint accepts host:port or a URL with only a scheme and a host,
// the two ways operators tend to write an endpoint.
func parseEndpoint(raw string, secure bool) (string, bool, error) {
	if raw == "" {
		return "", false, errors.New("storage: no S3 endpoint was given; it is host:port, such as minio:9000")
	}
	if !strings.Contains(raw, "://") {
		if strings.ContainsAny(raw, "/?#") {
			return "", false, fmt.Errorf("storage: the S3 endpoint %q must be host:port, such as minio:9000, without a path", raw)
		}
		return raw, secure, nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", false, fmt.Errorf("storage: the S3 endpoint %q must be host:port, such as minio:9000, or http(s)://host:port without a path", raw)
	}
	return u.Host, u.Scheme == "https", nil
}

// publicReadPolicy lets anonymous clients fetch objects under PublicPrefix.
// It grants no listing, so keys cannot be discovered, and nothing under
// cache/.
func publicReadPolicy(bucket string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Sid":"GlimpsePublicFiles","Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::%s/%s*"]}]}`, bucket, PublicPrefix)
}

func (s *S3) ensureBucket(ctx context.Context, region string) error {
	exists, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return s.fail(fmt.Sprintf("checking that bucket %q exists", s.bucket), "", err)
	}
	if exists {
		return nil
	}
	err = s.client.MakeBucket(ctx, s.bucket, minio.MakeBucketOptions{Region: region})
	if err != nil && minio.ToErrorResponse(err).Code != "BucketAlreadyOwnedByYou" {
		return s.fail(fmt.Sprintf("creating bucket %q", s.bucket), "", err)
	}
	slog.Info("storage: created the S3 bucket", "bucket", s.bucket, "endpoint", s.endpoint)
	return nil
}

// Close drops idle connections to the endpoint.
func (s *S3) Close() error {
	s.transport.CloseIdleConnections()
	return nil
}

// Kind is "s3".
func (s *S3) Kind() string { return "s3" }

// Bucket is the bucket the store writes to.
func (s *S3) Bucket() string { return s.bucket }

// URL returns the anonymous address of a public key, or "" when key is not a
// valid public key.
func (s *S3) URL(key string) string {
	if ValidKey(key) != nil || !IsPublic(key) {
		return ""
	}
	return PublicURL(s.base, key)
}

// Put sends objects that fit one part in a single request, and larger or
// unknown-length ones as a multipart upload of partSize parts, holding one
// part in memory at a time. A failed multipart upload is aborted, so no
// object and no stray parts are left.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) (Object, error) {
	obj, err := s.put(ctx, key, r, size, contentType)
	if err == nil {
		// Storage answers again: uploads whose abort failed during an
		// outage are cleaned up now, not only when /readyz is asked.
		s.mu.Lock()
		orphans := len(s.orphans)
		s.mu.Unlock()
		if orphans > 0 {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				s.abortOrphans(ctx)
			}()
		}
	}
	return obj, err
}

func (s *S3) put(ctx context.Context, key string, r io.Reader, size int64, contentType string) (Object, error) {
	if err := ValidKey(key); err != nil {
		return Object{}, err
	}
	if size < -1 {
		return Object{}, fmt.Errorf("storage: the size %d given for %q is not valid; give the length in bytes, or -1 when it is unknown", size, key)
	}
	opts := minio.PutObjectOptions{ContentType: contentTypeFor(key, contentType), CacheControl: cacheControlFor(key)}
	r = &ctxReader{ctx: ctx, r: r}

	var buf []byte
	if size >= 0 && size < partSize {
		// One byte more than announced is enough to tell an over-long reader.
		buf = make([]byte, size+1)
	} else {
		bp := s.buffers.Get().(*[]byte)
		defer s.buffers.Put(bp)
		buf = *bp
	}
	n, ended, err := fill(r, buf)
	switch {
	case err != nil:
		return Object{}, readError(key, err)
	case ended && size >= 0 && int64(n) != size:
		return Object{}, sizeMismatch(key, size, int64(n), false)
	case ended:
		return s.putSingle(ctx, key, buf[:n], opts)
	case size >= 0 && size < partSize:
		return Object{}, sizeMismatch(key, size, int64(n), true)
	}
	return s.putMultipart(ctx, key, r, size, buf, n, opts)
}

func (s *S3) putSingle(ctx context.Context, key string, data []byte, opts minio.PutObjectOptions) (Object, error) {
	opts.DisableMultipart = true
	info, err := s.client.PutObject(ctx, s.bucket, key, bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return Object{}, s.fail(fmt.Sprintf("storing %q", key), key, err)
	}
	return uploaded(key, info, opts), nil
}

// putMultipart uploads buf[:n], which is full, and then the rest of r.
func (s *S3) putMultipart(ctx context.Context, key string, r io.Reader, size int64, buf []byte, n int, opts minio.PutObjectOptions) (_ Object, err error) {
	uploadID, err := s.core.NewMultipartUpload(ctx, s.bucket, key, opts)
	if err != nil {
		return Object{}, s.fail(fmt.Sprintf("starting the upload of %q", key), key, err)
	}
	defer func() {
		if err != nil {
			s.abort(ctx, key, uploadID)
		}
	}()

	var parts []minio.CompletePart
	var total int64
	for ended := false; ; {
		if size >= 0 && total+int64(n) > size {
			return Object{}, sizeMismatch(key, size, total+int64(n), true)
		}
		if len(parts) == maxParts {
			return Object{}, fmt.Errorf("storage: %q is larger than %d parts of %d MiB, the most one upload can hold", key, maxParts, partSize>>20)
		}
		part, err := s.core.PutObjectPart(ctx, s.bucket, key, uploadID, len(parts)+1, bytes.NewReader(buf[:n]), int64(n), minio.PutObjectPartOptions{})
		if err != nil {
			return Object{}, s.fail(fmt.Sprintf("storing part %d of %q", len(parts)+1, key), key, err)
		}
		parts = append(parts, minio.CompletePart{PartNumber: part.PartNumber, ETag: part.ETag})
		total += int64(n)
		if ended {
			break
		}
		n, ended, err = fill(r, buf)
		if err != nil {
			return Object{}, readError(key, err)
		}
		if n == 0 {
			break
		}
	}
	if size >= 0 && total != size {
		return Object{}, sizeMismatch(key, size, total, false)
	}
	info, err := s.core.CompleteMultipartUpload(ctx, s.bucket, key, uploadID, parts, opts)
	if err != nil {
		return Object{}, s.fail(fmt.Sprintf("completing the upload of %q", key), key, err)
	}
	info.Size = total
	return uploaded(key, info, opts), nil
}

func uploaded(key string, info minio.UploadInfo, opts minio.PutObjectOptions) Object {
	modified := info.LastModified
	if modified.IsZero() {
		modified = time.Now()
	}
	return Object{Key: key, Size: info.Size, ContentType: opts.ContentType, ETag: info.ETag, Modified: modified.UTC()}
}

// abort drops the parts of a failed upload. It runs on its own short
// deadline so that it happens even when the caller's context is what ended
// the upload; if the endpoint is down, the upload is remembered and Ping
// aborts it once the endpoint answers again.
func (s *S3) abort(ctx context.Context, key, uploadID string) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	err := s.core.AbortMultipartUpload(actx, s.bucket, key, uploadID)
	if err == nil || minio.ToErrorResponse(err).Code == "NoSuchUpload" {
		return
	}
	slog.Warn("storage: could not abort an unfinished S3 upload; it will be retried once the endpoint answers",
		"endpoint", s.endpoint, "bucket", s.bucket, "key", key, "err", err)
	s.mu.Lock()
	if len(s.orphans) < maxOrphans {
		s.orphans[uploadID] = key
	}
	s.mu.Unlock()
}

// abortOrphans retries the aborts that failed earlier, within ctx.
func (s *S3) abortOrphans(ctx context.Context) {
	s.mu.Lock()
	pending := make(map[string]string, len(s.orphans))
	for id, key := range s.orphans {
		pending[id] = key
	}
	s.mu.Unlock()
	for id, key := range pending {
		if ctx.Err() != nil {
			return
		}
		err := s.core.AbortMultipartUpload(ctx, s.bucket, key, id)
		if err != nil && minio.ToErrorResponse(err).Code != "NoSuchUpload" {
			continue
		}
		s.mu.Lock()
		delete(s.orphans, id)
		s.mu.Unlock()
	}
}

// Get fetches the object. The returned reader streams from the endpoint and
// stops working when ctx ends, so keep ctx alive until it is read.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	if err := ValidKey(key); err != nil {
		return nil, Object{}, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, Object{}, s.fail(fmt.Sprintf("reading %q", key), key, err)
	}
	// GetObject is lazy; Stat sends the request and surfaces a missing key.
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, Object{}, s.fail(fmt.Sprintf("reading %q", key), key, err)
	}
	return obj, described(info), nil
}

func (s *S3) openSeeker(ctx context.Context, key string) (io.ReadSeekCloser, Object, error) {
	rc, obj, err := s.Get(ctx, key)
	if err != nil {
		return nil, Object{}, err
	}
	return rc.(*minio.Object), obj, nil
}

// Stat describes the object without reading it.
func (s *S3) Stat(ctx context.Context, key string) (Object, error) {
	if err := ValidKey(key); err != nil {
		return Object{}, err
	}
	info, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Object{}, s.fail(fmt.Sprintf("looking up %q", key), key, err)
	}
	return described(info), nil
}

func described(info minio.ObjectInfo) Object {
	return Object{Key: info.Key, Size: info.Size, ContentType: info.ContentType, ETag: info.ETag, Modified: info.LastModified.UTC()}
}

// Delete removes the object; a missing key is not an error.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	if err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{}); err != nil {
		return s.fail(fmt.Sprintf("deleting %q", key), key, err)
	}
	return nil
}

// Ping checks that the bucket answers with the configured credentials, and
// then finishes the clean-up of uploads that failed during an outage.
func (s *S3) Ping(ctx context.Context) error {
	exists, err := s.client.BucketExists(ctx, s.bucket)
	if err != nil {
		return s.fail(fmt.Sprintf("checking bucket %q", s.bucket), "", err)
	}
	if !exists {
		return fmt.Errorf("storage: the bucket %q no longer exists on %s", s.bucket, s.endpoint)
	}
	s.abortOrphans(ctx)
	return nil
}

// fail turns a minio-go error into a sentence, marking with ErrNotFound and
// ErrUnavailable the cases callers act on. doing describes the operation,
// such as `storing "files/a.pdf"`.
func (s *S3) fail(doing, key string, err error) error {
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode != 0 {
		switch {
		case resp.Code == "NoSuchKey":
			return notFound(key)
		case resp.Code == "NoSuchBucket":
			return fmt.Errorf("storage: the bucket %q does not exist on %s (while %s)", s.bucket, s.endpoint, doing)
		case resp.Code == "AccessDenied" || resp.Code == "InvalidAccessKeyId" || resp.Code == "SignatureDoesNotMatch":
			return fmt.Errorf("storage: the S3 endpoint %s refused the credentials while %s; check the access key, the secret key and their rights on bucket %q: %w", s.endpoint, doing, s.bucket, err)
		case resp.StatusCode == http.StatusInternalServerError || resp.StatusCode == http.StatusBadGateway ||
			resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
			return unavailable(fmt.Sprintf("storage: the S3 endpoint %s is not serving requests (HTTP %d) while %s", s.endpoint, resp.StatusCode, doing), err)
		}
		return fmt.Errorf("storage: the S3 endpoint %s refused %s: %w", s.endpoint, doing, err)
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("storage: %s was abandoned: %w", doing, err)
	case errors.Is(err, context.DeadlineExceeded):
		return unavailable(fmt.Sprintf("storage: the S3 endpoint %s did not answer in time while %s", s.endpoint, doing), err)
	}
	var uerr *url.Error
	var nerr net.Error
	if errors.As(err, &uerr) || errors.As(err, &nerr) || errors.Is(err, io.ErrUnexpectedEOF) {
		return unavailable(fmt.Sprintf("storage: the S3 endpoint %s is unreachable while %s", s.endpoint, doing), err)
	}
	return fmt.Errorf("storage: %s on the S3 endpoint %s failed: %w", doing, s.endpoint, err)
}

// fill reads into buf until it is full or r ends, and reports which. Unlike
// io.ReadFull it never mistakes a reader's own io.ErrUnexpectedEOF (a
// truncated stream) for a clean end.
func fill(r io.Reader, buf []byte) (n int, ended bool, err error) {
	for empty := 0; n < len(buf); {
		m, err := r.Read(buf[n:])
		n += m
		switch {
		case err == io.EOF:
			return n, true, nil
		case err != nil:
			return n, false, err
		case m == 0:
			if empty++; empty > 100 {
				return n, false, io.ErrNoProgress
			}
		default:
			empty = 0
		}
	}
	return n, false, nil
}
