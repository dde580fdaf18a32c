package model_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

// TestInvalidNamesLeaveObjectOut: a name the API server refuses (issue
// #31's catalogue: "..", "/", a newline, a NUL, empty, 300 characters,
// megabytes) is GWP113 at the value, and the object is in no typed view.
func TestInvalidNamesLeaveObjectOut(t *testing.T) {
	for _, c := range []struct{ desc, name string }{
		{"dot-dot", `".."`}, {"slash", `"a/b"`}, {"traversal", `"/../../victim"`}, {"newline", `"gw\n"`},
		{"NUL", `"gw\u0000"`}, {"empty", `""`}, {"300 characters", strings.Repeat("a", 300)},
		{"4 MB", strings.Repeat("a", 4<<20)}, {"capitals", "Gw"}, {"escape", `"gw\e[2K"`}, {"bidi", `"gw\u202e"`},
	} {
		t.Run(c.desc, func(t *testing.T) {
			m := build(t, "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  namespace: infra\n  name: "+c.name+"\nspec: {gatewayClassName: x, listeners: [{name: http, protocol: HTTP, port: 80}]}\n")
			if len(m.Gateways) != 0 {
				t.Errorf("the Gateway is in the model")
			}
			d := only(t, m.Diagnostics, "GWP113")
			if d.Pos.Line != 5 || d.Pos.Col != 9 || d.Field != "metadata.name" {
				t.Errorf("at %v %s, want in.yaml:5:9 metadata.name", d.Pos, d.Field)
			}
			if len(d.Message) > 1000 || strings.ContainsFunc(d.Message, unicode.IsControl) {
				t.Errorf("message not bounded or not escaped: %.200q", d.Message)
			}
		})
	}
}

// TestNameRulesPerKind: a Service name is a DNS-1035 label, a Namespace's
// a DNS-1123 label, a custom resource's or Secret's a subdomain; a
// namespace is a DNS-1123 label; a cluster-scoped object's namespace is
// not checked (the API server clears it).
func TestNameRulesPerKind(t *testing.T) {
	for _, c := range []struct {
		doc   string
		field string // "" when valid
	}{
		{"apiVersion: v1\nkind: Service\nmetadata: {name: web.v2, namespace: app}\n", "metadata.name"},
		{"apiVersion: v1\nkind: Service\nmetadata: {name: 1web, namespace: app}\n", "metadata.name"},
		{"apiVersion: v1\nkind: Service\nmetadata: {name: web-2, namespace: app}\n", ""},
		{"apiVersion: v1\nkind: Secret\nmetadata: {name: tls.example.com, namespace: app}\n", ""},
		{"apiVersion: v1\nkind: Namespace\nmetadata: {name: app.team}\n", "metadata.name"},
		{"apiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n", ""},
		{"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg.v1, namespace: Whatever}\nspec: {controllerName: x/y}\n", ""},
		{"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: " + strings.Repeat("n", 64) + "}\n", "metadata.namespace"},
		{"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\n", ""},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: Not_Read}\n", ""}, // kinds gwpol does not read are skipped
	} {
		m := build(t, c.doc)
		var got []string
		for _, d := range m.Diagnostics {
			if d.Code == "GWP113" {
				got = append(got, d.Field)
			}
		}
		if c.field == "" && len(got) > 0 || c.field != "" && (len(got) != 1 || got[0] != c.field) {
			t.Errorf("%s: GWP113 at %v, want %q", c.doc, got, c.field)
		}
	}
}

// TestReferenceNames: reference names and namespaces are checked by the
// rule of the kind they name (default kinds per field), loosely for
// kinds gwpol does not read; a kind's wildcard (Options.Wildcards)
// selects rather than names, and is refused where no family declares it;
// the object holding a bad one is left out.
func TestReferenceNames(t *testing.T) {
	const route = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n"
	wildcards := map[model.GroupKind]string{{Group: model.GatewayGroup, Kind: "HTTPRoute"}: "*"}
	for _, c := range []struct {
		spec  string
		field string
		bare  bool // built without the wildcard
	}{
		{"  rules:\n  - backendRefs: [{name: \"*\", group: gateway.networking.k8s.io, kind: HTTPRoute}]\n", "spec.rules[0].backendRefs[0].name", true},
		{"  rules:\n  - backendRefs: [{name: \"*\", port: 80}]\n", "spec.rules[0].backendRefs[0].name", false},
		{"  parentRefs: [{name: \"gw\\r\\e[2K\"}]\n", "spec.parentRefs[0].name", false},
		{"  parentRefs: [{name: gw, namespace: App}]\n", "spec.parentRefs[0].namespace", false},
		{"  parentRefs: [{name: gw.v1}]\n  rules:\n  - backendRefs: [{name: svc.v1, port: 80}]\n", "spec.rules[0].backendRefs[0].name", false},
		{"  rules:\n  - backendRefs: [{name: \"*\", group: gateway.networking.k8s.io, kind: HTTPRoute}]\n", "", false},
		{"  rules:\n  - backendRefs: [{name: My_Label, group: delegation.kgateway.dev, kind: label}]\n", "", false},
		{"  rules:\n  - backendRefs: [{name: \"a/b\", group: example.com, kind: Thing}]\n", "spec.rules[0].backendRefs[0].name", false},
		{"  rules:\n  - filters: [{type: RequestMirror, requestMirror: {backendRef: {name: \"..\", port: 80}}}]\n", "spec.rules[0].filters[0].requestMirror.backendRef.name", false},
		{"  rules:\n  - filters: [{type: ExtensionRef, extensionRef: {group: example.com, kind: Thing, name: " + strings.Repeat("x", 254) + "}}]\n", "spec.rules[0].filters[0].extensionRef.name", false},
	} {
		opt := model.Options{Wildcards: wildcards}
		if c.bare {
			opt = model.Options{}
		}
		m := model.Build(set(t, "in.yaml", route+c.spec), opt)
		var got []string
		for _, d := range m.Diagnostics {
			if d.Code == "GWP113" {
				got = append(got, d.Field)
			}
		}
		if c.field == "" && len(got) > 0 || c.field != "" && (len(got) != 1 || got[0] != c.field) {
			t.Errorf("%s: GWP113 at %v, want %q", c.spec, got, c.field)
		}
		if c.field != "" && len(m.Routes) != 0 {
			t.Errorf("%s: the route is in the model", c.spec)
		}
	}
}

func only(t *testing.T, ds []diag.Diagnostic, code string) diag.Diagnostic {
	t.Helper()
	var found []diag.Diagnostic
	for _, d := range ds {
		if d.Code == code {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s findings, want 1: %v", len(found), code, ds)
	}
	return found[0]
}

// FuzzNameRules: whatever the input, the name checks do not panic, and a
// name they accept is one plain, printable path component of bounded
// length — safe in a file name, a message or a terminal — and a value
// is always shown escaped and bounded.
func FuzzNameRules(f *testing.F) {
	for _, s := range []string{"gw", "..", ".", "a/b", "/etc/passwd", "gw\n", "gw\x00", "", strings.Repeat("a", 254), "x.y-z", "UPPER", "a\u202eb", "\xff\xfe", "-a", "a-", "a..b", "%2e%2e", "*"} {
		f.Add(s, uint8(0))
	}
	kinds := []model.GroupKind{{Group: "", Kind: "Service"}, {Group: "", Kind: "Namespace"}, {Group: "", Kind: "Secret"}, {Group: model.GatewayGroup, Kind: "Gateway"}, {Group: "example.com", Kind: "Thing"}}
	f.Fuzz(func(t *testing.T, s string, k uint8) {
		gk := kinds[int(k)%len(kinds)]
		if len(model.NameProblems(gk, s)) == 0 {
			if !safeComponent(s) || len(s) > 253 {
				t.Errorf("%s name %q accepted", gk, s)
			}
			if gk.Kind == "Service" || gk.Kind == "Namespace" {
				if len(s) > 63 {
					t.Errorf("%s name %q longer than a label", gk, s)
				}
			}
		}
		if len(model.NamespaceProblems(s)) == 0 && (!safeComponent(s) || len(s) > 63 || strings.Contains(s, ".")) {
			t.Errorf("namespace %q accepted", s)
		}
		shown := model.ShownValue(s)
		if strings.ContainsFunc(shown, unicode.IsControl) || len(shown) > 4*64+40 {
			t.Errorf("ShownValue(%q) = %q", s, shown)
		}
		if len(s) <= 64 {
			if back, err := strconv.Unquote(shown); err != nil || back != s && strings.ToValidUTF8(s, "\uFFFD") == s {
				t.Errorf("ShownValue(%q) = %q does not quote it: %v", s, shown, err)
			}
		}
	})
}

// safeComponent: one local path component of printable ASCII, lower case.
func safeComponent(s string) bool {
	if s == "" || !filepath.IsLocal(s) || s != filepath.Base(s) || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
