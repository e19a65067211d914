package markdown

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Account prompts: the links and lines a site puts in its pages for its
// accounts, "Log in", "Sign up", "Register", "You must log in to answer
// this question". On a thread or a question they come back with every
// post; they are the site's controls, not the page's words. A heading or
// a sentence that speaks of signing in (a guide's "Sign in" step) is text
// and stays: only a link standing alone, or a line that asks the reader
// to sign in to do something on the page, is a prompt.

// accountAction is an account action, in the common languages of the web.
const accountAction = `(?:log ?in|login|log ?out|sign ?in|sign ?up|sign ?out|register(?: (?:a |an )?(?:new |free )?account)?|create (?:an |your |a )?(?:new |free )?account|join (?:now|us|free|today)|my account|` +
	`anmelden|einloggen|registrieren|abmelden|se connecter|connexion|s'inscrire|inscription|iniciar sesi[oó]n|registrarse|reg[ií]strate|` +
	`entrar|cadastre-se|accedi|registrati|inloggen|registreren|zaloguj si[eę]|zarejestruj si[eę])`

var (
	// accountLinkRe is the whole text of a link that is an account
	// control: one action, or two joined ("Log in or sign up").
	accountLinkRe = regexp.MustCompile(`(?i)^` + accountAction + `(?:\s*(?:or|/|\||·|oder|ou|o|of|lub)\s*` + accountAction + `)?(?:\s+(?:now|here|today))?[.!]?$`)
	// accountPromptRe is the whole text of a line asking the reader to
	// sign in to do something on the page ("You must log in to reply",
	// "You need to be a member in order to leave a comment"), a heading
	// too ("Create an account or sign in to comment").
	accountPromptRe = regexp.MustCompile(`(?i)^(?:you (?:must|need to|have to) |please )?(?:` + accountAction + `|be (?:a |an )?(?:registered )?member|be (?:logged|signed) in)` +
		`(?:\s*(?:or|/)\s*` + accountAction + `)?\s+(?:to|in order to)\s+(?:reply|answer|comment|post|vote|view|see|read|download|ask|participate|continue|react|like|rate|leave|write|save|add|follow|bookmark|track|set|share|access|edit|report|message)\b[^.!?]*[.!]?$`)
	// accountOfferRe is the whole text of a line, not a heading, offering
	// the reader an account ("Sign up for a new account in our community.
	// It's easy!") or, having one, to sign in ("Already have an account?
	// Sign in here."). A guide's heading "Sign up for a free account" is
	// a step of the guide.
	accountOfferRe = regexp.MustCompile(`(?i)^(?:sign up for an? (?:new |free )?account(?:\s+(?:in|on|with|at)\s+[^.!?]+)?[.!]?(?:\s*it'?s (?:easy|free|quick)[^.!?]*[.!]?)?` +
		`|already (?:have an account|a member|registered)\s*\??\s*(?:` + accountAction + `(?:\s+(?:here|now))?[.!]?)?)$`)
)

// maxPromptWords is the most words an account prompt has, and
// maxPromptText the most text, in bytes.
const (
	maxPromptWords = 14
	maxPromptText  = 160
)

// dropAccountPrompts removes the account links that stand alone, the
// lines that ask the reader to sign in, and a form's fine print, under
// root.
func dropAccountPrompts(root *html.Node) {
	// A forum laid out in tables prompts inside them.
	dropLines(root, maxPromptText, nil, func(n *html.Node) bool {
		return n.DataAtom == atom.A || promptElement(n)
	}, func(n *html.Node, text string) bool {
		if countWords(text) > maxPromptWords || !mayNameAccount(text) {
			return false
		}
		return n.DataAtom == atom.A && accountLinkRe.MatchString(text) && standsAlone(n) ||
			promptLine(n) && (accountPromptRe.MatchString(text) || newsletterPromptRe.MatchString(text) || feedbackPromptRe.MatchString(text) ||
				socialPromptRe.MatchString(text) ||
				headingLevel(n) == 0 && accountOfferRe.MatchString(text))
	})
	// The fine print of a form whose fields are gone: a line of its own
	// that speaks of what a button of the page binds the reader to. A
	// step of numbered instructions ("By clicking Next, you accept the
	// licence agreement") is the guide's.
	dropLines(root, maxTermsText, []atom.Atom{atom.Ol}, promptElement, func(n *html.Node, text string) bool {
		return len(text) > 3 && strings.EqualFold(text[:3], "by ") && promptLine(n) && formTermsRe.MatchString(text) && termsWordRe.MatchString(text)
	})
}

// formTermsRe opens the fine print under a form's button, the terms the
// button binds the reader to: "By clicking “Post Your Answer”, you agree
// to our terms of service", "By subscribing, you agree to receive
// marketing emails", "By continuing, you agree to our User Agreement".
var formTermsRe = regexp.MustCompile(`(?i)^by (?:clicking|pressing|tapping|submitting|continuing|proceeding|signing up|registering|subscribing|` +
	`creating|entering|providing|completing|checking|selecting|using this form)\b[^.!?]{0,120}?\byou\b[^.!?]{0,40}?\b` +
	`(?:agree|consent|accept|acknowledge|confirm|authori[sz]e|declare)`)

// termsWordRe names what such fine print binds the reader to; "By
// continuing to invest, you accept more risk" names none of it.
var termsWordRe = regexp.MustCompile(`(?i)\b(?:terms|privacy|policy|policies|conditions|agreement|cookies|marketing|e-?mails|messages|` +
	`newsletters?|contacted|guidelines|rules|code of conduct)\b`)

// maxTermsText is the most text, in bytes, of a form's fine print.
const maxTermsText = 600

// feedbackPromptRe is the whole text of the line of a page's feedback
// widget, its question or its thanks: "Was this helpful?", "Was this
// article helpful for you?", "Thank you for your feedback".
var feedbackPromptRe = regexp.MustCompile(`(?i)^(?:(?:was|is|did you find)\s+this(?:\s+(?:page|article|answer|information|content|post|guide|section|topic|documentation))?` +
	`\s+(?:helpful|useful)(?:\s+(?:to|for)\s+you)?\s*\??|(?:thank you|thanks)\s+for\s+(?:your\s+)?feedback\b.*)$`)

// newsletterPromptRe is the whole text of a line that asks the reader to
// join the site's mailing list, what a newsletter box leaves behind once
// its form is gone: "Join our newsletter", "Sign up for our weekly
// newsletter!", "Subscribe to the Example Newsletter", "Subscribe to our
// mailing list", "Subscribe to get the latest posts sent to your email",
// "Subscribe here".
var newsletterPromptRe = regexp.MustCompile(`(?i)^(?:(?:join|subscribe to|sign up (?:for|to)|get|receive)\s+(?:(?:our|the)\s+)?` +
	`(?:[\p{L}\d&'’.-]+\s+){0,3}(?:newsletters?|mailing list|e-?mail list)|` +
	`subscribe to (?:get|receive) (?:the latest|new|our|all)(?:\s+\S+){0,4}?\s+(?:posts|articles|stories|news|updates)(?:\s+(?:sent\s+)?(?:to|in) your (?:e-?mail|inbox))?|` +
	`subscribe(?:\s+(?:here|now|today))?)\s*[.!]*$`)

// socialPromptRe is the whole text of a line that asks the reader to
// follow the site or its writer elsewhere, with the handle or the address
// at most: "Follow me on Instagram: @leafandloam", "Join the Facebook
// group – https://…", "Like us on Facebook!".
var socialPromptRe = regexp.MustCompile(`(?i)^(?:follow|join|find|like|connect with|subscribe to)\s+(?:(?:me|us|our|the)\s+)?(?:on\s+)?` +
	`(?:instagram|facebook|tiktok|twitter|x|youtube|linkedin|pinterest|threads|bluesky|mastodon)(?:\s+(?:group|page|channel|account))?` +
	`\s*[:!.–—-]*\s*(?:@\S+(?:\s\S+){0,3}|https?://\S+)?\s*$`)

// promptLine reports an element that is a line of its own: a paragraph, a
// list entry or a box that holds nothing else, or a heading.
func promptLine(n *html.Node) bool {
	return promptElement(n) && (headingLevel(n) > 0 || soleText(n))
}

// promptElement reports the elements a prompt's line may be.
func promptElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.P, atom.Div, atom.Li, atom.Span, atom.Section, atom.Footer,
		atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

// accountStems are in every account action of accountAction and every
// newsletter or feedback prompt, lower-cased: a text holding none is no
// prompt, and needs no regular expression.
var accountStems = []string{"log", "sign", "regist", "account", "member", "join", "anmeld", "einlogg", "abmeld", "connex", "connect",
	"inscri", "sesi", "regíst", "entrar", "cadastr", "accedi", "inlogg", "zalog", "zarejestr",
	"subscri", "newsletter", "mailing", "helpful", "useful", "feedback", "follow", "instagram", "facebook", "tiktok", "twitter",
	"youtube", "linkedin", "pinterest", "threads", "bluesky", "mastodon"}

// mayNameAccount reports text that holds a stem of an account action or
// of another prompt.
func mayNameAccount(text string) bool {
	t := strings.ToLower(text)
	for _, s := range accountStems {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// maxBesideScan is the most parts beside a link, at each level up to its
// block, that standsAlone reads: a hostile page may set thousands of
// links side by side.
const maxBesideScan = 64

// wordsWithin reports whether the first limit bytes of text under n hold
// a word.
func wordsWithin(n *html.Node, limit int) bool {
	read, found := 0, false
	var look func(*html.Node)
	look = func(n *html.Node) {
		for k := n.FirstChild; k != nil && !found && read <= limit; k = k.NextSibling {
			if k.Type == html.TextNode {
				read += len(k.Data)
				found = strings.IndexFunc(k.Data, wordRune) >= 0
			} else {
				look(k)
			}
		}
	}
	look(n)
	return found
}

// standsAlone reports a link with no words beside it in its parent, up to
// the nearest block: not a few words inside a sentence.
func standsAlone(a *html.Node) bool {
	for n := a; n.Parent != nil; n = n.Parent {
		seen := 0
		for k := n.Parent.FirstChild; k != nil; k = k.NextSibling {
			if k == n {
				continue
			}
			if seen++; seen > maxBesideScan {
				return false // a line of that many parts is no lone control
			}
			if k.Type == html.ElementNode && !blockTag(k) && k.DataAtom != atom.A && k.DataAtom != atom.Br && wordsWithin(k, maxPromptText) {
				return false // "<em>Sign up now</em> and <strong>save</strong>"
			}
			if k.Type == html.TextNode && countWords(k.Data) > 0 && strings.Trim(k.Data, " \t\n|·•/-–—") != "" {
				if accountLinkRe.MatchString(strings.TrimSpace(k.Data)) || strings.TrimSpace(strings.ToLower(k.Data)) == "or" {
					continue // "Log in | Register", "Sign in or register"
				}
				return false
			}
		}
		if blockTag(n.Parent) || n.Parent.DataAtom == atom.Body {
			return true
		}
	}
	return true
}
