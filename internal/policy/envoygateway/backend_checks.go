package envoygateway

import (
	"encoding/json"
	"net/netip"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gwpol/gwpol/internal/model"
)

// backendSpec is the part of a Backend's spec validateBackend reads.
type backendSpec struct {
	Type      *string `json:"type"`
	Endpoints []struct {
		Hostname *string `json:"hostname"`
		FQDN     *struct {
			Hostname string `json:"hostname"`
			Port     int32  `json:"port"`
		} `json:"fqdn"`
		IP *struct {
			Address string `json:"address"`
			Port    int32  `json:"port"`
		} `json:"ip"`
		Unix *struct {
			Path string `json:"path"`
		} `json:"unix"`
	} `json:"endpoints"`
	TLS *struct {
		InsecureSkipVerify      *bool   `json:"insecureSkipVerify"`
		WellKnownCACertificates *string `json:"wellKnownCACertificates"`
		CACertificateRefs       []any   `json:"caCertificateRefs"`
		ClientCertificateRef    *struct {
			Namespace *string `json:"namespace"`
		} `json:"clientCertificateRef"`
	} `json:"tls"`
}

// backendTLSPolicyGK is the Gateway API's BackendTLSPolicy.
var backendTLSPolicyGK = model.GroupKind{Group: model.GatewayGroup, Kind: "BackendTLSPolicy"}

// validateBackend is Envoy Gateway's validateBackend (backend.go), which
// a route's backendRef to a Backend runs (validateBackendRefBackend): a
// DynamicResolver has no endpoints; TLS that verifies has CA certificates,
// its own or from BackendTLSPolicies on the Backend (one on the whole
// Backend, or one on every endpoint port); a client certificate Secret in
// the Backend's namespace; every endpoint's hostname and FQDN a DNS
// subdomain of two labels or more (unless Envoy Gateway runs on the host)
// that is not an IP address; every IP an address, not a loopback one
// unless on the host. It returns the route reason and message of the
// first problem ("" when valid).
func validateBackend(m *model.Model, ns, name string, raw []byte, onHost bool) (reason, msg string) {
	var spec backendSpec
	if json.Unmarshal(raw, &spec) != nil {
		return "", ""
	}
	if spec.Type != nil && *spec.Type == "DynamicResolver" && len(spec.Endpoints) > 0 {
		return "InvalidBackendRef", "DynamicResolver type cannot have endpoints specified."
	}
	if tls := spec.TLS; tls != nil {
		if (tls.InsecureSkipVerify == nil || !*tls.InsecureSkipVerify) && tls.WellKnownCACertificates == nil && len(tls.CACertificateRefs) == 0 &&
			!backendTLSPoliciesVerify(m, name, spec) {
			return "InvalidBackendRef", "must specify either CACertificateRefs or WellKnownCACertificates when InsecureSkipVerify is unset or false."
		}
		if c := tls.ClientCertificateRef; c != nil && c.Namespace != nil && *c.Namespace != "" && *c.Namespace != ns {
			return "InvalidBackendRef", "clientCertificateRef Secret is not located in the same namespace as Backend. Secret namespace: " + *c.Namespace + " does not match Backend namespace: " + ns + "."
		}
	}
	for _, ep := range spec.Endpoints {
		if ep.Hostname != nil {
			if msg := backendHostnameProblem(*ep.Hostname, "hostname", onHost); msg != "" {
				return "InvalidAddress", msg
			}
		}
		switch {
		case ep.FQDN != nil:
			if msg := backendHostnameProblem(ep.FQDN.Hostname, "FQDN", onHost); msg != "" {
				return "InvalidAddress", msg
			}
		case ep.IP != nil:
			a, err := netip.ParseAddr(ep.IP.Address)
			switch {
			case err != nil:
				return "InvalidAddress", "IP address " + ep.IP.Address + " is invalid."
			case a.IsLoopback() && !onHost:
				return "InvalidAddress", "IP address " + ep.IP.Address + " in the loopback range is only supported when using the Host infrastructure."
			}
		}
	}
	return "", ""
}

// backendTLSPoliciesVerify: BackendTLSPolicies give the Backend CA
// certificates — one targeting the whole Backend with them, or, per
// endpoint port, one targeting that port (its sectionName). Envoy
// Gateway matches the policies' targets by the Backend's name only,
// whatever their namespace; so does this.
func backendTLSPoliciesVerify(m *model.Model, name string, spec backendSpec) bool {
	ports := map[string]bool{}
	for _, ep := range spec.Endpoints {
		switch {
		case ep.FQDN != nil:
			ports[strconv.Itoa(int(ep.FQDN.Port))] = false
		case ep.IP != nil:
			ports[strconv.Itoa(int(ep.IP.Port))] = false
		}
	}
	for _, o := range m.OfKind(backendTLSPolicyGK) {
		var p struct {
			TargetRefs []struct {
				Group, Kind, Name string
				SectionName       *string `json:"sectionName"`
			} `json:"targetRefs"`
			Validation struct {
				WellKnownCACertificates *string `json:"wellKnownCACertificates"`
				CACertificateRefs       []any   `json:"caCertificateRefs"`
			} `json:"validation"`
		}
		raw, err := o.FieldJSON("spec")
		if err != nil || json.Unmarshal(raw, &p) != nil {
			continue
		}
		for _, t := range p.TargetRefs {
			if t.Group != Group || t.Kind != backend.Kind || t.Name != name {
				continue
			}
			if t.SectionName == nil {
				if p.Validation.WellKnownCACertificates != nil || len(p.Validation.CACertificateRefs) > 0 {
					return true
				}
				continue
			}
			if _, ok := ports[*t.SectionName]; ok {
				ports[*t.SectionName] = true
			}
		}
	}
	if len(ports) == 0 {
		return false
	}
	for _, covered := range ports {
		if !covered {
			return false
		}
	}
	return true
}

// backendHostnameProblem is validateHostname: a DNS subdomain (a trailing dot
// aside), of at least two labels unless on the host, and not an IP
// address.
func backendHostnameProblem(hostname, what string, onHost bool) string {
	if errs := validation.IsDNS1123Subdomain(strings.TrimSuffix(hostname, ".")); errs != nil {
		return "hostname " + hostname + " is not a valid " + what + "."
	}
	if !onHost && len(strings.Split(hostname, ".")) < 2 {
		return "hostname " + hostname + " should be a domain with at least two segments separated by dots."
	}
	if _, err := netip.ParseAddr(hostname); err == nil {
		return "hostname " + hostname + " is an IP address."
	}
	return ""
}
