package render

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/glimpse/glimpse/cdp"
)

// pageWatch follows a leased page for as long as the lease is held: it
// dismisses every JavaScript dialog, whenever it opens (a dialog blocks
// the page's main thread, and with it the DOM read, the PDF and the
// screenshot), and notes a crash of the page's renderer, which is the
// page's failure, not the browser's.
type pageWatch struct {
	crashed chan struct{}
	once    sync.Once
	stop    func()
	done    chan struct{}
}

// crashWait is how long a failed step waits for the crash event that may
// explain it: the event and the failed reply travel separately.
const crashWait = 200 * time.Millisecond

func watchPage(ctx context.Context, sess *cdp.Session) *pageWatch {
	events, stop := sess.Listen("Page.javascriptDialogOpening", "Inspector.targetCrashed")
	w := &pageWatch{crashed: make(chan struct{}), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ev := range events {
			switch ev.Method {
			case "Inspector.targetCrashed":
				w.once.Do(func() { close(w.crashed) })
			case "Page.javascriptDialogOpening":
				go func() {
					dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
					defer cancel()
					_, _ = cdp.Execute(dctx, sess, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
				}()
			}
		}
	}()
	return w
}

// hasCrashed reports whether the page's renderer crashed, waiting a moment
// for the news.
func (w *pageWatch) hasCrashed() bool {
	t := time.NewTimer(crashWait)
	defer t.Stop()
	select {
	case <-w.crashed:
		return true
	case <-t.C:
		return false
	}
}

// close stops watching.
func (w *pageWatch) close() {
	w.stop()
	<-w.done
}

// crashError is the page's own renderer dying: not retried elsewhere.
func crashError() error {
	return unreadable("The page crashed the browser tab while rendering (it may use too much memory).")
}
