package meta

import "testing"

// TestUndoLatin1 covers text decoded twice: UTF-8 read once more as
// Latin-1 is read back, and text that only looks like it is left alone.
func TestUndoLatin1(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"an apostrophe", "A DIY Investor\u00e2\u0080\u0099s Guide", "A DIY Investor\u2019s Guide"},
		{"a dash between words", "itertools \u00e2\u0080\u0094 Functions creating iterators", "itertools \u2014 Functions creating iterators"},
		{"a no-break space beside a mis-decoded dash", "Looping\u00c2\u00a0\u00e2\u0080\u0093 more", "Looping\u00a0\u2013 more"},
		{"accented letters in the same string", "Caf\u00c3\u00a9 \u00e2\u0080\u009cLe Monde\u00e2\u0080\u009d", "Caf\u00e9 \u201cLe Monde\u201d"},
		{"Latin-1 letters without a C1 control are text", "Ã la carte, déjà vu", "Ã la carte, déjà vu"},
		{"a run that is not UTF-8 is left as it is", "na\u00efve \u0085 text", "na\u00efve \u0085 text"},
		{"text beyond Latin-1 is kept beside a repaired run", "東京 \u00e2\u0080\u0094 Tokyo", "東京 \u2014 Tokyo"},
		{"a mis-decoded pilcrow without a C1 control", "Itertool Functions\u00c2\u00b6", "Itertool Functions\u00b6"},
		{"mis-decoded no-break spaces", "with your forearms.\u00c2\u00a0\u00c2\u00a0 Next", "with your forearms.\u00a0\u00a0 Next"},
		{"a mis-decoded accented letter", "a d\u00c3\u00a9tente", "a d\u00e9tente"},
		{"a letter before a closing guillemet is text", "«L'ÉTÉ» et «PARIS»", "«L'ÉTÉ» et «PARIS»"},
		{"Ã before a letter is text", "SÃO PAULO, NÃO", "SÃO PAULO, NÃO"},
		{"ß before a no-break space is text", "Grüße\u00a0aus Straß\u00a0Berlin", "Grüße\u00a0aus Straß\u00a0Berlin"},
		{"quotes and dashes mis-decoded through Windows-1252", "weâ€™ve seen it â€” â€œThings Can Only Get Betterâ€\u009d",
			"we\u2019ve seen it \u2014 \u201cThings Can Only Get Better\u201d"},
		{"a true quotation mark beside a mis-decoded one", "isnâ€™t \u2019quoted\u2019", "isn\u2019t \u2019quoted\u2019"},
		{"the euro sign after a letter without the signature is text", "Prix: 5 â‚¬, fête", "Prix: 5 â‚¬, fête"},
		{"plain text", "Plain text", "Plain text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := undoLatin1(tt.in); got != tt.want {
				t.Errorf("undoLatin1(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestMisDecodedPagesAreReadBack: the title, the description and the text
// of a page whose UTF-8 was decoded twice read as the page meant them.
func TestMisDecodedPagesAreReadBack(t *testing.T) {
	res := extractHTML(t, "<html><head><title>A DIY Investor\u00e2\u0080\u0099s Guide</title>"+
		"<meta name=\"description\" content=\"Rates \u00e2\u0080\u0094 and fees\"></head><body><p>Text.</p></body></html>")
	if got := value(res.Title); got != "A DIY Investor\u2019s Guide" {
		t.Errorf("title = %q", got)
	}
	if got := value(res.Description); got != "Rates \u2014 and fees" {
		t.Errorf("description = %q", got)
	}
}
