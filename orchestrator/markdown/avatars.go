package markdown

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// A person's avatar beside their name (a commenter's, a poster's, the
// writer's in a byline) says nothing the name does not: in a thread it is
// a picture per post, noise between the posts. An avatar is known by its
// address, as every site names it (gravatar.com,
// avatars.githubusercontent.com, /avatars/123.png, jane-avatar.jpg,
// Twitter's /profile_images/), or by its description ("Jane's user
// avatar", "Avatar for jane").

// avatarAltRe matches the description of an avatar.
var avatarAltRe = regexp.MustCompile(`(?i)^(?:(?:user|member|author)\s+)?avatar$|\buser\s+avatar\b|['’]s\s+avatar\b|\bavatar\s+(?:for|of)\b|['’]s\s+profile\s+(?:picture|photo|image)\b`)

// avatarNameRe matches a file or folder named for avatars: the word alone
// or joined to others with dashes, underscores or dots.
var avatarNameRe = regexp.MustCompile(`(?i)(?:^|[-_.])(?:avatars?|useravatars?|profile_images|profile-images)(?:$|[-_.])`)

// avatarImage reports a picture that is a person's avatar.
func avatarImage(src, alt string) bool {
	if avatarAltRe.MatchString(strings.TrimSpace(alt)) {
		return true
	}
	u, err := url.Parse(src)
	if err != nil {
		return false
	}
	for label := range strings.SplitSeq(strings.ToLower(u.Hostname()), ".") {
		if label == "gravatar" || label == "avatars" || label == "avatar" {
			return true
		}
	}
	for seg := range strings.SplitSeq(u.Path, "/") {
		if avatarNameRe.MatchString(seg) {
			return true
		}
	}
	return false
}

// siteIconNameRe matches the file name of a site's icon: favicon.ico,
// favicon-32x32.png, apple-touch-icon-192x192.png; after the name, only
// sizes, versions and short codes, not the words of a picture about
// icons (favicon-design-guide.jpg).
var siteIconNameRe = regexp.MustCompile(`(?i)^(?:favicon|apple-touch-icon)(?:[-_.@](?:[a-z]{1,3}|[a-z]*[0-9][a-z0-9]*))*\.(?:ico|png|svg|gif|jpe?g|webp)$`)

// siteIconImage reports the icon of a site, which link previews show
// beside the name of the site they lead to (a forum's unfurled link, a
// blog's bookmark card): the site's mark, not a picture of the page. An
// image proxy's address is read for the address it carries.
func siteIconImage(src string) bool {
	u, err := url.Parse(src)
	if err != nil {
		return false
	}
	if siteIconNameRe.MatchString(path.Base(u.Path)) {
		return true
	}
	for _, vs := range u.Query() {
		for _, v := range vs {
			if inner, err := url.Parse(v); err == nil && inner.Host != "" && siteIconNameRe.MatchString(path.Base(inner.Path)) {
				return true
			}
		}
	}
	return false
}
