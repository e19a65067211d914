package answer

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// recovered runs f so that a panic in it ends f alone: the goroutines that
// probe a page's assets run outside any request's recovery, where a panic
// would end the whole service. The asset f was to fill in is then left
// as it was, and the panic is logged with its stack.
func recovered(log *slog.Logger, what string, f func()) func() {
	return func() {
		defer func() {
			if v := recover(); v != nil {
				log.Error("A probe panicked; the answer goes without what it was to find.",
					"what", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			}
		}()
		f()
	}
}
