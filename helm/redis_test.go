package helm_test

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/glimpse/glimpse/orchestrator/quota"
)

// renderRedis renders the chart with --set values, decoding every object
// strictly.
func renderRedis(t *testing.T, set ...string) rendering {
	t.Helper()
	var args []string
	for _, s := range set {
		args = append(args, "--set", s)
	}
	out, err := helmTemplate(t, args...)
	if err != nil {
		t.Fatalf("helm template with %v failed: %v", set, err)
	}
	objs, err := decodeAll(out)
	if err != nil {
		t.Fatalf("rendering with %v: %v", set, err)
	}
	return rendering{objects: objs}
}

// redisURLRef is where the orchestrator's GLIMPSE_REDIS_URL comes from,
// or nil when it is not set.
func redisURLRef(t *testing.T, r rendering) *corev1.SecretKeySelector {
	t.Helper()
	e, ok := envOf(containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator"))["GLIMPSE_REDIS_URL"]
	if !ok {
		return nil
	}
	if e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		t.Fatalf("GLIMPSE_REDIS_URL must come from a Secret, since the URL may hold a password; got %+v", e)
	}
	return e.ValueFrom.SecretKeyRef
}

func secretNamed(r rendering, name string) *corev1.Secret {
	for _, s := range objectsOf[*corev1.Secret](r) {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// policiesFor lists the NetworkPolicies that select pods with podLabels.
func policiesFor(r rendering, podLabels map[string]string) []*networkingv1.NetworkPolicy {
	var out []*networkingv1.NetworkPolicy
	for _, p := range objectsOf[*networkingv1.NetworkPolicy](r) {
		if selects(p.Spec.PodSelector, podLabels) {
			out = append(out, p)
		}
	}
	return out
}

func TestRedisIsOffUnlessAsked(t *testing.T) {
	for _, c := range valuesCases(t) {
		if on, _ := valuesOf(t, c).lookup("redis.enabled").(bool); on {
			continue
		}
		t.Run("no Redis and no GLIMPSE_REDIS_URL "+c.name, func(t *testing.T) {
			r := render(t, c)
			if hasWorkload(r, "redis") {
				t.Error("a Redis is deployed although redis.enabled is false")
			}
			if ref := redisURLRef(t, r); ref != nil {
				t.Errorf("GLIMPSE_REDIS_URL is set from %s/%s without any Redis configured", ref.Name, ref.Key)
			}
			for _, o := range r.objects {
				if strings.Contains(o.name, "redis") {
					t.Errorf("%s %s is rendered without any Redis configured", o.kind, o.name)
				}
			}
		})
	}
}

func TestBundledRedisCountsQuotasForEveryReplica(t *testing.T) {
	r := renderRedis(t, "redis.enabled=true", "networkPolicy.enabled=true", "minio.enabled=true", "orchestrator.replicaCount=3")
	w := workloadOf(t, r, "redis")
	ctr := containerOf(t, w, "redis")
	ref := redisURLRef(t, r)
	if ref == nil {
		t.Fatal("the orchestrator gets no GLIMPSE_REDIS_URL with redis.enabled")
	}
	secret := secretNamed(r, ref.Name)
	if secret == nil {
		t.Fatalf("the Secret %s that GLIMPSE_REDIS_URL comes from is not rendered", ref.Name)
	}

	t.Run("GLIMPSE_REDIS_URL names the Redis Service with the password Redis requires", func(t *testing.T) {
		raw := string(secret.Data[ref.Key])
		if err := quota.CheckRedisURL(raw); err != nil {
			t.Fatalf("glimpse would refuse the URL the chart makes: %v", err)
		}
		u, _ := url.Parse(raw)
		var svc *corev1.Service
		for _, s := range objectsOf[*corev1.Service](r) {
			if labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(w.template.Labels)) {
				svc = s
			}
		}
		if svc == nil {
			t.Fatal("no Service selects the Redis pod")
		}
		want := fmt.Sprintf("%s.%s.svc.cluster.local:%d", svc.Name, namespace, svc.Spec.Ports[0].Port)
		if u.Scheme != "redis" || u.Host != want || u.Path != "/0" {
			t.Errorf("the URL reaches %s://%s%s, want redis://%s/0", u.Scheme, u.Host, u.Path, want)
		}
		port, ok := portNamed(ctr, svc.Spec.Ports[0].TargetPort.String())
		if !ok || port != svc.Spec.Ports[0].Port {
			t.Errorf("the Service sends port %d to %q, which the container has as %d", svc.Spec.Ports[0].Port, svc.Spec.Ports[0].TargetPort.String(), port)
		}
		password, _ := u.User.Password()
		if len(password) < 16 || password != string(secret.Data["password"]) {
			t.Errorf("the URL's password (%d characters) is not the Secret's password of at least 16", len(password))
		}
		env := envOf(ctr)
		for _, name := range []string{"REDIS_PASSWORD", "REDISCLI_AUTH"} {
			e := env[name]
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != secret.Name || e.ValueFrom.SecretKeyRef.Key != "password" {
				t.Errorf("Redis's %s does not come from %s/password: %+v", name, secret.Name, e)
			}
		}
		if i := slices.Index(ctr.Args, "--requirepass"); i < 0 || i+1 >= len(ctr.Args) || ctr.Args[i+1] != "$(REDIS_PASSWORD)" {
			t.Errorf("Redis is not started with --requirepass $(REDIS_PASSWORD): %q", ctr.Args)
		}
	})

	t.Run("Redis keeps nothing on disk and runs as one pod", func(t *testing.T) {
		args := strings.Join(ctr.Args, " ")
		for _, want := range []string{`--save `, "--appendonly no", "--maxmemory 128mb", "--maxmemory-policy volatile-ttl"} {
			if !strings.Contains(args, want) {
				t.Errorf("Redis's arguments %q lack %q", ctr.Args, want)
			}
		}
		if i := slices.Index(ctr.Args, "--save"); i < 0 || ctr.Args[i+1] != "" {
			t.Errorf("Redis's arguments %q do not turn snapshots off with --save \"\"", ctr.Args)
		}
		if w.replicas == nil || *w.replicas != 1 {
			t.Errorf("Redis runs %v replicas, want 1: two would count apart", w.replicas)
		}
		for _, d := range objectsOf[*appsv1.Deployment](r) {
			if d.Name == w.name && d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
				t.Errorf("Redis rolls out with %q, want Recreate, so two never count side by side", d.Spec.Strategy.Type)
			}
		}
		if m, ok := mountAt(ctr, "/data"); !ok {
			t.Error("nothing is mounted at /data, Redis's working directory, and the root file system is read-only")
		} else if v, _ := volumeNamed(w, m.Name); v.EmptyDir == nil {
			t.Errorf("/data is %+v, want an emptyDir", v.VolumeSource)
		}
		if ctr.ReadinessProbe == nil || ctr.LivenessProbe == nil {
			t.Error("Redis has no readiness or liveness probe")
		}
	})

	t.Run("the Redis pod runs locked down like every glimpse pod", func(t *testing.T) {
		spec := w.template.Spec
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			t.Error("the pod mounts a service account token")
		}
		if psc := spec.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot ||
			psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Error("the pod may run as root or without the RuntimeDefault seccomp profile")
		}
		sc := ctr.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("the container is not locked down: %+v", sc)
		}
		if _, ok := ctr.Resources.Limits[corev1.ResourceMemory]; !ok {
			t.Error("Redis has no memory limit")
		}
		if !hasFixedTag(ctr.Image) {
			t.Errorf("the image %q has no fixed tag", ctr.Image)
		}
	})

	t.Run("only the orchestrator reaches Redis, and it may", func(t *testing.T) {
		orchestrator := workloadOf(t, r, "orchestrator").template.Labels
		sidecar := workloadOf(t, r, "sidecar").template.Labels
		redis := policiesFor(r, w.template.Labels)
		if len(redis) != 1 || len(redis[0].Spec.PolicyTypes) != 2 {
			t.Fatalf("Redis is under %d NetworkPolicies, want one for both directions", len(redis))
		}
		if !ingressAdmits(redis[0], orchestrator, 6379) {
			t.Error("the orchestrator may not reach Redis")
		}
		if ingressAdmits(redis[0], sidecar, 6379) {
			t.Error("the sidecars, and so any page, may reach Redis")
		}
		if len(redis[0].Spec.Egress) != 0 {
			t.Errorf("Redis may reach %+v; it needs nothing", redis[0].Spec.Egress)
		}
		reaches := false
		for _, p := range policiesFor(r, orchestrator) {
			reaches = reaches || egressToPods(p, w.template.Labels, 6379)
			if egressToPods(p, sidecar, 6379) {
				t.Errorf("NetworkPolicy %s lets the orchestrator reach the sidecars on the Redis port", p.Name)
			}
		}
		if !reaches {
			t.Error("no NetworkPolicy lets the orchestrator reach Redis")
		}
	})

	t.Run("a second render makes a different password, and an upgrade keeps the installed one", func(t *testing.T) {
		password := func() string {
			out, err := helmTemplate(t, "--set", "redis.enabled=true", "--show-only", "templates/redis.yaml")
			if err != nil {
				t.Fatal(err)
			}
			objs, err := decodeAll(out)
			if err != nil {
				t.Fatal(err)
			}
			return string(secretNamed(rendering{objs}, secret.Name).Data["password"])
		}
		if password() == password() {
			t.Error("two renders produced the same password")
		}
		// helm template cannot reach a cluster, so lookup finds nothing
		// there; this checks that the template asks for the Secret it makes.
		b, err := os.ReadFile(filepath.Join(chartDir, "templates", "redis.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `lookup "v1" "Secret" .Release.Namespace $name`) {
			t.Error("the Redis Secret does not look up the installed one, so every upgrade would change the password")
		}
	})
}

func TestExternalRedisIsReachedThroughASecret(t *testing.T) {
	const external = "rediss://:ext-pass@redis.example.com:6380/2"

	t.Run("redis.url is kept in a Secret the orchestrator reads", func(t *testing.T) {
		r := renderRedis(t, "redis.url="+external, "networkPolicy.enabled=true", "redis.networkPolicy.to[0].ipBlock.cidr=198.51.100.7/32")
		if hasWorkload(r, "redis") {
			t.Error("a Redis is deployed although an external one is given")
		}
		ref := redisURLRef(t, r)
		if ref == nil {
			t.Fatal("the orchestrator gets no GLIMPSE_REDIS_URL with redis.url")
		}
		s := secretNamed(r, ref.Name)
		if s == nil || string(s.Data[ref.Key]) != external {
			t.Fatalf("GLIMPSE_REDIS_URL comes from %s/%s, which does not hold redis.url", ref.Name, ref.Key)
		}
		if _, ok := s.Data["password"]; ok {
			t.Error("the Secret of an external Redis holds a generated password")
		}
		found := false
		for _, p := range policiesFor(r, workloadOf(t, r, "orchestrator").template.Labels) {
			for _, rule := range p.Spec.Egress {
				for _, peer := range rule.To {
					if peer.IPBlock != nil && peer.IPBlock.CIDR == "198.51.100.7/32" && hasPort(rule.Ports, 6379) {
						found = true
					}
				}
			}
		}
		if !found {
			t.Error("no NetworkPolicy lets the orchestrator reach redis.networkPolicy.to on port 6379")
		}
	})

	t.Run("redis.existingSecret is read as it is", func(t *testing.T) {
		r := renderRedis(t, "redis.existingSecret=glimpse-redis", "redis.existingSecretKey=redis-url",
			"redis.networkPolicy.to[0].ipBlock.cidr=198.51.100.7/32")
		ref := redisURLRef(t, r)
		if ref == nil || ref.Name != "glimpse-redis" || ref.Key != "redis-url" {
			t.Fatalf("GLIMPSE_REDIS_URL comes from %+v, want glimpse-redis/redis-url", ref)
		}
		if s := secretNamed(r, "glimpse-redis"); s != nil {
			t.Error("the chart renders the Secret that redis.existingSecret says exists")
		}
		for _, o := range r.objects {
			if strings.Contains(o.name, "redis") && o.kind != "NetworkPolicy" {
				t.Errorf("%s %s is rendered for an external Redis", o.kind, o.name)
			}
		}
	})
}

func TestRedisMisconfigurationsAreRefused(t *testing.T) {
	cases := []refusal{
		{"the bundled Redis together with an external URL", []string{"redis.enabled=true", "redis.url=redis://r:6379/0"},
			"choose the bundled Redis or yours"},
		{"the bundled Redis together with an existing Secret", []string{"redis.enabled=true", "redis.existingSecret=s"},
			"choose the bundled Redis or yours"},
		{"an external URL given twice", []string{"redis.url=redis://r:6379/0", "redis.existingSecret=s"},
			"the URL comes from one of them"},
		{"a NetworkPolicy that does not know where the external Redis is", []string{"networkPolicy.enabled=true", "redis.url=redis://r:6379/0"},
			"needs redis.networkPolicy.to"},
		{"a URL that is not a Redis URL", []string{"redis.url=http://r:6379"},
			"redis/url"},
		{"a misspelt value", []string{"redis.replicas=2"},
			"additional properties 'replicas' not allowed"},
	}
	checkRefusals(t, cases)
}

func TestChartWithRedisLintsStrictly(t *testing.T) {
	for _, set := range [][]string{
		{"redis.enabled=true", "networkPolicy.enabled=true"},
		{"redis.url=redis://:pw@redis.example.com:6379/0"},
	} {
		t.Run("helm lint --strict passes with "+strings.Join(set, " "), func(t *testing.T) {
			args := []string{"lint", chartDir, "--strict", "--namespace", namespace, "--kube-version", kubeVersion}
			for _, s := range set {
				args = append(args, "--set", s)
			}
			out, err := exec.Command(helmBinary(t), args...).CombinedOutput()
			if err != nil {
				t.Fatalf("helm lint failed: %v\n%s", err, out)
			}
		})
	}
}
