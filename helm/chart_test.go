package helm_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

const componentLabel = "app.kubernetes.io/component"

// Secrets the values files under ci/ expect to exist before install.
var preexistingSecrets = map[string]bool{"glimpse-s3": true, "glimpse-plans": true, "glimpse-sidecar-token": true}

// Claims the values files under ci/ expect to exist before install.
var preexistingClaims = map[string]bool{"glimpse-data": true}

func TestChartLintsStrictly(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("helm lint --strict passes "+c.name, func(t *testing.T) {
			args := append([]string{"lint", chartDir, "--strict", "--namespace", namespace, "--kube-version", kubeVersion}, c.args()...)
			out, err := exec.Command(helmBinary(t), args...).CombinedOutput()
			if err != nil {
				t.Fatalf("helm lint failed: %v\n%s", err, out)
			}
		})
	}
}

func TestEveryRenderedObjectDecodesStrictly(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("every object rendered "+c.name+" is a valid Kubernetes object", func(t *testing.T) {
			r := render(t, c) // decodes strictly, or fails
			if len(r.objects) == 0 {
				t.Fatal("nothing was rendered")
			}
			seen := map[string]string{}
			for _, o := range r.objects {
				meta := o.obj.(metav1.Object)
				key := o.kind + "/" + o.name
				if prev, dup := seen[key]; dup {
					t.Errorf("%s is rendered twice, by %s and %s", key, prev, o.source)
				}
				seen[key] = o.source
				for _, msg := range validation.IsDNS1123Subdomain(o.name) {
					t.Errorf("%s has an invalid name: %s", key, msg)
				}
				if o.kind == "Service" {
					for _, msg := range validation.IsDNS1035Label(o.name) {
						t.Errorf("%s has an invalid Service name: %s", key, msg)
					}
				}
				if ns := meta.GetNamespace(); ns == "" {
					t.Errorf("%s has no namespace; every object names the release namespace", key)
				}
				for k, v := range meta.GetLabels() {
					for _, msg := range append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...) {
						t.Errorf("%s has an invalid label %s=%q: %s", key, k, v, msg)
					}
				}
			}
		})
	}
}

func TestUnknownFieldsAreCaught(t *testing.T) {
	// Proves the strict decoding above can fail.
	doc := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replica: 2\n")
	if _, err := decodeObject(doc); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Fatalf("a Deployment with the unknown field spec.replica decoded, error %v", err)
	}
	crd := []byte("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: x\nspec:\n  endpoints:\n    - port: http\n      intervall: 30s\n")
	if _, err := decodeObject(crd); err == nil {
		t.Fatal("a ServiceMonitor with the unknown field intervall decoded")
	}
}

// workload is a Deployment, StatefulSet or Job, by its pod template.
type workload struct {
	kind, name string
	replicas   *int32
	template   corev1.PodTemplateSpec
}

func workloads(r rendering) []workload {
	var out []workload
	for _, d := range objectsOf[*appsv1.Deployment](r) {
		out = append(out, workload{"Deployment", d.Name, d.Spec.Replicas, d.Spec.Template})
	}
	for _, s := range objectsOf[*appsv1.StatefulSet](r) {
		out = append(out, workload{"StatefulSet", s.Name, s.Spec.Replicas, s.Spec.Template})
	}
	for _, j := range objectsOf[*batchv1.Job](r) {
		out = append(out, workload{"Job", j.Name, nil, j.Spec.Template})
	}
	for _, p := range objectsOf[*corev1.Pod](r) {
		out = append(out, workload{"Pod", p.Name, nil, corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}})
	}
	return out
}

func workloadOf(t *testing.T, r rendering, component string) workload {
	t.Helper()
	for _, w := range workloads(r) {
		if w.template.Labels[componentLabel] == component {
			return w
		}
	}
	t.Fatalf("no workload of component %s was rendered", component)
	return workload{}
}

func hasWorkload(r rendering, component string) bool {
	for _, w := range workloads(r) {
		if w.template.Labels[componentLabel] == component {
			return true
		}
	}
	return false
}

func containerOf(t *testing.T, w workload, name string) corev1.Container {
	t.Helper()
	for _, c := range w.template.Spec.Containers {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("%s %s has no container %s", w.kind, w.name, name)
	return corev1.Container{}
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
	}
	return env
}

func portNamed(c corev1.Container, name string) (int32, bool) {
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort, true
		}
	}
	return 0, false
}

func volumeNamed(w workload, name string) (corev1.Volume, bool) {
	for _, v := range w.template.Spec.Volumes {
		if v.Name == name {
			return v, true
		}
	}
	return corev1.Volume{}, false
}

func mountAt(c corev1.Container, path string) (corev1.VolumeMount, bool) {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return m, true
		}
	}
	return corev1.VolumeMount{}, false
}

func TestObjectsFitTogether(t *testing.T) {
	for _, c := range valuesCases(t) {
		r := render(t, c)
		ws := workloads(r)

		t.Run("every Service selects exactly one workload and names one of its ports "+c.name, func(t *testing.T) {
			for _, svc := range objectsOf[*corev1.Service](r) {
				sel := labels.SelectorFromSet(svc.Spec.Selector)
				var matched []workload
				for _, w := range ws {
					if w.kind != "Job" && sel.Matches(labels.Set(w.template.Labels)) {
						matched = append(matched, w)
					}
				}
				if len(svc.Spec.Selector) == 0 || len(matched) != 1 {
					t.Errorf("Service %s selects %d workloads, want exactly 1", svc.Name, len(matched))
					continue
				}
				for _, p := range svc.Spec.Ports {
					found := false
					for _, ctr := range matched[0].template.Spec.Containers {
						if _, ok := portNamed(ctr, p.TargetPort.String()); ok {
							found = true
						}
					}
					if !found {
						t.Errorf("Service %s targets port %q, which no container of %s names", svc.Name, p.TargetPort.String(), matched[0].name)
					}
				}
			}
		})

		t.Run("every workload's selector matches its own pods "+c.name, func(t *testing.T) {
			for _, d := range objectsOf[*appsv1.Deployment](r) {
				sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
				if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
					t.Errorf("Deployment %s does not select its own pods (%v)", d.Name, err)
				}
			}
			for _, s := range objectsOf[*appsv1.StatefulSet](r) {
				sel, err := metav1.LabelSelectorAsSelector(s.Spec.Selector)
				if err != nil || !sel.Matches(labels.Set(s.Spec.Template.Labels)) {
					t.Errorf("StatefulSet %s does not select its own pods (%v)", s.Name, err)
				}
			}
		})

		t.Run("every autoscaler scales a rendered workload that leaves its replicas to it "+c.name, func(t *testing.T) {
			for _, h := range objectsOf[*autoscalingv2.HorizontalPodAutoscaler](r) {
				ref := h.Spec.ScaleTargetRef
				var target *workload
				for i, w := range ws {
					if w.kind == ref.Kind && w.name == ref.Name {
						target = &ws[i]
					}
				}
				if target == nil {
					t.Errorf("HorizontalPodAutoscaler %s scales %s %s, which is not rendered", h.Name, ref.Kind, ref.Name)
					continue
				}
				if target.replicas != nil {
					t.Errorf("%s %s sets replicas although %s scales it; each upgrade would reset the count", target.kind, target.name, h.Name)
				}
				if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Resource == nil || h.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU {
					t.Errorf("HorizontalPodAutoscaler %s does not scale on CPU", h.Name)
				}
			}
		})

		t.Run("every disruption budget covers a workload and never blocks a drain "+c.name, func(t *testing.T) {
			for _, p := range objectsOf[*policyv1.PodDisruptionBudget](r) {
				sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for _, w := range ws {
					if sel.Matches(labels.Set(w.template.Labels)) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("PodDisruptionBudget %s covers %d workloads, want 1", p.Name, n)
				}
				if p.Spec.MaxUnavailable == nil || p.Spec.MaxUnavailable.IntValue() < 1 {
					t.Errorf("PodDisruptionBudget %s must allow at least one pod down, or a single replica can never be drained", p.Name)
				}
			}
		})

		t.Run("every volume, ConfigMap, Secret and claim a pod uses exists "+c.name, func(t *testing.T) {
			configMaps := map[string]bool{}
			for _, cm := range objectsOf[*corev1.ConfigMap](r) {
				configMaps[cm.Name] = true
			}
			secrets := map[string]bool{}
			for _, s := range objectsOf[*corev1.Secret](r) {
				secrets[s.Name] = true
			}
			claims := map[string]bool{}
			for _, pvc := range objectsOf[*corev1.PersistentVolumeClaim](r) {
				claims[pvc.Name] = true
			}
			for _, w := range ws {
				spec := w.template.Spec
				for _, v := range spec.Volumes {
					switch {
					case v.ConfigMap != nil && !configMaps[v.ConfigMap.Name]:
						t.Errorf("%s %s mounts ConfigMap %s, which is not rendered", w.kind, w.name, v.ConfigMap.Name)
					case v.Secret != nil && !secrets[v.Secret.SecretName] && !preexistingSecrets[v.Secret.SecretName]:
						t.Errorf("%s %s mounts Secret %s, which is neither rendered nor expected to exist", w.kind, w.name, v.Secret.SecretName)
					case v.PersistentVolumeClaim != nil && !claims[v.PersistentVolumeClaim.ClaimName] && !preexistingClaims[v.PersistentVolumeClaim.ClaimName]:
						t.Errorf("%s %s mounts claim %s, which is neither rendered nor expected to exist", w.kind, w.name, v.PersistentVolumeClaim.ClaimName)
					}
				}
				for _, ctr := range spec.Containers {
					for _, m := range ctr.VolumeMounts {
						if _, ok := volumeNamed(w, m.Name); !ok {
							t.Errorf("container %s of %s mounts volume %s, which the pod does not define", ctr.Name, w.name, m.Name)
						}
					}
					for _, e := range ctr.Env {
						if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
							continue
						}
						if n := e.ValueFrom.SecretKeyRef.Name; !secrets[n] && !preexistingSecrets[n] {
							t.Errorf("%s of %s comes from Secret %s, which is neither rendered nor expected to exist", e.Name, w.name, n)
						}
					}
				}
				if sa := spec.ServiceAccountName; sa != "" && len(objectsOf[*corev1.ServiceAccount](r)) > 0 {
					found := false
					for _, a := range objectsOf[*corev1.ServiceAccount](r) {
						found = found || a.Name == sa
					}
					if !found {
						t.Errorf("%s %s runs as service account %s, which is not rendered", w.kind, w.name, sa)
					}
				}
			}
		})
	}
}

func TestOrchestratorFindsTheSidecarsThroughTheHeadlessService(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("GLIMPSE_SIDECARS names the headless Service of the sidecars "+c.name, func(t *testing.T) {
			r := render(t, c)
			sidecars := workloadOf(t, r, "sidecar")
			var headless *corev1.Service
			for _, svc := range objectsOf[*corev1.Service](r) {
				if svc.Spec.ClusterIP == corev1.ClusterIPNone {
					if headless != nil {
						t.Fatalf("two headless Services: %s and %s", headless.Name, svc.Name)
					}
					headless = svc
				}
			}
			if headless == nil {
				t.Fatal("no headless Service was rendered")
			}
			if !labels.SelectorFromSet(headless.Spec.Selector).Matches(labels.Set(sidecars.template.Labels)) {
				t.Errorf("the headless Service %s does not select the sidecar pods", headless.Name)
			}
			if headless.Spec.PublishNotReadyAddresses {
				t.Error("the headless Service publishes sidecars that are not ready; the pool would lease browsers that are not up")
			}
			if len(headless.Spec.Ports) != 1 || headless.Spec.Ports[0].Port != 9230 {
				t.Errorf("the headless Service's ports are %+v, want the single port 9230", headless.Spec.Ports)
			}
			orch := containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator")
			want := fmt.Sprintf("%s.%s.svc.cluster.local:9230", headless.Name, namespace)
			if got := envOf(orch)["GLIMPSE_SIDECARS"].Value; got != want {
				t.Errorf("GLIMPSE_SIDECARS = %q, want %q", got, want)
			}
			if sidecars.kind == "StatefulSet" {
				for _, s := range objectsOf[*appsv1.StatefulSet](r) {
					if s.Spec.ServiceName != headless.Name {
						t.Errorf("StatefulSet %s governs Service %s, want the headless %s", s.Name, s.Spec.ServiceName, headless.Name)
					}
				}
			}
		})
	}
}

func TestSidecarPodsAreBuiltForChromium(t *testing.T) {
	for _, c := range valuesCases(t) {
		r := render(t, c)
		w := workloadOf(t, r, "sidecar")
		ctr := containerOf(t, w, "sidecar")

		t.Run("/dev/shm is a memory volume "+c.name, func(t *testing.T) {
			m, ok := mountAt(ctr, "/dev/shm")
			if !ok {
				t.Fatal("nothing is mounted at /dev/shm; Chromium tabs crash with the runtime's 64Mi")
			}
			v, _ := volumeNamed(w, m.Name)
			if v.EmptyDir == nil || v.EmptyDir.Medium != corev1.StorageMediumMemory || v.EmptyDir.SizeLimit == nil {
				t.Fatalf("/dev/shm is %+v, want an emptyDir in memory with a size limit", v.VolumeSource)
			}
			limit := ctr.Resources.Limits[corev1.ResourceMemory]
			if v.EmptyDir.SizeLimit.Cmp(limit) >= 0 {
				t.Errorf("/dev/shm may grow to %s, as much as the whole memory limit %s", v.EmptyDir.SizeLimit, &limit)
			}
		})

		t.Run("requests and limits leave Chromium room "+c.name, func(t *testing.T) {
			min := resource.MustParse("1Gi")
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if _, ok := ctr.Resources.Requests[res]; !ok {
					t.Errorf("the sidecar requests no %s", res)
				}
				if _, ok := ctr.Resources.Limits[res]; !ok {
					t.Errorf("the sidecar has no %s limit", res)
				}
			}
			if mem := ctr.Resources.Requests[corev1.ResourceMemory]; mem.Cmp(min) < 0 {
				t.Errorf("the sidecar requests %s of memory; Chromium needs at least %s", &mem, &min)
			}
		})

		t.Run("readiness and liveness ask /healthz on port 9230 "+c.name, func(t *testing.T) {
			if port, ok := portNamed(ctr, "http"); !ok || port != 9230 {
				t.Fatalf("the sidecar's http port is %d, want 9230", port)
			}
			if got := envOf(ctr)["GLIMPSE_SIDECAR_ADDR"].Value; got != ":9230" {
				t.Errorf("GLIMPSE_SIDECAR_ADDR = %q, want \":9230\"", got)
			}
			for name, p := range map[string]*corev1.Probe{"readiness": ctr.ReadinessProbe, "liveness": ctr.LivenessProbe, "startup": ctr.StartupProbe} {
				if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "http" {
					t.Errorf("the %s probe is %+v, want GET /healthz on the http port", name, p)
				}
			}
		})

		t.Run("a stopping sidecar gets time to finish its pages "+c.name, func(t *testing.T) {
			// The sidecar closes Chromium when told to stop, so the preStop
			// wait must outlast the longest request after the pool has
			// stopped leasing the sidecar.
			sleep := preStopSleep(t, ctr)
			maxTimeout := seconds(t, envOf(containerOf(t, workloadOf(t, r, "orchestrator"), "orchestrator"))["GLIMPSE_MAX_TIMEOUT"].Value)
			if sleep < maxTimeout+10 {
				t.Errorf("the sidecar's preStop waits %ds, less than GLIMPSE_MAX_TIMEOUT (%ds) plus 10s for the pool to notice", sleep, maxTimeout)
			}
			grace := w.template.Spec.TerminationGracePeriodSeconds
			if grace == nil || *grace <= sleep {
				t.Errorf("terminationGracePeriodSeconds %v does not outlast the %ds preStop", grace, sleep)
			}
		})
	}
}

// seconds reads a Go duration such as 60s; the tests need the chart to set it.
func seconds(t *testing.T, d string) int64 {
	t.Helper()
	v, err := time.ParseDuration(d)
	if err != nil {
		t.Fatalf("%q is not a duration: %v", d, err)
	}
	return int64(v.Seconds())
}

func preStopSleep(t *testing.T, ctr corev1.Container) int64 {
	t.Helper()
	if ctr.Lifecycle == nil || ctr.Lifecycle.PreStop == nil || ctr.Lifecycle.PreStop.Exec == nil {
		t.Fatalf("container %s has no preStop command", ctr.Name)
	}
	cmd := ctr.Lifecycle.PreStop.Exec.Command
	if len(cmd) != 2 || cmd[0] != "sleep" {
		t.Fatalf("container %s's preStop is %q, want sleep <seconds>", ctr.Name, cmd)
	}
	n, err := strconv.ParseInt(cmd[1], 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("container %s's preStop sleeps %q, not a number of seconds", ctr.Name, cmd[1])
	}
	return n
}

func TestOrchestratorPodsServeAndStopCleanly(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("the orchestrator probes /healthz and /readyz and drains before it stops "+c.name, func(t *testing.T) {
			r := render(t, c)
			w := workloadOf(t, r, "orchestrator")
			ctr := containerOf(t, w, "orchestrator")
			port, ok := portNamed(ctr, "http")
			if !ok || envOf(ctr)["GLIMPSE_ADDR"].Value != fmt.Sprintf(":%d", port) {
				t.Errorf("GLIMPSE_ADDR %q does not match the http port %d", envOf(ctr)["GLIMPSE_ADDR"].Value, port)
			}
			if p := ctr.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
				t.Errorf("the liveness probe is %+v, want GET /healthz", p)
			}
			if p := ctr.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" {
				t.Errorf("the readiness probe is %+v, want GET /readyz", p)
			}
			sleep := preStopSleep(t, ctr)
			env := envOf(ctr)
			shutdown, maxTimeout := seconds(t, env["GLIMPSE_SHUTDOWN_GRACE"].Value), seconds(t, env["GLIMPSE_MAX_TIMEOUT"].Value)
			if shutdown < maxTimeout {
				t.Errorf("GLIMPSE_SHUTDOWN_GRACE (%ds) cuts requests that may run GLIMPSE_MAX_TIMEOUT (%ds)", shutdown, maxTimeout)
			}
			if g := w.template.Spec.TerminationGracePeriodSeconds; g == nil || *g <= sleep+shutdown {
				t.Errorf("terminationGracePeriodSeconds %v does not outlast the %ds preStop plus the %ds shutdown grace", g, sleep, shutdown)
			}
		})
	}
}

func TestPodsRunLockedDown(t *testing.T) {
	for _, c := range valuesCases(t) {
		r := render(t, c)
		for _, w := range workloads(r) {
			t.Run(w.kind+" "+w.name+" runs unprivileged "+c.name, func(t *testing.T) {
				spec := w.template.Spec
				if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
					t.Error("the pod mounts a service account token it never uses")
				}
				psc := spec.SecurityContext
				if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
					t.Error("the pod may run as root")
				}
				if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
					t.Error("the pod has no RuntimeDefault seccomp profile")
				}
				for _, ctr := range spec.Containers {
					sc := ctr.SecurityContext
					if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
						t.Errorf("container %s may escalate privileges", ctr.Name)
					}
					if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
						t.Errorf("container %s has a writable root file system", ctr.Name)
					}
					if sc == nil || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0 {
						t.Errorf("container %s keeps Linux capabilities", ctr.Name)
					}
					if _, ok := ctr.Resources.Requests[corev1.ResourceMemory]; !ok {
						t.Errorf("container %s requests no memory", ctr.Name)
					}
					if _, ok := ctr.Resources.Limits[corev1.ResourceMemory]; !ok {
						t.Errorf("container %s has no memory limit", ctr.Name)
					}
					if !hasFixedTag(ctr.Image) {
						t.Errorf("container %s's image %q has no fixed tag or digest", ctr.Name, ctr.Image)
					}
				}
			})
		}
	}
}

func hasFixedTag(image string) bool {
	if strings.Contains(image, "@sha256:") {
		return true
	}
	name := image[strings.LastIndex(image, "/")+1:]
	i := strings.LastIndex(name, ":")
	return i > 0 && i < len(name)-1 && name[i+1:] != "latest"
}

func TestStorageIsWiredForEachMode(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("the orchestrator gets one complete storage configuration "+c.name, func(t *testing.T) {
			r := render(t, c)
			w := workloadOf(t, r, "orchestrator")
			ctr := containerOf(t, w, "orchestrator")
			env := envOf(ctr)
			endpoint, s3 := env["GLIMPSE_S3_ENDPOINT"]
			if !s3 {
				dir, ok := env["GLIMPSE_STORAGE_DIR"]
				if !ok {
					t.Fatal("neither GLIMPSE_S3_ENDPOINT nor GLIMPSE_STORAGE_DIR is set")
				}
				if _, ok := mountAt(ctr, dir.Value); !ok {
					t.Errorf("GLIMPSE_STORAGE_DIR is %s, but no volume is mounted there; the root file system is read-only", dir.Value)
				}
				if w.replicas == nil || *w.replicas != 1 {
					t.Errorf("local storage with %v replicas: each pod would have its own files", w.replicas)
				}
				return
			}
			if _, ok := env["GLIMPSE_STORAGE_DIR"]; ok {
				t.Error("both S3 and a storage directory are configured")
			}
			for _, name := range []string{"GLIMPSE_S3_BUCKET", "GLIMPSE_S3_REGION", "GLIMPSE_S3_SECURE"} {
				if env[name].Value == "" {
					t.Errorf("%s is empty", name)
				}
			}
			for _, name := range []string{"GLIMPSE_S3_ACCESS_KEY", "GLIMPSE_S3_SECRET_KEY"} {
				if e := env[name]; e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					t.Errorf("%s must come from a Secret, got %+v", name, e)
				}
			}
			if hasWorkload(r, "minio") {
				minio := containerOf(t, workloadOf(t, r, "minio"), "minio")
				port, _ := portNamed(minio, "api")
				want := fmt.Sprintf("%s-glimpse-minio.%s.svc.cluster.local:%d", releaseName, namespace, port)
				if endpoint.Value != want || env["GLIMPSE_S3_SECURE"].Value != "false" {
					t.Errorf("with the bundled MinIO the endpoint is %q (secure %s), want %q over plain HTTP", endpoint.Value, env["GLIMPSE_S3_SECURE"].Value, want)
				}
				menv := envOf(minio)
				for pair, wantKey := range map[string]string{"MINIO_ROOT_USER": "GLIMPSE_S3_ACCESS_KEY", "MINIO_ROOT_PASSWORD": "GLIMPSE_S3_SECRET_KEY"} {
					got, want := *menv[pair].ValueFrom.SecretKeyRef, *env[wantKey].ValueFrom.SecretKeyRef
					if got.Name != want.Name || got.Key != want.Key {
						t.Errorf("MinIO's %s comes from %s/%s but glimpse's %s from %s/%s", pair, got.Name, got.Key, wantKey, want.Name, want.Key)
					}
				}
				job := workloadOf(t, r, "minio-bucket")
				if jenv := envOf(containerOf(t, job, "mc")); jenv["BUCKET"].Value != env["GLIMPSE_S3_BUCKET"].Value {
					t.Errorf("the bucket job creates %q but glimpse uses %q", jenv["BUCKET"].Value, env["GLIMPSE_S3_BUCKET"].Value)
				}
			} else if strings.Contains(endpoint.Value, "://") {
				t.Errorf("GLIMPSE_S3_ENDPOINT %q has a scheme; it is host[:port], with GLIMPSE_S3_SECURE choosing HTTPS", endpoint.Value)
			}
		})
	}
}

func TestPlansFileIsMountedWhereGlimpsePlansPoints(t *testing.T) {
	for _, c := range valuesCases(t) {
		t.Run("GLIMPSE_PLANS names a mounted plans file "+c.name, func(t *testing.T) {
			r := render(t, c)
			w := workloadOf(t, r, "orchestrator")
			ctr := containerOf(t, w, "orchestrator")
			plans, ok := envOf(ctr)["GLIMPSE_PLANS"]
			if !ok {
				return // the built-in anonymous plan
			}
			dir, file := filepath.Split(plans.Value)
			m, ok := mountAt(ctr, strings.TrimSuffix(dir, "/"))
			if !ok {
				t.Fatalf("GLIMPSE_PLANS is %s but nothing is mounted at %s", plans.Value, dir)
			}
			v, _ := volumeNamed(w, m.Name)
			switch {
			case v.ConfigMap != nil:
				for _, cm := range objectsOf[*corev1.ConfigMap](r) {
					if cm.Name != v.ConfigMap.Name {
						continue
					}
					var parsed map[string]any
					if err := yaml.Unmarshal([]byte(cm.Data[file]), &parsed); err != nil || len(parsed) == 0 {
						t.Errorf("ConfigMap %s has no plans file %s (%v)", cm.Name, file, err)
					}
				}
			case v.Secret != nil:
				if len(v.Secret.Items) != 1 || v.Secret.Items[0].Path != file {
					t.Errorf("the plans Secret is mounted with items %+v, want one item at %s", v.Secret.Items, file)
				}
			default:
				t.Errorf("the plans volume is neither a ConfigMap nor a Secret: %+v", v.VolumeSource)
			}
		})
	}
}

func TestDashboardConfigMapIsPickedUpByGrafana(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(chartDir, "dashboards", "glimpse.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range valuesCases(t) {
		t.Run("the dashboard ConfigMap carries grafana_dashboard=1 and the dashboard file "+c.name, func(t *testing.T) {
			r := render(t, c)
			found := false
			for _, cm := range objectsOf[*corev1.ConfigMap](r) {
				if cm.Labels["grafana_dashboard"] == "" {
					continue
				}
				found = true
				if cm.Labels["grafana_dashboard"] != "1" {
					t.Errorf("ConfigMap %s has grafana_dashboard=%q, want \"1\"", cm.Name, cm.Labels["grafana_dashboard"])
				}
				if got := cm.Data["glimpse.json"]; strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
					t.Errorf("ConfigMap %s does not hold dashboards/glimpse.json as it is", cm.Name)
				}
			}
			if enabled := valuesOf(t, c).lookup("dashboards.enabled"); found != (enabled == true) {
				t.Errorf("dashboards.enabled is %v but a dashboard ConfigMap rendered: %v", enabled, found)
			}
		})
	}
}
