package markdown

import (
	"net/url"
	"regexp"
	"strings"
)

// Advertising reaches a page as pictures served by ad servers: a banner
// inside the article is no part of what it says. An ad server is known by
// the shape of its address, whoever runs it: a host named for ads
// ("ads.", "adserver.", "ad3."), a folder named for them ("/ads/",
// "/adserver/", "/pagead/"), or the delivery scripts of the common
// self-hosted servers ("/delivery/avw.php").

// adHostLabelRe matches a label of a host that serves advertising.
var adHostLabelRe = regexp.MustCompile(`^ad(?:s|v|x|server|serve|servers|srv|service|services|img|images|click|clicks|track|tech|banner|banners|cdn|static|media)?\d*$`)

// adPathSegments are folders of an address that hold advertising.
var adPathSegments = map[string]bool{
	"ads": true, "ad": true, "adserver": true, "adserve": true, "adservice": true, "adclick": true, "adview": true,
	"adimg": true, "adimages": true, "adbanner": true, "adbanners": true, "ad-banners": true, "ad_banners": true,
	"banner-ads": true, "banner_ads": true, "bannerads": true, "adverts": true, "advert": true,
	"advertisement": true, "advertisements": true, "advertising": true, "pagead": true, "sponsored-ads": true,
}

// adDeliveryRe matches the scripts that deliver the banners of
// self-hosted ad servers.
var adDeliveryRe = regexp.MustCompile(`(?i)/delivery/(?:avw|ajs|lg|ck|afr|al|spc|spcjs)\.php$`)

// adImage reports a picture an ad server serves.
func adImage(u *url.URL) bool {
	labels := strings.Split(strings.ToLower(u.Hostname()), ".")
	// The last two labels name the site ("ads.com" may sell anything);
	// the ones before name its servers.
	for i := 0; i+2 < len(labels); i++ {
		if adHostLabelRe.MatchString(labels[i]) {
			return true
		}
	}
	p := strings.ToLower(u.Path)
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, s := range segs[:max(0, len(segs)-1)] { // folders, not the file's own name
		if adPathSegments[s] {
			return true
		}
	}
	return adDeliveryRe.MatchString(p)
}
