// Package render owns the browser steps of a request: a plain fetch when
// the page allows it, else a leased page that is emulated, navigated,
// waited for, acted on and read, then handed to the caller while the
// lease is held; PDF and screenshot capture, streams, forwarded headers.
// It returns typed errors (*Error with a Kind), never API codes or HTTP
// statuses. It imports query, meta, pool and cdp; never answer, api or Echo.
package render
