package helm_test

import (
	"net/netip"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Addresses the browser must never reach: cluster, node, loopback and
// metadata addresses in every family.
var forbiddenAddresses = []string{
	"10.0.0.1", "10.96.0.10", "172.16.0.1", "172.31.255.254", "192.168.1.1",
	"100.64.0.1", "100.127.255.254", "169.254.169.254", "169.254.20.10",
	"127.0.0.1", "0.0.0.0", "224.0.0.251",
	"::1", "fd00::1", "fc00::1", "fe80::1", "::ffff:10.0.0.1", "::ffff:169.254.169.254",
}

// Addresses of the public internet, which pages live on.
var publicAddresses = []string{"93.184.216.34", "1.1.1.1", "8.8.8.8", "2606:2800:220:1::1"}

func TestNetworkPoliciesKeepTheClusterOutOfReach(t *testing.T) {
	for _, c := range valuesCases(t) {
		r := render(t, c)
		enabled := valuesOf(t, c).lookup("networkPolicy.enabled") == true
		policies := map[string]*networkingv1.NetworkPolicy{}
		for _, p := range objectsOf[*networkingv1.NetworkPolicy](r) {
			policies[p.Spec.PodSelector.MatchLabels[componentLabel]] = p
		}
		if !enabled {
			t.Run("no NetworkPolicy is rendered when they are off "+c.name, func(t *testing.T) {
				if len(policies) > 0 {
					t.Errorf("%d NetworkPolicies rendered", len(policies))
				}
			})
			continue
		}
		sidecarPods := workloadOf(t, r, "sidecar").template.Labels
		orchestratorPods := workloadOf(t, r, "orchestrator").template.Labels

		t.Run("every glimpse pod is under a policy for both directions "+c.name, func(t *testing.T) {
			for _, w := range workloads(r) {
				comp := w.template.Labels[componentLabel]
				if comp == "minio-bucket" {
					continue // a short-lived job that only talks to MinIO
				}
				p, ok := policies[comp]
				if !ok || !selects(p.Spec.PodSelector, w.template.Labels) {
					t.Errorf("no NetworkPolicy selects the %s pods", comp)
					continue
				}
				if len(p.Spec.PolicyTypes) != 2 {
					t.Errorf("NetworkPolicy %s restricts %v, want Ingress and Egress", p.Name, p.Spec.PolicyTypes)
				}
			}
		})

		t.Run("sidecars reach the internet and DNS but no cluster, node or metadata address "+c.name, func(t *testing.T) {
			p := policies["sidecar"]
			for _, addr := range forbiddenAddresses {
				if rule, ok := egressAllows(p, netip.MustParseAddr(addr)); ok {
					t.Errorf("sidecars may reach %s through egress rule %d", addr, rule)
				}
			}
			for _, addr := range publicAddresses {
				if _, ok := egressAllows(p, netip.MustParseAddr(addr)); !ok {
					t.Errorf("sidecars may not reach the public address %s", addr)
				}
			}
			if !allowsDNS(p) {
				t.Error("sidecars may not reach DNS on port 53 over UDP and TCP")
			}
		})

		t.Run("only the orchestrator and the scrapers reach the sidecars' DevTools port "+c.name, func(t *testing.T) {
			p := policies["sidecar"]
			for i, rule := range p.Spec.Ingress {
				if len(rule.From) == 0 {
					t.Errorf("ingress rule %d lets anyone reach the sidecars", i)
				}
				for _, peer := range rule.From {
					if peer.IPBlock != nil {
						t.Errorf("ingress rule %d admits the address block %s", i, peer.IPBlock.CIDR)
					}
				}
			}
			if !ingressAdmits(p, orchestratorPods, 9230) {
				t.Error("the orchestrator may not reach the sidecars on 9230")
			}
		})

		t.Run("the orchestrator reaches only the sidecars, storage and DNS "+c.name, func(t *testing.T) {
			p := policies["orchestrator"]
			if !egressToPods(p, sidecarPods, 9230) {
				t.Error("the orchestrator may not reach the sidecars on 9230")
			}
			if !allowsDNS(p) {
				t.Error("the orchestrator may not reach DNS")
			}
			if hasWorkload(r, "minio") && !egressToPods(p, workloadOf(t, r, "minio").template.Labels, 9000) {
				t.Error("the orchestrator may not reach the bundled MinIO")
			}
			for i, rule := range p.Spec.Egress {
				if len(rule.To) == 0 || len(rule.Ports) == 0 {
					t.Errorf("egress rule %d of the orchestrator is open to every address or port", i)
				}
			}
			for _, addr := range append(publicAddresses, "169.254.169.254", "10.0.0.1") {
				if rule, ok := egressAllows(p, netip.MustParseAddr(addr)); ok {
					t.Errorf("the orchestrator may reach %s through egress rule %d", addr, rule)
				}
			}
		})

		if _, ok := policies["minio"]; ok {
			t.Run("MinIO is reached by glimpse only "+c.name, func(t *testing.T) {
				p := policies["minio"]
				if !ingressAdmits(p, orchestratorPods, 9000) {
					t.Error("the orchestrator may not reach MinIO")
				}
				if ingressAdmits(p, sidecarPods, 9000) {
					t.Error("the sidecars (and so any page) may reach MinIO")
				}
				if len(p.Spec.Egress) != 1 || !allowsDNS(p) {
					t.Errorf("MinIO may reach more than DNS: %+v", p.Spec.Egress)
				}
			})
		}
	}
}

func selects(sel metav1.LabelSelector, podLabels map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(&sel)
	return err == nil && s.Matches(labels.Set(podLabels))
}

// egressAllows reports whether an ipBlock of p lets traffic to addr out,
// and through which rule.
func egressAllows(p *networkingv1.NetworkPolicy, addr netip.Addr) (int, bool) {
	// An IPv4-mapped IPv6 address is the IPv4 address on the wire of a
	// dual-stack socket, and the policy sees the IPv4 packet.
	addr = addr.Unmap()
	for i, rule := range p.Spec.Egress {
		if len(rule.To) == 0 {
			return i, true
		}
		for _, peer := range rule.To {
			if peer.IPBlock == nil {
				continue
			}
			if blockHolds(peer.IPBlock.CIDR, addr) && !anyBlockHolds(peer.IPBlock.Except, addr) {
				return i, true
			}
		}
	}
	return 0, false
}

func blockHolds(cidr string, addr netip.Addr) bool {
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return false
	}
	return prefix.Contains(addr)
}

func anyBlockHolds(cidrs []string, addr netip.Addr) bool {
	for _, c := range cidrs {
		if blockHolds(c, addr) {
			return true
		}
	}
	return false
}

func allowsDNS(p *networkingv1.NetworkPolicy) bool {
	for _, rule := range p.Spec.Egress {
		udp, tcp := false, false
		for _, port := range rule.Ports {
			if port.Port == nil || port.Port.IntValue() != 53 {
				continue
			}
			proto := corev1.ProtocolTCP // the API's default
			if port.Protocol != nil {
				proto = *port.Protocol
			}
			udp = udp || proto == corev1.ProtocolUDP
			tcp = tcp || proto == corev1.ProtocolTCP
		}
		if udp && tcp && len(rule.To) > 0 {
			return true
		}
	}
	return false
}

func egressToPods(p *networkingv1.NetworkPolicy, podLabels map[string]string, port int) bool {
	for _, rule := range p.Spec.Egress {
		for _, peer := range rule.To {
			if peer.PodSelector != nil && peer.NamespaceSelector == nil && selects(*peer.PodSelector, podLabels) && hasPort(rule.Ports, port) {
				return true
			}
		}
	}
	return false
}

func ingressAdmits(p *networkingv1.NetworkPolicy, podLabels map[string]string, port int) bool {
	for _, rule := range p.Spec.Ingress {
		for _, peer := range rule.From {
			if peer.PodSelector != nil && peer.NamespaceSelector == nil && selects(*peer.PodSelector, podLabels) && hasPort(rule.Ports, port) {
				return true
			}
		}
	}
	return false
}

func hasPort(ports []networkingv1.NetworkPolicyPort, port int) bool {
	for _, p := range ports {
		if p.Port != nil && p.Port.IntValue() == port {
			return true
		}
	}
	return false
}

// TestNetworkPolicyBlocksAreOnesTheAPIServerAccepts holds the API server's
// own checks of ipBlock: no IPv4-mapped IPv6 block, and every exception a
// strict subset of its block. A policy that fails them fails the install.
func TestNetworkPolicyBlocksAreOnesTheAPIServerAccepts(t *testing.T) {
	for _, c := range valuesCases(t) {
		for _, p := range objectsOf[*networkingv1.NetworkPolicy](render(t, c)) {
			for _, rule := range p.Spec.Egress {
				for _, peer := range rule.To {
					b := peer.IPBlock
					if b == nil {
						continue
					}
					cidr, err := netip.ParsePrefix(b.CIDR)
					if err != nil || cidr.Addr().Is4In6() {
						t.Errorf("%s %s: block %q is not one the API server accepts", c.name, p.Name, b.CIDR)
						continue
					}
					for _, e := range b.Except {
						ex, err := netip.ParsePrefix(e)
						if err != nil || ex.Addr().Is4In6() || ex.Bits() <= cidr.Bits() || !cidr.Contains(ex.Addr()) {
							t.Errorf("%s %s: exception %q of %q is not a strict subset the API server accepts", c.name, p.Name, e, b.CIDR)
						}
					}
				}
			}
		}
	}
}
