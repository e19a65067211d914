package meta

// ImageTypeOfURL is the image type a URL's file extension, or the format
// named in its query string, says it has; "" when neither names an image.
func ImageTypeOfURL(raw string) string { return imageTypeOnly(extType(raw)) }
