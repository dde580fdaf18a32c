package lint

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// protocolMismatches reports, once per policy and field, the backends on
// which a field limited to one upstream protocol (policy.FieldSpec.Protocol)
// is left out because the backend speaks the other (GWP306): merge's
// verdict (merge.Result.FieldProtocolOn), the one render reads too. Each
// backend port is visited once, with the merge in effect on it.
func protocolMismatches(in *Input) []diag.Diagnostic {
	reg := in.registry()
	if reg == nil || in.Result.Graph == nil {
		return nil
	}
	m := in.Result.Graph.Model
	type key struct {
		p     *policy.Policy
		field string
	}
	places := map[key][]string{}
	var order []key
	for _, bp := range in.Result.Backends {
		for _, port := range backendPorts(m, bp) {
			for _, pt := range bp.ForPort(port.name) {
				for _, f := range pt.Fields {
					v := in.Result.FieldProtocolOn(pt.Kind, f.Key, bp.Key, port.number)
					if !v.LeftOut() {
						continue
					}
					t, _ := reg.KindTarget(pt.Kind)
					where := backendDesc(bp.Key, port) + ", an " + protocolName(v.Speaks) + " backend" + appProtocolNote(reg.BackendAppProtocol(&t, m, bp.Key, port.number), port)
					for _, c := range f.Contributors {
						if c.IsBuiltIn() {
							continue
						}
						k := key{c.Policy, f.Key}
						if _, seen := places[k]; !seen {
							order = append(order, k)
						}
						places[k] = append(places[k], where)
					}
				}
			}
		}
	}
	var out []diag.Diagnostic
	for _, k := range order {
		out = append(out, k.p.Diag(FieldNotForBackendProtocol.Code, 0, k.p.FieldPath(k.field),
			"%s of %s has no effect on %s: %s translator applies it only to a backend that speaks %s and leaves it out there, while the policy stays Accepted; target only such backends, set the backend's appProtocol, or use the other protocol's options",
			k.field, k.p.ID(), strings.Join(places[k], "; "), controllerOf(in.Result.Registry, k.p), protocolName(k.p.Kind.Spec().FieldProtocol(k.field))))
	}
	return out
}

// backendPort is one port of a backend: a Service's by number and name,
// a backend object's (which has none of its own) as port 0. named: the
// Service port has no appProtocol, so a protocol it speaks comes from
// its name.
type backendPort struct {
	number int32
	name   string
	named  bool
}

// backendPorts are the ports whose clusters a backend's merge applies
// to: every port of a Service, the one cluster of another object.
func backendPorts(m *model.Model, bp *merge.BackendPoints) []backendPort {
	if bp.Key.Group != "" || bp.Key.Kind != "Service" {
		return []backendPort{{}}
	}
	s := m.Service(bp.Key.Namespace, bp.Key.Name)
	if s == nil {
		return nil
	}
	out := make([]backendPort, 0, len(s.Spec.Ports))
	for _, p := range s.Spec.Ports {
		out = append(out, backendPort{p.Port, p.Name, p.AppProtocol == nil})
	}
	return out
}

func backendDesc(k model.Key, port backendPort) string {
	d := k.Kind + " " + k.Namespace + "/" + k.Name
	if k.Group == "" && k.Kind == "Service" {
		d += fmt.Sprintf(" port %d", port.number)
	}
	return d
}

func protocolName(p string) string {
	if p == policy.ClusterHTTP2 {
		return "HTTP/2"
	}
	return "HTTP/1.1"
}

func appProtocolNote(ap string, port backendPort) string {
	switch {
	case ap == "":
		return " (it names no app protocol)"
	case port.named:
		return fmt.Sprintf(" (by its port name %q, read as the app protocol where none is set)", ap)
	}
	return fmt.Sprintf(" (app protocol %q)", ap)
}
