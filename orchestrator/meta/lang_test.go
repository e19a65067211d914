package meta

import "testing"

func TestLang(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"html lang with a region is reduced to the language", `<html lang="en-US"><head></head></html>`, "en"},
		{"html lang wins over og:locale", `<html lang="de"><head><meta property="og:locale" content="en_US"></head></html>`, "de"},
		{"upper case is lowered", `<html lang="PT-BR"></html>`, "pt"},
		{"xml:lang is read", `<html xml:lang="fr"></html>`, "fr"},
		{"og:locale with an underscore is read", `<meta property="og:locale" content="es_ES">`, "es"},
		{"Content-Language is read", `<meta http-equiv="Content-Language" content="it-IT, en">`, "it"},
		{"a three-letter code becomes ISO 639-1", `<html lang="eng"></html>`, "en"},
		{"the JSON-LD inLanguage is read", `<script type="application/ld+json">{"@type":"Article","inLanguage":"ru-RU"}</script>`, "ru"},
		{"microdata inLanguage is read", `<meta itemprop="inLanguage" content="uk">`, "uk"},
		{"Dublin Core language is read", `<meta name="DC.language" content="nl">`, "nl"},
		{"an invalid html lang falls through to og:locale", `<html lang="english!"><head><meta property="og:locale" content="en_GB"></head></html>`, "en"},
		{"x-default names no language", `<html lang="x-default"></html>`, ""},
		{"und names no language", `<html lang="und"></html>`, ""},
		{"a language without a two-letter code is left out", `<html lang="haw"></html>`, ""},
		{"a page without a language has none", `<p>x</p>`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := value(extractHTML(t, tt.html).Lang); got != tt.want {
				t.Errorf("lang = %q, want %q", got, tt.want)
			}
		})
	}
}
