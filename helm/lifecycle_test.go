package helm_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7/pkg/lifecycle"

	"github.com/glimpse/glimpse/storage"
)

// ruleFormat finds the printf format of one lifecycle rule in the bucket
// job's script.
var ruleFormat = regexp.MustCompile(`(?m)^rule='(\{.*\})'$`)

func TestBucketJobSetsTheLifecycleRulesGlimpseSets(t *testing.T) {
	ran := false
	for _, c := range valuesCases(t) {
		r := render(t, c)
		if !hasWorkload(r, "minio-bucket") {
			continue
		}
		ran = true
		days, ok := valuesOf(t, c).lookup("storage.s3.expireAfterDays").(int)
		if !ok || days < 1 {
			t.Fatalf("%s: storage.s3.expireAfterDays is %v; want a positive number of days", c.name, valuesOf(t, c).lookup("storage.s3.expireAfterDays"))
		}
		mc := containerOf(t, workloadOf(t, r, "minio-bucket"), "mc")
		script := strings.Join(mc.Command, "\n")
		env := envOf(mc)

		t.Run("the job and glimpse expire objects after storage.s3.expireAfterDays "+c.name, func(t *testing.T) {
			if got := env["EXPIRE_DAYS"].Value; got != strconv.Itoa(days) {
				t.Errorf("the job's EXPIRE_DAYS is %q; want %d", got, days)
			}
			// Otherwise each would set its own expiry, in turn, on every
			// start and upgrade.
			orchestrator := envOf(containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator"))
			if got := orchestrator["GLIMPSE_S3_EXPIRE_DAYS"].Value; got != strconv.Itoa(days) {
				t.Errorf("the orchestrator's GLIMPSE_S3_EXPIRE_DAYS is %q; want %d, as the job sets", got, days)
			}
		})

		t.Run("the job's rules are glimpse's own, ID for ID "+c.name, func(t *testing.T) {
			m := ruleFormat.FindStringSubmatch(script)
			if m == nil {
				t.Fatalf("the script has no line rule='{…}' giving the format of a rule:\n%s", script)
			}
			for _, want := range storage.LifecycleRules(days) {
				if !strings.Contains(script, fmt.Sprintf(`"$rule" %s %s "$EXPIRE_DAYS"`, want.ID, want.RuleFilter.Prefix)) {
					t.Errorf("the script does not fill the rule format for %s on %s", want.ID, want.RuleFilter.Prefix)
				}
				var got lifecycle.Rule
				filled := fmt.Sprintf(m[1], want.ID, want.RuleFilter.Prefix, days)
				if err := json.Unmarshal([]byte(filled), &got); err != nil {
					t.Fatalf("the rule %s the script imports is not lifecycle JSON: %v\n%s", want.ID, err, filled)
				}
				gotXML, _ := xml.Marshal(got)
				wantXML, _ := xml.Marshal(want)
				if string(gotXML) != string(wantXML) {
					t.Errorf("the job sets rule %s as\n  %s\nbut glimpse sets\n  %s", want.ID, gotXML, wantXML)
				}
			}
		})

		t.Run("the job removes only glimpse's rules before importing them "+c.name, func(t *testing.T) {
			want := fmt.Sprintf("for id in %s %s; do", storage.LifecycleRuleCache, storage.LifecycleRuleFiles)
			if !strings.Contains(script, want) || strings.Contains(script, "--all") {
				t.Errorf("the script should remove exactly the rules %s and %s, and no others:\n%s", storage.LifecycleRuleCache, storage.LifecycleRuleFiles, script)
			}
		})
	}
	if !ran {
		t.Fatal("no values file under ci/ enables the bundled MinIO, so the bucket job is never checked")
	}
}

func TestDefaultExpiryIsGlimpsesDefault(t *testing.T) {
	if got := valuesOf(t, valuesCase{}).lookup("storage.s3.expireAfterDays"); got != storage.DefaultExpireAfterDays {
		t.Errorf("values.yaml sets storage.s3.expireAfterDays to %v; glimpse's default is %d", got, storage.DefaultExpireAfterDays)
	}
}
