package meta

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestMedia(t *testing.T) {
	tests := []struct {
		name, html string
		video      []MediaCandidate
		audio      []MediaCandidate
	}{
		{"og:video with its structured properties, the secure URL first",
			`<meta property="og:video" content="http://cdn.example.com/clip.mp4"><meta property="og:video:secure_url" content="https://cdn.example.com/clip.mp4">
			<meta property="og:video:type" content="video/mp4"><meta property="og:video:width" content="1280"><meta property="og:video:height" content="720">`,
			[]MediaCandidate{
				{URL: "https://cdn.example.com/clip.mp4", Type: "mp4", Width: 1280, Height: 720, Source: "og:video:secure_url"},
				{URL: "http://cdn.example.com/clip.mp4", Type: "mp4", Width: 1280, Height: 720, Source: "og:video"},
			}, nil},
		{"an og:video that is a player page is no video file",
			`<meta property="og:video:url" content="https://player.example.com/embed/1"><meta property="og:video:type" content="text/html">
			<meta property="og:video:url" content="/files/1.webm"><meta property="og:video:type" content="video/webm">`,
			[]MediaCandidate{{URL: "https://media.example.org/files/1.webm", Type: "webm", Source: "og:video"}}, nil},
		{"a Flash og:video is no video file",
			`<meta property="og:video" content="https://cdn.example.com/p.swf"><meta property="og:video:type" content="application/x-shockwave-flash">`,
			nil, nil},
		{"twitter:player:stream with its content type and the player's size",
			`<meta name="twitter:player:stream" content="https://cdn.example.com/stream"><meta name="twitter:player:stream:content_type" content="video/mp4; codecs=&quot;avc1&quot;">
			<meta name="twitter:player:width" content="480"><meta name="twitter:player:height" content="270">`,
			[]MediaCandidate{{URL: "https://cdn.example.com/stream", Type: "mp4", Width: 480, Height: 270, Source: "twitter:player:stream"}}, nil},
		{"JSON-LD VideoObject and AudioObject, nested ones included, with ISO 8601 durations",
			`<script type="application/ld+json">[{"@type":"VideoObject","contentUrl":"https://cdn.example.com/talk.mp4","width":"1920","height":1080,"duration":"PT1H2M3.5S"},
			{"@type":"PodcastEpisode","associatedMedia":{"@type":"AudioObject","contentUrl":"/ep1.mp3","duration":"PT30M"}}]</script>`,
			[]MediaCandidate{{URL: "https://cdn.example.com/talk.mp4", Type: "mp4", Width: 1920, Height: 1080, Duration: 3723.5, Source: "json-ld:videoobject"}},
			[]MediaCandidate{{URL: "https://media.example.org/ep1.mp3", Type: "mp3", Duration: 1800, Source: "json-ld:audioobject"}}},
		{"the page's own <video> and <audio> sources",
			`<video width="640" height="360" src="/a.webm"><source src="/a.mp4" type="video/mp4"></video>
			<audio><source src="song.ogg" type="audio/ogg"><source src="song.mp3"></audio>`,
			[]MediaCandidate{
				{URL: "https://media.example.org/a.webm", Type: "webm", Width: 640, Height: 360, Source: "video:src"},
				{URL: "https://media.example.org/a.mp4", Type: "mp4", Width: 640, Height: 360, Source: "video:source"},
			},
			[]MediaCandidate{
				{URL: "https://media.example.org/song.ogg", Type: "ogg", Source: "audio:source"},
				{URL: "https://media.example.org/song.mp3", Type: "mp3", Source: "audio:source"},
			}},
		{"og:audio with a secure URL and a duration",
			`<meta property="og:audio" content="http://cdn.example.com/a.mp3"><meta property="og:audio:secure_url" content="https://cdn.example.com/a.mp3"><meta property="og:audio:type" content="audio/mpeg">`,
			nil,
			[]MediaCandidate{
				{URL: "https://cdn.example.com/a.mp3", Type: "mp3", Source: "og:audio:secure_url"},
				{URL: "http://cdn.example.com/a.mp3", Type: "mp3", Source: "og:audio"},
			}},
		{"one file declared twice is one candidate, and a data: URI none",
			`<meta property="og:video" content="https://cdn.example.com/v.mp4"><video src="https://cdn.example.com/v.mp4"></video><video src="data:video/mp4;base64,AAAA"></video>`,
			[]MediaCandidate{{URL: "https://cdn.example.com/v.mp4", Type: "mp4", Source: "og:video"}}, nil},
		{"an audio file declared as video is not a video", `<video><source src="/x.mp3" type="audio/mpeg"></video>`, nil, nil},
		{"a page of many videos offers the first few",
			manyVideos(20), nil, nil},
	}
	base, _ := url.Parse("https://media.example.org/page")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := parse(t, "<html><head>"+tc.html+"</head><body></body></html>")
			video, audio := Media(doc, base)
			if strings.HasPrefix(tc.name, "a page of many") {
				if len(video) != maxMediaCandidates {
					t.Errorf("%d video candidates, want %d", len(video), maxMediaCandidates)
				}
				return
			}
			checkMedia(t, "video", video, tc.video)
			checkMedia(t, "audio", audio, tc.audio)
		})
	}
}

func manyVideos(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(`<video src="/v` + string(rune('a'+i)) + `.mp4"></video>`)
	}
	return b.String()
}

func checkMedia(t *testing.T, kind string, got, want []MediaCandidate) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d candidates %+v, want %+v", kind, len(got), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s %d: %+v, want %+v", kind, i, got[i], want[i])
		}
	}
}

func TestISODuration(t *testing.T) {
	for in, want := range map[string]float64{"PT90S": 90, "PT1M30S": 90, "P1DT1S": 86401, "pt2h": 7200, "125": 125, "PT": 0, "P": 0, "1:30": 0, "PT-5S": 0, "": 0} {
		if got := isoDuration(in); got != want {
			t.Errorf("isoDuration(%q) = %g, want %g", in, got, want)
		}
	}
}

func parse(t *testing.T, page string) *goquery.Document {
	t.Helper()
	doc, err := ParseDocument(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
