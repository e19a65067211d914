// Package documents_test asks a running glimpse for the content and
// properties of documents served on loopback: PDFs (written by hand, and
// printed by Chromium), Word, Excel, PowerPoint, OpenDocument, RTF and
// EPUB files, and documents it must refuse.
package documents_test

import (
	"testing"

	"github.com/glimpse/glimpse/orchestrator/internal/e2e"
)

// TestMain stops the glimpse that the package's tests share (e2e.Shared).
func TestMain(m *testing.M) { e2e.Main(m) }
