package answer

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/PuerkitoBio/goquery"

	"github.com/glimpse/glimpse/orchestrator/apierr"
	"github.com/glimpse/glimpse/orchestrator/document"
	"github.com/glimpse/glimpse/orchestrator/meta"
	"github.com/glimpse/glimpse/orchestrator/query"
	"github.com/glimpse/glimpse/orchestrator/render"
)

// fileMetadata is the metadata of a target that is a file: its name (or
// a PDF's own title) as the title, its Last-Modified as the date and
// dateModified (a file states no publication date), the
// file itself as the image of an image target, and a video or audio
// object for those. A document's own properties (props, nil for other
// files) come first: title, author, language, created and modified. A
// file has no description, publisher or logo.
func fileMetadata(req *query.Request, p *render.Page, embeds map[string]string, props *document.Document) data {
	f := p.File
	self := p.URL.String()
	var title, author, lang string
	var created, modified any
	if props != nil {
		title, author, lang = props.Title, props.Author, meta.NormalizeLang(props.Lang)
		if !props.Created.IsZero() {
			created = meta.FormatDate(props.Created)
		}
		if !props.Modified.IsZero() {
			modified = meta.FormatDate(props.Modified)
		}
	}
	if f.MediaType == "application/pdf" && (title == "" || author == "") {
		t, a := meta.PDFInfo(f.Head)
		title, author = cmp.Or(title, t), cmp.Or(author, a)
	}
	if title == "" {
		title = meta.FileName(p.URL, f.Disposition)
	}
	kind, _, _ := strings.Cut(f.MediaType, "/")
	var image, media *Asset
	switch kind {
	case "image":
		image = fileAsset(self, f)
		if typ, w, h, ok := meta.ImageInfo(f.Head); ok {
			if typ != "" {
				image.Type = typ
			}
			image.Width, image.Height = w, h
		}
		embeds["image.url"] = self
	case "video", "audio":
		media = fileAsset(self, f)
	}
	d := make(data, 0, len(req.Fields)+1)
	for _, name := range req.Fields {
		switch name {
		case "title":
			d = append(d, field{name, nonEmpty(title)})
		case "author":
			d = append(d, field{name, nonEmpty(author)})
		case "image":
			d = append(d, field{name, assetOrNil(image)})
		case "date":
			d = append(d, field{name, firstDate(created, modified, lastModified(f.LastModified))})
		case "datePublished":
			d = append(d, field{name, created})
		case "dateModified":
			d = append(d, field{name, firstDate(modified, lastModified(f.LastModified))})
		case "lang":
			d = append(d, field{name, nonEmpty(lang)})
		case "url":
			d = append(d, field{name, self})
		default: // description, publisher, logo: a file has none
			d = append(d, field{name, nil})
		}
	}
	if media != nil {
		d = append(d, field{kind, media})
	}
	return d
}

// fileAsset is the asset object of the target file itself.
func fileAsset(self string, f *render.File) *Asset {
	a := &Asset{URL: self, Type: meta.TypeFromContentType(f.MediaType)}
	if f.Size >= 0 {
		a.Size, a.SizePretty = f.Size, meta.PrettyBytes(f.Size)
	}
	return a
}

// firstDate is the first date known of a file's, or null.
func firstDate(dates ...any) any {
	for _, d := range dates {
		if d != nil {
			return d
		}
	}
	return nil
}

func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// lastModified is a file's Last-Modified as the API's date. The Date
// header is the time of the answer, not of the file, so it is not used.
func lastModified(h string) any {
	t, err := http.ParseTime(h)
	if err != nil {
		return nil
	}
	return meta.FormatDate(t)
}

// emptyDocument is what data rules read on a file target: every rule
// finds nothing and comes back null.
func emptyDocument() *goquery.Document {
	doc, _ := meta.ParseDocument(strings.NewReader(""))
	return doc
}

// notAPage is the caller's answer when a file the browser only downloads
// is asked to be printed or captured, or a PDF to be printed: there is no
// page to do it with.
func notAPage(param string, f *render.File) error {
	// The type is the target's to choose: shown clipped and escaped.
	what := "a file (" + apierr.Show(f.MediaType) + "), not a page, so there is nothing to " +
		map[string]string{"pdf": "print", "screenshot": "capture"}[param]
	if param == "pdf" && f.MediaType == "application/pdf" {
		what = "a PDF already"
	}
	e := apierr.New(apierr.CodeInvalidQuery, "The target is "+what+
		"; drop `"+param+"`, and the answer describes the file, whose address is `data.url`.")
	e.Param = param
	e.Data = map[string]any{param: true}
	return e
}
