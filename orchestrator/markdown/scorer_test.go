package markdown

import "github.com/glimpse/glimpse/orchestrator/markdown/internal/score"

// The scorers live in internal/score, where the block model's trainer
// scores its folds with them too.
var (
	scoreText    = score.Text
	scoreCompare = score.Compare
	scoreTokens  = score.Tokens
	wcxbTokens   = score.WCXBTokens
	wcxbF1       = score.WCXBF1
	snippetRate  = score.SnippetRate
)
