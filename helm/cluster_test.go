//go:build linux

package helm_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"
)

// How long the controllers and kwok get to bring a release to rest: pods
// scheduled and Ready, budgets and endpoints computed. On an idle machine
// it takes seconds.
const settleTimeout = 3 * time.Minute

// TestClusterInstallsTheChart installs the chart on a real API server, with
// its controllers, a scheduler and a kwok node, for the default values and
// each values file under glimpse/ci, once on a cluster without the
// prometheus-operator's CRDs and once with them. `helm template` cannot see
// what the API server refuses (validation, CRDs that are not there) nor
// what the controllers make of the objects.
func TestClusterInstallsTheChart(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: starts a Kubernetes control plane and installs the chart on it, which takes tens of seconds")
	}
	tools, err := findKubeTools()
	if err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, tools, helmBinary(t))
	var v version.Info
	if err := c.get("/version", &v); err != nil {
		t.Fatal(err)
	}
	cases := valuesCases(t)

	t.Run("without the prometheus-operator CRDs", func(t *testing.T) {
		for _, vc := range cases {
			t.Run(vc.name, func(t *testing.T) {
				t.Parallel()
				checkRelease(t, c, vc, caseName(vc)+"-plain", v.GitVersion, false)
			})
		}
	})
	t.Run("with the prometheus-operator CRDs", func(t *testing.T) {
		var files []string
		for _, f := range monitoringCRDs {
			files = append(files, filepath.Join(tools.crdDir, f))
		}
		c.applyCRDs(t, files)
		for _, vc := range cases {
			t.Run(vc.name, func(t *testing.T) {
				t.Parallel()
				checkRelease(t, c, vc, caseName(vc)+"-crds", v.GitVersion, true)
			})
		}
	})
}

// caseName is a short name for a values case, fit for a namespace.
func caseName(vc valuesCase) string {
	if vc.file == "" {
		return "defaults"
	}
	return strings.TrimSuffix(filepath.Base(vc.file), "-values.yaml")
}

// checkRelease installs the chart for vc in a namespace of its own as a
// release of the same name, lets the cluster bring it to rest, checks what
// the controllers computed, then upgrades it and checks again.
func checkRelease(t *testing.T, c *cluster, vc valuesCase, name, kubeVersion string, withCRDs bool) {
	start := time.Now()
	step := func(what string) { t.Logf("%5.1fs %s", time.Since(start).Seconds(), what) }
	home := t.TempDir()
	ns := name
	c.create(t, "/api/v1/namespaces", namespaceObject(ns))

	out, err := c.helmIn(home, append([]string{"template", name, chartDir, "--namespace", ns, "--kube-version", kubeVersion}, vc.args()...)...)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	c.createPrerequisites(t, rendering{objects: objs}, ns)

	notes, err := c.helmIn(home, append([]string{"install", name, chartDir, "--namespace", ns, "--timeout", "4m"}, vc.args()...)...)
	if err != nil {
		t.Fatalf("helm install failed:\n%v\nevents in %s:\n%s", err, ns, c.events(ns))
	}
	step("installed")
	checkNotes(t, valuesOf(t, vc), notes, withCRDs)
	c.checkHooksRan(t, name, ns, 1, "post-install")
	installed := c.manifest(t, home, name, ns)
	c.checkObjectsExist(t, installed, ns)
	if withCRDs {
		vals := valuesOf(t, vc)
		for _, want := range []struct{ value, kind string }{
			{"metrics.serviceMonitor.enabled", "ServiceMonitor"},
			{"metrics.prometheusRule.enabled", "PrometheusRule"},
		} {
			if vals.lookup(want.value) == true && len(installed.ofKind(want.kind)) == 0 {
				t.Errorf("%s is on and the cluster serves the %s CRD, but the release has no %s", want.value, want.kind, want.kind)
			}
		}
	}
	c.checkAtRest(t, installed, ns)
	step("at rest")
	secrets := c.secretData(t, installed, ns)
	if vals := valuesOf(t, vc); vals.lookup("minio.enabled") == true && vals.lookup("minio.auth.existingSecret") == "" {
		found := false
		for _, o := range installed.ofKind("Secret") {
			found = found || o.Metadata.Labels[componentLabel] == "minio"
		}
		if !found {
			t.Errorf("the bundled MinIO is on but the release has no Secret of component minio for its credentials")
		}
	}

	if _, err := c.helmIn(home, append([]string{"upgrade", name, chartDir, "--namespace", ns, "--timeout", "4m"}, vc.args()...)...); err != nil {
		t.Fatalf("helm upgrade failed:\n%v\nevents in %s:\n%s", err, ns, c.events(ns))
	}
	step("upgraded")
	status, err := c.helmIn(home, "status", name, "--namespace", ns, "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Version int
		Info    struct{ Status string }
	}
	if err := yaml.Unmarshal([]byte(status), &st); err != nil || st.Version != 2 || st.Info.Status != "deployed" {
		t.Errorf("after the upgrade the release is at revision %d, %q (%v); want revision 2, deployed", st.Version, st.Info.Status, err)
	}
	c.checkHooksRan(t, name, ns, 2, "post-upgrade")
	upgraded := c.manifest(t, home, name, ns)
	c.checkObjectsExist(t, upgraded, ns)
	c.checkAtRest(t, upgraded, ns)
	step("at rest after the upgrade")
	after := c.secretData(t, upgraded, ns)
	for _, n := range slices.Sorted(maps.Keys(secrets)) {
		if got, ok := after[n]; !ok {
			t.Errorf("the upgrade removed the Secret %s", n)
		} else if !maps.EqualFunc(got, secrets[n], bytes.Equal) {
			t.Errorf("the upgrade changed the data of the Secret %s (keys %v); generated credentials must survive an upgrade, or MinIO's data and the running pods no longer match them", n, slices.Sorted(maps.Keys(got)))
		}
	}
}

func namespaceObject(name string) corev1.Namespace {
	return corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}
}

// createPrerequisites creates what the rendered pods use but the chart
// leaves to the operator: namespaces, ServiceAccounts, Secrets and
// ConfigMaps with the keys the pods read, and PersistentVolumeClaims.
func (c *cluster) createPrerequisites(t *testing.T, r rendering, ns string) {
	t.Helper()
	rendered := map[string]bool{}
	for _, o := range r.objects {
		rendered[o.kind+"/"+o.name] = true
		if m, ok := o.obj.(metav1.Object); ok && m.GetNamespace() != "" && m.GetNamespace() != ns {
			c.create(t, "/api/v1/namespaces", namespaceObject(m.GetNamespace()))
		}
	}
	secrets := map[string]map[string]bool{}
	configMaps := map[string]map[string]bool{}
	use := func(into map[string]map[string]bool, name string, keys ...string) {
		if into[name] == nil {
			into[name] = map[string]bool{}
		}
		for _, k := range keys {
			into[name][k] = true
		}
	}
	itemKeys := func(items []corev1.KeyToPath) []string {
		var keys []string
		for _, i := range items {
			keys = append(keys, i.Key)
		}
		return keys
	}
	for _, w := range workloads(r) {
		spec := w.template.Spec
		if sa := spec.ServiceAccountName; sa != "" && !rendered["ServiceAccount/"+sa] {
			c.create(t, "/api/v1/namespaces/"+ns+"/serviceaccounts", corev1.ServiceAccount{
				TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
				ObjectMeta: metav1.ObjectMeta{Name: sa},
			})
		}
		for _, v := range spec.Volumes {
			switch {
			case v.Secret != nil:
				use(secrets, v.Secret.SecretName, itemKeys(v.Secret.Items)...)
			case v.ConfigMap != nil:
				use(configMaps, v.ConfigMap.Name, itemKeys(v.ConfigMap.Items)...)
			case v.Projected != nil:
				for _, s := range v.Projected.Sources {
					if s.Secret != nil {
						use(secrets, s.Secret.Name, itemKeys(s.Secret.Items)...)
					}
					if s.ConfigMap != nil {
						use(configMaps, s.ConfigMap.Name, itemKeys(s.ConfigMap.Items)...)
					}
				}
			case v.PersistentVolumeClaim != nil && !rendered["PersistentVolumeClaim/"+v.PersistentVolumeClaim.ClaimName]:
				c.create(t, "/api/v1/namespaces/"+ns+"/persistentvolumeclaims", corev1.PersistentVolumeClaim{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
					ObjectMeta: metav1.ObjectMeta{Name: v.PersistentVolumeClaim.ClaimName},
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources: corev1.VolumeResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
						},
					},
				})
			}
		}
		for _, ctr := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
			for _, e := range ctr.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					use(secrets, e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key)
				}
				if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
					use(configMaps, e.ValueFrom.ConfigMapKeyRef.Name, e.ValueFrom.ConfigMapKeyRef.Key)
				}
			}
			for _, e := range ctr.EnvFrom {
				if e.SecretRef != nil {
					use(secrets, e.SecretRef.Name)
				}
				if e.ConfigMapRef != nil {
					use(configMaps, e.ConfigMapRef.Name)
				}
			}
		}
	}
	for name, keys := range secrets {
		if rendered["Secret/"+name] {
			continue
		}
		data := map[string][]byte{}
		for k := range keys {
			data[k] = []byte("set-before-install-" + k)
		}
		c.create(t, "/api/v1/namespaces/"+ns+"/secrets", corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Data:       data,
		})
	}
	for name, keys := range configMaps {
		if rendered["ConfigMap/"+name] {
			continue
		}
		data := map[string]string{}
		for k := range keys {
			data[k] = "set-before-install"
		}
		c.create(t, "/api/v1/namespaces/"+ns+"/configmaps", corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Data:       data,
		})
	}
}

// manifestObject is an object of a release, as `helm get manifest` gives it.
type manifestObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
}

type manifest []manifestObject

func (m manifest) ofKind(kind string) []manifestObject {
	var out []manifestObject
	for _, o := range m {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

func (c *cluster) manifest(t *testing.T, home, release, ns string) manifest {
	t.Helper()
	out, err := c.helmIn(home, "get", "manifest", release, "--namespace", ns)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	for _, doc := range documentSeparator.Split(out, -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var o manifestObject
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("the release's manifest holds something that is not an object: %v\n%s", err, doc)
		}
		m = append(m, o)
	}
	if len(m) == 0 {
		t.Fatal("the release has no objects")
	}
	return m
}

// checkObjectsExist reads every object of the release back from the API
// server.
func (c *cluster) checkObjectsExist(t *testing.T, m manifest, ns string) {
	t.Helper()
	for _, o := range m {
		objNS := o.Metadata.Namespace
		if objNS == "" {
			objNS = ns
		}
		path, err := c.resourcePath(o.APIVersion, o.Kind, objNS, o.Metadata.Name)
		if err != nil {
			t.Errorf("%s %s: %v", o.Kind, o.Metadata.Name, err)
			continue
		}
		if err := c.get(path, nil); err != nil {
			t.Errorf("%s %s of the release is not on the server: %v", o.Kind, o.Metadata.Name, err)
		}
	}
}

// checkAtRest waits until the controllers, the scheduler and kwok are done
// with the release: every replica scheduled on the fake node and Ready,
// every PodDisruptionBudget computed over its pods, and the sidecars'
// headless Service listing each sidecar pod.
func (c *cluster) checkAtRest(t *testing.T, m manifest, ns string) {
	t.Helper()
	wait := func(what string, check func() (bool, string)) {
		t.Helper()
		if ok, why := c.poll(t, settleTimeout, check); !ok {
			t.Fatalf("waited %s for %s: %s\nevents in %s:\n%s", settleTimeout, what, why, ns, c.events(ns))
		}
	}
	wait("every replica to be scheduled on the fake node and Ready", func() (bool, string) {
		if err := c.bindClaims(ns); err != nil {
			return false, err.Error()
		}
		for _, o := range m.ofKind("Deployment") {
			var d appsv1.Deployment
			if err := c.get("/apis/apps/v1/namespaces/"+ns+"/deployments/"+o.Metadata.Name, &d); err != nil {
				return false, err.Error()
			}
			want := ptrValue(d.Spec.Replicas)
			s := d.Status
			if s.ObservedGeneration < d.Generation || want == 0 || s.Replicas != want || s.UpdatedReplicas != want || s.ReadyReplicas != want {
				return false, fmt.Sprintf("Deployment %s has %d replicas, %d updated and %d ready of %d", d.Name, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, want)
			}
		}
		for _, o := range m.ofKind("StatefulSet") {
			var s appsv1.StatefulSet
			if err := c.get("/apis/apps/v1/namespaces/"+ns+"/statefulsets/"+o.Metadata.Name, &s); err != nil {
				return false, err.Error()
			}
			want := ptrValue(s.Spec.Replicas)
			st := s.Status
			if st.ObservedGeneration < s.Generation || want == 0 || st.Replicas != want || st.UpdatedReplicas != want || st.ReadyReplicas != want {
				return false, fmt.Sprintf("StatefulSet %s has %d replicas, %d updated and %d ready of %d", s.Name, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, want)
			}
		}
		pods, err := c.pods(ns, "")
		if err != nil {
			return false, err.Error()
		}
		for _, p := range pods {
			if p.Spec.NodeName != fakeNode {
				return false, fmt.Sprintf("pod %s is not scheduled on %s: %s", p.Name, fakeNode, condition(p, corev1.PodScheduled))
			}
			if !podReady(p) {
				return false, fmt.Sprintf("pod %s is not Ready: %s", p.Name, condition(p, corev1.PodReady))
			}
		}
		return true, ""
	})

	for _, o := range m.ofKind("PodDisruptionBudget") {
		wait("the PodDisruptionBudget "+o.Metadata.Name+" to be computed", func() (bool, string) {
			var pdb policyv1.PodDisruptionBudget
			if err := c.get("/apis/policy/v1/namespaces/"+ns+"/poddisruptionbudgets/"+o.Metadata.Name, &pdb); err != nil {
				return false, err.Error()
			}
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil {
				return false, err.Error()
			}
			pods, err := c.pods(ns, sel.String())
			if err != nil {
				return false, err.Error()
			}
			s := pdb.Status
			switch {
			case s.ObservedGeneration < pdb.Generation:
				return false, "the disruption controller has not seen its latest spec"
			case len(pods) == 0:
				return false, "its selector " + sel.String() + " matches no running pod"
			case s.ExpectedPods != int32(len(pods)) || s.CurrentHealthy != s.ExpectedPods:
				return false, fmt.Sprintf("status expects %d pods with %d healthy; %d pods run and are Ready", s.ExpectedPods, s.CurrentHealthy, len(pods))
			}
			return true, ""
		})
	}

	var sidecarServices []string
	for _, o := range m.ofKind("Service") {
		if o.Metadata.Labels[componentLabel] == "sidecar" {
			sidecarServices = append(sidecarServices, o.Metadata.Name)
		}
	}
	if len(sidecarServices) == 0 {
		t.Fatal("the release has no Service of component sidecar, so the orchestrator cannot find the sidecars")
	}
	for _, svcName := range sidecarServices {
		wait("the EndpointSlices of the Service "+svcName+" to list every sidecar pod", func() (bool, string) {
			var svc corev1.Service
			if err := c.get("/api/v1/namespaces/"+ns+"/services/"+svcName, &svc); err != nil {
				return false, err.Error()
			}
			if len(svc.Spec.Selector) == 0 {
				return false, "the Service has no selector"
			}
			pods, err := c.pods(ns, labels.SelectorFromSet(svc.Spec.Selector).String())
			if err != nil {
				return false, err.Error()
			}
			want := map[string]string{} // pod → IP
			for _, p := range pods {
				want[p.Name] = p.Status.PodIP
			}
			if len(want) == 0 {
				return false, "the Service's selector matches no running pod"
			}
			var list discoveryv1.EndpointSliceList
			q := url.Values{"labelSelector": {discoveryv1.LabelServiceName + "=" + svcName}}
			if err := c.get("/apis/discovery.k8s.io/v1/namespaces/"+ns+"/endpointslices?"+q.Encode(), &list); err != nil {
				return false, err.Error()
			}
			got := map[string]string{}
			for _, s := range list.Items {
				for _, e := range s.Endpoints {
					if e.TargetRef == nil || e.TargetRef.Kind != "Pod" || len(e.Addresses) == 0 {
						continue
					}
					if e.Conditions.Ready != nil && !*e.Conditions.Ready {
						continue
					}
					got[e.TargetRef.Name] = e.Addresses[0]
				}
			}
			if !maps.Equal(got, want) {
				return false, fmt.Sprintf("they list %v; the ready sidecar pods are %v", sortedPairs(got), sortedPairs(want))
			}
			return true, ""
		})
	}
}

// pods lists the namespace's pods that are neither finished nor being
// deleted, matching selector if it is not empty.
func (c *cluster) pods(ns, selector string) ([]corev1.Pod, error) {
	path := "/api/v1/namespaces/" + ns + "/pods"
	if selector != "" {
		path += "?" + url.Values{"labelSelector": {selector}}.Encode()
	}
	var list corev1.PodList
	if err := c.get(path, &list); err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func podReady(p corev1.Pod) bool {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func condition(p corev1.Pod, typ corev1.PodConditionType) string {
	for _, cond := range p.Status.Conditions {
		if cond.Type == typ {
			return fmt.Sprintf("%s=%s %s %s", typ, cond.Status, cond.Reason, cond.Message)
		}
	}
	return fmt.Sprintf("no %s condition yet (phase %q)", typ, p.Status.Phase)
}

func sortedPairs(m map[string]string) string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return "[" + strings.Join(out, " ") + "]"
}

// secretData reads the data of the release's own Secrets.
func (c *cluster) secretData(t *testing.T, m manifest, ns string) map[string]map[string][]byte {
	t.Helper()
	out := map[string]map[string][]byte{}
	for _, o := range m.ofKind("Secret") {
		var s corev1.Secret
		if err := c.get("/api/v1/namespaces/"+ns+"/secrets/"+o.Metadata.Name, &s); err != nil {
			t.Fatal(err)
		}
		out[s.Name] = s.Data
	}
	return out
}

// checkHooksRan checks, in the record helm keeps of a release revision,
// that every hook of event ran to success.
func (c *cluster) checkHooksRan(t *testing.T, release, ns string, revision int, event string) {
	t.Helper()
	var s corev1.Secret
	if err := c.get(fmt.Sprintf("/api/v1/namespaces/%s/secrets/sh.helm.release.v1.%s.v%d", ns, release, revision), &s); err != nil {
		t.Fatalf("helm's record of revision %d: %v", revision, err)
	}
	raw, err := base64.StdEncoding.DecodeString(string(s.Data["release"]))
	if err != nil {
		t.Fatalf("helm's record of revision %d: %v", revision, err)
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var rel struct {
		Hooks []struct {
			Name    string   `json:"name"`
			Kind    string   `json:"kind"`
			Events  []string `json:"events"`
			LastRun struct {
				Phase string `json:"phase"`
			} `json:"last_run"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &rel); err != nil {
		t.Fatalf("helm's record of revision %d: %v", revision, err)
	}
	for _, h := range rel.Hooks {
		if slices.Contains(h.Events, event) && h.LastRun.Phase != "Succeeded" {
			t.Errorf("the %s hook %s %s did not succeed: its last run is %q", event, h.Kind, h.Name, h.LastRun.Phase)
		}
	}
}

// checkNotes reads what helm install printed: where stored files are
// fetched from, or a warning that callers cannot reach them, and a warning
// for each monitoring object left out for want of its CRD.
func checkNotes(t *testing.T, vals values, notes string, withCRDs bool) {
	t.Helper()
	base, _ := vals.lookup("orchestrator.publicBaseURL").(string)
	ingress, _ := vals.lookup("orchestrator.ingress.enabled").(bool)
	switch {
	case base != "":
		if want := strings.TrimSuffix(base, "/") + "/files/"; !strings.Contains(notes, want) {
			t.Errorf("the notes do not say stored files are at %s:\n%s", want, notes)
		}
	case ingress:
		if !strings.Contains(notes, "Stored files") || !strings.Contains(notes, "the Ingress host") {
			t.Errorf("the notes do not give the Ingress address of stored files:\n%s", notes)
		}
	default:
		if !strings.Contains(notes, "WARNING: stored files") {
			t.Errorf("the notes do not warn that stored files are unreachable from outside:\n%s", notes)
		}
	}
	for _, m := range []struct{ value, kind string }{
		{"metrics.serviceMonitor.enabled", "ServiceMonitor"},
		{"metrics.prometheusRule.enabled", "PrometheusRule"},
	} {
		warned := strings.Contains(notes, "has no "+m.kind+" API")
		if want := vals.lookup(m.value) == true && !withCRDs; warned != want {
			t.Errorf("%s is %v and the CRDs are there: %v, but the notes warn about it: %v:\n%s", m.value, vals.lookup(m.value), withCRDs, warned, notes)
		}
	}
}
