package model_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/schema"
)

// TestXListenerSetEntriesChecked: an XListenerSet, whose CRD gwpol does
// not ship, is held to its listener entries' rules (the ListenerEntry
// type's SectionName, Hostname, ProtocolType and PortNumber) while no CRD
// for it is known: a listener name or hostname holding a control
// character, a protocol outside the pattern, a port out of range is
// GWP101 at the field and the set is left out (before, a hostname with a
// newline reached the rendered Envoy config, which refused it: exit 4).
// Valid entries are read; with the CRD known the schema stage judges.
func TestXListenerSetEntriesChecked(t *testing.T) {
	set1 := func(listener string) string {
		return "apiVersion: gateway.networking.x-k8s.io/v1alpha1\nkind: XListenerSet\nmetadata: {name: xs, namespace: app}\nspec:\n  parentRef: {name: gw}\n  listeners:\n  - {name: ok, protocol: HTTP, port: 80}\n  - " + listener + "\n"
	}
	for _, c := range []struct {
		listener, field string
	}{
		{`{name: b, protocol: HTTP, port: 8080, hostname: "*.example.com"}`, ""},
		{`{name: b.c-1, protocol: example.com/custom, port: 65535}`, ""},
		{`{name: b, protocol: HTTP, port: 8080, hostname: "a\r\n.example.com"}`, "spec.listeners[1].hostname"},
		{`{name: b, protocol: HTTP, port: 8080, hostname: "A.example.com"}`, "spec.listeners[1].hostname"},
		{`{name: "l\e[2J", protocol: HTTP, port: 8080}`, "spec.listeners[1].name"},
		{`{name: "", protocol: HTTP, port: 8080}`, "spec.listeners[1].name"},
		{`{name: b, protocol: "HT TP", port: 8080}`, "spec.listeners[1].protocol"},
		{`{name: b, protocol: HTTP, port: 0}`, "spec.listeners[1].port"},
		{`{name: b, protocol: HTTP, port: 70000}`, "spec.listeners[1].port"},
	} {
		m := model.Build(set(t, "in.yaml", set1(c.listener)), model.Options{})
		var got []string
		for _, d := range m.Diagnostics {
			got = append(got, d.Code+" "+d.Field)
		}
		kept := len(m.OfKind(model.XListenerSetKind))
		if c.field == "" {
			if len(got) > 0 || kept != 1 {
				t.Errorf("%s: %v, kept %d; want no finding and the set read", c.listener, got, kept)
			}
			continue
		}
		if len(got) != 1 || got[0] != "GWP101 "+c.field || kept != 0 {
			t.Errorf("%s: %v, kept %d; want one GWP101 at %s and the set left out", c.listener, got, kept, c.field)
		}
	}
	// With a CRD for the kind known, the schema stage judges the entries.
	m := model.Build(set(t, "in.yaml", set1(`{name: b, protocol: HTTP, port: 0}`)), model.Options{Schema: func(*manifest.Object) schema.Verdict { return schema.Verdict{Checked: true, Served: true} }})
	if len(m.Diagnostics) != 0 || len(m.OfKind(model.XListenerSetKind)) != 1 {
		t.Errorf("CRD known: %v; want no finding and the set read", codes(m.Diagnostics))
	}
}
