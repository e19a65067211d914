//go:build linux

package helm_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// The fake node the chart's pods run on: kwok marks it Ready and plays a
// kubelet for the pods bound to it.
const fakeNode = "kwok-node"

// The CRDs of the prometheus-operator kinds the chart renders.
var monitoringCRDs = []string{
	"monitoring.coreos.com_servicemonitors.yaml",
	"monitoring.coreos.com_prometheusrules.yaml",
}

// kubeTools are the programs of a small Kubernetes control plane and what
// they read: built or generated into the cache by .ci/deps.sh.
type kubeTools struct {
	etcd              string
	apiserver         string
	controllerManager string
	scheduler         string
	kwok              string
	kwokStages        string // kwok's stage configuration
	crdDir            string // the prometheus-operator CRDs
}

// findKubeTools looks in GLIMPSE_KUBE_BIN_DIR and GLIMPSE_KUBE_DATA_DIR,
// which `make test` sets, or else in the cache `make deps` fills; etcd may
// also come from PATH, where Debian's etcd-server puts it.
func findKubeTools() (kubeTools, error) {
	home, _ := os.UserHomeDir()
	binDir := os.Getenv("GLIMPSE_KUBE_BIN_DIR")
	if binDir == "" {
		binDir = filepath.Join(home, ".cache", "glimpse", "bin")
	}
	dataDir := os.Getenv("GLIMPSE_KUBE_DATA_DIR")
	if dataDir == "" {
		dataDir = filepath.Join(home, ".cache", "glimpse", "kube")
	}
	k := kubeTools{
		apiserver:         filepath.Join(binDir, "kube-apiserver"),
		controllerManager: filepath.Join(binDir, "kube-controller-manager"),
		scheduler:         filepath.Join(binDir, "kube-scheduler"),
		kwok:              filepath.Join(binDir, "kwok"),
		etcd:              filepath.Join(binDir, "etcd"),
		kwokStages:        filepath.Join(dataDir, "kwok.yaml"),
		crdDir:            filepath.Join(dataDir, "crd"),
	}
	if _, err := os.Stat(k.etcd); err != nil {
		if p, err := exec.LookPath("etcd"); err == nil {
			k.etcd = p
		}
	}
	var missing []string
	for _, p := range []string{k.etcd, k.apiserver, k.controllerManager, k.scheduler, k.kwok, k.kwokStages} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
		}
	}
	for _, f := range monitoringCRDs {
		if _, err := os.Stat(filepath.Join(k.crdDir, f)); err != nil {
			missing = append(missing, filepath.Join(k.crdDir, f))
		}
	}
	if len(missing) > 0 {
		return k, fmt.Errorf("the Kubernetes test cluster is not installed (missing %s): run `make deps` (or `make test`), which builds it once into the cache, or point GLIMPSE_KUBE_BIN_DIR and GLIMPSE_KUBE_DATA_DIR at a copy", strings.Join(missing, ", "))
	}
	return k, nil
}

// process is one program of the cluster, in its own process group, killed
// with the test binary if that dies first.
type process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startProcess(dir, name string, env []string, bin string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop asks the process group to end, then kills it.
func (p *process) stop() {
	if p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// tail is the end of the process's log, for a failure message.
func (p *process) tail(lines int) string {
	b, _ := os.ReadFile(p.log)
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// cluster is etcd, an API server, a controller manager, a scheduler and
// kwok on loopback, spoken to over HTTPS with an admin bearer token.
type cluster struct {
	helm       string // the helm binary
	dir        string
	url        string
	token      string
	kubeconfig string
	client     *http.Client
	procs      []*process

	discoveryMu sync.Mutex
	discovery   map[string][]metav1.APIResource // by group version
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startCluster starts the control plane and a fake node and stops all of it
// when the test ends.
func startCluster(t *testing.T, tools kubeTools, helm string) *cluster {
	t.Helper()
	c := &cluster{helm: helm, dir: t.TempDir(), discovery: map[string][]metav1.APIResource{}}
	t.Cleanup(func() {
		if t.Failed() {
			for _, p := range c.procs {
				t.Logf("the end of %s's log:\n%s", p.name, p.tail(40))
			}
		}
		for i := len(c.procs) - 1; i >= 0; i-- {
			c.procs[i].stop()
		}
	})
	home := filepath.Join(c.dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	// Streamed lists (watch-list) need etcd to send progress notifications
	// on request, which Debian's etcd 3.4 does not. The API server then
	// refuses them, and with its WatchList feature on it also turns every
	// watch from resourceVersion 0 (kwok's) into one: those watches end at
	// once and are retried with a backoff, so pods would take tens of
	// seconds to move. The plain list and watch is used everywhere instead.
	env := []string{"HOME=" + home, "KUBE_FEATURE_WatchListClient=false"}
	const noWatchList = "--feature-gates=WatchListClient=false"

	// etcd and the API server pick free ports just before they bind; on
	// the rare clash with another program, they are started again.
	var etcdURL string
	for attempt := 1; ; attempt++ {
		etcdURL = fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
		peerURL := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
		data := filepath.Join(c.dir, fmt.Sprintf("etcd-%d", attempt))
		p, err := startProcess(c.dir, fmt.Sprintf("etcd-%d", attempt), env, tools.etcd,
			"--name=test", "--data-dir="+data,
			"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
			"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
			"--initial-cluster=test="+peerURL,
			"--logger=zap", "--log-level=warn", "--quota-backend-bytes=4294967296")
		if err != nil {
			t.Fatal(err)
		}
		c.procs = append(c.procs, p)
		probe := &http.Client{Timeout: 5 * time.Second}
		if err := waitHealthy(p, 60*time.Second, func() bool {
			resp, err := probe.Get(etcdURL + "/health")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		}); err != nil {
			if c.retry(p, attempt) {
				continue
			}
			t.Fatalf("etcd did not start: %v\n%s", err, p.tail(20))
		}
		break
	}

	c.token = randomHex(t, 32)
	tokens := filepath.Join(c.dir, "tokens.csv")
	writeFile(t, tokens, c.token+`,admin,admin,"system:masters"`+"\n")
	saKey := filepath.Join(c.dir, "service-account.key")
	writeFile(t, saKey, string(serviceAccountKey(t)))
	pki := filepath.Join(c.dir, "pki")

	for attempt := 1; ; attempt++ {
		port := freePort(t)
		c.url = fmt.Sprintf("https://127.0.0.1:%d", port)
		p, err := startProcess(c.dir, fmt.Sprintf("kube-apiserver-%d", attempt), env, tools.apiserver,
			"--etcd-servers="+etcdURL,
			"--etcd-prefix=/registry",
			"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
			"--secure-port="+strconv.Itoa(port),
			"--cert-dir="+pki,
			// The endpoints of the kubernetes Service may not hold a loopback
			// address, so the reconciler that writes them is off; nothing
			// here needs them.
			"--endpoint-reconciler-type=none",
			"--service-cluster-ip-range=10.96.0.0/16",
			"--token-auth-file="+tokens,
			"--authorization-mode=RBAC",
			"--service-account-key-file="+saKey,
			"--service-account-signing-key-file="+saKey,
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--enable-priority-and-fairness=false",
			noWatchList+",WatchList=false",
			"--profiling=false")
		if err != nil {
			t.Fatal(err)
		}
		c.procs = append(c.procs, p)
		if err := waitHealthy(p, 2*time.Minute, func() bool { return c.connect(pki) == nil }); err != nil {
			if c.retry(p, attempt) {
				continue
			}
			t.Fatalf("kube-apiserver did not become ready at %s: %v\n%s", c.url, err, p.tail(30))
		}
		break
	}

	c.kubeconfig = filepath.Join(c.dir, "admin.kubeconfig")
	kubeconfig, _ := json.Marshal(map[string]any{
		"apiVersion": "v1",
		"kind":       "Config",
		"clusters": []any{map[string]any{"name": "test", "cluster": map[string]any{
			"server": c.url, "certificate-authority": filepath.Join(pki, "apiserver.crt"),
		}}},
		"users":           []any{map[string]any{"name": "admin", "user": map[string]any{"token": c.token}}},
		"contexts":        []any{map[string]any{"name": "test", "context": map[string]any{"cluster": "test", "user": "admin"}}},
		"current-context": "test",
	})
	writeFile(t, c.kubeconfig, string(kubeconfig))

	c.start(t, env, "kube-controller-manager", tools.controllerManager,
		"--kubeconfig="+c.kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		// No kubelet posts node status and there is no pod network: the
		// node lifecycle controller would taint the fake node and evict its
		// pods, and node IPAM has no cluster CIDR to give out.
		"--controllers=*,-node-lifecycle-controller,-node-ipam-controller",
		"--use-service-account-credentials=false",
		noWatchList,
		"--service-account-private-key-file="+saKey)
	c.start(t, env, "kube-scheduler", tools.scheduler,
		"--kubeconfig="+c.kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		noWatchList)
	c.start(t, env, "kwok", tools.kwok,
		"--kubeconfig="+c.kubeconfig,
		"--config="+tools.kwokStages,
		"--manage-single-node="+fakeNode,
		"--cidr=10.244.0.0/16")

	c.addNode(t)
	return c
}

// retry drops p, which died, if it may be started again on other ports.
func (c *cluster) retry(p *process, attempt int) bool {
	if !p.exited() || attempt >= 3 || !strings.Contains(p.tail(20), "address already in use") {
		return false
	}
	c.procs = c.procs[:len(c.procs)-1]
	return true
}

func (c *cluster) start(t *testing.T, env []string, name, bin string, args ...string) {
	t.Helper()
	p, err := startProcess(c.dir, name, env, bin, args...)
	if err != nil {
		t.Fatal(err)
	}
	c.procs = append(c.procs, p)
}

// waitHealthy polls healthy until it holds, the process dies or the time is
// up.
func waitHealthy(p *process, timeout time.Duration, healthy func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if healthy() {
			return nil
		}
		if p.exited() {
			return fmt.Errorf("%s exited: %v", p.name, p.err)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not ready after %s", p.name, timeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// connect trusts the serving certificate the API server made for itself in
// its cert dir and asks it whether it is ready.
func (c *cluster) connect(pki string) error {
	certs, err := os.ReadFile(filepath.Join(pki, "apiserver.crt"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certs) {
		return errors.New("no certificate in apiserver.crt yet")
	}
	client := &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	req, err := http.NewRequest(http.MethodGet, c.url+"/readyz", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("readyz: %s: %s", resp.Status, b)
	}
	c.client = client
	return nil
}

// alive fails the test when a program of the cluster has died.
func (c *cluster) alive(t *testing.T) {
	t.Helper()
	for _, p := range c.procs {
		if p.exited() {
			t.Fatalf("%s exited: %v\n%s", p.name, p.err, p.tail(30))
		}
	}
}

// addNode registers the fake node kwok plays, with room for every pod of
// the tests. The API server taints a new node not-ready; the node
// lifecycle controller that would lift the taint is off, so it is lifted
// here once kwok has marked the node Ready.
func (c *cluster) addNode(t *testing.T) {
	t.Helper()
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("64Gi"),
		corev1.ResourcePods:   resource.MustParse("110"),
	}
	node := corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name:        fakeNode,
			Labels:      map[string]string{"kubernetes.io/hostname": fakeNode, "kubernetes.io/os": "linux", "type": "kwok"},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	c.create(t, "/api/v1/nodes", node)
	c.waitFor(t, "the fake node to be Ready and untainted", 2*time.Minute, func() (bool, string) {
		var n corev1.Node
		if err := c.get("/api/v1/nodes/"+fakeNode, &n); err != nil {
			return false, err.Error()
		}
		ready := false
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			return false, "kwok has not marked it Ready"
		}
		if len(n.Spec.Taints) > 0 {
			if err := c.do(http.MethodPatch, "/api/v1/nodes/"+fakeNode, "application/merge-patch+json",
				map[string]any{"spec": map[string]any{"taints": nil}}, nil); err != nil {
				return false, err.Error()
			}
			return false, fmt.Sprintf("it has the taints %v", n.Spec.Taints)
		}
		return true, ""
	})
}

// apiError is an answer of the API server other than 2xx.
type apiError struct {
	method, path string
	code         int
	message      string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.method, e.path, e.code, e.message)
}

func isAlreadyExists(err error) bool {
	var e *apiError
	return errors.As(err, &e) && e.code == http.StatusConflict
}

// do sends body as JSON (or as is, if it is []byte) and decodes the answer
// into out.
func (c *cluster) do(method, path, contentType string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, ok := body.([]byte)
		if !ok {
			var err error
			if b, err = json.Marshal(body); err != nil {
				return err
			}
		}
		r = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.url+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var status metav1.Status
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &status) == nil && status.Message != "" {
			msg = status.Message
		}
		return &apiError{method: method, path: path, code: resp.StatusCode, message: msg}
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

func (c *cluster) get(path string, out any) error {
	return c.do(http.MethodGet, path, "", nil, out)
}

// create posts obj to path; an object that is already there is fine.
func (c *cluster) create(t *testing.T, path string, obj any) {
	t.Helper()
	if err := c.do(http.MethodPost, path, "application/json", obj, nil); err != nil && !isAlreadyExists(err) {
		t.Fatalf("creating an object at %s: %v", path, err)
	}
}

// waitFor polls check until it holds, failing the test with check's last
// reason when the time is up or a program of the cluster dies.
func (c *cluster) waitFor(t *testing.T, what string, timeout time.Duration, check func() (bool, string)) {
	t.Helper()
	if ok, why := c.poll(t, timeout, check); !ok {
		t.Fatalf("waited %s for %s: %s", timeout, what, why)
	}
}

// poll calls check until it holds or the time is up and returns check's
// last answer; it fails the test when a program of the cluster dies.
func (c *cluster) poll(t *testing.T, timeout time.Duration, check func() (bool, string)) (bool, string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, why := check()
		if ok || time.Now().After(deadline) {
			return ok, why
		}
		c.alive(t)
		time.Sleep(250 * time.Millisecond)
	}
}

// resourcePath finds the REST path of an object of apiVersion and kind
// through the API server's discovery. namespace applies to namespaced
// kinds only.
func (c *cluster) resourcePath(apiVersion, kind, namespace, name string) (string, error) {
	c.discoveryMu.Lock()
	resources, ok := c.discovery[apiVersion]
	c.discoveryMu.Unlock()
	if !ok {
		prefix := "/apis/" + apiVersion
		if apiVersion == "v1" {
			prefix = "/api/v1"
		}
		var list metav1.APIResourceList
		if err := c.get(prefix, &list); err != nil {
			return "", fmt.Errorf("the API server does not serve %s: %w", apiVersion, err)
		}
		resources = list.APIResources
		c.discoveryMu.Lock()
		c.discovery[apiVersion] = resources
		c.discoveryMu.Unlock()
	}
	for _, r := range resources {
		if r.Kind != kind || strings.Contains(r.Name, "/") {
			continue
		}
		p := "/apis/" + apiVersion
		if apiVersion == "v1" {
			p = "/api/v1"
		}
		if r.Namespaced {
			p += "/namespaces/" + namespace
		}
		p += "/" + r.Name
		if name != "" {
			p += "/" + url.PathEscape(name)
		}
		return p, nil
	}
	return "", fmt.Errorf("the API server has no kind %s in %s", kind, apiVersion)
}

// applyCRDs creates the CustomResourceDefinitions in files and waits until
// they are established and served.
func (c *cluster) applyCRDs(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		y, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		j, err := yaml.YAMLToJSON(y)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var crd struct {
			Metadata struct{ Name string }
			Spec     struct {
				Group    string
				Names    struct{ Plural string }
				Versions []struct{ Name string }
			}
		}
		if err := json.Unmarshal(j, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c.create(t, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", j)
		c.waitFor(t, "the CRD "+crd.Metadata.Name+" to be established", time.Minute, func() (bool, string) {
			var got struct {
				Status struct{ Conditions []metav1.Condition }
			}
			if err := c.get("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+crd.Metadata.Name, &got); err != nil {
				return false, err.Error()
			}
			for _, cond := range got.Status.Conditions {
				if cond.Type == "Established" && cond.Status == metav1.ConditionTrue {
					return true, ""
				}
			}
			return false, fmt.Sprintf("conditions %+v", got.Status.Conditions)
		})
		for _, v := range crd.Spec.Versions {
			path := "/apis/" + crd.Spec.Group + "/" + v.Name + "/" + crd.Spec.Names.Plural
			c.waitFor(t, path+" to be served", time.Minute, func() (bool, string) {
				if err := c.get(path, nil); err != nil {
					return false, err.Error()
				}
				return true, ""
			})
		}
	}
	c.discoveryMu.Lock()
	clear(c.discovery)
	c.discoveryMu.Unlock()
}

// bindClaims gives every pending claim in namespace a volume of its own:
// the cluster has no provisioner, and the scheduler does not place a pod
// whose claim is unbound.
func (c *cluster) bindClaims(namespace string) error {
	var claims corev1.PersistentVolumeClaimList
	if err := c.get("/api/v1/namespaces/"+namespace+"/persistentvolumeclaims", &claims); err != nil {
		return err
	}
	for _, pvc := range claims.Items {
		if pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil {
			continue
		}
		size := pvc.Spec.Resources.Requests[corev1.ResourceStorage]
		pv := corev1.PersistentVolume{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
			ObjectMeta: metav1.ObjectMeta{Name: "pv-" + string(pvc.UID)},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: size},
				AccessModes:                   pvc.Spec.AccessModes,
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
				StorageClassName:              ptrValue(pvc.Spec.StorageClassName),
				ClaimRef: &corev1.ObjectReference{
					APIVersion: "v1", Kind: "PersistentVolumeClaim",
					Namespace: namespace, Name: pvc.Name, UID: pvc.UID,
				},
				PersistentVolumeSource: corev1.PersistentVolumeSource{
					HostPath: &corev1.HostPathVolumeSource{Path: "/srv/volumes/" + string(pvc.UID)},
				},
			},
		}
		err := c.do(http.MethodPost, "/api/v1/persistentvolumes", "application/json", pv, nil)
		if err != nil && !isAlreadyExists(err) {
			return err
		}
	}
	return nil
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// events is the namespace's recent events, for a failure message.
func (c *cluster) events(namespace string) string {
	var list corev1.EventList
	if err := c.get("/api/v1/namespaces/"+namespace+"/events", &list); err != nil {
		return err.Error()
	}
	var b strings.Builder
	items := list.Items
	if len(items) > 40 {
		items = items[len(items)-40:]
	}
	for _, e := range items {
		fmt.Fprintf(&b, "  %s %s/%s: %s: %s\n", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
	}
	return b.String()
}

// serviceAccountKey is a fresh key the API server signs service-account
// tokens with.
func serviceAccountKey(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// helmIn runs helm against the cluster, with its own configuration and
// cache under home so that no cached discovery outlives a CRD.
func (c *cluster) helmIn(home string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.helm, args...)
	cmd.Env = append(os.Environ(),
		"KUBECONFIG="+c.kubeconfig,
		"HOME="+home,
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}
