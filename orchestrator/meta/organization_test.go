package meta

import "testing"

func TestIsOrganization(t *testing.T) {
	tests := []struct {
		name, html, author string
		want               bool
	}{
		{"a person is no organisation", ``, "Jane Doe", false},
		{"a name with Inc. is a company", ``, "Acme Media Inc.", true},
		{"a name with LLC is a company", ``, "Example Holdings LLC", true},
		{"a name ending in Media is a company", ``, "Northwind Media", true},
		{"a German legal form in capitals is a company", ``, "Beispiel Verlag AG", true},
		{"a Japanese company marker makes a company", ``, "株式会社サンプル", true},
		{"a Chinese company marker makes a company", ``, "示例科技有限公司", true},
		{"a news agency is an organisation", ``, "Associated Press", true},
		{"a newsroom is an organisation", ``, "Redaktion Politik", true},
		{"an editorial board is an organisation", ``, "The Editorial Board", true},
		{"a staff attribution is an organisation", ``, "Example Staff", true},
		{"the site's declared name is the site", `<meta property="og:site_name" content="The Daily Example">`, "The Daily Example", true},
		{"the domain's name is the site", ``, "Example", true},
		{"the copyright holder is an organisation",
			`<footer>Copyright © 2010-2024 Northwind Traders. All rights reserved.</footer>`, "Northwind Traders", true},
		{"the start of a longer copyright holder counts",
			`<footer><p>© 2024 Northwind Traders Group, Terms of use</p></footer>`, "Northwind Traders", true},
		{"a year after the copyright holder is no part of it",
			`<footer>© Jane Doe 2012-2024</footer>`, "Jane Doe", true},
		{"a copyright notice in the meta tags counts", `<meta name="copyright" content="(c) 2024 Fabrikam">`, "Fabrikam", true},
		{"a person who is not the holder stays a person",
			`<footer>© 2024 Northwind Traders</footer>`, "Jane Doe", false},
		{"a lower-case form word inside a name is no legal form", ``, "Sa Ab", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPage(parseHTML(t, tt.html), mustURL(t, "https://www.example.com/a"), testNow)
			if got := p.isOrganization(tt.author, ""); got != tt.want {
				t.Errorf("isOrganization(%q) = %v, want %v", tt.author, got, tt.want)
			}
		})
	}
}

func TestIsHandle(t *testing.T) {
	for in, want := range map[string]bool{
		"@janedoe": true, "jane_doe": true, "user7567": true, "BT_India": true,
		"Jane Doe": false, "Madonna": false, "J.R.R. Tolkien": false, "Jane Doe 2": false,
	} {
		if got := isHandle(in); got != want {
			t.Errorf("isHandle(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestLooksLikeName(t *testing.T) {
	tests := []struct {
		name, in string
		oneWord  bool
		want     bool
	}{
		{"two capitalised words are a name", "Jane Doe", false, true},
		{"a name with a particle is a name", "Ludwig van Beethoven", false, true},
		{"a name in capitals is a name", "NATALIYA VASILYEVA", false, true},
		{"one word is no name unless allowed", "Sleyca", false, false},
		{"one word is a name where allowed", "Sleyca", true, true},
		{"lower-case words are no name", "read the whole story", false, false},
		{"button labels are no name", "Share Tweet Email", false, false},
		{"a repeated word is no name", "Follow Follow", false, false},
		{"a sentence is no name", "This is the end.", false, false},
		{"digits are no name", "Jane Doe 2", false, false},
		{"seven words are no name", "One Two Three Four Five Six Seven", false, false},
		{"a name with a suffix is a name", "Martin Luther King Jr.", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := looksLikeName(tt.in, tt.oneWord); got != tt.want {
				t.Errorf("looksLikeName(%q, %v) = %v, want %v", tt.in, tt.oneWord, got, tt.want)
			}
		})
	}
}
