// Package overlay composes a captured screenshot into a browser window
// frame placed on a background, as Microlink's `screenshot.overlay` does:
// it reads the CSS the caller gives for the background (a colour, a linear
// or radial gradient, or an image URL) and draws the picture. It knows
// nothing of HTTP, browsers or storage; fetching a background image is the
// caller's job, and so is encoding the result.
package overlay
