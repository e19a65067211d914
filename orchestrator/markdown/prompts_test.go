package markdown

import "testing"

func TestArticleLeavesTheSitesAccountPromptsOut(t *testing.T) {
	for _, tc := range []struct {
		name, body     string
		want, unwanted []string
	}{
		{
			name: "a thread's sign-in links and its prompt to sign in to reply go",
			body: `<div class="post"><p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p></div>` +
				`<div class="post"><p>Same here: the squeak went after a day, and the bearings have been quiet for a whole winter of riding to work since.</p></div>` +
				`<p><a href="/login">Log in</a> | <a href="/register">Register</a></p>` +
				`<p><a href="/login">You must log in or register to reply here.</a></p><p>Please <a href="/signin">sign in</a> to post.</p>`,
			want:     []string{"soaked the bearings", "quiet for a whole winter"},
			unwanted: []string{"Log in", "Register", "log in or register", "sign in"},
		},
		{
			name: "a shop's or a course's prompts to sign in to keep something go; a sentence about signing in to save stays",
			body: `<p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p>` +
				`<p><a href="/login">Log in to save to favorites</a></p><p><a href="/login">Log in to save to inventory</a></p>` +
				`<p>Sign in to save your progress and earn a certificate</p><p>Log in to follow this part</p><p>Please sign in to set a price alert.</p>` +
				`<p>Log in to the shop's site with the number on your receipt to track the parcel and save its warranty.</p>`,
			want:     []string{"soaked the bearings", "Log in to the shop's site with the number"},
			unwanted: []string{"favorites", "inventory", "your progress", "follow this part", "price alert"},
		},
		{
			name: "a guide's step about signing in, a sentence with a sign-in link and a macro named join stay",
			body: `<h2>Sign in</h2><p>Open the app and sign in with the account your school gave you; the first screen then lists your classes for the term.</p>` +
				`<p>New readers can <a href="/register">register</a> for the weekly letter, which collects the best answers of the week.</p>` +
				`<p>Wait for both tasks with <a href="/macro.join.html">join</a> or for the first with select, as the examples below show in full.</p>` +
				`<ul><li>Register to join the online events</li></ul>` +
				`<h2>Sign up for a free account</h2><p>Open the sign-up page, give your school email address and choose a password of twelve characters or more.</p>`,
			want: []string{"## Sign in", "sign in with the account", "[register](", "[join](", "Register to join the online events", "## Sign up for a free account"},
		},
		{
			name: "what a newsletter box leaves behind goes; a sentence about the newsletter stays",
			body: `<p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p>` +
				`<div class="cta-block"><h3>Join our newsletter!</h3><form action="/subscribe"><input type="email" name="email"><button>Go</button></form></div>` +
				`<p><a href="/subscribe">Subscribe to our weekly newsletter</a></p><p>Subscribe here</p>` +
				`<p>Subscribe to the Repair Notes Newsletter!</p><p>Subscribe to get the latest posts sent to your email.</p>` +
				`<p>Our newsletter collects the best repair questions of the week, and readers have sent in most of this guide's tips.</p>`,
			want:     []string{"soaked the bearings", "Our newsletter collects the best repair questions"},
			unwanted: []string{"Join our newsletter", "Subscribe to our weekly newsletter", "Subscribe here", "Repair Notes Newsletter", "latest posts"},
		},
		{
			name: "a line asking the reader to follow the writer elsewhere goes; a sentence about the platform stays",
			body: `<p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p>` +
				`<p><strong>Follow me on Instagram</strong>: @bearingnotes</p><p><strong>Join the Facebook group</strong> – <a href="https://facebook.com/groups/bn">https://facebook.com/groups/bn</a></p>` +
				`<p>Like us on Facebook!</p>` +
				`<p>Follow the thread on Instagram where readers post photos of their own wheels, some of them older than the frames they sit in.</p>`,
			want:     []string{"soaked the bearings", "Follow the thread on Instagram where readers post photos"},
			unwanted: []string{"Follow me on Instagram", "Join the Facebook group", "Like us on Facebook"},
		},
		{
			name: "a feedback widget's question and thanks go; a sentence about helpful tools stays",
			body: `<p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p>` +
				`<p>Was this helpful to you? A cone spanner was the most useful tool, and a rag the second most useful one.</p>` +
				`<div class="feedback"><p>Was this article helpful?</p><button>Yes</button><button>No</button><p>Thank you for your feedback!</p></div>`,
			want:     []string{"soaked the bearings", "A cone spanner was the most useful tool"},
			unwanted: []string{"Was this article helpful", "Thank you for your feedback"},
		},
		{
			name: "a forum's box asking a guest to join before commenting goes, its headings with it",
			body: `<div class="post"><p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p></div>` +
				`<div class="post"><p>Same here: the squeak went after a day, and the bearings have been quiet for a whole winter of riding to work since.</p></div>` +
				`<div class="guest-box"><h2>Create an account or sign in to comment</h2><p>You need to be a member in order to leave a comment</p>` +
				`<div class="col"><h2>Create an account</h2><p>Sign up for a new account in our community. It's easy!</p><a href="/register">Register a new account</a></div>` +
				`<div class="col"><h2>Sign in</h2><p>Already have an account? Sign in here.</p><a href="/login">Sign In Now</a></div></div>`,
			want:     []string{"soaked the bearings", "quiet for a whole winter"},
			unwanted: []string{"Create an account", "member in order to", "Sign up for a new account", "Register a new account", "Already have an account", "Sign In Now", "## Sign in"},
		},
		{
			name: "an account link inside a sentence stays, however it is wrapped",
			body: `<p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p>` +
				`<p><em>Was this letter forwarded to you? <a href="/join">Sign up</a> to get it in your inbox.</em></p>` +
				`<p><strong>Want more repair notes?</strong> <a href="/join"><strong>Sign up now</strong></a> <strong>for the weekly letter.</strong></p>`,
			want: []string{"soaked the bearings", "[Sign up](", "Sign up now", "for the weekly letter"},
		},
		{
			name: "a form's fine print goes; a sentence on what continuing costs stays",
			body: `<p>I soaked the bearings overnight in light oil, then ran the wheel by hand for a few minutes before refitting it to the frame.</p>` +
				`<h3>Post as a guest</h3><p>By clicking “Post Your Answer”, you agree to our <a href="/tos">terms of service</a> and acknowledge you have read our <a href="/privacy">privacy policy</a>.</p>` +
				`<div class="signup"><p>By subscribing, you agree to receive marketing emails from Example Cycles and accept our Privacy Policy.</p></div>` +
				`<p>By continuing to ride on worn cones, you accept a rougher wheel and a costlier repair later.</p>` +
				`<p>Read the shop's terms before you book: by clicking the button, you agree to them.</p>` +
				`<ol><li>Run the installer.</li><li>By clicking Next, you accept the licence agreement.</li></ol>`,
			want: []string{"soaked the bearings", "By continuing to ride on worn cones, you accept", "by clicking the button, you agree to them",
				"By clicking Next, you accept the licence agreement"},
			unwanted: []string{"Post Your Answer", "marketing emails"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := article(t, `<!doctype html><html><head><title>Bearings</title></head><body><main><h1>Bearings</h1>`+tc.body+`</main></body></html>`)
			checkHolds(t, md, tc.want, tc.unwanted)
		})
	}
}
